package entrypoint

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/internal/refdata"
	"github.com/agentgate/agentgate/test/ghemu"
)

// TestActionComparesOutcomes: the base branch's ten real tau-bench runs, eight of them
// rewarded 1.0, against the same runs as recorded (all 0.0). The traces are the same, so the
// verdicts do not move (McNemar p 1); success by outcome loses eight runs and gains none:
// p = 2·0.5⁸ = 0.0078125, Holm over the two metrics 0.015625 < 0.05, so success is degraded
// and fail-on-regression fails the check on the outcomes alone.
func TestActionComparesOutcomes(t *testing.T) {
	ws := workspace(t)
	raw, err := os.ReadFile(refdata.Path(t, "transcripts/tau-bench-airline-sample.json"))
	if err != nil {
		t.Fatal(err)
	}
	var runs []map[string]any
	if err := json.Unmarshal(raw, &runs); err != nil {
		t.Fatal(err)
	}
	write := func(name string) {
		b, err := json.Marshal(runs)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(ws, "evals"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, "evals", name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("head.json")
	for _, r := range runs[:8] {
		r["reward"] = 1.0
	}
	write("base.json")

	e, api := emulator(t)
	ghemu.StartStorage(t, e)
	inputs := func(file string) map[string]string {
		return map[string]string{"traces": "evals/" + file, "max-failed-traces": "100", "baseline": "auto"}
	}
	r := stepEnv(t, ws, api, "push", ghemu.WebhookExample(t, "push", "", nil), inputs("base.json"), pushToMaster)
	if r.exit != 0 || r.outputs["success-rate"] != "0.8" || r.outputs["successes"] != "8" {
		t.Fatalf("push run: exit %d, success-rate %q, successes %q\n%s%s", r.exit, r.outputs["success-rate"], r.outputs["successes"], r.stdout, r.stderr)
	}
	publishBaseReport(t, e, ws)
	event := ghemu.WebhookExample(t, "pull_request", "opened", nil)
	r = step(t, ws, api, "pull_request", event, inputs("head.json"))
	if r.exit != 2 {
		t.Fatalf("PR run: exit %d, want 2\n%s%s", r.exit, r.stdout, r.stderr)
	}
	want := map[string]string{"verdict": "FAIL", "new-failures": "0", "regressions": "success", "baseline-sha": headSHA,
		"success-rate": "0", "successes": "0", "traces-total": "10"}
	for k, v := range want {
		if r.outputs[k] != v {
			t.Errorf("output %s = %q, want %q", k, r.outputs[k], v)
		}
	}
	body := e.Comments(prNumber(t, event))[0].Body
	for _, s := range []string{
		"| success: runs that succeeded by their outcomes (10 matched runs) | 8 of 10 | 0 of 10 | 8 newly failed, 0 fixed",
		"McNemar p 0.0078",
		// ids are in code spans, as every id is: copyable whole, and "#2" links no issue there
		"**8 runs newly failed by outcome** (succeeded in the baseline, failed now): `airline/0#0`, `airline/0#2`, `airline/0#3`, `airline/3#0`, `airline/3#1`, `airline/3#2`, `airline/3#3`, `airline/4#2`.",
		// The regression gate watches success: "no success gate set" would say nothing does.
		"## ❌ agentgate: FAIL, check failing · 0 of 10 runs succeeded\n" +
			"Success fell from 80% to 0% on 10 matched runs (8 newly failed, 0 fixed), significant (McNemar p 0.0078, Holm 0.0156): fail-on-regression breached.\n",
		"McNemar p 0.0078 (Holm 0.0156) | ❌ degraded",
		"- success: with 10 matched runs, 7 or more runs newly failed with none fixed would be significant (exact McNemar, Holm threshold 0.0250)",
		"A trial passes when its outcome succeeded, on both sides.",
	} {
		if !strings.Contains(body, s) {
			t.Errorf("the comment lacks %q:\n%s", s, body)
		}
	}
}
