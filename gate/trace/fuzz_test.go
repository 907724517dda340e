package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/internal/jsonscan"
)

// FuzzDecode checks that no record makes Decode panic, that every failure is an *input.Error
// with a position inside the record, and that every trace it returns is well formed.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		// RS-1
		`{"trace_id": "r", "messages": [{"role": "assistant", "content": "x", "tool_calls": [{"tool_name": "t", "arguments": {"a": 1}, "call_id": "c"}], "tool_results": []}, {"role": "tool", "content": "", "tool_calls": [], "tool_results": [{"call_id": "c", "success": false, "result": {"r": 1}, "error": "e"}]}], "token_usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}}`,
		// OpenAI (tau-bench style) and SWE-agent's tool_call_ids
		`{"task_id": 5, "trial": 0, "traj": [{"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{\"a\":"}}]}, {"role": "tool", "tool_call_id": "c", "content": "Error: x"}, {"role": "tool", "tool_call_ids": ["c", null], "content": [{"type": "text", "text": "{\"error\": 1}"}]}], "usage": {"prompt_tokens": 4}}`,
		// Anthropic
		`{"id": 7, "system": "s", "messages": [{"role": "assistant", "content": [{"type": "text", "text": "t"}, {"type": "tool_use", "id": "u", "name": "n", "input": {}}], "usage": {"input_tokens": 1, "output_tokens": 2}}, {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "u", "is_error": true, "content": [{"type": "text", "text": "bad"}]}]}]}`,
		`{"messages": [], "tools": [{"type": "function", "function": {"name": "f", "parameters": {"required": ["a"]}}}, {"name": "g", "input_schema": {}}]}`, `{"messages": [], "tools": 1}`,
		`{"history": []}`, `[]`, `{}`, `{"messages": [1]}`, `{"messages": [{"role": "tool", "tool_results": [], "tool_call_id": 1}]}`,
		`{"messages": [], "usage": {"total_tokens": -1}}`, "{\"messages\": [{\"role\": \"u\", \"content\": \"\xff\\u00e9\"}]}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Decode(input.Record{File: "f.jsonl", Line: 3, Col: 1, Data: data})
		if err != nil {
			var ie *input.Error
			if !errors.As(err, &ie) {
				t.Fatalf("error %T %v is not an *input.Error", err, err)
			}
			if ie.File != "f.jsonl" || ie.Line < 3 || ie.Col < 1 {
				t.Fatalf("error without a position: %v", err)
			}
			// a syntax error is jsonscan's first, with its wording and position
			if verr, ok := jsonscan.Validate(data).(*jsonscan.Error); ok {
				want := input.Record{File: "f.jsonl", Line: 3, Col: 1, Data: data}.ErrorAt(verr.Off, "invalid JSON: %s", verr.Msg)
				if err.Error() != want.Error() {
					t.Fatalf("error %v, want %v", err, want)
				}
			}
			return
		}
		if !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		switch tr.Shape {
		case ShapeRS1, ShapeOpenAI, ShapeAnthropic:
		default:
			t.Fatalf("shape %q", tr.Shape)
		}
		if tr.ID == "" || tr.Messages == nil {
			t.Fatalf("trace %+v", tr)
		}
		u := tr.Usage
		if u.Prompt < 0 || u.Completion < 0 || u.Total < 0 || (!u.Recorded && u != Usage{}) {
			t.Fatalf("usage %+v", u)
		}
		for _, m := range tr.Messages {
			if m.Role == "" {
				t.Fatalf("message without a role")
			}
			for _, c := range m.Calls {
				if c.Tool == "" {
					t.Fatalf("call without a tool")
				}
			}
		}
	})
}

// FuzzParser checks the parser against encoding/json: it accepts exactly what json.Valid
// accepts in UTF-8 text (RFC 8259 §8.1; json.Valid lets invalid UTF-8 pass inside strings),
// decodes strings exactly as json.Unmarshal does, and stops on a record exactly when
// jsonscan.Validate finds a syntax error in it.
func FuzzParser(f *testing.F) {
	for _, s := range []string{`{"a": [1, -2.5e+3, true, false, null, "x\u00e9\ud83d\ude00\n"]}`, `[`, `{"a" 1}`, `01`, `1.`, `-`, `"\ud800"`,
		`"\ud800\u0041"`, `"\x"`, "\"\x01\"", `[1,]`, `{"a":1,}`, `  {} `, `{} {}`, `"\u12"`, `nul`, `[[[[[]]]]]`, "\"\xff\"",
		`{"messages": [{"role": "user", "content": [{"type": "text", "text": "x"}]}], "m": [[1]]}`, `{"messages": [{"role": "u"}] x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		valid := json.Valid(data) && utf8.Valid(data)
		if got := validJSON(data); got != valid {
			t.Fatalf("validJSON(%q) = %v, json.Valid and utf8.Valid say %v", data, got, valid)
		}
		// json.Unmarshal of null into a string succeeds and leaves it empty: only JSON strings
		// are compared.
		var want string
		raw := bytes.TrimSpace(data)
		if valid && len(raw) > 0 && raw[0] == '"' && json.Unmarshal(data, &want) == nil {
			got, ok := stringValue(raw)
			if !ok || got != want {
				t.Fatalf("stringValue(%q) = %q, %v; json.Unmarshal gives %q", raw, got, ok, want)
			}
			// the decoder's arena
			s := scratch{arena: make([]byte, 0, len(raw)/2)}
			if got, ok := s.str(raw); !ok || got != want {
				t.Fatalf("scratch.str(%q) = %q, %v; json.Unmarshal gives %q", raw, got, ok, want)
			}
			if b, ok := s.strBytes(raw); !ok || string(b) != want {
				t.Fatalf("scratch.strBytes(%q) = %q, %v; json.Unmarshal gives %q", raw, b, ok, want)
			}
		}
		// the record parser stops on a syntax error exactly when there is one
		p := parser{data: data}
		var jr jsonRecord
		if p.record(&jr, &scratch{}); p.failed && p.typeAt < 0 && valid {
			t.Fatalf("record(%q) found a syntax error at %d in valid JSON", data, p.i)
		} else if !p.failed && !valid {
			t.Fatalf("record(%q) accepted invalid JSON", data)
		}
	})
}
