package trace

import (
	"bytes"
	"encoding/json"
	"slices"
)

// Tool schemas: where a run records the JSON Schema of its tools' parameters, the tool_misuse
// signal counts a missing, null or empty argument only for a parameter the schema requires
// (docs/reference.md#tool_misuse). The harnesses write them as
//
//   - Inspect AI: each model event's "tools", a list of ToolInfo {"name", "description",
//     "parameters": {"type": "object", "properties", "required": [...], "additionalProperties"}}
//     (inspect_ai/tool/_tool_info.py, _tool_params.py; event/_model.py);
//   - tau2-bench: info.environment_info.tool_defs, a dict of ToolSignature by tool name {"name",
//     "doc", "params": a pydantic JSON Schema whose "required" is absent when nothing is, "returns"}
//     (tau2/environment/toolkit.py; null unless the run was asked to include tool info);
//   - OpenAI-style requests: "tools": [{"type": "function", "function": {"name", "parameters"}}],
//     and Anthropic's {"name", "input_schema"}.
//
// A tool whose definition has no schema of its parameters, or one that cannot be read as one,
// is not described: its calls are judged as where no schema was recorded. A required
// parameter whose schema admits null (nullable) may be sent as null.

// toolDef is one tool's definition, in any of the shapes above.
type toolDef struct {
	Name        string          `json:"name"`
	Function    *toolDef        `json:"function"`
	Parameters  json.RawMessage `json:"parameters"`
	Params      json.RawMessage `json:"params"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// paramSchema is what is read of a parameters schema: the names it requires, and the schema
// of each.
type paramSchema struct {
	Required   []string                   `json:"required"`
	Properties map[string]json.RawMessage `json:"properties"`
}

// nullable reports whether a parameter's schema admits null: "type" "null" or a list holding
// it, "nullable" (OpenAPI), or an anyOf or oneOf alternative that admits it. OpenAI's strict
// mode requires every parameter and writes an optional one so (the Agents SDK's
// function_tool: {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null}): null is
// then the value the schema allows, not a missing argument.
func nullable(raw json.RawMessage, depth int) bool {
	var p struct {
		Type     json.RawMessage   `json:"type"`
		Nullable bool              `json:"nullable"`
		AnyOf    []json.RawMessage `json:"anyOf"`
		OneOf    []json.RawMessage `json:"oneOf"`
	}
	if depth > 8 || json.Unmarshal(raw, &p) != nil {
		return false
	}
	var types []string
	if t, ok := stringValue(p.Type); ok {
		types = []string{t}
	} else {
		_ = json.Unmarshal(p.Type, &types)
	}
	if p.Nullable || slices.Contains(types, "null") {
		return true
	}
	for _, alt := range append(p.AnyOf, p.OneOf...) {
		if nullable(alt, depth+1) {
			return true
		}
	}
	return false
}

// addToolSchemas adds to req the required parameters of each tool described in raw, a list
// of tool definitions or a dict of them by tool name, and returns req (made when nil and a
// tool is described). A tool already in req keeps its first description.
func addToolSchemas(req map[string][]string, raw []byte) map[string][]string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return req
	}
	var defs []json.RawMessage
	switch raw[0] {
	case '[':
		if json.Unmarshal(raw, &defs) != nil {
			return req
		}
	case '{':
		var byName map[string]json.RawMessage
		if json.Unmarshal(raw, &byName) != nil {
			return req
		}
		names := make([]string, 0, len(byName))
		for n := range byName {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			defs = append(defs, byName[n])
		}
	default:
		return req
	}
	for _, d := range defs {
		var t toolDef
		if json.Unmarshal(d, &t) != nil {
			continue
		}
		if t.Function != nil {
			t = *t.Function
		}
		schema := t.Parameters
		for _, s := range []json.RawMessage{t.Params, t.InputSchema} {
			if rawRef(bytes.TrimSpace(schema)).null() {
				schema = s
			}
		}
		var p paramSchema
		if schema = bytes.TrimSpace(schema); t.Name == "" || len(schema) == 0 || schema[0] != '{' || json.Unmarshal(schema, &p) != nil {
			continue
		}
		if _, ok := req[t.Name]; ok {
			continue
		}
		if req == nil {
			req = make(map[string][]string)
		}
		required := []string{}
		for _, name := range p.Required {
			if !nullable(p.Properties[name], 0) {
				required = append(required, name)
			}
		}
		req[t.Name] = required
	}
	return req
}
