package gate_test

import (
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/agreement"
)

// TestKappaNote: the note of a skipped κ gate gives the reason κ is undefined: no shared qid
// at all (issue 12: it said every item had one label), or one label throughout.
func TestKappaNote(t *testing.T) {
	cases := []struct {
		n    int
		want string
	}{
		{0, "κ is undefined: the validators share no qid, so no item was labelled by both; the percent-agreement gate still applies"},
		{3, "κ is undefined: both validators gave every item the same single label, so chance agreement is 1; the percent-agreement gate still applies"},
	}
	for _, c := range cases {
		r := gate.Result{Agreement: &agreement.Summary{N: c.n}}
		r.Decide(gate.DefaultThresholds(), gate.FailOnFail)
		k := r.Gates[1]
		if k.Name != gate.KappaMin || !k.Skipped || !k.Passed || k.Note != c.want {
			t.Errorf("N %d: %+v\nwant note %s", c.n, k, c.want)
		}
	}
}
