package trace

import (
	"sort"
	"strings"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/internal/jsonscan"
)

// What the tracing platforms' readers (langsmith.go, langfuse.go) share: a run's model calls
// and tool runs, in the order they ran, put together into one conversation as the OTLP
// reader puts spans together (docs/trace-formats.md, "OpenTelemetry spans": a call's input
// messages the run has not seen yet, then its output; a tool run's result added once).

// toolRun is a tool's own run (a LangSmith tool run, a Langfuse TOOL observation): the call
// it answered and its result.
type toolRun struct {
	Call
	Result  string
	Success bool
	Error   string
}

// conversation assembles a run's messages from its model calls and tool runs, and sums the
// usage of the calls.
type conversation struct {
	b     *otlpBuilder
	spent Usage
	calls CallUsage
}

func newConversation() *conversation {
	return &conversation{b: &otlpBuilder{results: map[string][2]int{}, callIDs: map[string]bool{}, open: map[string][][2]int{}, answered: map[[2]int]bool{}}}
}

// model adds a model call: its input messages the run does not hold yet, then its output;
// u is the call's usage, where it recorded one.
func (c *conversation) model(in, out []Message, u Usage) {
	c.b.input(in)
	c.b.addAll(out)
	if u.Recorded {
		c.spent.Prompt, c.spent.Completion = satAdd(c.spent.Prompt, u.Prompt), satAdd(c.spent.Completion, u.Completion)
		c.spent.Total, c.spent.Recorded = satAdd(c.spent.Total, u.Total), true
		c.calls.Calls++
		c.calls.MaxPrompt = max(c.calls.MaxPrompt, u.Prompt)
	}
}

// usage is the sum of the calls' usage, and the calls it sums (docs/trace-formats.md, "Token
// usage"); not Recorded when no call recorded any.
func (c *conversation) usage() (Usage, CallUsage) { return c.spent, c.calls }

// tool adds a tool run: its result to the call it answers, or the call and its result.
func (c *conversation) tool(t toolRun) {
	s := &span{failed: !t.Success, errText: t.Error}
	c.b.tool(spanCall{Call: t.Call, resultText: t.Result}, s)
}

func (c *conversation) messages() []Message { return c.b.msgs }

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
