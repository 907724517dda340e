package report

import (
	"testing"

	"github.com/agentgate/agentgate/gate/compare"
)

// Each kind of power line, as the report words it; the figures are the Power's (checked
// against scipy and statsmodels in gate/compare).
func TestPowerLine(t *testing.T) {
	for _, c := range []struct {
		metric  string
		matched int
		p       *compare.Power
		want    string
	}{
		{"reliability", 10, &compare.Power{Threshold: 0.05 / 3, Method: compare.PowerMcNemarExact, MinEffect: 7, Power: 1, Detectable: true},
			"reliability: with 10 matched traces, 7 or more new FAIL verdicts with none fixed would be significant (exact McNemar, Holm threshold 0.0167)"},
		{"reliability", 10, &compare.Power{Threshold: 0.001, Method: compare.PowerMcNemarExact, MinEffect: 11, Power: 1},
			"reliability: with 10 matched traces, no change could be significant at Holm threshold 0.0010: that takes 11 new FAIL verdicts with none fixed (exact McNemar)"},
		{"reliability", 1000, &compare.Power{Threshold: 5e-7, Method: compare.PowerMcNemarExact, MinEffect: 22, Power: 1, Detectable: true},
			"reliability: with 1,000 matched traces, 22 or more new FAIL verdicts with none fixed would be significant (exact McNemar, Holm threshold 5.00e-07)"},
		{"coherence", 12, &compare.Power{Threshold: 0.025, Method: compare.PowerPairedT, MinEffect: 0.04000763271883076, Power: 0.8, Detectable: true, SD: 0.039681592557239784},
			"coherence: with 12 matched tasks, a mean RCS change of 0.0400 either way would be detected with 80% power (paired t at the observed sd 0.0397, Holm threshold 0.0250)"},
		{"coherence", 10, &compare.Power{Threshold: 0.05, Method: compare.PowerPairedT, MinEffect: 1.0458014400080398, Power: 0.8, SD: 1.05},
			"coherence: with 10 matched tasks, no possible mean RCS change would be detected with 80% power: it would take 1.0458, more than RCS's range (paired t at the observed sd 1.0500, Holm threshold 0.0500)"},
		{"coherence", 10, &compare.Power{Threshold: 0.05, Method: compare.PowerPairedT, Power: 0.8, Detectable: true},
			"coherence: with 10 matched tasks whose changes are all equal (sd 0), any mean change would be significant (Holm threshold 0.0500)"},
		{"agreement", 50, &compare.Power{Threshold: 0.05, Method: compare.PowerKappaZ, MinEffect: 2.1011889135847266, Power: 0.8, SE: 0.75},
			"agreement: no possible change in κ would be detected with 80% power: it would take 2.1012, more than κ's range (z-test at κ's standard errors, combined 0.7500; Holm threshold 0.0500)"},
		{"agreement", 50, &compare.Power{Threshold: 0.05}, "agreement: no minimum detectable effect can be stated (Holm threshold 0.0500)"},
		{"agreement", 50, nil, ""},
	} {
		if got := powerLine(c.metric, &compare.Test{Matched: c.matched, Compared: c.matched, Power: c.p}); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}

// The outcome's words (docs/design.md#honest-words): "unchanged" only when the estimate did not move.
func TestOutcomeLabel(t *testing.T) {
	esc := func(s string) string { return EscapeCell(s) }
	for _, c := range []struct {
		t    compare.Test
		want string
	}{
		{compare.Test{Outcome: compare.Degraded, Direction: compare.Worse}, "❌ degraded"},
		{compare.Test{Outcome: compare.Improved, Direction: compare.Better}, "✅ improved"},
		{compare.Test{Outcome: compare.Unchanged, Direction: compare.Same, P: 1, AdjustedP: 1, InFamily: true}, "➖ unchanged"},
		{compare.Test{Outcome: compare.Unchanged, Direction: compare.Worse, P: 0.03125, AdjustedP: 0.09375, InFamily: true},
			"⚠️ worse, not significant"}, // the p-value is in its own column
		{compare.Test{Outcome: compare.Unchanged, Direction: compare.Better, P: 0.0625, AdjustedP: 0.0625, InFamily: true},
			"➖ better, not significant"},
		{compare.Test{Outcome: compare.Unchanged, Direction: compare.Worse, P: 0.0004, AdjustedP: 0.0012, InFamily: true},
			"⚠️ worse, not significant"},
		{compare.Test{Outcome: compare.Inconclusive, Direction: compare.Worse, Note: "4 matched, fewer than 10"},
			"❔ worse, inconclusive: 4 matched, fewer than 10"},
		{compare.Test{Outcome: compare.Inconclusive, Direction: compare.Same, Note: "κ is undefined in head"},
			"❔ inconclusive: κ is undefined in head"},
		{compare.Test{Outcome: "<b>odd</b>"}, "❔ &lt;b&gt;odd&lt;/b&gt;"},
	} {
		if got := outcomeLabel(&c.t, esc); got != c.want {
			t.Errorf("%+v: got %q, want %q", c.t, got, c.want)
		}
	}
}
