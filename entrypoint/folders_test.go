package entrypoint

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// folders is gate/trace/testdata/folders: run folders as mini-swe-agent, SWE-agent, tau2-bench
// and Inspect write them (its README names each writer).
var folders = filepath.Join("..", "gate", "trace", "testdata", "folders")

// folderReport is what these tests read of the JSON report. They hold what was read (traces,
// messages, calls, outcomes, notes), not the evaluators' verdicts, which issue 37 and its
// successors tune.
type folderReport struct {
	ExitCode    int      `json:"exit_code"`
	Notes       []string `json:"notes"`
	Reliability struct {
		Total, Pass, Warn, Fail int
		Traces                  []struct {
			ID        string `json:"id"`
			Messages  int    `json:"messages"`
			ToolCalls int    `json:"tool_calls"`
			Outcome   *struct {
				Value   float64 `json:"value"`
				Success bool    `json:"success"`
			} `json:"outcome"`
		} `json:"traces"`
	} `json:"reliability"`
	Outcomes *struct {
		Known, Successes int
	} `json:"outcomes"`
}

// gateFolder runs the gate with args and a JSON report, and returns the exit code, stdout and
// the report.
func gateFolder(t *testing.T, args ...string) (int, string, folderReport) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "report.json")
	code, stdout, stderr := cli(t, "", append([]string{"gate", "--json", out}, args...)...)
	var r folderReport
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("exit %d, no report: %v\n%s%s", code, err, stdout, stderr)
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return code, stdout, r
}

// traceCounts is "id messages calls outcome" for every trace, in report order.
func traceCounts(r folderReport) []string {
	var out []string
	for _, tr := range r.Reliability.Traces {
		o := "-"
		if tr.Outcome != nil {
			o = "fail"
			if tr.Outcome.Success {
				o = "ok"
			}
		}
		out = append(out, strings.Join([]string{tr.ID, itoa(tr.Messages), itoa(tr.ToolCalls), o}, " "))
	}
	return out
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func checkCounts(t *testing.T, r folderReport, want ...string) {
	t.Helper()
	if got := traceCounts(r); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("traces\n got %q\nwant %q", got, want)
	}
}

func checkNotes(t *testing.T, r folderReport, stdout string, want ...string) {
	t.Helper()
	if strings.Join(r.Notes, "\n") != strings.Join(want, "\n") {
		t.Errorf("notes\n got %q\nwant %q", r.Notes, want)
	}
	for _, n := range want {
		if !strings.Contains(stdout, "  note: "+n+"\n") {
			t.Errorf("stdout lacks the note %q:\n%s", n, stdout)
		}
	}
}

// TestFolderMiniSWEAgent: mini-swe-agent's trajs/ folder reads its three trajectories and
// lists its side files (before, preds.json stopped the run with exit code 3); the sb-cli report
// beside them gives the runs' outcomes.
func TestFolderMiniSWEAgent(t *testing.T) {
	trajs := filepath.Join(folders, "minisweagent", "trajs")
	skipped := "skipped 4 side files: preds.json (predictions: a map of instance ids to patches), " +
		"sb-cli-reports/swe-bench_verified__test__mini-run.json (a SWE-bench run report: the runs' outcomes, give it with --outcomes), " +
		"exit_statuses_1753862400.5171092.yaml, minisweagent.log"
	code, stdout, r := gateFolder(t, "--traces", trajs)
	if code != 0 || r.Reliability.Total != 3 {
		t.Errorf("exit %d, %+v\n%s", code, r.Reliability, stdout)
	}
	// the messages of testdata/formats/minisweagent's trajectories, and their bash actions
	checkCounts(t, r, "django__django-11133 14 5 -", "pylint-dev__pylint-7080 7 3 -", "sympy__sympy-20590 8 3 -")
	checkNotes(t, r, stdout, skipped)

	// the two-line recipe of docs/trace-formats.md
	code, stdout, r = gateFolder(t, "--traces", trajs, "--outcomes", filepath.Join(trajs, "sb-cli-reports", "swe-bench_verified__test__mini-run.json"))
	if code != 0 || r.Outcomes == nil || r.Outcomes.Known != 3 || r.Outcomes.Successes != 1 {
		t.Fatalf("exit %d, outcomes %+v\n%s", code, r.Outcomes, stdout)
	}
	// Wilson 95% of 1 in 3: statsmodels' proportion_confint(1, 3, method="wilson")
	if want := "Outcomes: 1 of 3 runs succeeded (0.3333, Wilson 95% 0.0615–0.7923); 0 runs without an outcome\n"; !strings.Contains(stdout, want) {
		t.Errorf("stdout lacks %q:\n%s", want, stdout)
	}
	checkCounts(t, r, "django__django-11133 14 5 ok", "pylint-dev__pylint-7080 7 3 fail", "sympy__sympy-20590 8 3 fail")
}

// TestFolderSWEAgent: SWE-agent's trajectories folder reads its .traj files, each named by its
// instance, and lists all_preds.jsonl, args.yaml, patches/, the log and the .py beside them.
func TestFolderSWEAgent(t *testing.T) {
	run := filepath.Join(folders, "sweagent", "trajectories", "alice", "default__gpt-4o__t-0.00__p-0.95__c-2.00__install-1")
	code, stdout, r := gateFolder(t, "--traces", filepath.Join(folders, "sweagent", "trajectories"))
	if code != 0 || r.Reliability.Total != 2 {
		t.Errorf("exit %d, %+v\n%s", code, r.Reliability, stdout)
	}
	// system and user, then an assistant turn (its action a call) and its observation a step;
	// a .traj has no id (its task is the file's stem, docs/design.md#run-identity). The run of
	// django__django-11133 ends on exit_cost, SWE-agent's own exit, which is no call
	// (docs/trace-formats.md, "SWE-agent's own exits")
	checkCounts(t, r, filepath.Join(run, "astropy__astropy-12907.traj")+":1 8 3 -", filepath.Join(run, "django__django-11133.traj")+":1 6 1 -")
	p := "alice/default__gpt-4o__t-0.00__p-0.95__c-2.00__install-1/"
	checkNotes(t, r, stdout, "skipped 5 side files: "+p+"all_preds.jsonl (predictions: an instance id and its patch a line), "+
		p+"args.yaml, "+p+"patches/astropy__astropy-12907.patch, "+p+"rescore.py, "+p+"run-260820100000.log")

	// the recipe: a SWE-bench run summary's instance ids match the runs by their task
	summary := filepath.Join(t.TempDir(), "my-run.eval-1.json")
	write(t, summary, `{"completed_ids": ["astropy__astropy-12907", "django__django-11133"], "resolved_ids": ["astropy__astropy-12907"], "unresolved_ids": ["django__django-11133"]}`)
	code, stdout, r = gateFolder(t, "--traces", run, "--outcomes", summary)
	if code != 0 || r.Outcomes == nil || r.Outcomes.Known != 2 || r.Outcomes.Successes != 1 {
		t.Errorf("with outcomes: exit %d, %+v\n%s", code, r.Outcomes, stdout)
	}

	// named itself, a side file is read strictly, as before
	code, _, stderr := cli(t, "", "gate", "--traces", filepath.Join(run, "all_preds.jsonl"))
	if code != 3 || !strings.Contains(stderr, "expected a message list") {
		t.Errorf("all_preds.jsonl named: exit %d, %s", code, stderr)
	}
}

// TestFolderSWEAgent1x: SWE-agent 1.x's run_batch and run_single folders of a RetryAgent
// (whose trajectories hold replay_config null) read their .traj files, each agent named by the
// config beside it, which the notes list as read, not as skipped.
func TestFolderSWEAgent1x(t *testing.T) {
	dir := filepath.Join(folders, "sweagent-1.x")
	code, stdout, r := gateFolder(t, "--traces", dir)
	if code != 0 || r.Reliability.Total != 2 {
		t.Errorf("exit %d, %+v\n%s", code, r.Reliability, stdout)
	}
	// both end on exit_cost, SWE-agent's own exit: no call (docs/trace-formats.md, "SWE-agent's own exits")
	checkCounts(t, r, filepath.Join(dir, "batch", "django__django-11133", "django__django-11133.traj")+":1 6 1 -",
		filepath.Join(dir, "single", "django__django-11133", "django__django-11133.traj")+":1 6 1 -")
	checkNotes(t, r, stdout,
		"read 2 side files beside the traces, for what the traces do not record (a run's config): batch/django__django-11133/django__django-11133.config.yaml, single/django__django-11133/config.yaml",
		"skipped 3 side files: batch/preds.json (predictions: a map of instance ids to patches), batch/django__django-11133/django__django-11133.patch, batch/run_batch.config.yaml")
}

// TestFolderTau2: tau2's "dir" format, given as the run folder or as its results.json, reads
// the simulations of simulations/ once each, as tau2's Results.load does.
func TestFolderTau2(t *testing.T) {
	run := filepath.Join(folders, "tau2", "telecom-run")
	// the messages of each simulation; its calls are the agent's (the simulated user's two
	// calls on their own device, requestor "user", are not)
	want := []string{"4f0c2a52-55f3-4b0e-9a8a-2d5e3c1a9b01 15 3 ok", "9d2e7b10-1c44-4f7e-8f3a-6a0b7d2c5e02 6 1 fail", "c1a3f5e7-2b4d-4c6e-8f0a-1b3d5f7a9c03 2 0 -"}
	code, stdout, r := gateFolder(t, "--traces", run)
	if code != 0 || r.Reliability.Total != 3 || r.Outcomes == nil || r.Outcomes.Known != 2 || r.Outcomes.Successes != 1 {
		t.Errorf("exit %d, %+v %+v\n%s", code, r.Reliability, r.Outcomes, stdout)
	}
	checkCounts(t, r, want...)
	checkNotes(t, r, stdout, "skipped 1 side file: results.json (tau2-bench run metadata: its simulations are the files of simulations/)")

	code, stdout, r = gateFolder(t, "--traces", filepath.Join(run, "results.json"))
	if code != 0 || r.Reliability.Total != 3 {
		t.Errorf("results.json: exit %d, %+v\n%s", code, r.Reliability, stdout)
	}
	checkCounts(t, r, want...)
	checkNotes(t, r, stdout)
}

// TestFolderInspect: an Inspect logs folder holding a log in .eval and .json, and a log with no
// samples, reads the first once and lists both (before, the run stopped with exit code 3).
func TestFolderInspect(t *testing.T) {
	logs := filepath.Join(folders, "inspect", "logs")
	code, stdout, r := gateFolder(t, "--traces", logs)
	if code != 0 || r.Reliability.Total != 2 || r.Outcomes == nil || r.Outcomes.Known != 2 || r.Outcomes.Successes != 1 {
		t.Errorf("exit %d, %+v %+v\n%s", code, r.Reliability, r.Outcomes, stdout)
	}
	checkCounts(t, r, "1#1 7 2 ok", "2#1 5 1 fail")
	checkNotes(t, r, stdout, "skipped 2 side files: "+
		"2026-08-20T10-00-00+00-00_gdm-intercode-ctf_Hx7dQ2mV3bL9rT5kW8pN4c.json (the same Inspect log as 2026-08-20T10-00-00+00-00_gdm-intercode-ctf_Hx7dQ2mV3bL9rT5kW8pN4c.eval, read once), "+
		"2026-08-20T11-00-00+00-00_gdm-intercode-ctf_Zq1wE2rT3yU4iO5pA6sD7f.eval (an Inspect log with no samples)")

	// named itself, the log with no samples is an error, as before
	empty := filepath.Join(logs, "2026-08-20T11-00-00+00-00_gdm-intercode-ctf_Zq1wE2rT3yU4iO5pA6sD7f.eval")
	if code, _, stderr := cli(t, "", "gate", "--traces", empty); code != 3 || !strings.Contains(stderr, "holds no samples") {
		t.Errorf("empty log named: exit %d, %s", code, stderr)
	}
}

// TestFolderSciCode: a SciCode-shaped Inspect log keeps the model's turns in events: they are
// read (the grader's turn in the scorers' span is not), and its dict score is read with
// outcome-scorer scorer/key, or said not to be read.
func TestFolderSciCode(t *testing.T) {
	logs := filepath.Join(folders, "scicode", "logs")
	// 13.6: the prompt's 2 messages, 3 model turns and 1 tool result; 77.2: 2, 1 and 1
	code, stdout, r := gateFolder(t, "--traces", logs)
	if code != 0 || r.Reliability.Total != 2 || r.Outcomes != nil {
		t.Errorf("exit %d, %+v %+v\n%s", code, r.Reliability, r.Outcomes, stdout)
	}
	checkCounts(t, r, "13.6#1 6 1 -", "77.2#1 4 1 -")
	checkNotes(t, r, stdout, `2 traces: the score of "scicode_scorer" is a dict (Problem Correctness, Total Correct, Total Steps): not read as an outcome; name one of its keys with outcome-scorer, as in "scicode_scorer/Problem Correctness"`)

	// the scorer named without a key: the same note, not an error (before, exit 3)
	code, stdout, r = gateFolder(t, "--traces", logs, "--outcome-scorer", "scicode_scorer")
	if code != 0 || r.Outcomes != nil {
		t.Errorf("exit %d, %+v\n%s", code, r.Outcomes, stdout)
	}
	checkNotes(t, r, stdout, `2 traces: the score of "scicode_scorer" is a dict (Problem Correctness, Total Correct, Total Steps): not read as an outcome; name one of its keys with outcome-scorer, as in "scicode_scorer/Problem Correctness"`)

	code, stdout, r = gateFolder(t, "--traces", logs, "--outcome-scorer", "scicode_scorer/Problem Correctness")
	if code != 0 || r.Outcomes == nil || r.Outcomes.Known != 2 || r.Outcomes.Successes != 1 {
		t.Errorf("exit %d, %+v\n%s", code, r.Outcomes, stdout)
	}
	checkCounts(t, r, "13.6#1 6 1 ok", "77.2#1 4 1 fail")
	checkNotes(t, r, stdout)

	code, _, stderr := cli(t, "", "gate", "--traces", logs, "--outcome-scorer", "scicode_scorer/Problem")
	if want := `samples[0].scores.scicode_scorer.value has no key "Problem" (outcome-scorer "scicode_scorer/Problem"); it has Problem Correctness, Total Correct, Total Steps`; code != 3 || !strings.Contains(stderr, want) {
		t.Errorf("a key the dict lacks: exit %d, %s", code, stderr)
	}
}

// TestReadBlind: a harness's format whose traces mostly hold no assistant message was read
// blind: exit 3, naming the format and the key looked under (docs/trace-formats.md, "Blind
// reads and crashes"). A few such traces among others say so in a note.
func TestReadBlind(t *testing.T) {
	log := filepath.Join(t.TempDir(), "blind.json")
	sample := func(id string, agent bool) string {
		turn := ""
		if agent {
			turn = `, {"role": "assistant", "content": "answer"}`
		}
		return `{"id": "` + id + `", "epoch": 1, "messages": [{"role": "user", "content": "prompt"}` + turn + `], "scores": {"s": {"value": "C"}}}`
	}
	write := func(samples ...string) {
		if err := os.WriteFile(log, []byte(`{"version": 2, "status": "success", "eval": {}, "samples": [`+strings.Join(samples, ", ")+`]}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(sample("a", false), sample("b", false), sample("c", true))
	code, _, stderr := cli(t, "", "gate", "--traces", log)
	if want := "agentgate: " + log + `: 2 of 3 traces read as Inspect AI log (.json) hold no agent turn (no assistant message under samples[].messages (and their "events")): ` +
		`the format was read blind, and agentgate refuses to judge runs it could not see (docs/trace-formats.md, "Blind reads and crashes")` + "\n"; code != 3 || stderr != want {
		t.Errorf("exit %d, stderr\n got %q\nwant %q", code, stderr, want)
	}
	write(sample("a", false), sample("b", true), sample("c", true))
	_, stdout, r := gateFolder(t, "--traces", log)
	checkCounts(t, r, "a#1 1 0 ok", "b#1 2 0 ok", "c#1 2 0 ok")
	checkNotes(t, r, stdout, "1 trace has no assistant message: the agent's turns were not found in this format",
		"no tool call in any of the 3 traces: the tool signals had nothing to judge")
}

// TestOutcomeField: outcome-field names the member holding a run's success in a format
// agentgate does not know (MedAgentBench writes "correct"), read before the generic names.
func TestOutcomeField(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tasks.jsonl")
	rec := func(id, correct string) string {
		return `{"id": "` + id + `", "score": 1, "messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}], "result": {"correct": ` + correct + `}}` + "\n"
	}
	if err := os.WriteFile(file, []byte(rec("t1", "true")+rec("t2", "false")+rec("t3", "false")), 0o644); err != nil {
		t.Fatal(err)
	}
	// without it, the generic score (1 for all three) is the outcome
	_, _, r := gateFolder(t, "--traces", file)
	checkCounts(t, r, "t1 2 0 ok", "t2 2 0 ok", "t3 2 0 ok")
	code, stdout, r := gateFolder(t, "--traces", file, "--outcome-field", "result.correct")
	if code != 0 || r.Outcomes == nil || r.Outcomes.Known != 3 || r.Outcomes.Successes != 1 {
		t.Errorf("exit %d, %+v\n%s", code, r.Outcomes, stdout)
	}
	checkCounts(t, r, "t1 2 0 ok", "t2 2 0 fail", "t3 2 0 fail")
	// a member no trace has: said, not silent
	_, stdout, r = gateFolder(t, "--traces", file, "--outcome-field", "metadata.correct")
	checkNotes(t, r, stdout, "no tool call in any of the 3 traces: the tool signals had nothing to judge",
		`outcome-field "metadata.correct": no trace has this member (as a boolean or a number), so no outcome was read from it`)
	// a value that is no outcome: exit 3 at its place
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, []byte(rec("t1", `"yes"`)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := cli(t, "", "gate", "--traces", bad, "--outcome-field", "result.correct")
	if want := "agentgate: " + bad + `:1:135: field "result.correct": expected true, false or a number, found the string "yes" (outcome-field)` + "\n"; code != 3 || stderr != want {
		t.Errorf("exit %d, stderr\n got %q\nwant %q", code, stderr, want)
	}
	if code, _, stderr := cli(t, "", "gate", "--traces", file, "--outcome-field", "result..correct"); code != 3 || !strings.Contains(stderr, "outcome-field") {
		t.Errorf("a bad path: exit %d, %s", code, stderr)
	}
}

// TestFolderInspectJSONNoSamples: a .json Inspect log with no samples in a folder (written
// with --no-log-samples) is a side file, told when it is read; the other logs are read.
func TestFolderInspectJSONNoSamples(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.json"), `{"version": 2, "status": "success", "eval": {"eval_id": "A"}, "samples": [{"id": 1, "epoch": 1, "messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]}]}`)
	write(t, filepath.Join(dir, "b.json"), `{"version": 2, "status": "success", "eval": {"eval_id": "B"}, "results": {}}`)
	code, stdout, r := gateFolder(t, "--traces", dir)
	if code != 0 || r.Reliability.Total != 1 {
		t.Errorf("exit %d, %+v\n%s", code, r.Reliability, stdout)
	}
	checkNotes(t, r, stdout, "skipped 1 side file: b.json (an Inspect log with no samples)",
		"no tool call in the one trace: the tool signals had nothing to judge")
}

// TestFolderOpenHands: OpenHands' output folder reads the runs of output.jsonl once: the LLM
// completion logs beside it (one a model call of those runs) and eval_infer.py's results are
// side files, listed.
func TestFolderOpenHands(t *testing.T) {
	src := filepath.Join("..", "gate", "trace", "testdata", "formats", "openhands")
	run := t.TempDir()
	log := filepath.Join("llm_completions", "django__django-11099", "claude-sonnet-4-20250514-1763632900.25.json")
	for _, f := range []string{"output.jsonl", "output.swebench_eval.jsonl", log} {
		data, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(run, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(run, f), string(data))
	}
	code, stdout, r := gateFolder(t, "--traces", run)
	if code != 0 || r.Reliability.Total != 2 || r.Outcomes == nil || r.Outcomes.Known != 2 || r.Outcomes.Successes != 1 {
		t.Errorf("exit %d, %+v %+v\n%s", code, r.Reliability, r.Outcomes, stdout)
	}
	checkNotes(t, r, stdout, "skipped 2 side files: "+filepath.ToSlash(log)+" (an LLM call of a run output.jsonl holds), "+
		"output.swebench_eval.jsonl (OpenHands evaluation results: the runs' outcomes, not runs)")
	// the completion logs alone are the runs
	_, _, r = gateFolder(t, "--traces", filepath.Join(run, "llm_completions"))
	if r.Reliability.Total != 1 {
		t.Errorf("completion logs alone: %+v", r.Reliability)
	}
}

// A file link in a traces folder that leads out of it is listed with the note a folder link
// gets, and its content is never read: before, a trace-shaped file outside (here the
// runner's) was evaluated and its id reached the report, and for any other JSON outside the
// side-file note listed its first record's keys. A link to a file inside the folder is read.
func TestFolderFileLinkOutsideNotRead(t *testing.T) {
	dir := t.TempDir()
	run, outside := filepath.Join(dir, "run"), filepath.Join(dir, "outside")
	for _, d := range []string{filepath.Join(run, "data"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	trace := func(id string) string {
		return `{"id": "` + id + `", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "done"}]}` + "\n"
	}
	write(t, filepath.Join(run, "a.jsonl"), trace("inside-run"))
	write(t, filepath.Join(run, "data", "b.txt"), trace("linked-inside-run"))
	write(t, filepath.Join(outside, "runner.jsonl"), trace("outside-secret-run"))
	write(t, filepath.Join(outside, "config.json"), `{"outside_secret_key": 1}`)
	for target, name := range map[string]string{
		filepath.Join(outside, "runner.jsonl"): "leak.jsonl",
		filepath.Join(outside, "config.json"):  "config.json",
		filepath.Join("data", "b.txt"):         "b.jsonl",
	} {
		if err := os.Symlink(target, filepath.Join(run, name)); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, r := gateFolder(t, "--traces", run)
	if code != 0 {
		t.Errorf("exit %d\n%s", code, stdout)
	}
	checkCounts(t, r, "inside-run 2 0 -", "linked-inside-run 2 0 -")
	checkNotes(t, r, stdout, "skipped 3 side files: config.json (a link to a file outside the folder given, not followed), "+
		"leak.jsonl (a link to a file outside the folder given, not followed), data/b.txt",
		"no tool call in any of the 2 traces: the tool signals had nothing to judge")
	if strings.Contains(stdout, "outside-secret") || strings.Contains(stdout, "outside_secret_key") {
		t.Errorf("the outside files' content reached the report:\n%s", stdout)
	}
}
