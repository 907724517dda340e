package trace

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/agentgate/agentgate/internal/jsonscan"
)

// SWE-agent runs without function calling carry the agent's actions as text: steps of a
// "trajectory" ({"action", "observation", "thought", "response"}, no role), or "history"
// messages whose "action" field (or, for message_type "action", the last fenced block of the
// content) is the command, answered by the next user or tool message. The readers turn each
// action into a call (the tool is the command's first word, the arguments {"command": the
// action}) with a result, so that the signals see the run's calls and failures.

// textActionID is the id given to the call of the action at message i.
func textActionID(i int) string { return "action-" + strconv.Itoa(i) }

// isStep reports whether a list element is a trajectory step: no role, an action.
func isStep(m *jsonMessage) bool { return m.Role == "" && !m.r().Action.null() }

func allSteps(l []jsonMessage) bool {
	for i := range l {
		if !isStep(&l[i]) {
			return false
		}
	}
	return len(l) > 0
}

// textCall builds the call of an action.
func (d *decoder) textCall(action string, i int) Call {
	action = strings.TrimSpace(action)
	tool, _, _ := strings.Cut(action, " ")
	tool, _, _ = strings.Cut(tool, "\n")
	args, _ := json.Marshal(map[string]string{"command": action})
	return Call{ID: textActionID(i), HasID: true, Tool: tool, Args: args, ArgsValid: true}
}

// textResult builds the result of an action from its observation text.
func textResult(id, observation string) Result {
	r := Result{CallID: id, HasID: true, Success: true, Content: observation}
	if textFailure(observation) {
		r.Success, r.Error = false, strings.TrimSpace(observation)
	}
	return r
}

// textFailure reports whether an observation says the action failed: it begins with "error"
// in any case, or it holds one of the shell's or SWE-agent's failure messages. A traceback is
// not one: running a script to reproduce a bug is meant to print it.
func textFailure(obs string) bool {
	s := strings.ToLower(strings.TrimSpace(obs))
	if strings.HasPrefix(s, "error") {
		return true
	}
	for _, f := range [...]string{"wrong flag", "command not found", "no such file or directory",
		"introduced new syntax error", "usage: "} {
		if strings.Contains(s, f) {
			return true
		}
	}
	return false
}

// step turns trajectory step i into an assistant message holding the action's call and its
// observation's result.
func (d *decoder) step(i int, b *builder, out *Message) error {
	m := &d.msgs[i]
	action, ok := d.scratch.str(m.r().Action)
	if !ok {
		return d.kindErr(jsonscan.PathOf(d.key, i, "action"), "a string", m.r().Action)
	}
	var obs string
	if !m.r().Observation.null() {
		if obs, ok = d.scratch.str(m.r().Observation); !ok {
			return d.kindErr(jsonscan.PathOf(d.key, i, "observation"), "a string or null", m.r().Observation)
		}
	}
	for _, raw := range [...]rawRef{m.r().Thought, m.r().Response} {
		if s, ok := d.scratch.str(raw); ok && s != "" {
			out.Content = s
			break
		}
	}
	out.Role = "assistant"
	nc, nr := len(b.calls), len(b.results)
	if strings.TrimSpace(action) != "" {
		c := d.textCall(action, i)
		b.calls = append(b.calls, c)
		b.results = append(b.results, textResult(c.ID, obs))
		out.Calls = b.calls[nc:len(b.calls):len(b.calls)]
		out.Results = b.results[nr:len(b.results):len(b.results)]
	}
	d.pendingAction = ""
	return nil
}

// textAction adds the call of a history message's text action, or the result of the action
// before it, to message i (out is built but for these).
func (d *decoder) textAction(i int, b *builder, out *Message) {
	m := &d.msgs[i]
	if len(out.Calls) > 0 || len(out.Results) > 0 {
		d.pendingAction = ""
		return
	}
	if id := d.pendingAction; id != "" && (m.Role == "user" || m.Role == "tool") {
		d.pendingAction = ""
		nr := len(b.results)
		b.results = append(b.results, textResult(id, out.Content))
		out.Results = b.results[nr:len(b.results):len(b.results)]
		return
	}
	if m.Role != "assistant" {
		return
	}
	action, _ := d.scratch.str(m.r().Action)
	if strings.TrimSpace(action) == "" {
		if mt, _ := d.scratch.str(m.r().MessageType); mt == "action" {
			action = lastFence(out.Content)
		}
	}
	if strings.TrimSpace(action) == "" {
		return
	}
	c := d.textCall(action, i)
	nc := len(b.calls)
	b.calls = append(b.calls, c)
	out.Calls = b.calls[nc:len(b.calls):len(b.calls)]
	d.pendingAction = c.ID
}

// lastFence returns the text of the last fenced block (```…```) in s, or "".
func lastFence(s string) string {
	end := strings.LastIndex(s, "```")
	if end < 0 {
		return ""
	}
	start := strings.LastIndex(s[:end], "```")
	if start < 0 {
		return ""
	}
	body := s[start+3 : end]
	if nl := strings.IndexByte(body, '\n'); nl >= 0 && !strings.ContainsAny(body[:nl], " \t") {
		body = body[nl+1:] // a language tag (```bash) or nothing on the opening line
	}
	return strings.TrimSpace(body)
}
