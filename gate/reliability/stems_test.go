package reliability

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/trace"
)

// Issue 34 finding 1: the word-level checks of the default profile were quadratic. Each "X
// tool" phrase of a claim rebuilt the words of every recent tool's name and compared them
// with X; a success claim compared each of its words with each word of a failed tool's name.
// A 1.3 MB trace took 168 s of CPU. The tests below count the look-ups of stems (stemWork)
// rather than timing anything: at n and 2n the work must double, not quadruple.

// longToolName is a tool name of n words w00000…, each of six letters and digits.
func longToolName(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte('_')
		}
		fmt.Fprintf(&b, "w%05d", i)
	}
	return b.String()
}

// namedToolsTrace calls a tool of an n-word name, then claims tool use naming its last word
// in n phrases ("I called the w00099 tool, the w00099 tool, …"): every phrase names a tool
// that was called, so namesUncalledTool reads them all.
func namedToolsTrace(n int) *trace.Trace {
	tool := longToolName(n)
	last := tool[strings.LastIndexByte(tool, '_')+1:]
	return &trace.Trace{ID: "names", Messages: []trace.Message{
		msg("user", "go"),
		withCalls(msg("assistant", ""), call("c1", tool, `{}`)),
		withResults(msg("tool", "done"), ok("c1")),
		msg("assistant", "I called the "+strings.Repeat(last+" tool, the ", n)+last+" tool."),
	}}
}

// falseSuccessTrace fails a call of a tool of an n-word name, then claims success in a
// message of n words that share no stem with the tool's, so that falseSuccess compares them
// all.
func falseSuccessTrace(n int) *trace.Trace {
	var b strings.Builder
	b.WriteString("The order has been updated:")
	for i := range n {
		fmt.Fprintf(&b, " q%05d", i)
	}
	return &trace.Trace{ID: "success", Messages: []trace.Message{
		msg("user", "go"),
		withCalls(msg("assistant", ""), call("c1", longToolName(n), `{}`)),
		withResults(msg("tool", "Error: failed"), fail("c1")),
		msg("assistant", b.String()),
	}}
}

// stemWork evaluates tr under the default profile and returns the look-ups stems made.
func stemWork(tr *trace.Trace) (int, Result) {
	var ev Evaluator
	r := ev.Evaluate(tr)
	return ev.e.stemWork, r
}

func TestWordChecksLinear(t *testing.T) {
	for name, build := range map[string]func(int) *trace.Trace{"names": namedToolsTrace, "success": falseSuccessTrace} {
		n := 2000
		w1, r1 := stemWork(build(n))
		w2, _ := stemWork(build(2 * n))
		// every word asked about is six bytes: one look-up for a longer tool word, five for
		// shorter ones, per word asked about (n phrases, or n words and the claim's own)
		if w1 < n || w2 > 2*w1+64 {
			t.Errorf("%s: %d look-ups at n=%d, %d at 2n: want at least n and at most twice as many", name, w1, n, w2)
		}
		// the quadratic code gave these verdicts: nothing was skipped to save the work
		switch name {
		case "names":
			if r1.Signals[Hallucination] != 0 {
				t.Errorf("names: hallucination %v, want 0 (every phrase names the tool called)", r1.Signals[Hallucination])
			}
		case "success":
			if r1.Signals[Hallucination] != 0 {
				t.Errorf("success: hallucination %v, want 0 (the claim names nothing the tool does)", r1.Signals[Hallucination])
			}
		}
	}
}

// TestStemsIsRelated checks the index against related itself on words of shared stems and of
// every length around stemPrefix's steps (1–12 bytes), both ways round. One stems value is
// built again for each tool, as the evaluator reuses its memory from trace to trace.
func TestStemsIsRelated(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 1))
	letters := "abe"
	word := func() string {
		b := make([]byte, 1+rng.IntN(12))
		for i := range b {
			b[i] = letters[rng.IntN(len(letters))]
		}
		return string(b)
	}
	var s stems
	for range 3000 {
		var parts []string
		for range 1 + rng.IntN(4) {
			parts = append(parts, word())
		}
		tool := strings.Join(parts, "_")
		s.build(tool)
		work := 0
		for range 20 {
			w := word()
			want := false
			for _, tw := range toolWords(tool) {
				want = want || related(w, tw)
			}
			if got := s.related(w, &work); got != want {
				t.Fatalf("tool %q, word %q: stems say %v, related %v", tool, w, got, want)
			}
		}
	}
	// known pairs from related's own comment
	for _, c := range []struct {
		tool, word string
		want       bool
	}{
		{"book_flight", "booked", true}, {"modify_order", "modified", true},
		{"make_reservation", "reserved", true}, {"update_address", "updated", true},
		{"get_order_details", "order", true}, {"cancel_order", "cancellation", true},
		{"cancel_order", "can", true}, {"refund", "refunds", true}, {"update_order", "upgraded", false},
		{"make_reservation", "resort", false}, {"get_order_details", "get", false},
	} {
		var s stems
		s.build(c.tool)
		work := 0
		if got := s.related(c.word, &work); got != c.want {
			t.Errorf("%s / %s: %v, want %v", c.tool, c.word, got, c.want)
		}
	}
}

// answers reads the agent's reply to failed results once, however many results share it: a
// tool message of n failed results and a reply of n calls and n words is one reading, not n
// (each reading scans the reply's words and calls).
func TestAnswersReadEachReplyOnce(t *testing.T) {
	for _, n := range []int{10, 1000} {
		tool := msg("tool", "")
		reply := msg("assistant", "Sorry, none of them exist."+strings.Repeat(" no", n))
		call0 := msg("assistant", "")
		for i := range n {
			id := fmt.Sprintf("c%d", i)
			call0 = withCalls(call0, call(id, "get_item", fmt.Sprintf(`{"id":%d}`, i)))
			r := fail(id)
			r.Content = "Error: item not found"
			tool = withResults(tool, r)
			reply = withCalls(reply, call(fmt.Sprintf("d%d", i), "search_items", fmt.Sprintf(`{"q":%d}`, i)))
		}
		tr := &trace.Trace{ID: "many", Messages: []trace.Message{msg("user", "find them"), call0, tool, reply}}
		var ev Evaluator
		r := ev.Evaluate(tr)
		if ev.e.answerReads != 1 {
			t.Errorf("n=%d: the reply was read %d times, want 1", n, ev.e.answerReads)
		}
		// every failure is an answer passed on: no misuse from them (the reply's calls are
		// unanswered, which is hallucination's business)
		if r.Signals[ToolMisuse] != 0 {
			t.Errorf("n=%d: tool_misuse %v, want 0%s", n, r.Signals[ToolMisuse], evidenceTexts(r))
		}
	}
}
