package reliability

import (
	"testing"

	"github.com/agentgate/agentgate/gate/profile"
)

// TestEvaluateAllocations holds the allocations of an Evaluator reused from trace to trace, as
// the gate runs it, over generated traces of RS-1's own shape (17 messages of about 40 bytes):
// 4.3 a trace on average, most of them the findings of the traces that fail. Before the tool
// words' index (stems) and the recently called tools were kept from trace to trace, 8.0.
func TestEvaluateAllocations(t *testing.T) {
	traces, _ := shapedTraces(t, 500, 17, 40)
	ev := Evaluator{Profile: profile.Default, Brief: true}
	for _, tr := range traces { // let the reused lists reach their size
		ev.Evaluate(tr)
	}
	perTrace := testing.AllocsPerRun(5, func() {
		for _, tr := range traces {
			ev.Evaluate(tr)
		}
	}) / float64(len(traces))
	if perTrace > 5 {
		t.Errorf("%.2f allocations a trace, want at most 5 (8.0 before the stems were reused)", perTrace)
	}
	t.Logf("%.2f allocations a trace", perTrace)
}
