package trace

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/internal/refdata"
)

// The files of testdata/formats/tau2-*, minisweagent/ and inspect-scores.json,
// otlp-evaluations.jsonl were written by scripts that follow the harnesses' own writers:
// tau2-bench's Results.save (pydantic model_dump_json(indent=2): every field of Results,
// SimulationRun, the message classes, ToolCall and RewardInfo in model order, None as null),
// mini-swe-agent's save_traj (1.x) and DefaultAgent.save (2.x, text and tool-call models),
// Inspect's EvalLog and the GenAI semantic conventions' gen_ai.evaluation.result event.

// describe writes a trace's messages one per line: role, content, then each call
// (id tool compact-args) and each result (ok/FAIL call-id, and the error for a failure).
func describe(tr *Trace) []string {
	var out []string
	for _, m := range tr.Messages {
		var b strings.Builder
		fmt.Fprintf(&b, "%s %q", m.Role, cut(m.Content))
		for _, c := range m.Calls {
			var args bytes.Buffer
			if json.Compact(&args, c.Args) != nil {
				args.Write(c.Args)
			}
			fmt.Fprintf(&b, " call[%s %s %s]", c.ID, c.Tool, args.String())
		}
		for _, r := range m.Results {
			if r.Success {
				fmt.Fprintf(&b, " ok[%s]", r.CallID)
			} else {
				fmt.Fprintf(&b, " FAIL[%s %q]", r.CallID, cut(r.Error))
			}
		}
		out = append(out, b.String())
	}
	return out
}

// cut keeps the first line of s, at most 40 characters of it.
func cut(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if r := []rune(s); len(r) > 40 {
		s = string(r[:40])
	}
	return s
}

// harnessRun is what the tests check of a trace read from a harness's file.
type harnessRun struct {
	id, task string
	trial    int
	hasTrial bool
	line     int
	usage    Usage
	outcome  Outcome
	messages []string
}

func checkRuns(t *testing.T, got []*Trace, want []harnessRun) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d traces, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.ID != w.id || g.Task != w.task || g.Trial != w.trial || g.HasTrial != w.hasTrial || g.Line != w.line || g.Usage != w.usage || g.Outcome != w.outcome {
			t.Errorf("trace %d: got id %q task %q trial %d/%v line %d usage %+v outcome %+v\nwant id %q task %q trial %d/%v line %d usage %+v outcome %+v",
				i, g.ID, g.Task, g.Trial, g.HasTrial, g.Line, g.Usage, g.Outcome, w.id, w.task, w.trial, w.hasTrial, w.line, w.usage, w.outcome)
		}
		if d := describe(g); strings.Join(d, "\n") != strings.Join(w.messages, "\n") {
			t.Errorf("trace %d messages:\n%s\nwant\n%s", i, strings.Join(d, "\n"), strings.Join(w.messages, "\n"))
		}
	}
}

// failedResults is how many of the trace's tool results failed.
func failedResults(tr *Trace) int {
	failed := 0
	for _, m := range tr.Messages {
		for _, r := range m.Results {
			if !r.Success {
				failed++
			}
		}
	}
	return failed
}

func readWith(t *testing.T, path string, o Options) []*Trace {
	t.Helper()
	var out []*Trace
	if err := EachFileWith(context.Background(), path, o, func(tr *Trace) error { out = append(out, tr); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

const tau2Task = "[mobile_data_issue]airplane_mode_on[PERSONA:None]"

// tau2Failed is the second simulation of tau2-telecom.json, which tau2-dir holds on its own.
var tau2Failed = harnessRun{"9d2e7b10-1c44-4f7e-8f3a-6a0b7d2c5e02", tau2Task, 1, true, 539,
	Usage{Prompt: 3390 + 3430, Completion: 30 + 19, Total: 6869, Recorded: true},
	Outcome{Known: true, Value: 0, Source: "reward_info.reward"},
	[]string{
		`assistant "Hi! How can I help you today?"`,
		`user "My mobile data is not working, number 55"`,
		`assistant "" call[call_X1 enable_roaming {"customer_id":"C1001","line_id":"L1002"}]`,
		`tool "Error: Customer C1001 has not been verif" FAIL[call_X1 "Error: Customer C1001 has not been verif"]`,
		`assistant "I'm sorry, I could not fix it. Transferr"`,
		`user "###TRANSFER###"`,
	}}

func TestTau2Results(t *testing.T) {
	got := readWith(t, filepath.Join("testdata", "formats", "tau2-telecom.json"), Options{})
	checkRuns(t, got, []harnessRun{
		{"4f0c2a52-55f3-4b0e-9a8a-2d5e3c1a9b01", tau2Task, 0, true, 125,
			// the assistant's usage only: the user simulator's is not the agent's
			Usage{Prompt: 3390 + 3461 + 3540 + 3602, Completion: 24 + 40 + 17 + 8, Total: 14082, Recorded: true},
			Outcome{Known: true, Value: 1, Source: "reward_info.reward"},
			[]string{
				`assistant "Hi! How can I help you today?"`,
				`user "Hi, my mobile data stopped working. My p"`,
				`assistant "" call[call_9Wm2 get_customer_by_phone {"phone_number":"555-123-2002"}]`,
				`tool "{\"customer_id\": \"C1001\", \"full_name\": \"J" ok[call_9Wm2]`,
				`assistant "" call[call_Qa10 get_details_by_id {"id":"L1002"}] call[call_Qa11 get_details_by_id {"id":"L9999"}]`,
				`tool "{\"line_id\": \"L1002\", \"status\": \"Active\"," ok[call_Qa10]`,
				`tool "Error: Line L9999 not found" FAIL[call_Qa11 "Error: Line L9999 not found"]`,
				`assistant "Could you check your status bar and tell"`,
				// the simulated user's own tools (requestor "user") are not the agent's calls
				`user ""`,
				`tool "Status Bar: 📶 Excellent | ✈️ Airplane Mo"`,
				`user "It says airplane mode is on."`,
				`assistant "Please turn airplane mode off."`,
				`user ""`,
				`tool "Airplane mode is now OFF."`,
				`user "Done, data works now. ###STOP###"`,
			}},
		tau2Failed,
		// ended by an infrastructure error: no reward_info, no outcome, no agent usage
		{"c1a3f5e7-2b4d-4c6e-8f0a-1b3d5f7a9c03", "[billing]view_bill[PERSONA:None]", 0, true, 752, Usage{}, Outcome{},
			[]string{`assistant "Hi! How can I help you today?"`, `user "I want to know my bill."`}},
	})
	for _, tr := range got {
		if tr.Shape != ShapeOpenAI {
			t.Errorf("%s: shape %s", tr.ID, tr.Shape)
		}
	}
}

// TestTau2Dir reads tau2's "dir" format: results.json lists the simulations it keeps in
// simulations/<id>.json, each read as a record of its own, the same run as in the one-file
// format. Named, results.json reads them from there, as tau2's Results.load does (docs/design.md#harness-folders);
// under a folder it is a side file, and the simulations are read as the folder's files.
func TestTau2Dir(t *testing.T) {
	dir := filepath.Join("testdata", "formats", "tau2-dir")
	want := tau2Failed
	want.line = 1
	checkRuns(t, readWith(t, filepath.Join(dir, "results.json"), Options{}), []harnessRun{want})
	l, err := input.ExpandListing([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	var got []*Trace
	for _, f := range l.Files {
		_, side, err := RecogniseFile(f.Path, f.Folder)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(f.Path) == "results.json" {
			if want := "tau2-bench run metadata: its simulations are the files of simulations/"; side != want {
				t.Errorf("results.json: side %q, want %q", side, want)
			}
			continue
		}
		if side != "" {
			t.Errorf("%s: side %q", f.Path, side)
		}
		got = append(got, readWith(t, f.Path, Options{})...)
	}
	checkRuns(t, got, []harnessRun{want})
}

func TestSniffTau2(t *testing.T) {
	// tau2 writes info and tasks before the simulations, and tasks may be longer than the head
	// Sniff reads: info and tasks tell it.
	long := `{"timestamp": "x", "info": {"num_trials": 1}, "tasks": [{"id": "` + strings.Repeat("a", 2*sniffBytes) + `"}], "simulations": []}`
	for _, c := range []struct {
		head string
		want Format
	}{
		{long, FormatTau2},
		// an info longer than the head: tau2's Info starts with git_commit
		{`{"timestamp": "x", "info": {"git_commit": "abc", "environment_info": {"policy": "` + strings.Repeat("p", 2*sniffBytes) + `"}}, "tasks": []}`, FormatTau2},
		{`{"info": {"git_commit": "abc"}, "messages": []}`, FormatTau2},
		{`{"messages": [], "info": {"git_commit": "abc"}}`, FormatRecords},
		{`{"simulations": [], "info": {}}`, FormatTau2},
		// a trace record with an info member stays a record
		{`{"task_id": 1, "reward": 1.0, "info": {}, "traj": [], "tasks": []}`, FormatRecords},
		{`{"messages": [], "simulations": []}`, FormatRecords},
		{`{"resourceLogs": []}`, FormatOTLP},
	} {
		head := []byte(c.head)
		if len(head) > sniffBytes {
			head = head[:sniffBytes]
		}
		if got := sniff(head); got != c.want {
			t.Errorf("sniff(%.60s) = %v, want %v", c.head, got, c.want)
		}
	}
}

func TestTau2Errors(t *testing.T) {
	sim := func(extra string) string {
		return `{"simulations": [{"id": "s1", "task_id": "t", "trial": 0, "messages": [], ` + extra + `}]}`
	}
	for _, c := range []struct{ name, doc, want string }{
		{"reward a string", sim(`"reward_info": {"reward": "yes"}`),
			`f.json:1:101: field "reward_info.reward": expected a number, found a string ("yes")`},
		{"reward out of range", sim(`"reward_info": {"reward": 1e999}`),
			`f.json:1:101: field "reward_info.reward": must be a finite number, got 1e999`},
		{"reward_info not an object", sim(`"reward_info": 1`),
			`f.json:1:90: field "reward_info": expected an object, found a number`},
		{"no simulations", `{"info": {}, "tasks": []}`, `f.json: the tau2-bench results file has no "simulations" list`},
		{"simulations not a list", `{"simulations": {}}`, `f.json:1:17: field "simulations": expected an array, found an object`},
		{"a simulation without messages", `{"simulations": [{"id": "s1"}]}`,
			`f.json:1:18: expected a message list under "messages", "trajectory", "traj", "history" or "conversations"; found keys: id`},
		{"flat call name a number", `{"simulations": [` + "\n" + ` {"id": "s", "messages": [{"role": "assistant", "tool_calls": [{"id": "c", "name": 5, "arguments": {}}]}]}]}`,
			`f.json:2:84: field "messages[0].tool_calls[0].name": expected a string, found a number`},
		{"error flag a number", `{"simulations": [{"id": "s", "messages": [{"role": "tool", "id": "c", "content": "x", "error": 1}]}]}`,
			`f.json:1:96: field "messages[0].error": expected true, false, a string or null, found a number`},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := eachTau2(context.Background(), "f.json", []byte(c.doc), func(*Trace) error { return nil })
			if err == nil || err.Error() != c.want {
				t.Errorf("err = %v\nwant %s", err, c.want)
			}
			checkFormatError(t, err, "f.json")
		})
	}
}

// TestFlatCallInOpenAIRecord: a flat call {id, name, arguments} reads wherever the OpenAI shape
// does, beside OpenAI's own calls, and a tool message answers it by "id" or "tool_call_id".
func TestFlatCallInOpenAIRecord(t *testing.T) {
	rec := `{"task_id": 7, "trial": 2, "reward": 1.0, "traj": [
		{"role": "user", "content": "hi"},
		{"role": "assistant", "content": null, "tool_calls": [{"id": "a", "type": "function", "function": {"name": "find", "arguments": "{\"q\": 1}"}}, {"id": "b", "name": "get", "arguments": {"k": "v"}}]},
		{"role": "tool", "tool_call_id": "a", "content": "found"},
		{"role": "tool", "id": "b", "content": "Error: no such key", "error": false}]}`
	tr, err := Decode(input.Record{File: "t.json", Line: 1, Col: 1, Data: []byte(rec)})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`user "hi"`,
		`assistant "" call[a find {"q":1}] call[b get {"k":"v"}]`,
		`tool "found" ok[a]`,
		// "error": false is the harness's word: not a failure, whatever the text says
		`tool "Error: no such key" ok[b]`,
	}
	if got := describe(tr); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if tr.ID != "7#2" || tr.Shape != ShapeOpenAI || tr.Outcome != (Outcome{Known: true, Value: 1, Source: "reward"}) {
		t.Errorf("id %s shape %s outcome %+v", tr.ID, tr.Shape, tr.Outcome) // tau-bench's reward
	}
}

func TestMiniSWEAgent(t *testing.T) {
	dir := filepath.Join("testdata", "formats", "minisweagent")
	t.Run("1.x text actions", func(t *testing.T) {
		got := readWith(t, filepath.Join(dir, "django__django-11133", "django__django-11133.traj.json"), Options{})
		checkRuns(t, got, []harnessRun{{"django__django-11133", "django__django-11133", 0, false, 1,
			// extra.response.usage of every model call, the one with two actions included
			Usage{Prompt: 1510 + 1602 + 1733 + 1811 + 1902 + 1960, Completion: 61 + 70 + 48 + 66 + 31 + 40, Total: 10834, Recorded: true},
			Outcome{},
			[]string{
				`system "You are a helpful assistant that can int"`,
				`user "<pr_description>"`,
				`assistant "THOUGHT: Let me find where HttpResponse " call[action-2 bash {"command":"grep -n \"def content\" django/http/response.py"}]`,
				`user "<returncode>0</returncode>" ok[action-2]`,
				// two blocks: a format error, nothing ran
				`assistant "THOUGHT: I will look at both places."`,
				`user "Please always provide EXACTLY ONE action"`,
				`assistant "THOUGHT: Let me check the Python version" call[action-6 bash {"command":"python -c \"import django; print(django.VERSION)\" \u0026\u0026 python -c \"import missing_mod\""}]`,
				`user "<returncode>1</returncode>" FAIL[action-6 "<returncode>1</returncode>"]`,
				`assistant "THOUGHT: Now I fix make_bytes to accept " call[action-8 bash {"command":"sed -i 's/if isinstance(value, bytes):/if isinstance(value, (bytes, memoryview)):/' django/http/response.py"}]`,
				`user "<returncode>0</returncode>" ok[action-8]`,
				`assistant "THOUGHT: Let me run a quick test." call[action-10 bash {"command":"python manage.py shell"}]`,
				`user "The last command <command>python manage." FAIL[action-10 "The last command <command>python manage."]`,
				`assistant "THOUGHT: The fix is done. Submitting." call[action-12 bash {"command":"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT \u0026\u0026 git add -A \u0026\u0026 git diff --cached"}]`,
				// the submission: the command succeeded (mini-swe-agent submits on return code 0 only)
				`user "diff --git a/django/http/response.py b/d" ok[action-12]`,
			}}})
	})
	t.Run("2.x text actions, named by the file", func(t *testing.T) {
		got := readWith(t, filepath.Join(dir, "sympy__sympy-20590.traj.json"), Options{})
		checkRuns(t, got, []harnessRun{{"sympy__sympy-20590", "sympy__sympy-20590", 0, false, 1,
			Usage{Prompt: 2000 + 2100 + 2200, Completion: 50 + 51 + 52, Total: 6453, Recorded: true}, Outcome{},
			[]string{
				`system "You are a helpful assistant."`,
				`user "<pr_description>Symbol instances have __"`,
				`assistant "THOUGHT: Look for __slots__." call[action-2 bash {"command":"grep -n __slots__ sympy/core/symbol.py"}]`,
				`user "<returncode>0</returncode>" ok[action-2]`,
				`assistant "THOUGHT: Run the reproduction." call[action-4 bash {"command":"python reproduce.py"}]`,
				`user "<returncode>2</returncode>" FAIL[action-4 "<returncode>2</returncode>"]`,
				`assistant "THOUGHT: Submit." call[action-6 bash {"command":"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT \u0026\u0026 git diff"}]`,
				`exit "diff --git a/sympy/core/basic.py b/sympy" ok[action-6]`,
			}}})
	})
	t.Run("2.x tool calls", func(t *testing.T) {
		got := readWith(t, filepath.Join(dir, "pylint-dev__pylint-7080", "pylint-dev__pylint-7080.traj.json"), Options{})
		checkRuns(t, got, []harnessRun{{"pylint-dev__pylint-7080", "pylint-dev__pylint-7080", 0, false, 1,
			Usage{Prompt: 2300 + 2500, Completion: 53 + 55, Total: 4908, Recorded: true}, Outcome{},
			[]string{
				`system "You are a helpful assistant."`,
				`user "<pr_description>Fix the flake8 config</p"`,
				`assistant "Let me look around." call[toolu_01 bash {"command":"ls tests/"}] call[toolu_02 bash {"command":"cat setup.cfg | grep -c flake8"}]`,
				`tool "<returncode>0</returncode>" ok[toolu_01]`,
				// an OpenAI result, read as its format says (the default profile reads the
				// status in its text: "Failures written as text" in docs/trace-formats.md)
				`tool "<returncode>1</returncode>" ok[toolu_02]`,
				`assistant "Submitting." call[toolu_03 bash {"command":"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff"}]`,
				// the submitting call ends the run before its output is written: the exit answers it
				`exit "" ok[toolu_03]`,
			}}})
	})
	t.Run("a run that ended on an error while a command ran", func(t *testing.T) {
		// DefaultAgent.handle_uncaught_exception: an exit message with the error, not a submission
		rec := "{\"trajectory_format\": \"mini-swe-agent-1.1\", \"instance_id\": \"a__b-2\", \"messages\": [" +
			"{\"role\": \"assistant\", \"content\": \"```mswea_bash_command\\nmake\\n```\"}, " +
			"{\"role\": \"exit\", \"content\": \"Container stopped\", \"extra\": {\"exit_status\": \"RuntimeError\", \"submission\": \"\"}}]}"
		tr, err := Decode(input.Record{File: "a__b-2.traj.json", Line: 1, Col: 1, Data: []byte(rec)})
		if err != nil {
			t.Fatal(err)
		}
		want := `assistant "` + "```mswea_bash_command" + `" call[action-0 bash {"command":"make"}]` + "\n" +
			`exit "Container stopped" FAIL[action-0 "RuntimeError: Container stopped"]`
		if got := strings.Join(describe(tr), "\n"); got != want {
			t.Errorf("got\n%s\nwant\n%s", got, want)
		}
	})
	t.Run("not mini-swe-agent", func(t *testing.T) {
		// without trajectory_format a fenced block in a chat is not a command, nor an exit an answer
		rec := "{\"messages\": [{\"role\": \"assistant\", \"content\": \"```bash\\nls\\n```\"}, {\"role\": \"user\", \"content\": \"<returncode>1</returncode>\"}]}"
		tr, err := Decode(input.Record{File: "x.traj.json", Line: 1, Col: 1, Data: []byte(rec)})
		if err != nil {
			t.Fatal(err)
		}
		if tr.NumCalls() != 0 || tr.ID != "x.traj.json:1" {
			t.Errorf("id %s, %d calls", tr.ID, tr.NumCalls())
		}
	})
}

func TestReturnCode(t *testing.T) {
	for _, c := range []struct {
		obs string
		n   int
		ok  bool
	}{
		{"<returncode>0</returncode>\n<output>\nx</output>", 0, true},
		{"\n <returncode>127</returncode>", 127, true},
		{"<returncode>-1</returncode>", -1, true},
		{"<exception>timeout</exception>\n<returncode>-1</returncode>", -1, true},
		{"<returncode>x</returncode>", 0, false},
		{"<returncode>1", 0, false},
		{"output <returncode>1</returncode>", 0, false},
	} {
		if n, ok := returnCode(c.obs); n != c.n || ok != c.ok {
			t.Errorf("returnCode(%q) = %d, %v; want %d, %v", c.obs, n, ok, c.n, c.ok)
		}
	}
}

func TestInspectOutcomes(t *testing.T) {
	file := filepath.Join("testdata", "formats", "inspect-scores.json")
	type run struct {
		id      string
		outcome Outcome
	}
	for _, c := range []struct {
		scorer string
		want   []run
	}{
		{"", []run{ // the first scorer: includes
			{"1#1", Outcome{Known: true, Value: 1, IsBool: true, Source: "scores.includes"}},
			{"1#2", Outcome{Known: true, Value: 0, IsBool: true, Source: "scores.includes"}},
			{"two#1", Outcome{Known: true, Value: 0.75, Source: "scores.includes"}},
			{"two#2", Outcome{Known: true, Value: 1, IsBool: true, Source: "scores.includes"}},
			{"three#1", Outcome{}},
		}},
		{"model_graded_qa", []run{
			{"1#1", Outcome{Known: true, Value: 0.5, Source: "scores.model_graded_qa"}}, // "P": partial
			{"1#2", Outcome{Known: true, Value: 1, IsBool: true, Source: "scores.model_graded_qa"}},
			{"two#1", Outcome{Known: true, Value: 0, IsBool: true, Source: "scores.model_graded_qa"}}, // "N": no answer
			{"two#2", Outcome{Known: true, Value: 1, Source: "scores.model_graded_qa"}},               // "1.0"
			{"three#1", Outcome{}},
		}},
	} {
		got := readWith(t, file, Options{OutcomeScorer: c.scorer})
		if len(got) != len(c.want) {
			t.Fatalf("%d traces", len(got))
		}
		for i, w := range c.want {
			if got[i].ID != w.id || got[i].Outcome != w.outcome {
				t.Errorf("scorer %q: trace %s outcome %+v, want %s %+v", c.scorer, got[i].ID, got[i].Outcome, w.id, w.outcome)
			}
		}
	}
	// the same in a .eval archive, whose samples are members of their own
	if tr := readWith(t, filepath.Join("testdata", "formats", "inspect-tools.eval"), Options{}); tr[0].Outcome != (Outcome{Known: true, Value: 1, IsBool: true, Source: "scores.match"}) {
		t.Errorf(".eval outcome %+v", tr[0].Outcome)
	}
	// Inspect's own log: its one sample was scored "I"
	ref := readWith(t, refdata.Path(t, "formats/inspect-log_formats.json"), Options{})
	if len(ref) != 1 || ref[0].Outcome != (Outcome{Known: true, Value: 0, IsBool: true, Source: "scores.match"}) {
		t.Errorf("reference log: %d traces, outcome %+v", len(ref), ref[0].Outcome)
	}
}

func TestInspectOutcomeErrors(t *testing.T) {
	logWith := func(scores string) string {
		return `{"version": 2, "status": "success", "eval": {}, "samples": [` + "\n" +
			`{"id": 1, "epoch": 1, "messages": [], "scores": ` + scores + `}]}`
	}
	for _, c := range []struct{ name, scorer, scores, want string }{
		{"a word", "", `{"judge": {"value": "GOOD"}}`,
			`f.json:2:69: samples[0].scores.judge.value: "GOOD" is not a score agentgate can read as an outcome (want "C", "I", "P", "N", a number or true/false)`},
		{"NaN as a string", "", `{"judge": {"value": "NaN"}}`,
			`f.json:2:69: samples[0].scores.judge.value: "NaN" is not a score agentgate can read as an outcome (want "C", "I", "P", "N", a number or true/false)`},
		{"a number out of range", "", `{"judge": {"value": -1e400}}`,
			`f.json:2:69: samples[0].scores.judge.value must be a finite number, got -1e400`},
		{"the named scorer is missing", "exact", `{"judge": {"value": "C"}, "f1": {"value": 1}}`,
			`f.json:2:49: samples[0].scores has no scorer "exact" (outcome-scorer); it has judge, f1`},
		{"the named key is not in the dict", "judge/b", `{"judge": {"value": {"a": 1}}}`,
			`f.json:2:69: samples[0].scores.judge.value has no key "b" (outcome-scorer "judge/b"); it has a`},
		{"a key of a score that is no dict", "judge/a", `{"judge": {"value": "C"}}`,
			`f.json:2:69: samples[0].scores.judge.value: expected a dict, found a string, so outcome-scorer "judge/a" names no key of it`},
		{"the named key gives a word", "judge/a", `{"judge": {"value": {"a": "GOOD"}}}`,
			`f.json:2:75: samples[0].scores.judge/a.value: "GOOD" is not a score agentgate can read as an outcome (want "C", "I", "P", "N", a number or true/false)`},
		{"a score without a value", "", `{"judge": {"answer": "x"}}`,
			`f.json:2:59: samples[0].scores.judge: a score without a "value"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := eachInspectJSON(context.Background(), "f.json", []byte(logWith(c.scores)), Options{OutcomeScorer: c.scorer}, func(*Trace) error { return nil })
			if err == nil || err.Error() != c.want {
				t.Errorf("err = %v\nwant %s", err, c.want)
			}
		})
	}
	// the first scorer giving several values has no outcome to offer: not an error
	var got Outcome
	err := eachInspectJSON(context.Background(), "f.json", []byte(logWith(`{"multi": {"value": {"a": 1}}, "match": {"value": "C"}}`)), Options{}, func(tr *Trace) error {
		got = tr.Outcome
		return nil
	})
	if err != nil || got.Known {
		t.Errorf("err %v, outcome %+v", err, got)
	}
}

func TestOTLPOutcomes(t *testing.T) {
	file := filepath.Join("testdata", "formats", "otlp-evaluations.jsonl")
	for _, c := range []struct {
		scorer string
		want   [3]Outcome
	}{
		// the first evaluation: a span event's label, then (trace B) a log record's
		{"", [3]Outcome{{Known: true, Value: 1, IsBool: true, Source: "gen_ai.evaluation.result:Relevance"},
			{Known: true, Value: 0, IsBool: true, Source: "gen_ai.evaluation.result:Correctness"}, {}}},
		// by name; a score's value wins over its label
		{"Correctness", [3]Outcome{{Known: true, Value: 0.4, Source: "gen_ai.evaluation.result:Correctness"},
			{Known: true, Value: 0, IsBool: true, Source: "gen_ai.evaluation.result:Correctness"}, {}}},
	} {
		got := readWith(t, file, Options{OutcomeScorer: c.scorer})
		if len(got) != 3 {
			t.Fatalf("%d traces", len(got))
		}
		for i := range got {
			if got[i].Outcome != c.want[i] {
				t.Errorf("scorer %q: %s outcome %+v, want %+v", c.scorer, got[i].ID, got[i].Outcome, c.want[i])
			}
		}
		if n := got[0].NumCalls(); n != 1 {
			t.Errorf("%d calls", n)
		}
	}
	span := func(event string) string {
		return `{"resourceSpans":[{"scopeSpans":[{"spans":[` + "\n" + `{"traceId":"t1","spanId":"s1","name":"agent","events":[{"name":"gen_ai.evaluation.result","attributes":[` + event + `]}]}]}]}]}`
	}
	for _, c := range []struct{ name, doc, scorer, want string }{
		{"a label that is not pass or fail", span(`{"key":"gen_ai.evaluation.score.label","value":{"stringValue":"maybe"}}`), "",
			`f.json:2:1: span 0 (spanId s1): event 0 (gen_ai.evaluation.result): gen_ai.evaluation.score.label "maybe" is neither "pass" nor "fail", and there is no gen_ai.evaluation.score.value`},
		{"a value that is a string", span(`{"key":"gen_ai.evaluation.score.value","value":{"stringValue":"yes"}}`), "",
			`f.json:2:1: span 0 (spanId s1): event 0 (gen_ai.evaluation.result): gen_ai.evaluation.score.value must be a number, got "yes"`},
		{"NaN", span(`{"key":"gen_ai.evaluation.score.value","value":{"doubleValue":"NaN"}}`), "",
			`f.json:2:1: span 0 (spanId s1): event 0 (gen_ai.evaluation.result): gen_ai.evaluation.score.value must be a finite number, got NaN`},
		{"no score", span(`{"key":"gen_ai.evaluation.name","value":{"stringValue":"x"}}`), "",
			`f.json:2:1: span 0 (spanId s1): event 0 (gen_ai.evaluation.result): has neither gen_ai.evaluation.score.value nor gen_ai.evaluation.score.label`},
		{"the named evaluation is missing", span(`{"key":"gen_ai.evaluation.name","value":{"stringValue":"x"}}`), "y",
			`f.json:2:1: trace "t1" has no gen_ai.evaluation.result named "y" (outcome-scorer); its evaluations are "x"`},
		{"log records only", `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"traceId":"t1","eventName":"gen_ai.evaluation.result"}]}]}]}`, "",
			`f.json: the OTLP file holds no spans, only log records: a run's gen_ai.evaluation.result log records are read beside its spans, in the same file`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := readOTLP("f.json", []byte(c.doc), Options{OutcomeScorer: c.scorer})
			if err == nil || err.Error() != c.want {
				t.Errorf("err = %v\nwant %s", err, c.want)
			}
		})
	}
}
