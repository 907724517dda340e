//go:build realsources

package trace

import (
	"testing"

	"github.com/agentgate/agentgate/internal/realsources"
)

// realTotals are a real source's figures summed over its runs: what python3 counts in the
// same files (each test says how), against what the reader reads.
type realTotals struct {
	runs, messages, calls, results, fails, succeeded int
}

// totalsOf sums the reader's view of every trace at path.
func totalsOf(t *testing.T, path string) realTotals {
	t.Helper()
	return sumTotals(readAll(t, path))
}

// sumTotals sums the reader's view of traces.
func sumTotals(traces []*Trace) realTotals {
	var got realTotals
	for _, tr := range traces {
		got.add(tr)
	}
	return got
}

// add counts trace tr into the totals.
func (r *realTotals) add(tr *Trace) {
	c := countTrace(tr)
	r.runs++
	r.messages += c.messages
	r.calls += c.calls
	r.results += c.results
	r.fails += c.fails
	if tr.Outcome.Known && tr.Outcome.Succeeded(1-1e-6) {
		r.succeeded++
	}
}

// TestRealSourceTauBench reads tau-bench's whole historical gpt-4o airline run (200 runs).
// python3 (json.load): len(traj) summed; tool_calls over all messages; role "tool" messages;
// those whose content, left-stripped, starts with "error" in any case; reward == 1.
func TestRealSourceTauBench(t *testing.T) {
	p := realsources.Path(t, "tau-bench-gpt4o-airline", "historical_trajectories/gpt-4o-airline.json")
	want := realTotals{runs: 200, messages: 5308, calls: 1164, results: 1164, fails: 73, succeeded: 84}
	if got := totalsOf(t, p); got != want {
		t.Errorf("read %+v, want %+v", got, want)
	}
}
