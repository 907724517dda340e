package entrypoint

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/test/ghemu"
)

// These tests hold docs/design.md#honest-words under the Actions emulator: the comparison's words and power
// lines as the pull request's comment shows them (and docs/comparison-and-statistics.md quotes them), a baseline
// path that cannot be read, and fail-on-skipped.

// checkDocBlock holds the example in file (relative to the repository's root) between
// `<!-- name:begin` and `<!-- name:end -->` to the comment body it quotes: the fenced block is
// the body from its title up to the line that starts with cut and more lines after it (more <
// 0: up to the line before cut), then "…". With -update-readme it rewrites the block instead.
func checkDocBlock(t *testing.T, file, name, body, cut string, more int) {
	t.Helper()
	start := strings.Index(body, "## ")
	if start < 0 {
		t.Fatalf("the comment has no title:\n%s", body)
	}
	lines := strings.SplitAfter(body[start:], "\n")
	end := -1
	for i, l := range lines {
		if strings.HasPrefix(l, cut) {
			end = i + more + 1
			break
		}
	}
	if end <= 0 || end > len(lines) {
		t.Fatalf("the comment has no line %q to cut the example of %s at:\n%s", cut, file, body)
	}
	shown := strings.Join(lines[:end], "")
	if more < 0 {
		shown = strings.TrimRight(shown, "\n") + "\n"
	}
	fence := "```"
	if strings.Contains(shown, "```") {
		fence = "````" // the comment's own code blocks (the trend's mermaid chart) stay inside
	}
	want := fence + "markdown\n" + shown + "…\n" + fence + "\n"

	path := filepath.Join("..", filepath.FromSlash(file))
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	begin, endMark := "<!-- "+name+":begin", "<!-- "+name+":end -->"
	i, j := strings.Index(text, begin), strings.Index(text, endMark)
	if i < 0 || j < i {
		t.Fatalf("%s has no %s markers", file, name)
	}
	i += strings.IndexByte(text[i:], '\n') + 1
	if text[i:j] == want {
		return
	}
	if !*updateREADME {
		t.Fatalf("the example %s of %s is not what the comment shows (go test ./entrypoint -run %s -update-readme rewrites it); the comment:\n%s",
			name, file, t.Name(), want)
	}
	if err := os.WriteFile(path, []byte(text[:i]+want+text[j:]), 0o644); err != nil {
		t.Fatal(err)
	}
}

// baseAndHead runs the two workflows of docs/comparison-and-statistics.md on the tau-bench
// runs of tauBenchRuns, with extra inputs on both sides: the push to main leaves its report as the artifact, and the
// pull request's run compares with it (baseline: auto). It returns the pull request's step
// and the comment it posted.
func baseAndHead(t *testing.T, extra map[string]string) (stepResult, string) {
	t.Helper()
	ws := workspace(t)
	tauBenchRuns(t, ws)
	e, api := emulator(t)
	ghemu.StartStorage(t, e)
	inputs := func(file string) map[string]string {
		in := map[string]string{"traces": "evals/" + file, "max-failed-traces": "100", "baseline": "auto"}
		maps.Copy(in, extra)
		return in
	}
	r := stepEnv(t, ws, api, "push", ghemu.WebhookExample(t, "push", "", nil), inputs("base.json"), pushToMaster)
	if r.exit != 0 {
		t.Fatalf("push run: exit %d\n%s%s", r.exit, r.stdout, r.stderr)
	}
	publishBaseReport(t, e, ws)
	event := ghemu.WebhookExample(t, "pull_request", "opened", nil)
	r = step(t, ws, api, "pull_request", event, inputs("head.json"))
	comments := e.Comments(prNumber(t, event))
	if len(comments) != 1 {
		t.Fatalf("PR run: %d comments, want 1\n%s%s", len(comments), r.stdout, r.stderr)
	}
	return r, comments[0].Body
}

// The case: the same six new failures, with the suite's tasks and pairs compared too.
// Holm's procedure over reliability and agreement (coherence has 3 matched tasks, too few)
// doubles McNemar's p to 0.0625, so nothing is significant and the check stays green (exit
// 0, WARN for the FAIL traces) — but reliability reads "worse, not significant", the heading
// is ⚠️, and the power line says that 7 new failures with none fixed were needed.
func TestActionWorseNotSignificant(t *testing.T) {
	r, body := baseAndHead(t, map[string]string{"tasks": "fixtures/pass/tasks.json", "pairs": "fixtures/pass/pairs.jsonl"})
	if r.exit != 0 {
		t.Fatalf("exit %d, want 0\n%s%s", r.exit, r.stdout, r.stderr)
	}
	want := map[string]string{"verdict": "WARN", "new-failures": "6", "regressions": "", "baseline-sha": headSHA}
	for k, v := range want {
		if r.outputs[k] != v {
			t.Errorf("output %s = %q, want %q", k, r.outputs[k], v)
		}
	}
	for _, s := range []string{
		"### ⚠️ Compared with `master` @ `1a2b3c4` (run `9001`)",
		"| McNemar p 0.0312 (Holm 0.0625)    | ⚠️ worse, not significant                  |",
		"- reliability: with 10 matched traces, 7 or more new FAIL verdicts with none fixed would be significant (exact McNemar, Holm threshold 0.0250)\n",
	} {
		if !strings.Contains(body, s) {
			t.Errorf("the comment lacks %q:\n%s", s, body)
		}
	}
	if !regexp.MustCompile(`\n  reliability: FAIL verdicts \(10 matched traces\) +worse, not significant +1 of 10 → 7 of 10  6 new FAIL verdicts, 0 fixed; mean score \+0\.2137  McNemar p 0\.0312 \(Holm 0\.0625\)\n`).MatchString(r.stdout) {
		t.Errorf("the log lacks the words:\n%s", r.stdout)
	}
	checkDocBlock(t, "docs/comparison-and-statistics.md", "compare-suite-example", body, "**pass^k**", -1)
}

// An explicit baseline path that does not exist, cannot be read or holds no agentgate report
// is an error, exit 3, wherever it was set: as the action's input, in the config file, on the
// command line. The runner's outputs say ERROR and nothing is posted.
func TestBaselinePathMustBeReadable(t *testing.T) {
	e, api := emulator(t)
	ws := workspace(t)
	if err := os.WriteFile(filepath.Join(ws, "agentgate.yml"), []byte("traces: fixtures/pass/traces.jsonl\n\nbaseline: reports/main.json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const tail = "; a baseline given by path must be an agentgate JSON report (the base branch's, written with --json), or `auto` to look for its artifact"
	event := ghemu.WebhookExample(t, "pull_request", "opened", nil)
	for _, c := range []struct {
		inputs map[string]string
		msg    string
	}{
		{map[string]string{"traces": "fixtures/pass/traces.jsonl", "baseline": "reports/mian.json"},
			"input baseline: reports/mian.json: cannot open: no such file or directory" + tail},
		{map[string]string{"config": "agentgate.yml"},
			"agentgate.yml:3:11: reports/main.json: cannot open: no such file or directory" + tail},
		{map[string]string{"traces": "fixtures/pass/traces.jsonl", "baseline": "fixtures"},
			"input baseline: fixtures: not a regular file (a directory): inputs must be regular files" + tail},
		{map[string]string{"traces": "fixtures/pass/traces.jsonl", "baseline": "fixtures/pass/traces.jsonl"},
			"input baseline: fixtures/pass/traces.jsonl:1:1: not an agentgate JSON report: expected an object with \"schema\"; this looks like a traces file: give it as the traces input"},
	} {
		e.ResetRequests()
		r := step(t, ws, api, "pull_request", event, c.inputs)
		if r.exit != 3 || r.stderr != "agentgate: "+c.msg+"\n" {
			t.Errorf("%v: exit %d stderr %q, want 3 and %q", c.inputs, r.exit, r.stderr, "agentgate: "+c.msg+"\n")
		}
		if len(r.outputs) != 1 || r.outputs["verdict"] != "ERROR" {
			t.Errorf("%v: outputs %v, want verdict ERROR only", c.inputs, r.outputs)
		}
		ann := "::error title=agentgate could not evaluate the suite::" + c.msg + "\n"
		if !strings.Contains(r.stdout, ann) || strings.Count(r.stdout, "::error") != 1 {
			t.Errorf("%v: want the one annotation %q in:\n%s", c.inputs, ann, r.stdout)
		}
		if !strings.Contains(r.summary, "could not evaluate") || !strings.Contains(r.summary, c.msg) {
			t.Errorf("%v: the summary does not say why:\n%s", c.inputs, r.summary)
		}
		if reqs := e.Requests(); len(reqs) != 0 {
			t.Errorf("%v: %d API requests, want none", c.inputs, len(reqs))
		}
	}

	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.json")
	code, _, stderr := cli(t, "", "gate", "--traces", "../fixtures/pass/traces.jsonl", "--baseline", missing)
	if want := "agentgate: --baseline: " + missing + ": cannot open: no such file or directory" + tail + "\n"; code != 3 || stderr != want {
		t.Errorf("CLI: exit %d stderr %q, want 3 and %q", code, stderr, want)
	}
}

// fail-on-skipped: the pull request opened before main uploaded a report passes without it
// (TestActionWithoutBaselineArtifactPasses) and fails with it, the skipped gates breached.
// pass-k-min asked for more trials than any task has breaches too, and so does
// max-new-failures set without a baseline at all.
func TestActionFailOnSkipped(t *testing.T) {
	_, api := emulator(t)
	event := ghemu.WebhookExample(t, "pull_request", "opened", nil)
	in := suite("pass")
	in["baseline"] = "auto"
	in["fail-on-skipped"] = "true"
	r := step(t, workspace(t), api, "pull_request", event, in)
	if r.exit != 2 {
		t.Fatalf("exit %d, want 2\n%s%s", r.exit, r.stdout, r.stderr)
	}
	want := map[string]string{
		"verdict": "FAIL", "traces-total": "5", "traces-failed": "0", "traces-warned": "0",
		"new-failures": "", "regressions": "", "baseline-sha": "", "report-json": ".agentgate/report.json",
	}
	for k, v := range want {
		if r.outputs[k] != v {
			t.Errorf("output %s = %q, want %q", k, r.outputs[k], v)
		}
	}
	note := `baseline auto: no unexpired artifact "agentgate-report" from a push, schedule or workflow_dispatch run on master yet (the push-to-main job uploads it): not compared`
	for _, s := range []string{
		"## ❌ agentgate: FAIL, check failing\n1 gate breached: fail-on-regression was skipped, so it measured nothing (fail-on-skipped).\n",
		"| fail-on-regression | — | ≤ 0 | ❌ **breached**: skipped, measured nothing (fail-on-skipped) | " + note + " |",
	} {
		if !strings.Contains(squeezeCells(r.summary), s) {
			t.Errorf("the summary lacks %q:\n%s", s, r.summary)
		}
	}
	if ann := "::error title=agentgate%3A gate fail-on-regression breached::Fail-on-regression was skipped, so it measured nothing (fail-on-skipped).\n"; !strings.Contains(r.stdout, ann) {
		t.Errorf("no annotation %q in:\n%s", ann, r.stdout)
	}

	// On the command line: pass-k 3 over traces with no trial index, max-new-failures with
	// no baseline. Both were set, so under the default (explicit) both breach; false lets
	// them skip and the run pass; true and explicit agree here.
	args := []string{"gate", "--traces", "../fixtures/pass/traces.jsonl", "--pass-k-min", "0.5", "--pass-k", "3", "--max-new-failures", "0"}
	code, stdout, stderr := cli(t, "", append(args, "--fail-on-skipped=false")...)
	if code != 0 || !strings.Contains(stdout, "  - max-new-failures   n/a  ≤ 0     skipped: no baseline was compared\n") ||
		!strings.Contains(stdout, "  - pass-k-min         n/a  ≥ 0.50  skipped: no trace carries a trial index\n") {
		t.Errorf("fail-on-skipped false: exit %d, want 0 with both gates skipped:\n%s%s", code, stdout, stderr)
	}
	cfg := filepath.Join(t.TempDir(), "agentgate.yml")
	if err := os.WriteFile(cfg, []byte("fail-on-skipped: no\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := cli(t, "", append(args, "--config", cfg)...); code != 0 {
		t.Errorf("fail-on-skipped no in the config file: exit %d, want 0:\n%s%s", code, stdout, stderr)
	}
	if code, _, stderr := cli(t, "", append(args, "--config", cfg, "--fail-on-skipped")...); code != 2 {
		t.Errorf("--fail-on-skipped over the config file: exit %d, want 2: %s", code, stderr)
	}
	for _, extra := range [][]string{nil, {"--fail-on-skipped"}, {"--fail-on-skipped=explicit"}} {
		code, stdout, stderr = cli(t, "", append(args, extra...)...)
		if code != 2 || !strings.Contains(stdout, "2 gates breached: max-new-failures was skipped, so it measured nothing (fail-on-skipped); pass-k-min was skipped, so it measured nothing (fail-on-skipped).\n") ||
			!strings.Contains(stdout, "  ✗ max-new-failures   n/a  ≤ 0     BREACHED (skipped, measured nothing: fail-on-skipped): no baseline was compared\n") ||
			!strings.Contains(stdout, "  ✗ pass-k-min         n/a  ≥ 0.50  BREACHED (skipped, measured nothing: fail-on-skipped): no trace carries a trial index\n") {
			t.Errorf("%q: exit %d, want 2 with both gates breached:\n%s%s", extra, code, stdout, stderr)
		}
	}
	if code, _, stderr := cli(t, "", append(args, "--fail-on-skipped=sometimes")...); code != 3 ||
		stderr != "agentgate: --fail-on-skipped: unknown fail-on-skipped \"sometimes\": want \"explicit\", \"true\" or \"false\"\n" {
		t.Errorf("sometimes: exit %d %q", code, stderr)
	}
}

// squeezeCells collapses the padding of markdown table cells.
func squeezeCells(s string) string {
	for strings.Contains(s, "  ") {
		s = strings.ReplaceAll(s, "  ", " ")
	}
	return s
}
