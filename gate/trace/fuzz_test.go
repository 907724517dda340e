package trace

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math/bits"
	"testing"
	"unicode/utf8"

	"github.com/agentgate/agentgate/gate/input"
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
// accepts, and decodes strings exactly as json.Unmarshal does.
func FuzzParser(f *testing.F) {
	for _, s := range []string{`{"a": [1, -2.5e+3, true, false, null, "x\u00e9\ud83d\ude00\n"]}`, `[`, `{"a" 1}`, `01`, `1.`, `-`, `"\ud800"`,
		`"\ud800\u0041"`, `"\x"`, "\"\x01\"", `[1,]`, `{"a":1,}`, `  {} `, `{} {}`, `"\u12"`, `nul`, `[[[[[]]]]]`, "\"\xff\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := validJSON(data), json.Valid(data); got != want {
			t.Fatalf("validJSON(%q) = %v, json.Valid says %v", data, got, want)
		}
		// json.Unmarshal of null into a string succeeds and leaves it empty: only JSON strings
		// are compared.
		var want string
		if raw := bytes.TrimSpace(data); len(raw) > 0 && raw[0] == '"' && json.Unmarshal(data, &want) == nil {
			got, ok := stringValue(raw)
			if !ok || got != want {
				t.Fatalf("stringValue(%q) = %q, %v; json.Unmarshal gives %q", raw, got, ok, want)
			}
			if b, ok := bytesValue(raw); !ok || string(b) != want {
				t.Fatalf("bytesValue(%q) = %q, %v; json.Unmarshal gives %q", raw, b, ok, want)
			}
			// the decoder's arena, for records known to be UTF-8 and for others
			s := scratch{valid: utf8.Valid(raw), arena: make([]byte, 0, len(raw)/2)}
			if got, ok := s.str(raw); !ok || got != want {
				t.Fatalf("scratch.str(%q) = %q, %v; json.Unmarshal gives %q", raw, got, ok, want)
			}
			if b, ok := s.strBytes(raw); !ok || string(b) != want {
				t.Fatalf("scratch.strBytes(%q) = %q, %v; json.Unmarshal gives %q", raw, b, ok, want)
			}
		}
		// the scanner's eight-byte steps stop where the byte-by-byte table says
		for i := range data {
			if i+8 > len(data) {
				break
			}
			m := specials(binary.LittleEndian.Uint64(data[i:]))
			first := 8
			for j, c := range data[i : i+8] {
				if !plain[c] {
					first = j
					break
				}
			}
			if got := bits.TrailingZeros64(m) >> 3; m != 0 && got != first || m == 0 && first != 8 {
				t.Fatalf("specials(%q) marks byte %d first, want %d", data[i:i+8], got, first)
			}
		}
	})
}
