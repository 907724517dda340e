package compare

import (
	"cmp"
	"math"
	"slices"
)

// This file says what each compared metric could have detected (docs/design.md#honest-words): the threshold
// Holm's procedure held its p-value to, and the smallest effect that would have been
// significant (McNemar, exactly) or detected with 80% power (the paired t test by the
// noncentral t, the κ z-test by the normal). The figures are checked against scipy,
// statsmodels and mpmath in power_test.go.

// TargetPower is the power at which the t and z tests' minimum detectable effects are given.
const TargetPower = 0.8

// Power methods: how Power.MinEffect was found.
const (
	// PowerMcNemarExact: the fewest new failures, with none fixed, whose exact two-sided p
	// is at most the threshold; it is significant or not, so Power is 1.
	PowerMcNemarExact = "mcnemar-exact"
	// PowerPairedT: the mean change detected with TargetPower by the two-sided paired t test
	// at the threshold, at the observed sd of the changes (the noncentral t).
	PowerPairedT = "paired-t"
	// PowerKappaZ: the Δκ detected with TargetPower by the two-sided z-test at the threshold,
	// at the observed standard errors: (z(1 − threshold/2) + z(TargetPower))·√(SE_head² + SE_base²).
	PowerKappaZ = "kappa-z"
)

// Power is what a metric's test could have detected at its matched units and the Holm
// threshold it faced (docs/design.md#honest-words). Only a metric in the Holm family has one.
type Power struct {
	// Threshold is the largest p-value that would have been significant, the other metrics'
	// p-values being what they were: α/(m − r), for m metrics in the family and r the others
	// Holm's step-down procedure rejects before it reaches this one. A p-value at most α/m is
	// significant whatever the others are.
	Threshold float64 `json:"threshold"`
	// Method is how MinEffect was found: PowerMcNemarExact, PowerPairedT or PowerKappaZ.
	Method string `json:"method"`
	// MinEffect is the minimum detectable effect in the metric's own unit, either direction:
	// new failures with none fixed (McNemar), the mean change of RCS (paired t), Δκ (z). It
	// is 0 when the paired differences have sd 0, when any change is significant.
	MinEffect float64 `json:"min_effect"`
	// Power is the chance MinEffect is detected: 1 for McNemar, TargetPower for t and z.
	Power float64 `json:"power"`
	// Detectable is false when MinEffect cannot happen: McNemar needs more new failures than
	// there are matched traces, or the mean change exceeds RCS's range (1) or Δκ κ's (2).
	Detectable bool `json:"detectable"`
	// SD is the sd of the paired differences the paired t test is solved at; SE is
	// √(SE_head² + SE_base²) of the κ z-test. 0 for the other methods.
	SD float64 `json:"sd,omitempty"`
	SE float64 `json:"se,omitempty"`
}

// detector returns a metric's Power at the threshold its p-value faced.
type detector func(threshold float64) *Power

// holmThresholds returns, for each of ps, the largest value its p-value could have had and
// still be rejected by holm at alpha, the others unchanged: α/(m − r), where r counts the
// others that the step-down rejects, in ascending order, while each is at most α/(m − j) for
// its place j among them. Holm's adjusted p-value is non-decreasing in each p-value, so p_i is
// rejected exactly when p_i ≤ this threshold. It costs O(m² log m); m is the number of metrics.
func holmThresholds(ps []float64, alpha float64) []float64 {
	m := len(ps)
	out := make([]float64, m)
	others := make([]float64, 0, m)
	for i := range ps {
		others = append(others[:0], ps[:i]...)
		others = append(others, ps[i+1:]...)
		slices.SortFunc(others, cmp.Compare)
		r := 0
		for r < len(others) && others[r] <= alpha/float64(m-r) {
			r++
		}
		out[i] = alpha / float64(m-r)
	}
	return out
}

// mcnemarDetector is McNemar's test on n matched traces: the fewest new failures, with none
// fixed, whose exact two-sided p-value 2·(1/2)^b is at most the threshold. That takes at least
// one discordant pair per new failure, so it is detectable only when it is at most n.
func mcnemarDetector(n int) detector {
	return func(threshold float64) *Power {
		b := mcnemarMinDiscordant(threshold)
		return &Power{Threshold: threshold, Method: PowerMcNemarExact, MinEffect: float64(b), Power: 1, Detectable: b <= n}
	}
}

// mcnemarMinDiscordant returns the fewest b with mcnemarExact(b, 0) ≤ threshold, for
// 0 < threshold < 1: about log2(2/threshold), then the exact p-value decides.
func mcnemarMinDiscordant(threshold float64) int {
	b := max(1, int(math.Log2(2/threshold))-1)
	for mcnemarExact(b, 0) > threshold {
		b++
	}
	return b
}

// pairedTDetector is the paired t test of n ≥ 2 differences with sample sd sd, whose mean
// can move by at most maxChange: the mean change detected with TargetPower at the threshold,
// two-sided. With sd 0 every change of the same size is significant, so it is 0.
func pairedTDetector(n int, sd, maxChange float64) detector {
	return func(threshold float64) *Power {
		p := &Power{Threshold: threshold, Method: PowerPairedT, Power: TargetPower, SD: sd}
		if sd > 0 {
			p.MinEffect = tEffectSize(n, threshold, TargetPower) * sd
		}
		p.Detectable = p.MinEffect <= maxChange
		return p
	}
}

// kappaDetector is the z-test of Δκ with standard error se = √(SE_head² + SE_base²): the Δκ
// detected with TargetPower at the threshold, two-sided, as (z(1 − threshold/2) + z(power))·se.
// It leaves out the chance of rejecting in the opposite direction, which at 80% power is under
// Φ(−2·1.96 − 0.84) < 10⁻⁶ and makes the figure conservative by less than that.
func kappaDetector(se float64) detector {
	return func(threshold float64) *Power {
		d := (normUpper(threshold/2) + normUpper(1-TargetPower)) * se
		return &Power{Threshold: threshold, Method: PowerKappaZ, MinEffect: d, Power: TargetPower, Detectable: d <= 2, SE: se}
	}
}

// normUpper returns the z with P[Z > z] = q for a standard normal Z, 0 < q < 1:
// √2·erfc⁻¹(2q), polished by one Newton step on erfc, which is accurate in the tail where
// erfc⁻¹ (computed as erf⁻¹(1 − x)) loses digits.
func normUpper(q float64) float64 {
	z := math.Sqrt2 * math.Erfcinv(2*q)
	f := 0.5*math.Erfc(z/math.Sqrt2) - q
	return z + f/(math.Exp(-z*z/2)/math.Sqrt(2*math.Pi))
}

// normCDF returns P[Z ≤ z] for a standard normal Z.
func normCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

// tEffectSize returns Cohen's d = δ/σ that the two-sided one-sample (paired) t test of n
// observations at level alpha detects with the given power: the d solving
// P[T' > c] + P[T' < −c] = power for T' noncentral t with n − 1 degrees of freedom and
// noncentrality d·√n, c = t(1 − alpha/2, n − 1). This is statsmodels' TTestPower with
// alternative "two-sided". Power rises with d, so bisection on d finds it to the last bits.
func tEffectSize(n int, alpha, power float64) float64 {
	df := float64(n - 1)
	sqrtN := math.Sqrt(float64(n))
	c := tQuantile(1-alpha/2, df)
	pow := func(d float64) float64 {
		ncp := d * sqrtN
		return nctSF(c, df, ncp) + nctCDF(-c, df, ncp)
	}
	lo, hi := 0.0, (c+normUpper(1-power)+1)/sqrtN
	for pow(hi) < power {
		lo, hi = hi, 2*hi
	}
	for range 200 {
		mid := (lo + hi) / 2
		if mid <= lo || mid >= hi {
			break
		}
		if pow(mid) < power {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// nctSF returns P[T > t] for T noncentral t with df degrees of freedom and noncentrality
// delta, as 1 − nctCDF (the power solved for is near 0.8, far from where that cancels).
func nctSF(t, df, delta float64) float64 { return 1 - nctCDF(t, df, delta) }

// nctCDF returns P[T ≤ t] for T noncentral t with df > 0 degrees of freedom and
// noncentrality delta: Lenth's algorithm AS 243 (1989), as R's pnt, which sums the Poisson
// mixture of incomplete beta functions until the bound on the rest is below 1e-12. Where
// its weights underflow (δ² > 1415) or df > 4·10⁵, R's normal approximation stands in.
func nctCDF(t, df, delta float64) float64 {
	const (
		errMax  = 1e-12
		itrMax  = 1000
		lnSqrtπ = 0.572364942924700087071713675677 // log √π
	)
	if df > 4e5 || delta*delta > 2*math.Ln2*1021 {
		s := 1 / (4 * df)
		return normCDF((t*(1-s) - delta) / math.Sqrt(1+t*t*2*s))
	}
	negdel := false
	tt, del := t, delta
	if t < 0 {
		negdel, tt, del = true, -t, -delta
	}
	var tnc float64
	if t2 := tt * tt; t2 > 0 {
		x := t2 / (t2 + df)
		y := df / (t2 + df) // 1 − x without cancellation
		lambda := del * del
		p := 0.5 * math.Exp(-0.5*lambda)
		q := math.Sqrt(2/math.Pi) * p * del
		s := 0.5 - p
		if s < 1e-7 {
			s = -0.5 * math.Expm1(-0.5*lambda)
		}
		a, b := 0.5, 0.5*df
		rxb := math.Pow(y, b)
		lb, _ := math.Lgamma(b)
		lab, _ := math.Lgamma(0.5 + b)
		albeta := lnSqrtπ + lb - lab
		xodd := betaInc(a, b, x, y)
		godd := 2 * rxb * math.Exp(a*math.Log(x)-albeta)
		xeven := 1 - rxb
		if bx := b * x; bx < 0x1p-52 {
			xeven = bx
		}
		geven := b * x * rxb
		tnc = p*xodd + q*xeven
		for it := 1; it <= itrMax; it++ {
			a++
			xodd -= godd
			xeven -= geven
			godd *= x * (a + b - 1) / a
			geven *= x * (a + b - 0.5) / (a + 0.5)
			p *= lambda / float64(2*it)
			q *= lambda / float64(2*it+1)
			tnc += p*xodd + q*xeven
			s -= p
			if s < -1e-10 || s <= 0 && it > 1 || math.Abs(2*s*(xodd-godd)) < errMax {
				break
			}
		}
	}
	tnc += normCDF(-del)
	tnc = min(tnc, 1)
	if negdel {
		return 1 - tnc
	}
	return tnc
}
