package reliability

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/trace"
)

// The evidence of the RS-1 problematic sample under the reference profile, written by hand
// from the trace: the sets of ids leave call-3, call-4, call-5 unanswered and call-99
// orphaned; message 1 claims a call; five identical empty calls; 2 of 3 results failed; all
// 5 calls have empty arguments; 8000 tokens over 5 messages. Within a signal the largest
// factor's evidence leads: hallucination's unanswered calls 3/5 = 0.6, then the orphan
// 1.5·1/3 = 0.5 and the claim 0.5 (a tie keeps the order found); misuse's failure rate
// min(1, 1.5·2/3) = 1 ties the empty arguments 5/5 = 1.
func TestEvidenceOfProblematicSample(t *testing.T) {
	r := Evaluate(problematicTrace(), profile.Reference)
	want := []Evidence{
		{"hallucination", "call `process` (id call-3) at message 2 never got a result", []int{2}, false, false},
		{"hallucination", "call `process` (id call-4) at message 2 never got a result", []int{2}, false, false},
		{"hallucination", "call `process` (id call-5) at message 4 never got a result", []int{4}, false, false},
		{"hallucination", "result for id call-99 at message 3 answers no call", []int{3}, false, false},
		{"hallucination", "assistant message 1 claims tool use (\"called\") but makes no tool call", []int{1}, false, false},
		{"loop", "`process` called 5 times with identical arguments {} at messages 2, 2, 2, 2, 4", []int{2, 4}, false, false},
		{"tool_misuse", "2 of 3 tool results failed: `process` at messages 3, 3", []int{3}, false, false},
		{"tool_misuse", "5 of 5 calls have empty, missing or null arguments: `process` at messages 2, 2, 2, 2, 4", []int{2, 4}, false, false},
		{"cost", "8,000 tokens over 5 messages (1,600 per message, above 1,000)", []int{}, false, false},
	}
	if !reflect.DeepEqual(r.Evidence, want) {
		t.Errorf("evidence:\n%s\nwant:\n%s", dump(r.Evidence), dump(want))
	}
}

func dump(ev []Evidence) string {
	var b strings.Builder
	for _, e := range ev {
		fmt.Fprintf(&b, "%s: %s %v\n", e.Signal, e.Text, e.Messages)
	}
	return b.String()
}

// The examples of evidence in the brief, reproduced: repeated identical calls with their
// arguments, and a call that never got a result.
func TestEvidenceExamples(t *testing.T) {
	tr := &trace.Trace{ID: "x", Messages: []trace.Message{msg("user", "go"), msg("assistant", "ok"), msg("user", "more")}}
	for i := 0; i < 5; i++ {
		id := string(rune('a' + i))
		tr.Messages = append(tr.Messages,
			withCalls(msg("assistant", ""), call(id, "search", `{ "q" : "x" }`)),
			withResults(msg("tool", "r"), ok(id)))
	}
	tr.Messages[1] = withCalls(tr.Messages[1], call("call_7", "lookup", `{"id":"`+strings.Repeat("0123456789", 8)+`"}`))
	r := Evaluate(tr, profile.Default)
	texts := map[string]bool{}
	for _, e := range r.Evidence {
		texts[e.Text] = true
	}
	for _, w := range []string{
		"`search` called 5 times with identical arguments {\"q\":\"x\"} at messages 3, 5, 7, 9, 11",
		"call `lookup` (id call_7) at message 1 never got a result",
	} {
		if !texts[w] {
			t.Errorf("missing evidence %q in\n%s", w, dump(r.Evidence))
		}
	}
	// Long arguments are cut to 60 characters ending in "…".
	if got := shortArgs(&tr.Messages[1].Calls[0]); len([]rune(got)) != 60 || !strings.HasSuffix(got, "…") ||
		!strings.HasPrefix(got, `{"id":"0123456789`) {
		t.Errorf("shortArgs = %q (%d characters)", got, len([]rune(got)))
	}
}

// Evidence stays bounded: hundreds of unanswered calls give maxItems entries and a summary.
func TestEvidenceIsBounded(t *testing.T) {
	tr := &trace.Trace{ID: "many"}
	for i := 0; i < 300; i++ {
		tr.Messages = append(tr.Messages, withCalls(msg("assistant", ""), call("id"+strings.Repeat("x", i%7)+string(rune('A'+i%50))+string(rune('a'+i/50)), "t", `{"i":1}`)))
	}
	r := Evaluate(tr, profile.Default)
	n := 0
	for _, e := range r.Evidence {
		if e.Signal == SignalHallucination {
			n++
			if len(e.Messages) > maxMessages {
				t.Errorf("evidence keeps %d messages", len(e.Messages))
			}
		}
	}
	if n != maxItems+1 {
		t.Errorf("%d hallucination evidence entries; want %d", n, maxItems+1)
	}
}

// The cost evidence names the tier the total crossed (RS-1's thresholds: 10000, 50000, 100000).
func TestCostEvidenceNamesTier(t *testing.T) {
	for _, c := range []struct {
		total int64
		want  string
	}{
		{20000, "20,000 tokens in total, above 10,000"},
		{60000, "60,000 tokens in total, above 50,000"},
		{120000, "120,000 tokens in total, above 100,000"},
	} {
		// 200 short messages keep the per-message factor (b) quiet for every total here.
		tr := &trace.Trace{ID: "c", Usage: trace.Usage{Prompt: c.total, Total: c.total, Recorded: true}}
		for i := 0; i < 200; i++ {
			tr.Messages = append(tr.Messages, msg("user", fmt.Sprintf("question %d", i)))
		}
		r := Evaluate(tr, profile.Reference) // the default keeps only the budget (TestCostTokenBudget)
		found := false
		for _, e := range r.Evidence {
			if e.Signal == SignalCost && e.Text == c.want {
				found = true
			}
		}
		if !found {
			t.Errorf("total %d: evidence %+v, want %q", c.total, r.Evidence, c.want)
		}
	}
}

// The report quotes a signal's first evidence as the reason for its score, so it must explain
// the largest factor. A 62-message run whose loop score is 1.0 because the same booking failed
// four times must lead with that, not with its length (capped at 0.5 in default: (62−50)/100 =
// 0.12 here).
func TestEvidenceLeadsWithTheLargestFactor(t *testing.T) {
	tr := &trace.Trace{ID: "retry-storm"}
	tr.Messages = append(tr.Messages, msg("user", "book it"))
	for i := 0; i < 4; i++ {
		id := fmt.Sprintf("b%d", i)
		tr.Messages = append(tr.Messages,
			withCalls(msg("assistant", ""), call(id, "book", `{"flight": "HAT001"}`)),
			withResults(msg("tool", "Error: payment declined"), fail(id)))
	}
	for len(tr.Messages) < 62 {
		tr.Messages = append(tr.Messages, msg("user", fmt.Sprintf("still there? %d", len(tr.Messages))))
	}
	r := Evaluate(tr, profile.Default)
	// Identical failing call: min(1, (4−1)/3) = 1 beats (4−2)/8 = 0.25 and the length's 0.12.
	if r.Signals[Loop] != 1 {
		t.Fatalf("loop = %v, want 1", r.Signals[Loop])
	}
	var first string
	for _, e := range r.Evidence {
		if e.Signal == SignalLoop {
			first = e.Text
			break
		}
	}
	if !strings.HasPrefix(first, "`book` called 4 times with identical arguments") {
		t.Fatalf("first loop evidence = %q, want the repeated failing call", first)
	}
}

// TestNumber: figures in evidence read as in the report, with thousands separators, and to two
// decimals where they are not whole.
func TestNumber(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want string
	}{
		{0, "0"}, {4.13, "4.13"}, {999.5, "999.50"}, {1000, "1,000"}, {23000, "23,000"},
		{44500.5, "44,500.50"}, {1234567.891, "1,234,567.89"}, {-2500.25, "-2,500.25"}, {1e15, "1000000000000000.00"},
	} {
		if got := number(c.x); got != c.want {
			t.Errorf("number(%v) = %q, want %q", c.x, got, c.want)
		}
	}
}
