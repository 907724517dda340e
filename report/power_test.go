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
			"reliability: with 10 matched traces, 7 or more new failures with none fixed would be significant (exact McNemar, Holm threshold 0.0167)"},
		{"reliability", 10, &compare.Power{Threshold: 0.001, Method: compare.PowerMcNemarExact, MinEffect: 11, Power: 1},
			"reliability: with 10 matched traces, no change could be significant at Holm threshold 0.0010: that takes 11 new failures with none fixed (exact McNemar)"},
		{"reliability", 1000, &compare.Power{Threshold: 5e-7, Method: compare.PowerMcNemarExact, MinEffect: 22, Power: 1, Detectable: true},
			"reliability: with 1,000 matched traces, 22 or more new failures with none fixed would be significant (exact McNemar, Holm threshold 5.00e-07)"},
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
		if got := powerLine(c.metric, &compare.Test{Matched: c.matched, Power: c.p}); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}
