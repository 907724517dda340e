package trace

import (
	"maps"
	"path/filepath"
	"slices"
	"testing"
)

// The required parameters of the tools a run was given, read where the harness records their
// schemas (toolschema.go), from files written as each harness writes them (testdata/formats,
// README): Inspect's model events, tau2's tool_defs, an OpenAI-style record's tools, OTLP
// spans' gen_ai.tool.definitions and OpenInference's llm.tools.<i>.tool.json_schema. A run
// whose harness recorded none has none (nil), which keeps the misuse check as it was.
func TestToolSchemas(t *testing.T) {
	dir := filepath.Join("testdata", "formats")
	inspect := map[string][]string{"list_files": {}, "search_calendar_events": {"query"}, "submit": {"answer"}}
	genAITools := map[string][]string{"get_forecast": {"city"}, "list_alerts": {}, "book_hotel": {"city", "nights"}}
	for _, c := range []struct {
		file string
		want []map[string][]string // per trace
	}{
		{"inspect-schemas.json", []map[string][]string{inspect, inspect}},
		{"tau2-schemas.json", []map[string][]string{{"enable_roaming": {"customer_id", "line_id"},
			"get_customer_by_phone": {"phone_number"}, "get_details_by_id": {"id"}, "transfer_to_human_agents": {}}}},
		{"openai-tools.jsonl", []map[string][]string{{"get_weather": {"city"}, "get_time": {}}, {"get_weather": {"city"}, "get_time": {}}}},
		{"otlp-tool-definitions.jsonl", []map[string][]string{genAITools, genAITools, {"list_orders": {}}}},
		{"otlp-genai-current.jsonl", []map[string][]string{nil}}, // no gen_ai.tool.definitions
		// the Agents SDK's strict schema: the optional unit required, and nullable
		{"openai-agents/responses-data.jsonl", []map[string][]string{{"get_weather": {"city"}}}},
		{"tau2-telecom.json", []map[string][]string{nil}},  // tool_defs null, as tau2 writes it by default
		{"inspect-tools.json", []map[string][]string{nil}}, // no events
		{"tau-bench-crashes.json", []map[string][]string{nil}},
	} {
		got := readFile(t, filepath.Join(dir, c.file))
		for i, tr := range got {
			want := c.want[min(i, len(c.want)-1)]
			if !maps.EqualFunc(tr.RequiredParams, want, slices.Equal) || (want == nil) != (tr.RequiredParams == nil) {
				t.Errorf("%s %s: required parameters %v, want %v", c.file, tr.ID, tr.RequiredParams, want)
			}
		}
	}
}

// Definitions that describe no parameters' schema, or not as a JSON Schema object, describe
// no tool; a tool keeps its first description; a list, a dict by name and the shapes of
// Inspect, OpenAI, Anthropic and tau2 are read alike.
func TestAddToolSchemas(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want map[string][]string
	}{
		{``, nil},
		{`null`, nil},
		{`"tools"`, nil},
		{`[1, "a", {"name": "x"}, {"name": "y", "parameters": null}, {"name": "z", "parameters": []}, {"parameters": {"required": ["a"]}}]`, nil},
		{`[{"name": "r", "parameters": {"properties": {"a": {}}, "required": true}}]`, nil}, // JSON Schema draft 3's "required": true
		{`[{"name": "a", "parameters": {"type": "object"}}, {"name": "a", "parameters": {"required": ["p"]}}]`, map[string][]string{"a": {}}},
		{`[{"type": "function", "function": {"name": "f", "parameters": {"required": ["p", "q"]}}}]`, map[string][]string{"f": {"p", "q"}}},
		// strict mode: every parameter required, the optional ones nullable
		{`[{"type": "function", "name": "s", "strict": true, "parameters": {"required": ["a", "b", "c", "d", "e"], "properties": {"a": {"type": "string"},
			"b": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null}, "c": {"type": ["integer", "null"]}, "d": {"type": "string", "nullable": true},
			"e": {"oneOf": [{"anyOf": [{"type": "null"}]}]}}}}]`, map[string][]string{"s": {"a"}}},
		{`[{"name": "an", "input_schema": {"type": "object", "required": ["x"]}}]`, map[string][]string{"an": {"x"}}},
		{`{"b": {"name": "b", "params": {"required": ["k"]}}, "a": {"name": "a", "params": {}}}`, map[string][]string{"a": {}, "b": {"k"}}},
		{`{"b": {"name": "b", "params": {"required": ["k"]}}, "a": {"name": "a", "params": {}}`, nil}, // cut short
	} {
		got := addToolSchemas(nil, []byte(c.raw))
		if !maps.EqualFunc(got, c.want, slices.Equal) || (got == nil) != (c.want == nil) {
			t.Errorf("addToolSchemas(%s) = %v, want %v", c.raw, got, c.want)
		}
	}
}

// The details event carries gen_ai.tool.definitions as a structured list (kvlistValue
// elements), not JSON text; OpenInference's json_schema that is not one JSON object describes
// nothing, and cannot add a tool of its own by closing the list it is put in.
func TestSpanToolSchemas(t *testing.T) {
	structured := []any{map[string]any{"type": "function", "name": "f", "parameters": map[string]any{"type": "object", "required": []any{"a"}}}}
	for _, c := range []struct {
		attrs map[string]any
		want  map[string][]string
	}{
		{map[string]any{"gen_ai.tool.definitions": structured}, map[string][]string{"f": {"a"}}},
		{map[string]any{"gen_ai.tool.definitions": `[{"type":"function","name":"g","parameters":{"required":["b"]}}]`}, map[string][]string{"g": {"b"}}},
		{map[string]any{"gen_ai.tool.definitions": nil}, nil},
		{map[string]any{"llm.tools.1.tool.json_schema": `{"name": "h", "parameters": {}}`,
			"llm.tools.0.tool.json_schema": `{"type": "function", "function": {"name": "h", "parameters": {"required": ["x"]}}}`}, map[string][]string{"h": {"x"}}},
		{map[string]any{"llm.tools.0.tool.json_schema": `{"name": "a", "parameters": {}}, {"name": "evil", "parameters": {"required": ["z"]}}`}, nil},
		{map[string]any{"llm.tools.0.tool.json_schema": `not json`}, nil},
	} {
		got := spanToolSchemas(&span{attrs: c.attrs}, nil)
		if !maps.EqualFunc(got, c.want, slices.Equal) || (got == nil) != (c.want == nil) {
			t.Errorf("spanToolSchemas(%v) = %v, want %v", c.attrs, got, c.want)
		}
	}
}
