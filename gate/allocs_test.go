package gate_test

import (
	"context"
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/coherence"
	"github.com/agentgate/agentgate/test/gensuite"
)

// TestGateAllocations holds the allocations of the gate end to end over generated traces
// (test/gensuite: 20 messages, about 7.8 KB each), the figure BenchmarkGate/run/default reports
// and docs/performance.md quotes: reading, decoding, evaluating, the id check and the verdict
// make 5.9 a trace on 2,000 traces, the run's own few hundred (the plan, the pipeline, the
// report's sections) included.
func TestGateAllocations(t *testing.T) {
	g := gensuite.NewTraces(1)
	var b []byte
	const n = 2000
	for range n {
		b = g.Append(b)
	}
	path := writeFile(t, t.TempDir(), "traces.jsonl", string(b))
	o := gate.Options{Thresholds: gate.DefaultThresholds(), Workers: 1}
	run := func() {
		res, err := gate.Run(context.Background(), gate.Inputs{Traces: []string{path}}, o)
		if err != nil || res.Reliability.Total != n {
			t.Fatalf("%v, %+v", err, res)
		}
	}
	perTrace := testing.AllocsPerRun(3, run) / n
	if perTrace > 7 {
		t.Errorf("%.2f allocations a trace, want at most 7", perTrace)
	}
	t.Logf("%.2f allocations a trace", perTrace)
}

// TestTaskReaderAllocations holds the allocations of reading coherence tasks (coherence.Each
// over generated tasks, test/gensuite: an intent, an understanding and an action of 100 to 400
// bytes each), the figure BenchmarkSuite/coherence/read reports and docs/performance.md
// quotes: 15.4 a task on 2,000 tasks (the docs said 14), the task's three strings and its id among them.
func TestTaskReaderAllocations(t *testing.T) {
	r := gensuite.NewRand(1)
	var b []byte
	const n = 2000
	for i := range n {
		b = gensuite.AppendTask(b, r, i)
	}
	path := writeFile(t, t.TempDir(), "tasks.jsonl", string(b))
	perTask := testing.AllocsPerRun(3, func() {
		read := 0
		if err := coherence.Each(path, func(coherence.Task) error { read++; return nil }); err != nil || read != n {
			t.Fatalf("%v, %d tasks", err, read)
		}
	}) / n
	if perTask > 16 {
		t.Errorf("%.2f allocations a task, want at most 16", perTask)
	}
	t.Logf("%.2f allocations a task", perTask)
}
