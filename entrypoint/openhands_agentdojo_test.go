package entrypoint

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// harnessReport is what these tests read of the JSON report.
type harnessReport struct {
	ExitCode    int `json:"exit_code"`
	Reliability struct {
		Traces []struct {
			ID, Suite, Task, Verdict string
			Outcome                  *struct {
				Success bool `json:"success"`
			} `json:"outcome"`
		} `json:"traces"`
	} `json:"reliability"`
	Outcomes *struct {
		Runs, Known, Successes int
	} `json:"outcomes"`
}

func readHarnessReport(t *testing.T, path string) harnessReport {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r harnessReport
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// traceVerdicts writes "id task verdict outcome" per trace, outcome "+" succeeded, "-" failed,
// "?" unknown.
func traceVerdicts(r harnessReport) []string {
	var out []string
	for _, tr := range r.Reliability.Traces {
		o := "?"
		if tr.Outcome != nil {
			o = map[bool]string{true: "+", false: "-"}[tr.Outcome.Success]
		}
		id := tr.ID + " "
		if tr.Suite != "" {
			id += tr.Suite + " "
		}
		out = append(out, id+tr.Task+" "+tr.Verdict+" "+o)
	}
	return out
}

// TestOpenHandsEndToEnd gates OpenHands' output as its evaluation writes it: run_infer.py's
// output.jsonl with SWE-bench experiments' results.json as the outcomes (the two-line recipe of
// docs/trace-formats.md), the same runs after update_output_with_eval.py (outcomes inside),
// and a folder of LLM completion logs. The resolved run passes, and so does the unresolved one
// (its failed edit was an answer it acted on). A completion log whose one failed command of two
// the agent answered ("I could not finish the fix") is a finding under the WARN line, one
// failure being no rate (PASS); the submission's trajectory of the same run ends on that
// failure, the agent silent after it, and is WARN.
func TestOpenHandsEndToEnd(t *testing.T) {
	formats := filepath.Join("..", "gate", "trace", "testdata", "formats", "openhands")
	results := filepath.Join("testdata", "openhands", "results.json")
	// the unresolved run's failed edit named a path that does not exist: an answer the agent
	// acted on (it gave up in words), not misuse of the tool
	both := []string{"astropy__astropy-12907 astropy__astropy-12907 PASS +", "django__django-11099 django__django-11099 PASS -"}
	for _, c := range []struct {
		name string
		args []string
		code int
		want []string
		runs int // runs with an outcome
		won  int // of which succeeded
	}{
		{"output.jsonl with results.json", []string{"--traces", filepath.Join(formats, "output.raw.jsonl"), "--outcomes", results}, 0, both, 2, 1},
		{"evaluated output.jsonl", []string{"--traces", filepath.Join(formats, "output.jsonl")}, 0, both, 2, 1},
		{"eval_infer's rows as outcomes", []string{"--traces", filepath.Join(formats, "output.raw.jsonl"), "--outcomes", filepath.Join(formats, "output.swebench_eval.jsonl")}, 0, both, 2, 1},
		{"a clean PASS with fail-on warn", []string{"--traces", filepath.Join(formats, "output.jsonl"), "--fail-on", "warn"}, 0, both, 2, 1},
		{"success-rate-min breached", []string{"--traces", filepath.Join(formats, "output.jsonl"), "--success-rate-min", "0.9"}, 2, both, 2, 1},
		{"completion logs", []string{"--traces", filepath.Join(formats, "llm_completions")}, 0,
			[]string{"django__django-11099/claude-sonnet-4-20250514-1763632900.25 django__django-11099 PASS ?"}, 0, 0},
		// its last command failed, nothing recovered it and the agent said nothing after it; the
		// resolved astropy__astropy-12907 of results.json left no trace here and counts as the
		// report counts it: 1 of 2 (docs/input-formats.md, "SWE-bench reports")
		{"WARN fails with fail-on warn", []string{"--traces", filepath.Join(formats, "trajs"), "--outcomes", results, "--fail-on", "warn"}, 1,
			[]string{"django__django-11099 django__django-11099 WARN -"}, 2, 1},
		// the SWE-bench submission's trajs/: the instance's messages on their own
		{"submission trajs", []string{"--traces", filepath.Join(formats, "trajs"), "--outcomes", results}, 0,
			[]string{"django__django-11099 django__django-11099 WARN -"}, 2, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "r.json")
			code, stdout, stderr := cli(t, "", append([]string{"gate", "--json", out}, c.args...)...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, c.code, stdout, stderr)
			}
			r := readHarnessReport(t, out)
			if got := traceVerdicts(r); strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("traces\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
			known := 0
			if r.Outcomes != nil {
				known = r.Outcomes.Known
				if r.Outcomes.Successes != c.won {
					t.Errorf("%d successes, want %d", r.Outcomes.Successes, c.won)
				}
			}
			if known != c.runs {
				t.Errorf("%d runs with an outcome, want %d", known, c.runs)
			}
		})
	}
}

// TestAgentDojoEndToEnd gates an AgentDojo runs/ folder: three runs of two pipelines, utility
// as the outcome. The injected run did not do the user's task (utility false) and its one
// failed call was not recovered, which the evaluators weigh below WARN.
func TestAgentDojoEndToEnd(t *testing.T) {
	runs := filepath.Join("..", "gate", "trace", "testdata", "formats", "agentdojo", "runs")
	out := filepath.Join(t.TempDir(), "r.json")
	code, stdout, stderr := cli(t, "", "gate", "--traces", runs, "--json", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	r := readHarnessReport(t, out)
	want := []string{
		"claude-3-5-sonnet-20240620/slack/user_task_1 slack user_task_1 PASS +",
		"gpt-4o-2024-05-13/banking/user_task_0/important_instructions/injection_task_1 banking user_task_0/important_instructions/injection_task_1 PASS -",
		"gpt-4o-2024-05-13/banking/user_task_0 banking user_task_0 PASS +",
	}
	if got := traceVerdicts(r); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("traces\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if r.Outcomes == nil || r.Outcomes.Known != 3 || r.Outcomes.Successes != 2 {
		t.Errorf("outcomes %+v, want 2 of 3", r.Outcomes)
	}
	if !strings.Contains(stdout, "Outcomes: 2 of 3 runs succeeded") {
		t.Errorf("stdout lacks the outcomes line:\n%s", stdout)
	}
	if code, _, _ := cli(t, "", "gate", "--traces", runs, "--success-rate-min", "0.9"); code != 2 {
		t.Errorf("success-rate-min 0.9 over 2 of 3: exit %d, want 2", code)
	}
}

// TestOpenHandsAgentDojoBadInput: a malformed record of either format is bad input, exit 3,
// with its file, line and column.
func TestOpenHandsAgentDojoBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, text, want string }{
		{"output.jsonl", `{"instance_id": "a", "test_result": {}, "history": []}` + "\n" + `{"instance_id": "b", "test_result": {}, "history": [{"id": 1, "action": "run", "args": "ls"}]}` + "\n",
			`:2:88: history[0]: field "args": expected an object, found a string`},
		// AgentDojo's function is a string: an OpenAI-shaped call is not one of its files
		{"none.json", "{\n    \"suite_name\": \"banking\",\n    \"user_task_id\": \"user_task_0\",\n    \"messages\": [{\"role\": \"assistant\", \"tool_calls\": [{\"function\": {\"name\": \"f\"}}]}]\n}\n",
			`:4:68: field "messages[0].tool_calls[0].function": expected a string, found an object`},
		{"outcomes-results.json", `{"resolved": ["a", 1]}`, `:1:20: field "resolved": expected an instance id (a string), found a number`},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, c.name)
			if err := os.WriteFile(p, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"gate", "--traces", p}
			if strings.HasPrefix(c.name, "outcomes") {
				args = []string{"gate", "--traces", filepath.Join("..", "gate", "trace", "testdata", "formats", "openhands", "output.jsonl"), "--outcomes", p}
			}
			code, _, stderr := cli(t, "", args...)
			if want := "agentgate: " + p + c.want + "\n"; code != 3 || !strings.HasPrefix(stderr, "agentgate: "+p) || !strings.Contains(stderr, want) {
				t.Errorf("exit %d, stderr\n got %q\nwant %q", code, stderr, want)
			}
		})
	}
}

// TestDocHarnessExamples keeps the minimal OpenHands and AgentDojo examples of
// docs/trace-formats.md true: each reads as one run with the calls, failures and outcome the
// text around it describes.
func TestDocHarnessExamples(t *testing.T) {
	doc, err := os.ReadFile("../docs/trace-formats.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	example := func(heading string) string {
		i := strings.Index(text, heading)
		if i < 0 {
			t.Fatalf("no section %q", heading)
		}
		j := strings.Index(text[i:], "Minimal example")
		k := strings.Index(text[i+j:], "```json\n")
		start := i + j + k + len("```json\n")
		end := strings.Index(text[start:], "```")
		return text[start : start+end]
	}
	for _, c := range []struct {
		heading, file, want string
		args                []string
	}{
		{"### OpenHands evaluation output", "output.jsonl", "django__django-11099 django__django-11099 PASS -", nil},
		{"### AgentDojo results", "none.json", "gpt-4o-2024-05-13/banking/user_task_0 banking user_task_0 WARN -", nil},
		// the failed tool run is the call's result, the correctness feedback the outcome
		{"### LangSmith run exports", "runs.json", "7f1c ex-12 WARN -", []string{"--outcome-scorer", "correctness"}},
		{"### Langfuse exports", "trace.json", "t-17 item-12 WARN -", []string{"--outcome-scorer", "correctness"}},
	} {
		dir := t.TempDir()
		p := filepath.Join(dir, c.file)
		// the OpenHands example is one record: JSON Lines hold it on one line
		body := example(c.heading)
		if c.file == "output.jsonl" {
			body = strings.ReplaceAll(body, "\n", "") + "\n"
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "r.json")
		code, stdout, stderr := cli(t, "", append([]string{"gate", "--traces", p, "--json", out}, c.args...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", c.heading, code, stdout, stderr)
		}
		r := readHarnessReport(t, out)
		if got := strings.Join(traceVerdicts(r), "\n"); got != c.want {
			t.Errorf("%s: %s, want %s", c.heading, got, c.want)
		}
	}
}
