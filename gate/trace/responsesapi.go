package trace

import (
	"encoding/json"

	"github.com/agentgate/agentgate/internal/jsonscan"
)

// OpenAI Responses API items (docs/trace-formats.md, "OpenAI Agents SDK traces"): the input
// a model call was sent and the output it returned, as the openai package's models dump them
// (openai/types/responses: ResponseInputItemParam, ResponseOutputItem):
//
//   - a message: {"role": "user" | "assistant" | "system" | "developer", "content": a string or
//     parts ({"type": "input_text" | "output_text", "text"}, {"type": "refusal", "refusal"},
//     images and files left out), "type": "message", "id", "status"};
//   - {"type": "function_call", "call_id", "name", "arguments", "id", "status"}: the model's
//     call of a function tool;
//   - {"type": "function_call_output", "call_id", "output": a string or parts}: its result;
//   - {"type": "mcp_call", "id", "name", "arguments", "output", "error", "server_label"}: a call
//     of an MCP server's tool the API ran itself, with its result;
//   - reasoning, hosted tools' calls (web_search_call, file_search_call, computer_call, …) and
//     item references: not turns, left out.
//
// An assistant message and the function calls that follow it are one assistant turn (the
// Chat Completions API's message with its tool_calls), so that a call's output and the same
// items re-sent in the next call's input read as the same messages; each function_call_output
// is a tool message of its own.

// responseItem is the members of an item of any type.
type responseItem struct {
	Type      string          `json:"type"`
	Role      json.RawMessage `json:"role"`
	Content   json.RawMessage `json:"content"`
	ID        json.RawMessage `json:"id"`
	CallID    json.RawMessage `json:"call_id"`
	Name      json.RawMessage `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Output    json.RawMessage `json:"output"`
	Error     json.RawMessage `json:"error"`
}

// responseItems reads a Responses API input (a string, the user's message, or a list of
// items) or a response's output (a list of items). raw is a JSON value.
func responseItems(raw []byte) ([]Message, *chatProblem) {
	switch k := jsonscan.KindOfValue(raw); k {
	case jsonscan.KindInvalid, jsonscan.KindNull:
		return []Message{}, nil
	case jsonscan.KindString:
		s, _ := stringValue(raw)
		return []Message{{Role: "user", Content: s}}, nil
	case jsonscan.KindArray:
	default:
		return nil, &chatProblem{msg: jsonscan.Expected("a string or a list of Responses API items", k)}
	}
	var items []json.RawMessage
	_ = json.Unmarshal(raw, &items)
	out := []Message{}
	// turn is where the assistant turn the next function call joins is in out, -1 when the
	// last item was not of one
	turn := -1
	for i, item := range items {
		at := func(p *chatProblem) *chatProblem {
			p.at = append(jsonscan.Path{{Index: i, IsIndex: true}}, p.at...)
			return p
		}
		var it responseItem
		if jsonscan.KindOfValue(item) != jsonscan.KindObject || json.Unmarshal(item, &it) != nil {
			return nil, at(&chatProblem{msg: jsonscan.Expected("a Responses API item (an object)", jsonscan.KindOfValue(item))})
		}
		switch {
		case it.Type == "message" || it.Type == "" && !isNull(it.Role):
			m, p := chatMessageOf(item)
			if p != nil {
				return nil, at(p)
			}
			if refusal := responseRefusal(it.Content); refusal != "" && m.Content == "" {
				m.Content = refusal
			}
			out = append(out, m)
			turn = -1
			if m.Role == "assistant" {
				turn = len(out) - 1
			}
		case it.Type == "function_call" || it.Type == "mcp_call":
			name, _ := stringValue(it.Name)
			if name == "" {
				return nil, at(&chatProblem{at: jsonscan.PathOf("name"), msg: "a " + it.Type + " without a tool name"})
			}
			id := it.CallID
			if it.Type == "mcp_call" {
				id = it.ID
			}
			call := chatCall(id, name, it.Arguments)
			if turn < 0 {
				out = append(out, Message{Role: "assistant"})
				turn = len(out) - 1
			}
			out[turn].Calls = append(out[turn].Calls, call)
			if it.Type == "mcp_call" { // run by the API: its result is in the item
				r := messageResult(call.ID, rawText(it.Output))
				if !isNull(it.Error) {
					r.Success, r.Error = false, rawText(it.Error)
				}
				out = append(out, Message{Role: "tool", Content: r.Content, Results: []Result{r}})
				turn = -1
			}
		case it.Type == "function_call_output":
			id, _, _ := idValue(rawRef(it.CallID))
			text, _, _, p := chatContent(it.Output)
			if p != nil {
				p.at = append(jsonscan.PathOf("output"), p.at...)
				return nil, at(p)
			}
			r := messageResult(id, text)
			out = append(out, Message{Role: "tool", Content: text, Results: []Result{r}})
			turn = -1
		case it.Type == "":
			return nil, at(&chatProblem{msg: `a Responses API item without "type" or "role"`})
		}
	}
	return out, nil
}

// responseRefusal is the text of a message's refusal parts ({"type": "refusal", "refusal"}).
func responseRefusal(content json.RawMessage) string {
	var parts []struct {
		Type    string          `json:"type"`
		Refusal json.RawMessage `json:"refusal"`
	}
	if jsonscan.KindOfValue(content) != jsonscan.KindArray || json.Unmarshal(content, &parts) != nil {
		return ""
	}
	text := ""
	for _, p := range parts {
		if s, ok := stringValue(p.Refusal); ok && p.Type == "refusal" {
			if text != "" {
				text += "\n"
			}
			text += s
		}
	}
	return text
}
