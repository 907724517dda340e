package gate_test

import (
	"errors"
	"math"
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/agreement"
	"github.com/agentgate/agentgate/gate/outcome"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/verdict"
)

// fail-on-skipped (docs/design.md#honest-words, docs/design.md#defaults) decides which skipped rows breach: under explicit (the
// default) the rows of the gates the user set, those that are rows only when set
// (max-new-failures, pass-k-min, success-rate-min) and those named in Given; under true every
// skipped row, whatever added it; under false none. Rows that ran are untouched.
func TestFailOnSkipped(t *testing.T) {
	mk := func() gate.Result {
		return gate.Result{
			Reliability:  &reliability.Summary{Total: 3, Pass: 3},
			Agreement:    &agreement.Summary{PercentAgreement: 1, KappaDefined: false},
			Outcomes:     &outcome.Summary{Runs: 3, WithoutOutcome: 3, Unmatched: 2},
			BaselineNote: "baseline auto: none yet: not compared",
		}
	}
	setOnly := map[string]bool{"max-new-failures": true, "pass-k-min": true, gate.SuccessRateMin: true}
	onByDefault := map[string]bool{gate.KappaMin: true, "fail-on-regression": true}
	for _, c := range []struct {
		name     string
		policy   gate.SkipPolicy
		given    []string
		breached map[string]bool
	}{
		{"explicit", gate.SkipExplicit, nil, setOnly},
		{"the zero value is explicit", "", nil, setOnly},
		{"explicit, kappa-min given", gate.SkipExplicit, []string{gate.KappaMin, "traces"},
			map[string]bool{"max-new-failures": true, "pass-k-min": true, gate.SuccessRateMin: true, gate.KappaMin: true}},
		{"true", gate.SkipAll, nil, map[string]bool{"max-new-failures": true, "pass-k-min": true, gate.SuccessRateMin: true, gate.KappaMin: true, "fail-on-regression": true}},
		{"false", gate.SkipNone, []string{gate.KappaMin, "fail-on-regression"}, nil},
	} {
		th := gate.DefaultThresholds()
		th.Compare.MaxNewFailures = 0
		th.Compare.PassKMin = 0.5
		th.SuccessRateMin = 0.9
		th.FailOnSkipped, th.Given = c.policy, c.given
		r := mk()
		r.Decide(th, gate.FailOnFail)
		if len(r.Gates) != 8 {
			t.Fatalf("%s: gates %+v, want 8 rows", c.name, r.Gates)
		}
		wantExit := gate.ExitPass
		if len(c.breached) > 0 {
			wantExit = gate.ExitFail
		}
		if r.ExitCode != wantExit || (r.Verdict == verdict.Fail) != (wantExit == gate.ExitFail) {
			t.Errorf("%s: verdict %s exit %d, want exit %d", c.name, r.Verdict, r.ExitCode, wantExit)
		}
		for _, g := range r.Gates {
			skipped := setOnly[g.Name] || onByDefault[g.Name]
			if g.Skipped != skipped || g.Passed == c.breached[g.Name] {
				t.Errorf("%s: %s: skipped %v passed %v, want skipped %v and breached %v", c.name, g.Name, g.Skipped, g.Passed, skipped, c.breached[g.Name])
			}
		}
		if g := r.Gates[len(r.Gates)-4]; g.Name != gate.SuccessRateMin || g.Note != "no run has an outcome: the 2 ids in the outcomes input match no trace" {
			t.Errorf("%s: success-rate-min %+v", c.name, g)
		}
	}

	// No baseline asked for: fail-on-regression is not a row at all (it is on by default, not
	// asked for), so even fail-on-skipped true does not breach it.
	th := gate.DefaultThresholds()
	th.FailOnSkipped = gate.SkipAll
	r := gate.Result{Reliability: &reliability.Summary{Total: 3, Pass: 3}}
	r.Decide(th, gate.FailOnFail)
	if r.Verdict != verdict.Pass || len(r.Gates) != 1 {
		t.Errorf("no baseline asked for: verdict %s gates %+v, want PASS and max-failed-traces only", r.Verdict, r.Gates)
	}
}

func TestParseSkipPolicy(t *testing.T) {
	for in, want := range map[string]gate.SkipPolicy{"": gate.SkipExplicit, "explicit": gate.SkipExplicit, " Explicit ": gate.SkipExplicit,
		"true": gate.SkipAll, "yes": gate.SkipAll, "on": gate.SkipAll, "1": gate.SkipAll,
		"false": gate.SkipNone, "no": gate.SkipNone, "OFF": gate.SkipNone, "0": gate.SkipNone} {
		if got, err := gate.ParseSkipPolicy(in); err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
	if _, err := gate.ParseSkipPolicy("always"); err == nil || err.Error() != `unknown fail-on-skipped "always": want "explicit", "true" or "false"` {
		t.Errorf("always: %v", err)
	}
}

// fail-on never reports only: every verdict exits 0, and the verdict itself is unchanged.
func TestFailOnNever(t *testing.T) {
	never, err := gate.ParseFailOn("never")
	if err != nil || never != gate.FailOnNever {
		t.Fatalf("never: %q %v", never, err)
	}
	for _, v := range []verdict.Verdict{verdict.Pass, verdict.Warn, verdict.Fail} {
		if got := gate.ExitCode(v, never); got != gate.ExitPass {
			t.Errorf("%s: exit %d, want 0", v, got)
		}
	}
	r := gate.Result{Reliability: &reliability.Summary{Total: 3, Fail: 3}}
	r.Decide(gate.DefaultThresholds(), never)
	if r.Verdict != verdict.Fail || r.ExitCode != gate.ExitPass || len(r.Breached()) != 1 {
		t.Errorf("3 FAIL under never: verdict %s exit %d breached %+v, want FAIL 0 and max-failed-traces breached", r.Verdict, r.ExitCode, r.Breached())
	}
	if _, err := gate.ParseFailOn("nevr"); err == nil || err.Error() != `unknown fail-on "nevr": want "fail", "warn" or "never"` {
		t.Errorf("nevr: %v", err)
	}
}

// Every range error names its setting in a field, which is what the CLI reads to say where
// the value was given; its text is the setting's name followed by what is wrong.
func TestSettingErrors(t *testing.T) {
	for name, set := range map[string]func(*gate.Thresholds){
		gate.CoherenceMin:     func(t *gate.Thresholds) { t.CoherenceMin = 2 },
		gate.PAMin:            func(t *gate.Thresholds) { t.PAMin = -1 },
		gate.AbstainMax:       func(t *gate.Thresholds) { t.AbstainMax = math.NaN() },
		gate.KappaMin:         func(t *gate.Thresholds) { t.KappaMin = -2 },
		gate.SuccessThreshold: func(t *gate.Thresholds) { t.SuccessThreshold = math.Inf(1) },
		gate.SuccessRateMin:   func(t *gate.Thresholds) { t.SuccessRateMin = 1.5 },
		gate.MaxFailedTraces:  func(t *gate.Thresholds) { t.MaxFailedTraces = -1 },
		"pass-k":              func(t *gate.Thresholds) { t.Compare.PassK = 0 },
		"pass-k-min":          func(t *gate.Thresholds) { t.Compare.PassKMin = 2 },
	} {
		th := gate.DefaultThresholds()
		set(&th)
		var se *gate.SettingError
		if err := th.Validate(); !errors.As(err, &se) || se.Name != name || err.Error() != name+" "+se.Msg {
			t.Errorf("%s: %v (%+v)", name, err, se)
		}
	}
	var se *gate.SettingError
	if err := gate.CheckTokenBudget(0, ""); !errors.As(err, &se) || se.Name != gate.TokenBudget || se.Msg != "must be 1 or more, got 0" {
		t.Errorf("token-budget 0: %v", err)
	}
}
