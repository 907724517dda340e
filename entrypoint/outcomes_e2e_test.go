package entrypoint

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/test/ghemu"
)

// TestActionOutcomes runs the action on the passing fixture suite with a SWE-bench run summary
// as its outcomes: two of its five runs resolved, one did not, two are not listed, and one
// listed instance, absent-004, has no trace and counts as the report counts it (unresolved):
// 2 of its 4 instances, the harness's own rate. success-rate-min 0.9 is breached by 2 of 4
// although every trace passes the evaluators, and the outputs carry the success rate.
func TestActionOutcomes(t *testing.T) {
	ws := workspace(t)
	summary := `{
    "total_instances": 4,
    "completed_ids": ["absent-004", "docs-summary-003", "refund-lookup-001", "weather-brief-002"],
    "resolved_ids": ["refund-lookup-001", "weather-brief-002"],
    "unresolved_ids": ["absent-004", "docs-summary-003"],
    "error_ids": [],
    "schema_version": 2
}
`
	if err := os.MkdirAll(filepath.Join(ws, "evals"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "evals", "run.json"), []byte(summary), 0o644); err != nil {
		t.Fatal(err)
	}
	e, api := emulator(t)
	r := step(t, ws, api, "push", ghemu.WebhookExample(t, "push", "", nil), map[string]string{
		"traces": "fixtures/pass/traces.jsonl", "outcomes": "evals/*.json", "success-rate-min": "0.9",
	})
	if r.exit != 2 {
		t.Fatalf("exit %d, want 2\n%s%s", r.exit, r.stdout, r.stderr)
	}
	if len(e.Requests()) != 0 {
		t.Errorf("a push sent %d API requests", len(e.Requests()))
	}
	want := map[string]string{
		"verdict": "FAIL", "traces-total": "5", "traces-failed": "0", "traces-warned": "0",
		"rcs": "", "percent-agreement": "", "kappa": "", "abstain-rate": "",
		"new-failures": "", "runs-newly-failed": "", "regressions": "", "baseline-sha": "",
		"success-rate": "0.5", "successes": "2",
		"report-json": ".agentgate/report.json", "comment-url": "",
	}
	if !maps.Equal(r.outputs, want) {
		t.Errorf("outputs\n%v\nwant\n%v", r.outputs, want)
	}
	for _, s := range []string{
		"## ❌ agentgate: FAIL, check failing · 2 of 4 runs with an outcome succeeded (2 have none), 0.5000 below success-rate-min 0.90\n",
		"### ❌ Outcomes: 2 of 4 runs succeeded (50%, Wilson 95% interval 15%–85%); 2 runs without an outcome",
		"2,651 tokens per successful run",
		"1 outcome in the outcomes input matches no trace: `absent-004`.",
		"1 instance a SWE-bench report names, 0 resolved, leaves no trace; the success rate counts it as the report does: `absent-004`.",
		// no signal: its 1080 tokens a message were RS-1's (b), which the default leaves to the
		// suite's comparison, and three runs with usage are too few to compare
		"**1 failed run**, none with a reliability signal (failures no evaluator explains): `docs-summary-003`.",
		"agentgate gate --traces fixtures/pass/traces.jsonl --outcomes 'evals/*.json' --success-rate-min 0.9",
	} {
		if !strings.Contains(r.summary, s) {
			t.Errorf("the job summary lacks %q:\n%s", s, r.summary)
		}
	}
}
