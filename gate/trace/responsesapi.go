package trace

import (
	"encoding/json"
	"strings"

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
//   - {"type": "custom_tool_call", "call_id", "name", "input"}: the model's call of a custom
//     tool, whose input is free text (read as the arguments {"input": …}), and
//     {"type": "custom_tool_call_output", "call_id", "output"}: its result;
//   - calls of the tools the API runs itself, each with its result where the item carries
//     one (status "failed", or an error, makes it failed), the tool named by the item's type
//     less "_call" (the type of the tool in the request's tools): {"type": "mcp_call", "id",
//     "name", "arguments", "output", "error", "server_label", "status"} (the tool its name);
//     {"type": "web_search_call", "id", "action", "status"} (the action the arguments; no
//     result text: what it found is in the message after it); {"type": "file_search_call",
//     "id", "queries", "results", "status"}; {"type": "code_interpreter_call", "id", "code",
//     "container_id", "outputs": logs and images, "status"} (the logs the result's text);
//     {"type": "image_generation_call", "id", "result": the image, "status"} (the image left
//     out);
//   - calls of tools the client runs, whose result is an item of its own: {"type":
//     "local_shell_call", "id", "call_id", "action"} and {"type": "local_shell_call_output",
//     "call_id" (the SDK's; the API's model names it "id"), "output"}; {"type":
//     "computer_call", "id", "call_id", "action" or "actions"} and {"type":
//     "computer_call_output", "call_id", "output": a screenshot (left out), "status"};
//   - reasoning and item references: not turns, left out.
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
	Status    json.RawMessage `json:"status"`
	// custom_tool_call's input; web_search_call's, local_shell_call's and computer_call's
	// action (computer_call's actions); file_search_call's queries and results;
	// code_interpreter_call's code, container and outputs
	Input       json.RawMessage `json:"input"`
	Action      json.RawMessage `json:"action"`
	Actions     json.RawMessage `json:"actions"`
	Queries     json.RawMessage `json:"queries"`
	Results     json.RawMessage `json:"results"`
	Code        json.RawMessage `json:"code"`
	ContainerID json.RawMessage `json:"container_id"`
	Outputs     json.RawMessage `json:"outputs"`
}

// hostedTools are the tools the Responses API runs itself, by the type of their call item:
// the tool is named by the type of the tool in the request (the item's type less "_call").
var hostedTools = map[string]string{
	"web_search_call":       "web_search",
	"file_search_call":      "file_search",
	"code_interpreter_call": "code_interpreter",
	"image_generation_call": "image_generation",
}

// clientTools are the tools the client runs whose calls are not function calls, by the type
// of their call item, with the type of the item that holds their result.
var clientTools = map[string]struct{ tool, output string }{
	"custom_tool_call": {"", "custom_tool_call_output"}, // the tool is the item's name
	"local_shell_call": {"local_shell", "local_shell_call_output"},
	"computer_call":    {"computer", "computer_call_output"},
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
		case it.Type == "function_call" || it.Type == "mcp_call" || hostedTools[it.Type] != "" || clientTools[it.Type].output != "":
			call, res, p := responseCall(it)
			if p != nil {
				return nil, at(p)
			}
			if turn < 0 {
				out = append(out, Message{Role: "assistant"})
				turn = len(out) - 1
			}
			out[turn].Calls = append(out[turn].Calls, call)
			if res != nil { // run by the API: its result is in the item
				out = append(out, Message{Role: "tool", Content: res.Content, Results: []Result{*res}})
				turn = -1
			}
		case it.Type == "function_call_output" || it.Type == "custom_tool_call_output" || it.Type == "local_shell_call_output" || it.Type == "computer_call_output":
			id, _, _ := idValue(rawRef(it.CallID))
			if id == "" && it.Type == "local_shell_call_output" {
				id, _, _ = idValue(rawRef(it.ID))
			}
			var r Result
			if it.Type == "computer_call_output" { // a screenshot: no text
				r = Result{CallID: id, HasID: id != "", Success: true}
				if status, _ := stringValue(it.Status); status == "failed" {
					r.Success, r.Error = false, "the computer_call_output's status is failed"
				}
			} else {
				text, _, _, p := chatContent(it.Output)
				if p != nil {
					p.at = append(jsonscan.PathOf("output"), p.at...)
					return nil, at(p)
				}
				r = messageResult(id, text)
			}
			out = append(out, Message{Role: "tool", Content: r.Content, Results: []Result{r}})
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

// responseCall reads a call item: the call, and its result where the API ran the tool and the
// item holds what came of it (nil while the item's status says it is still running).
func responseCall(it responseItem) (Call, *Result, *chatProblem) {
	name, _ := stringValue(it.Name)
	tool, args := hostedTools[it.Type], it.Arguments
	id := it.CallID
	switch it.Type {
	case "function_call", "mcp_call", "custom_tool_call":
		if name == "" {
			return Call{}, nil, &chatProblem{at: jsonscan.PathOf("name"), msg: "a " + it.Type + " without a tool name"}
		}
		tool = name
		if it.Type == "mcp_call" {
			id = it.ID
		}
		if it.Type == "custom_tool_call" { // free text, not JSON
			args = jsonObject("input", it.Input)
		}
	case "web_search_call":
		id, args = it.ID, it.Action
	case "file_search_call":
		id, args = it.ID, jsonObject("queries", it.Queries)
	case "code_interpreter_call":
		id, args = it.ID, jsonObject("code", it.Code, "container_id", it.ContainerID)
	case "image_generation_call":
		id = it.ID
	case "local_shell_call", "computer_call":
		tool, args = clientTools[it.Type].tool, it.Action
		if isNull(args) && !isNull(it.Actions) {
			args = jsonObject("actions", it.Actions)
		}
		if isNull(id) {
			id = it.ID
		}
	}
	call := chatCall(id, tool, args)
	if it.Type == "function_call" || clientTools[it.Type].output != "" {
		return call, nil, nil
	}
	status, _ := stringValue(it.Status)
	switch status {
	case "in_progress", "searching", "interpreting", "generating", "calling":
		return call, nil, nil
	}
	var text string
	switch it.Type {
	case "mcp_call":
		text = rawText(it.Output)
	case "file_search_call":
		text = rawText(it.Results)
	case "code_interpreter_call":
		text = interpreterLogs(it.Outputs)
	}
	r := Result{CallID: call.ID, HasID: call.HasID, Success: true, Content: text}
	if it.Type == "mcp_call" {
		r = messageResult(call.ID, text)
	}
	switch {
	case !isNull(it.Error):
		r.Success, r.Error = false, responseError(it.Error)
	case status == "failed":
		r.Success, r.Error = false, "the "+it.Type+"'s status is failed"
	}
	return call, &r, nil
}

// jsonObject is the JSON object of the key and value pairs kv whose values are not null.
func jsonObject(kv ...any) json.RawMessage {
	var b []byte
	b = append(b, '{')
	for i := 0; i+1 < len(kv); i += 2 {
		v, _ := kv[i+1].(json.RawMessage)
		if isNull(v) {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		k, _ := json.Marshal(kv[i])
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}')
}

// interpreterLogs is the text of a code interpreter call's outputs: its logs, one after
// another (images left out).
func interpreterLogs(raw json.RawMessage) string {
	var outs []struct {
		Type string          `json:"type"`
		Logs json.RawMessage `json:"logs"`
	}
	if jsonscan.KindOfValue(raw) != jsonscan.KindArray || json.Unmarshal(raw, &outs) != nil {
		return rawText(raw)
	}
	var b strings.Builder
	for _, o := range outs {
		if s, ok := stringValue(o.Logs); ok && o.Type == "logs" {
			appendLine(&b, s)
		}
	}
	return b.String()
}

// responseError is the text of an item's error: a string, or an MCP error object's message
// (mcp_protocol_error, http_error) or content (mcp_tool_execution_error).
func responseError(raw json.RawMessage) string {
	var e struct {
		Message json.RawMessage `json:"message"`
		Content json.RawMessage `json:"content"`
	}
	if jsonscan.KindOfValue(raw) == jsonscan.KindObject && json.Unmarshal(raw, &e) == nil {
		if s, ok := stringValue(e.Message); ok && s != "" {
			return s
		}
		if !isNull(e.Content) {
			if text, _, _, p := chatContent(e.Content); p == nil && text != "" {
				return text
			}
		}
	}
	return rawText(raw)
}
