package trace

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/input"
)

// The files of testdata/formats/langsmith were written by a script that follows langsmith-sdk's
// schemas.Run (model_dump(mode="json"): RunBase's fields, then Run's, in order) with LangChain's
// serialised messages (langchain_core dumpd: {"lc", "type", "id", "kwargs"}) in llm runs'
// inputs.messages and outputs.generations: experiment-a.json is three roots read with
// load_child_runs (nested child_runs, json.dump indent=2), experiment-b.jsonl the runs of a
// second experiment on the same three dataset examples as list_runs gives them (flat, newest
// first, one model_dump_json a line). See testdata/formats/README.md.

func langSmithFile(name string) string {
	return filepath.Join("testdata", "formats", "langsmith", name)
}

// weatherRun is the conversation of one generated trace: the model's call, the tool's result
// (failed when fail is not ""), the answer.
func weatherRun(call, city, result, fail, answer string) []string {
	tool := `tool "` + result + `" ok[` + call + `]`
	if fail != "" {
		tool = `tool "" FAIL[` + call + ` "` + fail + `"]`
	}
	return []string{
		`system "You are a weather assistant. Use get_wea"`,
		`user "Weather in ` + city + `?"`,
		`assistant "" call[` + call + ` get_weather {"city":"` + city + `"}]`,
		tool,
		`assistant "` + answer + `"`,
	}
}

func TestLangSmith(t *testing.T) {
	usage := Usage{Prompt: 280, Completion: 32, Total: 312, Recorded: true}
	yes := Outcome{Known: true, Value: 1, Source: "feedback.correctness"}
	no := Outcome{Known: true, Value: 0, Source: "feedback.correctness"}
	o := Options{OutcomeScorer: "correctness"}
	checkRuns(t, readWith(t, langSmithFile("experiment-a.json"), o), []harnessRun{
		{"a0000000-aaaa-4bbb-8ccc-000000000001", "1b2c3d4e-0000-4000-8000-000000000001", 0, false, 2, usage, yes,
			weatherRun("call_a1", "Oslo", "12C, light rain", "", "It is 12C with light rain in Oslo.")},
		{"a0000000-aaaa-4bbb-8ccc-000000000002", "1b2c3d4e-0000-4000-8000-000000000002", 0, false, 537, usage, yes,
			weatherRun("call_a2", "Lima", "12C, light rain", "", "It is 12C with light rain in Lima.")},
		{"a0000000-aaaa-4bbb-8ccc-000000000003", "1b2c3d4e-0000-4000-8000-000000000003", 0, false, 1072, usage, no,
			weatherRun("call_a3", "Pune", "12C, light rain", "", "It is 12C with light rain in Pune.")},
	})
	// flat, newest first: the traces come in the order of their first run in the file, each in
	// dotted_order; the failed tool run's error is the exception its traceback ends with
	b := readWith(t, langSmithFile("experiment-b.jsonl"), o)
	checkRuns(t, b, []harnessRun{
		{"b0000000-aaaa-4bbb-8ccc-000000000003", "1b2c3d4e-0000-4000-8000-000000000003", 0, false, 1, usage, no,
			weatherRun("call_b3", "Pune", "12C, light rain", "", "It is 12C with light rain in Pune.")},
		{"b0000000-aaaa-4bbb-8ccc-000000000002", "1b2c3d4e-0000-4000-8000-000000000002", 0, false, 5, usage, no,
			weatherRun("call_b2", "Lima", "", "ValueError: Station offline", "I could not get the weather for Lima.")},
		{"b0000000-aaaa-4bbb-8ccc-000000000001", "1b2c3d4e-0000-4000-8000-000000000001", 0, false, 9, usage, yes,
			weatherRun("call_b1", "Oslo", "12C, light rain", "", "It is 12C with light rain in Oslo.")},
	})
	for _, tr := range b {
		if tr.Agent != "5d6e7f80-0000-4000-8000-000000000002" || tr.PerCall != (CallUsage{Calls: 2, MaxPrompt: 160}) || tr.Shape != ShapeLangSmith {
			t.Errorf("%s: agent %q per call %+v shape %s", tr.ID, tr.Agent, tr.PerCall, tr.Shape)
		}
	}
	for _, f := range []string{"experiment-a.json", "experiment-b.jsonl"} {
		if got, err := Sniff(langSmithFile(f)); err != nil || got != FormatLangSmith {
			t.Errorf("Sniff(%s) = %v, %v", f, got, err)
		}
	}
}

// TestLangSmithOutcomeKeys: without outcome-scorer no feedback is an outcome and the note names
// the keys; a key the run lacks is an error naming those it has.
func TestLangSmithOutcomeKeys(t *testing.T) {
	for _, tr := range readWith(t, langSmithFile("experiment-a.json"), Options{}) {
		want := `LangSmith feedback "conciseness", "correctness" not read as an outcome: name the key with outcome-scorer`
		if tr.Outcome.Known || tr.Outcome.Note != want {
			t.Errorf("%s: outcome %+v, want the note %q", tr.ID, tr.Outcome, want)
		}
	}
	tr := readWith(t, langSmithFile("experiment-a.json"), Options{OutcomeScorer: "conciseness"})[0]
	if tr.Outcome != (Outcome{Known: true, Value: 0.5, Source: "feedback.conciseness"}) {
		t.Errorf("conciseness: %+v", tr.Outcome)
	}
	err := EachFileWith(context.Background(), langSmithFile("experiment-a.json"), Options{OutcomeScorer: "helpfulness"}, func(*Trace) error { return nil })
	want := langSmithFile("experiment-a.json") + `:2:3: run "a0000000-aaaa-4bbb-8ccc-000000000001" (chain "weather_agent"): has no feedback "helpfulness" with a score (outcome-scorer); its feedback keys are "conciseness", "correctness"`
	if err == nil || err.Error() != want {
		t.Errorf("error\n got %v\nwant %s", err, want)
	}
}

// flatRuns is the runs of a nested export one by one, child_runs taken out.
func flatRuns(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var roots []map[string]any
	if err := json.Unmarshal(data, &roots); err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	var walk func(r map[string]any)
	walk = func(r map[string]any) {
		kids, _ := r["child_runs"].([]any)
		r["child_runs"] = nil
		out = append(out, r)
		for _, k := range kids {
			walk(k.(map[string]any))
		}
	}
	for _, r := range roots {
		walk(r)
	}
	return out
}

func writeJSONL(t *testing.T, path string, runs []map[string]any) {
	t.Helper()
	var b bytes.Buffer
	for _, r := range runs {
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLangSmithLayoutsAndOrder: the runs of an export read the same nested or flat, in any
// order of the lines, with dotted_order or without it (start_time, then depth), and with a
// run given twice (flat and nested): the same traces, messages, usage and outcomes.
func TestLangSmithLayoutsAndOrder(t *testing.T) {
	o := Options{OutcomeScorer: "correctness"}
	want := readWith(t, langSmithFile("experiment-a.json"), o)
	key := func(ts []*Trace) map[string]string {
		m := map[string]string{}
		for _, tr := range ts {
			m[tr.ID] = strings.Join(describe(tr), "\n") + "|" + tr.Task + "|" + tr.Agent
			b, _ := json.Marshal([]any{tr.Usage, tr.PerCall, tr.Outcome})
			m[tr.ID] += string(b)
		}
		return m
	}
	wantKey := key(want)
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(48, 2))
	for round := range 6 {
		runs := flatRuns(t, langSmithFile("experiment-a.json"))
		rng.Shuffle(len(runs), func(i, j int) { runs[i], runs[j] = runs[j], runs[i] })
		switch round {
		case 1: // no dotted_order: start_time orders the runs
			for _, r := range runs {
				delete(r, "dotted_order")
			}
		case 2: // no trace_id: the parent links lead to the root
			for _, r := range runs {
				delete(r, "trace_id")
			}
		}
		p := filepath.Join(dir, "runs.jsonl")
		writeJSONL(t, p, runs)
		got := readWith(t, p, o)
		if g := key(got); len(g) != len(wantKey) {
			t.Fatalf("round %d: %d traces, want %d", round, len(g), len(wantKey))
		} else {
			for id, w := range wantKey {
				if g[id] != w {
					t.Errorf("round %d: trace %s\n got %s\nwant %s", round, id, g[id], w)
				}
			}
		}
	}
	// the nested file followed by its runs again, flat: each run counted once
	data, _ := os.ReadFile(langSmithFile("experiment-a.json"))
	var b bytes.Buffer
	var roots []json.RawMessage
	_ = json.Unmarshal(data, &roots)
	for _, r := range roots {
		var c bytes.Buffer
		_ = json.Compact(&c, r)
		b.Write(c.Bytes())
		b.WriteByte('\n')
	}
	for _, r := range flatRuns(t, langSmithFile("experiment-a.json")) {
		line, _ := json.Marshal(r)
		b.Write(line)
		b.WriteByte('\n')
	}
	p := filepath.Join(dir, "twice.jsonl")
	_ = os.WriteFile(p, b.Bytes(), 0o644)
	if g := key(readWith(t, p, o)); len(g) != 3 {
		t.Errorf("twice: %d traces", len(g))
	} else {
		for id, w := range wantKey {
			if g[id] != w {
				t.Errorf("twice: trace %s\n got %s\nwant %s", id, g[id], w)
			}
		}
	}
}

// TestLangSmithFeedbackRecords: feedback records (client.list_feedback) in the file are the
// outcome of the trace they name, the mean of their scores; a boolean score alone is a
// boolean; feedback on a child run (run_id, no trace_id) counts for its trace; the same record
// twice counts once; categorical feedback (a text value, no score) named is an error.
func TestLangSmithFeedbackRecords(t *testing.T) {
	runs := flatRuns(t, langSmithFile("experiment-a.json"))
	for _, r := range runs {
		r["feedback_stats"] = nil
	}
	fb := []map[string]any{
		{"id": "f1", "run_id": "a0000000-aaaa-4bbb-8ccc-000000000001", "trace_id": "a0000000-aaaa-4bbb-8ccc-000000000001", "key": "passed", "score": true},
		{"id": "f2", "run_id": "a0000000-aaaa-4bbb-8ccc-000000000002", "trace_id": "a0000000-aaaa-4bbb-8ccc-000000000002", "key": "passed", "score": 1},
		{"id": "f3", "run_id": "a0000000-aaaa-4bbb-8ccc-000000000002", "trace_id": "a0000000-aaaa-4bbb-8ccc-000000000002", "key": "passed", "score": 0},
		{"id": "f3", "run_id": "a0000000-aaaa-4bbb-8ccc-000000000002", "trace_id": "a0000000-aaaa-4bbb-8ccc-000000000002", "key": "passed", "score": 0},
		{"id": "f4", "run_id": "a3300000-aaaa-4bbb-8ccc-000000000000", "trace_id": nil, "key": "passed", "score": nil, "value": false},
		{"id": "f5", "run_id": "a0000000-aaaa-4bbb-8ccc-000000000001", "key": "tone", "score": nil, "value": "curt"},
	}
	p := filepath.Join(t.TempDir(), "runs.jsonl")
	writeJSONL(t, p, append(fb, runs...))
	if f, err := Sniff(p); err != nil || f != FormatLangSmithFeedback {
		t.Errorf("a file that starts with feedback: %v, %v", f, err) // and is read as the runs it holds
	}
	got := readWith(t, p, Options{OutcomeScorer: "passed"})
	want := []Outcome{{Known: true, Value: 1, IsBool: true, Source: "feedback.passed"}, {Known: true, Value: 0.5, Source: "feedback.passed"}, {Known: true, Value: 0, IsBool: true, Source: "feedback.passed"}}
	if len(got) != 3 {
		t.Fatalf("%d traces", len(got))
	}
	for i, tr := range got {
		if tr.Outcome != want[i] {
			t.Errorf("%s: %+v, want %+v", tr.ID, tr.Outcome, want[i])
		}
	}
	err := EachFileWith(context.Background(), p, Options{OutcomeScorer: "tone"}, func(*Trace) error { return nil })
	if want := p + `:6:94: feedback "f5": field "value": feedback "tone" is categorical (value "curt", no score): not an outcome agentgate can read (a score is)`; err == nil || err.Error() != want {
		t.Errorf("categorical: error\n got %v\nwant %s", err, want)
	}
}

// TestLangSmithErrors: malformed runs are errors naming file, line, column and the run.
func TestLangSmithErrors(t *testing.T) {
	run := func(extra string) string {
		return `{"id": "r1", "name": "ChatOpenAI", "start_time": "2026-01-01T00:00:00", "run_type": "llm", "trace_id": "r1"` + extra + "}"
	}
	for _, c := range []struct{ name, text, want string }{
		{"messages", run(`, "inputs": {"messages": "hi"}`), `:1:133: run "r1" (llm "ChatOpenAI"): field "inputs.messages": expected a list of messages, found a string`},
		{"role", run(`, "inputs": {"messages": [[{"content": "hi"}]]}`), `:1:135: run "r1" (llm "ChatOpenAI"): field "inputs.messages[0][0]": a message without a role: neither "role" nor "type" (nor LangChain's "id") names it`},
		{"call", run(`, "outputs": {"generations": [[{"message": {"type": "ai", "tool_calls": [{"args": {}}]}}]]}`), `:1:181: run "r1" (llm "ChatOpenAI"): field "outputs.generations[0][0].message.tool_calls[0]": a tool call without a tool name ("name", or "function.name")`},
		{"tokens", run(`, "prompt_tokens": -3`), `:1:127: run "r1" (llm "ChatOpenAI"): field "prompt_tokens": must be a non-negative integer, got -3`},
		{"no run_type", `{"id": "r1", "start_time": "x", "trace_id": "r1", "run_type": "llm"}` + "\n" + `{"id": "r2", "name": "x"}`, `:2:1: run "r2" ("x"): a LangSmith run without a "run_type" (and not a feedback record {"run_id", "key", "score"})`},
		{"child", run(`, "child_runs": [3]`), `:1:125: expected a LangSmith run (a JSON object), found a number`},
		{"feedback", run(`, "feedback_stats": {"ok": {"n": 1, "avg": "yes"}}`), `:1:151: run "r1" (llm "ChatOpenAI"): field "feedback_stats.ok.avg": expected a number, found a string ("yes")`},
		{"feedback alone", `{"id": "f1", "run_id": "r1", "key": "ok", "score": 1}`, `:1:1: a file of LangSmith feedback records and no run: give it as outcomes (with outcome-scorer naming the key), or beside the runs' file in the folder given as traces`},
		{"syntax", run(`, "inputs": {`), `:2:1: invalid JSON: unexpected end of input in an object`},
	} {
		t.Run(c.name, func(t *testing.T) {
			wantReadError(t, readLangSmith, FormatLangSmith, "runs.jsonl", c.text, c.want)
		})
	}
}

// FuzzLangSmith feeds arbitrary bytes to the LangSmith reader: it returns traces with ids, or
// an *input.Error naming the file, and never panics.
func FuzzLangSmith(f *testing.F) {
	// small seeds: the mutator minimises each input it finds interesting, which takes long on
	// the generated files' 50 KB
	f.Add([]byte(`[{"id": "r", "name": "agent", "run_type": "chain", "trace_id": "r", "reference_example_id": "ex", "session_id": "s",
 "feedback_stats": {"k": {"n": 1, "avg": 0.5}}, "error": null,
 "child_runs": [{"id": "l", "name": "ChatOpenAI", "run_type": "llm", "parent_run_id": "r", "trace_id": "r", "dotted_order": "20260101T000000Zr.20260101T000001Zl",
   "inputs": {"messages": [[{"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "HumanMessage"], "kwargs": {"content": "hi", "type": "human"}}]]},
   "outputs": {"generations": [[{"text": "", "message": {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "AIMessage"],
     "kwargs": {"content": [{"type": "text", "text": "x"}, {"type": "tool_use", "id": "c", "name": "f", "input": {}}], "type": "ai", "tool_calls": [{"name": "f", "args": {"a": 1}, "id": "c"}]}}}]],
     "llm_output": {"token_usage": {"prompt_tokens": 3, "completion_tokens": 1}}}},
  {"id": "t", "name": "f", "run_type": "tool", "parent_run_id": "r", "inputs": {"input": "{'a': 1}"},
   "outputs": {"output": {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "ToolMessage"], "kwargs": {"content": "E", "tool_call_id": "c", "status": "error"}}}}]}]`))
	f.Add([]byte(`{"id": "l", "run_type": "llm", "trace_id": "r", "start_time": "1", "inputs": {"messages": [{"role": "user", "content": "q"}]}, "outputs": {"choices": [{"message": {"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": "{}"}}]}}], "usage_metadata": {"input_tokens": 2, "output_tokens": 1}}, "prompt_tokens": null}
{"id": "m", "run_type": "llm", "trace_id": "r", "start_time": "2", "inputs": {"messages": [{"type": "human", "content": "q"}, {"type": "tool", "content": "ok", "tool_call_id": "c"}]}, "outputs": {"role": "assistant", "content": "done"}}`))
	f.Add([]byte(`{"id": "a", "run_type": "tool", "name": "t", "parent_run_id": "b", "error": "x"}` + "\n" + `{"id": "b", "run_type": "llm", "parent_run_id": "a", "inputs": {"messages": [["human", "hi"], "x"]}}` + "\n" + `{"run_id": "a", "key": "k", "score": 1}`))
	// feedback on a child run, by run_id only and by trace_id; a value for a score; a repeat
	f.Add([]byte(`{"id": "r", "run_type": "chain", "trace_id": "r", "start_time": "1"}` + "\n" + `{"id": "l", "run_type": "llm", "parent_run_id": "r", "start_time": "2", "inputs": {"messages": [{"role": "user", "content": "q"}]}, "outputs": {"role": "assistant", "content": "a"}}` + "\n" +
		`{"id":"f1","created_at":"2026-01-01T00:00:00.000001Z","run_id":"l","trace_id":null,"key":"k","score":null,"value":true}` + "\n" + `{"id":"f2","run_id":"x","trace_id":"r","key":"k","score":0.5,"value":null}` + "\n" + `{"id":"f2","run_id":"x","trace_id":"r","key":"k","score":0.5,"value":"good"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := "f.jsonl"
		records := func(each func(input.Record) error) error { return input.EachReader(p, bytes.NewReader(data), each) }
		err := eachLangSmith(context.Background(), records, Options{OutcomeScorer: "k"}, func(tr *Trace) error {
			if tr.ID == "" || tr.Shape != ShapeLangSmith {
				t.Fatalf("trace %+v", tr)
			}
			return nil
		})
		checkFormatError(t, err, p)
	})
}

// wantReadError writes text and a newline to a file called name, reads it with read as format
// (outcome-scorer "ok") and wants an *input.Error whose text starts with the file's path and
// want (its position and words).
func wantReadError(t *testing.T, read Reader, format Format, name, text, want string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := read(context.Background(), File{Path: p, Format: format}, Options{OutcomeScorer: "ok"}, func(*Trace) error { return nil })
	var ie *input.Error
	if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), p+want) {
		t.Errorf("error\n got %v\nwant %s%s", err, p, want)
	}
}
