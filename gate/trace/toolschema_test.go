package trace

import (
	"maps"
	"path/filepath"
	"slices"
	"testing"
)

// The required parameters of the tools a run was given, read where the harness records their
// schemas (toolschema.go), from files written as each harness writes them (testdata/formats,
// README): Inspect's model events, tau2's tool_defs, an OpenAI-style record's tools. A run
// whose harness recorded none has none (nil), which keeps the misuse check as it was.
func TestToolSchemas(t *testing.T) {
	dir := filepath.Join("testdata", "formats")
	inspect := map[string][]string{"list_files": {}, "search_calendar_events": {"query"}, "submit": {"answer"}}
	for _, c := range []struct {
		file string
		want []map[string][]string // per trace
	}{
		{"inspect-schemas.json", []map[string][]string{inspect, inspect}},
		{"tau2-schemas.json", []map[string][]string{{"enable_roaming": {"customer_id", "line_id"},
			"get_customer_by_phone": {"phone_number"}, "get_details_by_id": {"id"}, "transfer_to_human_agents": {}}}},
		{"openai-tools.jsonl", []map[string][]string{{"get_weather": {"city"}, "get_time": {}}, {"get_weather": {"city"}, "get_time": {}}}},
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
