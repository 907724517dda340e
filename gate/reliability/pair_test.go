package reliability

import (
	"reflect"
	"testing"

	"github.com/agentgate/agentgate/gate/trace"
)

// Each case's expected pairing is worked out by hand from the rule of docs/design.md#input-files: walk messages
// in order, a message's calls before its results; a result takes the earliest unanswered
// earlier call with its id, else it is an orphan. Calls and results are numbered in trace order.
func TestPairing(t *testing.T) {
	cases := []struct {
		name     string
		msgs     []trace.Message
		callOf   []int32 // per result
		resultOf []int32 // per call
	}{
		{"repeated id answered each time", []trace.Message{
			withCalls(msg("assistant", ""), call("x", "a", "")),
			withResults(msg("tool", ""), ok("x")),
			withCalls(msg("assistant", ""), call("x", "b", "")),
			withResults(msg("tool", ""), ok("x")),
		}, []int32{0, 1}, []int32{0, 1}},
		{"results in the other order", []trace.Message{
			withCalls(msg("assistant", ""), call("a", "t", ""), call("b", "t", "")),
			withResults(msg("tool", ""), ok("b"), ok("a")),
		}, []int32{1, 0}, []int32{1, 0}},
		{"late result takes the earliest unanswered call", []trace.Message{
			withCalls(msg("assistant", ""), call("x", "t", "")),
			withCalls(msg("assistant", ""), call("x", "t", "")),
			msg("user", "wait"),
			withResults(msg("tool", ""), ok("x")),
		}, []int32{0}, []int32{0, -1}},
		{"result before its call is an orphan", []trace.Message{
			withResults(msg("tool", ""), ok("x")),
			withCalls(msg("assistant", ""), call("x", "t", "")),
		}, []int32{-1}, []int32{-1}},
		{"calls come before results within a message", []trace.Message{
			withResults(withCalls(msg("assistant", ""), call("x", "t", "")), ok("x")),
		}, []int32{0}, []int32{0}},
		{"second result for one call is an orphan", []trace.Message{
			withCalls(msg("assistant", ""), call("x", "t", "")),
			withResults(msg("tool", ""), ok("x"), ok("x")),
		}, []int32{0, -1}, []int32{0}},
		{"ids interleave", []trace.Message{
			withCalls(msg("assistant", ""), call("b", "t", ""), call("a", "t", ""), call("b", "t", "")),
			withResults(msg("tool", ""), ok("b"), ok("a")),
			withCalls(msg("assistant", ""), call("a", "t", "")),
			withResults(msg("tool", ""), ok("a"), ok("b"), ok("c")),
		}, []int32{0, 1, 3, 2, -1}, []int32{0, 1, 3, 2}},
		{"no ids pair with nothing", []trace.Message{
			withCalls(msg("assistant", ""), call("", "t", "")),
			withResults(msg("tool", ""), ok("")),
		}, []int32{-1}, []int32{-1}},
	}
	for _, c := range cases {
		e := newEval(&trace.Trace{Messages: c.msgs}, false)
		if !reflect.DeepEqual(e.pairs.callOf, c.callOf) || !reflect.DeepEqual(e.pairs.resultOf, c.resultOf) {
			t.Errorf("%s: callOf %v resultOf %v; want %v %v", c.name, e.pairs.callOf, e.pairs.resultOf, c.callOf, c.resultOf)
		}
	}
}
