package compare

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/agreement"
	"github.com/agentgate/agentgate/gate/coherence"
	"github.com/agentgate/agentgate/gate/outcome"
	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/verdict"
)

// Figures from stats_test.go's script: McNemar (10, 0) = 2·2^−10; the paired t test of the
// "worse" and "mixed" coherence runs; z tests of κ; and
//
//	multipletests([0.001953125, 0.00031083626378070717366, 0.04046020640336328], 0.05, 'holm')
//	  -> [True, True, True], [0.00390625, 0.0009325087913421215, 0.04046020640336328]
//	multipletests([0.001953125, 0.72823594940749325914, 0.1183498127356284], 0.05, 'holm')
//	  -> [True, False, False], [0.005859375, 0.7282359494074933, 0.2366996254712568]

var rcsBase = []float64{0.91, 0.12, 0.55, 0.0, 0.33, 0.871, 0.2, 0.64, 0.05, 0.48, 0.77, 0.29}

var (
	rcsWorse = []float64{0.85, 0.10, 0.50, 0.0, 0.30, 0.80, 0.15, 0.60, 0.06, 0.40, 0.70, 0.25}
	rcsMixed = []float64{0.95, 0.10, 0.60, 0.05, 0.30, 0.86, 0.25, 0.60, 0.05, 0.50, 0.70, 0.30}
)

func traces(verdicts string, score func(i int) float64, ids ...string) *reliability.Summary {
	s := &reliability.Summary{}
	for i, c := range verdicts {
		v := map[rune]verdict.Verdict{'P': verdict.Pass, 'W': verdict.Warn, 'F': verdict.Fail}[c]
		id := fmt.Sprintf("r%02d", i+1)
		if i < len(ids) {
			id = ids[i]
		}
		s.Add(reliability.Result{ID: id, Verdict: v, Score: score(i)})
	}
	return s
}

func tasks(rcs []float64, prefix string) *coherence.Summary {
	s := &coherence.Summary{}
	for i, r := range rcs {
		s.Add(coherence.TaskResult{ID: fmt.Sprintf("%s%02d", prefix, i+1), RCS: r})
	}
	return s
}

func agree(kappa, se float64, defined bool, finals ...string) *Agreement {
	l := FinalList{}
	for i, f := range finals {
		l = append(l, Final{QID: fmt.Sprintf("q%02d", i+1), Final: f})
	}
	return &Agreement{N: len(finals), PercentAgreement: 0.9, Kappa: kappa, KappaSE: se, KappaDefined: defined, Finals: l}
}

func constant(x float64) func(int) float64 { return func(int) float64 { return x } }

// twelve returns 12 copies of s.
func twelve(s string) []string {
	out := make([]string, 12)
	for i := range out {
		out[i] = s
	}
	return out
}

func mustCompare(t *testing.T, base *Baseline, head *Run) *Comparison {
	t.Helper()
	c, err := Compare(base, head, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// mustCompareAllowing compares with allow-missing-runs: the baseline's runs missing from head
// are left out of the tests.
func mustCompareAllowing(t *testing.T, base *Baseline, head *Run) *Comparison {
	t.Helper()
	o := DefaultOptions()
	o.AllowMissingRuns = true
	c, err := Compare(base, head, o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func checkTest(t *testing.T, name string, got Test, matched int, p float64, inFamily bool, adj float64, out Outcome, note string) {
	t.Helper()
	if got.Matched != matched || !near(got.P, p, 1e-12) || got.InFamily != inFamily || (inFamily && !near(got.AdjustedP, adj, 1e-12)) ||
		got.Outcome != out || got.Note != note {
		t.Errorf("%s: matched %d p %.17g in family %v adjusted %.17g outcome %s note %q\nwant %d %.17g %v %.17g %s %q",
			name, got.Matched, got.P, got.InFamily, got.AdjustedP, got.Outcome, got.Note, matched, p, inFamily, adj, out, note)
	}
}

// TestCompareDegraded: ten new failures, coherence down by 0.042, κ down by 0.34; Holm keeps
// all three significant, so all three are degraded.
func TestCompareDegraded(t *testing.T) {
	baseFinals := append([]string{agreement.Valid, agreement.NotInContext, agreement.Reject, agreement.Abstain, agreement.Reject}, twelve(agreement.Valid)[5:]...)
	headFinals := append([]string{agreement.Reject, agreement.Reject, agreement.Valid, agreement.Reject, agreement.Reject}, twelve(agreement.Valid)[5:]...)
	base := &Baseline{Name: "b.json", Run: Run{Profile: profile.Default, Source: Source{SHA: "abc"},
		Reliability: traces("PPPPPPPPPPPPP", constant(0.1), "r00"),
		Coherence:   tasks(rcsBase, "t"),
		Agreement:   agree(0.8, 0.05, true, baseFinals...)}}
	// base r00..r12 all PASS (r00 removed in head); head r01..r10 FAIL, r11 WARN, r12 PASS, r13 added.
	headScores := func(i int) float64 {
		return []float64{0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.5, 0.1, 0.3}[i]
	}
	head := &Run{Profile: profile.Default,
		Reliability: traces("FFFFFFFFFFWPP", headScores),
		Coherence:   tasks(rcsWorse, "t"),
		Agreement:   agree(0.45652173913043476, 0.16, true, headFinals...)}
	// base ids: r00 then r02..r13 as generated (the first id given); rename to r00, r01..r12.
	for i := range base.Reliability.Traces[1:] {
		base.Reliability.Traces[i+1].ID = fmt.Sprintf("r%02d", i+1)
	}
	head.Reliability.Traces[12].ID = "r13"

	// Counted (the default), the missing r00, PASS in the baseline, is an eleventh new
	// failure: McNemar (11, 0) = 2·2^−11, Holm over [2^−10, 0.000310836…, 0.0404602…] gives
	// it max(3·0.000310836…, 2·2^−10) = 2^−9.
	c := mustCompare(t, base, head)
	if r := c.Reliability; r.NewFailures != 11 || r.MissingNewFailures != 1 || r.Matched != 12 || r.Compared != 13 ||
		r.BaseFail != 0 || r.HeadFail != 11 || r.HeadRuns != 14 || r.P != 0.0009765625 || r.AdjustedP != 0.001953125 || r.Outcome != Degraded ||
		len(r.NewFailureTraces) != 10 || !reflect.DeepEqual(r.Removed.First, []string{"r00"}) {
		t.Errorf("missing run counted: %+v", r)
	}
	if c.AllowMissingRuns || len(c.Notes) != 0 {
		t.Errorf("allow %v notes %q", c.AllowMissingRuns, c.Notes)
	}

	// With allow-missing-runs, the test is over the matched traces alone.
	c = mustCompareAllowing(t, base, head)
	if c.Base.SHA != "abc" || c.Alpha != 0.05 || !c.AllowMissingRuns || !reflect.DeepEqual(c.Notes, []string{
		"allow-missing-runs: 1 of the baseline's runs are not in this run and were left out of the comparison, not counted as failures"}) {
		t.Errorf("base %+v alpha %v notes %q", c.Base, c.Alpha, c.Notes)
	}
	r := c.Reliability
	checkTest(t, "reliability", r.Test, 12, 0.001953125, true, 0.00390625, Degraded, "")
	if r.Table != [3][3]int{{1, 1, 10}, {0, 0, 0}, {0, 0, 0}} || r.NewFailures != 10 || r.Fixed != 0 || r.BaseFail != 0 || r.HeadFail != 10 {
		t.Errorf("table %v new %d fixed %d fail %d/%d", r.Table, r.NewFailures, r.Fixed, r.BaseFail, r.HeadFail)
	}
	if !near(r.MeanScoreChange, 7.4/12, 1e-12) || !near(r.BaseMeanScore, 0.1, 1e-12) || !near(r.HeadMeanScore, 8.6/12, 1e-12) {
		t.Errorf("scores %v %v %v", r.BaseMeanScore, r.HeadMeanScore, r.MeanScoreChange)
	}
	if r.Added.Count != 1 || !reflect.DeepEqual(r.Added.First, []string{"r13"}) || r.Removed.Count != 1 || !reflect.DeepEqual(r.Removed.First, []string{"r00"}) {
		t.Errorf("added %+v removed %+v", r.Added, r.Removed)
	}
	if len(r.NewFailureTraces) != 10 || r.NewFailureTraces[0].Head.ID != "r01" || r.NewFailureTraces[9].Head.ID != "r10" ||
		r.NewFailureTraces[0].Base.Verdict != verdict.Pass || len(r.FixedTraces) != 0 {
		t.Errorf("new failure traces %+v", r.NewFailureTraces)
	}

	h := c.Coherence
	checkTest(t, "coherence", h.Test, 12, 0.00031083626378070717366, true, 0.0009325087913421215, Degraded, "")
	if !near(h.MeanChange, -0.041750000000000010482, 1e-12) || !near(h.CI[0], -0.059540609104463579486, 1e-12) ||
		!near(h.CI[1], -0.023959390895536441479, 1e-12) || !h.CIDefined || h.DF != 11 || !near(h.T, -5.1651480786439724238, 1e-12) {
		t.Errorf("coherence %+v", h)
	}

	a := c.Agreement
	checkTest(t, "agreement", a.Test, 12, 0.04046020640336328, true, 0.04046020640336328, Degraded, "")
	if !near(a.Z, -2.0490195180643305, 1e-12) || !near(a.DeltaKappa, 0.45652173913043476-0.8, 1e-15) || !a.KappaDefined || a.DeltaPA != 0 {
		t.Errorf("agreement %+v", a)
	}
	if !reflect.DeepEqual(a.ShippedToRejected, []string{"q01", "q02"}) || !reflect.DeepEqual(a.RejectedToShipped, []string{"q03"}) {
		t.Errorf("flips %v %v", a.ShippedToRejected, a.RejectedToShipped)
	}
	if got := strings.Join(c.Degraded(), ","); got != "reliability,coherence,agreement" {
		t.Errorf("degraded %q", got)
	}

	// The same with the mixed coherence run and κ up by 0.1: only reliability is significant.
	head.Coherence = tasks(rcsMixed, "t")
	head.Agreement = agree(0.7, 0.04, true, headFinals...)
	base.Agreement = agree(0.6, 0.05, true, baseFinals...)
	c = mustCompareAllowing(t, base, head)
	checkTest(t, "reliability", c.Reliability.Test, 12, 0.001953125, true, 0.005859375, Degraded, "")
	checkTest(t, "coherence", c.Coherence.Test, 12, 0.72823594940749325914, true, 0.7282359494074933, Unchanged, "")
	checkTest(t, "agreement", c.Agreement.Test, 12, 0.1183498127356284, true, 0.2366996254712568, Unchanged, "")
	if got := strings.Join(c.Degraded(), ","); got != "reliability" {
		t.Errorf("degraded %q", got)
	}

	// The other way round, the new failures are fixed traces: improved.
	c = mustCompareAllowing(t, &Baseline{Name: "h", Run: *head}, &base.Run)
	if r := c.Reliability; r.Fixed != 10 || r.NewFailures != 0 || r.Outcome != Improved || len(r.FixedTraces) != 10 || r.FixedTraces[0].Base.Verdict != verdict.Fail {
		t.Errorf("reversed: %+v", r.Test)
	}
	if c.Degraded() != nil {
		t.Errorf("reversed: degraded %v", c.Degraded())
	}
}

// TestCompareIdentical: a run against itself changes nothing, and every p is 1.
func TestCompareIdentical(t *testing.T) {
	run := Run{Profile: profile.Default,
		Reliability: traces("PPWFPPWFPPWF", func(i int) float64 { return float64(i) / 12 }),
		Coherence:   tasks(rcsBase, "t"),
		Agreement:   agree(0.6, 0.05, true, twelve(agreement.Valid)...),
		Trials:      []Trial{{Task: "a", Trial: "0", Verdict: verdict.Pass}, {Task: "a", Trial: "1", Verdict: verdict.Fail}}}
	c := mustCompare(t, &Baseline{Run: run}, &run)
	checkTest(t, "reliability", c.Reliability.Test, 12, 1, true, 1, Unchanged, "")
	checkTest(t, "coherence", c.Coherence.Test, 12, 1, true, 1, Unchanged, "")
	checkTest(t, "agreement", c.Agreement.Test, 12, 1, true, 1, Unchanged, "")
	if r := c.Reliability; r.Table != [3][3]int{{6, 0, 0}, {0, 3, 0}, {0, 0, 3}} || r.MeanScoreChange != 0 {
		t.Errorf("reliability %+v", r)
	}
	if h := c.Coherence; h.MeanChange != 0 || h.SD != 0 || h.CI != [2]float64{0, 0} || !h.CIDefined {
		t.Errorf("coherence %+v", h)
	}
	if p := c.PassK; p == nil || len(p.Rows) != 2 || p.Rows[0] != (PassKRow{K: 1, Base: 0.5, HasBase: true, Head: 0.5, HasHead: true}) {
		t.Errorf("pass^k %+v", p)
	}
}

// TestCompareFewMatched: one matched task, all traces added or removed, κ undefined on a
// side: each metric is inconclusive and out of the Holm family.
func TestCompareFewMatched(t *testing.T) {
	var baseIDs, headIDs []string
	for i := range 25 {
		baseIDs = append(baseIDs, fmt.Sprintf("old-%02d", 24-i))
		headIDs = append(headIDs, fmt.Sprintf("new-%02d", i))
	}
	base := &Baseline{Run: Run{Profile: profile.Reference,
		Reliability: traces(strings.Repeat("F", 25), constant(0.9), baseIDs...),
		Coherence:   tasks([]float64{0.5}, "t"),
		Agreement:   agree(0.6, 0.05, true, twelve(agreement.Valid)...)}}
	head := &Run{Profile: profile.Reference,
		Reliability: traces(strings.Repeat("P", 25), constant(0.1), headIDs...),
		Coherence:   tasks([]float64{0.25, 0.5}, "t"),
		Agreement:   agree(0, 0, false, twelve(agreement.Valid)...)}
	// Counted, the 25 missing runs are 25 failures of head, as they were of the baseline: no
	// change (p 1), over 25 compared runs; head's 25 added passing runs are in its FAIL count's
	// denominator.
	c := mustCompare(t, base, head)
	if r := c.Reliability; r.Compared != 25 || r.Matched != 0 || r.NewFailures != 0 || r.P != 1 || r.Outcome != Unchanged ||
		r.BaseFail != 25 || r.HeadFail != 25 || r.HeadRuns != 50 || c.Matching.Missing != 25 || c.Matching.Added != 25 {
		t.Errorf("missing runs counted: %+v, matching %+v", r, c.Matching)
	}
	c = mustCompareAllowing(t, base, head)
	r := c.Reliability
	checkTest(t, "reliability", r.Test, 0, 1, false, 0, Inconclusive, "0 matched, fewer than 10")
	if r.Added.Count != 25 || len(r.Added.First) != 20 || r.Added.First[0] != "new-00" || r.Added.First[19] != "new-19" ||
		r.Removed.Count != 25 || r.Removed.First[0] != "old-00" || r.MeanScoreChange != 0 || r.NewFailures != 0 {
		t.Errorf("reliability %+v", r)
	}
	h := c.Coherence
	checkTest(t, "coherence", h.Test, 1, 0, false, 0, Inconclusive, "1 matched, fewer than 10; one matched task: no interval")
	if h.PDefined || h.CIDefined || h.MeanChange != -0.25 || h.Added.Count != 1 || h.Added.First[0] != "t02" {
		t.Errorf("coherence %+v", h)
	}
	a := c.Agreement
	checkTest(t, "agreement", a.Test, 12, 0, false, 0, Inconclusive, "κ is undefined in head")
	if a.KappaDefined || a.Z != 0 || a.DeltaKappa != 0 || a.BaseKappa != 0.6 || a.HeadKappa != 0 {
		t.Errorf("agreement %+v", a)
	}
	base.Agreement, head.Agreement = agree(0, 0, false, "VALID"), agree(0.5, 0.1, true, "VALID")
	if a := mustCompare(t, base, head).Agreement; a.Note != "1 matched, fewer than 10; κ is undefined in the baseline" {
		t.Errorf("note %q", a.Note)
	}
	head.Agreement = agree(0, 0, false, "VALID")
	if a := mustCompare(t, base, head).Agreement; a.Note != "1 matched, fewer than 10; κ is undefined on both sides" {
		t.Errorf("note %q", a.Note)
	}
}

// TestCompareFamily: a metric out of the family does not dilute the others' significance.
func TestCompareFamily(t *testing.T) {
	base := &Baseline{Run: Run{Profile: profile.Default,
		Reliability: traces("PPPPPPPPPPPP", constant(0.1)),
		Agreement:   agree(0, 0, false, twelve(agreement.Valid)...)}}
	head := &Run{Profile: profile.Default,
		Reliability: traces("FFFFFFPPPPPP", constant(0.1)), // six new failures: p = 2/64
		Agreement:   agree(0.5, 0.1, true, twelve(agreement.Valid)...)}
	c := mustCompare(t, base, head)
	checkTest(t, "reliability", c.Reliability.Test, 12, 0.03125, true, 0.03125, Degraded, "")
	if c.Agreement.InFamily || c.Agreement.Outcome != Inconclusive {
		t.Errorf("agreement %+v", c.Agreement.Test)
	}
}

func TestCompareNotes(t *testing.T) {
	base := &Baseline{Run: Run{Profile: profile.Default, Coherence: tasks(rcsBase, "t"), Agreement: agree(0.5, 0.1, true)}}
	head := &Run{Profile: profile.Default, Reliability: traces("P", constant(0)), Agreement: agree(0.5, 0.1, true)}
	c := mustCompare(t, base, head)
	want := []string{"reliability: not in the baseline, not compared", "coherence: in the baseline only, not compared"}
	if !reflect.DeepEqual(c.Notes, want) || c.Reliability != nil || c.Coherence != nil || c.Agreement == nil || c.PassK != nil {
		t.Errorf("notes %q", c.Notes)
	}
}

func TestCompareErrors(t *testing.T) {
	other := Run{Profile: profile.Default, Reliability: traces("P", constant(0))}
	var u *Unusable
	_, err := Compare(&Baseline{Name: "b.json", Run: Run{Profile: profile.Reference}}, &other, DefaultOptions())
	if !errors.As(err, &u) || !strings.Contains(u.Reason, `profile "reference"`) {
		t.Errorf("profile: %v", err)
	}
	for _, o := range []Options{{Alpha: 0, MinMatched: 10}, {Alpha: 1, MinMatched: 10}, {Alpha: 0.05, MinMatched: 0}} {
		if _, err := Compare(&Baseline{Run: other}, &other, o); err == nil || errors.As(err, &u) {
			t.Errorf("options %+v: %v", o, err)
		}
	}
}

// TestAgreementOf: the head's agreement summary is read through its items, unchanged.
func TestAgreementOf(t *testing.T) {
	s := &agreement.Summary{N: 2, PercentAgreement: 0.5, Kappa: 0.25, KappaDefined: true, KappaSE: 0.1,
		Items: agreement.ItemsOf([]agreement.Item{{QID: "q2", Final: agreement.Reject}, {QID: "q1", Final: agreement.Valid}})}
	a := AgreementOf(s)
	if a.N != 2 || a.Kappa != 0.25 || a.Finals.Len() != 2 {
		t.Fatalf("%+v", a)
	}
	if q, f := a.Finals.At(0); q != "q2" || f != agreement.Reject {
		t.Errorf("At(0) = %s %s", q, f)
	}
	if AgreementOf(nil) != nil {
		t.Error("AgreementOf(nil) must be nil")
	}
}

// withOutcomes gives the traces of s their outcomes: S succeeded, F failed, - no outcome;
// each used tokens tokens. It returns s.
func withOutcomes(s *reliability.Summary, runs string, tokens int64) *reliability.Summary {
	for i, c := range runs {
		s.Traces[i].Run = outcome.Run{Known: c != '-', Success: c == 'S', Value: map[rune]float64{'S': 1}[c], Tokens: tokens}
	}
	return s
}

// TestCompareSuccess: success by outcome is a member of the Holm family beside the verdicts.
// Seven runs that succeeded fail now and one is fixed: McNemar's exact p = 2·P[X ≤ 1] for
// X ~ Binomial(8, 1/2) = 2·9/256 = 0.0703125. The verdicts' six new failures (p = 2/64 =
// 0.03125) face Holm's α/2 = 0.025 and are no longer significant: both unchanged, adjusted p
// 2·0.03125 and max(0.0625, 0.0703125). Traces without an outcome on a side are not matched.
func TestCompareSuccess(t *testing.T) {
	base := &Baseline{Run: Run{Profile: profile.Default,
		Reliability: withOutcomes(traces("PPPPPPPPPPPP", constant(0.1)), "SSSSSSSFFFF-", 100)}}
	head := &Run{Profile: profile.Default,
		Reliability: withOutcomes(traces("FFFFFFPPPPPP", constant(0.1)), "FFFFFFFSFFF-", 200)}
	c := mustCompare(t, base, head)
	checkTest(t, "reliability", c.Reliability.Test, 12, 0.03125, true, 0.0625, Unchanged, "")
	s := c.Success
	if s == nil {
		t.Fatal("no success metric")
	}
	checkTest(t, "success", s.Test, 11, 0.0703125, true, 0.0703125, Unchanged, "")
	if s.NewFailures != 7 || s.Fixed != 1 || s.BaseSuccesses != 7 || s.HeadSuccesses != 1 ||
		!slices.Equal(s.NewFailureIDs, []string{"r01", "r02", "r03", "r04", "r05", "r06", "r07"}) || !slices.Equal(s.FixedIDs, []string{"r08"}) {
		t.Errorf("success %+v", s)
	}
	// Base: 11 runs with an outcome × 100 tokens over 7 successes; head: 11 × 200 over 1.
	if b, h := s.BaseTokensPerSuccess, s.HeadTokensPerSuccess; b == nil || h == nil || *b != 1100.0/7 || *h != 2200 {
		t.Errorf("tokens per success %v %v", b, h)
	}
	if got := c.Degraded(); len(got) != 0 {
		t.Errorf("degraded %v", got)
	}
	// The same change of outcomes alone (verdicts unchanged, p 1, still in the family): Holm
	// adjusts the smaller p to 2·0.0703125.
	head.Reliability = withOutcomes(traces("PPPPPPPPPPPP", constant(0.1)), "FFFFFFFSFFF-", 200)
	c = mustCompare(t, base, head)
	checkTest(t, "success alone", c.Success.Test, 11, 0.0703125, true, 0.140625, Unchanged, "")
	// Ten successes lost, none gained: p = 2·0.5¹⁰, adjusted 2·that; degraded, and named so.
	withOutcomes(base.Reliability, "SSSSSSSSSSFF", 100)
	withOutcomes(head.Reliability, "FFFFFFFFFFFF", 100)
	c = mustCompare(t, base, head)
	checkTest(t, "success degraded", c.Success.Test, 12, 0.001953125, true, 0.00390625, Degraded, "")
	if got := c.Degraded(); !slices.Equal(got, []string{"success"}) {
		t.Errorf("degraded %v", got)
	}
	if c.Success.HeadTokensPerSuccess != nil {
		t.Error("tokens per success with no success")
	}
	// Without outcomes in head, every baseline run with one is missing its outcome: it did not
	// report, so it did not pass, and its ten successes are lost as above (p = 2·0.5¹⁰), unless
	// allow-missing-runs leaves them out, when nothing is compared.
	withOutcomes(head.Reliability, "------------", 100)
	c = mustCompare(t, base, head)
	checkTest(t, "success without head outcomes", c.Success.Test, 0, 0.001953125, true, 0.00390625, Degraded, "")
	if s := c.Success; s.Compared != 12 || s.NewFailures != 10 || s.MissingNewFailures != 10 || s.Removed.Count != 12 {
		t.Errorf("success without head outcomes: %+v", s)
	}
	if s := mustCompareAllowing(t, base, head).Success; s.Compared != 0 || s.Outcome != Inconclusive || s.Removed.Count != 12 {
		t.Errorf("success without head outcomes, allowed: %+v", s)
	}
	// Without outcomes in the baseline there is no success metric.
	if c = mustCompare(t, &Baseline{Run: *head}, &base.Run); c.Success != nil {
		t.Errorf("success compared without baseline outcomes: %+v", c.Success)
	}
}
