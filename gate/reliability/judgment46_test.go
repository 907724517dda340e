package reliability

import (
	"testing"

	"github.com/agentgate/agentgate/gate/verdict"
)

// Issue 46: signals that never cry wolf on a new suite. Each test holds one rule against the
// reference, which gets the case wrong, as docs/reference.md's differences table lists it.

// Item 1. An agent hands in its answer with a terminal tool and the harness stops: no result
// ever answers the call. Inspect's agents end on `submit` (24 of 73 real runs flagged, 13 of
// the 19 successful ones); smolagents on `final_answer`. RS-1 counts the call unanswered: of
// 2 calls, 1 without a result, over 3 checks (calls, results, claims) gives 0.5/3. A terminal
// call the agent went on from still needs its result.
func TestJudgmentTerminalToolNeedsNoResult(t *testing.T) {
	for _, tool := range []string{"submit", "final_answer", "Submit", "task_complete", "done", "finish", "attempt_completion"} {
		tr := decodeRun(t, openAIRecord("ends",
			oaUser("What is 17 * 23? Use the shell."),
			oaAssistant("", oaCall("c1", "bash", `{"cmd":"echo $((17*23))"}`)),
			oaTool("c1", "bash", "391"),
			oaAssistant("", oaCall("c2", tool, `{"answer":"391"}`))))
		ref, def := both(t, tr)
		if !near(ref.Signals.Hallucination, 0.5/3) {
			t.Errorf("reference, %s: hallucination %v; RS-1 gives 0.5/3", tool, ref.Signals.Hallucination)
		}
		if def.Signals.Hallucination != 0 || def.Verdict != verdict.Pass {
			t.Errorf("default, %s the run ends on: %s hallucination %v; want PASS 0%s", tool, def.Verdict, def.Signals.Hallucination, evidenceTexts(def))
		}
	}
	// submit, then more calls: the harness did not stop, and the submission went unanswered
	tr := decodeRun(t, openAIRecord("goes on",
		oaUser("What is 17 * 23? Use the shell."),
		oaAssistant("", oaCall("c1", "submit", `{"answer":"400"}`)),
		oaAssistant("", oaCall("c2", "bash", `{"cmd":"echo $((17*23))"}`)),
		oaTool("c2", "bash", "391")))
	if _, def := both(t, tr); !near(def.Signals.Hallucination, 0.5/3) || !hasEvidence(def, SignalHallucination, "call `submit` (id c1) at message 1 never got a result") {
		t.Errorf("default, submit then more calls: hallucination %v; want 0.5/3 naming submit%s", def.Signals.Hallucination, evidenceTexts(def))
	}
	// any other tool the run ends on still needs its result
	tr = decodeRun(t, openAIRecord("unanswered",
		oaUser("Book it."),
		oaAssistant("", oaCall("c1", "search", `{"q":"flights"}`)),
		oaTool("c1", "search", "HAT001"),
		oaAssistant("", oaCall("c2", "book_flight", `{"flight":"HAT001"}`))))
	if _, def := both(t, tr); !near(def.Signals.Hallucination, 0.5/3) {
		t.Errorf("default, book_flight the run ends on: hallucination %v; want 0.5/3%s", def.Signals.Hallucination, evidenceTexts(def))
	}
}

// Item 2. An optional argument written null is an argument left out, not a missing one:
// AgentDojo writes `search_calendar_events {"query": "yoga", "date": null}`, and the check of
// empty or null arguments fired on 21 successful and 17 failed real runs. RS-1 counts the
// call in (b) (1 of 2, 0.5) and, printing the null as None, in (d) (0.7·0.5), and averages
// them: 0.425. Arguments with no value at all are still missing.
func TestJudgmentNullOptionalArgument(t *testing.T) {
	run := func(args string) Result {
		tr := decodeRun(t, openAIRecord("yoga",
			oaUser("When is my yoga class this week?"),
			oaAssistant("", oaCall("c1", "search_calendar_events", args)),
			oaTool("c1", "search_calendar_events", `[{"title": "Yoga Class", "start_time": "2024-05-21 18:00"}]`),
			oaAssistant("", oaCall("c2", "get_day_calendar_events", `{"day":"2024-05-21"}`)),
			oaTool("c2", "get_day_calendar_events", `[{"title": "Yoga Class"}]`),
			oaAssistant("Your yoga class is on Tuesday, May 21 at 18:00.")))
		ref, def := both(t, tr)
		if args == `{"query":"yoga","date":null}` && !near(ref.Signals.ToolMisuse, 0.425) {
			t.Errorf("reference on %s: tool_misuse %v; RS-1 gives 0.425", args, ref.Signals.ToolMisuse)
		}
		return def
	}
	for _, args := range []string{`{"query":"yoga","date":null}`, `{"query":"yoga","date":null,"location":""}`, `{'query': 'yoga', 'date': None}`} {
		if def := run(args); def.Signals.ToolMisuse != 0 || def.Verdict != verdict.Pass {
			t.Errorf("default on %s: %s tool_misuse %v; want PASS 0%s", args, def.Verdict, def.Signals.ToolMisuse, evidenceTexts(def))
		}
	}
	for _, args := range []string{`{"query":null,"date":null}`, `{"query":"","date":null}`} {
		if def := run(args); def.Signals.ToolMisuse != 0.5 || !hasEvidence(def, SignalToolMisuse, "1 of 2 calls have empty, missing or null arguments: `search_calendar_events` at message 1") {
			t.Errorf("default on %s: tool_misuse %v; want 0.5 naming the call%s", args, def.Signals.ToolMisuse, evidenceTexts(def))
		}
	}
}
