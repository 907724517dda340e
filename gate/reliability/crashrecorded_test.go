package reliability

import (
	"testing"

	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/trace"
	"github.com/agentgate/agentgate/gate/verdict"
)

// TestCrashRecordedAfterTurns: OpenHands' resolver records the error that stopped a run
// after its agent took turns (docs/trace-formats.md, "Blind reads and crashes"). The finding
// says the run ended on it, not that it crashed before the agent's first turn, and the run
// is not a crash before any turn for its file's domain (gate's identify).
func TestCrashRecordedAfterTurns(t *testing.T) {
	const stuck = "AgentStuckInLoopError: Agent got stuck in a loop"
	turns := &trace.Trace{ID: "o/r/issue/1", Task: "o/r/issue/1", Crash: stuck, Messages: []trace.Message{
		{Role: "user", Content: "Fix the issue."},
		{Role: "assistant", Content: "Looking.", Calls: []trace.Call{{ID: "c1", HasID: true, Tool: "run", Args: []byte(`{"command":"ls"}`), ArgsValid: true}}},
		{Role: "tool", Content: "a.py", Results: []trace.Result{{CallID: "c1", HasID: true, Success: true, Content: "a.py"}}},
	}}
	r := Evaluate(turns, profile.Default)
	want := `the run ended on an error: the harness recorded "AgentStuckInLoopError: Agent got stuck in a loop"`
	if r.Verdict != verdict.Warn || !hasEvidence(r, SignalTrace, want) || r.Attempt == nil || r.Attempt.Crashed {
		t.Errorf("after turns: %s, attempt %+v; want WARN with %q, not crashed before a turn%s", r.Verdict, r.Attempt, want, evidenceTexts(r))
	}

	none := &trace.Trace{ID: "o/r/issue/2", Task: "o/r/issue/2", Crash: "Agent failed to run or crashed"}
	r = Evaluate(none, profile.Default)
	want = `the run crashed before the agent's first turn: the harness recorded "Agent failed to run or crashed"`
	if r.Verdict != verdict.Warn || !hasEvidence(r, SignalTrace, want) || r.Attempt == nil || !r.Attempt.Crashed {
		t.Errorf("before a turn: %s, attempt %+v; want WARN with %q, crashed%s", r.Verdict, r.Attempt, want, evidenceTexts(r))
	}
}
