package compare

import (
	"fmt"
	"testing"

	"github.com/agentgate/agentgate/gate/coherence"
	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/verdict"
)

// benchRuns returns a baseline and a head of n traces and n tasks, with ids in opposite
// orders so that matching has to sort.
func benchRuns(n int) (*Baseline, *Run) {
	var bt, ht []reliability.Result
	bc, hc := &coherence.Summary{}, &coherence.Summary{}
	for i := range n {
		id := fmt.Sprintf("trace-%08d", i)
		bt = append(bt, reliability.Result{ID: id, Verdict: verdict.Pass, Score: 0.1})
		v := verdict.Pass
		if i%7 == 0 {
			v = verdict.Fail
		}
		ht = append(ht, reliability.Result{ID: fmt.Sprintf("trace-%08d", n-1-i), Verdict: v, Score: 0.2})
		bc.Add(coherence.TaskResult{ID: id, RCS: float64(i%100) / 100})
		hc.Add(coherence.TaskResult{ID: fmt.Sprintf("trace-%08d", n-1-i), RCS: float64((i+3)%100) / 100})
	}
	return &Baseline{Run: Run{Profile: profile.Default, Reliability: &reliability.Summary{Traces: bt}, Coherence: bc}},
		&Run{Profile: profile.Default, Reliability: &reliability.Summary{Traces: ht}, Coherence: hc}
}

func BenchmarkCompare(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		base, head := benchRuns(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				if _, err := Compare(base, head, DefaultOptions()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
