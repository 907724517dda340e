package entrypoint

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/test/ghemu"
)

// These tests hold "Every baseline run accounted for" (docs/comparison-and-statistics.md) end
// to end, through Main with the exact exit code: the ways of leaving a pull request's failing
// runs out of the comparison that each passed before (exit 0, "56 of 56 runs succeeded",
// "success unchanged") now breach fail-on-regression by default (exit 2).

// gamingRun is one chat record of the suite: a user asks, the agent answers (nothing any
// reliability signal flags), with the run's identity and its reward.
type gamingRun struct {
	suite, task string
	trial       int
	reward      *float64 // nil: the harness wrote no outcome
}

func (r gamingRun) record(id string) map[string]any {
	m := map[string]any{
		"trace_id": id,
		"suite":    r.suite,
		"task_id":  r.task,
		"trial":    r.trial,
		"messages": []any{
			map[string]any{"role": "user", "content": "What is the status of order " + r.task + "?", "tool_calls": []any{}, "tool_results": []any{}},
			map[string]any{"role": "assistant", "content": "Order " + r.task + " has shipped.", "tool_calls": []any{}, "tool_results": []any{}},
		},
	}
	if r.reward != nil {
		m["reward"] = *r.reward
	}
	return m
}

// gamingSuite is the baseline's suite: 40 tasks × 2 trials of suite "airline", all rewarded 1.
// failing reports whether run i is one of the 24 that fail in the pull request (tasks 0 to 11).
func gamingSuite() []gamingRun {
	one := 1.0
	var runs []gamingRun
	for task := range 40 {
		for trial := range 2 {
			runs = append(runs, gamingRun{suite: "airline", task: fmt.Sprintf("task-%02d", task), trial: trial, reward: &one})
		}
	}
	return runs
}

func failing(i int) bool { return i < 24 }

// writeRuns writes runs as JSONL to dir/name, with trace ids "<prefix>-<i>" (a harness gives
// every run a new id, so nothing is matched on them).
func writeRuns(t *testing.T, dir, name, prefix string, runs []gamingRun) string {
	t.Helper()
	var b strings.Builder
	for i, r := range runs {
		line, err := json.Marshal(r.record(fmt.Sprintf("%s-%03d", prefix, i)))
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMissingRunsBreach: base 80 runs, all succeeded. Each head below holds the same suite
// with the 24 runs of tasks 0 to 11 failing, left out or disguised one way or another. Each
// must exit 2 with success degraded; the report names what it counted.
func TestMissingRunsBreach(t *testing.T) {
	dir := t.TempDir()
	baseRuns := gamingSuite()
	baseReport := filepath.Join(dir, "base.json")
	if code, out, errs := cli(t, "", "gate", "--traces", writeRuns(t, dir, "base.jsonl", "base", baseRuns), "--json", baseReport); code != 0 {
		t.Fatalf("base run: exit %d\n%s%s", code, out, errs)
	}
	zero := 0.0
	// failed is the suite with the 24 runs failing, each passed through change.
	failed := func(change func(r *gamingRun)) []gamingRun {
		runs := gamingSuite()
		for i := range runs {
			if failing(i) {
				runs[i].reward = &zero
				if change != nil {
					change(&runs[i])
				}
			}
		}
		return runs
	}
	dropped := func() []gamingRun { return gamingSuite()[24:] }

	for _, c := range []struct {
		name string
		head []gamingRun
		// degraded names the metrics that breach fail-on-regression: success alone where the
		// failing runs are compared as failing runs, reliability too where they are missing (a
		// run that did not report counts as FAIL as well).
		degraded string
		// want are lines of the markdown report: the success row, then what it says of how
		// the runs were matched.
		want []string
	}{
		{"failing as they are", failed(nil), "success", []string{
			"| success: runs that succeeded by their outcomes (80 matched runs) | 80 of 80 | 56 of 80 | 24 newly failed, 0 fixed |",
		}},
		{"the 24 failing runs dropped", dropped(), "reliability, success", []string{
			"| success: runs that succeeded by their outcomes (56 matched runs, 24 missing) | 80 of 80 | 56 of 80 | 24 newly failed (24 missing), 0 fixed |",
			"**24 missing runs counted as newly failed by outcome**",
			"- success: 24 runs with an outcome of the baseline missing in this run, counted as failed (`airline/task-00#0`, `airline/task-00#1`, ",
		}},
		{"a zero-width space in their task ids", failed(func(r *gamingRun) { r.task += "\u200b" }), "success", []string{
			"| success: runs that succeeded by their outcomes (80 matched runs) | 80 of 80 | 56 of 80 | 24 newly failed, 0 fixed |",
			"- 24 runs matched only once their identities were normalised (Unicode NFC, surrounding space trimmed, zero-width and bidi controls removed): ",
		}},
		{"a leading space in their task ids", failed(func(r *gamingRun) { r.task = " " + r.task }), "success", []string{
			"| success: runs that succeeded by their outcomes (80 matched runs) | 80 of 80 | 56 of 80 | 24 newly failed, 0 fixed |",
			"- 24 runs matched only once their identities were normalised",
		}},
		// The 24 renamed runs are added: in head's rate (56 of 104), not paired with anything.
		{"a Cyrillic а in their suite", failed(func(r *gamingRun) { r.suite = "\u0430irline" }), "reliability, success", []string{
			"| success: runs that succeeded by their outcomes (56 matched runs, 24 missing, 24 added) | 80 of 80 | 56 of 104 | 24 newly failed (24 missing), 0 fixed |",
			"24 runs with an outcome only in this run, in its rate (`\u0430irline/task-00#0`, ",
		}},
		{"an empty suite", failed(func(r *gamingRun) { r.suite = "" }), "reliability, success", []string{
			"| success: runs that succeeded by their outcomes (56 matched runs, 24 missing, 24 added) | 80 of 80 | 56 of 104 | 24 newly failed (24 missing), 0 fixed |",
			"24 runs with an outcome only in this run, in its rate (`task-00#0`, ",
		}},
		{"the failure as a second record of the same task and trial", append(gamingSuite(), failed(nil)[:24]...), "success", []string{
			"| success: runs that succeeded by their outcomes (80 matched runs) | 80 of 80 | 56 of 80 | 24 newly failed, 0 fixed |",
			"- 24 identities held by more than one run of this run that disagree, each compared by its worse verdict and outcome: `airline/task-00#0`, ",
		}},
		// The records are there without a reward: no run is missing for the verdicts.
		{"a harness that crashed and wrote no result", failed(func(r *gamingRun) { r.reward = nil }), "success", []string{
			"| success: runs that succeeded by their outcomes (56 matched runs, 24 missing) | 80 of 80 | 56 of 80 | 24 newly failed (24 missing), 0 fixed |",
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			sub := t.TempDir()
			md := filepath.Join(sub, "report.md")
			js := filepath.Join(sub, "report.json")
			code, out, errs := cli(t, "", "gate", "--traces", writeRuns(t, sub, "head.jsonl", "head", c.head), "--baseline", baseReport, "--markdown", md, "--json", js)
			if code != 2 {
				t.Fatalf("exit %d, want 2\n%s%s", code, out, errs)
			}
			// Its report, whose new failures outnumber its matched runs, is a baseline a plan reads.
			if code, out, errs := cli(t, "", "plan", "--baseline", js); code != 0 || !strings.Contains(out, "24 of 80 matched differed") {
				t.Errorf("plan from this report: exit %d\n%s%s", code, out, errs)
			}
			raw, err := os.ReadFile(md)
			if err != nil {
				t.Fatal(err)
			}
			report := squeezeCells(string(raw))
			gate := fmt.Sprintf("| fail-on-regression | %d | ≤ 0 | ❌ **breached** | degraded: %s |", strings.Count(c.degraded, ",")+1, c.degraded)
			for _, w := range append([]string{gate}, c.want...) {
				if !strings.Contains(report, squeezeCells(w)) {
					t.Errorf("report lacks %q:\n%s", w, raw)
				}
			}
		})
	}
}

// TestAllowMissingRuns: a deliberate change of the suite (every run renamed into suite
// "airline-v2") matches nothing. By default each of the 80 baseline runs counts as a failure
// (exit 2); with allow-missing-runs they are left out, nothing is compared, the run passes
// (exit 0) and the report says why.
func TestAllowMissingRuns(t *testing.T) {
	dir := t.TempDir()
	baseReport := filepath.Join(dir, "base.json")
	if code, out, errs := cli(t, "", "gate", "--traces", writeRuns(t, dir, "base.jsonl", "base", gamingSuite()), "--json", baseReport); code != 0 {
		t.Fatalf("base run: exit %d\n%s%s", code, out, errs)
	}
	renamed := gamingSuite()
	for i := range renamed {
		renamed[i].suite = "airline-v2"
	}
	head := writeRuns(t, dir, "head.jsonl", "head", renamed)
	md := filepath.Join(dir, "report.md")
	code, out, errs := cli(t, "", "gate", "--traces", head, "--baseline", baseReport, "--markdown", md)
	if code != 2 {
		t.Fatalf("renamed suite, by default: exit %d, want 2\n%s%s", code, out, errs)
	}
	raw, _ := os.ReadFile(md)
	if want := "| success: runs that succeeded by their outcomes (0 matched runs, 80 missing, 80 added) | 80 of 80 | 80 of 160 | 80 newly failed (80 missing), 0 fixed |"; !strings.Contains(squeezeCells(string(raw)), squeezeCells(want)) {
		t.Errorf("report lacks %q:\n%s", want, raw)
	}

	code, out, errs = cli(t, "", "gate", "--traces", head, "--baseline", baseReport, "--markdown", md, "--allow-missing-runs")
	if code != 0 {
		t.Fatalf("renamed suite, allow-missing-runs: exit %d, want 0\n%s%s", code, out, errs)
	}
	raw, _ = os.ReadFile(md)
	for _, want := range []string{
		"- allow-missing-runs: 80 of the baseline's runs are not in this run and were left out of the comparison, not counted as failures",
		"- reliability: 80 runs of the baseline missing in this run, left out (allow-missing-runs) (",
		"| fail-on-regression | — | ≤ 0 | ⏭️ skipped | no trace of this run matches the baseline's ids, so nothing was compared |",
	} {
		if !strings.Contains(squeezeCells(string(raw)), squeezeCells(want)) {
			t.Errorf("report lacks %q:\n%s", want, raw)
		}
	}
}

// TestSelfComparisonUnchanged: the suite with its 24 failures compared with itself changes
// nothing: 0 new failures, 0 fixed, p 1, every metric unchanged, exit 0 (no gate on the
// failures themselves).
func TestSelfComparisonUnchanged(t *testing.T) {
	dir := t.TempDir()
	zero := 0.0
	runs := gamingSuite()
	for i := range runs {
		if failing(i) {
			runs[i].reward = &zero
		}
	}
	// A duplicate record and a normalised id on both sides change nothing either.
	runs = append(runs, gamingRun{suite: "airline", task: "task-39", trial: 1, reward: &zero})
	runs[3].task = " " + runs[3].task + "\u200b"
	traces := writeRuns(t, dir, "runs.jsonl", "run", runs)
	baseReport := filepath.Join(dir, "base.json")
	if code, out, errs := cli(t, "", "gate", "--traces", traces, "--json", baseReport); code != 0 {
		t.Fatalf("base run: exit %d\n%s%s", code, out, errs)
	}
	headReport := filepath.Join(dir, "head.json")
	if code, out, errs := cli(t, "", "gate", "--traces", traces, "--baseline", baseReport, "--json", headReport); code != 0 {
		t.Fatalf("self-comparison: exit %d, want 0\n%s%s", code, out, errs)
	}
	raw, err := os.ReadFile(headReport)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Comparison map[string]json.RawMessage `json:"comparison"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for _, metric := range []string{"reliability", "success"} {
		var m struct {
			NewFailures int     `json:"new_failures"`
			Fixed       int     `json:"fixed"`
			P           float64 `json:"p"`
			Direction   string  `json:"direction"`
			Outcome     string  `json:"outcome"`
			Compared    int     `json:"compared"`
			Removed     struct {
				Count int `json:"count"`
			} `json:"removed"`
		}
		if err := json.Unmarshal(doc.Comparison[metric], &m); err != nil {
			t.Fatalf("%s: %v", metric, err)
		}
		if m.NewFailures != 0 || m.Fixed != 0 || m.P != 1 || m.Direction != "same" || m.Outcome != "unchanged" || m.Compared != 81 || m.Removed.Count != 0 {
			t.Errorf("%s compared with itself: %+v", metric, m)
		}
	}
}

// TestActionCountsMissingRuns: under Actions, main's report of the 80 runs is the baseline and
// the pull request drops the 24 that fail. The step exits 2, its new-failures output is the
// count the comment's table and gate rows show (24, all missing), and regressions names both
// paired metrics; with the input allow-missing-runs the same run passes, new-failures 0, and
// the comment says what was left out.
func TestActionCountsMissingRuns(t *testing.T) {
	ws := workspace(t)
	evals := filepath.Join(ws, "evals")
	if err := os.MkdirAll(evals, 0o755); err != nil {
		t.Fatal(err)
	}
	writeRuns(t, evals, "base.jsonl", "base", gamingSuite())
	writeRuns(t, evals, "head.jsonl", "head", gamingSuite()[24:])

	e, api := emulator(t)
	ghemu.StartStorage(t, e)
	r := stepEnv(t, ws, api, "push", ghemu.WebhookExample(t, "push", "", nil), map[string]string{"traces": "evals/base.jsonl", "baseline": "auto"}, pushToMaster)
	if r.exit != 0 {
		t.Fatalf("push run: exit %d\n%s%s", r.exit, r.stdout, r.stderr)
	}
	publishBaseReport(t, e, ws)
	event := ghemu.WebhookExample(t, "pull_request", "opened", nil)

	r = step(t, ws, api, "pull_request", event, map[string]string{"traces": "evals/head.jsonl", "baseline": "auto"})
	if r.exit != 2 {
		t.Fatalf("PR run: exit %d, want 2\n%s%s", r.exit, r.stdout, r.stderr)
	}
	for k, v := range map[string]string{"verdict": "FAIL", "new-failures": "24", "regressions": "reliability,success", "successes": "56"} {
		if r.outputs[k] != v {
			t.Errorf("output %s = %q, want %q", k, r.outputs[k], v)
		}
	}
	body := squeezeCells(e.Comments(prNumber(t, event))[0].Body)
	for _, s := range []string{
		"| reliability: FAIL verdicts (56 matched traces, 24 missing) | 0 of 80 | 24 of 80 | 24 new FAIL verdicts (24 missing), 0 fixed; mean score 0.0000 |",
		"**24 missing runs counted as new FAIL verdicts** (not FAIL in the baseline, missing now",
		"- reliability: 24 runs of the baseline missing in this run, counted as FAIL (`airline/task-00#0`, ",
	} {
		if !strings.Contains(body, squeezeCells(s)) {
			t.Errorf("the comment lacks %q:\n%s", s, body)
		}
	}

	r = step(t, ws, api, "pull_request", event, map[string]string{"traces": "evals/head.jsonl", "baseline": "auto", "allow-missing-runs": "true"})
	if r.exit != 0 || r.outputs["new-failures"] != "0" || r.outputs["regressions"] != "" {
		t.Fatalf("PR run, allow-missing-runs: exit %d, outputs %v\n%s%s", r.exit, r.outputs, r.stdout, r.stderr)
	}
	body = squeezeCells(e.Comments(prNumber(t, event))[0].Body)
	for _, s := range []string{
		"| reliability: FAIL verdicts (56 matched traces) | 0 of 56 | 0 of 56 | 0 new FAIL verdicts, 0 fixed; mean score 0.0000 |",
		"- allow-missing-runs: 24 of the baseline's runs are not in this run and were left out of the comparison, not counted as failures",
	} {
		if !strings.Contains(body, squeezeCells(s)) {
			t.Errorf("the comment lacks %q:\n%s", s, body)
		}
	}
}
