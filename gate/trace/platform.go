package trace

import "github.com/agentgate/agentgate/internal/jsonscan"

// What the tracing platforms' readers (langsmith.go, langfuse.go) share: a run's model calls
// and tool runs, in the order they ran, are put together by the conversation assembly
// (conversation.go; docs/trace-formats.md, "How model calls become one run").

// toolRun is a tool's own run (a LangSmith tool run, a Langfuse TOOL observation): the call
// it answered and its result.
type toolRun struct {
	Call
	Result  string
	Success bool
	Error   string
}

// event is the tool run as the conversation assembly takes it (conversation.go).
func (t toolRun) event() ToolEvent {
	return ToolEvent{Call: t.Call, Result: t.Result, Failed: !t.Success, Error: t.Error}
}

// headKeys are the top-level keys of an object in a file's head, as far as the head shows them.
type headKeys map[string]bool

func (k headKeys) has(key string) bool { return k[key] }

// firstElementKeys are the keys of the first element of the array a head starts.
func firstElementKeys(h *head) headKeys {
	keys := headKeys{}
	data := h.data
	i := jsonscan.SkipSpace(data, h.at+1)
	if i >= len(data) || data[i] != '{' {
		return keys
	}
	for i++; ; {
		key, v, err := jsonscan.Key(data, i)
		if err != nil {
			return keys
		}
		keys[jsonscan.Unquote(key, jsonscan.Replace)] = true
		end, err := jsonscan.Skip(data, v)
		if err != nil {
			return keys
		}
		var closed bool
		if i, closed, err = jsonscan.Next(data, end, '}'); err != nil || closed {
			return keys
		}
	}
}
