package gate_test

import (
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/agreement"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/verdict"
)

// fail-on-skipped (SPEC §17) turns every skipped row into a breach, whatever gate it is:
// kappa-min with κ undefined, fail-on-regression without a usable baseline, max-new-failures
// set without one, pass-k-min without trials. Rows that ran are untouched.
func TestFailOnSkipped(t *testing.T) {
	th := gate.DefaultThresholds()
	th.Compare.MaxNewFailures = 0
	th.Compare.PassKMin = 0.5
	mk := func() gate.Result {
		return gate.Result{
			Reliability:  &reliability.Summary{Total: 3, Pass: 3},
			Agreement:    &agreement.Summary{PercentAgreement: 1, KappaDefined: false},
			BaselineNote: "baseline auto: none yet: not compared",
		}
	}
	r := mk()
	r.Decide(th, gate.FailOnFail)
	if r.Verdict != verdict.Pass || r.ExitCode != 0 {
		t.Fatalf("without fail-on-skipped: verdict %s exit %d, want PASS 0", r.Verdict, r.ExitCode)
	}
	skipped := map[string]bool{gate.KappaMin: true, "fail-on-regression": true, "max-new-failures": true, "pass-k-min": true}
	th.FailOnSkipped = true
	r = mk()
	r.Decide(th, gate.FailOnFail)
	if r.Verdict != verdict.Fail || r.ExitCode != gate.ExitFail {
		t.Fatalf("with fail-on-skipped: verdict %s exit %d, want FAIL 2", r.Verdict, r.ExitCode)
	}
	if len(r.Gates) != 7 {
		t.Fatalf("gates %+v, want 7 rows", r.Gates)
	}
	for _, g := range r.Gates {
		if g.Skipped != skipped[g.Name] || g.Passed == skipped[g.Name] {
			t.Errorf("%s: skipped %v passed %v, want skipped and breached exactly for %v", g.Name, g.Skipped, g.Passed, skipped)
		}
		if g.Name == "fail-on-regression" && g.Note != r.BaselineNote {
			t.Errorf("fail-on-regression note %q, want the baseline's note", g.Note)
		}
	}

	// No baseline asked for: fail-on-regression is not a row at all (it is on by default, not
	// asked for), so fail-on-skipped does not breach it.
	th.Compare.MaxNewFailures, th.Compare.PassKMin = -1, gate.DefaultThresholds().Compare.PassKMin
	r = gate.Result{Reliability: &reliability.Summary{Total: 3, Pass: 3}}
	r.Decide(th, gate.FailOnFail)
	if r.Verdict != verdict.Pass || len(r.Gates) != 1 {
		t.Errorf("no baseline asked for: verdict %s gates %+v, want PASS and max-failed-traces only", r.Verdict, r.Gates)
	}
}
