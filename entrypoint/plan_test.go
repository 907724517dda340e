package entrypoint

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// planReport writes a report of ten traces, two of them FAIL, seven succeeded by their
// outcomes, with the comparison cmp ("" for none), and returns its path.
func planReport(t *testing.T, cmp string) string {
	t.Helper()
	var traces []string
	for i := range 10 {
		v := "PASS"
		if i < 2 {
			v = "FAIL"
		}
		traces = append(traces, fmt.Sprintf(`{"id": "t%d", "verdict": %q, "score": 0.1, "outcome": {"success": %v}}`, i, v, i >= 3))
	}
	doc := `{"schema": 2, "profile": "default", "reliability": {"traces": [` + strings.Join(traces, ", ") + `]}`
	if cmp != "" {
		doc += `, "comparison": ` + cmp
	}
	path := filepath.Join(t.TempDir(), "report.json")
	if err := os.WriteFile(path, []byte(doc+"}"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// `agentgate plan` on a report: without a comparison, its own rates with runs taken as
// independent (success 0.7: ψ = 0.42; not FAIL 0.8: ψ = 0.32) at α/2; with one, the recorded
// discordance and threshold. scipy (Connor 1987): 397 and 302 runs at ψ 0.42 and 0.32, α
// 0.025, δ 0.1, power with 10 runs 0.038 and 0.044; ψ 0.12 at 0.025: 112 runs, power with 100
// 0.7499; ψ floored at 0.1, α 0.05: 77 runs, power 0.8975.
func TestPlanCommand(t *testing.T) {
	path := planReport(t, "")
	code, stdout, stderr := cli(t, "", "plan", "--baseline", path)
	want := "agentgate plan: " + path + ": matched runs to detect a 10-point drop with 80% power (McNemar, Connor 1987)\n" +
		"  success: 70% of its runs succeeded by their outcomes; no comparison is recorded, so base and head runs are taken as independent: discordance 2p(1−p) = 42%; at Holm threshold 0.0250 (α/2, the strictest over the 2 metrics it would be compared on): 397 matched runs; it has 10 (power 4%). Runs of one task usually agree more than independent runs, so this is an upper bound\n" +
		"  reliability: 80% of its runs were not FAIL; no comparison is recorded, so base and head runs are taken as independent: discordance 2p(1−p) = 32%; at Holm threshold 0.0250 (α/2, the strictest over the 2 metrics it would be compared on): 302 matched traces; it has 10 (power 4%). Runs of one task usually agree more than independent runs, so this is an upper bound\n"
	if code != 0 || stdout != want || stderr != "" {
		t.Errorf("exit %d, stderr %q\n got %s\nwant %s", code, stderr, stdout, want)
	}
	path = planReport(t, `{"success": {"matched": 100, "new_failures": 9, "fixed": 3, "power": {"threshold": 0.025}}, "reliability": {"matched": 100, "new_failures": 3, "fixed": 0, "power": {"threshold": 0.05}}}`)
	code, stdout, _ = cli(t, "", "plan", path, "--effect", "0.1")
	want = "agentgate plan: " + path + ": matched runs to detect a 10-point drop with 80% power (McNemar, Connor 1987)\n" +
		"  success: at this report's discordance (12 of 100 matched differed in its comparison), Holm threshold 0.0250: 112 matched runs; it had 100 (power 75%)\n" +
		"  reliability: at this report's discordance (3 of 100 matched differed in its comparison, fewer than a 10-point drop changes; taken as 10%), Holm threshold 0.0500: 77 matched traces; it had 100 (power 90%)\n"
	if code != 0 || stdout != want {
		t.Errorf("recorded: exit %d\n got %s\nwant %s", code, stdout, want)
	}
}

// The plan of a report from a real run with trials reads as trials of each task.
func TestPlanCommandTrials(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for task := range 4 {
		for trial := range 3 {
			fmt.Fprintf(&b, `{"trace_id": "t%d-%d", "task_id": "task-%d", "trial": %d, "reward": %d, "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok"}]}`+"\n",
				task, trial, task, trial, map[bool]int{true: 1}[task+trial < 4])
		}
	}
	traces := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(traces, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(dir, "r.json")
	if code, _, stderr := cli(t, "", "gate", "--traces", traces, "--json", report); code != 0 {
		t.Fatalf("gate: exit %d %s", code, stderr)
	}
	code, stdout, _ := cli(t, "", "plan", "--baseline", report)
	// 9 of 12 runs succeeded (ψ = 2·0.75·0.25 = 0.375); scipy: 354 runs at α 0.025, δ 0.1: 89
	// trials of each of the 4 tasks.
	if code != 0 || !strings.Contains(stdout, "discordance 2p(1−p) = 38%; at Holm threshold 0.0250 (α/2, the strictest over the 2 metrics it would be compared on): 354 matched runs; it has 12") ||
		!strings.Contains(stdout, "    with its 4 tasks: 89 trials of each (it ran at least 3)\n") {
		t.Errorf("exit %d:\n%s", code, stdout)
	}
}

// Bad arguments and unreadable reports: one line, exit 3.
func TestPlanCommandErrors(t *testing.T) {
	path := planReport(t, "")
	other := filepath.Join(t.TempDir(), "old.json")
	if err := os.WriteFile(other, []byte(`{"schema": 1, "profile": "default"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"plan"}, "agentgate: plan: give one JSON report with --baseline REPORT.json\n"},
		{[]string{"plan", path, path}, "agentgate: plan: give one JSON report with --baseline REPORT.json\n"},
		{[]string{"plan", path, "--effect", "0"}, "agentgate: plan: --effect: plan-effect must be between 0 and 1 (exclusive), a drop in the share of runs that succeed (0.1 is 10 points), got 0\n"},
		{[]string{"plan", path, "--regression-alpha", "1"}, "agentgate: plan: --regression-alpha must be between 0 and 1 (exclusive), got 1\n"},
		{[]string{"plan", "--effct", "0.1"}, "agentgate plan: unknown flag --effct: did you mean --effect?\n"},
		{[]string{"plan", "--baseline", other}, "agentgate: plan: baseline " + other + " has schema 1, this agentgate reads schema 2 and 3: nothing to plan from\n"},
		{[]string{"plan", "--baseline", "../fixtures/pass/traces.jsonl"}, "agentgate: ../fixtures/pass/traces.jsonl:1:1: not an agentgate JSON report: expected an object with \"schema\"; this looks like a traces file: pass it with --traces\n"},
	} {
		code, stdout, stderr := cli(t, "", c.args...)
		if code != 3 || stdout != "" || stderr != c.want {
			t.Errorf("%v: exit %d, stdout %q\n got %q\nwant %q", c.args, code, stdout, stderr, c.want)
		}
	}
	// plan-effect as a gate setting is checked as the plan's --effect is.
	code, _, stderr := cli(t, "", "gate", "--traces", "../fixtures/pass/traces.jsonl", "--plan-effect", "1.5")
	if code != 3 || stderr != "agentgate: --plan-effect: plan-effect must be between 0 and 1 (exclusive), a drop in the share of runs that succeed (0.1 is 10 points), got 1.5\n" {
		t.Errorf("gate --plan-effect 1.5: exit %d %q", code, stderr)
	}
}

// A hostile report's recorded comparison is refused, naming the field, where it printed
// "-9,223,372,036,854,775,808 of 9,223,372,036,854,775,807 matched differed" (a matched count
// near 2^63, times the discordance, overflowing int) and "power NaN%" (a threshold of 1e-300,
// whose normal quantile is not finite); an alpha as small fails the same way.
func TestPlanRefusesHostileCounts(t *testing.T) {
	const at = ":1:865: not an agentgate JSON report: comparison.success: " // where the success object opens in planReport's document
	for _, c := range []struct{ cmp, want string }{
		{`{"success": {"matched": 9223372036854775807, "new_failures": 9223372036854775807, "fixed": 0, "power": {"threshold": 0.025}}}`,
			"matched 9223372036854775807 is more than 1073741824, the most runs a comparison can match"},
		{`{"success": {"matched": 1073741825, "new_failures": 0, "fixed": 0}}`,
			"matched 1073741825 is more than 1073741824, the most runs a comparison can match"},
		{`{"success": {"matched": 100, "new_failures": 9, "fixed": 3, "power": {"threshold": 1e-300}}}`,
			"power.threshold 1e-300 is not between 1e-12 and 1, the levels agentgate computes power at"},
		{`{"success": {"matched": 100, "new_failures": 9, "fixed": 3, "power": {"threshold": 1}}}`,
			"power.threshold 1 is not between 1e-12 and 1, the levels agentgate computes power at"},
		{`{"success": {"matched": 100, "new_failures": 9, "fixed": 3, "power": {"threshold": 0}}}`,
			"power.threshold 0 is not between 1e-12 and 1, the levels agentgate computes power at"},
		{`{"success": {"matched": 10, "new_failures": 9, "fixed": 3}}`,
			"matched 10, new_failures 9 and fixed 3 must be counts, the last two within matched"},
	} {
		path := planReport(t, c.cmp)
		code, stdout, stderr := cli(t, "", "plan", path)
		if want := "agentgate: " + path + at + c.want + "\n"; code != 3 || stdout != "" || stderr != want {
			t.Errorf("%s: exit %d, stdout %q\n got %q\nwant %q", c.cmp, code, stdout, stderr, want)
		}
	}
	path := planReport(t, "")
	code, stdout, stderr := cli(t, "", "plan", path, "--regression-alpha", "1e-300")
	if want := "agentgate: plan: --regression-alpha must be at least 1e-12, the smallest level agentgate computes power at, got 1e-300\n"; code != 3 || stdout != "" || stderr != want {
		t.Errorf("--regression-alpha 1e-300: exit %d, stdout %q\n got %q\nwant %q", code, stdout, stderr, want)
	}
	// the smallest level allowed still prints figures, not NaN
	path = planReport(t, `{"success": {"matched": 100, "new_failures": 9, "fixed": 3, "power": {"threshold": 1e-12}}}`)
	code, stdout, _ = cli(t, "", "plan", path, "--regression-alpha", "1e-12")
	if code != 0 || strings.Contains(stdout, "NaN") || !strings.Contains(stdout, "Holm threshold 1.00e-12: ") {
		t.Errorf("threshold 1e-12: exit %d\n%s", code, stdout)
	}
}

// The usage names the plan command, and its --help its flags.
func TestPlanUsage(t *testing.T) {
	code, stdout, _ := cli(t, "", "help")
	if code != 0 || !strings.Contains(stdout, "  agentgate plan --baseline REPORT.json [--effect 0.1]\n") {
		t.Errorf("usage:\n%s", stdout)
	}
	code, stdout, stderr := cli(t, "", "plan", "--help")
	if code != 0 || stderr != "" || !strings.HasPrefix(stdout, "Usage: agentgate plan --baseline REPORT.json [--effect 0.1] [--regression-alpha 0.05]\n\nFlags:\n  -baseline string\n") ||
		!strings.Contains(stdout, "  -effect float\n") || !strings.Contains(stdout, "  -regression-alpha float\n") {
		t.Errorf("plan --help: exit %d\n%s", code, stdout)
	}
}

// TestREADMEPlanAndTrend: the README's excerpt of the example comparison (its plan line; the
// example's history has two points, too few for a trend) is, line for line, part of docs/comparison-and-statistics.md's example,
// which TestActionComparesWithTheBaseBranch holds to what the comment shows.
func TestREADMEPlanAndTrend(t *testing.T) {
	read := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	block := func(text, name string) string {
		i, j := strings.Index(text, "<!-- "+name+":begin"), strings.Index(text, "<!-- "+name+":end -->")
		if i < 0 || j < i {
			t.Fatalf("no %s markers", name)
		}
		return text[i:j]
	}
	excerpt := block(read("../README.md"), "plan-trend-excerpt")
	example := block(read("../docs/comparison-and-statistics.md"), "compare-example")
	var body []string
	for _, l := range strings.Split(excerpt, "\n")[1:] {
		if !strings.HasPrefix(l, "````") {
			body = append(body, l)
		}
	}
	joined := strings.Join(body, "\n")
	for _, piece := range strings.Split(joined, "\n\n") { // each paragraph of the excerpt, word for word
		if !strings.Contains(example, strings.TrimSpace(piece)) {
			t.Errorf("the README's excerpt is not in the docs' example:\n%s", piece)
		}
	}
	if !strings.Contains(joined, "to detect a 10-point drop") {
		t.Errorf("the excerpt lacks the plan line:\n%s", joined)
	}
}
