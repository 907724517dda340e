package report

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/compare"
	"github.com/agentgate/agentgate/internal/jsonreport"
)

// testdata/baseline20 holds real runs as the CLI reads them: base.jsonl, 20 clean runs that
// all succeeded (reward 1); head-half-failed.jsonl, the same runs with t00–t09 at reward 0;
// trials-missing-reward.jsonl, 3 tasks × 3 trials whose rewards are 1,1,0 / 1,1,0 / 1,1 and
// one missing.

// runGate evaluates traces as `agentgate gate` does, against baseline (the JSON report of a
// run of other traces, written and read back as a push to main and a pull request would)
// when it is not "".
func runGate(t *testing.T, traces, baseline string, th gate.Thresholds) *gate.Result {
	t.Helper()
	return runGateWith(t, traces, baseline, gate.Options{Thresholds: th})
}

// runGateWith is runGate with options o (their Baseline set from baseline).
func runGateWith(t *testing.T, traces, baseline string, o gate.Options) *gate.Result {
	t.Helper()
	if baseline != "" {
		base, err := gate.Run(context.Background(), gate.Inputs{Traces: []string{baseline}}, gate.Options{Thresholds: gate.DefaultThresholds()})
		if err != nil {
			t.Fatal(err)
		}
		var js bytes.Buffer
		if err := jsonreport.Write(&js, base); err != nil {
			t.Fatal(err)
		}
		b, err := jsonreport.ReadBaseline(&js, "base.json")
		if err != nil {
			t.Fatal(err)
		}
		o.Baseline = &gate.Baseline{Report: b}
	}
	r, err := gate.Run(context.Background(), gate.Inputs{Traces: []string{traces}}, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// metricName matches the metric of a row of the comparison, in the markdown table or the
// terminal.
var metricName = regexp.MustCompile(`(?m)^(?:\| |  )((?:reliability|success|coherence|agreement): [^(|,]*\([^)]*\))`)

// metricNames returns the metric of each row of the comparison in s, in order.
func metricNames(s string) []string {
	var out []string
	for _, m := range metricName.FindAllStringSubmatch(s, -1) {
		if !strings.Contains(m[1], ": to detect a ") { // a plan line (docs/design.md#planning-and-trend), not a row
			out = append(out, m[1])
		}
	}
	return out
}

// The terminal shows every metric of the comparison the markdown shows, in the same order and
// words: here the success metric, which alone breaches the gate. Its McNemar p is exact: 10
// new failures, none fixed, p = 2·2⁻¹⁰ = 0.001953125, Holm over two metrics 0.00390625.
func TestTextShowsEveryMetric(t *testing.T) {
	r := runGate(t, "testdata/baseline20/head-half-failed.jsonl", "testdata/baseline20/base.jsonl", gate.DefaultThresholds())
	if r.ExitCode != gate.ExitFail {
		t.Fatalf("exit %d, want %d", r.ExitCode, gate.ExitFail)
	}
	md := Markdown(r, Options{})
	var txt strings.Builder
	if err := Text(&txt, r); err != nil {
		t.Fatal(err)
	}
	want := []string{"reliability: FAIL verdicts (20 matched traces)", "success: runs that succeeded by their outcomes (20 matched runs)"}
	if got := metricNames(md); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("markdown metrics %q, want %q", got, want)
	}
	if got := metricNames(txt.String()); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("terminal metrics %q, want %q:\n%s", got, want, txt.String())
	}
	for _, line := range []string{
		"\nSuccess fell from 100% to 50% on 20 matched runs (10 newly failed, 0 fixed), significant (McNemar p 0.0020, Holm 0.0039): fail-on-regression breached.\n",
		"\n success: runs that succeeded by their outcomes (20 matched runs) degraded 20 of 20 → 10 of 20 10 newly failed, 0 fixed McNemar p 0.0020 (Holm 0.0039)\n",
		"\n reliability: FAIL verdicts (20 matched traces) unchanged 0 of 20 → 0 of 20 0 new FAIL verdicts, 0 fixed; mean score 0.0000 McNemar p 1.0000\n",
	} {
		if !strings.Contains(squeeze("\n"+txt.String()), line) {
			t.Errorf("terminal lacks %q:\n%s", line, txt.String())
		}
	}
	if !strings.Contains(squeeze(md), "| success: runs that succeeded by their outcomes (20 matched runs) | 20 of 20 | 10 of 20 | 10 newly failed, 0 fixed | McNemar p 0.0020 (Holm 0.0039) | ❌ degraded |") {
		t.Errorf("markdown lacks the success row:\n%s", md)
	}
}

// A comparison that matched nothing (no trace of head is in the baseline): by default each of
// the baseline's 20 runs is missing and counts as a failure of head, 20 new failures with none
// fixed in both paired tests, so both degrade (exit 2). With allow-missing-runs it measured
// nothing: fail-on-regression and max-new-failures are skipped with the reason, the exit code
// is what it is without them (0: two FAIL within max-failed-traces 9) unless fail-on-skipped
// is set (2), and no McNemar p is printed for the metric with nothing matched.
func TestComparisonMatchedNothing(t *testing.T) {
	const why = "no trace of this run matches the baseline's ids, so nothing was compared"
	th := gate.DefaultThresholds()
	th.MaxFailedTraces = 9
	th.Compare.MaxNewFailures = 0
	th.FailOnSkipped = gate.SkipNone
	r := runGate(t, "../fixtures/fail/traces.jsonl", "testdata/baseline20/base.jsonl", th)
	if g := r.Gates[len(r.Gates)-2]; r.ExitCode != gate.ExitFail || g.Name != compare.FailOnRegression || g.Note != "degraded: reliability, success" ||
		r.Gates[len(r.Gates)-1].Value != 20 || r.Comparison.Success.NewFailures != 20 || r.Comparison.Success.MissingNewFailures != 20 {
		t.Errorf("missing runs counted: exit %d, gates %+v", r.ExitCode, r.Gates)
	}
	for _, c := range []struct {
		failOnSkipped bool
		exit          int
		sentence      string
		row           string
	}{
		{false, gate.ExitPass,
			"All 3 gates hold (fail-on-regression and max-new-failures skipped), but 3 of 3 traces need a look: 2 FAIL (within max-failed-traces), 1 WARN.",
			"  - fail-on-regression  n/a  ≤ 0  skipped: " + why + "\n"},
		{true, gate.ExitFail,
			"2 gates breached: fail-on-regression was skipped, so it measured nothing (fail-on-skipped); max-new-failures was skipped, so it measured nothing (fail-on-skipped).",
			"  ✗ fail-on-regression  n/a  ≤ 0  BREACHED (skipped, measured nothing: fail-on-skipped): " + why + "\n"},
	} {
		th := gate.DefaultThresholds()
		th.MaxFailedTraces = 9
		th.Compare.MaxNewFailures = 0
		th.FailOnSkipped = map[bool]gate.SkipPolicy{false: gate.SkipNone, true: gate.SkipAll}[c.failOnSkipped]
		co := compare.DefaultOptions()
		co.AllowMissingRuns = true
		r := runGateWith(t, "../fixtures/fail/traces.jsonl", "testdata/baseline20/base.jsonl", gate.Options{Thresholds: th, Compare: co})
		if r.ExitCode != c.exit {
			t.Errorf("fail-on-skipped %v: exit %d, want %d", c.failOnSkipped, r.ExitCode, c.exit)
		}
		for _, g := range r.Gates[1:] {
			if !g.Skipped || g.Note != why || g.Passed == c.failOnSkipped {
				t.Errorf("fail-on-skipped %v: %+v, want skipped with %q", c.failOnSkipped, g, why)
			}
		}
		var txt strings.Builder
		if err := Text(&txt, r); err != nil {
			t.Fatal(err)
		}
		s := txt.String()
		for _, want := range []string{c.sentence, c.row,
			// head's three runs are added, two of them FAIL
			"  reliability: FAIL verdicts (0 matched traces, 3 added)  inconclusive (0 matched, fewer than 10)  0 of 0 → 2 of 3  0 new FAIL verdicts, 0 fixed  nothing matched\n",
			"  success: runs that succeeded by their outcomes (0 matched runs)  inconclusive (0 matched, fewer than 10)  0 of 0 → 0 of 0  0 newly failed, 0 fixed  nothing matched\n"} {
			if !strings.Contains(squeeze(s), squeeze(want)) {
				t.Errorf("fail-on-skipped %v: terminal lacks %q:\n%s", c.failOnSkipped, want, s)
			}
		}
		md := Markdown(r, Options{})
		for _, out := range []string{s, md} {
			if strings.Contains(out, "McNemar") {
				t.Errorf("a McNemar p of nothing matched:\n%s", out)
			}
		}
		if !strings.Contains(md, "### ❔ Compared with") && !c.failOnSkipped || !strings.Contains(md, "### ❌ Compared with") && c.failOnSkipped {
			t.Errorf("fail-on-skipped %v: the comparison's heading does not say it measured nothing:\n%s", c.failOnSkipped, md)
		}
	}

	// One trace in common, and the gate is evaluated: it holds, inconclusive with 1 matched.
	th = gate.DefaultThresholds()
	th.FailOnSkipped = gate.SkipAll
	r = runGate(t, "testdata/baseline20/base.jsonl", "testdata/baseline20/base.jsonl", th)
	if g := r.Gates[len(r.Gates)-1]; g.Name != compare.FailOnRegression || g.Skipped || !g.Passed || r.ExitCode != gate.ExitPass {
		t.Errorf("matched: %+v, exit %d, want fail-on-regression evaluated and 0", g, r.ExitCode)
	}
}

// pass^k by verdict because one trial of nine has no outcome says so beside pass^k in the
// markdown, the terminal, the gate's note and the JSON report, and "no flaky task" says by
// what, since two runs failed by their outcomes. pass^2 by verdict is 1 (every verdict is
// PASS); were the missing reward 1, it would be by outcome: (1/3 + 1/3 + 1)/3 = 0.5556.
func TestPassKByVerdictSaysWhy(t *testing.T) {
	th := gate.DefaultThresholds()
	th.Compare.PassK, th.Compare.PassKMin = 2, 0.6
	r := runGate(t, "testdata/baseline20/trials-missing-reward.jsonl", "", th)
	if r.ExitCode != gate.ExitPass || r.PassK.Values[1] != 1 {
		t.Fatalf("exit %d, pass^k %v, want 0 and pass^2 1", r.ExitCode, r.PassK.Values)
	}
	md := Markdown(r, Options{})
	var txt strings.Builder
	if err := Text(&txt, r); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ where, out, want string }{
		{"markdown", md, "pass^1 1.0000, pass^2 1.0000, pass^3 1.0000, **by verdict: 1 of 9 trials has no outcome**. pass^k is the chance that k trials of a task, drawn at random, all pass (not FAIL), averaged over the tasks; it counts a trial's outcome only when every trial has one.\n"},
		{"markdown", md, "\nNo flaky task by verdict: every task passed all its trials or none.\n"},
		{"markdown", squeeze(md), "| pass-k-min | 1.0000 | ≥ 0.60 | ✅ holds | pass^2 over 3 tasks, by verdict: 1 of 9 trials has no outcome |"},
		{"terminal", txt.String(), "\n  pass^k by verdict: 1 of 9 trials has no outcome, so a trial passes when its verdict is not FAIL (it counts a trial's outcome only when every trial has one)\n  no flaky task by verdict: every task passed all its trials or none\n"},
	} {
		if !strings.Contains(c.out, c.want) {
			t.Errorf("%s lacks %q:\n%s", c.where, c.want, c.out)
		}
	}
	var js bytes.Buffer
	if err := jsonreport.Write(&js, r); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		PassK struct {
			Basis          string `json:"basis"`
			WithoutOutcome int    `json:"trials_without_outcome"`
		} `json:"pass_k"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.PassK.Basis != "verdict" || doc.PassK.WithoutOutcome != 1 {
		t.Errorf("JSON pass_k %+v, want basis verdict, 1 trial without an outcome", doc.PassK)
	}
}
