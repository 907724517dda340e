package compare

import (
	"math"
	"testing"

	"github.com/agentgate/agentgate/gate/agreement"
	"github.com/agentgate/agentgate/gate/profile"
)

// The expected figures in this file were computed once with scipy 1.10.1, statsmodels 0.13.5
// and mpmath 1.2.1 (Debian bookworm) by these lines; tests never run Python:
//
//	from scipy import stats, optimize
//	from statsmodels.stats.power import TTestPower
//	from statsmodels.stats.multitest import multipletests
//	# McNemar: the fewest b, none fixed, with the exact two-sided p at most th
//	b = 1
//	while stats.binomtest(b, b, 0.5).pvalue > th: b += 1
//	# the noncentral t's CDF, by integrating over the chi-square in mpmath at 30 digits
//	# (scipy's boost nct.cdf agrees to 1e-15 but for the lower tail, to 3e-11)
//	mp.quad(lambda v: ncdf(t*sqrt(v/df) - nc) * chi2pdf(v, df), [0, df/4, df, 2*df, 4*df, inf])
//	# the paired t's effect size at 80% power: statsmodels, and the same root found tightly
//	TTestPower().solve_power(effect_size=None, nobs=n, alpha=a, power=0.8, alternative='two-sided')
//	def power(d, n, a):
//	    df = n - 1; crit = stats.t.isf(a/2, df); nc = d*np.sqrt(n)
//	    return stats.nct.sf(crit, df, nc) + stats.nct.cdf(-crit, df, nc)
//	optimize.brentq(lambda d: power(d, n, a) - 0.8, 1e-6, 30, xtol=1e-15, rtol=1e-15)
//	# κ's z: (stats.norm.isf(a/2) + stats.norm.isf(0.2)) * se
//	# Holm's threshold: bisection on p_i for where multipletests(ps, 0.05, 'holm') stops rejecting it
//
// statsmodels' solve_power stops its root finder early (about 1e-6 relative); the tight root
// is held to 1e-9, scipy's t.ppf being good to about 1e-10.

func TestMcNemarMinDiscordant(t *testing.T) {
	for _, c := range []struct {
		threshold float64
		want      int
	}{
		{0.05, 6}, // p(6) = 0.03125, p(5) = 0.0625
		{0.025, 7},
		{0.05 / 3, 7}, // docs/comparison-and-statistics.md's three metrics: p(7) = 0.015625
		{0.0125, 8},
		{0.03125, 6}, // exactly 2·(1/2)^6: at the threshold is significant
		{0.001, 11},
		{1e-6, 21},
		{0.5, 2},
		{0.99, 2}, // p(1) = 1: one discordant pair is never significant
	} {
		if got := mcnemarMinDiscordant(c.threshold); got != c.want {
			t.Errorf("mcnemarMinDiscordant(%v) = %d, want %d", c.threshold, got, c.want)
		}
	}
}

func TestNctCDF(t *testing.T) {
	for _, c := range []struct{ t, df, ncp, want float64 }{
		{2.262, 9, 3.0, 0.23879985868711996915},
		{-2.262, 9, 3.0, 1.3599781994331119453e-6},
		{0.5, 3, 1.0, 0.29811049337096314749},
		{3.5, 29, 2.0, 0.90954505937645306735},
		{-1.0, 5, -2.5, 0.93033302991868024601},
		{10.0, 11, 8.0, 0.77250596036774506808},
		{2.0, 1, 0.5, 0.74848558423929016369},
		{4.0, 99, 4.2, 0.41982788201934250603},
		{1.98, 999, 2.8, 0.20619586996751627405},
		{0.0, 7, 1.3, 0.096800484585610325542},
	} {
		// AS 243 bounds the absolute error (1e-12): a lower tail computed as 1 − P[T > |t|]
		// keeps that, not ten digits of its own.
		if got := nctCDF(c.t, c.df, c.ncp); !near(got, c.want, 1e-10) && math.Abs(got-c.want) > 1e-12 {
			t.Errorf("nctCDF(%v, %v, %v) = %.17g, want %.17g", c.t, c.df, c.ncp, got, c.want)
		}
	}
}

func TestTEffectSize(t *testing.T) {
	for _, c := range []struct {
		n            int
		alpha        float64
		tight, smodl float64 // the root found tightly; statsmodels' solve_power
	}{
		{10, 0.05, 0.9960013714362282, 0.9960019107432067},
		{10, 0.05 / 3, 1.2234701260897551, 1.2234701207416288},
		{10, 0.025, 1.138854070523639, 1.1388559546706485},
		{12, 0.0125, 1.1275376172345133, 1.1275358462233755},
		{30, 0.05, 0.5292356151129529, 0.5292357045238943},
		{3, 0.05, 3.2640435498141964, 3.264043553217225},
		{100, 0.01, 0.3475879364010207, 0.34758653233180403},
		{1000, 0.05, 0.0886790755942638, 0.08867912530205388},
		{50, 1e-6, 0.9228490032084231, 0.9228501177107379},
		{2, 0.05, 11.549888436114902, 11.549889755210659},
	} {
		got := tEffectSize(c.n, c.alpha, 0.8)
		if !near(got, c.tight, 1e-9) || !near(got, c.smodl, 5e-6) {
			t.Errorf("tEffectSize(%d, %v, 0.8) = %.17g, want %.17g (statsmodels %.17g)", c.n, c.alpha, got, c.tight, c.smodl)
		}
	}
}

// A mean change or Δκ larger than the measure's range cannot be detected.
func TestDetectable(t *testing.T) {
	// d = 0.9960013714362282 at n = 10, α = 0.05 (TestTEffectSize).
	if p := pairedTDetector(10, 1, 1)(0.05); !p.Detectable || !near(p.MinEffect, 0.9960013714362282, 1e-9) {
		t.Errorf("sd 1: %+v, want detectable at 0.996", *p)
	}
	if p := pairedTDetector(10, 1.05, 1)(0.05); p.Detectable || !near(p.MinEffect, 1.05*0.9960013714362282, 1e-9) {
		t.Errorf("sd 1.05: %+v, want not detectable at 1.0458", *p)
	}
	if p := pairedTDetector(10, 0, 1)(0.05); !p.Detectable || p.MinEffect != 0 {
		t.Errorf("sd 0: %+v, want detectable at 0", *p)
	}
	// (z(0.025) + z(0.2))·0.75 = 2.1011889135847266 > 2 (scipy).
	if p := kappaDetector(0.75)(0.05); p.Detectable || !near(p.MinEffect, 2.1011889135847266, 1e-13) {
		t.Errorf("SE 0.75: %+v", *p)
	}
}

func TestNormUpper(t *testing.T) {
	for _, c := range []struct{ q, want float64 }{
		{0.2, 0.8416212335729142},
		{0.025, 1.9599639845400545},
		{0.05 / 6, 2.3939797998185095},
		{0.0125, 2.241402727604945},
		{5e-7, 4.891638475698591},
	} {
		if got := normUpper(c.q); !near(got, c.want, 1e-13) {
			t.Errorf("normUpper(%v) = %.17g, want %.17g", c.q, got, c.want)
		}
	}
	for _, c := range []struct{ alpha, se, want float64 }{
		{0.05, 0.1, 0.2801585218112969},
		{0.05 / 3, 0.0707, 0.22875699306077366},
		{0.025, 0.05, 0.154151198058893},
		{1e-6, 0.02, 0.1146651941854301},
	} {
		if got := kappaDetector(c.se)(c.alpha).MinEffect; !near(got, c.want, 1e-13) {
			t.Errorf("κ's detectable change at %v, SE %v = %.17g, want %.17g", c.alpha, c.se, got, c.want)
		}
	}
}

// TestHolmThresholds: each p-value is rejected by holm exactly when it is at most its
// threshold, whatever the others are, ties included.
func TestHolmThresholds(t *testing.T) {
	for _, c := range []struct {
		ps    []float64
		alpha float64
		want  []float64
	}{
		{[]float64{0.001953125, 0.72823594940749325914, 0.1183498127356284}, 0.05, []float64{0.05 / 3, 0.025, 0.025}}, // multipletests bisected
		{[]float64{0.03125, 1, 1}, 0.05, []float64{0.05 / 3, 0.05 / 3, 0.05 / 3}},
		{[]float64{0.03125}, 0.05, []float64{0.05}},
		{[]float64{0.001, 0.002, 0.5}, 0.05, []float64{0.025, 0.025, 0.05}},
	} {
		got := holmThresholds(c.ps, c.alpha)
		for i := range got {
			if !near(got[i], c.want[i], 1e-15) {
				t.Errorf("holmThresholds(%v) = %v, want %v", c.ps, got, c.want)
				break
			}
		}
	}
	grid := []float64{0.0001, 0.005, 0.0125, 0.0166, 0.0167, 0.02, 0.025, 0.03, 0.05, 0.2, 1}
	for _, alpha := range []float64{0.05, 0.1} {
		for _, a := range grid {
			for _, b := range grid {
				for _, c := range grid {
					ps := []float64{a, b, c}
					th := holmThresholds(ps, alpha)
					rej, _ := holm(ps, alpha)
					for i := range ps {
						if rej[i] != (ps[i] <= th[i]) {
							t.Fatalf("ps %v alpha %v: p%d rejected %v, threshold %v", ps, alpha, i, rej[i], th[i])
						}
					}
				}
			}
		}
	}
}

// TestComparePower: the three metrics of TestCompareDegraded's second run: reliability is
// significant and faces α/3; the others face α/2 once it is rejected.
func TestComparePower(t *testing.T) {
	baseFinals := append([]string{agreement.Valid, agreement.NotInContext, agreement.Reject, agreement.Abstain, agreement.Reject}, twelve(agreement.Valid)[5:]...)
	headFinals := append([]string{agreement.Reject, agreement.Reject, agreement.Valid, agreement.Reject, agreement.Reject}, twelve(agreement.Valid)[5:]...)
	base := &Baseline{Name: "b.json", Run: Run{Profile: profile.Default,
		Reliability: traces("PPPPPPPPPPPP", constant(0.1)), Coherence: tasks(rcsBase, "t"), Agreement: agree(0.6, 0.05, true, baseFinals...)}}
	head := &Run{Profile: profile.Default,
		Reliability: traces("FFFFFFFFFFWP", constant(0.5)), Coherence: tasks(rcsMixed, "t"), Agreement: agree(0.7, 0.04, true, headFinals...)}
	c := mustCompare(t, base, head)
	r, h, a := c.Reliability, c.Coherence, c.Agreement
	if *r.Power != (Power{Threshold: 0.05 / 3, Method: PowerMcNemarExact, MinEffect: 7, Power: 1, Detectable: true}) || r.Direction != Worse || r.Outcome != Degraded {
		t.Errorf("reliability: power %+v direction %s outcome %s", *r.Power, r.Direction, r.Outcome)
	}
	// sd 0.039681592557239784; the mean change at 80% power 0.04000763271883076 (statsmodels
	// 0.04000763243984309).
	if p := h.Power; p.Threshold != 0.025 || p.Method != PowerPairedT || !near(p.SD, 0.039681592557239784, 1e-13) ||
		!near(p.MinEffect, 0.04000763271883076, 1e-9) || p.Power != 0.8 || !p.Detectable || h.Direction != Better || h.Outcome != Unchanged {
		t.Errorf("coherence: power %+v direction %s outcome %s", *p, h.Direction, h.Outcome)
	}
	if p := a.Power; p.Threshold != 0.025 || p.Method != PowerKappaZ || !near(p.SE, 0.06403124237432849, 1e-15) ||
		!near(p.MinEffect, 0.1974098545040418, 1e-13) || !p.Detectable || a.Direction != Better {
		t.Errorf("agreement: power %+v direction %s", *p, a.Direction)
	}

	// Ten matched traces at α = 0.001: even ten new failures (p 0.00195) cannot be significant.
	base.Reliability, head.Reliability = traces("PPPPPPPPPP", constant(0.1)), traces("PPPPPPPPPP", constant(0.1))
	base.Coherence, base.Agreement, head.Coherence, head.Agreement = nil, nil, nil, nil
	c, err := Compare(base, head, Options{Alpha: 0.001, MinMatched: 10})
	if err != nil {
		t.Fatal(err)
	}
	if p := c.Reliability.Power; *p != (Power{Threshold: 0.001, Method: PowerMcNemarExact, MinEffect: 11, Power: 1, Detectable: false}) ||
		c.Reliability.Direction != Same || c.Reliability.Outcome != Unchanged {
		t.Errorf("α 0.001: power %+v direction %s", *p, c.Reliability.Direction)
	}
}

// TestDirection: the direction follows the estimate, significant or not, and is "same" only
// when it did not move; an inconclusive metric has one too.
func TestDirection(t *testing.T) {
	few := func(v string) *Baseline {
		return &Baseline{Name: "b", Run: Run{Profile: profile.Default, Reliability: traces(v, constant(0))}}
	}
	for _, c := range []struct {
		base, head string
		dir        Direction
		out        Outcome
	}{
		{"PPPPPPPPPP", "FFFFFPPPPP", Worse, Unchanged}, // 5 new failures, p 0.0625
		{"FFFFFPPPPP", "PPPPPPPPPP", Better, Unchanged},
		{"FFPPPPPPPP", "PPFFPPPPPP", Same, Unchanged}, // two each way: the FAIL count did not move
		{"PPPP", "FFPP", Worse, Inconclusive},
	} {
		cmp := mustCompare(t, few(c.base), &Run{Profile: profile.Default, Reliability: traces(c.head, constant(0))})
		if r := cmp.Reliability; r.Direction != c.dir || r.Outcome != c.out {
			t.Errorf("%s → %s: direction %s outcome %s, want %s %s", c.base, c.head, r.Direction, r.Outcome, c.dir, c.out)
		}
		if r := cmp.Reliability; (r.Power != nil) != r.InFamily {
			t.Errorf("%s → %s: power %v in family %v", c.base, c.head, r.Power, r.InFamily)
		}
	}
}

// BenchmarkTEffectSize: the power line of coherence costs one root of the noncentral t's
// power, once a comparison.
func BenchmarkTEffectSize(b *testing.B) {
	for b.Loop() {
		tEffectSize(1000, 0.05/3, 0.8)
	}
}
