package compare

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/gate/agreement"
	"github.com/agentgate/agentgate/gate/coherence"
	"github.com/agentgate/agentgate/gate/outcome"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/verdict"
)

// Metric names, as the comparison table and the "regressions" output name them.
const (
	MetricReliability = "reliability"
	MetricCoherence   = "coherence"
	MetricAgreement   = "agreement"
	// MetricSuccess is the runs' own success by their outcomes (docs/design.md#outcomes).
	MetricSuccess = "success"
)

// Outcome is what a comparison concludes about one metric (docs/design.md#comparison).
type Outcome string

const (
	// Degraded: the change is significant (Holm) in the worse direction.
	Degraded Outcome = "degraded"
	// Improved: the change is significant in the better direction.
	Improved Outcome = "improved"
	// Unchanged: enough units were matched, and the change is not significant.
	Unchanged Outcome = "unchanged"
	// Inconclusive: fewer than Options.MinMatched units were matched, or no test is defined
	// (κ undefined on a side); Test.Note says which.
	Inconclusive Outcome = "inconclusive"
)

// DefaultAlpha is regression-alpha's default.
const DefaultAlpha = 0.05

// DefaultMinMatched is the fewest matched units for which a metric gets an outcome other than
// inconclusive.
const DefaultMinMatched = 10

// MaxListed is how many added or removed ids Units lists.
const MaxListed = 20

// Options tune a comparison.
type Options struct {
	// Alpha is the family-wise error rate of Holm's procedure (regression-alpha), in (0, 1).
	Alpha float64
	// MinMatched is the fewest matched units a metric needs to be tested (default 10).
	MinMatched int
	// PlanEffect is the drop in success rate the paired pass/fail metrics plan for
	// (docs/design.md#planning-and-trend, plan-effect); 0 means DefaultPlanEffect.
	PlanEffect float64
	// AllowMissingRuns (allow-missing-runs) leaves the baseline's runs that this run lacks
	// out of the reliability and success tests; by default each counts as a failure of this
	// run (docs/comparison-and-statistics.md, "Every baseline run accounted for").
	AllowMissingRuns bool
}

// DefaultOptions returns docs/design.md#comparison's defaults: alpha 0.05, 10 matched units.
func DefaultOptions() Options { return Options{Alpha: DefaultAlpha, MinMatched: DefaultMinMatched} }

// MinLevel is the smallest significance level (regression-alpha, or a Holm threshold read
// from a report) agentgate computes power at: below about 1e-16 the normal quantile it uses
// is not finite, and a power figure of one was "NaN%".
const MinLevel = 1e-12

// Validate rejects options that cannot mean anything; the message names the setting.
func (o Options) Validate() error {
	if math.IsNaN(o.Alpha) || o.Alpha <= 0 || o.Alpha >= 1 {
		return &SettingError{Name: "regression-alpha", Msg: fmt.Sprintf("must be between 0 and 1 (exclusive), got %v", o.Alpha)}
	}
	if o.Alpha < MinLevel {
		return &SettingError{Name: "regression-alpha", Msg: fmt.Sprintf("must be at least %v, the smallest level agentgate computes power at, got %v", MinLevel, o.Alpha)}
	}
	if o.MinMatched < 1 {
		return fmt.Errorf("the fewest matched units must be 1 or more, got %d", o.MinMatched)
	}
	if o.PlanEffect != 0 {
		return ValidEffect(o.PlanEffect)
	}
	return nil
}

// Comparison is the head run held against a baseline (docs/design.md#comparison). A metric's section is nil
// when its evaluator did not run on both sides (Notes then says so). Every number is finite,
// so the whole of it can be written as JSON; lists are sorted by id and never nil.
type Comparison struct {
	Base  Source  `json:"base"`
	Alpha float64 `json:"alpha"`

	Reliability *ReliabilityChange `json:"reliability,omitempty"`
	// Success compares the runs' own outcomes; nil unless both sides have some.
	Success   *SuccessChange   `json:"success,omitempty"`
	Coherence *CoherenceChange `json:"coherence,omitempty"`
	Agreement *AgreementChange `json:"agreement,omitempty"`
	// PassK puts pass^k of base and head side by side; nil when neither has trials.
	PassK *PassKComparison `json:"pass_k,omitempty"`
	// Matching says what the runs were matched on and how many of each side matched
	// (docs/design.md#run-identity); nil when reliability was not compared.
	Matching *Matching `json:"matching,omitempty"`
	// AllowMissingRuns is Options.AllowMissingRuns: whether the baseline's runs missing from
	// this run were left out of the tests rather than counted as its failures.
	AllowMissingRuns bool `json:"allow_missing_runs"`

	// Notes explain what was not compared, e.g. "coherence: not in the baseline".
	Notes []string `json:"notes"`
}

// Degraded returns the names of the degraded metrics in table order (reliability,
// coherence, agreement): the "regressions" output.
func (c *Comparison) Degraded() []string {
	var out []string
	for _, m := range c.tests() {
		if m.t.Outcome == Degraded {
			out = append(out, m.name)
		}
	}
	return out
}

// namedTest is a metric's name with its test.
type namedTest struct {
	name string
	t    *Test
}

// Metric is a compared metric's name with its test.
type Metric struct {
	Name string
	Test *Test
}

// Metrics returns the metrics compared, with their tests, in table order: what a renderer
// needs to say of every metric (its direction, its power) without naming each.
func (c *Comparison) Metrics() []Metric {
	var out []Metric
	for _, m := range c.tests() {
		out = append(out, Metric{m.name, m.t})
	}
	return out
}

// tests returns the tests of the metrics compared, in table order.
func (c *Comparison) tests() []namedTest {
	var out []namedTest
	if c.Reliability != nil {
		out = append(out, namedTest{MetricReliability, &c.Reliability.Test})
	}
	if c.Success != nil {
		out = append(out, namedTest{MetricSuccess, &c.Success.Test})
	}
	if c.Coherence != nil {
		out = append(out, namedTest{MetricCoherence, &c.Coherence.Test})
	}
	if c.Agreement != nil {
		out = append(out, namedTest{MetricAgreement, &c.Agreement.Test})
	}
	return out
}

// Units counts the units of one side only and lists the first MaxListed of their ids, sorted.
type Units struct {
	Count int      `json:"count"`
	First []string `json:"first"`
}

// add counts id, listing it while fewer than MaxListed are. Ids come in sorted order.
func (u *Units) add(id string) {
	u.Count++
	if len(u.First) < MaxListed {
		u.First = append(u.First, id)
	}
}

// Test is a metric's matched units, its p-value and the outcome Holm's procedure gives it.
type Test struct {
	Matched int   `json:"matched"`
	Added   Units `json:"added"`   // in head only
	Removed Units `json:"removed"` // in the baseline only: for runs, the missing runs
	// Compared is the units the test counted: the matched ones, and for the paired pass/fail
	// metrics the runs missing from head, each counted as a failure of head, unless
	// allow-missing-runs (docs/comparison-and-statistics.md, "Every baseline run accounted
	// for"). A metric with fewer than Options.MinMatched is inconclusive.
	Compared int `json:"compared"`
	// P is the metric's two-sided p-value; meaningless unless PDefined.
	P        float64 `json:"p"`
	PDefined bool    `json:"p_defined"`
	// InFamily: the metric was one of the Holm family (p defined, enough matched units).
	InFamily bool `json:"in_family"`
	// AdjustedP is the Holm-adjusted p-value, min(1, max over j ≤ i of (m − j)·p_(j)):
	// significant when it is at most Alpha. Meaningless unless InFamily.
	AdjustedP   float64 `json:"p_holm"`
	Significant bool    `json:"significant"`
	Outcome     Outcome `json:"outcome"`
	// Direction is which way the estimate moved, significant or not (docs/design.md#honest-words).
	Direction Direction `json:"direction"`
	// Power says what the test could have detected; nil unless InFamily.
	Power *Power `json:"power,omitempty"`
	// Plan says how many matched units would detect Options.PlanEffect (docs/design.md#planning-and-trend), at the
	// Holm threshold the metric faced, or at α/m for the m metrics compared when it had too
	// few matched units to be tested; nil unless a paired pass/fail metric (McNemar's) with a
	// matched unit.
	Plan *Plan `json:"plan,omitempty"`
	// Note explains an inconclusive outcome.
	Note string `json:"note,omitempty"`
	// direction is the sign of the change: +1 better, −1 worse, 0 none.
	direction int
	// detect gives Power at the threshold the metric faced; nil leaves Power its threshold.
	detect detector
	// plan gives Plan at that threshold; nil for a metric that has none.
	plan planner
}

// Direction is which way a metric's estimate moved (docs/design.md#honest-words): the count of FAIL traces, the
// mean RCS, κ (percent agreement when κ is undefined). It is reported whether or not the
// change is significant, so a change the wrong way is never called unchanged.
type Direction string

const (
	Worse  Direction = "worse"
	Better Direction = "better"
	Same   Direction = "same" // the estimate did not move at all
)

// directionOf names the sign of a change: +1 better, −1 worse, 0 none.
func directionOf(sign int) Direction {
	switch {
	case sign > 0:
		return Better
	case sign < 0:
		return Worse
	}
	return Same
}

// ReliabilityChange compares the traces' verdicts. A new failure is a matched trace that is
// FAIL in head and not in the baseline; it is fixed the other way round. McNemar's exact test
// on (new failures, fixed) gives P. Degraded means more new failures than fixed.
type ReliabilityChange struct {
	Test
	// Table counts matched traces by base verdict (rows) and head verdict (columns), each in
	// the order of verdict.All (PASS, WARN, FAIL): Table[b.Rank()][h.Rank()].
	Table [len(verdict.All)][len(verdict.All)]int `json:"table"`
	// NewFailures is what the test and the new-failures output count: the matched traces
	// FAIL in head and not in the baseline, and the missing runs (Removed) not FAIL in the
	// baseline unless allow-missing-runs. MissingNewFailures is how many of them are missing
	// runs; the others are NewFailureTraces.
	NewFailures        int `json:"new_failures"`
	MissingNewFailures int `json:"missing_new_failures"`
	Fixed              int `json:"fixed"`
	// BaseFail counts the FAIL traces of the baseline's compared runs (Compared of them);
	// HeadFail the FAIL traces of head's: the matched ones, the missing runs counted as FAIL
	// and the added ones (Added), HeadRuns in all.
	BaseFail int `json:"base_fail"`
	HeadFail int `json:"head_fail"`
	HeadRuns int `json:"head_runs"`
	// Mean overall scores over the matched traces (higher is riskier), and the mean of
	// head − base; 0 when nothing is matched.
	BaseMeanScore   float64 `json:"base_mean_score"`
	HeadMeanScore   float64 `json:"head_mean_score"`
	MeanScoreChange float64 `json:"mean_score_change"`
	// NewFailureTraces and FixedTraces hold both sides of each such trace, sorted by id: the
	// head's evidence explains a new failure. The JSON report writes the first
	// MaxTracePairs of each, after how many there are (NewFailureTracesTotal,
	// FixedTracesTotal).
	NewFailureTracesTotal int         `json:"new_failure_traces_total"`
	NewFailureTraces      []TracePair `json:"new_failure_traces"`
	FixedTracesTotal      int         `json:"fixed_traces_total"`
	FixedTraces           []TracePair `json:"fixed_traces"`
}

// MaxTracePairs is how many of a comparison's new failures and of its fixed traces the JSON
// report writes, each with both sides in full (docs/security.md, "Input limits"): a million
// runs that all newly fail would otherwise be written again, twice over.
const MaxTracePairs = 1000

// SuccessChange compares the runs' own outcomes over the traces that have one on both sides
// (docs/design.md#outcomes): a new failure succeeded in the baseline and failed in head; a fixed run the
// other way round. McNemar's exact test on (new failures, fixed) gives P, as for the verdicts.
// Degraded means more new failures than fixed.
type SuccessChange struct {
	Test
	// NewFailures counts the matched runs that succeeded in the baseline and failed in head,
	// and the baseline's successful runs missing from head (or without an outcome there)
	// unless allow-missing-runs; MissingNewFailures is how many of them are missing runs.
	NewFailures        int `json:"new_failures"`
	MissingNewFailures int `json:"missing_new_failures"`
	Fixed              int `json:"fixed"`
	// BaseSuccesses counts the successful runs of the baseline's compared runs (Compared of
	// them); HeadSuccesses those of head's matched and added runs, out of HeadRuns: Compared
	// and Added (a missing run counted did not succeed).
	BaseSuccesses int `json:"base_successes"`
	HeadSuccesses int `json:"head_successes"`
	HeadRuns      int `json:"head_runs"`
	// NewFailureIDs and FixedIDs are the first MaxListed of those runs' ids, sorted.
	NewFailureIDs []string `json:"new_failure_ids"`
	FixedIDs      []string `json:"fixed_ids"`
	// Tokens per success of each side over all its runs with an outcome (nil when unknown),
	// side by side.
	BaseTokensPerSuccess *float64 `json:"base_tokens_per_success"`
	HeadTokensPerSuccess *float64 `json:"head_tokens_per_success"`
}

// TracePair is one matched trace on both sides.
type TracePair struct {
	Base reliability.Result `json:"base"`
	Head reliability.Result `json:"head"`
}

// CoherenceChange compares the tasks' RCS by the paired differences d = head − base. P is
// that of the paired t statistic mean/(sd/√n) with n − 1 degrees of freedom. Degraded means
// mean d < 0.
//
// When every d is the same (sd = 0) the t statistic is 0/0 or ±∞: then P is 1 if that d is 0
// (nothing changed) and 0 otherwise (every task moved by the same amount, which no noise
// explains), and the interval is [d, d].
type CoherenceChange struct {
	Test
	BaseMean   float64 `json:"base_mean"` // mean RCS over matched tasks
	HeadMean   float64 `json:"head_mean"`
	MeanChange float64 `json:"mean_change"` // mean d
	SD         float64 `json:"sd"`          // sample sd of d (n − 1); 0 when n < 2
	// CI is the 95% interval mean ± t(0.975, n−1)·sd/√n; meaningless unless CIDefined (n ≥ 2).
	CI        [2]float64 `json:"ci"`
	CIDefined bool       `json:"ci_defined"`
	// T is the t statistic (0 when sd is 0; see above); DF is n − 1.
	T  float64 `json:"t"`
	DF int     `json:"df"`
}

// AgreementChange compares the validators' agreement: each side's percent agreement and κ
// over all its items, and z = Δκ/√(SE_head² + SE_base²) with its two-sided normal P, defined
// when κ is defined on both sides. Degraded means Δκ < 0. Matched counts the qids on both
// sides, over which the FINAL flips are found.
type AgreementChange struct {
	Test
	BasePA       float64 `json:"base_pa"`
	HeadPA       float64 `json:"head_pa"`
	DeltaPA      float64 `json:"delta_pa"`
	BaseKappa    float64 `json:"base_kappa"`
	HeadKappa    float64 `json:"head_kappa"`
	KappaDefined bool    `json:"kappa_defined"` // on both sides; else DeltaKappa and Z are 0
	DeltaKappa   float64 `json:"delta_kappa"`
	Z            float64 `json:"z"`
	// Flips over matched qids: FINAL shipped (VALID or NOT_IN_CONTEXT) in the baseline and
	// REJECT in head, and back. ABSTAIN or any other FINAL is neither.
	ShippedToRejected []string `json:"shipped_to_rejected"`
	RejectedToShipped []string `json:"rejected_to_shipped"`
}

// AgreementOf returns what a comparison needs of an agreement summary, sharing its items;
// nil for nil.
func AgreementOf(s *agreement.Summary) *Agreement {
	if s == nil {
		return nil
	}
	return &Agreement{N: s.N, PercentAgreement: s.PercentAgreement, Kappa: s.Kappa, KappaDefined: s.KappaDefined,
		KappaSE: s.KappaSE, Finals: itemFinals{s.Items}}
}

// itemFinals adapts agreement.Items to Finals.
type itemFinals struct{ items agreement.Items }

func (f itemFinals) Len() int { return f.items.Len() }

func (f itemFinals) At(i int) (string, string) {
	it := f.items.At(i)
	return it.QID, it.Final
}

// Compare holds head against base, matching units by id, and decides each metric's outcome
// with Holm's procedure over the metrics compared. Runs that share an identity on a side are
// one unit, compared by their worse (docs/comparison-and-statistics.md, "Every baseline run
// accounted for"). It returns an *Unusable when the baseline cannot be compared with (another
// profile, a task or qid twice in it: a note for the report, docs/design.md#comparison), and another error for
// invalid options or a task or qid twice in head (a bug of the caller). It reads base and head
// without changing them, in O(n log n) time for n units.
func Compare(base *Baseline, head *Run, o Options) (*Comparison, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if base == nil || head == nil {
		return nil, errors.New("compare: no baseline or no head run")
	}
	if err := base.Check(head); err != nil {
		return nil, err
	}
	c := &Comparison{Base: base.Source, Alpha: o.Alpha, Notes: []string{}}
	for _, n := range base.Notes {
		c.Notes = append(c.Notes, "baseline: "+n)
	}
	dup := func(side, what, id string) error {
		if side == "baseline" {
			return unusable("baseline %s: %s %q occurs twice", base.Name, what, id)
		}
		return fmt.Errorf("compare: head %s %q occurs twice", what, id)
	}
	note := func(metric string, b, h bool) {
		switch {
		case b && !h:
			c.Notes = append(c.Notes, metric+": in the baseline only, not compared")
		case h && !b:
			c.Notes = append(c.Notes, metric+": not in the baseline, not compared")
		}
	}

	note(MetricReliability, base.Reliability != nil, head.Reliability != nil)
	if base.Reliability != nil && head.Reliability != nil {
		bt, ht := base.Reliability.Traces, head.Reliability.Traces
		on, notes := matchOn(bt, ht)
		c.Notes = append(c.Notes, notes...)
		m := matchRuns(bt, ht, on)
		counted := !o.AllowMissingRuns
		c.AllowMissingRuns = o.AllowMissingRuns
		c.Reliability = compareReliability(m, counted)
		c.Matching = matching(on, bt, ht, &c.Reliability.Test)
		c.Matching.account(m)
		// A baseline with outcomes is compared with a head without any too: each of its runs
		// then has no outcome in head, which did not report and so did not pass.
		if anyOutcome(bt) {
			c.Success = compareSuccess(&base.Run, head, m, counted)
		}
		if n := c.Reliability.Removed.Count; n > 0 && !counted {
			c.Notes = append(c.Notes, fmt.Sprintf("allow-missing-runs: %d of the baseline's runs are not in this run and were left out of the comparison, not counted as failures", n))
		}
	}
	note(MetricCoherence, base.Coherence != nil, head.Coherence != nil)
	if base.Coherence != nil && head.Coherence != nil {
		r, err := compareCoherence(base.Coherence.Tasks, head.Coherence.Tasks, dup)
		if err != nil {
			return nil, err
		}
		c.Coherence = r
	}
	note(MetricAgreement, base.Agreement != nil, head.Agreement != nil)
	if base.Agreement != nil && head.Agreement != nil {
		r, err := compareAgreement(base.Agreement, head.Agreement, dup)
		if err != nil {
			return nil, err
		}
		c.Agreement = r
	}
	if len(base.Trials) > 0 || len(head.Trials) > 0 {
		c.PassK = ComparePassK(base.Trials, head.Trials)
	}
	decide(c.tests(), o)
	return c, nil
}

// decide gives every test its outcome: inconclusive under MinMatched matched units or
// without a p-value; else Holm's procedure over the rest (the family) at Alpha decides which
// are significant, and the direction of a significant change whether it degraded or
// improved.
func decide(tests []namedTest, o Options) {
	var family []*Test
	var ps []float64
	for _, nt := range tests {
		t := nt.t
		t.Direction = directionOf(t.direction)
		switch {
		case t.Compared < o.MinMatched:
			t.Outcome = Inconclusive
			few := fmt.Sprintf("%d matched, fewer than %d", t.Compared, o.MinMatched)
			if t.Compared != t.Matched {
				few = fmt.Sprintf("%d compared (%d matched), fewer than %d", t.Compared, t.Matched, o.MinMatched)
			}
			if t.Note != "" {
				few += "; " + t.Note
			}
			t.Note = few
		case !t.PDefined:
			t.Outcome = Inconclusive // Note set by the metric
		default:
			t.InFamily = true
			family = append(family, t)
			ps = append(ps, t.P)
		}
	}
	rejected, adjusted := holm(ps, o.Alpha)
	thresholds := holmThresholds(ps, o.Alpha)
	for i, t := range family {
		t.AdjustedP = adjusted[i]
		t.Significant = rejected[i]
		t.Power = &Power{Threshold: thresholds[i]}
		if t.detect != nil {
			t.Power = t.detect(thresholds[i])
		}
		if t.plan != nil {
			t.Plan = t.plan(thresholds[i], cmp.Or(o.PlanEffect, DefaultPlanEffect))
		}
		switch {
		case t.Significant && t.direction < 0:
			t.Outcome = Degraded
		case t.Significant && t.direction > 0:
			t.Outcome = Improved
		default:
			t.Outcome = Unchanged
		}
	}
	// A metric too small to be tested still says what it would take (docs/design.md#planning-and-trend): at α/m for
	// the m metrics compared, the strictest threshold Holm's procedure could hold it to.
	for _, nt := range tests {
		if t := nt.t; !t.InFamily && t.plan != nil && t.Compared > 0 {
			t.Plan = t.plan(o.Alpha/float64(len(tests)), cmp.Or(o.PlanEffect, DefaultPlanEffect))
		}
	}
}

// byID returns the indexes 0..n−1 sorted by id, and the index of an id that occurs twice
// (-1 when none does).
func byID(n int, id func(i int) string) ([]int, int) {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(id(a), id(b)) })
	if i := firstDup(n, func(i int) string { return id(order[i]) }); i >= 0 {
		return nil, order[i]
	}
	return order, -1
}

// firstDup returns the index of the first id of a sorted list of n that equals the one before
// it, or -1.
func firstDup(n int, id func(i int) string) int {
	for i := 1; i < n; i++ {
		if id(i) == id(i-1) {
			return i
		}
	}
	return -1
}

// dupFunc builds the error for an id that occurs twice on a side.
type dupFunc func(side, what, id string) error

// keyed is one side's units as merge matches them: how many there are, and each one's id.
type keyed struct {
	n  int
	id func(i int) string
}

// merge matches the units of base and head by id in sorted order: pair(i, j) for base unit i
// and head unit j with the same id, the others counted in t's added (head only) and removed
// (base only) lists. An id twice on a side is the error of dup, with what ("task id") names.
func merge(base, head keyed, what string, dup dupFunc, t *Test, pair func(i, j int)) error {
	bo, bd := byID(base.n, base.id)
	if bd >= 0 {
		return dup("baseline", what, base.id(bd))
	}
	ho, hd := byID(head.n, head.id)
	if hd >= 0 {
		return dup("head", what, head.id(hd))
	}
	t.Added.First, t.Removed.First = []string{}, []string{}
	i, j := 0, 0
	for i < base.n || j < head.n {
		var c int
		switch {
		case i == base.n:
			c = 1
		case j == head.n:
			c = -1
		default:
			c = strings.Compare(base.id(bo[i]), head.id(ho[j]))
		}
		switch {
		case c < 0:
			t.Removed.add(base.id(bo[i]))
			i++
		case c > 0:
			t.Added.add(head.id(ho[j]))
			j++
		default:
			t.Matched++
			pair(bo[i], ho[j])
			i++
			j++
		}
	}
	t.Compared = t.Matched
	return nil
}

// compareReliability compares the verdicts of the runs matched in m: each group by its worst
// run; a missing run counts as FAIL in head when counted (a run that did not report did not
// pass), an added run in head's FAIL count.
func compareReliability(m runMatch, counted bool) *ReliabilityChange {
	r := &ReliabilityChange{NewFailureTraces: []TracePair{}, FixedTraces: []TracePair{}}
	r.Added.First, r.Removed.First = []string{}, []string{}
	var sumB, sumH, sumD float64
	for _, u := range m.units {
		switch {
		case u.head.n == 0: // missing
			b := m.base.worst(u.base)
			r.Removed.add(m.baseName(u.base))
			if !counted {
				continue
			}
			r.Compared++
			r.HeadFail++
			if b.Verdict == verdict.Fail {
				r.BaseFail++
			} else {
				r.NewFailures++
				r.MissingNewFailures++
			}
		case u.base.n == 0: // added
			h := m.head.worst(u.head)
			r.Added.add(m.headName(u.head))
			if h.Verdict == verdict.Fail {
				r.HeadFail++
			}
		default:
			b, h := m.base.worst(u.base), m.head.worst(u.head)
			r.Matched++
			r.Compared++
			r.Table[b.Verdict.Rank()][h.Verdict.Rank()]++
			bf, hf := b.Verdict == verdict.Fail, h.Verdict == verdict.Fail
			switch {
			case hf && !bf:
				r.NewFailures++
				r.NewFailureTraces = append(r.NewFailureTraces, TracePair{Base: *b, Head: *h})
			case bf && !hf:
				r.Fixed++
				r.FixedTraces = append(r.FixedTraces, TracePair{Base: *b, Head: *h})
			}
			if bf {
				r.BaseFail++
			}
			if hf {
				r.HeadFail++
			}
			sumB += b.Score
			sumH += h.Score
			sumD += h.Score - b.Score
		}
	}
	r.HeadRuns = r.Compared + r.Added.Count
	r.NewFailureTracesTotal, r.FixedTracesTotal = len(r.NewFailureTraces), len(r.FixedTraces)
	if n := float64(r.Matched); n > 0 {
		r.BaseMeanScore, r.HeadMeanScore, r.MeanScoreChange = sumB/n, sumH/n, sumD/n
	}
	r.mcnemar(r.NewFailures, r.Fixed)
	return r
}

// mcnemar sets t's p-value to McNemar's exact test of b new failures against c fixed units,
// and its direction: better when more were fixed. Both paired pass/fail metrics (the
// verdicts and the outcomes) are tested by it.
func (t *Test) mcnemar(b, c int) {
	t.P, t.PDefined = mcnemarExact(b, c), true
	t.direction = cmp.Compare(c, b)
	t.detect = mcnemarDetector(t.Compared)
	t.plan = mcnemarPlanner(t.Compared, b+c)
}

// anyOutcome reports whether any of traces has its own outcome (docs/design.md#outcomes).
func anyOutcome(traces []reliability.Result) bool {
	for i := range traces {
		if traces[i].Run.Known {
			return true
		}
	}
	return false
}

// compareSuccess compares the runs' own outcomes over the runs matched in m, each group by
// its worse outcome: a base run with an outcome whose head has none (missing, or without an
// outcome) counts as a failure of head when counted; a head run with an outcome whose base has
// none is added, in head's rate.
func compareSuccess(base, head *Run, m runMatch, counted bool) *SuccessChange {
	bt, ht := base.Reliability.Traces, head.Reliability.Traces
	r := &SuccessChange{NewFailureIDs: []string{}, FixedIDs: []string{}}
	r.Added.First, r.Removed.First = []string{}, []string{}
	var newIDs, fixedIDs Units
	for _, u := range m.units {
		var bk, b, hk, h bool
		if u.base.n > 0 {
			bk, b = m.base.outcome(u.base)
		}
		if u.head.n > 0 {
			hk, h = m.head.outcome(u.head)
		}
		switch {
		case bk && hk:
			r.Matched++
			r.Compared++
			if b {
				r.BaseSuccesses++
			}
			if h {
				r.HeadSuccesses++
			}
			switch {
			case b && !h:
				r.NewFailures++
				newIDs.add(m.head.outcomeRun(u.head).ID)
			case !b && h:
				r.Fixed++
				fixedIDs.add(m.head.outcomeRun(u.head).ID)
			}
		case bk: // missing, or without an outcome in head: it did not report, so it did not pass
			r.Removed.add(m.baseName(u.base))
			if counted {
				r.Compared++
				if b {
					r.BaseSuccesses++
					r.NewFailures++
					r.MissingNewFailures++
				}
			}
		case hk:
			r.Added.add(m.headName(u.head))
			if h {
				r.HeadSuccesses++
			}
		}
	}
	r.HeadRuns = r.Compared + r.Added.Count
	if newIDs.First != nil {
		r.NewFailureIDs = newIDs.First
	}
	if fixedIDs.First != nil {
		r.FixedIDs = fixedIDs.First
	}
	r.mcnemar(r.NewFailures, r.Fixed)
	r.BaseTokensPerSuccess = outcome.Summarize(bt, 0, nil).TokensPerSuccess
	r.HeadTokensPerSuccess = outcome.Summarize(ht, 0, nil).TokensPerSuccess
	return r
}

func compareCoherence(base, head []coherence.TaskResult, dup dupFunc) (*CoherenceChange, error) {
	r := &CoherenceChange{}
	var d []float64
	var sumB, sumH float64
	err := merge(keyed{len(base), func(i int) string { return base[i].ID }}, keyed{len(head), func(j int) string { return head[j].ID }},
		"task id", dup, &r.Test, func(i, j int) {
			d = append(d, head[j].RCS-base[i].RCS)
			sumB += base[i].RCS
			sumH += head[j].RCS
		})
	if err != nil {
		return nil, err
	}
	n := len(d)
	if n == 0 {
		return r, nil
	}
	r.BaseMean, r.HeadMean = sumB/float64(n), sumH/float64(n)
	s := pairedT(d)
	r.MeanChange, r.SD, r.T, r.DF = s.mean, s.sd, s.t, s.df
	r.direction = sign(s.mean)
	if n < 2 {
		r.Note = "one matched task: no interval"
		return r, nil
	}
	r.CI, r.CIDefined = s.ci, true
	r.P, r.PDefined = s.p, true
	r.detect = pairedTDetector(n, s.sd, 1) // RCS lies in [0, 1]
	return r, nil
}

// pairedStats is the paired t test of differences d.
type pairedStats struct {
	mean, sd, t float64
	df          int
	ci          [2]float64 // for n ≥ 2
	p           float64    // for n ≥ 2
}

// pairedT computes the mean of d, its sample sd, t = mean/(sd/√n), the 95% interval and the
// two-sided p with n − 1 degrees of freedom (for n ≥ 2; see CoherenceChange for sd = 0). The
// mean is summed in order, then the sd from the deviations (two passes, no cancellation).
func pairedT(d []float64) pairedStats {
	n := len(d)
	var s pairedStats
	var sum float64
	for _, x := range d {
		sum += x
	}
	s.mean = sum / float64(n)
	s.df = n - 1
	if n < 2 {
		return s
	}
	var ss float64
	for _, x := range d {
		ss += (x - s.mean) * (x - s.mean)
	}
	s.sd = math.Sqrt(ss / float64(n-1))
	se := s.sd / math.Sqrt(float64(n))
	if se == 0 {
		s.ci = [2]float64{s.mean, s.mean}
		s.p = 1
		if s.mean != 0 {
			s.p = 0
		}
		return s
	}
	df := float64(n - 1)
	s.t = s.mean / se
	h := tQuantile(0.975, df) * se
	s.ci = [2]float64{s.mean - h, s.mean + h}
	s.p = tTwoSided(s.t, df)
	return s
}

func sign(x float64) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// shipped reports whether a FINAL label ships the item.
func shipped(final string) bool { return final == agreement.Valid || final == agreement.NotInContext }

func compareAgreement(base, head *Agreement, dup dupFunc) (*AgreementChange, error) {
	r := &AgreementChange{ShippedToRejected: []string{}, RejectedToShipped: []string{}}
	bf, hf := base.Finals, head.Finals
	if bf == nil {
		bf = FinalList{}
	}
	if hf == nil {
		hf = FinalList{}
	}
	qids := func(f Finals) keyed {
		return keyed{f.Len(), func(i int) string { q, _ := f.At(i); return q }}
	}
	err := merge(qids(bf), qids(hf), "item qid", dup, &r.Test, func(i, j int) {
		q, b := bf.At(i)
		_, h := hf.At(j)
		switch {
		case shipped(b) && h == agreement.Reject:
			r.ShippedToRejected = append(r.ShippedToRejected, q)
		case b == agreement.Reject && shipped(h):
			r.RejectedToShipped = append(r.RejectedToShipped, q)
		}
	})
	if err != nil {
		return nil, err
	}
	r.BasePA, r.HeadPA = base.PercentAgreement, head.PercentAgreement
	r.DeltaPA = head.PercentAgreement - base.PercentAgreement
	r.BaseKappa, r.HeadKappa = base.Kappa, head.Kappa
	switch {
	case !base.KappaDefined && !head.KappaDefined:
		r.Note = "κ is undefined on both sides"
	case !base.KappaDefined:
		r.Note = "κ is undefined in the baseline"
	case !head.KappaDefined:
		r.Note = "κ is undefined in head"
	default:
		r.KappaDefined = true
		r.DeltaKappa = head.Kappa - base.Kappa
		r.direction = sign(r.DeltaKappa)
		se := math.Hypot(head.KappaSE, base.KappaSE)
		switch {
		case se > 0:
			r.detect = kappaDetector(se)
			r.Z = r.DeltaKappa / se
			r.P, r.PDefined = normTwoSided(r.Z), true
		case r.DeltaKappa == 0:
			r.P, r.PDefined = 1, true
		default:
			r.Note = "κ changed but both standard errors are 0: no test"
		}
	}
	if !r.KappaDefined {
		r.BaseKappa, r.HeadKappa = kappaOrZero(base), kappaOrZero(head)
		r.direction = sign(r.DeltaPA) // the estimate the table shows
	}
	return r, nil
}

// kappaOrZero returns a side's κ, or 0 when it is undefined.
func kappaOrZero(a *Agreement) float64 {
	if a.KappaDefined {
		return a.Kappa
	}
	return 0
}
