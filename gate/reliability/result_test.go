package reliability

import (
	"testing"
	"unsafe"

	"github.com/agentgate/agentgate/gate/profile"
)

// TestResultStaysSmall guards the size of Result, of which the gate keeps one per trace until
// the report is written (the largest thing it holds: 168 bytes × 128,000 traces for 1 GB of
// traces; 24 of them are the run's outcome, Run, which the gate kept in a parallel list of the
// same size before it moved into Result, 8 the counts of messages and tool calls the
// report shows, and 8 the pointer to what the cost compares across the suite,
// SuiteCost, taken from a slab). What only the RS-1 drop-in shows belongs behind Result.Detail,
// not in Result, and what few suites have behind a pointer (Attempt).
func TestResultStaysSmall(t *testing.T) {
	if n := unsafe.Sizeof(Result{}); n > 176 {
		t.Errorf("Result is %d bytes, want at most 176: keep what the gate report does not show in Detail", n)
	}
}

// TestBriefHasNoDetail checks that a brief Evaluator leaves Detail nil and a full one fills it.
func TestBriefHasNoDetail(t *testing.T) {
	tr := problematicTrace()
	brief := Evaluator{Profile: profile.Default, Brief: true}
	if r := brief.Evaluate(tr); r.Detail != nil {
		t.Errorf("brief result has detail %+v", *r.Detail)
	}
	r := Evaluate(tr, profile.Default)
	if r.Detail == nil || r.Detail.Reasoning == "" || r.Detail.Meta.TotalMessages != len(tr.Messages) {
		t.Fatalf("full result: detail %+v", r.Detail)
	}
	if rep := (Result{ID: "x"}).RS1(); rep.Reasoning != "" || rep.SignalScores[0].Details != "" {
		t.Errorf("RS1 of a result without detail: %+v", rep)
	}
}

// TestContentKey: a run's content key is the same wherever it lies and whatever it is named
// (file, line, id, suite, task, trial) and whether or not its tokens were compared with its
// suite's (RelateCost, which a shard's report carries and a merge redoes); what the run
// recorded (its outcome, tokens, counts, findings, agent) changes it.
func TestContentKey(t *testing.T) {
	run := func() Result {
		r := Evaluate(problematicTrace(), profile.Default)
		r.Attempt = &Attempt{Suite: "airline", Task: "5", Trial: new(int), Agent: "gpt-4o"}
		r.Run.Known, r.Run.Value, r.Run.Tokens = true, 1, 900
		r.SuiteCost = &SuiteCost{Tokens: 900}
		return r
	}
	base := run()
	key := base.ContentKey()
	moved := run()
	moved.File, moved.Line, moved.ID, moved.Attempt.Suite, moved.Attempt.Task = "elsewhere/x.json", 40, "5#4", "airline@gpt-4o", "6"
	four := 4
	moved.Attempt.Trial = &four
	if moved.ContentKey() != key {
		t.Error("the key changed with the run's place and identity")
	}
	// the run's tokens against a suite whose median is 100: a relative cost, evidence and verdict
	related := &Summary{}
	for range 5 {
		r := run()
		r.SuiteCost = &SuiteCost{Tokens: 100}
		related.Add(r)
	}
	related.Add(run())
	related.RelateCost(profile.Default)
	if r := &related.Traces[5]; r.SuiteCost.Relative == 0 || r.ContentKey() != key {
		t.Errorf("relative cost %v: the key changed with the suite's comparison", r.SuiteCost.Relative)
	}
	for name, edit := range map[string]func(*Result){
		"outcome":  func(r *Result) { r.Run.Value = 0 },
		"unknown":  func(r *Result) { r.Run.Known = false },
		"tokens":   func(r *Result) { r.SuiteCost = &SuiteCost{Tokens: 901} },
		"messages": func(r *Result) { r.Messages++ },
		"calls":    func(r *Result) { r.ToolCalls++ },
		"agent":    func(r *Result) { r.Attempt.Agent = "gpt-5" },
		"evidence": func(r *Result) { r.Evidence = r.Evidence[1:] },
		"verdict":  func(r *Result) { r.Verdict = "FAIL" },
	} {
		r := run()
		edit(&r)
		if r.ContentKey() == key {
			t.Errorf("%s: the key did not change", name)
		}
	}
}
