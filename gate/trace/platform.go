package trace

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/internal/jsonscan"
)

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

// spending sums the usage of a run's model calls, each recorded on its own (docs/trace-formats.md,
// "Token usage": the calls' prompts and the largest of them).
type spending struct {
	total Usage
	calls CallUsage
}

// add counts a call's usage, where it recorded one.
func (s *spending) add(u Usage) {
	if !u.Recorded {
		return
	}
	s.total.Prompt, s.total.Completion = satAdd(s.total.Prompt, u.Prompt), satAdd(s.total.Completion, u.Completion)
	s.total.Total, s.total.Recorded = satAdd(s.total.Total, u.Total), true
	s.calls.Calls++
	s.calls.MaxPrompt = max(s.calls.MaxPrompt, u.Prompt)
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

// quotedList is names, sorted, each once, quoted and joined for a note or an error (at most
// 200 characters of it, input.Cut).
func quotedList(names []string) string {
	names = append([]string(nil), names...)
	sort.Strings(names)
	var q []string
	for i, n := range names {
		if i == 0 || n != names[i-1] {
			q = append(q, input.Quote(n))
		}
	}
	return input.Cut(strings.Join(q, ", "))
}

// either is the first of two spellings of a member that is given (camelCase and snake_case,
// toolCallId and id).
func either(a, b json.RawMessage) json.RawMessage {
	if len(a) > 0 && string(a) != "null" {
		return a
	}
	return b
}
