package compare

import (
	"math"
	"slices"
	"testing"
)

// The expected figures in this file were computed once, independently, with scipy 1.10.1,
// statsmodels 0.13.5 and mpmath 1.2.1 (Debian bookworm's python3-scipy, python3-statsmodels,
// python3-mpmath) by this script; tests never run Python:
//
//	from scipy import stats
//	from statsmodels.stats.contingency_tables import mcnemar
//	from statsmodels.stats.multitest import multipletests
//	from mpmath import mp, mpf
//	mp.dps = 40
//	# McNemar: scipy, statsmodels, and the exact sum in mpmath (the reference where scipy's
//	# boost-based binom.cdf differs in the 14th digit)
//	p = 1.0 if b + c == 0 else stats.binomtest(min(b, c), b + c, 0.5).pvalue
//	sm = mcnemar([[0, b], [c, 0]], exact=True).pvalue
//	def exact(b, c):
//	    n, m = b + c, min(b, c)
//	    t = mp.binomial(n, m) / mpf(2)**n; s = t; k = m
//	    while k > 0:
//	        t *= mpf(k) / (n - k + 1); k -= 1
//	        if t < s * mpf(10)**-35: break
//	        s += t
//	    return min(1, 2 * s)
//	stats.t.ppf(p, df); 2 * stats.t.sf(abs(t), df); 2 * stats.norm.sf(abs(z))
//	multipletests(ps, alpha=alpha, method='holm')  # reject, pvals_corrected
//	r = stats.ttest_rel(head, base)  # statistic, pvalue; interval d.mean() ± t.ppf(0.975, n-1)·sd/√n
//
// scipy 1.10's t.ppf is only good to about 1e-10 (boost's quantile); its figures are kept in
// comments, and the quantiles and intervals are held to mpmath's root of the t tail at 40
// digits instead (scipy agrees with these to 1e-9):
//
//	def sf2(t, df):  # two-sided tail, I_x(df/2, 1/2)
//	    return mp.betainc(df/2, mpf(1)/2, 0, df/(df+t*t), regularized=True)
//	def sf2b(t, df):  # the same by integrating the density, for df ≥ 1000
//	    c = mp.gamma((df+1)/2) / (mp.sqrt(df*mp.pi) * mp.gamma(df/2))
//	    return 2*c*mp.quad(lambda u: (1+u*u/df)**(-(df+1)/2), [t, t+10, mp.inf])
//	mp.findroot(lambda t: sf2(t, df)/2 - (1 - mpf(p)), mpf(stats.t.ppf(p, df)))

// near reports whether got is within rel (relative) of want, or both are 0.
func near(got, want, rel float64) bool {
	if got == want {
		return true
	}
	return math.Abs(got-want) <= rel*math.Abs(want)
}

func TestMcNemarExact(t *testing.T) {
	for _, c := range []struct {
		b, c int
		want float64
	}{
		{0, 0, 1}, // no discordant pairs
		{1, 0, 1},
		{0, 1, 1},
		{5, 0, 0.0625},
		{0, 5, 0.0625},
		{1, 1, 1},
		{3, 7, 0.34375},
		{7, 3, 0.34375},
		{10, 2, 0.03857421875},
		{12, 30, 0.0079158973348967265},
		{6, 6, 1},
		{25, 50, 0.0052282430040142826},
		{100, 130, 0.055613577781392386},
		{1000, 1100, 0.03072070786424229503},     // scipy 0.030720707864242486
		{40000, 40600, 0.034867397511712897293},  // scipy 0.0348673975117123
		{250000, 250900, 0.20400078269324312567}, // scipy 0.2040007826932317
		{499000, 501000, 0.04560829986538208642}, // scipy 0.045608299865389515
		{0, 1000000, 0},                          // 2·2^−10⁶ underflows, as in scipy
		{300, 700000, 0},                         // 1.17e-209672
	} {
		if got := mcnemarExact(c.b, c.c); !near(got, c.want, 1e-12) {
			t.Errorf("mcnemarExact(%d, %d) = %.17g, want %.17g", c.b, c.c, got, c.want)
		}
	}
}

func TestTQuantile(t *testing.T) {
	for _, c := range []struct {
		p, df, want float64
	}{
		{0.975, 1, 12.706204736174693314},       // scipy 12.706204736432095
		{0.975, 2, 4.3026527297494617894},       // scipy 4.302652729911275
		{0.975, 3, 3.1824463052837084359},       // scipy 3.182446305284263
		{0.975, 4, 2.7764451051977934898},       // scipy 2.7764451051977987
		{0.975, 5, 2.5705818356363147828},       // scipy 2.5705818366147395
		{0.975, 7, 2.3646242515927847379},       // scipy 2.3646242510102993
		{0.975, 10, 2.2281388519862742245},      // scipy 2.2281388519649385
		{0.975, 20, 2.0859634472658643975},      // scipy 2.0859634472658364
		{0.975, 29, 2.0452296421327038745},      // scipy 2.045229642132703
		{0.975, 30, 2.0422724563012378878},      // scipy 2.0422724563012373
		{0.975, 50, 2.0085591121007607009},      // scipy 2.008559109715206
		{0.975, 100, 1.9839715185235518946},     // scipy 1.9839715184496334
		{0.975, 999, 1.9623414611334495975},     // scipy 1.9623414611334487
		{0.975, 1000, 1.9623390808264081039},    // scipy 1.9623390808264074
		{0.975, 100000, 1.9599877075346092587},  // scipy 1.9599877075346093
		{0.975, 1000000, 1.9599663568141066553}, // scipy 1.9599663568141066
		{0.5, 3, 0},                             // scipy 7.2e-17
		{0.9, 1, 3.0776835371752541331},         // scipy 3.0776835372078066
		{0.9, 2, 1.8856180831641270225},         // scipy 1.8856180831641507
		{0.99, 5, 3.3649299989072177787},        // scipy 3.3649299989072747
		{0.999, 30, 3.3851848668293047853},      // scipy 3.385184866818216
		{0.6, 1000, 0.25341451583949870728},     // scipy 0.25341451583949864
		{0.025, 10, -2.2281388519862742245},     // scipy -2.2281388519649385
		{0.9999, 2, 70.700071074968171991},      // scipy 70.70007107496886
	} {
		if got := tQuantile(c.p, c.df); !near(got, c.want, 1e-12) {
			t.Errorf("tQuantile(%v, %v) = %.17g, want %.17g", c.p, c.df, got, c.want)
		}
	}
}

func TestTTwoSided(t *testing.T) {
	for _, c := range []struct {
		t, df, want float64
	}{
		{0, 5, 1},
		{0.5, 1, 0.7048327646991336},
		{2, 1, 0.2951672353008664},
		{-2, 2, 0.1835034190722739},
		{1, 5, 0.36321746764912255},
		{2.5, 5, 0.054490099342376204},
		{3, 30, 0.005389964065651944},
		{10, 30, 4.5752514082296097e-11},
		{0.1, 1000, 0.9203643690236042},
		{2, 1000, 0.045770346493251665},
		{5, 1000, 6.767256364648626e-07},
		{40, 3, 3.438068078915854e-05},
		{1e-8, 10, 0.9999999922178323},
		{2, 1000000, 0.0455005338513192},
		{30, 50, 1.2380022795987292e-33},
		{math.Inf(1), 5, 0},
	} {
		if got := tTwoSided(c.t, c.df); !near(got, c.want, 1e-12) {
			t.Errorf("tTwoSided(%v, %v) = %.17g, want %.17g", c.t, c.df, got, c.want)
		}
	}
	// With 10^6 degrees of freedom and p under 0.01, the continued fraction keeps about 11
	// digits (mpmath, by integrating the density: 1.9738498123544346699e-9 and
	// 6.334703401004810462e-05 (scipy 6.334703401004779e-05)).
	for _, c := range []struct {
		t, df, want float64
	}{
		{6, 1000000, 1.9738498123544346699e-9},
		{4, 1000000, 6.334703401004810462e-05},
	} {
		if got := tTwoSided(c.t, c.df); !near(got, c.want, 1e-10) {
			t.Errorf("tTwoSided(%v, %v) = %.17g, want %.17g", c.t, c.df, got, c.want)
		}
	}
}

func TestNormTwoSided(t *testing.T) {
	for _, c := range []struct{ z, want float64 }{
		{0, 1},
		{0.5, 0.6170750774519738},
		{-1.96, 0.04999579029644087},
		{3, 0.0026997960632601866},
		{8, 1.244192114854348e-15},
		{20, 5.507248237212311e-89},
	} {
		if got := normTwoSided(c.z); !near(got, c.want, 1e-12) {
			t.Errorf("normTwoSided(%v) = %.17g, want %.17g", c.z, got, c.want)
		}
	}
}

func TestHolm(t *testing.T) {
	for _, c := range []struct {
		ps       []float64
		alpha    float64
		rejected []bool
		adjusted []float64
	}{
		{[]float64{0.01, 0.04, 0.03}, 0.05, []bool{true, false, false}, []float64{0.03, 0.06, 0.06}},
		{[]float64{0.001, 0.2, 0.012}, 0.05, []bool{true, false, true}, []float64{0.003, 0.2, 0.024}},
		{[]float64{0.04}, 0.05, []bool{true}, []float64{0.04}},
		{[]float64{0.5, 0.01, 0.02, 0.03}, 0.1, []bool{false, true, true, true}, []float64{0.5, 0.04, 0.06, 0.06}},
		{[]float64{0.02, 0.02, 0.02}, 0.05, []bool{false, false, false}, []float64{0.06, 0.06, 0.06}},
		{[]float64{0.0001, 0.0001}, 0.01, []bool{true, true}, []float64{0.0002, 0.0002}},
		{nil, 0.05, []bool{}, []float64{}},
	} {
		rej, adj := holm(c.ps, c.alpha)
		if !slices.Equal(rej, c.rejected) {
			t.Errorf("holm(%v, %v) rejected %v, want %v", c.ps, c.alpha, rej, c.rejected)
		}
		for i := range adj {
			if !near(adj[i], c.adjusted[i], 1e-12) {
				t.Errorf("holm(%v, %v) adjusted %v, want %v", c.ps, c.alpha, adj, c.adjusted)
				break
			}
		}
	}
}

func TestPairedT(t *testing.T) {
	base := []float64{0.91, 0.12, 0.55, 0.0, 0.33, 0.871, 0.2, 0.64, 0.05, 0.48, 0.77, 0.29}
	diff := func(head, base []float64) []float64 {
		d := make([]float64, len(head))
		for i := range d {
			d[i] = head[i] - base[i]
		}
		return d
	}
	for _, c := range []struct {
		name           string
		d              []float64
		mean, sd, t, p float64
		ci             [2]float64
	}{
		// scipy: mean -0.04175000000000001, sd 0.028000405841214646, t -5.1651480786439725,
		// p 0.00031083626378070674, interval [-0.059540609104393336, -0.023959390895606687]
		{"worse", diff([]float64{0.85, 0.10, 0.50, 0.0, 0.30, 0.80, 0.15, 0.60, 0.06, 0.40, 0.70, 0.25}, base),
			-0.041750000000000010482, 0.028000405841214645832, -5.1651480786439724238, 0.00031083626378070717366,
			[2]float64{-0.059540609104463579486, -0.023959390895536441479}},
		// scipy: 0.004083333333333313, 0.039681592557239784, 0.35646456413617483,
		// 0.7282359494074933, [-0.02112914772244242, 0.029295814389109047]
		{"mixed", diff([]float64{0.95, 0.10, 0.60, 0.05, 0.30, 0.86, 0.25, 0.60, 0.05, 0.50, 0.70, 0.30}, base),
			0.0040833333333333126739, 0.039681592557239787418, 0.35646456413617482189, 0.72823594940749325914,
			[2]float64{-0.021129147722541973327, 0.029295814389208598675}},
		// scipy: -0.14999999999999997, 0.07071067811865474, -3.0, 0.20483276469913345,
		// [-0.7853102368216045, 0.4853102368216046]
		{"two", diff([]float64{0.4, 0.5}, []float64{0.5, 0.7}),
			-0.14999999999999997, 0.07071067811865474, -3.0, 0.20483276469913345,
			[2]float64{-0.78531023680873450127, 0.48531023680873456788}},
	} {
		s := pairedT(c.d)
		for _, f := range []struct {
			name      string
			got, want float64
		}{{"mean", s.mean, c.mean}, {"sd", s.sd, c.sd}, {"t", s.t, c.t}, {"p", s.p, c.p}, {"ci lo", s.ci[0], c.ci[0]}, {"ci hi", s.ci[1], c.ci[1]}} {
			if !near(f.got, f.want, 1e-12) {
				t.Errorf("%s: %s = %.17g, want %.17g", c.name, f.name, f.got, f.want)
			}
		}
		if s.df != len(c.d)-1 {
			t.Errorf("%s: df = %d, want %d", c.name, s.df, len(c.d)-1)
		}
	}
}

// TestPairedTConstant covers sd = 0: every task moved by the same amount (p 0) or none
// moved (p 1), the interval collapsing to the mean either way.
func TestPairedTConstant(t *testing.T) {
	s := pairedT([]float64{-0.25, -0.25, -0.25})
	if s.sd != 0 || s.p != 0 || s.ci != [2]float64{-0.25, -0.25} || s.t != 0 {
		t.Errorf("constant shift: %+v", s)
	}
	s = pairedT([]float64{0, 0, 0, 0})
	if s.sd != 0 || s.p != 1 || s.ci != [2]float64{0, 0} || s.mean != 0 {
		t.Errorf("no change: %+v", s)
	}
	s = pairedT([]float64{0.5})
	if s.mean != 0.5 || s.df != 0 || s.sd != 0 {
		t.Errorf("one: %+v", s)
	}
}

// TestStirlerrSeries holds each branch of stirlerr's series to mpmath's
// loggamma(n+1) − (n+½)·log(n) + n − log √(2π) at 40 digits.
func TestStirlerrSeries(t *testing.T) {
	for _, c := range []struct{ n, want float64 }{
		{16, 0.0052076559196096404407},
		{20, 0.0041663196919969224575},
		{36, 0.0023147552905146838668},
		{81, 0.0010288013577107775094},
		{501, 0.00016633397657993270518},
		{1e6, 8.3333333333330555556e-8},
	} {
		if got := stirlerr(c.n); math.Abs(got-c.want) > 2e-16 { // an absolute error: it is a log
			t.Errorf("stirlerr(%v) = %.17g, want %.17g", c.n, got, c.want)
		}
	}
}
