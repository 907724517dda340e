package trace

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/input"
)

// The files of testdata/formats/openhands were written by a script that follows OpenHands'
// own writers (All-Hands-AI/OpenHands at 156d0686c46a, see testdata/formats/openhands/README.md):
// EvalOutput.model_dump_json for output.raw.jsonl, update_output_with_eval.py's json.dumps with
// "report" for output.jsonl, eval_infer.py's rows for output.swebench_eval.jsonl, and
// LLM.completion's log_completions dict for llm_completions/.

// ohRead reads OpenHands records from text, as EachOpenHands reads a file named f.jsonl.
func ohRead(text string) ([]*Trace, error) {
	var out []*Trace
	err := input.EachReader("f.jsonl", strings.NewReader(text), func(rec input.Record) error {
		t, err := decodeOpenHands(rec)
		if err != nil {
			return err
		}
		out = append(out, t)
		return nil
	})
	return out, err
}

// ohPrelude is the start of every history of the fixture: the system prompt, the task, and
// OpenHands' recall of the workspace context (not a call of the agent's).
var ohPrelude = []string{
	`system "You are OpenHands agent, a helpful AI as"`,
	`user "<uploaded_files>"`,
	`system ""`,
	`system "Added workspace context"`,
}

var ohResolved = harnessRun{"astropy__astropy-12907", "astropy__astropy-12907", 0, false, 1,
	Usage{Prompt: 8000 + 9500 + 10500 + 11500 + 12500, Completion: 200 + 150 + 250 + 180 + 120, Total: 52900, Recorded: true},
	Outcome{Known: true, Value: 1, IsBool: true, Source: "report.resolved"},
	append(append([]string{}, ohPrelude...),
		`assistant "Let me find _cstack." call[toolu_01A execute_bash {"command":"grep -n \"def _cstack\" astropy/modeling/separable.py"}]`,
		`tool "219:def _cstack(left, right):" ok[toolu_01A]`,
		`assistant "Reproduce the bug first." call[toolu_02A execute_bash {"command":"python reproduce.py"}]`,
		// "success": false, as event_to_dict writes a command's exit code 1
		`tool "Traceback (most recent call last):" FAIL[toolu_02A "Traceback (most recent call last):"]`,
		`assistant "" call[toolu_03A str_replace_editor {"command":"str_replace","path":"/workspace/repo/astropy/modeling/separable.py","old_str":"cright[-right.shape[0]:, -right.shape[1]:] = 1","new_str":"cright[-right.shape[0]:, -right.shape[1]:] = right"}]`,
		`tool "The file /workspace/repo/astropy/modelin" ok[toolu_03A]`,
		`assistant "Check the fix." call[toolu_04A execute_bash {"command":"python reproduce.py"}]`,
		`tool "separability matrix is correct" ok[toolu_04A]`,
		// finish ends the run: the agent's last word, not a call awaiting a result
		`assistant "Fixed _cstack to copy the right operand'"`,
		`system ""`,
	)}

var ohUnresolved = harnessRun{"django__django-11099", "django__django-11099", 0, false, 2,
	Usage{Prompt: 17000, Completion: 300, Total: 17300, Recorded: true},
	Outcome{Known: true, Value: 0, IsBool: true, Source: "report.resolved"},
	append(append([]string{}, ohPrelude...),
		`assistant "" call[toolu_01B execute_bash {"command":"ls django/contrib/auth"}]`,
		`tool "__init__.py" ok[toolu_01B]`,
		`assistant "" call[toolu_02B str_replace_editor {"command":"str_replace","path":"/workspace/repo/django/contrib/auth/validator.py","old_str":"r'^[\\w.@+-]+$'","new_str":"r'\\A[\\w.@+-]+\\Z'"}]`,
		`tool "ERROR:" FAIL[toolu_02B "ERROR:"]`, // an error observation
		`assistant "I could not find the validator module."`,
	)}

func TestOpenHandsOutput(t *testing.T) {
	got := readWith(t, filepath.Join("testdata", "formats", "openhands", "output.jsonl"), Options{})
	checkRuns(t, got, []harnessRun{ohResolved, ohUnresolved})
	for i, w := range []struct {
		messages, calls, failed int
		perCall                 CallUsage
	}{{14, 4, 1, CallUsage{Calls: 5, MaxPrompt: 12500}}, {9, 2, 1, CallUsage{Calls: 2, MaxPrompt: 9000}}} {
		tr := got[i]
		failed := failedResults(tr)
		if len(tr.Messages) != w.messages || tr.NumCalls() != w.calls || failed != w.failed || tr.PerCall != w.perCall || tr.Shape != ShapeOpenHands {
			t.Errorf("%s: %d messages, %d calls, %d failed, per call %+v, shape %s; want %d, %d, %d, %+v", tr.ID,
				len(tr.Messages), tr.NumCalls(), failed, tr.PerCall, tr.Shape, w.messages, w.calls, w.failed, w.perCall)
		}
	}
	// run_infer.py's own output.jsonl, before evaluation: the same runs, no outcome
	raw := readWith(t, filepath.Join("testdata", "formats", "openhands", "output.raw.jsonl"), Options{})
	a, b := ohResolved, ohUnresolved
	a.outcome, b.outcome = Outcome{}, Outcome{}
	checkRuns(t, raw, []harnessRun{a, b})
}

const ohLog = "testdata/formats/openhands/llm_completions/django__django-11099/claude-sonnet-4-20250514-1763632900.25.json"

// TestOpenHandsCompletionLog reads an LLM completion log: fncall_messages (and fncall_response's
// message) are preferred to the text-mode messages beside them, which read to the same calls
// and results when they are alone; the instance is the folder the log was saved in.
func TestOpenHandsCompletionLog(t *testing.T) {
	got := readWith(t, filepath.FromSlash(ohLog), Options{})
	checkRuns(t, got, []harnessRun{{"django__django-11099/claude-sonnet-4-20250514-1763632900.25", "django__django-11099", 0, false, 1,
		Usage{Prompt: 9400, Completion: 60, Total: 9460, Recorded: true}, Outcome{},
		[]string{
			`system "You are OpenHands agent, a helpful AI as"`,
			`user "<uploaded_files>"`,
			`assistant "Let me look at the auth package." call[toolu_01B execute_bash {"command":"ls django/contrib/auth"}]`,
			`tool "__init__.py" ok[toolu_01B]`,
			`assistant "Now the current regex." call[toolu_02B execute_bash {"command":"python -c 'import django.contrib.auth.validators as v; print(v.ASCIIUsernameValidator.regex'"}]`,
			`tool "  File \"<string>\", line 1" FAIL[toolu_02B "exit code 1"]`,
			`assistant "The validators use $; switching to \\Z."`,
		}}})

	// The text-mode messages alone: the example calls in the first user turn are not calls,
	// the response cut at the stop word "</function" still holds its finish.
	data, err := os.ReadFile(filepath.FromSlash(ohLog))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	// A long prompt (the head Sniff reads ends inside it): told by its content all the same,
	// and read from its fncall_messages.
	var msgs []map[string]any
	if err := json.Unmarshal(doc["messages"], &msgs); err != nil {
		t.Fatal(err)
	}
	parts := msgs[0]["content"].([]any)
	part := parts[0].(map[string]any)
	part["text"] = part["text"].(string) + strings.Repeat("\nobservation text", sniffBytes/8)
	long := map[string]json.RawMessage{}
	for k, v := range doc {
		long[k] = v
	}
	longMsgs, _ := json.Marshal(msgs)
	delete(long, "messages")
	dir := filepath.Join(t.TempDir(), "llm_completions", "django__django-11099")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	longFile := filepath.Join(dir, "m-1.json")
	b, _ := json.Marshal(long) // the rest, after messages as OpenHands writes them first
	b = append([]byte(`{"messages": `+string(longMsgs)+`, `), b[1:]...)
	if err := os.WriteFile(longFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if f, err := Sniff(longFile); err != nil || f != FormatOpenHands {
		t.Fatalf("Sniff = %v, %v", f, err)
	}
	lg := readWith(t, longFile, Options{})
	if len(lg) != 1 || lg[0].ID != "django__django-11099/m-1" || strings.Join(describe(lg[0]), "\n") != strings.Join(describe(got[0]), "\n") {
		t.Errorf("the long log reads\n%s", strings.Join(describe(lg[0]), "\n"))
	}

	delete(doc, "fncall_messages")
	delete(doc, "fncall_response")
	text, _ := json.Marshal(doc)
	tm, err := ohRead(string(text))
	if err != nil {
		t.Fatal(err)
	}
	fn := got[0]
	if len(tm) != 1 || len(tm[0].Messages) != len(fn.Messages) {
		t.Fatalf("text mode: %d traces", len(tm))
	}
	for i := range fn.Messages {
		a, b := fn.Messages[i], tm[0].Messages[i]
		if len(a.Calls) != len(b.Calls) || len(a.Results) != len(b.Results) {
			t.Fatalf("message %d: fncall %d calls %d results, text mode %d, %d", i, len(a.Calls), len(a.Results), len(b.Calls), len(b.Results))
		}
		for j := range a.Calls {
			var fa bytes.Buffer
			if err := json.Compact(&fa, a.Calls[j].Args); err != nil {
				t.Fatal(err)
			}
			if a.Calls[j].Tool != b.Calls[j].Tool || !bytes.Equal(fa.Bytes(), b.Calls[j].Args) || b.Calls[j].ID != textActionID(i) {
				t.Errorf("message %d call %d: fncall %s %s, text mode %s %s %s", i, j, a.Calls[j].Tool, a.Calls[j].Args, b.Calls[j].ID, b.Calls[j].Tool, b.Calls[j].Args)
			}
		}
		for j := range a.Results {
			if a.Results[j].Success != b.Results[j].Success || b.Results[j].CallID != textActionID(i-1) {
				t.Errorf("message %d result %d: fncall %v, text mode %v for %s", i, j, a.Results[j].Success, b.Results[j].Success, b.Results[j].CallID)
			}
		}
	}
}

// TestOpenHandsHistoryForms reads the older history of [action, observation] pairs, events
// without tool_call_metadata (answered through their cause), an observation whose command
// timed out (success false), one with only its exit code, and the text-mode turns of
// raw_completions.
func TestOpenHandsHistoryForms(t *testing.T) {
	got, err := ohRead(`{"instance_id": "x__x-1", "test_result": {}, "history": [` +
		`[{"id": 1, "source": "agent", "action": "run", "args": {"command": "ls", "thought": "look"}}, {"id": 2, "source": "agent", "cause": 1, "observation": "run", "content": "a.py", "extras": {}, "success": true}],` +
		`[{"id": 3, "source": "agent", "action": "run", "args": {"command": "sleep 999"}}, {"id": 4, "source": "agent", "cause": 3, "observation": "run", "content": "", "extras": {"metadata": {"exit_code": -1}}, "success": false}],` +
		`[{"id": 5, "source": "agent", "action": "run", "args": {"command": "false"}}, {"id": 6, "source": "agent", "cause": 5, "observation": "run", "content": "", "extras": {"command_id": -1, "command": "false", "exit_code": 1}}],` +
		`[{"id": 7, "source": "agent", "action": "finish", "args": {"final_thought": "done"}}, {"id": 8, "source": "agent", "observation": "null", "content": "", "extras": {}}]]}` + "\n" +
		`{"instance_id": "x__x-2", "test_result": {}, "raw_completions": {"messages": [{"role": "assistant", "content": "<function=execute_bash>\n<parameter=command>ls</parameter>\n</function>"}, {"role": "user", "content": "EXECUTION RESULT of [execute_bash]:\nls: cannot access 'x': No such file or directory\n[Command finished with exit code 2]"}, {"role": "user", "content": "EXECUTION RESULT of [execute_bash]:\nan answer to no call"}]}}` + "\n")
	if err != nil {
		t.Fatal(err)
	}
	checkRuns(t, got, []harnessRun{
		{"x__x-1", "x__x-1", 0, false, 1, Usage{}, Outcome{}, []string{
			`assistant "look" call[event-1 run {"command":"ls"}]`,
			`tool "a.py" ok[event-1]`,
			`assistant "" call[event-3 run {"command":"sleep 999"}]`,
			`tool "" FAIL[event-3 "run failed"]`,
			// a file from before "success" was written: the exit code in extras says it
			`assistant "" call[event-5 run {"command":"false"}]`,
			`tool "" FAIL[event-5 "exit code 1"]`,
			`assistant "done"`,
			`system ""`,
		}},
		{"x__x-2", "x__x-2", 0, false, 2, Usage{}, Outcome{}, []string{
			`assistant "<function=execute_bash>" call[action-0 execute_bash {"command":"ls"}]`,
			`user "EXECUTION RESULT of [execute_bash]:" FAIL[action-0 "exit code 2"]`,
			`user "EXECUTION RESULT of [execute_bash]:"`,
		}},
	})
}

// TestOpenHandsExported reads a trajectory exported from a text-mode run (SWE-Gym's
// OpenHands trajectories: its text-mode messages, the instance and resolved beside them): its
// calls from the <function=…> turns, its outcome the top-level resolved.
func TestOpenHandsExported(t *testing.T) {
	p := filepath.Join(t.TempDir(), "trajectories.jsonl")
	line := `{"instance_id": "x__x-1", "messages": [{"role": "system", "content": "You have access to the following functions:\n\n---- BEGIN FUNCTION #1: execute_bash ----\n"},` +
		`{"role": "assistant", "content": "<function=execute_bash>\n<parameter=command>ls</parameter>\n</function>"},` +
		`{"role": "user", "content": "EXECUTION RESULT of [execute_bash]:\na.py\n[Command finished with exit code 0]"}], "resolved": true}` + "\n"
	if err := os.WriteFile(p, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	got := readWith(t, p, Options{})
	checkRuns(t, got, []harnessRun{{"x__x-1", "x__x-1", 0, false, 1, Usage{}, Outcome{Known: true, Value: 1, IsBool: true, Source: "resolved"}, []string{
		`system "You have access to the following functio"`,
		`assistant "<function=execute_bash>" call[action-1 execute_bash {"command":"ls"}]`,
		`user "EXECUTION RESULT of [execute_bash]:" ok[action-1]`,
	}}})
}

func TestOpenHandsErrors(t *testing.T) {
	for _, c := range []struct{ name, doc, want string }{
		{"not an object", `[1]`, `f.jsonl:1:2: expected an OpenHands output record (a JSON object), found a number`},
		{"bad JSON", `{"instance_id": "a", "history": [}`, `f.jsonl:1:34: invalid JSON: expected a value, found '}'`},
		{"history not a list", `{"instance_id": "a", "test_result": {}, "history": {}}`, `f.jsonl:1:52: field "history": expected a list of events, found an object`},
		{"event not an object", `{"instance_id": "a", "test_result": {}, "history": [3]}`, `f.jsonl:1:53: history[0]: expected an event object (or an [action, observation] pair), found a number`},
		{"event neither action nor observation", "{\"instance_id\": \"a\", \"test_result\": {},\n \"history\": [{\"id\": 1}]}", `f.jsonl:2:14: history[0]: an event with neither "action" nor "observation"`},
		{"action args not an object", "{\"instance_id\": \"a\", \"test_result\": {},\n \"history\": [{\"id\": 1, \"action\": \"run\", \"args\": []}]}", `f.jsonl:2:49: history[0]: field "args": expected an object, found an array`},
		{"observation content a number", `{"instance_id": "a", "test_result": {}, "history": [{"observation": "run", "content": 5}]}`, `f.jsonl:1:53: history[0]: field "content": expected a string, found a number`},
		{"exit code a string", `{"instance_id": "a", "test_result": {}, "history": [{"observation": "run", "cause": 1, "content": "", "extras": {"exit_code": "1"}}]}`,
			`f.jsonl:1:127: history[0]: field "extras.exit_code": expected an integer, found a string`},
		{"instance_id an object", `{"instance_id": {}, "history": []}`, `f.jsonl:1:17: field "instance_id": expected a string or a number, found an object`},
		{"tool call without a name", `{"instance_id": "a", "test_result": {}, "fncall_messages": [{"role": "assistant", "tool_calls": [{"id": "c", "function": {"arguments": "{}"}}]}]}`,
			`f.jsonl:1:122: field "fncall_messages[0].tool_calls[0].function.name": a tool call without a function name`},
		{"content a number", `{"instance_id": "a", "test_result": {}, "messages": [{"role": "user", "content": 1}]}`, `f.jsonl:1:82: field "messages[0].content": expected a string, content parts or null, found a number`},
		{"role a number", `{"instance_id": "a", "test_result": {}, "messages": [{"role": 1}]}`, `f.jsonl:1:63: field "messages[0].role": expected a string, found a number`},
		{"resolved a string", `{"instance_id": "a", "test_result": {}, "history": [], "report": {"resolved": "yes"}}`, `f.jsonl:1:79: field "report.resolved": expected true, false or a number, found the string "yes"`},
		{"resolved a number", `{"instance_id": "a", "test_result": {"report": {"resolved": 1}}, "history": []}`, `f.jsonl:1:61: field "test_result.report.resolved": expected true or false, found a number`},
		{"negative usage", `{"instance_id": "a", "test_result": {}, "history": [], "metrics": {"accumulated_token_usage": {"prompt_tokens": -1}}}`,
			`f.jsonl:1:113: field "metrics.accumulated_token_usage.prompt_tokens": must be a non-negative integer, got -1`},
		{"nothing to read", `{"instance_id": "a", "test_result": {"git_patch": ""}}`, `f.jsonl:1:1: an OpenHands record without "history", "messages" or "fncall_messages": nothing to read`},
		{"an evaluation record", `{"instance_id": "a", "test_result": {"report": {"resolved": true}}, "history": null}`,
			`f.jsonl:1:1: an OpenHands evaluation record (eval_infer.py's output.swebench_eval.jsonl) holds outcomes, not a run: give it as outcomes`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ohRead(c.doc)
			if err == nil || err.Error() != c.want {
				t.Errorf("err = %v\nwant %s", err, c.want)
			}
			checkFormatError(t, err, "f.jsonl")
		})
	}
}

func TestSniffOpenHandsAgentDojo(t *testing.T) {
	for _, c := range []struct {
		head string
		want Format
	}{
		{`{"instance_id": "a", "test_result": {"git_patch": ""}, "history": []}`, FormatOpenHands},
		{`{"test_result": {}, "instance_id": "a"}`, FormatOpenHands},
		{`{"messages": [], "response": {}, "args": [], "kwargs": {}}`, FormatOpenHands},
		{`{"messages": [], "fncall_messages": []}`, FormatOpenHands},
		// mini-swe-agent names its instance too, with no test_result
		{`{"info": {}, "messages": [], "trajectory_format": "mini-swe-agent-1", "instance_id": "a"}`, FormatRecords},
		{`{"messages": [], "response": "x"}`, FormatRecords},
		{`{"suite_name": "banking", "pipeline_name": "p", "user_task_id": "user_task_0", "messages": []}`, FormatAgentDojo},
		{`{"suite_name": "banking", "messages": []}`, FormatRecords},
		// a completion log whose text-mode prompt runs past the head: its system prompt tells it
		{`{"messages": [{"content": [{"type": "text", "text": "You are OpenHands agent.\nYou have access to the following functions:\n\n---- BEGIN FUNCTION #1: execute_bash ----\n` +
			strings.Repeat("x", 2*sniffBytes) + `"}]}], "response": {}, "kwargs": {}, "fncall_messages": []}`, FormatOpenHands},
		{`{"messages": [{"role": "user", "content": "` + strings.Repeat("x", 2*sniffBytes) + `"}]}`, FormatRecords},
		// trajectories exported from text-mode runs, the prompt within the head
		{`{"messages": [{"role": "system", "content": "You have access to the following functions:\n\n---- BEGIN FUNCTION #1: execute_bash ----"}], "resolved": true}`, FormatOpenHands},
		{`{"messages": [{"role": "system", "content": "You have access to the following functions:"}]}`, FormatRecords},
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

// FuzzOpenHands feeds arbitrary bytes to the OpenHands reader: it returns traces with ids, or an
// *input.Error naming the file, and never panics.
func FuzzOpenHands(f *testing.F) {
	f.Add([]byte(`{"instance_id": "a", "test_result": {"report": {"resolved": true}}, "history": [[{"id": 1, "action": "run", "args": {"command": "ls"}, "tool_call_metadata": {"function_name": "execute_bash", "tool_call_id": "c", "model_response": {"choices": [{"message": {"tool_calls": [{"id": "c", "function": {"name": "execute_bash", "arguments": "{}"}}]}}]}}}, {"observation": "run", "cause": 1, "content": "x", "success": false}]], "metrics": {"accumulated_token_usage": {"prompt_tokens": 5}, "token_usages": [{"prompt_tokens": 5}]}}`))
	f.Add([]byte(`{"messages": [{"role": "assistant", "content": "<function=finish>\n<parameter=message>x</parameter>"}, {"role": "user", "content": [{"type": "text", "text": "EXECUTION RESULT of [a]:\n[Command finished with exit code 1]"}]}], "response": {"choices": [{"message": {"role": "assistant", "content": "<function=a>\n</"}}]}, "kwargs": {}}` + "\n" + `{"fncall_messages": [{"role": "tool", "tool_call_id": "c", "content": "[Error occurred in processing last action]"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var n int
		err := input.EachReader("f.jsonl", bytes.NewReader(data), func(rec input.Record) error {
			tr, err := decodeOpenHands(rec)
			if err != nil {
				return err
			}
			n++
			if tr.ID == "" || tr.Shape != ShapeOpenHands {
				t.Fatalf("trace %+v", tr)
			}
			return nil
		})
		checkFormatError(t, err, "f.jsonl")
	})
}

// TestOpenHandsTrajs reads the trajs/<instance_id>.json of OpenHands' SWE-bench submission
// folder: the text-mode messages of the run's last completion log, as a list on their own. The
// run is the instance the file is named for; its calls and results are those of the log's
// prompt (the response is not in it).
func TestOpenHandsTrajs(t *testing.T) {
	p := filepath.Join("testdata", "formats", "openhands", "trajs", "django__django-11099.json")
	if f, err := Sniff(p); err != nil || f != FormatMessageList {
		t.Fatalf("Sniff = %v, %v", f, err)
	}
	got := readWith(t, p, Options{})
	checkRuns(t, got, []harnessRun{{"django__django-11099", "django__django-11099", 0, false, 1, Usage{}, Outcome{}, []string{
		`system "You are OpenHands agent, a helpful AI as"`,
		`user "Here's a running example of how to perfo"`,
		`assistant "Let me look at the auth package." call[action-2 execute_bash {"command":"ls django/contrib/auth"}]`,
		`user "EXECUTION RESULT of [execute_bash]:" ok[action-2]`,
		`assistant "Now the current regex." call[action-4 execute_bash {"command":"python -c 'import django.contrib.auth.validators as v; print(v.ASCIIUsernameValidator.regex'"}]`,
		`user "EXECUTION RESULT of [execute_bash]:" FAIL[action-4 "exit code 1"]`,
	}}})
	for _, c := range []struct {
		head string
		want Format
	}{
		{`[{"content": "x", "role": "system"}, {"role": "user"}]`, FormatMessageList},
		{"[\n  {\n    \"role\": \"assistant\", \"tool_calls\": []}]", FormatMessageList},
		// records, whatever they hold: a record is not a message
		{`[{"trace_id": "a", "messages": []}]`, FormatRecords},
		{`[{"content": "x"}]`, FormatRecords},
		{`[{"role": "user", "content": "x", "reward": 1}]`, FormatRecords},
		{`[]`, FormatRecords},
	} {
		if got := sniff([]byte(c.head)); got != c.want {
			t.Errorf("sniff(%.60s) = %v, want %v", c.head, got, c.want)
		}
	}
	for _, c := range []struct{ doc, want string }{
		{`[{"role": "user", "content": 5}]`, `f.json:1:30: field "[0].content": expected a string, content parts or null, found a number`},
		{"[{\"role\": \"user\"},\n {\"role\": 1}]", `f.json:2:11: field "[1].role": expected a string, found a number`},
		{`[{"role": "user"}`, `f.json:1:18: invalid JSON: unexpected end of input in an array`},
	} {
		_, err := decodeMessageList("f.json", []byte(c.doc))
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: err = %v\nwant %s", c.doc, err, c.want)
		}
		checkFormatError(t, err, "f.json")
	}
}

// FuzzMessageList feeds arbitrary bytes to the reader of a message list on its own.
func FuzzMessageList(f *testing.F) {
	f.Add([]byte(`[{"role": "assistant", "content": [{"type": "text", "text": "<function=a>\n<parameter=b>c</parameter>\n</function>"}]}, {"role": "user", "content": "EXECUTION RESULT of [a]:\n[Command finished with exit code 1]"}, {"role": "tool", "tool_call_id": "x", "content": null}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := decodeMessageList("f.json", data)
		checkFormatError(t, err, "f.json")
		if err == nil && (tr.ID == "" || tr.Shape != ShapeOpenHands && tr.Shape != ShapeOpenAI) { // openai: mini-swe-agent's before 1.0
			t.Fatalf("trace %+v", tr)
		}
	})
}

// FuzzSniffOpenHands feeds arbitrary heads to sniff, whose checks for OpenHands, AgentDojo and
// message lists read keys out of a head cut anywhere: it answers a format, never panics.
func FuzzSniffOpenHands(f *testing.F) {
	f.Add([]byte(`[{"content": "x", "role": "system"}]`))
	f.Add([]byte(`{"messages": [{"content": "You have access to the following functions:\n---- BEGIN FUNCTION #1: a`))
	f.Add([]byte(`{"instance_id": "a", "test_result": {}}`))
	f.Add([]byte(`{"suite_name": "s", "user_task_id": "u"}`))
	f.Fuzz(func(t *testing.T, head []byte) {
		if got := sniff(head); got < FormatRecords || got >= NumFormats {
			t.Fatalf("sniff = %v", got)
		}
	})
}

// TestOpenHandsLinear: a history four times as long costs four times the allocations, no more
// (docs/design.md#trust-boundaries: no reader is quadratic); allocations are counted, not timed.
func TestOpenHandsLinear(t *testing.T) {
	record := func(n int) input.Record {
		var b strings.Builder
		b.WriteString(`{"instance_id": "a", "test_result": {}, "history": [`)
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			id := strconv.Itoa(2*i + 1)
			b.WriteString(`{"id": ` + id + `, "source": "agent", "action": "run", "args": {"command": "ls", "thought": "t"}, "tool_call_metadata": {"function_name": "execute_bash", "tool_call_id": "c` + id + `"}},` + "\n")
			b.WriteString(`{"id": ` + strconv.Itoa(2*i+2) + `, "source": "agent", "cause": ` + id + `, "observation": "run", "content": "a.py\n[Command finished with exit code 0]", "extras": {}, "success": true, "tool_call_metadata": {"function_name": "execute_bash", "tool_call_id": "c` + id + `"}}`)
		}
		b.WriteString(`]}`)
		return input.Record{File: "f.jsonl", Line: 1, Col: 1, Data: []byte(b.String())}
	}
	allocs := func(n int) float64 {
		rec := record(n)
		return testing.AllocsPerRun(3, func() {
			if tr, err := decodeOpenHands(rec); err != nil || tr.NumCalls() != n {
				t.Fatalf("%v, %d calls", err, tr.NumCalls())
			}
		})
	}
	small, large := allocs(500), allocs(2000)
	if large > 4.5*small {
		t.Errorf("2000 events: %.0f allocations, 500: %.0f (%.1fx, at most 4.5x)", large, small, large/small)
	}
}
