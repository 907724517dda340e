package compare

import (
	"cmp"
	"math"
	"slices"
)

// This file holds the distributions the comparison needs, in float64 and without
// dependencies: the exact binomial tail (McNemar), Student's t (its tail through the
// regularized incomplete beta function, its quantile by Newton's method inside a bracket),
// the normal tail, and Holm's step-down procedure. The figures are checked against scipy and
// statsmodels in stats_test.go.

const (
	ln2Pi     = 1.8378770664093454835606594728112353 // log(2π)
	lnSqrt2Pi = 0.9189385332046727417803297364056176 // log(√(2π))
)

// mcnemarExact returns McNemar's exact two-sided p-value for b and c discordant pairs:
// min(1, 2·P[X ≤ min(b, c)]) for X ~ Binomial(b + c, 1/2), and 1 when b + c = 0.
//
// The tail is summed from P[X = min(b, c)] downwards, each term from the one before by the
// ratio k/(n−k+1), and P[X = m] itself comes from Loader's saddle-point formula (stirlerr and
// bd0, as R's dbinom), which keeps its relative error near 1e-15 where log-gamma differences
// would lose nine digits at n = 10^6. The sum stops when a term no longer changes it, so it
// costs O(√n) terms near the middle and fewer in the tails.
func mcnemarExact(b, c int) float64 {
	n := b + c
	if n == 0 {
		return 1
	}
	m := min(b, c)
	if 2*m == n {
		return 1 // P[X ≤ n/2] > 1/2
	}
	nf := float64(n)
	term := dbinomHalf(float64(m), nf)
	sum := term
	for k := m; k > 0 && term > 0; k-- {
		term *= float64(k) / float64(n-k+1)
		next := sum + term
		if next == sum {
			break
		}
		sum = next
	}
	return min(1, 2*sum)
}

// dbinomHalf returns P[X = x] for X ~ Binomial(n, 1/2), for integer 0 ≤ x ≤ n (Loader 2000).
func dbinomHalf(x, n float64) float64 {
	if x == 0 || x == n {
		return math.Ldexp(1, -int(n)) // (1/2)^n exactly, so 2·(1/2)^6 is 0.03125 to the bit
	}
	half := n / 2
	lc := stirlerr(n) - stirlerr(x) - stirlerr(n-x) - bd0(x, half) - bd0(n-x, half)
	lf := ln2Pi + math.Log(x) + math.Log1p(-x/n)
	return math.Exp(lc - 0.5*lf)
}

// sferrHalves holds stirlerr(k/2) for k = 0..30, computed once with mpmath at 50 digits as
// loggamma(n+1) − (n+½)·log(n) + n − log √(2π); stirlerr(0) is a placeholder.
var sferrHalves = [31]float64{
	0,
	0.15342640972002734529138393927091,
	0.081061466795327258219670263594382,
	0.054814121051917653896138702348386,
	0.041340695955409294093822081407118,
	0.033162873519936287485110509741062,
	0.027677925684998339148789292746245,
	0.023746163656297495971330279090086,
	0.020790672103765093111522771767849,
	0.018488450532673185230779357482599,
	0.016644691189821192163194865373593,
	0.01513497322191737887351383688221,
	0.013876128823070747998745727023763,
	0.012810465242920226924250655281074,
	0.011896709945891770095055724117659,
	0.011104559758206917326630755197311,
	0.010411265261972096497478567132535,
	0.0097994161261588032983903734020052,
	0.0092554621827127329177286366331001,
	0.0087687001341393854629550472694621,
	0.0083305634333628712564693186596286,
	0.0079341145643140205472495624909432,
	0.0075736754879518407949720242115951,
	0.0072445543013203831795461966015457,
	0.0069428401072095298656641526634754,
	0.0066652470327076824423561808953957,
	0.0064089941880042070684396310829783,
	0.0061717122630394576475346047977719,
	0.0059513701127588477356244160464695,
	0.005746216513010115682026102477089,
	0.0055547335519628013710386899597923,
}

// stirlerr returns log(n!) − log(√(2π n)·(n/e)^n), the error of Stirling's formula, for
// integer or half-integer n ≤ 15 from the table and for larger n from its asymptotic series.
func stirlerr(n float64) float64 {
	const (
		s0 = 1.0 / 12
		s1 = 1.0 / 360
		s2 = 1.0 / 1260
		s3 = 1.0 / 1680
		s4 = 1.0 / 1188
	)
	if n <= 15 {
		if nn := n + n; nn == math.Trunc(nn) {
			return sferrHalves[int(nn)]
		}
		lg, _ := math.Lgamma(n + 1)
		return lg - (n+0.5)*math.Log(n) + n - lnSqrt2Pi
	}
	nn := n * n
	switch {
	case n > 500:
		return (s0 - s1/nn) / n
	case n > 80:
		return (s0 - (s1-s2/nn)/nn) / n
	case n > 35:
		return (s0 - (s1-(s2-s3/nn)/nn)/nn) / n
	}
	return (s0 - (s1-(s2-(s3-s4/nn)/nn)/nn)/nn) / n
}

// bd0 returns x·log(x/np) + np − x without the cancellation of evaluating it as written when
// x is near np (Loader's deviance term).
func bd0(x, np float64) float64 {
	if math.Abs(x-np) < 0.1*(x+np) {
		v := (x - np) / (x + np)
		s := (x - np) * v
		ej := 2 * x * v
		v *= v
		for j := 1; j < 1000; j++ {
			ej *= v
			s1 := s + ej/float64(2*j+1)
			if s1 == s {
				return s1
			}
			s = s1
		}
	}
	return x*math.Log(x/np) + np - x
}

// lgammacor returns log Γ(x) − ((x − ½)·log x − x + log √(2π)) for x ≥ 10, from the Stirling
// series (seven terms are exact to double precision from x = 10 on).
func lgammacor(x float64) float64 {
	x2 := 1 / (x * x)
	return (1.0/12 + x2*(-1.0/360+x2*(1.0/1260+x2*(-1.0/1680+x2*(1.0/1188+x2*(-691.0/360360+x2*(1.0/156))))))) / x
}

// lbeta returns log B(a, b) for a, b > 0, accurately for large arguments (R's lbeta).
func lbeta(a, b float64) float64 {
	p, q := min(a, b), max(a, b)
	switch {
	case p >= 10:
		corr := lgammacor(p) + lgammacor(q) - lgammacor(p+q)
		return -0.5*math.Log(q) + lnSqrt2Pi + corr + (p-0.5)*math.Log(p/(p+q)) + q*math.Log1p(-p/(p+q))
	case q >= 10:
		lp, _ := math.Lgamma(p)
		corr := lgammacor(q) - lgammacor(p+q)
		return lp + corr + p - p*math.Log(p+q) + (q-0.5)*math.Log1p(-p/(p+q))
	}
	lp, _ := math.Lgamma(p)
	lq, _ := math.Lgamma(q)
	lpq, _ := math.Lgamma(p + q)
	return lp + lq - lpq
}

// betaInc returns the regularized incomplete beta function I_x(a, b), given x and y = 1 − x
// both (so that a caller who knows y more accurately than 1 − x loses nothing). It uses the
// continued fraction of Numerical Recipes (betacf, modified Lentz) on whichever side of the
// mean converges, so a small result is never computed as 1 minus something near 1.
func betaInc(a, b, x, y float64) float64 {
	switch {
	case x <= 0:
		return 0
	case y <= 0:
		return 1
	}
	// log x and log y, each from whichever of x and y is the smaller (log1p of the other's
	// negation when x is near 1): a·log x loses nothing when a is 10^5 and x is 1 − 10^−5.
	lx, ly := math.Log(x), math.Log(y)
	if x > 0.5 {
		lx = math.Log1p(-y)
	}
	if y > 0.5 {
		ly = math.Log1p(-x)
	}
	front := func(a, b, lx, ly float64) float64 {
		return math.Exp(a*lx+b*ly-lbeta(a, b)) / a
	}
	if x >= (a+1)/(a+b+2) {
		return 1 - front(b, a, ly, lx)*betaCF(b, a, y)
	}
	direct := front(a, b, lx, ly) * betaCF(a, b, x)
	if x > 0.5 {
		// Near x = 1 with a large (Student's t with 10^5 degrees of freedom or more) the
		// fraction for I_x loses up to 1e-11 to cancellation in its terms, while the one for
		// I_y(b, a) stays exact: take the complement where subtracting it from 1 costs less
		// than two digits.
		if c := 1 - front(b, a, ly, lx)*betaCF(b, a, y); c >= 0.01 {
			return c
		}
	}
	return direct
}

// betaCF evaluates the continued fraction of I_x(a, b) (Numerical Recipes §6.4). It
// converges in O(√max(a, b)) steps; the bound on steps is far above that for any n this
// package sees.
func betaCF(a, b, x float64) float64 {
	const (
		maxIter = 1_000_000
		eps     = 1e-16
		tiny    = 1e-300
	)
	qab, qap, qam := a+b, a+1, a-1
	c, d := 1.0, 1-qab*x/qap
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= maxIter; m++ {
		fm := float64(m)
		m2 := 2 * fm
		aa := fm * (b - fm) * x / ((qam + m2) * (a + m2))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		h *= d * c
		aa = -(a + fm) * (qab + fm) * x / ((a + m2) * (qap + m2))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) <= eps {
			break
		}
	}
	return h
}

// tTwoSided returns P[|T| ≥ |t|] for T ~ Student's t with df > 0 degrees of freedom:
// I_{df/(df+t²)}(df/2, 1/2). It is 1 at t = 0 and 0 at t = ±∞.
func tTwoSided(t, df float64) float64 {
	if math.IsInf(t, 0) {
		return 0
	}
	t2 := t * t
	if t2 == 0 {
		return 1
	}
	den := df + t2
	return betaInc(df/2, 0.5, df/den, t2/den)
}

// tSF returns P[T > t] for T ~ Student's t with df degrees of freedom.
func tSF(t, df float64) float64 {
	p := tTwoSided(t, df) / 2
	if t < 0 {
		return 1 - p
	}
	return p
}

// tPDF returns the density of Student's t with df degrees of freedom at t.
func tPDF(t, df float64) float64 {
	return math.Exp(-lbeta(df/2, 0.5) - 0.5*math.Log(df) - (df+1)/2*math.Log1p(t*t/df))
}

// tQuantile returns the p-quantile of Student's t with df > 0 degrees of freedom, for
// 0 < p < 1: the t with P[T ≤ t] = p. The upper tail q = 1 − p of the symmetric problem is
// solved by Newton's method on tSF, kept inside a bracket that bisection falls back on.
func tQuantile(p, df float64) float64 {
	switch {
	case p == 0.5:
		return 0
	case p < 0.5:
		return -tQuantile(1-p, df)
	case df == 1:
		return math.Tan(math.Pi * (p - 0.5))
	}
	q := 1 - p // the upper tail, 0 < q < 1/2
	lo, hi := 0.0, 1.0
	for tSF(hi, df) > q {
		lo, hi = hi, 2*hi
	}
	t := (lo + hi) / 2
	for range 200 {
		f := tSF(t, df) - q // decreasing in t
		if f == 0 {
			return t
		}
		if f > 0 {
			lo = t
		} else {
			hi = t
		}
		next := t + f/tPDF(t, df)
		if !(next > lo && next < hi) {
			next = (lo + hi) / 2
		}
		if math.Abs(next-t) <= 1e-16*t || hi-lo <= 1e-16*t {
			return next
		}
		t = next
	}
	return t
}

// normTwoSided returns P[|Z| ≥ |z|] for a standard normal Z.
func normTwoSided(z float64) float64 {
	return math.Erfc(math.Abs(z) / math.Sqrt2)
}

// holm applies Holm's step-down procedure at level alpha to the p-values ps: sorted
// ascending, the i-th smallest (from 0) is rejected while it is at most alpha/(m−i), and every
// p-value after the first that is not is kept. It returns which are rejected and the
// Holm-adjusted p-values min(1, max over j ≤ i of (m−j)·p_(j)), both in the order of ps. Equal
// p-values keep their order.
func holm(ps []float64, alpha float64) (rejected []bool, adjusted []float64) {
	m := len(ps)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ps[a], ps[b]) })
	rejected = make([]bool, m)
	adjusted = make([]float64, m)
	running, stop := 0.0, false
	for i, j := range order {
		k := float64(m - i)
		running = max(running, min(1, k*ps[j]))
		adjusted[j] = running
		if !stop && ps[j] <= alpha/k {
			rejected[j] = true
		} else {
			stop = true
		}
	}
	return rejected, adjusted
}
