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
