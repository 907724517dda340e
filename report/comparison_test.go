package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/agreement"
	"github.com/agentgate/agentgate/gate/compare"
	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/verdict"
	"github.com/agentgate/agentgate/internal/jsonreport"
)

// rcsWorse is failingResult's coherence after a change that lowered most tasks a little (the
// "worse" run of gate/compare's tests, whose paired t test is checked against scipy there).
var rcsWorse = []float64{0.85, 0.10, 0.50, 0.0, 0.30, 0.80, 0.15, 0.60, 0.06, 0.40, 0.70, 0.25}

// readBaseline reads testdata/fail.json, the JSON report of failingResult, as a baseline
// written by a push to main.
func readBaseline(t testing.TB) *compare.Baseline {
	t.Helper()
	f, err := os.Open("testdata/fail.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	base, err := jsonreport.ReadBaseline(f, "fail.json")
	if err != nil {
		t.Fatal(err)
	}
	base.Source = compare.Source{SHA: "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d", Ref: "refs/heads/main", RunID: "9876543210", RunAttempt: "1", Version: "v1.4.0"}
	return base
}

// headRun is what the gate hands compare.Compare for r (gate.Result.compareWith's Run).
func headRun(r *gate.Result) *compare.Run {
	return &compare.Run{Profile: r.Profile, Source: r.Source.Source, Reliability: r.Reliability, Coherence: r.Coherence,
		Agreement: compare.AgreementOf(r.Agreement), Trials: trialsOf(r.Reliability)}
}

// trialsOf lists the traces that name their task and trial, as package gate does.
func trialsOf(s *reliability.Summary) []compare.Trial {
	if s == nil {
		return nil
	}
	var out []compare.Trial
	for _, t := range s.Traces {
		if a := t.Attempt; a != nil && a.Task != "" && a.Trial != nil {
			out = append(out, compare.Trial{Task: a.Task, Trial: fmt.Sprint(*a.Trial), Verdict: t.Verdict})
		}
	}
	return out
}

// comparedResult is failingResult after a change, compared with failingResult's JSON report
// as the baseline: five traces are newly FAIL (one with hostile evidence), the hostile trace
// is fixed, one trace is added and one removed; every task's RCS moved (coherence degraded);
// κ fell from 0.4565 to 0.30 (not significant); two qids' FINAL flipped. max-new-failures is
// 3, so both comparison gates are breached.
func comparedResult(t testing.TB) *gate.Result {
	t.Helper()
	r := failingResult()
	rel := &reliability.Summary{}
	for _, tr := range r.Reliability.Traces {
		switch tr.ID {
		case "search-012":
			continue // removed
		case evilID:
			tr.Verdict, tr.Score = verdict.Pass, 0.1 // fixed
		case "search-044":
			tr.Verdict, tr.Score = verdict.Fail, 0.7 // WARN → FAIL
		case "checkout-001", "checkout-002", "checkout-004", "checkout-005":
			tr.Verdict, tr.Score = verdict.Fail, 0.55
			tr.Signals = reliability.Signals{reliability.Loop: 0.9, reliability.Cost: 0.4}
			tr.Evidence = []reliability.Evidence{{Signal: "loop", Text: "`get_cart` called 7 times with identical arguments", Messages: []int{2, 4, 6}}}
			if tr.ID == "checkout-002" {
				tr.Evidence[0].Text = "loop <img src=x onerror=alert(1)> x|y @octocat see #7 https://evil.example/x"
			}
		}
		rel.Add(tr)
	}
	rel.Add(passTrace(7)) // added: checkout-007
	r.Reliability = rel
	for i := range r.Coherence.Tasks {
		r.Coherence.Tasks[i].RCS = rcsWorse[i]
	}
	sum := 0.0
	for _, v := range rcsWorse {
		sum += v
	}
	r.Coherence.Mean = sum / float64(len(rcsWorse))
	r.Agreement.Kappa, r.Agreement.KappaSE = 0.30, 0.17
	r.Agreement.KappaCI = [2]float64{0.30 - 1.959963984540054*0.17, 0.30 + 1.959963984540054*0.17}
	r.Agreement.Warnings = nil
	var list []agreement.Item
	for i := range r.Agreement.Items.Len() {
		it := r.Agreement.Items.At(i)
		switch it.QID {
		case "q-001":
			it.Final, it.Why = "REJECT", "auditor_veto"
		case "q-007":
			it.Final, it.Why = "VALID", "auditor_ok"
		}
		list = append(list, it)
	}
	r.Agreement.Items = agreement.ItemsOf(list)
	r.PassK = compare.PassKOf(trialsOf(r.Reliability))
	c, err := compare.Compare(readBaseline(t), headRun(r), compare.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	r.Comparison = c
	th := gate.DefaultThresholds()
	th.Compare.MaxNewFailures = 3
	r.Decide(th, gate.FailOnFail)
	return r
}

// trialTrace is a trace of trial n of task.
func trialTrace(task string, n int, v verdict.Verdict) reliability.Result {
	score := 0.05
	if v == verdict.Fail {
		score = 0.8
	}
	return reliability.Result{ID: fmt.Sprintf("%s/trial-%d", task, n), File: "evals/trials.jsonl", Verdict: v, Score: score,
		Signals: reliability.Signals{reliability.Loop: score}, Attempt: &reliability.Attempt{Task: task, Trial: &n}}
}

// trialsResult is a run of four tasks (the last two with hostile ids) tried three times each;
// verdicts[i] are task i's trials, P for PASS and F for FAIL.
func trialsResult(verdicts ...string) *gate.Result {
	r := &gate.Result{Profile: profile.Default}
	rel := &reliability.Summary{}
	tasks := []string{"airline-01", "airline-02", "retail@team-3", "retail|<b>4</b>"}
	for i, vs := range verdicts {
		for n, c := range vs {
			v := verdict.Pass
			if c == 'F' {
				v = verdict.Fail
			}
			rel.Add(trialTrace(tasks[i], n, v))
		}
	}
	r.Reliability = rel
	r.PassK = compare.PassKOf(trialsOf(rel))
	return r
}

// trialsComparedResult is trialsResult held against an earlier run of the same tasks, read
// back from that run's JSON report, with pass-k-min 0.5 at k = 2.
func trialsComparedResult(t testing.TB) *gate.Result {
	t.Helper()
	th := gate.DefaultThresholds()
	th.MaxFailedTraces = 10
	th.Compare.PassKMin, th.Compare.PassK = 0.5, 2
	before := trialsResult("PPP", "PPP", "PPF", "PPPP")
	before.Decide(th, gate.FailOnFail)
	var b bytes.Buffer
	if err := jsonreport.Write(&b, before); err != nil {
		t.Fatal(err)
	}
	base, err := jsonreport.ReadBaseline(&b, "agentgate-report/report.json")
	if err != nil {
		t.Fatal(err)
	}
	base.Source = compare.Source{SHA: "0badc0ffee", Ref: "refs/heads/release/2.x"}
	r := trialsResult("PPP", "PFP", "FFP", "PPPF")
	c, err := compare.Compare(base, headRun(r), compare.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	r.Comparison = c
	r.Decide(th, gate.FailOnFail)
	return r
}

func TestComparisonGolden(t *testing.T) {
	th := gate.DefaultThresholds()
	th.MaxFailedTraces = 10
	passk := trialsResult("PPP", "PFP", "FFP", "PPPF")
	passk.Decide(th, gate.FailOnFail)
	for _, c := range []struct {
		name string
		r    *gate.Result
	}{
		{"compare", comparedResult(t)},
		{"compare-trials", trialsComparedResult(t)},
		{"passk", passk},
	} {
		t.Run(c.name, func(t *testing.T) {
			md := Markdown(c.r, Options{Reproduce: "agentgate gate --traces 'evals/*.jsonl' --baseline auto"})
			checkStructure(t, md)
			golden(t, c.name+".md", md)
			if again := Markdown(c.r, Options{Reproduce: "agentgate gate --traces 'evals/*.jsonl' --baseline auto"}); again != md {
				t.Errorf("second rendering differs")
			}
			var b strings.Builder
			if err := Text(&b, c.r); err != nil {
				t.Fatal(err)
			}
			golden(t, c.name+".txt", b.String())
			for _, bad := range []string{"| ", "|:-", "**", "##", "<details>", "\\`", "&lt;"} {
				if strings.Contains(b.String(), bad) {
					t.Errorf("terminal summary holds markdown %q", bad)
				}
			}
		})
	}
}

// The figures shown are the comparison's, and match those worked out by hand.
func TestComparisonFigures(t *testing.T) {
	r := comparedResult(t)
	c := r.Comparison
	rc, cc, ac := c.Reliability, c.Coherence, c.Agreement
	// Reliability: 11 matched traces (search-012 missing, checkout-007 added); FAIL in the
	// baseline: refund-017, refund-003 and the hostile trace; now refund-017, refund-003,
	// search-044 and checkout-001/002/004/005, and search-012, PASS in the baseline and
	// missing now, counted as FAIL: a sixth new failure. McNemar with b = 6, c = 1:
	// p = 2·P[X ≤ 1], X ~ Bin(7, 1/2) = 2·(1 + 7)/128 = 0.125.
	if rc.Matched != 11 || rc.Compared != 12 || rc.BaseFail != 3 || rc.HeadFail != 8 || rc.HeadRuns != 13 || rc.NewFailures != 6 || rc.MissingNewFailures != 1 ||
		rc.Fixed != 1 || math.Abs(rc.P-0.125) > 1e-15 {
		t.Fatalf("reliability: %+v", rc.Test)
	}
	// Coherence: the differences sum to −0.501 over 12 tasks.
	if cc.Matched != 12 || math.Abs(cc.MeanChange-(-0.501/12)) > 1e-12 || cc.Outcome != compare.Degraded {
		t.Fatalf("coherence: mean change %v, outcome %s", cc.MeanChange, cc.Outcome)
	}
	// Agreement: Δκ = 0.30 − 0.45652173913043476; z = Δκ/√(0.17² + 0.16²).
	dk := 0.30 - 0.45652173913043476
	if math.Abs(ac.DeltaKappa-dk) > 1e-15 || math.Abs(ac.Z-dk/math.Sqrt(0.17*0.17+0.16*0.16)) > 1e-12 {
		t.Fatalf("agreement: Δκ %v, z %v", ac.DeltaKappa, ac.Z)
	}
	// Holm over three p-values: coherence's is the smallest, times 3.
	if math.Abs(cc.AdjustedP-3*cc.P) > 1e-15 || math.Abs(rc.AdjustedP-2*rc.P) > 1e-15 {
		t.Fatalf("Holm: coherence %v of %v, reliability %v of %v", cc.AdjustedP, cc.P, rc.AdjustedP, rc.P)
	}

	md := Markdown(r, Options{})
	checkStructure(t, md)
	for _, want := range []string{
		"\n### ❌ Compared with `main` @ `1a2b3c4` (run `9876543210`)\n",
		"| reliability: FAIL verdicts (11 matched traces, 1 missing, 1 added) | 3 of 12 | 8 of 13 | 6 new FAIL verdicts (1 missing), 1 fixed; mean score " + signed(rc.MeanScoreChange) + " | McNemar p " + num(rc.P) + " (Holm " + num(rc.AdjustedP) + ") | ⚠️ worse, not significant |",
		"| coherence: mean RCS (12 matched tasks) | " + num(cc.BaseMean) + " | " + num(cc.HeadMean) + " | " + num(cc.MeanChange) + " | 95% CI [" + num(cc.CI[0]) + ", " + num(cc.CI[1]) + "]; p 0.0003 (Holm 0.0009) | ❌ degraded |",
		"| agreement: κ (13 matched qids) | 0.4565 | 0.3000 | Δκ -0.1565; PA 0.0000 | p " + num(ac.P) + " | ⚠️ worse, not significant |",
		// What each could detect, worked out independently (scipy, statsmodels): coherence's
		// p is the smallest and faces α/3; once it is rejected the others face α/2. McNemar at
		// 0.025 takes 7 new failures (2·2⁻⁷ = 0.0156; 2·2⁻⁶ = 0.031 > 0.025). The paired t
		// at n = 12, α/3, sd 0.028000405841214646: 0.0301823 (see TestJSONComparisonPower). κ's z at 0.025 with
		// SE √(0.17² + 0.16²) = 0.2335: (z(0.0125) + z(0.2))·0.2335 = 0.7197391906887013.
		"\n- reliability: with 12 compared runs (11 matched, the missing counted as failures), 7 or more new FAIL verdicts with none fixed would be significant (exact McNemar, Holm threshold 0.0250)\n" +
			"- coherence: with 12 matched tasks, a mean RCS change of 0.0302 either way would be detected with 80% power (paired t at the observed sd 0.0280, Holm threshold 0.0167)\n" +
			"- agreement: a change in κ of 0.7197 either way would be detected with 80% power (z-test at κ's standard errors, combined 0.2335; Holm threshold 0.0250)\n",
		"\n**5 new FAIL verdicts** (verdict FAIL now, not FAIL in the baseline)",
		"\n**1 missing run counted as a new FAIL verdict** (not FAIL in the baseline, missing now: a run that did not report did not pass); they are listed below.\n",
		"\n**1 trace no longer FAIL** (verdict FAIL in the baseline, not now)",
		"\n**2 FINAL flips** of matched qids (shipped: VALID or NOT_IN_CONTEXT): 1 shipped → REJECT, 1 REJECT → shipped:\n",
		"\n- reliability: 1 run of the baseline missing in this run, counted as FAIL (`search-012`); 1 run only in this run, in its rate (`checkout-007`)\n",
		"\n### Gates\n",
	} {
		if !strings.Contains(squeeze(md), squeeze(want)) {
			t.Errorf("report lacks %q", want)
		}
	}
	if got := rowCells(md, "q-001"); len(got) != 2 || got[1] != "shipped → **REJECT**" {
		t.Errorf("q-001 flip: %q", got)
	}
	// The comparison sits right under the verdict line, before the gate table.
	if i, j := strings.Index(md, "Compared with"), strings.Index(md, "| gate "); i < 0 || j < i || strings.Count(md[:i], "\n") != 3 {
		t.Errorf("the comparison is not right under the verdict line")
	}
	if !strings.HasPrefix(md, "## ❌ agentgate: FAIL, check failing\n5 gates breached: mean coherence (RCS) 0.3925 < 0.50; κ 0.3000 < 0.75; 7 traces failed (max 0); mean coherence (RCS) fell from 0.4342 to 0.3925 over 12 matched tasks, significant (paired t p 0.0003, Holm 0.0009); 6 new FAIL verdicts against the baseline (max 3).\n") {
		t.Errorf("head:\n%s", md[:400])
	}
	var b strings.Builder
	Text(&b, r)
	for _, want := range []string{
		"Compared with main @ 1a2b3c4 (run 9876543210):\n",
		// The markdown table's rows in the same words, the outcome second (padding squeezed).
		"\n reliability: FAIL verdicts (11 matched traces, 1 missing, 1 added) worse, not significant 3 of 12 → 8 of 13 6 new FAIL verdicts (1 missing), 1 fixed; mean score +0.1427 McNemar p 0.1250 (Holm 0.2500)\n",
		"\n coherence: mean RCS (12 matched tasks) degraded " + num(cc.BaseMean) + " → " + num(cc.HeadMean) + " -0.0418 95% CI [" + num(cc.CI[0]) + ", " + num(cc.CI[1]) + "]; p 0.0003 (Holm 0.0009)\n",
		"\n agreement: κ (13 matched qids) worse, not significant 0.4565 → 0.3000 Δκ -0.1565; PA 0.0000 p 0.5026\n",
		"\n reliability: with 12 compared runs (11 matched, the missing counted as failures), 7 or more new FAIL verdicts with none fixed would be significant (exact McNemar, Holm threshold 0.0250)\n",
	} {
		if !strings.Contains(squeeze(b.String()), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
}

var spaces = regexp.MustCompile(` {2,}`)

// squeeze collapses the padding of table cells.
func squeeze(s string) string { return spaces.ReplaceAllString(s, " ") }

// pass^k side by side: the figures worked out by hand from the trials' verdicts.
func TestComparisonPassKFigures(t *testing.T) {
	r := trialsComparedResult(t)
	// Head: PPP, PFP, FFP, PPPF. pass^1 = (1 + 2/3 + 1/3 + 3/4)/4 = 0.6875; pass^2 = (1 + 1/3 + 0
	// + 3/6)/4 = 0.458333…; pass^3 = (1 + 0 + 0 + 1/4)/4 = 0.3125. Base: PPP, PPP, PPF, PPPP.
	// pass^2 = (1 + 1 + 1/3 + 1)/4 = 0.833333…. McNemar with 4 new failures and 1 fixed:
	// 2·(1 + 5)/32 = 0.375.
	want := []struct{ base, head float64 }{{(3 + 2.0/3) / 4, 0.6875}, {(3 + 1.0/3) / 4, (1 + 1.0/3 + 0.5) / 4}, {0.75, 0.3125}}
	rows := r.Comparison.PassK.Rows
	if len(rows) != 3 {
		t.Fatalf("rows: %+v", rows)
	}
	for i, w := range want {
		if math.Abs(rows[i].Base-w.base) > 1e-15 || math.Abs(rows[i].Head-w.head) > 1e-15 {
			t.Errorf("pass^%d: %v, %v; want %v, %v", i+1, rows[i].Base, rows[i].Head, w.base, w.head)
		}
	}
	if p := r.Comparison.Reliability.P; math.Abs(p-0.375) > 1e-15 {
		t.Errorf("McNemar p %v", p)
	}
	md := squeeze(Markdown(r, Options{}))
	for _, want := range []string{"| pass^2 | 0.8333 | 0.4583 | -0.3750 |", "| pass^3 | 0.7500 | 0.3125 | -0.4375 |", "McNemar p 0.3750 |",
		"pass^1 0.6875, pass^2 0.4583, pass^3 0.3125.", "\nPass^2 0.4583 < 0.50: pass-k-min breached.\n"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// Untrusted text in the comparison (ids, evidence, the baseline's ref and sha) is escaped.
func TestComparisonEscapes(t *testing.T) {
	r := comparedResult(t)
	r.Comparison.Base.Ref = "refs/heads/x`y\n<img src=x>@octocat"
	r.Comparison.Base.SHA = "`@team"
	r.Comparison.Base.RunID = "1 <b>@u</b>"
	r.Comparison.Notes = append(r.Comparison.Notes, "note <script>@octocat")
	md := Markdown(r, Options{})
	checkStructure(t, md)
	for _, bad := range []string{"<img", "<script", "<b>", "@octocat", "@team", "@u", "https://evil"} {
		// Inside a code span nothing renders or pings: the ref may hold them there.
		rest := outsideCodeSpans(md)
		if strings.Contains(rest, bad) {
			t.Errorf("report holds unescaped %q outside code spans", bad)
		}
	}
	if !strings.Contains(md, "### ❌ Compared with x\\`y &lt;img src=x&gt;@\u200boctocat @ \\`@\u200bteam (run `1 <b>@u</b>`)\n") {
		t.Errorf("heading:\n%s", md[:600])
	}
	if got := rowCells(md, "checkout-002"); len(got) != 6 || got[5] != "loop &lt;img src=x onerror=alert(1)&gt; x\\|y @\u200boctocat see #\u200b7 https:\u200b//evil.example/x" {
		t.Errorf("checkout-002: %q", got)
	}
}

// Without a usable baseline, one line says why, right under the verdict line; with neither a
// baseline nor trials the report is what it was.
func TestBaselineNote(t *testing.T) {
	r := failingResult()
	r.BaselineNote = "no artifact named agentgate-report from branch <main> @octocat"
	r.Decide(gate.DefaultThresholds(), gate.FailOnFail)
	md := Markdown(r, Options{})
	checkStructure(t, md)
	lines := strings.Split(md, "\n")
	if lines[3] != "> ℹ️ Not compared with a baseline: no artifact named agentgate-report from branch &lt;main&gt; @\u200boctocat" || lines[4] != "" || !strings.HasPrefix(lines[5], "| gate") {
		t.Errorf("note lines:\n%s", strings.Join(lines[:6], "\n"))
	}
	if rowCells(md, "fail-on-regression")[3] != "⏭️ skipped" {
		t.Errorf("fail-on-regression not skipped: %q", rowCells(md, "fail-on-regression"))
	}
	var b strings.Builder
	Text(&b, r)
	if !strings.Contains(b.String(), "\nNot compared with a baseline: no artifact named agentgate-report from branch <main> @octocat\n") {
		t.Errorf("text:\n%s", b.String())
	}
	if strings.Contains(Markdown(failingResult(), Options{}), "baseline") {
		t.Errorf("a run without a baseline mentions one")
	}
}

// A baseline without ref or sha (a file written outside Actions) is named in words.
func TestBaseName(t *testing.T) {
	for _, c := range []struct {
		src  compare.Source
		want string
	}{
		{compare.Source{}, "the baseline report"},
		{compare.Source{Ref: "refs/heads/main"}, "`main`"},
		{compare.Source{SHA: "abcdef0123"}, "`abcdef0`"},
		{compare.Source{SHA: " \n ", Ref: "\t"}, "the baseline report"},
		{compare.Source{SHA: "abc", Ref: "refs/pull/12/merge"}, "`refs/pull/12/merge` @ `abc`"},
	} {
		if got := baseName(c.src, refText); got != c.want {
			t.Errorf("%+v: %q, want %q", c.src, got, c.want)
		}
	}
	r := comparedResult(t)
	r.Comparison.Base = compare.Source{}
	if md := Markdown(r, Options{}); !strings.Contains(md, "\n### ❌ Compared with the baseline report\n") {
		t.Errorf("no source:\n%s", md[:500])
	}
}

// Many flaky tasks are listed up to a bound, and many k up to a bound.
func TestPassKBounds(t *testing.T) {
	var tr []compare.Trial
	for i := range 45 {
		for n := range 30 {
			v := verdict.Pass
			if n == i%30 {
				v = verdict.Fail
			}
			tr = append(tr, compare.Trial{Task: fmt.Sprintf("task-%02d", i), Trial: fmt.Sprint(n), Verdict: v})
		}
	}
	r := &gate.Result{PassK: compare.PassKOf(tr)}
	r.Decide(gate.DefaultThresholds(), gate.FailOnFail)
	md := Markdown(r, Options{})
	checkStructure(t, md)
	if !strings.Contains(md, "**45 flaky tasks** (passed some trials, failed others): `task-00`, `task-01`,") || !strings.Contains(md, "`task-19` and 25 more.\n") {
		t.Errorf("flaky list:\n%s", md)
	}
	if !strings.Contains(md, "pass^9 "+num(r.PassK.Values[8])+", …, pass^30 0.0000. Every k is in the JSON report.") {
		t.Errorf("pass^k list:\n%s", md)
	}
	var b strings.Builder
	Text(&b, r)
	if !strings.Contains(b.String(), "task-09 and 35 more\n") {
		t.Errorf("text flaky list:\n%s", b.String())
	}
}

// newFailRow matches the verdict cell of a new failure's row.
var newFailRow = regexp.MustCompile("\\| ✅\u00a0PASS → ❌\u00a0FAIL +\\|")

// 5,000 new failures: the comment stays under its limit and well-formed, the lists are cut
// with a note, and the fit is the one that builds every row.
func TestComparisonManyNewFailures(t *testing.T) {
	const n = 5000
	mk := func(failing bool) *gate.Result {
		r := &gate.Result{Profile: profile.Default}
		rel := &reliability.Summary{}
		for i := range n {
			tr := reliability.Result{ID: fmt.Sprintf("suite/run-%05d", i), File: "evals/big.jsonl", Line: i + 1, Verdict: verdict.Pass, Score: 0.1}
			if failing {
				tr.Verdict, tr.Score, tr.Signals = verdict.Fail, 0.9, reliability.Signals{reliability.Loop: 0.9}
				tr.Evidence = []reliability.Evidence{{Signal: "loop", Text: fmt.Sprintf("`search` called %d times with identical arguments <and more> @octocat", 5+i%40)}}
			}
			rel.Add(tr)
		}
		r.Reliability = rel
		return r
	}
	before := mk(false)
	before.Decide(gate.DefaultThresholds(), gate.FailOnFail)
	var b bytes.Buffer
	if err := jsonreport.Write(&b, before); err != nil {
		t.Fatal(err)
	}
	base, err := jsonreport.ReadBaseline(&b, "report.json")
	if err != nil {
		t.Fatal(err)
	}
	r := mk(true)
	if r.Comparison, err = compare.Compare(base, headRun(r), compare.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	r.Decide(gate.DefaultThresholds(), gate.FailOnFail)
	if r.Comparison.Reliability.NewFailures != n {
		t.Fatalf("%d new failures", r.Comparison.Reliability.NewFailures)
	}
	for _, limit := range []int{CommentMaxBytes, SummaryMaxBytes} {
		o := Options{MaxBytes: limit}
		md := Markdown(r, o)
		if len(md) > limit {
			t.Fatalf("%d bytes, limit %d", len(md), limit)
		}
		if len(md) < limit*9/10 {
			t.Errorf("%d bytes: the cut wastes more than 10%% of %d", len(md), limit)
		}
		checkStructure(t, md)
		m := regexp.MustCompile(`\n… ([0-9,]+) more new FAIL verdicts not shown: see the JSON report`).FindStringSubmatch(md)
		if m == nil {
			t.Fatalf("limit %d: no cut note for new failures", limit)
		}
		shown := len(newFailRow.FindAllString(md, -1))
		if m[1] != count(n-shown) {
			t.Errorf("note says %s more, %d shown", m[1], shown)
		}
		if strings.Contains(md, "@octocat") || strings.Contains(md, "<and") {
			t.Errorf("unescaped evidence")
		}
		if want := referenceFit(newDoc(r, o), limit); md != want {
			t.Errorf("limit %d: the report differs from the one built from every row", limit)
		}
	}
	if md := Markdown(r, Options{MaxBytes: -1}); len(newFailRow.FindAllString(md, -1)) != n {
		t.Errorf("unlimited report cut new failures")
	}
	// Too small for the lists: the compact report keeps the comparison's table.
	md := Markdown(r, Options{MaxBytes: 1500})
	if len(md) > 1500 || !strings.Contains(md, "| reliability: FAIL verdicts (5,000 matched traces) |") || !strings.Contains(md, "The rest of the report does not fit here") {
		t.Errorf("compact report (%d bytes):\n%s", len(md), md)
	}
	checkStructure(t, md)
}

// The JSON report carries pass_k, comparison and baseline_note in struct order, without
// null lists, the same bytes as encoding/json and the same bytes each time.
func TestJSONComparison(t *testing.T) {
	r := comparedResult(t)
	r.BaselineNote = "unused note"
	r.Reliability.Traces[0].Evidence = nil
	r.Comparison.Reliability.NewFailureTraces[0].Base.Evidence = nil
	r.Comparison.Reliability.NewFailureTraces[0].Head.Evidence[0].Messages = nil
	r.PassK = compare.PassKOf([]compare.Trial{{Task: "a", Trial: "1", Verdict: verdict.Pass}})
	var a, b bytes.Buffer
	if err := jsonreport.Write(&a, r); err != nil {
		t.Fatal(err)
	}
	if err := jsonreport.Write(&b, r); err != nil {
		t.Fatal(err)
	}
	s := a.String()
	if s != b.String() {
		t.Errorf("two writes differ")
	}
	if s != wholeJSON(t, r) {
		t.Errorf("streamed JSON differs from the whole encoding")
	}
	last := 0
	for _, key := range []string{"\n  \"agreement\": {", "\n  \"pass_k\": {", "\n  \"comparison\": {", "\n  \"baseline_note\": \"unused note\"\n}"} {
		i := strings.Index(s, key)
		if i < last {
			t.Errorf("%q missing or out of order", key)
		}
		last = i
	}
	if strings.Contains(s, "null") {
		t.Errorf("JSON holds null")
	}
	if r.Comparison.Reliability.NewFailureTraces[0].Base.Evidence != nil {
		t.Errorf("JSON modified its input")
	}
}

// The JSON report gives each metric its direction, p, Holm-adjusted p and what it could
// detect (docs/design.md#honest-words), beside the outcome of docs/design.md#comparison.
func TestJSONComparisonPower(t *testing.T) {
	var b bytes.Buffer
	if err := jsonreport.Write(&b, comparedResult(t)); err != nil {
		t.Fatal(err)
	}
	type power struct {
		Threshold  float64 `json:"threshold"`
		Method     string  `json:"method"`
		MinEffect  float64 `json:"min_effect"`
		Power      float64 `json:"power"`
		Detectable bool    `json:"detectable"`
		SD         float64 `json:"sd"`
		SE         float64 `json:"se"`
	}
	type metric struct {
		Outcome   string  `json:"outcome"`
		Direction string  `json:"direction"`
		P         float64 `json:"p"`
		PHolm     float64 `json:"p_holm"`
		Power     power   `json:"power"`
	}
	var doc struct {
		Comparison struct {
			Reliability, Coherence, Agreement metric
		} `json:"comparison"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	c := doc.Comparison
	// The figures of TestComparisonFigures: the paired t's mean change is the root found
	// tightly with scipy (0.03018230006284908), statsmodels' solve_power stopping at
	// 0.030182363288311954.
	if r := c.Reliability; r.Outcome != "unchanged" || r.Direction != "worse" || math.Abs(r.P-0.125) > 1e-15 || math.Abs(r.PHolm-0.25) > 1e-15 ||
		r.Power != (power{Threshold: 0.025, Method: "mcnemar-exact", MinEffect: 7, Power: 1, Detectable: true}) {
		t.Errorf("reliability %+v", r)
	}
	if h := c.Coherence; h.Outcome != "degraded" || h.Direction != "worse" || h.Power.Threshold != 0.05/3 || h.Power.Method != "paired-t" ||
		math.Abs(h.Power.MinEffect-0.03018230006284908) > 3e-11 || math.Abs(h.Power.MinEffect-0.030182363288311954) > 1e-7 || math.Abs(h.Power.SD-0.028000405841214646) > 1e-12 || h.Power.Power != 0.8 {
		t.Errorf("coherence %+v", h)
	}
	if a := c.Agreement; a.Outcome != "unchanged" || a.Direction != "worse" || a.Power.Threshold != 0.025 || a.Power.Method != "kappa-z" ||
		math.Abs(a.Power.MinEffect-0.7197391906887013) > 1e-12 || a.P != a.PHolm {
		t.Errorf("agreement %+v", a)
	}
}

// The heading says how `baseline: auto` chose the commit: after the base's ref and sha, the
// way it stands to the merge base; where the artifact's commit is not the report's own, it is
// named too. Branch names are untrusted: escaped like the ref.
func TestComparisonHeadingSaysHowChosen(t *testing.T) {
	r := comparedResult(t)
	r.Comparison.Base.Ref, r.Comparison.Base.SHA, r.Comparison.Base.RunID = "refs/heads/main", "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d", "9"
	for _, c := range []struct {
		chosen gate.BaselineChosen
		want   string
	}{
		{gate.BaselineChosen{Branch: "main", SHA: "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d", How: "the merge base"},
			"### ❌ Compared with `main` @ `1a2b3c4` (run `9`), the merge base\n"},
		{gate.BaselineChosen{Branch: "main", SHA: "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d", How: "2 commits before the merge base"},
			"### ❌ Compared with `main` @ `1a2b3c4` (run `9`), 2 commits before the merge base\n"},
		{gate.BaselineChosen{Branch: "x`<b>@team", SHA: "9f8e7d6c5b4a39281706f5e4d3c2b1a098765432", How: "the newest on x`<b>@team"},
			"### ❌ Compared with `main` @ `1a2b3c4` (run `9`), the artifact of x\\`&lt;b&gt;@\u200bteam @ `9f8e7d6`, the newest on x\\`&lt;b&gt;@\u200bteam\n"},
	} {
		ch := c.chosen
		r.BaselineChosen = &ch
		if md := Markdown(r, Options{}); !strings.Contains(md, c.want) {
			t.Errorf("heading for %+v:\n%s\nwant %q", ch, md[:min(len(md), 400)], c.want)
		}
	}
}
