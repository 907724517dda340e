package trace

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
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
//
// mini-swe-agent trajectories ({"info", "messages", "trajectory_format": "mini-swe-agent-1…",
// "instance_id"}, saved as <instance_id>.traj.json) hold the agent's command in its assistant
// turn: exactly one ```bash block (```mswea_bash_command since 2.0), as the harness's
// action_regex finds it (a turn with none or several is a format error it did not run). The
// next message answers it with "<returncode>N</returncode>" and the output: the action failed
// when N ≠ 0. (A tool message of its tool-call mode is an OpenAI result: the reader keeps its
// format's reading, and the default profile reads the status in its text.)

// textActionID is the id given to the call of the action at message i.
func textActionID(i int) string { return "action-" + strconv.Itoa(i) }

// isStep reports whether a list element is a trajectory step: no role, an action.
func (d *decoder) isStep(m *jsonMessage) bool {
	return m.role == noRole && !d.raw(d.rare(m).Action).null()
}

func (d *decoder) allSteps(l []jsonMessage) bool {
	for i := range l {
		if !d.isStep(&l[i]) {
			return false
		}
	}
	return len(l) > 0
}

// textCall builds the call of an action.
func textCall(action string, i int) Call {
	action = strings.TrimSpace(action)
	tool, _, _ := strings.Cut(action, " ")
	tool, _, _ = strings.Cut(tool, "\n")
	q, _ := json.Marshal(action) // the string as encoding/json writes it, in {"command": ...}
	args := slices.Concat([]byte(`{"command":`), q, []byte("}"))
	return Call{ID: textActionID(i), HasID: true, Tool: tool, Args: args, ArgsValid: true}
}

// miniFormat is how mini-swe-agent names its trajectories' format ("mini-swe-agent-1",
// "mini-swe-agent-1.1").
const miniFormat = "mini-swe-agent"

// isMiniSWE reports whether a record's trajectory_format names a mini-swe-agent trajectory.
func isMiniSWE(format rawRef) bool {
	s, ok := stringValue(format)
	return ok && strings.HasPrefix(s, miniFormat)
}

// miniInstance is the instance id a mini-swe-agent trajectory file is named for
// (<instance_id>.traj.json), or "" for a file named otherwise.
func miniInstance(file string) string {
	base := strings.TrimSuffix(filepath.Base(file), ".gz")
	id, ok := strings.CutSuffix(base, ".traj.json")
	if !ok {
		return ""
	}
	return id
}

// miniActionRE is mini-swe-agent's action_regex: 1.x's ```bash block and 2.x's
// ```mswea_bash_command block of its text-based models.
var miniActionRE = regexp.MustCompile("(?s)```(?:bash|mswea_bash_command)\\s*\n(.*?)\n```")

// miniAction returns the command of an assistant turn of mini-swe-agent's: its one action
// block, or "" when it holds none or several (the harness ran nothing then).
func miniAction(content string) string {
	if !strings.Contains(content, "```") {
		return ""
	}
	m := miniActionRE.FindAllStringSubmatchIndex(content, 2)
	if len(m) != 1 {
		return ""
	}
	return strings.TrimSpace(content[m[0][2]:m[0][3]])
}

// returnCode reads the exit status an observation of mini-swe-agent's begins with,
// "<returncode>N</returncode>"; ok is false when it begins otherwise. One that begins with
// "<exception>" (the command could not run) has the status -1.
func returnCode(obs string) (n int, ok bool) {
	s := strings.TrimLeft(obs, " \t\r\n")
	if strings.HasPrefix(s, "<exception>") {
		return -1, true
	}
	rest, found := strings.CutPrefix(s, "<returncode>")
	if !found {
		return 0, false
	}
	num, _, found := strings.Cut(rest, "</returncode>")
	if !found {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(num))
	if err != nil {
		return 0, false
	}
	return n, true
}

// exitResult is the result of a command that a mini-swe-agent exit message answers: a
// success when the command submitted (exit_status "Submitted", or none given), a failure when
// the run ended on an error while it ran (the exit's content is the error).
func exitResult(id, content string, status rawRef) Result {
	r := Result{CallID: id, HasID: true, Success: true, Content: content}
	if s, ok := stringValue(status); ok && s != "Submitted" {
		r.Success, r.Error = false, strings.TrimSpace(s+": "+content)
	}
	return r
}

// textResult builds the result of an action from its observation text.
func textResult(id, observation string) Result {
	r := Result{CallID: id, HasID: true, Success: true, Content: observation}
	if textFailure(observation) {
		r.Success, r.Error = false, strings.TrimSpace(observation)
	}
	return r
}

// textFailure reports whether an observation says the action failed: its return code is not 0,
// it begins with "error" in any case, or it holds one of the shell's, SWE-agent's or
// mini-swe-agent's failure messages. A traceback is
// not one: running a script to reproduce a bug is meant to print it.
func textFailure(obs string) bool {
	if n, ok := returnCode(obs); ok {
		return n != 0
	}
	s := strings.ToLower(strings.TrimSpace(obs))
	if strings.HasPrefix(s, "error") {
		return true
	}
	for _, f := range [...]string{"wrong flag", "command not found", "no such file or directory",
		"introduced new syntax error", "usage: ", "timed out and has been killed"} {
		if strings.Contains(s, f) {
			return true
		}
	}
	return false
}

// step turns trajectory step i into an assistant message holding the action's call and its
// observation's result.
func (d *decoder) step(i int, b *builder, out *Message) error {
	r := d.rare(&d.msgs[i])
	actionRaw, obsRaw := d.raw(r.Action), d.raw(r.Observation)
	action, ok := d.scratch.str(actionRaw)
	if !ok {
		return d.kindErr(jsonscan.PathOf(d.key, i, "action"), "a string", actionRaw)
	}
	var obs string
	if !obsRaw.null() {
		if obs, ok = d.scratch.str(obsRaw); !ok {
			return d.kindErr(jsonscan.PathOf(d.key, i, "observation"), "a string or null", obsRaw)
		}
	}
	for _, raw := range [...]rawRef{d.raw(r.Thought), d.raw(r.Response)} {
		if s, ok := d.scratch.str(raw); ok && s != "" {
			out.Content = s
			break
		}
	}
	out.Role = "assistant"
	nc, nr := len(b.calls), len(b.results)
	if strings.TrimSpace(action) != "" {
		c := textCall(action, i)
		b.calls = append(b.calls, c)
		b.results = append(b.results, textResult(c.ID, obs))
		out.Calls = b.calls[nc:len(b.calls):len(b.calls)]
		out.Results = b.results[nr:len(b.results):len(b.results)]
	}
	d.pendingAction = ""
	return nil
}

// textAction adds the call of a history message's text action, or the result of the action
// before it, to message i (out is built but for these). In a mini-swe-agent trajectory an
// exit message also answers the calls of the turn before it (see below).
func (d *decoder) textAction(i int, b *builder, out *Message) {
	m := &d.msgs[i]
	role, r := d.role(m), d.rare(m)
	open := d.openCalls
	d.openCalls = nil
	if len(out.Calls) > 0 || len(out.Results) > 0 {
		d.pendingAction = ""
		if d.mini && role == "assistant" && len(out.Results) == 0 {
			d.openCalls = out.Calls
		}
		return
	}
	if d.mini && role == "exit" && len(open) > 0 {
		// mini-swe-agent's tool-call mode: the submitting command ends the run before its
		// output is written, and the exit message (the submission) answers the turn's calls.
		d.pendingAction = ""
		nr := len(b.results)
		for _, c := range open {
			if c.HasID {
				b.results = append(b.results, exitResult(c.ID, out.Content, d.raw(r.ExitStatus)))
			}
		}
		out.Results = b.results[nr:len(b.results):len(b.results)]
		return
	}
	if id := d.pendingAction; id != "" && (role == "user" || role == "tool" || d.mini && role == "exit") {
		d.pendingAction = ""
		nr := len(b.results)
		if role == "exit" {
			b.results = append(b.results, exitResult(id, out.Content, d.raw(r.ExitStatus)))
		} else {
			b.results = append(b.results, textResult(id, out.Content))
		}
		out.Results = b.results[nr:len(b.results):len(b.results)]
		return
	}
	if role != "assistant" {
		return
	}
	action, _ := d.scratch.str(d.raw(r.Action))
	if sweAgentExit(action) {
		return // the harness stopped the run: no call of the model's (sweAgentExits)
	}
	if strings.TrimSpace(action) == "" {
		if mt, _ := d.scratch.str(d.raw(r.MessageType)); mt == "action" {
			action = lastFence(out.Content)
		} else if d.mini {
			action = miniAction(out.Content)
		}
	}
	if strings.TrimSpace(action) == "" {
		return
	}
	c := textCall(action, i)
	if d.mini {
		c.Tool = "bash" // mini-swe-agent runs every action in bash, as its tool-call mode names it
	}
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

// mini-swe-agent before 1.0 (July 2025, then nanoswea and microswea) saved a run as its
// message list alone, json.dumps(agent.messages, indent=2) to traj.json (run/local.py and
// run/github_issue.py before SWE-agent/mini-swe-agent 01155013); its own inspector still
// reads such a list as a trajectory, and its tests keep two (tests/test_data/*.traj.json).
// Each message is {"role", "content"}. The action is the one fenced block of an assistant
// turn, as that version's parse_action found it (re.findall(r"```[a-zA-Z]*\n(.*?)(?=\n```|```)"),
// exactly one match, any language tag); the next user message is its observation:
// "<returncode>\nN\n</returncode>" and the output (before 7 July 2025 after an
// "<args>…</args>" block), "The command timed out. …", or, for the command that ends the
// run, the submission. A turn with no block or several got "Please always provide EXACTLY ONE
// action in triple backticks." and ran nothing.
//
// A bare list is also OpenHands' trajs/<id>.json, so it is read as mini-swe-agent's only on a
// mark of mini-swe-agent (miniListMark); one whose assistant turns hold fenced blocks without
// such a mark is refused (miniListUnmarked).

// miniSentinels are the commands with which mini-swe-agent's agent submitted, by version.
var miniSentinels = [...]string{"NANO_SWE_AGENT_FINAL_OUTPUT", "MICRO_SWE_AGENT_FINAL_OUTPUT",
	"MINI_SWE_AGENT_FINAL_OUTPUT", "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}

// miniFormatError is the start of what mini-swe-agent answers a turn without one action.
const miniFormatError = "Please always provide EXACTLY ONE action in triple backticks"

// miniListActionRE is the pre-1.0 action_regex, its lookahead (?=\n```|```) as a group the
// next search starts at (miniListAction).
var miniListActionRE = regexp.MustCompile("(?s)```[a-zA-Z]*\n(.*?)(\n```|```)")

// miniListAction returns the command of an assistant turn as pre-1.0 mini-swe-agent parsed
// it: its one action block, or "" when re.findall finds none or several.
func miniListAction(content string) string {
	if !strings.Contains(content, "```") {
		return ""
	}
	action, n := "", 0
	for at := 0; n < 2; n++ {
		m := miniListActionRE.FindStringSubmatchIndex(content[at:])
		if m == nil {
			break
		}
		action = content[at+m[2] : at+m[3]]
		at += m[4] // the lookahead is not consumed: the closing fence may open the next match
	}
	if n != 1 {
		return ""
	}
	return strings.TrimSpace(action)
}

// miniListCommand is the command of an assistant turn of a bare list: as the pre-1.0
// parse_action found it, else, for a list kept in that shape by a later version (mini-swe-agent's
// own tests/test_data/*.traj.json hold ```mswea_bash_command blocks), as the current reader
// finds it (miniAction).
func miniListCommand(content string) string {
	if action := miniListAction(content); action != "" {
		return action
	}
	return miniAction(content)
}

// miniListResult is the result of an action from its pre-1.0 observation: failed when its
// return code is not 0, or the command did not run to its end (it timed out, the user
// rejected or interrupted it).
func miniListResult(id, obs string) Result {
	s := miniObservation(obs)
	r := textResult(id, s)
	r.Content = obs
	for _, f := range [...]string{"The command timed out", "Command not executed", "Interrupted by user", "Temporary interruption caught"} {
		if r.Success && strings.HasPrefix(s, f) {
			r.Success, r.Error = false, strings.TrimSpace(s)
		}
	}
	return r
}

// miniObservation is a pre-1.0 observation from its return code on: after the "<args>" block
// of the first versions, or the "<observation_head>" of an output too long to show whole.
func miniObservation(obs string) string {
	s := strings.TrimLeft(obs, " \t\r\n")
	for _, c := range [...]struct{ open, from string }{{"<args>", "</args>"}, {"<warning>", "<observation_head>"}} {
		if strings.HasPrefix(s, c.open) {
			if _, after, ok := strings.Cut(s, c.from); ok {
				return strings.TrimLeft(after, " \t\r\n")
			}
		}
	}
	return s
}

// miniListMark reports whether a bare message list is mini-swe-agent's: the file is named as
// it names trajectories (traj.json, <instance_id>.traj.json), or a user message answers an
// action with "<returncode>" (miniObservation), or an action is its submit command, or a user
// message is its answer to a turn without one action.
func miniListMark(path string, msgs []Message) bool {
	base := strings.TrimSuffix(filepath.Base(path), ".gz")
	if base == "traj.json" || strings.HasSuffix(base, ".traj.json") {
		return true
	}
	pending := false
	for i := range msgs {
		m := &msgs[i]
		switch m.Role {
		case "assistant":
			action := miniListCommand(m.Content)
			pending = action != ""
			for _, s := range miniSentinels {
				if strings.Contains(action, s) {
					return true
				}
			}
		case "user":
			s := miniObservation(m.Content)
			if pending && strings.HasPrefix(s, "<returncode>") || strings.HasPrefix(s, miniFormatError) {
				return true
			}
			pending = false
		}
	}
	return false
}

// miniListTurns gives the assistant turns of a pre-1.0 mini-swe-agent message list their
// calls (the tool bash, {"command": …}, as the current reader names them) and the user
// message after each its result.
func miniListTurns(msgs []Message) {
	pending := ""
	for i := range msgs {
		m := &msgs[i]
		switch {
		case m.Role == "assistant" && len(m.Calls) == 0:
			pending = ""
			if action := miniListCommand(m.Content); action != "" {
				c := textCall(action, i)
				c.Tool = "bash"
				m.Calls = []Call{c}
				pending = c.ID
			}
		case m.Role == "user" && pending != "":
			m.Results = []Result{miniListResult(pending, m.Content)}
			pending = ""
		}
	}
}

// miniListUnmarked reports whether a message list read without a call holds assistant turns
// with one fenced block each, as mini-swe-agent writes its actions, though nothing marks it as
// mini-swe-agent's: whether the blocks ran cannot be told, and the list is refused rather
// than read as a run without actions.
func miniListUnmarked(msgs []Message) bool {
	for i := range msgs {
		if len(msgs[i].Calls) > 0 {
			return false
		}
	}
	for i := range msgs {
		if msgs[i].Role == "assistant" && miniListCommand(msgs[i].Content) != "" {
			return true
		}
	}
	return false
}
