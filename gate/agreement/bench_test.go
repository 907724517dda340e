package agreement

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/internal/cputime"
)

// writeSuite writes n deterministic merged pairs to a .jsonl file and returns its path and
// size. full records have the shape of docs/design.md#the-source-systems (reasons, answer_json with a claim,
// citations and constraints, retrieved_ids, flags: about 430 bytes); lean ones carry only qid,
// labels and reasons (about 175 bytes). Labels agree on about 90% of items.
func writeSuite(tb testing.TB, dir string, n int, full bool) (string, int64) {
	tb.Helper()
	path := filepath.Join(dir, fmt.Sprintf("pairs-%d-%v.jsonl", n, full))
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	x := uint32(2463534242)
	next := func() uint32 { x ^= x << 13; x ^= x >> 17; x ^= x << 5; return x }
	labels := []string{Valid, Valid, Valid, Valid, NotInContext, NotInContext, Reject, Abstain}
	for i := 0; i < n; i++ {
		s := labels[next()%8]
		a := s
		if next()%10 == 0 {
			a = labels[next()%8]
		}
		fmt.Fprintf(w, `{"qid": "Q%07d", "scholar": {"label": "%s", "reason": "claim contained; cites p%d#2"}, "auditor": {"label": "%s", "reason": "provenance ok; constraints echoed"}`, i, s, i%97, a)
		if full {
			c := next() % 4
			fmt.Fprintf(w, `, "answer_json": {"claim": "X rejects null keys in \"strict\" mode.", "citations": ["p%d#2"], "constraints_echo": ["X rejects null keys."]}, "retrieved_ids": ["p%d#1", "p%d#2", "p%d#1"], "flags": {"provenance_violation": %v, "constraints_mismatch": false}`, c, 0, 1, 2, next()%50 == 0)
		}
		w.WriteString("}\n")
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	return path, st.Size()
}

// BenchmarkLoadMergedCompute reads a merged pairs file from the page cache and computes its
// summary: the whole cost of the agreement evaluator. Besides the pairs a second it reports the
// CPU time a pair takes (cpu-ns/pair, garbage collection included), which varies far less than
// the wall clock on a shared machine.
func BenchmarkLoadMergedCompute(b *testing.B) {
	const n = 200_000
	dir := b.TempDir()
	for _, full := range []bool{true, false} {
		path, size := writeSuite(b, dir, n, full)
		for _, p := range []profile.Profile{profile.Default, profile.Reference} {
			name := fmt.Sprintf("shape=%s/profile=%s", map[bool]string{true: "seed", false: "lean"}[full], p)
			b.Run(name, func(b *testing.B) {
				b.SetBytes(size)
				b.ReportAllocs()
				cpu, _ := cputime.Process()
				for i := 0; i < b.N; i++ {
					pairs, err := LoadMerged([]string{path}, p)
					if err != nil {
						b.Fatal(err)
					}
					if s := Compute(pairs, nil, p); s.N != n {
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

// BenchmarkDecodeRecord decodes one merged record in memory: the decoder (on jsonscan) against
// encoding/json validating the same bytes and decoding them into a struct, for scale.
func BenchmarkDecodeRecord(b *testing.B) {
	for _, full := range []bool{true, false} {
		path, _ := writeSuite(b, b.TempDir(), 1, full)
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		data = bytes.TrimSpace(data)
		shape := map[bool]string{true: "seed", false: "lean"}[full]
		// scanner keeps the reasons, as LoadMerged does; scanner-noreason drops them, as
		// EvaluateMerged does.
		for _, noReason := range []bool{false, true} {
			b.Run("shape="+shape+"/scanner"+map[bool]string{true: "-noreason"}[noReason], func(b *testing.B) {
				d := &decoder{p: profile.Default, noReason: noReason}
				var r pairRec
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if err := d.pair(data, &r); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		b.Run("shape="+shape+"/json.Valid", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				if !json.Valid(data) {
					b.Fatal("invalid")
				}
			}
		})
		b.Run("shape="+shape+"/json.Unmarshal", func(b *testing.B) {
			type judgement struct{ Label, Reason string }
			var v struct {
				QID          string    `json:"qid"`
				Scholar      judgement `json:"scholar"`
				Auditor      judgement `json:"auditor"`
				RetrievedIDs []string  `json:"retrieved_ids"`
				AnswerJSON   struct {
					Citations []string `json:"citations"`
				} `json:"answer_json"`
				Flags map[string]bool `json:"flags"`
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if err := json.Unmarshal(data, &v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
