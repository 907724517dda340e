package trace

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/internal/cputime"

	"github.com/agentgate/agentgate/gate/input"
)

// The readers of harness files run in linear time (docs/design.md#trust-boundaries): reading 4n of anything costs at
// most 10 times what n costs (4 when linear; a quadratic reader costs 16), in CPU time, the
// best of three runs each, in one of three tries: wide enough that a busy machine's cache and
// a neighbour's bursts do not fail it, and the bytes allocated, counted, at most 6 times.

// bestCPU is the least CPU time of three runs of f.
func bestCPU(t *testing.T, f func()) time.Duration {
	t.Helper()
	best := time.Duration(1<<63 - 1)
	for range 3 {
		c0, ok := cputime.Process()
		if !ok {
			t.Skip("no CPU time on this platform")
		}
		f()
		c1, _ := cputime.Process()
		best = min(best, c1-c0)
	}
	return best
}

func checkLinear(t *testing.T, what string, run func(n int)) {
	t.Helper()
	if testing.Short() {
		t.Skip("timing test")
	}
	// n is large enough that the caches are outgrown at n already, not only at 4n
	const n = 4000
	run(n) // warm up
	var m0, m1, m2 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	run(n)
	runtime.ReadMemStats(&m1)
	run(4 * n)
	runtime.ReadMemStats(&m2)
	if as, al := m1.TotalAlloc-m0.TotalAlloc, m2.TotalAlloc-m1.TotalAlloc; al > 6*as {
		t.Errorf("%s: 4n allocated %d bytes, n %d: more than 6 times", what, al, as)
	}
	// On a shared machine one measurement may be off: a linear reader comes within 10 times
	// in one of three tries, a quadratic one (16 times) in none.
	var small, large time.Duration
	for range 3 {
		small = bestCPU(t, func() { run(n) })
		large = bestCPU(t, func() { run(4 * n) })
		t.Logf("%s: n %v, 4n %v: ratio %.2f", what, small, large, float64(large)/float64(small))
		if large <= 10*small {
			return
		}
	}
	t.Errorf("%s: 4n took %v, n %v: more than 10 times", what, large, small)
}

// tau2Doc is a results file of n simulations, each with a call that fails, and one simulation
// of n turns.
func tau2Doc(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"info": {}, "tasks": [], "simulations": [`)
	turn := `{"role": "assistant", "content": null, "tool_calls": [{"id": "c%d", "name": "get", "arguments": {"k": %d}, "requestor": "assistant"}], "usage": {"completion_tokens": 3, "prompt_tokens": 9}},
	{"id": "c%d", "role": "tool", "content": "Error: no", "requestor": "assistant", "error": true}`
	for i := range n {
		fmt.Fprintf(&b, `{"id": "s%d", "task_id": "t%d", "trial": 0, "reward_info": {"reward": 1.0}, "messages": [`+turn+`]},`+"\n", i, i%50, i, i, i)
	}
	b.WriteString(`{"id": "long", "task_id": "t", "trial": 1, "messages": [`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, turn, i, i, i)
	}
	b.WriteString("]}]}")
	return []byte(b.String())
}

func TestTau2Linear(t *testing.T) {
	docs := map[int][]byte{4000: tau2Doc(4000), 16000: tau2Doc(16000)}
	checkLinear(t, "tau2", func(n int) {
		traces := 0
		if err := eachTau2(context.Background(), "f.json", docs[n], func(*Trace) error { traces++; return nil }); err != nil || traces != n+1 {
			t.Fatalf("%d traces, %v", traces, err)
		}
	})
}

// miniDoc is a mini-swe-agent trajectory of n turns, every assistant turn holding many
// unclosed fences besides its action.
func miniDoc(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"trajectory_format": "mini-swe-agent-1", "instance_id": "x", "messages": [`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"role": "assistant", "content": "%s`+"```bash\\nls %d\\n```"+`"}, {"role": "user", "content": "<returncode>%d</returncode>\\n<output>\\n</output>"}`,
			strings.Repeat("```bash ", 20), i, i%2)
	}
	b.WriteString("]}")
	return []byte(b.String())
}

func TestMiniSWELinear(t *testing.T) {
	docs := map[int][]byte{4000: miniDoc(4000), 16000: miniDoc(16000)}
	checkLinear(t, "mini-swe-agent", func(n int) {
		tr, err := Decode(input.Record{File: "x.traj.json", Line: 1, Col: 1, Data: docs[n]})
		if err != nil || tr.NumCalls() != n {
			t.Fatalf("want %d calls: %v", n, err)
		}
	})
}
