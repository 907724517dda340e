package compare_test

import (
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/compare"
)

// TestCheckIsGateResult holds Check to gate.GateResult's fields, so a caller converts it.
func TestCheckIsGateResult(t *testing.T) {
	c := compare.Check{Name: compare.MaxNewFailures, Value: 3, Op: "<=", Threshold: 2, Note: "n"}
	g := gate.GateResult(c)
	if g.Name != "max-new-failures" || g.Value != 3 || g.Threshold != 2 || g.Passed || g.Note != "n" {
		t.Errorf("%+v", g)
	}
}
