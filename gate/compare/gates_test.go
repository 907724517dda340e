package compare

import (
	"math"
	"reflect"
	"testing"

	"github.com/agentgate/agentgate/gate/verdict"
)

func TestGates(t *testing.T) {
	c := &Comparison{
		Reliability: &ReliabilityChange{Test: Test{Matched: 12, Compared: 12, Outcome: Degraded}, NewFailures: 3},
		Coherence:   &CoherenceChange{Test: Test{Matched: 12, Compared: 12, Outcome: Unchanged}},
		Agreement:   &AgreementChange{Test: Test{Matched: 40, Compared: 40, Outcome: Degraded}},
	}
	head := PassKOf([]Trial{{Task: "a", Trial: "0", Verdict: verdict.Pass}, {Task: "a", Trial: "1", Verdict: verdict.Fail}, {Task: "b", Trial: "0", Verdict: verdict.Pass}, {Task: "b", Trial: "1", Verdict: verdict.Pass}})
	o := DefaultGateOptions()
	o.MaxNewFailures, o.PassKMin, o.PassK = 2, 0.6, 2
	got := Gates(c, "", head, o)
	want := []Check{
		{Name: "fail-on-regression", Value: 2, Op: "<=", Threshold: 0, Passed: false, Note: "degraded: reliability, agreement"},
		{Name: "max-new-failures", Value: 3, Op: "<=", Threshold: 2, Passed: false},
		{Name: "pass-k-min", Value: 0.5, Op: ">=", Threshold: 0.6, Passed: false, Note: "pass^2 over 2 tasks", K: 2},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("gates\n%+v\nwant\n%+v", got, want)
	}

	// Defaults: only fail-on-regression; without a comparison it is skipped with the reason.
	got = Gates(nil, "baseline b.json has schema 1, this agentgate reads schema 2", nil, DefaultGateOptions())
	want = []Check{{Name: "fail-on-regression", Op: "<=", Passed: true, Skipped: true, Note: "baseline b.json has schema 1, this agentgate reads schema 2"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("no baseline\n%+v\nwant\n%+v", got, want)
	}

	if g := NewFailuresGate(nil, 0, ""); !g.Skipped || !g.Passed || g.Note != "no baseline was compared" {
		t.Errorf("new failures without baseline: %+v", g)
	}
	if g := NewFailuresGate(&Comparison{}, 0, ""); !g.Skipped || g.Note != "reliability was not compared" {
		t.Errorf("new failures without reliability: %+v", g)
	}
	if g := NewFailuresGate(c, 3, ""); !g.Passed || g.Skipped || g.Value != 3 {
		t.Errorf("three new failures allowed: %+v", g)
	}
	if g := RegressionGate(&Comparison{Coherence: &CoherenceChange{Test: Test{Matched: 3, Compared: 3, Outcome: Inconclusive}}}, ""); !g.Passed || g.Value != 0 || g.Note != "" {
		t.Errorf("nothing degraded: %+v", g)
	}
	if g := PassKGate(nil, 1, 0.5); !g.Skipped || g.Note != "no trace carries a trial index" {
		t.Errorf("no trials: %+v", g)
	}
	if g := PassKGate(head, 3, 0.5); !g.Skipped || g.Note != "no task has 3 trials; the most is 2" {
		t.Errorf("k above every task: %+v", g)
	}
	// The most is the largest task's trials, not the smallest's.
	uneven := PassKOf([]Trial{{Task: "a", Trial: "0"}, {Task: "a", Trial: "1"}, {Task: "a", Trial: "2"}, {Task: "a", Trial: "3"}, {Task: "b", Trial: "0"}})
	if g := PassKGate(uneven, 8, 0.5); !g.Skipped || g.K != 0 || g.Note != "no task has 8 trials; the most is 4" {
		t.Errorf("k 8 over 4 and 1 trials: %+v", g)
	}
	if g := PassKGate(head, 1, 0.75); !g.Passed || g.Value != 0.75 {
		t.Errorf("pass^1 at the threshold: %+v", g)
	}
}

// TestGatesNothingMatched: a comparison that matched no unit in any metric measured nothing,
// so fail-on-regression is skipped with a note naming the units that did not match, and
// max-new-failures whenever no trace matched; one matched unit anywhere and the regression
// gate is evaluated.
func TestGatesNothingMatched(t *testing.T) {
	none := func() *ReliabilityChange { return &ReliabilityChange{Test: Test{Outcome: Inconclusive}} }
	for _, c := range []struct {
		name      string
		c         *Comparison
		regSkip   string // fail-on-regression's note when skipped, "" when evaluated
		newSkip   string // max-new-failures's note when skipped, "" when evaluated
		regPassed bool
	}{
		{"no trace matched", &Comparison{Reliability: none()},
			"no trace of this run matches the baseline's ids, so nothing was compared",
			"no trace of this run matches the baseline's ids, so nothing was compared", true},
		{"no trace, run, task or qid matched", &Comparison{Reliability: none(), Success: &SuccessChange{},
			Coherence: &CoherenceChange{}, Agreement: &AgreementChange{}},
			"no trace, task or qid of this run matches the baseline's ids, so nothing was compared",
			"no trace of this run matches the baseline's ids, so nothing was compared", true},
		{"no evaluator on both sides", &Comparison{Notes: []string{"coherence: not in the baseline, not compared"}},
			"no evaluator ran in both this run and the baseline, so nothing was compared", "reliability was not compared", true},
		{"a task matched, no trace", &Comparison{Reliability: none(),
			Coherence: &CoherenceChange{Test: Test{Matched: 12, Compared: 12, Outcome: Degraded}}},
			"", "no trace of this run matches the baseline's ids, so nothing was compared", false},
		{"one trace matched", &Comparison{Reliability: &ReliabilityChange{Test: Test{Matched: 1, Compared: 1, Outcome: Inconclusive}}},
			"", "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := RegressionGate(c.c, "")
			if g.Skipped != (c.regSkip != "") || g.Note != c.regSkip && c.regSkip != "" || g.Passed != c.regPassed {
				t.Errorf("fail-on-regression %+v, want skipped with %q, passed %v", g, c.regSkip, c.regPassed)
			}
			g = NewFailuresGate(c.c, 0, "")
			if g.Skipped != (c.newSkip != "") || g.Note != c.newSkip || !g.Passed {
				t.Errorf("max-new-failures %+v, want skipped with %q", g, c.newSkip)
			}
		})
	}
}

func TestGateOptionsValidate(t *testing.T) {
	if err := DefaultGateOptions().Validate(); err != nil {
		t.Error(err)
	}
	for _, c := range []struct {
		o    GateOptions
		want string
	}{
		{GateOptions{PassK: 0, PassKMin: math.NaN()}, "pass-k must be 1 or more, got 0"},
		{GateOptions{PassK: 1, PassKMin: 1.5}, "pass-k-min must be between 0 and 1, got 1.5"},
	} {
		if err := c.o.Validate(); err == nil || err.Error() != c.want {
			t.Errorf("%+v: %v, want %s", c.o, err, c.want)
		}
	}
}
