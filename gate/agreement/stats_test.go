package agreement

import (
	"math"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/profile"
)

// pairsFromMatrix builds one pair per count: rows are the Scholar's labels, columns the
// Auditor's, both in Labels order (VALID, NOT_IN_CONTEXT, REJECT, ABSTAIN).
func pairsFromMatrix(m [][]int) []Pair {
	var out []Pair
	for i, row := range m {
		for j, c := range row {
			for k := 0; k < c; k++ {
				out = append(out, Pair{QID: "q", Scholar: Judgement{Label: Labels[i]}, Auditor: Judgement{Label: Labels[j]}})
			}
		}
	}
	return out
}

// near reports whether got rounds to want at the given number of decimals.
func near(got, want float64, decimals int) bool {
	return math.Abs(got-want) <= 0.5*math.Pow(10, -float64(decimals))+1e-12
}

// TestPublishedKappa holds Compute to the published κ examples of docs/design.md#tests, to the precision
// they are published with.
func TestPublishedKappa(t *testing.T) {
	cases := []struct {
		name         string
		m            [][]int
		kappa        float64
		se, lo, hi   float64 // 0: not published
		ac1, ac1SE   float64
		kappaDigits  int
		statsDecimal int
	}{
		// Wikipedia, "Cohen's kappa", worked example: κ = 0.4.
		{name: "wikipedia 2x2", m: [][]int{{20, 5}, {10, 15}}, kappa: 0.4, kappaDigits: 4},
		// SAS PROC FREQ documentation, "Agreement Study" example: κ 0.4842, ASE 0.1380,
		// 95% limits 0.2137 and 0.7547.
		{name: "SAS 3x3", m: [][]int{{0, 4, 1}, {0, 8, 0}, {0, 1, 5}}, kappa: 0.4842, se: 0.1380, lo: 0.2137, hi: 0.7547, kappaDigits: 4},
		// Gwet (2008), Table 2 data: κ 0.7964, AC1 0.8493 with standard error 0.0432.
		{name: "Gwet 3x3", m: [][]int{{13, 0, 0}, {0, 20, 7}, {0, 4, 56}}, kappa: 0.7964, ac1: 0.8493, ac1SE: 0.0432, kappaDigits: 4},
	}
	for _, p := range []profile.Profile{profile.Default, profile.Reference} {
		for _, c := range cases {
			s := Compute(pairsFromMatrix(c.m), nil, p)
			if !near(s.Kappa, c.kappa, c.kappaDigits) || !s.KappaDefined {
				t.Errorf("%s/%s: κ = %v (defined %v), want %v", p, c.name, s.Kappa, s.KappaDefined, c.kappa)
			}
			if c.se != 0 && (!near(s.KappaSE, c.se, 4) || !near(s.KappaCI[0], c.lo, 4) || !near(s.KappaCI[1], c.hi, 4)) {
				t.Errorf("%s/%s: SE %v CI %v, want %v [%v, %v]", p, c.name, s.KappaSE, s.KappaCI, c.se, c.lo, c.hi)
			}
			if c.ac1 != 0 && (!near(s.AC1, c.ac1, 4) || !near(s.AC1SE, c.ac1SE, 4)) {
				t.Errorf("%s/%s: AC1 %v SE %v, want %v SE %v", p, c.name, s.AC1, s.AC1SE, c.ac1, c.ac1SE)
			}
		}
	}
}

// TestStatistics checks every measure against values computed independently by a Python
// script (the formulas of Fleiss, Cohen and Everitt 1969 for SE(κ), Gwet 2008 for AC1 and its
// variance with no finite-population correction; /tmp, not in the repository), to 1e-9.
func TestStatistics(t *testing.T) {
	type want struct {
		n                                 int
		po, kappa, se, lo, hi, ac1, ac1SE float64
		kmax, pabak                       float64
	}
	cases := []struct {
		name string
		m    [][]int
		w    want
	}{
		{"wikipedia", [][]int{{20, 5}, {10, 15}}, want{50, 0.7, 0.3999999999999999, 0.12699606293110033, 0.15108771665504328, 0.6489122833449565, 0.601328903654485, 0.08642374139638107, 0.8, 0.5499999999999998}},
		{"sas", [][]int{{0, 4, 1}, {0, 8, 0}, {0, 1, 5}}, want{19, 0.6842105263157894, 0.4841628959276017, 0.13801357830581457, 0.21365628244820517, 0.7546695094069982, 0.5559883154819862, 0.15884590012156394, 0.5701357466063348, 0.5263157894736841}},
		{"gwet", [][]int{{13, 0, 0}, {0, 20, 7}, {0, 4, 56}}, want{100, 0.8900000000000001, 0.796409402183972, 0.058910718326081475, 0.6809443942648523, 0.9118744101030918, 0.8493305482313462, 0.043217467522559255, 0.9444752915047198, 0.8350000000000002}},
		{"paradox", [][]int{{90, 5}, {5, 0}}, want{100, 0.9, -0.05263157894736848, 0.01662049861496896, -0.08520775623270764, -0.02005540166202932, 0.89501312335958, 0.032984065968131936, 1.0, 0.8500000000000001}},
		// With ABSTAIN present q = 4.
		{"abstain q=4", [][]int{{30, 2, 1, 1}, {3, 20, 2, 0}, {0, 1, 25, 2}, {2, 0, 1, 10}}, want{100, 0.85, 0.793217535153019, 0.048983909082047895, 0.697209073352205, 0.8892259969538329, 0.8021760633036598, 0.047212165134794114, 0.9724290046870693, 0.7999999999999999}},
	}
	for _, c := range cases {
		s := Compute(pairsFromMatrix(c.m), nil, profile.Default)
		got := want{s.N, s.PercentAgreement, s.Kappa, s.KappaSE, s.KappaCI[0], s.KappaCI[1], s.AC1, s.AC1SE, s.KappaMax, s.PABAK}
		g := []float64{got.po, got.kappa, got.se, got.lo, got.hi, got.ac1, got.ac1SE, got.kmax, got.pabak}
		w := []float64{c.w.po, c.w.kappa, c.w.se, c.w.lo, c.w.hi, c.w.ac1, c.w.ac1SE, c.w.kmax, c.w.pabak}
		names := []string{"po", "kappa", "se", "lo", "hi", "ac1", "ac1SE", "kmax", "pabak"}
		if got.n != c.w.n {
			t.Errorf("%s: n = %d, want %d", c.name, got.n, c.w.n)
		}
		for i := range g {
			if math.Abs(g[i]-w[i]) > 1e-9 {
				t.Errorf("%s: %s = %v, want %v", c.name, names[i], g[i], w[i])
			}
		}
	}
}

func TestKappaCIClamped(t *testing.T) {
	// Perfect agreement: κ = 1, SE 0.
	s := Compute(pairsFromMatrix([][]int{{1, 0}, {0, 1}}), nil, profile.Default)
	if s.Kappa != 1 || s.KappaSE != 0 || s.KappaCI != [2]float64{1, 1} {
		t.Errorf("perfect agreement: κ %v SE %v CI %v", s.Kappa, s.KappaSE, s.KappaCI)
	}
	// A small sample: κ = −0.5, SE 0.3062, and κ − 1.96·SE = −1.1001 is clamped to −1
	// (figures from the Python script of TestStatistics).
	s = Compute(pairsFromMatrix([][]int{{1, 1}, {1, 0}}), nil, profile.Default)
	if math.Abs(s.KappaSE-0.3061862178478961) > 1e-9 || s.KappaCI[0] != -1 || math.Abs(s.KappaCI[1]-0.10012498698187633) > 1e-9 {
		t.Errorf("SE %v CI %v, want 0.3062 and [-1, 0.1001]", s.KappaSE, s.KappaCI)
	}
}

func TestBand(t *testing.T) {
	for _, c := range []struct {
		k    float64
		want string
	}{{-0.01, "poor"}, {0, "slight"}, {0.2, "slight"}, {0.2001, "fair"}, {0.4, "fair"}, {0.6, "moderate"}, {0.61, "substantial"}, {0.8, "substantial"}, {0.81, "almost perfect"}, {1, "almost perfect"}} {
		if got := Band(c.k); got != c.want {
			t.Errorf("Band(%v) = %q, want %q", c.k, got, c.want)
		}
	}
	if s := Compute(pairsFromMatrix([][]int{{20, 5}, {10, 15}}), nil, profile.Default); s.Band != "fair" {
		t.Errorf("wikipedia band %q", s.Band)
	}
}

func TestKappaParadoxWarning(t *testing.T) {
	// PA 0.9, κ −0.053, VALID is 95% of the labels: warned, quoting AC1 and PABAK.
	s := Compute(pairsFromMatrix([][]int{{90, 5}, {5, 0}}), nil, profile.Default)
	if len(s.Warnings) != 1 || !strings.HasPrefix(s.Warnings[0], "kappa paradox:") ||
		!strings.Contains(s.Warnings[0], "AC1 = 0.8950") || !strings.Contains(s.Warnings[0], "PABAK = 0.8500") ||
		!strings.Contains(s.Warnings[0], "VALID makes up 95.0%") {
		t.Errorf("warnings %q", s.Warnings)
	}
	// Balanced labels with the same PA: κ is high, no warning.
	if s := Compute(pairsFromMatrix([][]int{{45, 5}, {5, 45}}), nil, profile.Default); len(s.Warnings) != 0 {
		t.Errorf("balanced: warnings %q", s.Warnings)
	}
	// Skewed but PA below 0.85: not the paradox, just disagreement.
	if s := Compute(pairsFromMatrix([][]int{{80, 10}, {10, 0}}), nil, profile.Default); len(s.Warnings) != 0 {
		t.Errorf("low PA: warnings %q", s.Warnings)
	}
}

func TestEmpty(t *testing.T) {
	d := Compute(nil, nil, profile.Default)
	if d.N != 0 || d.KappaDefined || d.Band != BandUndefined || len(d.Warnings) != 1 || d.Items.Len() != 0 || d.Unmatched == nil {
		t.Errorf("default, no pairs: %+v", d)
	}
	// The seed: n = 0 gives percent agreement, κ and abstain rate 0.
	r := Compute(nil, nil, profile.Reference)
	if r.N != 0 || r.Kappa != 0 || r.PercentAgreement != 0 || r.AbstainRate != 0 || !r.KappaDefined || len(r.Warnings) != 0 {
		t.Errorf("reference, no pairs: %+v", r)
	}
}
