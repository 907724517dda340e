package entrypoint

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/test/ghemu"
)

// Defaults a team can trust (docs/design.md#defaults), end to end: fail-on-skipped's explicit, the success
// rate in the verdict line, fail-on never and ids a reader can copy.

// tau2Failed writes a tau2-bench results file of one airline task run 4 times, every
// simulation with reward 0: the shape tau2-bench's Results writes (as the real run in
// gate/trace/testdata/formats/tau2-telecom.json), cut to the members agentgate reads.
func tau2Failed(t *testing.T, dir string) string {
	t.Helper()
	var sims []string
	for i := range 4 {
		sims = append(sims, fmt.Sprintf(`{"id": "sim-%d", "task_id": "1", "trial": %d, "reward_info": {"reward": 0.0}, "messages": [`+
			`{"role": "assistant", "content": "Hi! How can I help you today?", "tool_calls": null, "turn_idx": 0}, `+
			`{"role": "user", "content": "Please cancel reservation EHGLP3.", "tool_calls": null, "turn_idx": 1}, `+
			`{"role": "assistant", "content": "I could not find reservation EHGLP3, so nothing was cancelled.", "tool_calls": null, "turn_idx": 2}]}`, i, i))
	}
	doc := `{"info": {"num_trials": 4, "environment_info": {"domain_name": "airline"}}, "tasks": [{"id": "1"}], "simulations": [` + strings.Join(sims, ", ") + "]}\n"
	p := filepath.Join(dir, "results.json")
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A gate the user set that measured nothing breaches under the default; one on by default
// that skips stays a note unless the user set it or fail-on-skipped is true.
func TestExplicitSkipsBreach(t *testing.T) {
	dir := t.TempDir()
	outcomes := filepath.Join(dir, "outcomes.jsonl")
	if err := os.WriteFile(outcomes, []byte(`{"id": "no-such-run", "reward": 1}`+"\n"+`{"id": "nor-this", "success": true}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"gate", "--traces", "../fixtures/pass/traces.jsonl", "--outcomes", outcomes, "--success-rate-min", "0.9"}
	code, stdout, stderr := cli(t, "", base...)
	if code != 2 || !strings.HasPrefix(stdout, "agentgate: FAIL, check failing · none of 5 runs has an outcome, so success-rate-min 0.90 breached\n"+
		"1 gate breached: success-rate-min was skipped, so it measured nothing (fail-on-skipped).\n") ||
		!strings.Contains(stdout, "  ✗ success-rate-min   n/a  ≥ 0.90  BREACHED (skipped, measured nothing: fail-on-skipped): no run has an outcome: the 2 ids in the outcomes input match no trace\n") {
		t.Errorf("outcomes that match nothing: exit %d, want 2:\n%s%s", code, stdout, stderr)
	}
	if code, stdout, _ := cli(t, "", append(base, "--fail-on-skipped=false")...); code != 0 ||
		!strings.HasPrefix(stdout, "agentgate: PASS, check passing · none of 5 runs has an outcome, so success-rate-min 0.90 was skipped\n") {
		t.Errorf("fail-on-skipped false: exit %d, want 0:\n%s", code, stdout)
	}

	results := tau2Failed(t, dir)
	code, stdout, stderr = cli(t, "", "gate", "--traces", results, "--pass-k-min", "0.5", "--pass-k", "8")
	if code != 2 || !strings.Contains(stdout, "  ✗ pass-k-min         n/a  ≥ 0.50  BREACHED (skipped, measured nothing: fail-on-skipped): no task has 8 trials; the most is 4\n") {
		t.Errorf("pass-k 8 over 4 trials: exit %d, want 2:\n%s%s", code, stdout, stderr)
	}
	if code, stdout, _ := cli(t, "", "gate", "--traces", results, "--pass-k-min", "0", "--pass-k", "4"); code != 0 || !strings.Contains(stdout, "  ✓ pass-k-min ") {
		t.Errorf("pass-k 4 over 4 trials, min 0: exit %d, want 0:\n%s", code, stdout)
	}

	// κ undefined: both validators give every qid the same label. kappa-min is on by
	// default, so its skip is a note; set by the user, or under true, it breaches.
	pairs := filepath.Join(dir, "pairs.jsonl")
	var lines []string
	for i := range 20 {
		lines = append(lines, fmt.Sprintf(`{"qid": "Q%02d", "scholar": {"label": "VALID", "reason": "supported"}, "auditor": {"label": "VALID", "reason": "supported"}}`, i))
	}
	if err := os.WriteFile(pairs, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		extra []string
		exit  int
		row   string
	}{
		{nil, 0, "  - kappa-min    n/a     ≥ 0.75  skipped: κ is undefined"},
		{[]string{"--kappa-min", "0.75"}, 2, "  ✗ kappa-min    n/a     ≥ 0.75  BREACHED (skipped, measured nothing: fail-on-skipped): κ is undefined"},
		{[]string{"--fail-on-skipped"}, 2, "  ✗ kappa-min    n/a     ≥ 0.75  BREACHED (skipped, measured nothing: fail-on-skipped): κ is undefined"},
		{[]string{"--kappa-min", "0.75", "--fail-on-skipped=false"}, 0, "  - kappa-min    n/a     ≥ 0.75  skipped: κ is undefined"},
	} {
		code, stdout, stderr := cli(t, "", append([]string{"gate", "--pairs", pairs}, c.extra...)...)
		if code != c.exit || !strings.Contains(stdout, c.row) {
			t.Errorf("κ undefined %q: exit %d, want %d and %q:\n%s%s", c.extra, code, c.exit, c.row, stdout, stderr)
		}
	}
}

// A real-shaped tau2 run where no simulation succeeded: the verdict line says so in the
// terminal, the comment and the job summary, with and without a success gate.
func TestActionVerdictLineCarriesSuccess(t *testing.T) {
	ws := workspace(t)
	tau2Failed(t, ws)
	for _, c := range []struct {
		inputs map[string]string
		exit   int
		line   string
	}{
		{map[string]string{}, 0, "✅ agentgate: PASS, check passing · 0 of 4 runs succeeded, no success gate set"},
		{map[string]string{"success-rate-min": "0.5"}, 2, "❌ agentgate: FAIL, check failing · 0 of 4 runs succeeded, 0.0000 below success-rate-min 0.50"},
		{map[string]string{"success-rate-min": "0"}, 0, "✅ agentgate: PASS, check passing · 0 of 4 runs succeeded, 0.0000, success-rate-min 0.00 holds"},
	} {
		e, api := emulator(t)
		event := ghemu.WebhookExample(t, "pull_request", "opened", nil)
		c.inputs["traces"] = "results.json"
		r := step(t, ws, api, "pull_request", event, c.inputs)
		if r.exit != c.exit {
			t.Fatalf("%v: exit %d, want %d\n%s%s", c.inputs, r.exit, c.exit, r.stdout, r.stderr)
		}
		_, word, _ := strings.Cut(c.line, " ")
		if !strings.Contains(r.stdout, "\n"+word+"\n") && !strings.HasPrefix(r.stdout, word+"\n") {
			t.Errorf("%v: the log lacks %q:\n%s", c.inputs, word, r.stdout)
		}
		if !strings.HasPrefix(r.summary, "## "+c.line+"\n") {
			t.Errorf("%v: the job summary starts %q", c.inputs, firstLine(r.summary))
		}
		comments := e.Comments(prNumber(t, event))
		if len(comments) != 1 || !strings.Contains(comments[0].Body, "\n## "+c.line+"\n") {
			t.Errorf("%v: the comment lacks %q: %+v", c.inputs, c.line, comments)
		}
	}
	// No outcome read: the verdict line is as it was.
	code, stdout, _ := cli(t, "", "gate", "--traces", "../fixtures/pass/traces.jsonl")
	if code != 0 || !strings.HasPrefix(stdout, "agentgate: PASS, check passing\n") {
		t.Errorf("no outcomes: exit %d:\n%s", code, stdout)
	}
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

// fail-on never reports a FAIL as FAIL everywhere and exits 0; a run that cannot be read
// still exits 3.
func TestActionFailOnNever(t *testing.T) {
	e, api := emulator(t)
	event := ghemu.WebhookExample(t, "pull_request", "opened", nil)
	in := suite("fail")
	in["fail-on"] = "never"
	r := step(t, workspace(t), api, "pull_request", event, in)
	if r.exit != 0 {
		t.Fatalf("exit %d, want 0\n%s%s", r.exit, r.stdout, r.stderr)
	}
	if r.outputs["verdict"] != "FAIL" || r.outputs["traces-failed"] != "2" {
		t.Errorf("outputs %v, want verdict FAIL and 2 failed traces", r.outputs)
	}
	const sentence = " The check passes all the same: fail-on is never, so this report only informs.\n"
	if !strings.HasPrefix(r.summary, "## ❌ agentgate: FAIL, check passing, report only\n") || !strings.Contains(r.summary, sentence) {
		t.Errorf("the job summary:\n%s", r.summary)
	}
	if c := e.Comments(prNumber(t, event)); len(c) != 1 || !strings.Contains(c[0].Body, "## ❌ agentgate: FAIL, check passing, report only\n") {
		t.Errorf("comments %+v", c)
	}
	if !strings.Contains(r.stdout, ",title=agentgate%3A gate max-failed-traces breached::2 traces failed (max 0).\n") {
		t.Errorf("no breach annotation:\n%s", r.stdout)
	}

	// The CLI, on each verdict; a missing input is still exit 3.
	for _, kind := range []string{"pass", "fail"} {
		if code, stdout, stderr := cli(t, "", "gate", "--traces", "../fixtures/"+kind+"/traces.jsonl", "--fail-on", "never"); code != 0 {
			t.Errorf("%s under never: exit %d:\n%s%s", kind, code, stdout, stderr)
		}
	}
	if code, _, stderr := cli(t, "", "gate", "--traces", "../fixtures/warn/none.jsonl", "--fail-on", "never"); code != 3 {
		t.Errorf("a missing input under never: exit %d, want 3: %s", code, stderr)
	}
	ws := workspace(t)
	if err := os.WriteFile(filepath.Join(ws, "broken.jsonl"), []byte("{\"trace_id\": \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = step(t, ws, api, "pull_request", event, map[string]string{"traces": "broken.jsonl", "fail-on": "never"})
	if r.exit != 3 || r.outputs["verdict"] != "ERROR" {
		t.Errorf("unreadable input under never: exit %d verdict %q, want 3 and ERROR", r.exit, r.outputs["verdict"])
	}
}

// Hostile trace ids reach the comment and the job summary as code spans a reader can copy,
// never as a mention, link, HTML or a cell break, and no workflow command reaches the log.
func TestActionIDsCopyable(t *testing.T) {
	// each id and the cell it must read as: in a code span whose fence is longer than any run
	// of backticks inside, "|" escaped for the table, "##[" broken
	cells := map[string]string{
		"@org/team": "`@org/team`", "https://x.example/a": "`https://x.example/a`",
		"<img src=x onerror=alert(1)>": "`<img src=x onerror=alert(1)>`", "a`b``c": "```a`b``c```", "x|y": "`x\\|y`",
		"::error::forged": "`::error::forged`", "##[error]forged": "`##\u200b[error]forged`", "9#2": "`9#2`",
	}
	ids := slices.Sorted(maps.Keys(cells))
	ws := workspace(t)
	src, err := os.ReadFile(filepath.Join(ws, "fixtures", "fail", "traces.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i, id := range ids {
		var rec map[string]any
		line := strings.Split(strings.TrimSpace(string(src)), "\n")[i%2] // the two FAIL traces
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		rec["trace_id"] = id
		b, _ := json.Marshal(rec)
		out = append(out, string(b))
	}
	if err := os.WriteFile(filepath.Join(ws, "hostile.jsonl"), []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e, api := emulator(t)
	event := ghemu.WebhookExample(t, "pull_request", "opened", nil)
	r := step(t, ws, api, "pull_request", event, map[string]string{"traces": "hostile.jsonl", "max-failed-traces": "100"})
	if r.exit != 0 {
		t.Fatalf("exit %d\n%s%s", r.exit, r.stdout, r.stderr)
	}
	comments := e.Comments(prNumber(t, event))
	if len(comments) != 1 {
		t.Fatalf("%d comments", len(comments))
	}
	for name, md := range map[string]string{"comment": comments[0].Body, "summary": r.summary} {
		for _, id := range ids {
			cell := cells[id]
			row := regexp.MustCompile(`(?m)^\| ` + regexp.QuoteMeta(cell) + ` +\| hostile\.jsonl:\d+ `)
			if !row.MatchString(md) {
				t.Errorf("%s: no row for %q as %s:\n%s", name, id, cell, md)
			}
		}
		rest := md
		for _, cell := range cells {
			rest = strings.ReplaceAll(rest, cell, "")
		}
		for _, bad := range []string{"@org", "https://x", "<img", "::error::forged", "##[error]"} {
			if strings.Contains(rest, bad) {
				t.Errorf("%s holds %q outside code spans", name, bad)
			}
		}
		if strings.Contains(md, "##[error]") {
			t.Errorf("%s holds a workflow command's ##[", name)
		}
	}
	// (an id inside an annotation's own ::error command is that command's text, which the
	// runner reads as the annotation it is)
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "::error::forged") || !strings.HasPrefix(l, "::") && strings.Contains(l, "##[error]") {
			t.Errorf("the log holds a forged workflow command: %q", l)
		}
	}
}
