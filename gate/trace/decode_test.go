package trace

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentgate/agentgate/gate/input"
)

// decode decodes text as record 7 of t.jsonl.
func decode(text string) (*Trace, error) {
	return Decode(input.Record{File: "t.jsonl", Line: 7, Col: 1, Data: []byte(text)})
}

func mustDecode(t *testing.T, text string) *Trace {
	t.Helper()
	tr, err := decode(text)
	if err != nil {
		t.Fatalf("Decode(%s): %v", text, err)
	}
	return tr
}

func check(t *testing.T, got, want *Trace) {
	t.Helper()
	if reflect.DeepEqual(got, want) {
		return
	}
	if got.ID != want.ID || got.File != want.File || got.Line != want.Line || got.Shape != want.Shape || got.Usage != want.Usage {
		t.Errorf("trace = {%q %q %d %q %+v}, want {%q %q %d %q %+v}",
			got.ID, got.File, got.Line, got.Shape, got.Usage, want.ID, want.File, want.Line, want.Shape, want.Usage)
	}
	if len(got.Messages) != len(want.Messages) {
		t.Fatalf("%d messages, want %d:\n%s", len(got.Messages), len(want.Messages), dump(got))
	}
	for i := range got.Messages {
		if !reflect.DeepEqual(got.Messages[i], want.Messages[i]) {
			t.Errorf("message %d =\n  %s\nwant\n  %s", i, dumpMsg(got.Messages[i]), dumpMsg(want.Messages[i]))
		}
	}
}

func dump(tr *Trace) string {
	var b strings.Builder
	for i, m := range tr.Messages {
		fmt.Fprintf(&b, "  %d: %s\n", i, dumpMsg(m))
	}
	return b.String()
}

func dumpMsg(m Message) string {
	var b strings.Builder
	fmt.Fprintf(&b, "{%s %q", m.Role, m.Content)
	for _, c := range m.Calls {
		fmt.Fprintf(&b, " call{%q has=%v %q %q valid=%v}", c.ID, c.HasID, c.Tool, c.Args, c.ArgsValid)
	}
	for _, r := range m.Results {
		fmt.Fprintf(&b, " result{%q has=%v ok=%v %q err=%q}", r.CallID, r.HasID, r.Success, r.Content, r.Error)
	}
	return b.String() + "}"
}

func args(s string) []byte { return []byte(s) }

func TestDecodeRS1(t *testing.T) {
	rec := `{"trace_id": "rs1-a", "messages": [
	{"role": "user", "content": "fetch it", "tool_calls": [], "tool_results": [], "timestamp": "2026-01-03T10:00:00Z"},
	{"role": "assistant", "content": "fetching", "tool_calls": [
		{"tool_name": "fetch", "arguments": {"url": "https://x", "n": [1, 2]}, "call_id": "call-1", "timestamp": "t"},
		{"tool_name": "fetch", "arguments": {}, "call_id": null},
		{"tool_name": "noargs"},
		{"tool_name": "stringargs", "arguments": "{\"a\": 1}", "call_id": "call-3"},
		{"tool_name": "badargs", "arguments": "{oops", "call_id": "call-4"}
	], "tool_results": []},
	{"role": "tool", "content": "done", "tool_calls": [], "tool_results": [
		{"call_id": "call-1", "success": true, "result": {"data": [1, 2, 3]}, "error": null},
		{"call_id": "call-3", "success": false, "result": null, "error": "Failed to process"},
		{"call_id": "call-4", "result": "plain text"},
		{"call_id": "call-9", "success": true, "result": 42},
		{"success": null}
	]},
	{"role": "assistant", "content": null}
], "token_usage": {"prompt_tokens": 450, "completion_tokens": 280, "total_tokens": 730}, "metadata": {"x": 1}}`
	want := &Trace{ID: "rs1-a", File: "t.jsonl", Line: 7, Shape: ShapeRS1, Messages: []Message{
		{Role: "user", Content: "fetch it"},
		{Role: "assistant", Content: "fetching", Calls: []Call{
			{ID: "call-1", HasID: true, Tool: "fetch", Args: args(`{"url": "https://x", "n": [1, 2]}`), ArgsValid: true},
			{Tool: "fetch", Args: args(`{}`), ArgsValid: true},
			{Tool: "noargs", ArgsValid: true},
			{ID: "call-3", HasID: true, Tool: "stringargs", Args: args(`{"a": 1}`), ArgsValid: true},
			{ID: "call-4", HasID: true, Tool: "badargs", Args: args(`{oops`), ArgsValid: false},
		}},
		{Role: "tool", Content: "done", Results: []Result{
			{CallID: "call-1", HasID: true, Success: true, Content: `{"data": [1, 2, 3]}`},
			{CallID: "call-3", HasID: true, Success: false, Error: "Failed to process"},
			{CallID: "call-4", HasID: true, Success: false, Content: "plain text"}, // missing success means false
			{CallID: "call-9", HasID: true, Success: true, Content: "42"},
			{},
		}},
		{Role: "assistant"},
	}, Usage: Usage{Prompt: 450, Completion: 280, Total: 730, Recorded: true}}
	check(t, mustDecode(t, rec), want)

	// No token_usage: nothing recorded. Total derived from prompt+completion when absent.
	tr := mustDecode(t, `{"trace_id": "b", "messages": [{"role": "user", "content": "hi", "tool_results": []}]}`)
	if tr.Shape != ShapeRS1 || tr.Usage != (Usage{}) {
		t.Errorf("no usage: shape %q usage %+v", tr.Shape, tr.Usage)
	}
	tr = mustDecode(t, `{"trace_id": "b", "messages": [], "token_usage": {"prompt_tokens": 10, "completion_tokens": 5}}`)
	if tr.Shape != ShapeRS1 || tr.Usage != (Usage{Prompt: 10, Completion: 5, Total: 15, Recorded: true}) {
		t.Errorf("derived total: shape %q usage %+v", tr.Shape, tr.Usage)
	}
}

func TestDecodeOpenAI(t *testing.T) {
	rec := `{"id": "oa-1", "messages": [
	{"role": "system", "content": "be brief"},
	{"role": "user", "content": [{"type": "text", "text": "part one"}, {"type": "image_url", "image_url": {"url": "u"}}, {"type": "text", "text": "part two"}]},
	{"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "search", "arguments": "{\"q\": \"x\"}"}}],
	 "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}},
	{"role": "tool", "tool_call_id": "c1", "name": "search", "content": "Error: no such flight"},
	{"role": "assistant", "content": "", "tool_calls": [
		{"id": "c1", "type": "function", "function": {"name": "search", "arguments": "{\"q\": \"y\""}},
		{"id": "c2", "type": "function", "function": {"name": "book", "arguments": ""}}
	], "usage": {"prompt_tokens": 200, "completion_tokens": 20}},
	{"role": "user", "content": "still there?"},
	{"role": "tool", "tool_call_id": "c2", "content": "{\"error\": \"card declined\", \"code\": 402}"},
	{"role": "tool", "tool_call_id": "c1", "content": null},
	{"role": "assistant", "content": "All done."}
]}`
	want := &Trace{ID: "oa-1", File: "t.jsonl", Line: 7, Shape: ShapeOpenAI, Messages: []Message{
		{Role: "system", Content: "be brief"},
		{Role: "user", Content: "part one\npart two"},
		{Role: "assistant", Calls: []Call{{ID: "c1", HasID: true, Tool: "search", Args: args(`{"q": "x"}`), ArgsValid: true}}},
		{Role: "tool", Content: "Error: no such flight", Results: []Result{{CallID: "c1", HasID: true, Content: "Error: no such flight", Error: "Error: no such flight"}}},
		{Role: "assistant", Calls: []Call{
			{ID: "c1", HasID: true, Tool: "search", Args: args(`{"q": "y"`), ArgsValid: false}, // repeated id, invalid JSON kept raw
			{ID: "c2", HasID: true, Tool: "book", Args: args(``), ArgsValid: false},
		}},
		{Role: "user", Content: "still there?"},
		{Role: "tool", Content: `{"error": "card declined", "code": 402}`, Results: []Result{{CallID: "c2", HasID: true, Content: `{"error": "card declined", "code": 402}`, Error: "card declined"}}},
		{Role: "tool", Results: []Result{{CallID: "c1", HasID: true, Success: true}}}, // late result, null content
		{Role: "assistant", Content: "All done."},
	}, Usage: Usage{Prompt: 300, Completion: 30, Total: 330, Recorded: true}}
	check(t, mustDecode(t, rec), want)
}

func TestDecodeOpenAIToolCallIDs(t *testing.T) {
	// SWE-agent writes one tool message answering several ids.
	rec := `{"history": [
	{"role": "assistant", "content": "two at once", "tool_calls": [
		{"id": "a", "type": "function", "function": {"name": "ls", "arguments": "{}"}},
		{"id": "b", "type": "function", "function": {"name": "cat", "arguments": "{\"f\": \"x\"}"}}]},
	{"role": "tool", "content": [{"type": "text", "text": "out a"}, {"type": "text", "text": "out b"}], "tool_call_ids": ["a", "b"]},
	{"role": "tool", "content": "orphan", "tool_call_ids": []}
]}`
	want := &Trace{ID: "t.jsonl:7", File: "t.jsonl", Line: 7, Shape: ShapeOpenAI, Messages: []Message{
		{Role: "assistant", Content: "two at once", Calls: []Call{
			{ID: "a", HasID: true, Tool: "ls", Args: args(`{}`), ArgsValid: true},
			{ID: "b", HasID: true, Tool: "cat", Args: args(`{"f": "x"}`), ArgsValid: true},
		}},
		{Role: "tool", Content: "out a\nout b", Results: []Result{
			{CallID: "a", HasID: true, Success: true, Content: "out a\nout b"},
			{CallID: "b", HasID: true, Success: true, Content: "out a\nout b"},
		}},
		{Role: "tool", Content: "orphan", Results: []Result{{Success: true, Content: "orphan"}}},
	}}
	check(t, mustDecode(t, rec), want)
}

func TestDecodeOpenAILegacyFunctionCall(t *testing.T) {
	rec := `{"messages": [
	{"role": "assistant", "content": null, "function_call": {"name": "get_weather", "arguments": "{\"city\": \"Oslo\"}"}},
	{"role": "function", "name": "get_weather", "content": "ERROR weather service down"}
]}`
	want := &Trace{ID: "t.jsonl:7", File: "t.jsonl", Line: 7, Shape: ShapeOpenAI, Messages: []Message{
		{Role: "assistant", Calls: []Call{{Tool: "get_weather", Args: args(`{"city": "Oslo"}`), ArgsValid: true}}},
		{Role: "function", Content: "ERROR weather service down", Results: []Result{{Content: "ERROR weather service down", Error: "ERROR weather service down"}}},
	}}
	check(t, mustDecode(t, rec), want)
}

func TestOpenAIFailureDetection(t *testing.T) {
	cases := []struct {
		content string // a JSON value
		failed  bool
		err     string
	}{
		{`"Error: not found"`, true, "Error: not found"},
		{`"error: lower case"`, true, "error: lower case"},
		{`"ERROR"`, true, "ERROR"},
		{`"  \n\tError after white space  "`, true, "Error after white space"},
		{`"Errors found: 3"`, true, "Errors found: 3"}, // begins with Error: the spec's rule
		{`"Err"`, false, ""},
		{`"No error here"`, false, ""},
		{`"the result"`, false, ""},
		{`""`, false, ""},
		{`null`, false, ""},
		{`"{\"error\": \"boom\"}"`, true, "boom"},
		{`" {\"status\": 500, \"error\": {\"code\": 7}}"`, true, `{"code": 7}`},
		{`"{\"error\": [\"a\"]}"`, true, `["a"]`},
		{`"{\"error\": true}"`, true, "true"},
		{`"{\"error\": 3}"`, true, "3"},
		{`"{\"error\": null}"`, false, ""},
		{`"{\"error\": \"\"}"`, false, ""},
		{`"{\"error\": false}"`, false, ""},
		{`"{\"error\": 0}"`, false, ""},
		{`"{\"error\": {}}"`, false, ""},
		{`"{\"error\": [ ]}"`, false, ""},
		{`"{\"result\": {\"error\": \"nested\"}}"`, false, ""}, // not top-level
		{`"[{\"error\": \"in a list\"}]"`, false, ""},
		{`"{\"error\": \"not json"`, false, ""},
		{`[{"type": "text", "text": "Error: in a part"}]`, true, "Error: in a part"},
	}
	for _, c := range cases {
		tr, err := decode(`{"messages": [{"role": "tool", "tool_call_id": "x", "content": ` + c.content + `}]}`)
		if err != nil {
			t.Errorf("%s: %v", c.content, err)
			continue
		}
		r := tr.Messages[0].Results[0]
		if r.Success == c.failed || r.Error != c.err {
			t.Errorf("content %s: success=%v error=%q, want success=%v error=%q", c.content, r.Success, r.Error, !c.failed, c.err)
		}
	}
}

func TestDecodeAnthropic(t *testing.T) {
	rec := `{"id": "an-1", "system": "You are helpful.", "messages": [
	{"role": "user", "content": "What's the weather in Oslo?"},
	{"role": "assistant", "content": [
		{"type": "thinking", "thinking": "hmm"},
		{"type": "text", "text": "Let me check."},
		{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Oslo"}}
	], "usage": {"input_tokens": 50, "output_tokens": 20}},
	{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "Error: rain gauge offline"}]},
	{"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_2", "name": "get_weather", "input": {}}, {"type": "tool_use", "id": "toolu_3", "name": "now"}],
	 "usage": {"input_tokens": 80, "output_tokens": 5}},
	{"role": "user", "content": [
		{"type": "tool_result", "tool_use_id": "toolu_2", "is_error": true, "content": [{"type": "text", "text": "a"}, {"type": "image", "source": {}}, {"type": "text", "text": "b"}]},
		{"type": "tool_result", "tool_use_id": "toolu_3"},
		{"type": "text", "text": "anything else?"}
	]},
	{"role": "assistant", "content": "It is raining."}
]}`
	want := &Trace{ID: "an-1", File: "t.jsonl", Line: 7, Shape: ShapeAnthropic, Messages: []Message{
		{Role: "user", Content: "What's the weather in Oslo?"},
		{Role: "assistant", Content: "Let me check.", Calls: []Call{{ID: "toolu_1", HasID: true, Tool: "get_weather", Args: args(`{"city": "Oslo"}`), ArgsValid: true}}},
		// is_error absent: success, whatever the text says
		{Role: "user", Results: []Result{{CallID: "toolu_1", HasID: true, Success: true, Content: "Error: rain gauge offline"}}},
		{Role: "assistant", Calls: []Call{
			{ID: "toolu_2", HasID: true, Tool: "get_weather", Args: args(`{}`), ArgsValid: true},
			{ID: "toolu_3", HasID: true, Tool: "now", ArgsValid: true},
		}},
		{Role: "user", Content: "anything else?", Results: []Result{
			{CallID: "toolu_2", HasID: true, Success: false, Content: "a\nb", Error: "a\nb"},
			{CallID: "toolu_3", HasID: true, Success: true},
		}},
		{Role: "assistant", Content: "It is raining."},
	}, Usage: Usage{Prompt: 130, Completion: 25, Total: 155, Recorded: true}}
	check(t, mustDecode(t, rec), want)
}

func TestUsageLevels(t *testing.T) {
	cases := []struct {
		name, rec string
		want      Usage
		shape     Shape
	}{
		{"none", `{"messages": [{"role": "user", "content": "x"}]}`, Usage{}, ShapeOpenAI},
		{"record openai", `{"messages": [], "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 9}}`, Usage{3, 4, 9, true}, ShapeOpenAI},
		{"record anthropic", `{"messages": [], "usage": {"input_tokens": 3, "output_tokens": 4}}`, Usage{3, 4, 7, true}, ShapeAnthropic},
		{"record wins over messages", `{"messages": [{"role": "assistant", "content": "x", "usage": {"prompt_tokens": 1000, "completion_tokens": 1000}}], "usage": {"prompt_tokens": 3, "completion_tokens": 4}}`, Usage{3, 4, 7, true}, ShapeOpenAI},
		{"messages summed", `{"messages": [{"role": "assistant", "content": "x", "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 4}}, {"role": "user", "content": "y"}, {"role": "assistant", "content": "z", "usage": {"prompt_tokens": 10, "completion_tokens": 20}}]}`, Usage{11, 22, 34, true}, ShapeOpenAI},
		{"empty usage object is recorded zero", `{"messages": [], "token_usage": {}}`, Usage{Recorded: true}, ShapeRS1},
		{"null usage is absent", `{"messages": [], "usage": null}`, Usage{}, ShapeOpenAI},
		{"null counts are absent", `{"messages": [], "usage": {"prompt_tokens": null, "completion_tokens": 2}}`, Usage{0, 2, 2, true}, ShapeOpenAI},
		{"integral floats", `{"messages": [], "usage": {"prompt_tokens": 12.0, "completion_tokens": 1e2, "total_tokens": -0}}`, Usage{12, 100, 0, true}, ShapeOpenAI},
		{"saturates", `{"messages": [], "usage": {"prompt_tokens": 9223372036854775807, "completion_tokens": 1}}`, Usage{9223372036854775807, 1, 9223372036854775807, true}, ShapeOpenAI},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := mustDecode(t, c.rec)
			if tr.Usage != c.want || tr.Shape != c.shape {
				t.Errorf("usage %+v shape %q, want %+v %q", tr.Usage, tr.Shape, c.want, c.shape)
			}
		})
	}
}

func TestTraceIDs(t *testing.T) {
	cases := []struct{ fields, want string }{
		{`"trace_id": "T", "id": "I", "task_id": 1, "trial": 2`, "T"},
		{`"id": "I", "task_id": 1, "trial": 2`, "I"},
		{`"id": 42`, "42"},
		{`"id": 4.50`, "4.50"},
		{`"id": -1e3`, "-1e3"},
		{`"task_id": 5, "trial": 0`, "5#0"},
		{`"task_id": "abc"`, "abc"},
		{`"task_id": "abc", "trial": null`, "abc"},
		{`"task_id": 7, "trial": "b"`, "7#b"},
		{`"trial": 3`, "t.jsonl:7"},
		{`"trace_id": null, "id": "x"`, "x"},
		{`"trace_id": "", "task_id": 9`, "9"},
		{`"trace_id": "caf\u00e9 \"q\""`, `café "q"`},
		{``, "t.jsonl:7"},
	}
	for _, c := range cases {
		sep := ""
		if c.fields != "" {
			sep = ", "
		}
		tr := mustDecode(t, `{`+c.fields+sep+`"messages": []}`)
		if tr.ID != c.want {
			t.Errorf("{%s}: id %q, want %q", c.fields, tr.ID, c.want)
		}
	}
}

func TestListKeys(t *testing.T) {
	for _, key := range []string{"messages", "trajectory", "traj", "history"} {
		tr := mustDecode(t, `{"`+key+`": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]}`)
		if len(tr.Messages) != 2 || tr.Messages[1].Content != "b" {
			t.Errorf("%s: %s", key, dump(tr))
		}
	}
	// Real SWE-agent files hold a "trajectory" of steps (no roles) beside the "history".
	tr := mustDecode(t, `{"trajectory": [{"action": "ls", "observation": "a.py", "state": {"x": 1}}], "history": [{"role": "user", "content": "fix it"}]}`)
	if len(tr.Messages) != 1 || tr.Messages[0].Content != "fix it" {
		t.Errorf("trajectory beside history: %s", dump(tr))
	}
	// An empty list is a valid trace with no messages.
	tr = mustDecode(t, `{"trace_id": "e", "messages": []}`)
	if tr.Messages == nil || len(tr.Messages) != 0 {
		t.Errorf("empty list: %#v", tr.Messages)
	}
}

func TestShapeDetection(t *testing.T) {
	cases := []struct {
		name, rec string
		want      Shape
	}{
		{"plain chat", `{"messages": [{"role": "user", "content": "hi"}]}`, ShapeOpenAI},
		{"plain with token_usage", `{"messages": [{"role": "user", "content": "hi"}], "token_usage": {"total_tokens": 1}}`, ShapeRS1},
		{"rs1 empty lists", `{"messages": [{"role": "user", "content": "hi", "tool_calls": [], "tool_results": []}]}`, ShapeRS1},
		{"rs1 call", `{"messages": [{"role": "assistant", "content": "", "tool_calls": [{"tool_name": "x"}]}]}`, ShapeRS1},
		{"openai call", `{"messages": [{"role": "assistant", "tool_calls": [{"id": "1", "function": {"name": "x", "arguments": "{}"}}]}]}`, ShapeOpenAI},
		{"openai tool message", `{"messages": [{"role": "tool", "tool_call_id": "1", "content": "x"}]}`, ShapeOpenAI},
		{"anthropic tool_use", `{"messages": [{"role": "assistant", "content": [{"type": "tool_use", "id": "1", "name": "x", "input": {}}]}]}`, ShapeAnthropic},
		{"anthropic usage only", `{"messages": [{"role": "assistant", "content": "x", "usage": {"input_tokens": 1, "output_tokens": 1}}]}`, ShapeAnthropic},
		{"text blocks only", `{"messages": [{"role": "user", "content": [{"type": "text", "text": "x"}]}]}`, ShapeOpenAI},
	}
	for _, c := range cases {
		if tr := mustDecode(t, c.rec); tr.Shape != c.want {
			t.Errorf("%s: shape %q, want %q", c.name, tr.Shape, c.want)
		}
	}
}

// at returns "t.jsonl:7:<col>" for the first occurrence of marker in rec (columns in characters).
func at(rec, marker string) string {
	i := strings.Index(rec, marker)
	if i < 0 {
		panic("marker " + marker + " not in " + rec)
	}
	return fmt.Sprintf("t.jsonl:7:%d", 1+utf8.RuneCountInString(rec[:i]))
}

func TestDecodeErrors(t *testing.T) {
	cases := []struct {
		name, rec string
		marker    string // where the error points; "" for column 1
		msg       string
	}{
		{"array record", `[{"role": "user"}]`, "", `expected a trace record (a JSON object), found an array (a bare list of messages is not a record: write {"messages": [...]})`},
		{"string record", `"hello"`, "", `expected a trace record (a JSON object), found a string`},
		{"number record", `  42`, "42", `expected a trace record (a JSON object), found a number`},
		{"invalid JSON", `{"messages": [}`, "}", `invalid JSON: expected a value, found '}'`},
		{"no list", `{"trace_id": "x", "turns": [], "b": 1}`, "", `expected a message list under "messages", "trajectory", "traj", "history" or "conversations"; found keys: b, trace_id, turns`},
		// the OpenTelemetry Python SDK's ReadableSpan.to_json (ConsoleSpanExporter), on one line
		{"console span exporter", `{"name": "chat gpt-4o", "context": {"trace_id": "0x5b8efff798038103d269b633813fc60c", "span_id": "0xa1b2c3d4e5f60718", "trace_state": "[]"}, "kind": "SpanKind.CLIENT", "parent_id": null, "start_time": "2026-06-01T10:00:00.000000Z", "end_time": "2026-06-01T10:00:01.000000Z", "status": {"status_code": "UNSET"}, "attributes": {"gen_ai.operation.name": "chat"}, "events": [], "links": [], "resource": {"attributes": {"service.name": "agent"}, "schema_url": ""}}`, "",
			`OpenTelemetry span JSON as the SDK's ConsoleSpanExporter prints it (span.to_json(): "context", "kind", "resource"), which agentgate does not read: export the spans as OTLP/JSON, with the Collector's file exporter (docs/trace-formats.md, "OpenTelemetry spans (OTLP/JSON)")`},
		{"empty object", `{}`, "", `expected a message list under "messages", "trajectory", "traj", "history" or "conversations"; found keys: none`},
		{"null list", `{"messages": null}`, "null", `messages must be an array of messages, got null`},
		{"list is an object", `{"traj": {"role": "user"}}`, "{\"role", `field "traj": expected an array, found an object`},
		{"message not object", `{"messages": [{"role": "user", "content": "x"}, "hi"]}`, `"hi"`, `field "messages[1]": expected an object, found a string`},
		{"message is a list", `{"history": [[1]]}`, `[1]`, `field "history[0]": expected an object, found an array`},
		{"no role", `{"messages": [{"role": "user"}, {"content": "x"}]}`, `{"content"`, `messages[1] has no "role" (expected "user", "assistant", "system" or "tool")`},
		{"role number", `{"messages": [{"role": 3}]}`, `3}`, `field "messages[0].role": expected a string, found a number`},
		{"content number", `{"messages": [{"role": "user", "content": 5}]}`, `5}`, `field "messages[0].content": expected a string, an array of content blocks or null, found a number`},
		{"content object", `{"messages": [{"role": "user", "content": {"text": "x"}}]}`, `{"text"`, `field "messages[0].content": expected a string, an array of content blocks or null, found an object`},
		{"block not object", `{"messages": [{"role": "user", "content": ["x"]}]}`, `"x"]`, `field "messages[0].content[0]": expected an object, found a string`},
		{"block without type", `{"messages": [{"role": "user", "content": [{"type": "text", "text": "a"}, {"text": "b"}]}]}`, `{"text": "b"`, `messages[0].content[1] has no "type" (expected "text", "tool_use", "tool_result", ...)`},
		{"block text number", `{"messages": [{"role": "user", "content": [{"type": "text", "text": 1}]}]}`, `1}`, `field "messages[0].content[0].text": expected a string, found a number`},
		{"tool_calls object", `{"messages": [{"role": "assistant", "tool_calls": {"id": "1"}}]}`, `{"id"`, `field "messages[0].tool_calls": expected an array, found an object`},
		{"tool call not object", `{"messages": [{"role": "assistant", "tool_calls": ["search"]}]}`, `"search"`, `field "messages[0].tool_calls[0]": expected an object, found a string`},
		{"tool call without name", `{"messages": [{"role": "assistant", "tool_calls": [{"id": "1", "arguments": "{}"}]}]}`, `{"id"`, `messages[0].tool_calls[0] has no tool name: expected "tool_name" (RS-1), "function": {"name": ...} (OpenAI) or "name"`},
		{"openai empty name", `{"messages": [{"role": "assistant", "tool_calls": [{"id": "1", "function": {"arguments": "{}"}}]}]}`, `{"id"`, `messages[0].tool_calls[0] has no tool name: "function.name" is missing or empty`},
		{"openai name number", `{"messages": [{"role": "assistant", "tool_calls": [{"id": "1", "function": {"name": 7}}]}]}`, `7}`, `field "messages[0].tool_calls[0].function.name": expected a string, found a number`},
		{"rs1 empty name", `{"messages": [{"role": "assistant", "tool_calls": [{"tool_name": "", "call_id": "c"}], "tool_results": []}]}`, `{"tool_name"`, `messages[0].tool_calls[0] has no tool name: "tool_name" is missing or empty`},
		{"function not object", `{"messages": [{"role": "assistant", "tool_calls": [{"id": "1", "function": 7}]}]}`, `7}`, `field "messages[0].tool_calls[0].function": expected an object, found a number`},
		{"legacy function_call without name", `{"messages": [{"role": "assistant", "function_call": {"arguments": "{}"}}]}`, `{"arguments"`, `messages[0].function_call has no tool name: expected "name" to be a non-empty string`},
		{"anthropic tool_use without name", `{"messages": [{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "input": {}}]}]}`, `{"type"`, `messages[0].content[0] has no tool name: "name" is missing or empty`},
		{"call id object", `{"messages": [{"role": "assistant", "tool_calls": [{"tool_name": "x", "call_id": {"a": 1}}]}]}`, `{"a"`, `field "messages[0].tool_calls[0].call_id": expected a string or a number, found an object`},
		{"tool_call_id bool", `{"messages": [{"role": "tool", "tool_call_id": true, "content": "x"}]}`, `true`, `field "messages[0].tool_call_id": expected a string or a number, found true`},
		{"tool_call_ids string", `{"messages": [{"role": "tool", "tool_call_ids": "a", "content": "x"}]}`, `"a"`, `field "messages[0].tool_call_ids": expected an array, found a string`},
		{"tool_call_ids element", `{"messages": [{"role": "tool", "tool_call_ids": ["a", ["b"]], "content": "x"}]}`, `["b"]`, `field "messages[0].tool_call_ids[1]": expected a string or a number, found an array`},
		{"success string", `{"messages": [{"role": "tool", "tool_results": [{"call_id": "c", "success": "yes"}]}]}`, `"yes"`, `field "messages[0].tool_results[0].success": expected true or false, found a string`},
		{"rs1 error object", `{"messages": [{"role": "tool", "tool_results": [{"call_id": "c", "error": {"m": 1}}]}]}`, `{"m"`, `field "messages[0].tool_results[0].error": expected a string or null, found an object`},
		{"is_error string", `{"messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "is_error": "no"}]}]}`, `"no"`, `field "messages[0].content[0].is_error": expected true or false, found a string`},
		{"tool_result content number", `{"messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": 3}]}]}`, `3}`, `field "messages[0].content[0].content": expected a string, an array of content blocks or null, found a number`},
		{"trace_id object", `{"trace_id": {}, "messages": []}`, `{}`, `field "trace_id": expected a string or a number, found an object`},
		{"trial list", `{"task_id": 1, "trial": [0], "messages": []}`, `[0]`, `field "trial": expected a string or a number, found an array`},
		{"usage string", `{"messages": [], "usage": "lots"}`, `"lots"`, `field "usage": expected an object, found a string`},
		{"negative tokens", `{"messages": [], "token_usage": {"prompt_tokens": 1, "total_tokens": -5}}`, `-5`, `token_usage.total_tokens must be a non-negative integer, got -5`},
		{"fractional tokens", `{"messages": [], "token_usage": {"prompt_tokens": 1.5}}`, `1.5`, `token_usage.prompt_tokens must be a non-negative integer, got 1.5`},
		{"tiny tokens", `{"messages": [], "token_usage": {"prompt_tokens": 1e-400}}`, `1e-400`, `token_usage.prompt_tokens must be a non-negative integer, got 1e-400`},
		{"string tokens", `{"messages": [], "usage": {"completion_tokens": "12"}}`, `"12"`, `usage.completion_tokens must be a non-negative integer, got a string`},
		{"huge tokens", `{"messages": [], "usage": {"input_tokens": 1e30}}`, `1e30`, `usage.input_tokens must be a non-negative integer, got 1e30 (too large)`},
		{"NaN tokens", `{"messages": [], "usage": {"total_tokens": NaN}}`, `NaN`, `invalid JSON: expected a value, found 'N'`},
		{"message tokens", `{"messages": [{"role": "assistant", "content": "x", "usage": {"output_tokens": -1}}]}`, `-1`, `messages[0].usage.output_tokens must be a non-negative integer, got -1`},
		{"rs1 and openai", `{"messages": [{"role": "user", "content": "x", "tool_results": []}, {"role": "tool", "tool_call_id": "c", "content": "y"}]}`, `{"role": "tool"`,
			`messages[1] has an OpenAI "tool_call_id", but messages[0] has an RS-1 "tool_results" list: cannot tell the record's format (a record must be one of RS-1, OpenAI or Anthropic)`},
		{"openai and anthropic", `{"messages": [{"role": "assistant", "tool_calls": [{"id": "1", "function": {"name": "f"}}]}, {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "1"}]}]}`, `{"type": "tool_result"`,
			`messages[1].content[0] has an Anthropic "tool_result" block, but messages[0].tool_calls[0] has an OpenAI tool call ("function"): cannot tell the record's format (a record must be one of RS-1, OpenAI or Anthropic)`},
		{"rs1 call in anthropic", `{"messages": [{"role": "assistant", "content": [{"type": "tool_use", "id": "1", "name": "f"}], "tool_calls": [{"tool_name": "g"}]}]}`, `{"type": "tool_use"`,
			`messages[0].content[0] has an Anthropic "tool_use" block, but messages[0].tool_calls[0] has an RS-1 tool call ("tool_name", "call_id"): cannot tell the record's format (a record must be one of RS-1, OpenAI or Anthropic)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := decode(c.rec)
			if err == nil {
				t.Fatalf("no error for %s", c.rec)
			}
			var ie *input.Error
			if !errors.As(err, &ie) {
				t.Fatalf("error %T %v is not an *input.Error", err, err)
			}
			pos := "t.jsonl:7:1"
			if c.marker != "" {
				pos = at(c.rec, c.marker)
			}
			if want := pos + ": " + c.msg; err.Error() != want {
				t.Errorf("error\n  %s\nwant\n  %s", err, want)
			}
		})
	}
}

// writeFile writes text to a file in a temporary directory and returns its path.
func writeFile(t testing.TB, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestEachPositions(t *testing.T) {
	// A pretty-printed array of records: errors point at the line inside the record.
	text := `[
  {"trace_id": "ok", "messages": []},
  {
    "trace_id": "bad",
    "messages": [
      {"role": "user", "content": "x"},
      {"role": "assistant", "tool_calls": [
        {"id": "1", "type": "function", "function": {"name": 5}}
      ]}
    ]
  }
]`
	p := writeFile(t, "suite.json", text)
	var ids []string
	err := Each(p, func(tr *Trace) error { ids = append(ids, tr.ID); return nil })
	if want := p + ":8:62: field \"messages[1].tool_calls[0].function.name\": expected a string, found a number"; err == nil || err.Error() != want {
		t.Errorf("error %v\nwant  %s", err, want)
	}
	if len(ids) != 1 || ids[0] != "ok" {
		t.Errorf("records before the error: %v", ids)
	}

	// JSON Lines: ids fall back to file:line, the callback's error stops the walk.
	p = writeFile(t, "suite.jsonl", "{\"messages\": []}\n\n{\"messages\": [{\"role\": \"user\", \"content\": \"x\"}]}\n{\"messages\": []}\n")
	ids = nil
	stop := errors.New("stop")
	err = Each(p, func(tr *Trace) error {
		ids = append(ids, tr.ID)
		if tr.Line == 3 {
			return stop
		}
		return nil
	})
	if err != stop || !reflect.DeepEqual(ids, []string{p + ":1", p + ":3"}) {
		t.Errorf("err %v ids %v", err, ids)
	}
	// A JSON array on one line (Python's json.dump without indent): fallback ids stay distinct.
	p = writeFile(t, "compact.json", `[{"messages": []}, {"messages": []},`+"\n"+`{"messages": []}, {"id": "x", "messages": []}]`)
	ids = nil
	if err := Each(p, func(tr *Trace) error { ids = append(ids, tr.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	if want := []string{p + ":1", p + ":1:20", p + ":2", "x"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("ids %v, want %v", ids, want)
	}
	// The reader's own checks come through unchanged.
	for _, c := range []struct{ name, text, want string }{
		{"empty.jsonl", "\n\n", ": no records: the file is empty"},
		{"latin1.jsonl", "{\"messages\": [{\"role\": \"user\", \"content\": \"\xff\"}]}\n", ":1:44: invalid UTF-8: input files must be UTF-8 text"},
	} {
		p := writeFile(t, c.name, c.text)
		if err := Each(p, func(*Trace) error { return nil }); err == nil || err.Error() != p+c.want {
			t.Errorf("%s: %v, want %s", c.name, err, p+c.want)
		}
	}
	if err := Each(filepath.Join(t.TempDir(), "missing.jsonl"), func(*Trace) error { return nil }); !input.IsInputError(err) {
		t.Errorf("missing file: %v", err)
	}
}

// TestDecodeCopies checks that a trace shares no memory with the record it came from.
func TestDecodeCopies(t *testing.T) {
	data := []byte(`{"trace_id": "keep", "messages": [{"role": "assistant", "content": "text", "tool_calls": [{"tool_name": "t", "arguments": {"a": 1}, "call_id": "c"}], "tool_results": [{"call_id": "c", "success": true, "result": {"r": 2}}]}]}`)
	tr, err := Decode(input.Record{File: "f", Line: 1, Col: 1, Data: data})
	if err != nil {
		t.Fatal(err)
	}
	for i := range data {
		data[i] = 'X'
	}
	m := tr.Messages[0]
	if tr.ID != "keep" || m.Content != "text" || string(m.Calls[0].Args) != `{"a": 1}` || m.Calls[0].ID != "c" || m.Results[0].Content != `{"r": 2}` {
		t.Errorf("trace changed with its input: %s", dump(tr))
	}
	// Appending to one message's calls must not overwrite the next message's.
	tr = mustDecode(t, `{"messages": [{"role": "assistant", "tool_calls": [{"id": "1", "function": {"name": "a"}}]}, {"role": "assistant", "tool_calls": [{"id": "2", "function": {"name": "b"}}]}]}`)
	_ = append(tr.Messages[0].Calls, Call{Tool: "intruder"})
	if tr.Messages[1].Calls[0].Tool != "b" {
		t.Errorf("calls share capacity across messages")
	}
}

func TestParserDetails(t *testing.T) {
	// Keys are matched exactly after unescaping (encoding/json would also match "Messages").
	tr := mustDecode(t, `{"mess\u0061ges": [{"r\u006fle": "user", "content": "caf\u00e9 \ud83d\ude00 \"q\" \\ \/ \t"}]}`)
	if got := tr.Messages[0].Content; got != "café 😀 \"q\" \\ / \t" {
		t.Errorf("content %q", got)
	}
	if _, err := decode(`{"Messages": []}`); err == nil || !strings.Contains(err.Error(), "found keys: Messages") {
		t.Errorf("Messages matched: %v", err)
	}
	// The last of repeated keys wins, as in encoding/json.
	tr = mustDecode(t, `{"trace_id": "a", "trace_id": "b", "messages": [{"role": "user", "content": [{"type": "text", "text": "x"}], "content": "y"}]}`)
	if tr.ID != "b" || tr.Messages[0].Content != "y" {
		t.Errorf("repeated keys: %q %q", tr.ID, tr.Messages[0].Content)
	}
	// A lone surrogate becomes U+FFFD, as in encoding/json.
	tr = mustDecode(t, `{"messages": [{"role": "user", "content": "a\ud800b"}]}`)
	if tr.Messages[0].Content != "a\uFFFDb" {
		t.Errorf("lone surrogate: %q", tr.Messages[0].Content)
	}
	cases := []struct{ name, rec, marker, msg string }{
		// A syntax error anywhere wins over an earlier type error, as in encoding/json.
		{"syntax after type error", `{"messages": 5, "x": }`, "}", `invalid JSON: expected a value, found '}'`},
		{"trailing garbage", `{"messages": []} x`, "x", `invalid JSON: unexpected 'x' after the value`},
		{"bad escape", `{"messages": [], "m": "\q"}`, `\q"`, `invalid JSON: invalid escape \q`},
		{"columns count characters", `{"é": "ü", "messages": [{"role": 1}]}`, "1}", `field "messages[0].role": expected a string, found a number`},
	}
	for _, c := range cases {
		_, err := decode(c.rec)
		want := at(c.rec, c.marker) + ": " + c.msg
		if err == nil || err.Error() != want {
			t.Errorf("%s: error\n  %v\nwant\n  %s", c.name, err, want)
		}
	}
	// encoding/json's nesting limit (jsonscan.MaxDepth): the record is level 1, so the 10,000th '[' of "m" is too deep.
	prefix := `{"messages": [], "m": `
	_, err := decode(prefix + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`)
	if want := fmt.Sprintf("t.jsonl:7:%d: invalid JSON: nesting deeper than 10000 levels", len(prefix)+10000); err == nil || err.Error() != want {
		t.Errorf("too deep: %v", err)
	}
	if _, err := decode(prefix + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}`); err != nil {
		t.Errorf("as deep as allowed: %v", err)
	}
	// Deeper down, the levels the parser walks itself count too: the call is at level 5.
	callPrefix := `{"messages": [{"role": "assistant", "tool_calls": [{"tool_name": "t", "arguments": `
	for _, n := range []int{9995, 9996} {
		rec := callPrefix + strings.Repeat("[", n) + strings.Repeat("]", n) + `}]}]}`
		_, err := decode(rec)
		if json.Valid([]byte(rec)) != (err == nil) {
			t.Errorf("%d levels of arguments: %v, json.Valid %v", n, err, json.Valid([]byte(rec)))
		}
		if want := fmt.Sprintf("t.jsonl:7:%d: invalid JSON: nesting deeper than 10000 levels", len(callPrefix)+9996); n == 9996 && (err == nil || err.Error() != want) {
			t.Errorf("too deep arguments: %v", err)
		}
	}
	// A record that is not UTF-8 is invalid JSON (RFC 8259 §8.1), where the bad byte is.
	rec := "{\"messages\": [{\"role\": \"user\", \"content\": \"caf\xe9\"}]}"
	if _, err := decode(rec); err == nil || err.Error() != at(rec, "\xe9")+": invalid JSON: invalid UTF-8" {
		t.Errorf("latin-1 record: %v", err)
	}
	for _, n := range []int{9999, 10000, 10001} {
		for _, open := range []string{"[", `{"a":`} {
			close := "]"
			if open != "[" {
				close = "}"
			}
			doc := []byte(strings.Repeat(open, n) + "1" + strings.Repeat(close, n))
			if got, want := validJSON(doc), json.Valid(doc); got != want {
				t.Errorf("depth %d of %s: validJSON %v, json.Valid %v", n, open, got, want)
			}
		}
	}
}

// TestTaskTrial checks the task id and trial index read for pass^k (docs/design.md#repeated-trials): tau-bench's
// task_id and trial, and metadata.trial; a trial that is not a non-negative integer is no
// trial index.
func TestTaskTrial(t *testing.T) {
	cases := []struct {
		fields, task string
		trial        int
		has          bool
	}{
		{`"task_id": 5, "trial": 0`, "5", 0, true},
		{`"task_id": "abc", "trial": 3`, "abc", 3, true},
		{`"task_id": "abc", "trial": "12"`, "abc", 12, true},
		{`"task_id": "abc"`, "abc", 0, false},
		{`"task_id": 7, "trial": "b"`, "7", 0, false},
		{`"task_id": 7, "trial": 1.5`, "7", 0, false},
		{`"task_id": 7, "trial": -1`, "7", 0, false},
		{`"task_id": 7, "trial": null`, "7", 0, false},
		{`"id": "x", "metadata": {"trial": 4, "other": [1]}`, "", 4, true},
		{`"task_id": 2, "trial": 1, "metadata": {"trial": 4}`, "2", 1, true},
		{`"id": "x", "metadata": "trial"`, "", 0, false},
		{`"id": "x"`, "", 0, false},
	}
	for _, c := range cases {
		tr := mustDecode(t, `{`+c.fields+`, "messages": []}`)
		if tr.Task != c.task || tr.Trial != c.trial || tr.HasTrial != c.has {
			t.Errorf("{%s}: task %q trial %d (%v), want %q %d (%v)", c.fields, tr.Task, tr.Trial, tr.HasTrial, c.task, c.trial, c.has)
		}
	}
}
