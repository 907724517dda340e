package trace

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/input"
)

// The files of testdata/formats/langfuse were written by a script that follows Langfuse's
// writers (see testdata/formats/README.md): blob/<project>/{traces,observations,scores}/ the
// blob-storage export's rows of a first experiment (the SELECT columns of
// packages/shared/src/server/repositories/{traces,observations,scores}.ts in order; input,
// output and metadata as ClickHouse keeps them, strings of JSON; 64-bit counts quoted);
// experiment-b.jsonl langfuse.api.trace.get of each trace of a second experiment on the same
// dataset items (TraceWithFullDetails, camelCase aliases); trace-download.json the UI's
// download of its failed trace (buildTraceExport.ts: {"observations", "scores"}, indent 2).

func langfuseFile(name string) string { return filepath.Join("testdata", "formats", "langfuse", name) }

const lfBlobObservations = "blob/cm0proj1/observations/2026-05-04T00-00-00.jsonl"

func TestLangfuse(t *testing.T) {
	usage := Usage{Prompt: 280, Completion: 32, Total: 312, Recorded: true}
	yes := Outcome{Known: true, Value: 1, Source: "scores.correctness"}
	no := Outcome{Known: true, Value: 0, Source: "scores.correctness"}
	o := Options{OutcomeScorer: "correctness"}
	// the blob export: the observations file reads the scores and traces files beside it
	checkRuns(t, readWith(t, langfuseFile(lfBlobObservations), o), []harnessRun{
		{"a-trace-1", "di-1", 0, false, 1, usage, yes, weatherRun("call_a1", "Oslo", "12C, light rain", "", "It is 12C with light rain in Oslo.")},
		{"a-trace-2", "di-2", 0, false, 7, usage, yes, weatherRun("call_a2", "Lima", "12C, light rain", "", "It is 12C with light rain in Lima.")},
		{"a-trace-3", "di-3", 0, false, 13, usage, no, weatherRun("call_a3", "Pune", "12C, light rain", "", "It is 12C with light rain in Pune.")},
	})
	// the API's traces: the tool observation's ERROR level fails the call the model made
	b := readWith(t, langfuseFile("experiment-b.jsonl"), o)
	lima := harnessRun{"b-trace-2", "di-2", 0, false, 2, usage, no, weatherRun("call_b2", "Lima", "", "ValueError: station offline", "I could not get the weather for Lima.")}
	checkRuns(t, b, []harnessRun{
		{"b-trace-1", "di-1", 0, false, 1, usage, yes, weatherRun("call_b1", "Oslo", "12C, light rain", "", "It is 12C with light rain in Oslo.")},
		lima,
		{"b-trace-3", "di-3", 0, false, 3, usage, no, weatherRun("call_b3", "Pune", "12C, light rain", "", "It is 12C with light rain in Pune.")},
	})
	for _, tr := range b {
		if tr.Agent != "run-b" || tr.PerCall != (CallUsage{Calls: 2, MaxPrompt: 160}) || tr.Shape != ShapeLangfuse {
			t.Errorf("%s: agent %q per call %+v shape %s", tr.ID, tr.Agent, tr.PerCall, tr.Shape)
		}
	}
	// the UI's download of that trace reads the same
	lima.line = 3
	checkRuns(t, readWith(t, langfuseFile("trace-download.json"), o), []harnessRun{lima})
	for _, f := range []string{lfBlobObservations, "blob/cm0proj1/scores/2026-05-04T00-00-00.jsonl", "blob/cm0proj1/traces/2026-05-04T00-00-00.jsonl", "experiment-b.jsonl", "trace-download.json"} {
		if got, err := Sniff(langfuseFile(f)); err != nil || got != FormatLangfuse {
			t.Errorf("Sniff(%s) = %v, %v", f, got, err)
		}
	}
	for f, want := range map[string]string{
		lfBlobObservations: "",
		"blob/cm0proj1/scores/2026-05-04T00-00-00.jsonl": "Langfuse scores, read with the observations beside them",
		"blob/cm0proj1/traces/2026-05-04T00-00-00.jsonl": "Langfuse traces, read with the observations beside them",
	} {
		if got := lfSide(langfuseFile(f)); got != want {
			t.Errorf("side(%s) = %q, want %q", f, got, want)
		}
	}
}

// TestLangfuseOutcomeNames: without outcome-scorer no score is an outcome and the note names
// them; a BOOLEAN score is a boolean; a name the trace lacks is an error naming those it has.
func TestLangfuseOutcomeNames(t *testing.T) {
	for _, tr := range readWith(t, langfuseFile("experiment-b.jsonl"), Options{}) {
		want := `Langfuse scores "correctness", "passed" not read as an outcome: name the score with outcome-scorer`
		if tr.Outcome.Known || tr.Outcome.Note != want {
			t.Errorf("%s: outcome %+v, want the note %q", tr.ID, tr.Outcome, want)
		}
	}
	got := readWith(t, langfuseFile("experiment-b.jsonl"), Options{OutcomeScorer: "passed"})
	for i, want := range []float64{1, 0, 0} {
		if o := got[i].Outcome; o != (Outcome{Known: true, Value: want, IsBool: true, Source: "scores.passed"}) {
			t.Errorf("%s: %+v", got[i].ID, o)
		}
	}
	err := EachFileWith(context.Background(), langfuseFile("experiment-b.jsonl"), Options{OutcomeScorer: "helpfulness"}, func(*Trace) error { return nil })
	want := langfuseFile("experiment-b.jsonl") + `:1: trace "b-trace-1" has no score "helpfulness" (outcome-scorer); its scores are "correctness", "passed"`
	if err == nil || err.Error() != want {
		t.Errorf("error\n got %v\nwant %s", err, want)
	}
}

// traceKeys is what the order tests compare of each trace.
func traceKeys(ts []*Trace) map[string]string {
	m := map[string]string{}
	for _, tr := range ts {
		b, _ := json.Marshal([]any{tr.Task, tr.Agent, tr.Usage, tr.PerCall, tr.Outcome})
		m[tr.ID] = strings.Join(describe(tr), "\n") + string(b)
	}
	return m
}

func sameTraces(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d traces, want %d", what, len(got), len(want))
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: trace %s\n got %s\nwant %s", what, id, got[id], w)
		}
	}
}

// TestLangfuseOrder: the rows of the blob export read the same in any order, and the three
// tables read the same from one file as from the folder; the API's observations in any order.
func TestLangfuseOrder(t *testing.T) {
	o := Options{OutcomeScorer: "correctness"}
	want := traceKeys(readWith(t, langfuseFile(lfBlobObservations), o))
	var rows [][]byte
	for _, table := range []string{"observations", "scores", "traces"} {
		data, err := os.ReadFile(langfuseFile("blob/cm0proj1/" + table + "/2026-05-04T00-00-00.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, bytes.SplitAfter(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))...)
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(48, 3))
	for round := range 4 {
		rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
		var b bytes.Buffer
		for _, r := range rows {
			b.Write(bytes.TrimSuffix(r, []byte("\n")))
			b.WriteByte('\n')
		}
		p := filepath.Join(dir, "export.jsonl")
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for id, v := range traceKeys(readWith(t, p, o)) {
			got[id] = v
		}
		sameTraces(t, "shuffled rows", got, want)
		_ = round
	}
	wantB := traceKeys(readWith(t, langfuseFile("experiment-b.jsonl"), o))
	data, err := os.ReadFile(langfuseFile("experiment-b.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var tr map[string]any
		if err := json.Unmarshal(line, &tr); err != nil {
			t.Fatal(err)
		}
		obs := tr["observations"].([]any)
		rng.Shuffle(len(obs), func(i, j int) { obs[i], obs[j] = obs[j], obs[i] })
		b, _ := json.Marshal(tr)
		out.Write(b)
		out.WriteByte('\n')
	}
	p := filepath.Join(dir, "b.jsonl")
	if err := os.WriteFile(p, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	sameTraces(t, "shuffled observations", traceKeys(readWith(t, p, o)), wantB)
}

// TestLangfuseErrors: malformed exports are errors naming file, line, column and the
// observation.
func TestLangfuseErrors(t *testing.T) {
	obs := func(extra string) string {
		return `{"id": "o1", "traceId": "t1", "type": "GENERATION", "name": "llm", "startTime": "1"` + extra + "}"
	}
	for _, c := range []struct{ name, text, want string }{
		{"usage", obs(`, "usageDetails": {"input": -1}`), `:1:112: observation "o1" (GENERATION "llm"): field "usageDetails.input": must be a non-negative integer, got -1`},
		{"tool", `{"id": "o1", "traceId": "t1", "type": "TOOL", "startTime": "1"}`, `:1:1: observation "o1" (TOOL): field "name": a TOOL observation without a name`},
		{"score", obs(`, "input": "hi"`) + "\n" + `{"traceId": "t1", "name": "ok", "dataType": "NUMERIC", "value": "high"}`, `:2:65: field "value": expected a number, found a string ("high")`},
		{"categorical", obs(`, "input": "hi"`) + "\n" + `{"traceId": "t1", "name": "ok", "dataType": "CATEGORICAL", "value": 0, "stringValue": "good"}`, `:2:45: field "dataType": score "ok" is CATEGORICAL ("good"): not an outcome agentgate can read (a NUMERIC or BOOLEAN score is)`},
		{"unknown", `{"foo": 1}`, `:1:1: expected a Langfuse trace, observation ("type"), score ("dataType") or dataset run item ("datasetItemId")`},
		{"no trace", `{"id": "o1", "type": "SPAN"}`, `:1:1: observation "o1" (SPAN): a Langfuse observation without a trace id (traceId or trace_id)`},
		{"scores alone", `{"traceId": "t1", "name": "ok", "dataType": "NUMERIC", "value": 1}`, `:1:1: a file of Langfuse scores or dataset run items and no trace`},
		{"observations", `{"id": "t1", "observations": {}}`, `:1:30: field "observations": expected a list, found an object`},
	} {
		t.Run(c.name, func(t *testing.T) {
			wantReadError(t, readLangfuse, FormatLangfuse, "export.jsonl", c.text, c.want)
		})
	}
}

// FuzzLangfuse feeds arbitrary bytes to the Langfuse reader: it returns traces with ids, or an
// *input.Error naming the file, and never panics.
func FuzzLangfuse(f *testing.F) {
	seedFile(f, "langfuse/parallel-tools.json")
	seedFile(f, "langfuse/claude-agent-download.json")
	seedFile(f, "langfuse/google-adk-download.json")
	f.Add([]byte(`{"id": "t", "timestamp": "1", "sessionId": null, "metadata": {"dataset_item_id": "d"}, "observations": [
 {"id": "g", "traceId": "t", "type": "GENERATION", "startTime": "1", "input": [{"role": "user", "content": "q"}], "output": {"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": "{}"}}]}, "usageDetails": {"input": 3, "output": 1}},
 {"id": "u", "traceId": "t", "type": "TOOL", "name": "f", "startTime": "2", "parentObservationId": "g", "input": {"a": 1}, "output": "r", "level": "ERROR", "statusMessage": "E"}],
 "scores": [{"dataType": "BOOLEAN", "traceId": "t", "name": "k", "value": 1, "stringValue": "True"}]}`))
	f.Add([]byte(`{"id":"o","trace_id":"t","project_id":"p","type":"GENERATION","parent_observation_id":null,"start_time":"2026-01-01 00:00:00.000","input":"[{\"role\":\"user\",\"content\":\"q\"}]","output":"\"a\"","usage_details":{"input":"5"}}
{"id":"s","timestamp":"x","project_id":"p","trace_id":"t","name":"k","value":0.5,"data_type":"NUMERIC"}
{"data": [{"datasetItemId": "d", "traceId": "t", "datasetRunName": "r"}]}`))
	// two windows of the blob export sharing a bound: the same observation and score twice
	f.Add([]byte(`{"id":"o","trace_id":"t","type":"GENERATION","parent_observation_id":null,"start_time":"2026-01-01 11:00:00.000","input":"\"q\"","output":"\"a\""}
{"id":"s","timestamp":"2026-01-01 11:00:00.000","trace_id":"t","name":"k","value":1,"data_type":"BOOLEAN","string_value":"True"}
{"id":"t","timestamp":"2026-01-01 10:59:59.000","name":"n","project_id":"p","bookmarked":false}
{"id":"o","trace_id":"t","type":"GENERATION","parent_observation_id":null,"start_time":"2026-01-01 11:00:00.000","input":"\"q\"","output":"\"a\""}
{"id":"s","timestamp":"2026-01-01 11:00:00.000","trace_id":"t","name":"k","value":1,"data_type":"BOOLEAN","string_value":"True"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		records := func(each func(input.Record) error) error {
			return input.EachReader("f.jsonl", bytes.NewReader(data), each)
		}
		err := eachLangfuse(context.Background(), records, Options{OutcomeScorer: "k"}, func(tr *Trace) error {
			if tr.ID == "" || tr.Shape != ShapeLangfuse {
				t.Fatalf("trace %+v", tr)
			}
			return nil
		})
		checkFormatError(t, err, "f.jsonl")
	})
}

// TestLangfuseFrameworkShapes: generations read in the shapes the frameworks' tracers record
// (as Langfuse's own exports of them hold: langfuse/langfuse, worker/src/__tests__/chatml/
// framework-traces): Gemini's contents and parts, the Vercel AI SDK's tool calls, an answer
// without a role, a prompt; an input of no known shape is the user's turn as its text.
func TestLangfuseFrameworkShapes(t *testing.T) {
	for _, c := range []struct {
		name, in, out string
		want          []string
	}{
		{"gemini", `{"model": "gemini-2.0-flash", "contents": [{"role": "user", "parts": [{"text": "Say hello"}]}]}`,
			`{"content": {"role": "model", "parts": [{"function_call": {"id": "f1", "name": "say_hello", "args": {"to": "Ada"}}}]}}`,
			[]string{`user "Say hello"`, `assistant "" call[f1 say_hello {"to":"Ada"}]`}},
		{"gemini string", `"{\"model\": \"gemini-2.5-flash\", \"contents\": \"What is Langfuse?\"}"`, `{"candidates": [{"content": {"role": "model", "parts": [{"text": "A tool."}]}}]}`,
			[]string{`user "What is Langfuse?"`, `assistant "A tool."`}},
		{"vercel", `{"prompt": "Weather in SF?"}`, `[{"toolCallId": "c1", "toolName": "getWeather", "input": "{\"location\": \"SF\"}"}]`,
			[]string{`user "Weather in SF?"`, `assistant "" call[c1 getWeather {"location":"SF"}]`}},
		{"claude", `{"content": "role"}`, `{"content": [{"type": "text", "text": "Cloudy."}]}`,
			[]string{`user "role"`, `assistant "Cloudy."`}},
		{"llamaindex", `{"args": ["What is Langfuse?"]}`, `"A tool."`, []string{`user "What is Langfuse?"`, `assistant "A tool."`}},
		{"unknown", `{"query": {"q": 1}}`, `{"answer": 2}`, []string{`user "{\"query\":{\"q\":1}}"`, `assistant "{\"answer\":2}"`}},
		{"genai parts", `[{"role": "user", "parts": [{"type": "text", "content": "Pun?"}]}, {"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "get_pun", "arguments": {"topic": "go"}}]}, {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": "Error: no puns"}]}]`,
			`[{"role": "assistant", "parts": [{"type": "text", "content": "None today."}]}]`,
			[]string{`user "Pun?"`, `assistant "" call[c1 get_pun {"topic":"go"}]`, `tool "" FAIL[c1 "Error: no puns"]`, `assistant "None today."`}},
		// Pydantic AI's deprecated GenAI events as Langfuse keeps them (langfuse/langfuse's
		// pydantic-ai-2025-06-06.trace.json): the input the message events' bodies, the output
		// the gen_ai.choice event's body, one choice
		{"gen_ai.choice", `[{"content": "Be brief.", "role": "system", "gen_ai.system": "openai", "gen_ai.message.index": 0, "event.name": "gen_ai.system.message"}, {"content": "What is Langfuse?", "role": "user", "gen_ai.system": "openai", "gen_ai.message.index": 0, "event.name": "gen_ai.user.message"}]`,
			`{"index": 0, "message": {"role": "assistant", "content": "A tool."}, "gen_ai.system": "openai", "event.name": "gen_ai.choice"}`,
			[]string{`system "Be brief."`, `user "What is Langfuse?"`, `assistant "A tool."`}},
		{"object content", `[{"role": "tool", "content": {"type": "function"}}]`, `{"role": "assistant", "content": "ok"}`,
			[]string{`tool "{\"type\":\"function\"}" ok[]`, `assistant "ok"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := `{"id": "g", "traceId": "t", "type": "GENERATION", "startTime": "1", "input": ` + c.in + `, "output": ` + c.out + `}`
			records := func(each func(input.Record) error) error {
				return input.EachReader("f.jsonl", strings.NewReader(text), each)
			}
			var got []*Trace
			if err := eachLangfuse(context.Background(), records, Options{}, func(tr *Trace) error { got = append(got, tr); return nil }); err != nil || len(got) != 1 {
				t.Fatalf("%d traces, %v", len(got), err)
			}
			if d := describe(got[0]); strings.Join(d, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(d, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

// TestLangfuseExecuteTool: a TOOL observation named as OpenTelemetry's GenAI spans are
// ("execute_tool say_hello", Google ADK's) answers the call of say_hello, not a tool of its own.
func TestLangfuseExecuteTool(t *testing.T) {
	text := `{"id": "g", "traceId": "t", "type": "GENERATION", "startTime": "1", "input": [{"role": "user", "content": "hi"}], "output": {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "say_hello", "arguments": "{}"}}]}}
{"id": "u", "traceId": "t", "type": "TOOL", "name": "execute_tool say_hello", "startTime": "2", "input": {}, "output": "hello"}`
	records := func(each func(input.Record) error) error {
		return input.EachReader("f.jsonl", strings.NewReader(text), each)
	}
	var got []*Trace
	if err := eachLangfuse(context.Background(), records, Options{}, func(tr *Trace) error { got = append(got, tr); return nil }); err != nil || len(got) != 1 {
		t.Fatalf("%d traces, %v", len(got), err)
	}
	want := []string{`user "hi"`, `assistant "" call[c1 say_hello {}]`, `tool "hello" ok[c1]`}
	if d := describe(got[0]); strings.Join(d, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(d, "\n"), strings.Join(want, "\n"))
	}
}

// TestLangfuseWrappersAndAttributes: a GENERATION that holds generations (the Vercel AI SDK's
// ai.generateText around doGenerate) is not a model call of its own, so its call is counted
// once; a TOOL observation's OpenTelemetry attributes (metadata.attributes gen_ai.tool.name and
// gen_ai.tool.call.id, as pydantic-ai's "running tool: …" spans carry them) name its tool.
func TestLangfuseWrappersAndAttributes(t *testing.T) {
	text := `{"id": "w", "traceId": "t", "type": "GENERATION", "name": "ai.generateText", "startTime": "1", "input": {"prompt": "Weather?"}, "output": [{"toolCallId": "c1", "toolName": "getWeather", "input": "{}"}], "usageDetails": {"input": 10, "output": 2}}
{"id": "g", "traceId": "t", "type": "GENERATION", "name": "ai.generateText.doGenerate", "parentObservationId": "w", "startTime": "2", "input": [{"role": "user", "content": [{"type": "text", "text": "Weather?"}]}], "output": [{"toolCallId": "c1", "toolName": "getWeather", "input": "{}"}], "usageDetails": {"input": 10, "output": 2}}
{"id": "u", "traceId": "t", "type": "TOOL", "name": "running tool: getWeather", "parentObservationId": "w", "startTime": "3", "input": {}, "output": "64F", "metadata": {"attributes": {"gen_ai.tool.name": "getWeather", "gen_ai.tool.call.id": "tool-span-7"}}}`
	records := func(each func(input.Record) error) error {
		return input.EachReader("f.jsonl", strings.NewReader(text), each)
	}
	var got []*Trace
	if err := eachLangfuse(context.Background(), records, Options{}, func(tr *Trace) error { got = append(got, tr); return nil }); err != nil || len(got) != 1 {
		t.Fatalf("%d traces, %v", len(got), err)
	}
	want := []string{`user "Weather?"`, `assistant "" call[c1 getWeather {}]`, `tool "64F" ok[c1]`}
	if d := describe(got[0]); strings.Join(d, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(d, "\n"), strings.Join(want, "\n"))
	}
	if u := got[0].Usage; u != (Usage{Prompt: 10, Completion: 2, Total: 12, Recorded: true}) {
		t.Errorf("usage %+v, want the one call's 10 + 2", u)
	}
}

// TestRawFields: a record's members are read as slices of its bytes, not copies (the readers
// hold every record of an export), the embedded observation's too; an escaped key matches; of a
// key given twice the last wins; a member of no field is left out.
func TestRawFields(t *testing.T) {
	data := []byte(`{"id": "o1", "trace\u005fid": "t", "dataType": "NUMERIC", "id": "o2", "other": [1]}`)
	var r lfRecord
	if err := rawFields(data, 0, &r); err != nil {
		t.Fatal(err)
	}
	if string(r.ID) != `"o2"` || string(r.TraceIDS) != `"t"` || string(r.DataType) != `"NUMERIC"` || r.Observations != nil {
		t.Fatalf("%+v", r)
	}
	if at := bytes.LastIndex(data, []byte(`"o2"`)); &r.ID[0] != &data[at] || cap(r.ID) != len(r.ID) {
		t.Errorf("id is a copy, or its capacity runs past it")
	}
	if n := testing.AllocsPerRun(100, func() { _ = rawFields(data, 0, &r) }); n > 2 {
		t.Errorf("%v allocations a record, want at most 2 (the escaped key)", n)
	}
}

// TestLangfuseFrameworkDownload reads testdata/formats/langfuse/framework-download.json,
// written as Langfuse's own framework traces are fetched (langfuse/langfuse
// worker/src/__tests__/chatml/framework-traces/download_traces.js: {"trace": the tRPC
// traces.byIdWithObservationsAndScores, its "scores" inside it, "observations": each
// observations.byId}) of a LangGraph run traced by langfuse-python's CallbackHandler, which
// appends each tool definition to a generation's input as {"role": "tool", "content":
// <definition>} (langfuse/langchain/CallbackHandler.py __on_llm_action). The definitions are
// no messages and no results, and the trace's score is its outcome: the user's question,
// the call, its result, the answer, correctness 1.
func TestLangfuseFrameworkDownload(t *testing.T) {
	got := readWith(t, langfuseFile("framework-download.json"), Options{OutcomeScorer: "correctness"})
	if len(got) != 1 {
		t.Fatalf("%d traces, want 1", len(got))
	}
	tr := got[0]
	if c := countTrace(tr); c != (counts{id: "7c1e0d5a9b3f4e2a8d6c5b4a3f2e1d0c", messages: 4, calls: 1, results: 1}) {
		t.Errorf("read %+v, want 4 messages, 1 call, 1 result", c)
	}
	roles := make([]string, len(tr.Messages))
	for i, m := range tr.Messages {
		roles[i] = m.Role
	}
	if strings.Join(roles, " ") != "user assistant tool assistant" {
		t.Errorf("roles %q", roles)
	}
	if tr.Outcome != (Outcome{Known: true, Value: 1, Source: "scores.correctness"}) {
		t.Errorf("outcome %+v, want the trace's correctness 1", tr.Outcome)
	}
	if tr.Usage != (Usage{Prompt: 155, Completion: 35, Total: 190, Recorded: true}) {
		t.Errorf("usage %+v", tr.Usage)
	}
}

// TestLangfuseToolArgsPairCalls reads testdata/formats/langfuse/claude-agent-download.json, a
// download as TestLangfuseFrameworkDownload's of a Claude Agent SDK run traced by LangSmith's
// claude_agent_sdk integration and sent to Langfuse over OpenTelemetry (as Langfuse's own
// claude-agent-2025-12-22.trace.json holds it): one tool_use per GENERATION (lamp-01, then
// desk-07), then the two TOOL runs without call ids, their inputs {"input": <the call's
// arguments>} (langsmith-sdk python/langsmith/integrations/claude_agent_sdk/_hooks.py). Each
// run answers the call with its own arguments. Before, each answered the open call of the
// newest message: lamp-01's stock went to desk-07's call and back.
func TestLangfuseToolArgsPairCalls(t *testing.T) {
	got := readWith(t, langfuseFile("claude-agent-download.json"), Options{})
	if len(got) != 1 {
		t.Fatalf("%d traces, want 1", len(got))
	}
	const lamp, desk = "toolu_01LampLampLampLampLamp01", "toolu_01DeskDeskDeskDeskDesk07"
	want := "user Are the lamp and the desk in stock?\nassistant I'll check the stock of both items.\nuser role\n" +
		"assistant mcp__shop__check_stock:" + lamp + "\n" +
		"tool ->" + lamp + ` {"content":[{"type":"text","text":"Stock of lamp-01: 4 left"}]}` + "\nuser role\n" +
		"assistant mcp__shop__check_stock:" + desk + "\n" +
		"tool ->" + desk + ` {"content":[{"type":"text","text":"Stock of desk-07: none left"}]}` + "\nuser role\n" +
		"assistant The lamp is in stock (4 left); the desk is sold out.\n"
	if s := summary(got[0].Messages); s != want {
		t.Errorf("messages:\n%s\nwant:\n%s", s, want)
	}
	if u := (Usage{Prompt: 40 + 60 + 70 + 120, Completion: 12 + 20 + 20 + 18, Total: 52 + 80 + 90 + 138, Recorded: true}); got[0].Usage != u {
		t.Errorf("usage %+v, want %+v", got[0].Usage, u)
	}
}

// TestLangfuseResentResult reads testdata/formats/langfuse/google-adk-download.json, a
// download as TestLangfuseFrameworkDownload's of a Google ADK 1.12 run (as Langfuse's own
// google-adk-2025-08-28.trace.json holds one): each call_llm GENERATION's input the request
// ({"model", "config", "contents"}: Gemini contents re-sending the run so far), its output the
// LlmResponse; two sequential calls of get_order_status, each with its execute_tool TOOL
// observation whose output is {} and no call id, each call's real function_response re-sent by
// the next call_llm. Each call has one result, the re-sent text: the question, call, result,
// call, result, answer. Before, the TOOL's {} and the re-sent result were two results of each
// call: 8 messages, 4 results.
func TestLangfuseResentResult(t *testing.T) {
	got := readWith(t, langfuseFile("google-adk-download.json"), Options{})
	if len(got) != 1 {
		t.Fatalf("%d traces, want 1", len(got))
	}
	want := "user Where are orders 17 and 18?\nassistant get_order_status:\ntool -> {\"status\":\"shipped\"}\n" +
		"assistant get_order_status:\ntool -> {\"status\":\"packing\"}\n" +
		"assistant Order 17 has shipped; order 18 is being packed.\n\n"
	if s := summary(got[0].Messages); s != want {
		t.Errorf("messages:\n%s\nwant:\n%s", s, want)
	}
	for _, m := range got[0].Messages {
		for _, r := range m.Results {
			if r.Content != m.Content || !r.Success {
				t.Errorf("result %+v in a message of text %q", r, m.Content)
			}
		}
	}
	if u := (Usage{Prompt: 40 + 55 + 70, Completion: 8 + 8 + 12, Total: 48 + 63 + 82, Recorded: true}); got[0].Usage != u {
		t.Errorf("usage %+v, want %+v", got[0].Usage, u)
	}
}

// TestLangfuseResponsesItems reads testdata/formats/langfuse/openai-agents-download.json, a
// download as TestLangfuseFrameworkDownload's of an OpenAI Agents SDK run traced by
// OpenInference's openai_agents instrumentation (Arize-ai/openinference
// openinference-instrumentation-openai-agents, as Langfuse's own
// openai-agents-2025-09-30.trace.json holds it): each GENERATION's input the Responses API's
// input items as json.dumps writes them (a message, function_call, function_call_output), its
// output the Response as model_dump_json writes it. The items are the turns
// (as responsesapi.go reads them): the question, the call, its result, the answer.
func TestLangfuseResponsesItems(t *testing.T) {
	got := readWith(t, langfuseFile("openai-agents-download.json"), Options{})
	if len(got) != 1 {
		t.Fatalf("%d traces, want 1", len(got))
	}
	tr := got[0]
	if c := countTrace(tr); c != (counts{id: "8d2f1e6b0c4a5b3c9e7d6c5b4a3f2e1d", messages: 4, calls: 1, results: 1}) {
		t.Errorf("read %+v, want 4 messages, 1 call, 1 result", c)
	}
	want := []string{"user When is the next train from Utrecht?", "assistant next_train call_Vb81",
		"tool call_Vb81 Intercity to Amsterdam at 10:14, platform 5.", "assistant The next train from Utrecht leaves at 10:14 from platform 5."}
	for i, m := range tr.Messages {
		s := m.Role
		for _, c := range m.Calls {
			s += " " + c.Tool + " " + c.ID
		}
		for _, r := range m.Results {
			s += " " + r.CallID
		}
		if m.Content != "" {
			s += " " + m.Content
		}
		if i >= len(want) || s != want[i] {
			t.Errorf("message %d: %q", i, s)
		}
	}
	if tr.Usage != (Usage{Prompt: 140, Completion: 44, Total: 184, Recorded: true}) {
		t.Errorf("usage %+v", tr.Usage)
	}
}

// TestLangfuseToolNameRole reads testdata/formats/langfuse/langgraph-js-download.json, a
// download as TestLangfuseFrameworkDownload's of a LangGraph.js run traced by langfuse-js's
// LangChain CallbackHandler, which writes a ToolMessage into the next generation's input as
// {"content", "additional_kwargs", "role": <the tool's name>} (no tool_call_id), as
// langfuse/langfuse's langgraph-js-2025-10-30.trace.json holds it. That message is the result
// of the open call of that tool: the call has its result, once.
func TestLangfuseToolNameRole(t *testing.T) {
	got := readWith(t, langfuseFile("langgraph-js-download.json"), Options{})
	if len(got) != 1 {
		t.Fatalf("%d traces, want 1", len(got))
	}
	tr := got[0]
	if c := countTrace(tr); c != (counts{id: "9e3a2f7c1d5b6a4e8f0c9d8e7a6b5c4d", messages: 4, calls: 1, results: 1}) {
		t.Errorf("read %+v, want 4 messages, 1 call, 1 result", c)
	}
	if len(tr.Messages) > 2 {
		m := tr.Messages[2]
		if m.Role != "tool" || len(m.Results) != 1 || m.Results[0].CallID != "call_Gp3x" || !m.Results[0].Success || m.Results[0].Content != "Gotthard: closed for snow until Friday." {
			t.Errorf("message 2: %+v", m)
		}
	}
}
