package entrypoint

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCrashedRuns: tau-bench runs that crashed (run.py writes traj [] with info.error and
// info.traceback; generated: gate/trace/testdata/formats/README.md) are crash findings with the
// harness's error text, one per run, not "the trace has no messages" nor "the agent's turns
// were not found"; a file of crashed runs alone is no blind read: exit 0, each run WARN.
func TestCrashedRuns(t *testing.T) {
	src := filepath.Join("..", "gate", "trace", "testdata", "formats", "tau-bench-crashes.json")
	const crash = `the run crashed before the agent's first turn: the harness recorded "litellm.RateLimitError: OpenAIException - Rate limit reached for gpt-4o"`
	out := filepath.Join(t.TempDir(), "report.json")
	code, stdout, stderr := cli(t, "", "gate", "--traces", src, "--json", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	var r struct {
		Notes       []string `json:"notes"`
		Reliability struct {
			Traces []struct {
				ID       string `json:"id"`
				Verdict  string `json:"verdict"`
				Evidence []struct {
					Text string `json:"text"`
				} `json:"evidence"`
			} `json:"traces"`
		} `json:"reliability"`
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tr := range r.Reliability.Traces {
		var texts []string
		for _, e := range tr.Evidence {
			texts = append(texts, e.Text)
		}
		got = append(got, tr.ID+" "+tr.Verdict+" "+strings.Join(texts, " | "))
	}
	want := []string{"0#0 PASS ", "1#0 WARN " + crash, "2#0 WARN " + crash}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("traces\n got %q\nwant %q", got, want)
	}
	for _, n := range r.Notes {
		if strings.Contains(n, "turns were not found") {
			t.Errorf("note %q: a crash is not a blind read", n)
		}
	}
	if !strings.Contains(stdout, crash) {
		t.Errorf("the terminal report does not show the crash:\n%s", stdout)
	}
	// only the crashed runs: still no blind read
	var runs []json.RawMessage
	if err := json.Unmarshal(mustRead(t, src), &runs); err != nil {
		t.Fatal(err)
	}
	only := filepath.Join(t.TempDir(), "crashes.json")
	b, _ := json.Marshal(runs[1:])
	if err := os.WriteFile(only, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := cli(t, "", "gate", "--traces", only); code != 0 || !strings.Contains(stdout, crash) {
		t.Errorf("crashes alone: exit %d\n%s%s", code, stdout, stderr)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestOpenHandsSubmissionTrajs: a SWE-bench submission that keeps OpenHands' completion logs
// as trajs/<instance_id>/<model>-<time>.json reads the instance id from the folder, so the
// report's outcomes match; of an instance's logs (one a model call, each the conversation so
// far) the latest is the run, as OpenHands' convert_oh_folder_to_swebench_submission.sh takes
// it. Before, the task was read only under llm_completions/: the outcome matched no trace.
func TestOpenHandsSubmissionTrajs(t *testing.T) {
	src := filepath.Join("..", "gate", "trace", "testdata", "formats", "openhands", "llm_completions", "django__django-11099", "claude-sonnet-4-20250514-1763632900.25.json")
	data := mustRead(t, src)
	sub := t.TempDir()
	dir := filepath.Join(sub, "trajs", "django__django-11099")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "claude-sonnet-4-20250514-1763632900.25.json"), string(data))
	write(t, filepath.Join(dir, "claude-sonnet-4-20250514-999999999.5.json"), string(data)) // earlier: 9 digits
	report := filepath.Join(sub, "results.json")
	write(t, report, `{"completed_ids": ["django__django-11099"], "resolved_ids": ["django__django-11099"], "unresolved_ids": []}`)
	code, stdout, r := gateFolder(t, "--traces", filepath.Join(sub, "trajs"), "--outcomes", report)
	if code != 0 || r.Reliability.Total != 1 || r.Outcomes == nil || r.Outcomes.Known != 1 || r.Outcomes.Successes != 1 {
		t.Errorf("exit %d, %+v %+v\n%s", code, r.Reliability, r.Outcomes, stdout)
	}
	if len(r.Reliability.Traces) == 1 && r.Reliability.Traces[0].ID != "django__django-11099/claude-sonnet-4-20250514-1763632900.25" {
		t.Errorf("read %s", r.Reliability.Traces[0].ID)
	}
	if len(r.Notes) == 0 || r.Notes[0] != "skipped 1 side file: django__django-11099/claude-sonnet-4-20250514-999999999.5.json (an earlier LLM call of the run claude-sonnet-4-20250514-1763632900.25.json holds)" {
		t.Errorf("notes %q", r.Notes)
	}
}
