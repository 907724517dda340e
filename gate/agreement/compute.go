package agreement

import (
	"fmt"
	"math"

	"github.com/agentgate/agentgate/gate/profile"
)

// Landis–Koch bands of κ (Landis and Koch 1977), and the band of an undefined κ.
const (
	BandPoor          = "poor"           // κ < 0
	BandSlight        = "slight"         // 0 ≤ κ ≤ 0.20
	BandFair          = "fair"           // ≤ 0.40
	BandModerate      = "moderate"       // ≤ 0.60
	BandSubstantial   = "substantial"    // ≤ 0.80
	BandAlmostPerfect = "almost perfect" // > 0.80
	BandUndefined     = "undefined"      // κ is undefined (default profile)
)

// Band returns the Landis–Koch band of κ.
func Band(kappa float64) string {
	switch {
	case kappa < 0:
		return BandPoor
	case kappa <= 0.20:
		return BandSlight
	case kappa <= 0.40:
		return BandFair
	case kappa <= 0.60:
		return BandModerate
	case kappa <= 0.80:
		return BandSubstantial
	}
	return BandAlmostPerfect
}

// The kappa paradox rule: a warning is given when percent agreement is at least ParadoxPA,
// κ is defined and below ParadoxKappa, and the most frequent label makes up more than
// ParadoxPrevalence of all labels given (both validators' labels pooled, over the items in the
// matrix). Chance agreement p_e is then high, so κ is low although the validators rarely
// disagree; AC1 and PABAK do not collapse this way, and the warning quotes them.
const (
	ParadoxPA         = 0.85
	ParadoxKappa      = 0.60
	ParadoxPrevalence = 0.80
)

// z95 is the normal quantile of a two-sided 95% interval.
const z95 = 1.96

// labelIndex returns a label's row or column in the confusion matrix, or -1.
func labelIndex(l string) int {
	switch l {
	case Valid:
		return 0
	case NotInContext:
		return 1
	case Reject:
		return 2
	case Abstain:
		return 3
	}
	return -1
}

// Compute measures the agreement of the pairs and arbitrates every one of them. unmatched is
// kept in the summary as it is.
//
// The matrix, N, percent agreement and κ = (p_o − p_e)/(1 − p_e) are the seed's, computed in
// the same order of floating-point operations. Pairs with a label outside the four are left
// out of the matrix but kept in Items (as the seed's disagreements TSV keeps them). Beyond the
// seed, in both profiles: κ's large-sample standard error (Fleiss, Cohen and Everitt 1969, the
// ASE that SAS PROC FREQ reports) and the 95% interval κ ± 1.96·SE clamped to [−1, 1]; κ_max
// = (Σ min(row, column marginal) − p_e)/(1 − p_e); PABAK = (q·p_o − 1)/(q − 1); Gwet's AC1 and
// its standard error (Gwet 2008, two raters, no finite-population correction), with q = 3
// labels, or 4 when any ABSTAIN occurs; the Landis–Koch band; the kappa paradox warning (see
// ParadoxPA).
//
// Reference profile: the abstain rate is the share of the Scholar's labels that are ABSTAIN;
// κ = 0 (and its SE and κ_max 0) when 1 − p_e ≤ 1e-12; with N = 0 everything is 0.
//
// Default profile: the abstain rate is the share of items where either validator abstained;
// when both gave one and the same label to every item, p_e = 1 and κ is undefined:
// KappaDefined is false, κ, its SE, interval and κ_max are 0, Band is "undefined" and a warning
// says so (the κ gate is then skipped). With N = 0 κ is undefined too.
func Compute(pairs []Pair, unmatched []Unmatched, p profile.Profile) Summary {
	s := Summary{Unmatched: unmatched}
	var t tally
	b := itemsBuilder{recs: make([]itemRec, 0, len(pairs))}
	for i := range pairs {
		pr := &pairs[i]
		final, why := Arbitrate(*pr)
		sch, aud := pr.Scholar.Label, pr.Auditor.Label
		codes := codesOf(sch, aud, final, why)
		addItem(&b, pr.QID, codes, [4]string{sch, aud})
		t.addCode(codes[0], codes[1])
	}
	s.Items = b.items()
	t.summarize(&s, p)
	return s
}

// tally counts pairs into the confusion matrix: what the measures are computed from.
type tally struct {
	m       [4][4]int
	n       int // pairs in the matrix
	unknown int // pairs left out: a label outside the four
	either  int // pairs in the matrix where either validator abstained
}

// add counts a pair by its labels' indexes (labelIndex; -1 for an unknown label).
func (t *tally) add(a, b int) {
	if a < 0 || b < 0 {
		t.unknown++
		return
	}
	t.m[a][b]++
	t.n++
	if a == 3 || b == 3 {
		t.either++
	}
}

// addCode is add by label codes (see Items): other counts as a label outside the four.
func (t *tally) addCode(a, b uint8) {
	ai, bi := int(a), int(b)
	if a == other {
		ai = -1
	}
	if b == other {
		bi = -1
	}
	t.add(ai, bi)
}

// addAll adds another tally's counts.
func (t *tally) addAll(u *tally) {
	for i := range t.m {
		for j := range t.m[i] {
			t.m[i][j] += u.m[i][j]
		}
	}
	t.n += u.n
	t.unknown += u.unknown
	t.either += u.either
}

// summarize fills s's measures from the tally, as Compute describes.
func (t *tally) summarize(s *Summary, p profile.Profile) {
	ref := p == profile.Reference
	if s.Unmatched == nil {
		s.Unmatched = []Unmatched{}
	}
	m, n, unknown, either := t.m, t.n, t.unknown, t.either
	s.Confusion = m
	s.N = n
	if unknown > 0 && !ref {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%d pair(s) with a label other than VALID, NOT_IN_CONTEXT, REJECT or ABSTAIN were left out of the measures", unknown))
	}
	if n == 0 {
		s.KappaCI = [2]float64{}
		if ref {
			s.KappaDefined = true
			s.Band = Band(0)
		} else {
			s.Band = BandUndefined
			s.Warnings = append(s.Warnings, "no item was labelled by both validators: there is no agreement to measure, and κ is undefined")
		}
		return
	}

	g := marginalsOf(m, n)
	po := g.po
	s.PercentAgreement = po
	if ref {
		s.AbstainRate = float64(g.rs[3]) / g.n
	} else {
		s.AbstainRate = float64(either) / g.n
	}
	s.setKappa(&g, ref)
	maxPrev, maxLabel := s.setChanceCorrected(&g)
	if s.KappaDefined && po >= ParadoxPA && s.Kappa < ParadoxKappa && maxPrev > ParadoxPrevalence {
		s.Warnings = append(s.Warnings, fmt.Sprintf(
			"kappa paradox: the validators agree on %.1f%% of items but κ is only %.4f, because %s makes up %.1f%% of all labels and chance agreement is then high; read κ with AC1 = %.4f and PABAK = %.4f, which do not collapse when labels are skewed",
			100*po, s.Kappa, maxLabel, 100*maxPrev, s.AC1, s.PABAK))
	}
}

// marginals are what the measures read of a confusion matrix of n > 0 items: its rows'
// (Scholar's) and columns' (Auditor's) sums, as counts and as proportions, each cell as a
// proportion, the observed agreement po and the chance agreement pe.
type marginals struct {
	n      float64
	rs, cs [4]int
	r, c   [4]float64
	pr     [4][4]float64
	po, pe float64
}

func marginalsOf(m [4][4]int, n int) marginals {
	g := marginals{n: float64(n)}
	diag := 0
	for i := 0; i < 4; i++ {
		diag += m[i][i]
		for j := 0; j < 4; j++ {
			g.rs[i] += m[i][j]
			g.cs[j] += m[i][j]
		}
	}
	// As the seed: po = Σ diagonal / n, pe = Σ (rs/n)(cs/n) in label order.
	g.po = float64(diag) / g.n
	for i := 0; i < 4; i++ {
		g.pe += (float64(g.rs[i]) / g.n) * (float64(g.cs[i]) / g.n)
	}
	for i := 0; i < 4; i++ {
		g.r[i], g.c[i] = float64(g.rs[i])/g.n, float64(g.cs[i])/g.n
		for j := 0; j < 4; j++ {
			g.pr[i][j] = float64(m[i][j]) / g.n
		}
	}
	return g
}

// setKappa sets κ and the statistics that hang on it: its standard error and interval, its
// maximum given the marginals, its band; or says why it is undefined.
func (s *Summary) setKappa(g *marginals, ref bool) {
	po, pe, r, c, pr, n := g.po, g.pe, g.r, g.c, g.pr, int(g.n)
	single := false
	for i := 0; i < 4; i++ {
		if g.rs[i] == n && g.cs[i] == n {
			single = true
		}
	}
	defined := 1-pe > 1e-12
	if !ref {
		defined = !single && 1-pe > 0
	}
	s.KappaDefined = defined || ref
	switch {
	case defined:
		k := (po - pe) / (1 - pe)
		s.Kappa = k
		var a, b float64
		for i := 0; i < 4; i++ {
			t := 1 - (r[i]+c[i])*(1-k)
			a += pr[i][i] * t * t
			for j := 0; j < 4; j++ {
				if i != j {
					u := c[i] + r[j]
					b += pr[i][j] * u * u
				}
			}
		}
		b *= (1 - k) * (1 - k)
		cc := k - pe*(1-k)
		v := (a + b - cc*cc) / ((1 - pe) * (1 - pe) * g.n)
		s.KappaSE = math.Sqrt(math.Max(0, v))
		s.KappaCI = [2]float64{math.Max(-1, k-z95*s.KappaSE), math.Min(1, k+z95*s.KappaSE)}
		pmax := 0.0
		for i := 0; i < 4; i++ {
			pmax += math.Min(r[i], c[i])
		}
		s.KappaMax = (pmax - pe) / (1 - pe)
		s.Band = Band(k)
	case ref:
		s.Band = Band(0)
	default:
		s.Band = BandUndefined
		only := ""
		for i := 0; i < 4; i++ {
			if g.rs[i] == n {
				only = Labels[i]
			}
		}
		s.Warnings = append(s.Warnings, fmt.Sprintf("κ is undefined: both validators labelled every one of the %d items %s, so chance agreement is 1; the κ gate is skipped and percent agreement (%.4f) still applies", n, only, po))
	}
}

// setChanceCorrected sets PABAK and Gwet's AC1 with its standard error, over q labels (3, or
// 4 when either validator abstained), and returns the most prevalent label and its share of
// all labels.
func (s *Summary) setChanceCorrected(g *marginals) (maxPrev float64, maxLabel string) {
	po, r, c, pr := g.po, g.r, g.c, g.pr
	q := 3.0
	if g.rs[3] > 0 || g.cs[3] > 0 {
		q = 4
	}
	s.PABAK = (q*po - 1) / (q - 1)
	var pi [4]float64
	peg := 0.0
	for i := 0; i < 4; i++ {
		pi[i] = (r[i] + c[i]) / 2
		peg += pi[i] * (1 - pi[i])
		if pi[i] > maxPrev {
			maxPrev, maxLabel = pi[i], Labels[i]
		}
	}
	peg /= q - 1
	ac1 := (po - peg) / (1 - peg)
	s.AC1 = ac1
	var t1, t2 float64
	for i := 0; i < 4; i++ {
		t1 += pr[i][i] * (1 - pi[i])
		for j := 0; j < 4; j++ {
			w := 1 - (pi[i]+pi[j])/2
			t2 += pr[i][j] * w * w
		}
	}
	t1 /= q - 1
	t2 /= (q - 1) * (q - 1)
	v := (po*(1-po) - 4*(1-ac1)*(t1-po*peg) + 4*(1-ac1)*(1-ac1)*(t2-peg*peg)) / (g.n * (1 - peg) * (1 - peg))
	s.AC1SE = math.Sqrt(math.Max(0, v))
	return maxPrev, maxLabel
}
