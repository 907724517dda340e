package agreement

import (
	"context"
	"fmt"
	"testing"

	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/internal/cputime"
)

// BenchmarkEvaluateMerged is what the gate does with a merged pairs file in the page cache:
// EvaluateMerged on one worker per core, and on one worker, for scale. Besides the pairs a
// second it reports the CPU time a pair takes on all cores together (cpu-ns/pair), which
// varies far less than the wall clock on a shared machine.
func BenchmarkEvaluateMerged(b *testing.B) {
	const n = 1_000_000
	dir := b.TempDir()
	for _, full := range []bool{true, false} {
		path, size := writeSuite(b, dir, n, full)
		for _, p := range []profile.Profile{profile.Default, profile.Reference} {
			for _, workers := range []int{0, 1} {
				name := fmt.Sprintf("shape=%s/profile=%s/workers=%d", map[bool]string{true: "seed", false: "lean"}[full], p, workers)
				b.Run(name, func(b *testing.B) {
					b.SetBytes(size)
					b.ReportAllocs()
					cpu, _ := cputime.Process()
					for i := 0; i < b.N; i++ {
						s, err := EvaluateMerged(context.Background(), []string{path}, p, workers)
						if err != nil {
							b.Fatal(err)
						}
						if s.N != n {
							b.Fatalf("n = %d", s.N)
						}
					}
					b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
					if end, ok := cputime.Process(); ok {
						b.ReportMetric(float64(end-cpu)/float64(n)/float64(b.N), "cpu-ns/pair")
					}
				})
			}
		}
	}
}
