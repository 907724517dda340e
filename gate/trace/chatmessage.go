package trace

import (
	"encoding/json"
	"strings"

	"github.com/agentgate/agentgate/internal/jsonscan"
)

// The messages the tracing platforms store for a model call (docs/trace-formats.md,
// "LangSmith run exports" and "Langfuse exports"): whatever the application handed its
// tracer, in any of the forms LangChain, the OpenAI and the Anthropic SDKs write.
//
//   - LangChain's serialised message, as langchain_core.load.dumpd writes it:
//     {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "AIMessage"],
//     "kwargs": {"content", "tool_calls": [{"name", "args", "id"}], "tool_call_id", "status", …}};
//   - a message as its own dict (BaseMessage.model_dump): {"type": "ai" | "human" | "system" |
//     "tool", "content", "tool_calls", …};
//   - OpenAI's {"role", "content", "tool_calls": [{"id", "function": {"name", "arguments"}}],
//     "tool_call_id"}; Anthropic's content blocks (text, tool_use, tool_result);
//   - a bare string (a prompt) or LangChain's ("human", "text") pair.

// chatProblem is what is wrong with a message, and where under the value read.
type chatProblem struct {
	at  jsonscan.Path
	msg string
}

// chatMessage is the members of a message in every form above (LangChain's kwargs hold them
// one level down).
type chatMessage struct {
	LC               json.RawMessage `json:"lc"`
	ID               json.RawMessage `json:"id"`
	Kwargs           json.RawMessage `json:"kwargs"`
	Type             json.RawMessage `json:"type"`
	Role             json.RawMessage `json:"role"`
	Content          json.RawMessage `json:"content"`
	ToolCalls        json.RawMessage `json:"tool_calls"`
	AdditionalKwargs struct {
		ToolCalls json.RawMessage `json:"tool_calls"`
	} `json:"additional_kwargs"`
	ToolCallID json.RawMessage `json:"tool_call_id"`
	Status     json.RawMessage `json:"status"`
	// Gemini's Content: {"role": "user" | "model", "parts": [{"text"}, {"function_call"},
	// {"function_response"}]}
	Parts json.RawMessage `json:"parts"`
}

// chatRoles maps the role or type names of every form to agentgate's roles.
var chatRoles = map[string]string{
	"user": "user", "human": "user", "humanmessage": "user", "humanmessagechunk": "user",
	"assistant": "assistant", "ai": "assistant", "aimessage": "assistant", "aimessagechunk": "assistant", "model": "assistant",
	"system": "system", "developer": "system", "systemmessage": "system", "systemmessagechunk": "system",
	"tool": "tool", "toolmessage": "tool", "toolmessagechunk": "tool", "function": "tool", "functionmessage": "tool",
}

// chatMessages reads a list of messages (raw is a JSON array, checked by the caller).
func chatMessages(raw []byte) ([]Message, *chatProblem) {
	var out []Message
	i := 0
	_, err := jsonscan.EachElement(raw, jsonscan.SkipSpace(raw, 0), func(start, end int) error {
		m, p := chatMessageOf(raw[start:end])
		if p != nil {
			p.at = append(jsonscan.Path{{Index: i, IsIndex: true}}, p.at...)
			return p
		}
		out = append(out, m)
		i++
		return nil
	})
	if p, ok := err.(*chatProblem); ok {
		return nil, p
	}
	return out, nil
}

func (p *chatProblem) Error() string { return p.msg }

// chatMessageOf reads one message in any of the forms.
func chatMessageOf(raw []byte) (Message, *chatProblem) { return chatMessageAs(raw, "") }

// chatMessageAs is chatMessageOf with the role of a message that names none (a model's output
// written as {"content": [...]}), "" when such a message is a problem.
func chatMessageAs(raw []byte, defaultRole string) (Message, *chatProblem) {
	switch k := jsonscan.KindOfValue(raw); k {
	case jsonscan.KindString:
		s, _ := stringValue(raw)
		return Message{Role: "user", Content: s}, nil
	case jsonscan.KindArray:
		return chatPair(raw)
	case jsonscan.KindObject:
	default:
		return Message{}, &chatProblem{msg: jsonscan.Expected("a message", k)}
	}
	var m chatMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return Message{}, &chatProblem{msg: `expected a message {"role" or "type", "content", …}`}
	}
	role, under, p := chatUnwrap(&m)
	if p != nil {
		return Message{}, p
	}
	if role == "" {
		if r, ok := stringValue(m.Role); ok {
			role = r
		} else if r, ok := stringValue(m.Type); ok {
			role = r
		}
	}
	if role == "" && (len(m.Content) > 0 || len(m.Parts) > 0) {
		role = defaultRole
	}
	if role == "" {
		return Message{}, &chatProblem{msg: `a message without a role: neither "role" nor "type" (nor LangChain's "id") names it`}
	}
	at := func(p *chatProblem) *chatProblem {
		p.at = append(append(jsonscan.Path(nil), under...), p.at...)
		return p
	}
	out := Message{Role: chatRole(role)}
	text, blockCalls, results, p := chatContent(m.Content)
	if p != nil {
		p.at = append(jsonscan.PathOf("content"), p.at...)
		return Message{}, at(p)
	}
	out.Content = text
	if len(m.Parts) > 0 {
		ptext, pcalls, presults := chatParts(m.Parts)
		if out.Content == "" {
			out.Content = ptext
		}
		blockCalls, results = append(blockCalls, pcalls...), append(results, presults...)
	}
	calls, p := chatCalls(m.ToolCalls)
	if p != nil {
		p.at = append(jsonscan.PathOf("tool_calls"), p.at...)
		return Message{}, at(p)
	}
	if len(calls) == 0 && len(m.AdditionalKwargs.ToolCalls) > 0 {
		if calls, p = chatCalls(m.AdditionalKwargs.ToolCalls); p != nil {
			p.at = append(jsonscan.PathOf("additional_kwargs", "tool_calls"), p.at...)
			return Message{}, at(p)
		}
	}
	if len(calls) == 0 {
		calls = blockCalls // Anthropic's tool_use blocks, where no tool_calls repeat them
	}
	out.Calls = calls
	if out.Role == "tool" && (len(m.ToolCallID) > 0 || len(results) == 0) { // else its parts or blocks are its results
		results = append([]Result{chatToolResult(&m, text)}, results...)
	}
	out.Results = results
	return out, nil
}

// chatPair reads LangChain's (role, content) pair, raw being an array.
func chatPair(raw []byte) (Message, *chatProblem) {
	var pair []json.RawMessage
	if json.Unmarshal(raw, &pair) == nil && len(pair) == 2 {
		if role, ok := stringValue(pair[0]); ok {
			text, calls, results, p := chatContent(pair[1])
			if p != nil {
				p.at = append(jsonscan.Path{{Index: 1, IsIndex: true}}, p.at...)
				return Message{}, p
			}
			return Message{Role: chatRole(role), Content: text, Calls: calls, Results: results}, nil
		}
	}
	return Message{}, &chatProblem{msg: jsonscan.Expected("a message", jsonscan.KindArray)}
}

// chatUnwrap replaces LangChain's serialised message m ({"lc", "id", "kwargs"}) by its kwargs,
// the message itself, and returns the role its class names and the path of the kwargs; for any
// other message it returns "" and changes nothing.
func chatUnwrap(m *chatMessage) (role string, under jsonscan.Path, p *chatProblem) {
	if len(m.LC) == 0 || len(m.Kwargs) == 0 {
		return "", nil, nil
	}
	var id []string
	_ = json.Unmarshal(m.ID, &id)
	if len(id) > 0 {
		role = id[len(id)-1]
	}
	var kw chatMessage
	if jsonscan.KindOfValue(m.Kwargs) != jsonscan.KindObject || json.Unmarshal(m.Kwargs, &kw) != nil {
		return "", nil, &chatProblem{at: jsonscan.PathOf("kwargs"), msg: jsonscan.Expected("an object", jsonscan.KindOfValue(m.Kwargs))}
	}
	if r, ok := stringValue(kw.Role); ok && strings.HasPrefix(strings.ToLower(role), "chatmessage") {
		role = r
	}
	*m = kw
	return role, jsonscan.PathOf("kwargs"), nil
}

// chatToolResult is the result a tool message m with text text carries: the call it answers,
// and whether it failed (LangChain's ToolMessage status).
func chatToolResult(m *chatMessage, text string) Result {
	id, _, _ := idValue(rawRef(m.ToolCallID))
	r := messageResult(id, text)
	switch status, _ := stringValue(m.Status); status {
	case "error": // LangChain's ToolMessage status: the tool failed
		r.Success, r.Error = false, text
		if r.Error == "" {
			r.Error = "error"
		}
	case "success":
		r.Success, r.Error = true, ""
	}
	return r
}

// chatRole is agentgate's role for a role or type name of any form ("human" is "user").
func chatRole(s string) string {
	if r, ok := chatRoles[strings.ToLower(s)]; ok {
		return r
	}
	return s
}

// chatContent reads a message's content: a string, null, or a list of blocks (strings, text
// blocks, Anthropic's tool_use and tool_result blocks; others, images and the like, left out).
func chatContent(raw []byte) (text string, calls []Call, results []Result, p *chatProblem) {
	switch k := jsonscan.KindOfValue(raw); k {
	case jsonscan.KindInvalid, jsonscan.KindNull:
		return "", nil, nil, nil
	case jsonscan.KindString:
		s, _ := stringValue(raw)
		return s, nil, nil, nil
	case jsonscan.KindArray:
	default: // an object or a number a tracer recorded as the content: its JSON text
		return rawText(raw), nil, nil, nil
	}
	var blocks []json.RawMessage
	_ = json.Unmarshal(raw, &blocks)
	var b strings.Builder
	for n, blk := range blocks {
		if s, ok := stringValue(blk); ok {
			appendLine(&b, s)
			continue
		}
		var cb struct {
			Type      string          `json:"type"`
			Text      json.RawMessage `json:"text"`
			ID        json.RawMessage `json:"id"`
			Name      string          `json:"name"`
			Input     json.RawMessage `json:"input"`
			ToolUseID json.RawMessage `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
			IsError   bool            `json:"is_error"`
		}
		if jsonscan.KindOfValue(blk) != jsonscan.KindObject || json.Unmarshal(blk, &cb) != nil {
			return "", nil, nil, &chatProblem{at: jsonscan.PathOf(n), msg: jsonscan.Expected("a content block", jsonscan.KindOfValue(blk))}
		}
		switch cb.Type {
		case "text", "input_text", "output_text":
			s, _ := stringValue(cb.Text)
			appendLine(&b, s)
		case "tool_use":
			if cb.Name == "" {
				return "", nil, nil, &chatProblem{at: jsonscan.PathOf(n, "name"), msg: "a tool_use block without a tool name"}
			}
			calls = append(calls, chatCall(cb.ID, cb.Name, cb.Input))
		case "tool_result":
			id, _, _ := idValue(rawRef(cb.ToolUseID))
			inner, _, _, p := chatContent(cb.Content)
			if p != nil {
				p.at = append(jsonscan.PathOf(n, "content"), p.at...)
				return "", nil, nil, p
			}
			r := Result{CallID: id, HasID: id != "", Success: !cb.IsError, Content: inner}
			if cb.IsError {
				r.Error = inner
			}
			results = append(results, r)
		}
	}
	return b.String(), calls, results, nil
}

// chatCalls reads a message's tool calls: LangChain's {"name", "args", "id"} or OpenAI's
// {"id", "function": {"name", "arguments"}}.
func chatCalls(raw []byte) ([]Call, *chatProblem) {
	switch k := jsonscan.KindOfValue(raw); k {
	case jsonscan.KindInvalid, jsonscan.KindNull:
		return nil, nil
	case jsonscan.KindArray:
	default:
		return nil, &chatProblem{msg: jsonscan.Expected("a list of tool calls", k)}
	}
	var list []json.RawMessage
	_ = json.Unmarshal(raw, &list)
	var calls []Call
	for j, c := range list {
		var tc struct {
			ID       json.RawMessage `json:"id"`
			Name     json.RawMessage `json:"name"`
			Args     json.RawMessage `json:"args"`
			Function json.RawMessage `json:"function"`
			// the Vercel AI SDK's {"toolCallId", "toolName", "input"}
			ToolCallID json.RawMessage `json:"toolCallId"`
			ToolName   json.RawMessage `json:"toolName"`
			Input      json.RawMessage `json:"input"`
		}
		if jsonscan.KindOfValue(c) != jsonscan.KindObject || json.Unmarshal(c, &tc) != nil {
			return nil, &chatProblem{at: jsonscan.PathOf(j), msg: jsonscan.Expected("a tool call (an object)", jsonscan.KindOfValue(c))}
		}
		id, _, _ := idValue(rawRef(either(tc.ID, tc.ToolCallID)))
		call := Call{ID: id, HasID: id != ""}
		name, _ := stringValue(either(tc.Name, tc.ToolName))
		args := either(tc.Args, tc.Input)
		if jsonscan.KindOfValue(tc.Function) == jsonscan.KindObject {
			var fn struct {
				Name      json.RawMessage `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			}
			_ = json.Unmarshal(tc.Function, &fn)
			name, _ = stringValue(fn.Name)
			args = fn.Arguments
		}
		if name == "" {
			return nil, &chatProblem{at: jsonscan.PathOf(j), msg: "a tool call without a tool name (\"name\", or \"function.name\")"}
		}
		call.Tool = name
		call.Args, call.ArgsValid = rawArgs(args)
		if call.Args == nil {
			call.Args = []byte("{}")
		}
		calls = append(calls, call)
	}
	return calls, nil
}

// pathString is p as errors show it, "" for the empty path.
func pathString(p jsonscan.Path) string {
	if len(p) == 0 {
		return ""
	}
	return p.String()
}

// chatParts reads a message's parts: Gemini's (text, function calls as function_call, or
// functionCall as the REST API writes it, and function responses) and the OpenTelemetry GenAI
// conventions' ({"type": "text", "content"}, {"type": "tool_call", "id", "name", "arguments"},
// {"type": "tool_call_response", "id", "response"}).
func chatParts(raw []byte) (text string, calls []Call, results []Result) {
	var parts []struct {
		Text     json.RawMessage `json:"text"`
		Call     json.RawMessage `json:"function_call"`
		CallC    json.RawMessage `json:"functionCall"`
		Response json.RawMessage `json:"function_response"`
		RespC    json.RawMessage `json:"functionResponse"`
		// the GenAI conventions'
		Type      string          `json:"type"`
		Content   json.RawMessage `json:"content"`
		ID        json.RawMessage `json:"id"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		GenResp   json.RawMessage `json:"response"`
		Result    json.RawMessage `json:"result"`
	}
	if jsonscan.KindOfValue(raw) != jsonscan.KindArray || json.Unmarshal(raw, &parts) != nil {
		return "", nil, nil
	}
	var b strings.Builder
	for _, p := range parts {
		if s, ok := stringValue(p.Text); ok {
			appendLine(&b, s)
		}
		switch p.Type {
		case "text":
			if len(p.Content) > 0 {
				appendLine(&b, rawText(p.Content))
			}
		case "tool_call":
			if p.Name != "" {
				calls = append(calls, chatCall(p.ID, p.Name, p.Arguments))
			}
		case "tool_call_response":
			id, _, _ := idValue(rawRef(p.ID))
			results = append(results, messageResult(id, rawText(either(p.GenResp, p.Result))))
		}
		var fc struct {
			ID       json.RawMessage `json:"id"`
			Name     string          `json:"name"`
			Args     json.RawMessage `json:"args"`
			Response json.RawMessage `json:"response"`
		}
		if c := either(p.Call, p.CallC); jsonscan.KindOfValue(c) == jsonscan.KindObject && json.Unmarshal(c, &fc) == nil && fc.Name != "" {
			calls = append(calls, chatCall(fc.ID, fc.Name, fc.Args))
		}
		if r := either(p.Response, p.RespC); jsonscan.KindOfValue(r) == jsonscan.KindObject && json.Unmarshal(r, &fc) == nil {
			id, _, _ := idValue(rawRef(fc.ID))
			results = append(results, messageResult(id, rawText(fc.Response)))
		}
	}
	return b.String(), calls, results
}

// chatCall is a tool call of a chat message's content (an Anthropic tool_use block, a GenAI
// tool_call part, a Gemini functionCall): its id as a string or number, its tool, and its
// arguments, absent or null ones read as an empty object.
func chatCall(id json.RawMessage, tool string, args json.RawMessage) Call {
	callID, _, _ := idValue(rawRef(id))
	a, valid := rawArgs(args)
	if a == nil {
		a = []byte("{}")
	}
	return Call{ID: callID, HasID: callID != "", Tool: tool, Args: a, ArgsValid: valid}
}
