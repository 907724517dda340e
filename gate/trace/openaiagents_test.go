package trace

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/input"
)

// readAgents reads an OpenAI Agents SDK export, by id.
func readAgents(t *testing.T, file string, data []byte) map[string]*Trace {
	t.Helper()
	out := map[string]*Trace{}
	err := eachOpenAIAgents(context.Background(), file, data, func(tr *Trace) error {
		out[tr.ID] = tr
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func results(tr *Trace) (n, failed int) {
	for _, m := range tr.Messages {
		for _, r := range m.Results {
			n++
			if !r.Success {
				failed++
			}
		}
	}
	return n, failed
}

// agentsWant are the runs of testdata/formats/openai-agents, as its README counts them.
var agentsWant = []struct {
	id                      string
	messages, calls         int
	results, failed         int
	usage                   Usage
	perCall                 CallUsage
	task                    string
	trial                   int
	summary, note, errorHas string
}{{
	id:       "trace_4b1f0c2d9e8a47f6b3c5d7e9f1a2b3c4",
	messages: 5, calls: 1, results: 1,
	usage:   Usage{Prompt: 212 + 245, Completion: 17 + 11, Total: 229 + 256, Recorded: true},
	perCall: CallUsage{Calls: 2, MaxPrompt: 245},
	task:    "weather-paris",
	summary: "system You are a weather agent. Use get_weather for any city the user names.\nuser What is the weather in Paris?\n" +
		"assistant get_weather:call_Qm3vT0bZ7yR2\ntool ->call_Qm3vT0bZ7yR2 Sunny, 21 C\nassistant It is sunny in Paris, 21 C.\n",
}, {
	// the triage agent's conversation (its handoff call and result), then the weather
	// agent's, whose re-sent handoff is not counted again; the tool's failure is the span's
	id:       "trace_8c2e1d3f5a7b49c0d2e4f6a8b0c1d2e3",
	messages: 9, calls: 2, results: 2, failed: 1,
	usage:    Usage{Prompt: 150 + 260 + 301, Completion: 9 + 18 + 12, Total: 159 + 278 + 313, Recorded: true},
	perCall:  CallUsage{Calls: 3, MaxPrompt: 301},
	task:     "weather-atlantis",
	errorHas: "Error running tool (non-fatal): city not found: Atlantis",
}}

// TestOpenAIAgents reads the processor's JSON Lines and the backend exporter's payload of the
// same two runs: each run's messages, calls, results, usage and identity as the files hold
// them (testdata/formats/openai-agents/README.md counts them).
func TestOpenAIAgents(t *testing.T) {
	for _, name := range []string{"chat.jsonl", "payload.json"} {
		t.Run(name, func(t *testing.T) {
			path, data := formatFile(t, "openai-agents/"+name, FormatOpenAIAgents)
			got := readAgents(t, path, data)
			if len(got) != len(agentsWant) {
				t.Fatalf("%d runs, want %d", len(got), len(agentsWant))
			}
			for _, w := range agentsWant {
				tr := got[w.id]
				if tr == nil {
					t.Fatalf("no run %s", w.id)
				}
				n, failed := results(tr)
				if len(tr.Messages) != w.messages || tr.NumCalls() != w.calls || n != w.results || failed != w.failed {
					t.Errorf("%s: %d messages, %d calls, %d results (%d failed); want %d, %d, %d (%d):\n%s", w.id,
						len(tr.Messages), tr.NumCalls(), n, failed, w.messages, w.calls, w.results, w.failed, summary(tr.Messages))
				}
				if tr.Usage != w.usage || tr.PerCall != w.perCall {
					t.Errorf("%s: usage %+v %+v, want %+v %+v", w.id, tr.Usage, tr.PerCall, w.usage, w.perCall)
				}
				if tr.Task != w.task || !tr.HasTrial || tr.Trial != w.trial || tr.Shape != ShapeOpenAIAgents {
					t.Errorf("%s: task %q trial %d/%v shape %s", w.id, tr.Task, tr.Trial, tr.HasTrial, tr.Shape)
				}
				if w.summary != "" && summary(tr.Messages) != w.summary {
					t.Errorf("%s:\n%s\nwant\n%s", w.id, summary(tr.Messages), w.summary)
				}
				if w.errorHas != "" && !strings.Contains(summary(tr.Messages), "failed("+w.errorHas+")") {
					t.Errorf("%s: no result failed with %q:\n%s", w.id, w.errorHas, summary(tr.Messages))
				}
				if tr.Note != "" || tr.Crash != "" {
					t.Errorf("%s: note %q crash %q", w.id, tr.Note, tr.Crash)
				}
			}
		})
	}
}

// TestOpenAIAgentsResponseSpans: a run of the SDK's default model exports response spans,
// which hold a response_id and usage but no message. It is read with no messages and a note
// that says why; its usage is still read.
func TestOpenAIAgentsResponseSpans(t *testing.T) {
	path := filepath.Join("testdata", "formats", "openai-agents", "responses.jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := readAgents(t, path, data)
	tr := got["trace_0d1c2b3a49586776a5b4c3d2e1f0a9b8"]
	if len(got) != 1 || tr == nil {
		t.Fatalf("runs %v", got)
	}
	if len(tr.Messages) != 0 || tr.HasAgentTurn() || tr.Crash != "" {
		t.Errorf("%d messages, crash %q:\n%s", len(tr.Messages), tr.Crash, summary(tr.Messages))
	}
	if want := "the model calls are response spans, which hold only a response_id (the SDK's OpenAI Responses model: its export leaves the messages out): " +
		"no message of the run was exported, so its turns and tool calls were not read (docs/trace-formats.md, \"OpenAI Agents SDK traces\")"; tr.Note != want {
		t.Errorf("note %q\nwant %q", tr.Note, want)
	}
	if want := (Usage{Prompt: 208 + 240, Completion: 16 + 12, Total: 224 + 252, Recorded: true}); tr.Usage != want || tr.PerCall != (CallUsage{Calls: 2, MaxPrompt: 240}) {
		t.Errorf("usage %+v %+v", tr.Usage, tr.PerCall)
	}
}

// TestOpenAIAgentsResponseData: a processor that adds to each response span the input and
// response the SDK keeps on it (testdata/formats/openai-agents/responses-data.jsonl) gives the
// run's turns in the Responses API's items: the response's instructions as the system
// message, a message and the function calls after it as one assistant turn, each
// function_call_output a tool message, re-sent items not counted again, the function span's
// failure on its result; the tools' strict schemas as the run's required parameters (an
// optional parameter, nullable, not among them); usage as the spans record it.
func TestOpenAIAgentsResponseData(t *testing.T) {
	path, data := formatFile(t, "openai-agents/responses-data.jsonl", FormatOpenAIAgents)
	got := readAgents(t, path, data)
	const sys = "system You are a weather agent. Use get_weather for any city the user names.\n"
	for _, w := range []struct {
		id, task, summary string
		usage             Usage
		perCall           CallUsage
	}{
		{"trace_5e2f1a3b4c5d46e7f8091a2b3c4d5e6f", "weather-lyon", sys + "user What is the weather in Lyon?\nassistant get_weather:call_Ly0nW3ath3r1\n" +
			"tool ->call_Ly0nW3ath3r1 Cloudy, 17 C\nassistant It is cloudy in Lyon, 17 C.\n",
			Usage{Prompt: 214 + 248, Completion: 19 + 12, Total: 233 + 260, Recorded: true}, CallUsage{Calls: 2, MaxPrompt: 248}},
		{"trace_6f3a2b4c5d6e47f8091a2b3c4d5e6f70", "weather-two", sys + "user Weather in Paris and Atlantis?\n" +
			"assistant get_weather:call_P4r1sW3ath3r get_weather:call_Atl4nt1sW3a Checking both cities.\ntool ->call_P4r1sW3ath3r Sunny, 21 C\n" +
			"tool ->call_Atl4nt1sW3a failed(Error running tool (non-fatal): city not found: Atlantis) An error occurred while running the tool. Please try again. Error: city not found: Atlantis\nassistant Paris is sunny, 21 C; I could not find Atlantis.\n",
			Usage{Prompt: 220 + 301, Completion: 41 + 15, Total: 261 + 316, Recorded: true}, CallUsage{Calls: 2, MaxPrompt: 301}},
	} {
		tr := got[w.id]
		if tr == nil {
			t.Fatalf("no run %s", w.id)
		}
		if summary(tr.Messages) != w.summary || tr.Note != "" {
			t.Errorf("%s (note %q):\n%s\nwant\n%s", w.id, tr.Note, summary(tr.Messages), w.summary)
		}
		if tr.Usage != w.usage || tr.PerCall != w.perCall || tr.Task != w.task {
			t.Errorf("%s: usage %+v %+v task %q", w.id, tr.Usage, tr.PerCall, tr.Task)
		}
		if want := map[string][]string{"get_weather": {"city"}}; !maps.EqualFunc(tr.RequiredParams, want, slices.Equal) {
			t.Errorf("%s: required parameters %v, want %v", w.id, tr.RequiredParams, want)
		}
	}
	if len(got) != 2 {
		t.Errorf("%d runs", len(got))
	}
}

// TestResponseItems: the Responses API's items read as messages, alike in a call's output and
// in the next call's input; what they lack is said where.
func TestResponseItems(t *testing.T) {
	for _, c := range []struct{ raw, want string }{
		{`"hello"`, "user hello\n"},
		{`null`, ""},
		{`[{"type": "reasoning", "id": "rs_1", "summary": []}, {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"}, {"type": "function_call", "call_id": "c2", "name": "g", "arguments": "{}"}]`,
			"assistant f:c1 g:c2\n"},
		{`[{"role": "user", "content": [{"type": "input_text", "text": "hi"}, {"type": "input_image", "image_url": "u"}]}, {"type": "message", "role": "assistant", "content": [{"type": "refusal", "refusal": "no"}]}]`,
			"user hi\nassistant no\n"},
		{`[{"type": "function_call_output", "call_id": "c1", "output": "Error: boom"}]`, "tool ->c1 failed(Error: boom) Error: boom\n"},
		{`[{"type": "mcp_call", "id": "m1", "name": "search", "arguments": "{}", "output": null, "error": "denied", "server_label": "s"}]`,
			"assistant search:m1\ntool ->m1 failed(denied)\n"},
		{`[{"type": "reasoning", "id": "rs", "summary": []}, {"type": "item_reference", "id": "x"}]`, ""},
		{`[{"id": "x"}]`, `error [0]: a Responses API item without "type" or "role"`},
		{`[{"type": "function_call", "call_id": "c"}]`, `error [0].name: a function_call without a tool name`},
		{`[1]`, `error [0]: expected a Responses API item (an object), found a number`},
		{`{"a": 1}`, `error : expected a string or a list of Responses API items, found an object`},
	} {
		ms, p := responseItems([]byte(c.raw))
		got := summary(ms)
		if p != nil {
			got = "error " + pathString(p.at) + ": " + p.msg
		}
		if got != c.want {
			t.Errorf("responseItems(%s) = %q, want %q", c.raw, got, c.want)
		}
	}
}

// TestOpenAIAgentsOrder: the order of the lines (and so of the traces and spans) changes no
// run: spans are put in started_at order. Reversed lines give the same runs.
func TestOpenAIAgentsOrder(t *testing.T) {
	path := filepath.Join("testdata", "formats", "openai-agents", "chat.jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(bytes.TrimSpace(data), []byte("\n"))
	for i := range lines {
		lines[i] = append(bytes.TrimSpace(lines[i]), '\n')
	}
	slices.Reverse(lines)
	a, b := readAgents(t, path, data), readAgents(t, "reversed.jsonl", bytes.Join(lines, nil))
	for id, ta := range a {
		tb := b[id]
		if tb == nil || summary(ta.Messages) != summary(tb.Messages) || ta.Usage != tb.Usage || ta.Task != tb.Task {
			t.Errorf("%s: reversed lines read differently:\n%s\nvs\n%s", id, summary(ta.Messages), summary(tb.Messages))
		}
	}
}

// TestOpenAIAgentsStartAndEnd: a processor that writes each span when it starts (ended_at
// null, no input or output yet) and again when it ends gives each span twice; the export at its
// end is the span, so the runs are those of the file written at the ends alone.
func TestOpenAIAgentsStartAndEnd(t *testing.T) {
	path := filepath.Join("testdata", "formats", "openai-agents", "chat.jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var starts []byte
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if !bytes.Contains(line, []byte(`"object": "trace.span"`)) {
			continue
		}
		var sp map[string]any
		if err := json.Unmarshal(line, &sp); err != nil {
			t.Fatal(err)
		}
		sd := sp["span_data"].(map[string]any)
		for _, k := range []string{"input", "output", "usage"} {
			if _, ok := sd[k]; ok {
				sd[k] = nil
			}
		}
		sp["ended_at"] = nil
		b, _ := json.Marshal(sp)
		starts = append(append(starts, b...), '\n')
	}
	a, b := readAgents(t, path, data), readAgents(t, "both.jsonl", append(starts, data...))
	for id, ta := range a {
		tb := b[id]
		if tb == nil || summary(ta.Messages) != summary(tb.Messages) || ta.Usage != tb.Usage || tb.Note != "" {
			t.Errorf("%s: with the starts read differently:\n%s\nvs\n%s", id, summary(ta.Messages), summary(tb.Messages))
		}
	}
}

// TestOpenAIAgentsErrors: what is wrong is said with the file, line and column of the value.
func TestOpenAIAgentsErrors(t *testing.T) {
	span := func(data string) string {
		return `{"object": "trace.span", "id": "span_1", "trace_id": "trace_1", "parent_id": null, "started_at": "2026-11-03T09:00:00+00:00", "ended_at": null, "span_data": ` + data + `, "error": null}`
	}
	for _, tc := range []struct{ name, data, want string }{
		{"bad JSON", `{"object": "trace", "id": "trace_1"}` + "\n" + `{"object": "trace.span",`, `f.jsonl:2:25: invalid JSON: unexpected end of input in an object`},
		{"an unknown object", `{"object": "trace", "id": "trace_1"}` + "\n" + `{"object": "trace.spam", "id": "s"}`, `f.jsonl:2:12: field "object": expected "trace" or "trace.span", found "trace.spam"`},
		{"a span without a trace id", `{"object": "trace.span", "id": "s", "span_data": {"type": "agent"}}`, `f.jsonl:1:1: field "trace_id": a trace.span without a trace id`},
		{"input not a list", span(`{"type": "generation", "input": "hi"}`), `f.jsonl:1:190: field "span_data.input": expected a list of chat messages, found a string`},
		{"a tool call without a name", span(`{"type": "generation", "input": [{"role": "user", "content": "hi"}], "output": [{"role": "assistant", "tool_calls": [{"id": "c", "function": {"arguments": "{}"}}]}]}`),
			`f.jsonl:1:275: field "span_data.output[0].tool_calls[0]": a tool call without a tool name ("name", or "function.name")`},
		{"a function span without a name", span(`{"type": "function", "input": "{}"}`), `f.jsonl:1:158: field "span_data.name": a function span without a tool name`},
		{"a bad time", strings.Replace(span(`{"type": "agent"}`), "2026-11-03T09:00:00+00:00", "yesterday", 1), `f.jsonl:1:98: field "started_at": expected an ISO 8601 time, found "yesterday"`},
		{"usage", span(`{"type": "generation", "input": null, "output": null, "usage": {"input_tokens": -1}}`), `f.jsonl:1:238: field "span_data.usage.input_tokens": must be a non-negative integer, got -1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := eachOpenAIAgents(context.Background(), "f.jsonl", []byte(tc.data), func(*Trace) error { return nil })
			var ie *input.Error
			if !errors.As(err, &ie) || err.Error() != tc.want {
				t.Errorf("error %v\nwant  %s", err, tc.want)
			}
		})
	}
}

// FuzzOpenAIAgents feeds arbitrary bytes to the reader of OpenAI Agents SDK exports: runs with
// ids, or an *input.Error naming the file, never a panic.
func FuzzOpenAIAgents(f *testing.F) {
	seedFile(f, "openai-agents/responses.jsonl")
	seedFile(f, "openai-agents/responses-kept.jsonl")
	seedFile(f, "openai-agents/parallel.jsonl")
	f.Add([]byte(`{"object":"trace.span","id":"r","trace_id":"t","span_data":{"type":"response","input":[{"type":"custom_tool_call_output","call_id":"c0","output":[{"type":"input_text","text":"x"}]},{"type":"local_shell_call_output","id":"l0","output":"ok"},{"type":"computer_call_output","call_id":"k0","output":{"type":"computer_screenshot"},"status":"failed"}],"response":{"id":"resp_2","previous_response_id":"resp_1","conversation":{"id":"conv_1"},"output":[{"type":"custom_tool_call","call_id":"c","name":"g","input":"free"},{"type":"web_search_call","id":"w","action":{"type":"search","query":"q"},"status":"failed"},{"type":"file_search_call","id":"f","queries":["q"],"results":null,"status":"completed"},{"type":"code_interpreter_call","id":"ci","code":"1","container_id":"c","outputs":[{"type":"logs","logs":"1"}],"status":"completed"},{"type":"mcp_call","id":"m","name":"n","arguments":"{}","server_label":"s","error":{"type":"http_error","code":500,"message":"e"},"status":"failed"},{"type":"image_generation_call","id":"i","result":null,"status":"generating"},{"type":"local_shell_call","id":"l","call_id":"lc","action":{"type":"exec","command":["ls"],"env":{}},"status":"completed"},{"type":"computer_call","id":"k","call_id":"kc","action":null,"actions":[{"type":"screenshot"}],"pending_safety_checks":[],"status":"completed"}]}}}` + "\n"))
	f.Add([]byte(`{"object":"trace.span","id":"r","trace_id":"t","span_data":{"type":"response","input":[{"role":"user","content":"q"},{"type":"function_call_output","call_id":"c0","output":"x"}],"response":{"instructions":"s","output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"a"}]},{"type":"function_call","call_id":"c","name":"f","arguments":"{}"}],"tools":[{"type":"function","name":"f","parameters":{"required":["a"],"properties":{"a":{"type":["string","null"]}}}}],"usage":{"input_tokens":3}}}}` + "\n"))
	f.Add([]byte(`{"data":[{"object":"trace.span","id":"s","trace_id":"t","started_at":"2026-01-01T00:00:00Z","span_data":{"type":"generation","input":[{"role":"user","content":"q"}],"output":[{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"f","arguments":"{}"}}]}]}},` +
		`{"object":"trace.span","id":"s2","trace_id":"t","span_data":{"type":"function","name":"f","output":"x"},"error":{"message":"m","data":{"error":"e"}}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		err := eachOpenAIAgents(context.Background(), "f.jsonl", data, func(tr *Trace) error {
			if tr.ID == "" || tr.Shape != ShapeOpenAIAgents {
				t.Fatalf("trace %+v", tr)
			}
			return nil
		})
		checkFormatError(t, err, "f.jsonl")
	})
}

// TestOpenAIAgentsServerConversation: runs on a conversation the server keeps
// (testdata/formats/openai-agents/responses-kept.jsonl): each response after the first is sent
// only the items it adds (the tool outputs), and names the response it continues
// (previous_response_id) or the server's conversation. Each run is one conversation, its
// messages each once, as the file holds them; a handoff to an agent with instructions of its
// own is a conversation of its own even on the same chain, and the handoff's result goes to
// the triage agent's call. Read as separate calls, each later call started a conversation of
// its own that repeated the system message.
func TestOpenAIAgentsServerConversation(t *testing.T) {
	path, data := formatFile(t, "openai-agents/responses-kept.jsonl", FormatOpenAIAgents)
	got := readAgents(t, path, data)
	const weather = "system You are a weather agent. Use get_weather for any city the user names.\n"
	lyon := "assistant get_weather:call_Ly0nW3ath3r1\ntool ->call_Ly0nW3ath3r1 Cloudy, 17 C\nassistant It is cloudy in Lyon, 17 C.\n"
	for _, w := range []struct {
		id, task, summary      string
		messages, calls, fails int
		usage                  Usage
	}{
		{"trace_7a4b3c5d6e7f48091a2b3c4d5e6f7081", "weather-two-kept", weather + "user Weather in Paris and Atlantis?\n" +
			"assistant get_weather:call_P4r1sW3ath3r get_weather:call_Atl4nt1sW3a Checking both cities.\ntool ->call_P4r1sW3ath3r Sunny, 21 C\n" +
			"tool ->call_Atl4nt1sW3a failed(Error running tool (non-fatal): city not found: Atlantis) An error occurred while running the tool. Please try again. Error: city not found: Atlantis\n" +
			"assistant Paris is sunny, 21 C; I could not find Atlantis.\n", 6, 2, 1, Usage{Prompt: 220 + 301, Completion: 41 + 15, Total: 261 + 316, Recorded: true}},
		{"trace_8b5c4d6e7f8049a1b2c3d4e5f6071829", "weather-lyon-conversation", weather + "user What is the weather in Lyon?\n" + lyon, 5, 1, 0, Usage{Prompt: 214 + 248, Completion: 19 + 12, Total: 233 + 260, Recorded: true}},
		{"trace_9c6d5e7f8091a2b3c4d5e6f708192a3b", "weather-lyon-handoff-kept",
			"system You are a triage agent. Hand weather questions to the weather agent.\nuser What is the weather in Lyon?\n" +
				"assistant transfer_to_weather_agent:call_H4nd0ffW3a1\ntool ->call_H4nd0ffW3a1 {\"assistant\": \"Weather agent\"}\n" + weather + lyon, 8, 2, 0, Usage{Prompt: 120 + 214 + 248, Completion: 14 + 19 + 12, Total: 134 + 233 + 260, Recorded: true}},
	} {
		tr := got[w.id]
		if tr == nil {
			t.Fatalf("no run %s", w.id)
		}
		n, failed := results(tr)
		if s := summary(tr.Messages); s != w.summary || len(tr.Messages) != w.messages || tr.NumCalls() != w.calls || n != w.calls || failed != w.fails {
			t.Errorf("%s: %d messages, %d calls, %d results (%d failed):\n%s\nwant\n%s", w.id, len(tr.Messages), tr.NumCalls(), n, failed, s, w.summary)
		}
		if tr.Task != w.task || tr.Note != "" || tr.Usage != w.usage {
			t.Errorf("%s: task %q note %q usage %+v, want %+v", w.id, tr.Task, tr.Note, tr.Usage, w.usage)
		}
	}
	if len(got) != 3 {
		t.Errorf("%d runs", len(got))
	}
}

// TestResponseToolItems: each of the Responses API's call items other than function_call, as
// openai-python's types/responses models dump them, read as a call (the tool named by the
// item's type less "_call", or its name) with its arguments, and its result where the item
// carries one or an item of its own holds it: failed where its status is "failed" or it has
// an error; a call still running has no result yet.
func TestResponseToolItems(t *testing.T) {
	// what summary leaves out: each call's arguments, each result's text
	detail := func(ms []Message) string {
		var b strings.Builder
		for _, m := range ms {
			for _, c := range m.Calls {
				fmt.Fprintf(&b, "%s(%s) valid=%v\n", c.Tool, c.Args, c.ArgsValid)
			}
			for _, r := range m.Results {
				fmt.Fprintf(&b, "->%s %q ok=%v %q\n", r.CallID, r.Content, r.Success, r.Error)
			}
		}
		return b.String()
	}
	for _, c := range []struct{ name, raw, want string }{
		{"custom_tool_call and its output", `[{"call_id": "call_c1", "input": "*** Begin Patch\nfoo", "name": "apply_patch_text", "type": "custom_tool_call", "id": "ctc_1", "caller": null, "namespace": null}, ` +
			`{"call_id": "call_c1", "output": "patched", "type": "custom_tool_call_output"}, {"call_id": "call_c2", "output": [{"type": "input_text", "text": "Error: no such file"}], "type": "custom_tool_call_output"}]`,
			"apply_patch_text({\"input\":\"*** Begin Patch\\nfoo\"}) valid=true\n->call_c1 \"patched\" ok=true \"\"\n->call_c2 \"Error: no such file\" ok=false \"Error: no such file\"\n"},
		{"web_search_call", `[{"id": "ws_1", "action": {"query": "weather Paris", "type": "search", "queries": null, "sources": null}, "status": "completed", "type": "web_search_call"}, ` +
			`{"id": "ws_2", "action": {"type": "open_page", "url": "https://example.com"}, "status": "failed", "type": "web_search_call"}]`,
			"web_search({\"query\":\"weather Paris\",\"type\":\"search\",\"queries\":null,\"sources\":null}) valid=true\n->ws_1 \"\" ok=true \"\"\n" +
				"web_search({\"type\":\"open_page\",\"url\":\"https://example.com\"}) valid=true\n->ws_2 \"\" ok=false \"the web_search_call's status is failed\"\n"},
		{"file_search_call", `[{"id": "fs_1", "queries": ["refund policy"], "status": "completed", "type": "file_search_call", "results": [{"attributes": {}, "file_id": "file-1", "filename": "policy.md", "score": 0.9, "text": "Refunds within 30 days."}]}]`,
			"file_search({\"queries\":[\"refund policy\"]}) valid=true\n->fs_1 \"[{\\\"attributes\\\":{},\\\"file_id\\\":\\\"file-1\\\",\\\"filename\\\":\\\"policy.md\\\",\\\"score\\\":0.9,\\\"text\\\":\\\"Refunds within 30 days.\\\"}]\" ok=true \"\"\n"},
		{"code_interpreter_call", `[{"id": "ci_1", "code": "print(6*7)", "container_id": "cntr_1", "outputs": [{"logs": "42\n", "type": "logs"}, {"type": "image", "url": "https://x/img.png"}], "status": "completed", "type": "code_interpreter_call"}, ` +
			`{"id": "ci_2", "code": "1/0", "container_id": "cntr_1", "outputs": null, "status": "failed", "type": "code_interpreter_call"}, {"id": "ci_3", "code": "x", "container_id": "cntr_1", "outputs": null, "status": "interpreting", "type": "code_interpreter_call"}]`,
			"code_interpreter({\"code\":\"print(6*7)\",\"container_id\":\"cntr_1\"}) valid=true\n->ci_1 \"42\\n\" ok=true \"\"\n" +
				"code_interpreter({\"code\":\"1/0\",\"container_id\":\"cntr_1\"}) valid=true\n->ci_2 \"\" ok=false \"the code_interpreter_call's status is failed\"\n" +
				"code_interpreter({\"code\":\"x\",\"container_id\":\"cntr_1\"}) valid=true\n"},
		{"mcp_call", `[{"id": "mcp_1", "arguments": "{\"q\": 1}", "name": "search_docs", "server_label": "docs", "type": "mcp_call", "approval_request_id": null, "error": {"code": -32000, "message": "server down", "type": "mcp_protocol_error"}, "output": null, "status": "failed"}, ` +
			`{"id": "mcp_2", "arguments": "{}", "name": "search_docs", "server_label": "docs", "type": "mcp_call", "error": {"content": [{"type": "text", "text": "bad query"}], "type": "mcp_tool_execution_error"}, "output": null, "status": "failed"}, ` +
			`{"id": "mcp_3", "arguments": "{}", "name": "list", "server_label": "docs", "type": "mcp_call", "error": null, "output": "a, b", "status": "completed"}]`,
			"search_docs({\"q\": 1}) valid=true\n->mcp_1 \"\" ok=false \"server down\"\nsearch_docs({}) valid=true\n->mcp_2 \"\" ok=false \"bad query\"\nlist({}) valid=true\n->mcp_3 \"a, b\" ok=true \"\"\n"},
		{"image_generation_call", `[{"id": "ig_1", "result": "iVBORw0KGgo=", "status": "completed", "type": "image_generation_call"}, {"id": "ig_2", "result": null, "status": "failed", "type": "image_generation_call"}]`,
			"image_generation({}) valid=true\n->ig_1 \"\" ok=true \"\"\nimage_generation({}) valid=true\n->ig_2 \"\" ok=false \"the image_generation_call's status is failed\"\n"},
		{"local_shell_call and its output", `[{"id": "lsh_1", "action": {"command": ["ls", "-l"], "env": {}, "type": "exec", "timeout_ms": null, "user": null, "working_directory": null}, "call_id": "call_l1", "status": "completed", "type": "local_shell_call"}, ` +
			`{"type": "local_shell_call_output", "call_id": "call_l1", "output": "total 0"}, {"id": "call_l2", "output": "Error: denied", "type": "local_shell_call_output", "status": "completed"}]`,
			"local_shell({\"command\":[\"ls\",\"-l\"],\"env\":{},\"type\":\"exec\",\"timeout_ms\":null,\"user\":null,\"working_directory\":null}) valid=true\n" +
				"->call_l1 \"total 0\" ok=true \"\"\n->call_l2 \"Error: denied\" ok=false \"Error: denied\"\n"},
		{"computer_call and its output", `[{"id": "cu_1", "call_id": "call_k1", "pending_safety_checks": [], "status": "completed", "type": "computer_call", "action": {"button": "left", "type": "click", "x": 10, "y": 20, "keys": null}, "actions": null}, ` +
			`{"id": "cu_2", "call_id": "call_k2", "pending_safety_checks": [], "status": "completed", "type": "computer_call", "action": null, "actions": [{"type": "screenshot"}]}, ` +
			`{"call_id": "call_k1", "output": {"type": "computer_screenshot", "image_url": "data:image/png;base64,iVBO"}, "type": "computer_call_output"}, ` +
			`{"id": "cuo_2", "call_id": "call_k2", "output": {"type": "computer_screenshot", "file_id": "file-2"}, "status": "failed", "type": "computer_call_output", "acknowledged_safety_checks": null}]`,
			"computer({\"button\":\"left\",\"type\":\"click\",\"x\":10,\"y\":20,\"keys\":null}) valid=true\ncomputer({\"actions\":[{\"type\":\"screenshot\"}]}) valid=true\n" +
				"->call_k1 \"\" ok=true \"\"\n->call_k2 \"\" ok=false \"the computer_call_output's status is failed\"\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ms, p := responseItems([]byte(c.raw))
			if p != nil {
				t.Fatalf("%s: %s", pathString(p.at), p.msg)
			}
			if got := detail(ms); got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
	// the calls' ids and the order of the turns: a call joins the assistant turn, its result
	// (where the API ran the tool) follows it
	ms, _ := responseItems([]byte(`[{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Searching."}]}, {"id": "ws_1", "action": null, "status": "completed", "type": "web_search_call"}, ` +
		`{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Found it."}]}, {"call_id": "call_c1", "input": "x", "name": "grep", "type": "custom_tool_call"}]`))
	if got, want := summary(ms), "assistant web_search:ws_1 Searching.\ntool ->ws_1\nassistant grep:call_c1 Found it.\n"; got != want {
		t.Errorf("turns:\n%s\nwant\n%s", got, want)
	}
	for _, c := range []struct{ raw, want string }{
		{`[{"type": "custom_tool_call", "call_id": "c", "input": "x"}]`, `[0].name: a custom_tool_call without a tool name`},
		{`[{"type": "custom_tool_call_output", "call_id": "c", "output": 5}]`, ``},
	} {
		_, p := responseItems([]byte(c.raw))
		got := ""
		if p != nil {
			got = pathString(p.at) + ": " + p.msg
		}
		if got != c.want {
			t.Errorf("responseItems(%s): %q, want %q", c.raw, got, c.want)
		}
	}
}

// TestOpenAIAgentsComputerCall: the SDK runs a computer_call in a function span named
// "computer" (run_internal/tool_actions.py, ComputerAction.TRACE_TOOL_NAME), which answers the
// call the response made; the next response's computer_call_output is that result, not
// another. A custom tool's function span is named as its custom_tool_call.
func TestOpenAIAgentsComputerCall(t *testing.T) {
	span := func(id, start, data string) string {
		return `{"object": "trace.span", "id": "` + id + `", "trace_id": "trace_1", "parent_id": null, "started_at": "2026-11-03T09:00:0` + start + `+00:00", "ended_at": null, "span_data": ` + data + `, "error": null}` + "\n"
	}
	data := span("s1", "1", `{"type": "response", "input": [{"content": "Open the page.", "role": "user"}], "response": {"id": "resp_1", "output": [`+
		`{"id": "cu_1", "call_id": "call_k1", "pending_safety_checks": [], "status": "completed", "type": "computer_call", "action": {"type": "screenshot"}}, `+
		`{"call_id": "call_c1", "input": "x", "name": "grep_tool", "type": "custom_tool_call"}]}}`) +
		span("s2", "2", `{"type": "function", "name": "computer", "input": "{\"type\": \"screenshot\"}", "output": "data:image/png;base64,iVBO", "mcp_data": null}`) +
		span("s3", "3", `{"type": "function", "name": "grep_tool", "input": "x", "output": "3 matches", "mcp_data": null}`) +
		span("s4", "4", `{"type": "response", "input": [{"content": "Open the page.", "role": "user"}, {"id": "cu_1", "call_id": "call_k1", "pending_safety_checks": [], "status": "completed", "type": "computer_call", "action": {"type": "screenshot"}}, `+
			`{"call_id": "call_c1", "input": "x", "name": "grep_tool", "type": "custom_tool_call"}, `+
			`{"call_id": "call_k1", "output": {"type": "computer_screenshot", "image_url": "data:image/png;base64,iVBO"}, "type": "computer_call_output"}, {"call_id": "call_c1", "output": "3 matches", "type": "custom_tool_call_output"}], `+
			`"response": {"id": "resp_2", "output": [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Done."}]}]}}`)
	tr := readAgents(t, "f.jsonl", []byte(data))["trace_1"]
	want := "user Open the page.\nassistant computer:call_k1 grep_tool:call_c1\ntool ->call_k1 data:image/png;base64,iVBO\ntool ->call_c1 3 matches\nassistant Done.\n"
	if tr == nil {
		t.Fatal("no run trace_1")
	}
	if got := summary(tr.Messages); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
