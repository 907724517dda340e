package trace

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/internal/jsonscan"
)

// AgentDojo result files (docs/design.md#harness-folders), read as AgentDojo's TraceLogger.save writes them
// (ethz-spylab/agentdojo, src/agentdojo/logging.py; benchmark.py sets "utility" and
// "security"): one JSON object per run, saved as
// runs/<pipeline_name>/<suite_name>/<user_task_id>/<attack_type>/<injection_task_id|none>.json:
//
//	{"suite_name", "pipeline_name", "user_task_id", "injection_task_id", "attack_type",
//	 "injections", "messages", "error", "utility", "security", "duration", …}
//
// Messages are AgentDojo's ChatMessage (agentdojo/types.py): content a list of blocks
// {"type": "text", "content"} (a string in versions before 0.1.30, or null); an assistant's
// tool_calls are FunctionCall {"function": name (a string), "args": {...}, "id"}; a tool
// message {"role": "tool", "content", "tool_call_id", "tool_call", "error"} failed when its
// error is not null. utility (a boolean) is the run's outcome: whether the user's task was
// done. security is not read as an outcome: under an injection it says the attacker's task
// was done, which is not the run's success.
//
// Identity: the trace id is the file's place under runs/ (pipeline/suite/user task, with
// attack/injection task when attacked), so the runs of several pipelines read together stay
// distinct; the suite is suite_name; the task is the user task, with "/<attack>/<injection
// task>" under an injection (the same user task under another injection is another task, not
// a trial of it). The pipeline is the run's agent: it is not part of the identity, so base and
// head runs of two models on one suite match, but two pipelines' runs read together are a
// suite each, never trials of one task (gate's identify).

// ShapeAgentDojo is an AgentDojo result file.
const ShapeAgentDojo Shape = "agentdojo"

type dojoRun struct {
	Suite     json.RawMessage `json:"suite_name"`
	Pipeline  json.RawMessage `json:"pipeline_name"`
	UserTask  json.RawMessage `json:"user_task_id"`
	Injection json.RawMessage `json:"injection_task_id"`
	Attack    json.RawMessage `json:"attack_type"`
	Messages  []dojoMessage   `json:"messages"`
	// Conversations holds the turns where a fork's writer keeps them under "conversations"
	// (docs/trace-formats.md, "Turns by shape"), read when there are no messages.
	Conversations []dojoMessage   `json:"conversations"`
	Utility       json.RawMessage `json:"utility"`
	// Error is what TraceLogger recorded of a run the pipeline aborted (crash.go)
	Error json.RawMessage `json:"error"`
}

// dojoItems are the lists of a result that decoding turns into a value per element: messages,
// and each message's tool calls and content blocks (see itemShape).
var dojoItems = itemShape{
	{key: "messages", list: true, shape: dojoMessageItems},
	{key: "conversations", list: true, shape: dojoMessageItems},
}

// dojoMessageItems are the lists of one message: its tool calls and content blocks.
var dojoMessageItems = itemShape{{key: "tool_calls", list: true}, {key: "content", list: true}}

type dojoMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []dojoCall      `json:"tool_calls"`
	ToolCallID *string         `json:"tool_call_id"`
	ToolCall   *dojoCall       `json:"tool_call"`
	Error      *string         `json:"error"`
}

type dojoCall struct {
	Function string          `json:"function"`
	Args     json.RawMessage `json:"args"`
	ID       *string         `json:"id"`
}

// EachAgentDojo streams the runs of the AgentDojo result file at path to fn (one, as
// AgentDojo writes them; a JSON Lines file of them reads as well).
func EachAgentDojo(ctx context.Context, path string, fn func(*Trace) error) error {
	return input.Each(path, func(rec input.Record) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		t, err := decodeAgentDojo(rec)
		if err != nil {
			return err
		}
		return fn(t)
	})
}

// decodeAgentDojo reads one AgentDojo result: its items counted first, then decoded, then its
// identity, its messages and its utility.
func decodeAgentDojo(rec input.Record) (*Trace, error) {
	start := jsonscan.SkipSpace(rec.Data, 0)
	if k := jsonscan.KindOfValue(rec.Data[start:]); k != jsonscan.KindObject {
		if jsonscan.Validate(rec.Data) != nil {
			return nil, rec.Decode(new(any)) // the syntax error, placed
		}
		return nil, rec.ErrorAt(start, "%s", jsonscan.Expected("an AgentDojo result (a JSON object)", k))
	}
	over, sizes := itemsOver(rec.Data, start, false, dojoItems)
	if over >= 0 {
		return nil, rec.ErrorAt(over, "%s", input.Field(jsonscan.PathAt(rec.Data, over).String(), tooManyItems()))
	}
	var r dojoRun
	if n, ok := sizes.of(0); ok { // messages, made at its size (itemSizes)
		r.Messages = make([]dojoMessage, 0, n)
	}
	if n, ok := sizes.of(1); ok { // conversations, the same
		r.Conversations = make([]dojoMessage, 0, n)
	}
	if err := rec.Decode(&r); err != nil {
		return nil, err
	}
	at := func(p jsonscan.Path, msg string) error {
		return rec.ErrorAt(jsonscan.Locate(rec.Data, p), "%s", input.Field(p.String(), msg))
	}
	t, err := dojoIdentity(&r, at)
	if err != nil {
		return nil, err
	}
	t.File, t.Line = rec.File, rec.Line
	turns, key := r.Messages, "messages"
	if len(turns) == 0 && len(r.Conversations) > 0 {
		turns, key = r.Conversations, "conversations"
	}
	t.Messages = make([]Message, len(turns))
	for i := range turns {
		if err := dojoTurn(&turns[i], &t.Messages[i], key, i, at); err != nil {
			return nil, err
		}
	}
	if !t.HasAgentTurn() { // TraceLogger saves the system and user messages of a run the pipeline aborted
		t.Crash = crashString(r.Error)
	}
	o, ok, problem := ParseOutcome(r.Utility, "utility")
	if problem == "" && ok && !o.IsBool {
		problem = jsonscan.Expected("true or false", jsonscan.KindOfValue(r.Utility))
	}
	if problem != "" {
		return nil, at(jsonscan.PathOf("utility"), problem)
	}
	t.Outcome = o
	return t, nil
}

// dojoIdentity is the trace of run r with its identity: its task (the user task, with the
// attack and injection task when there is one), its id (pipeline, suite and task), its suite
// and its agent (the pipeline). at places a problem at a path of the record.
func dojoIdentity(r *dojoRun, at func(jsonscan.Path, string) error) (*Trace, error) {
	names := [...]struct {
		key string
		raw json.RawMessage
		val string
	}{{key: "pipeline_name", raw: r.Pipeline}, {key: "suite_name", raw: r.Suite}, {key: "user_task_id", raw: r.UserTask},
		{key: "attack_type", raw: r.Attack}, {key: "injection_task_id", raw: r.Injection}}
	for i := range names {
		id, _, problem := idValue(rawRef(names[i].raw))
		if problem != "" {
			return nil, at(jsonscan.PathOf(names[i].key), problem)
		}
		names[i].val = id
	}
	pipeline, suite, user, attack, injection := names[0].val, names[1].val, names[2].val, names[3].val, names[4].val
	if user == "" {
		return nil, at(jsonscan.PathOf("user_task_id"), "an AgentDojo result without a user task id")
	}
	t := &Trace{Shape: ShapeAgentDojo, Task: user}
	parts := []string{pipeline, suite, user}
	if injection != "" {
		if attack == "" {
			attack = "none" // AgentDojo writes null for the attack "none"
		}
		t.Task = user + "/" + attack + "/" + injection
		parts = append(parts, attack, injection)
	}
	var nonEmpty []string
	for _, p := range parts {
		if p != "" {
			nonEmpty = append(nonEmpty, p)
		}
	}
	t.ID = strings.Join(nonEmpty, "/")
	t.Suite = suite // user_task_0 of banking is not user_task_0 of slack
	t.Agent = pipeline
	return t, nil
}

// dojoTurn converts message m into o: its content, its tool calls and, for a tool message, its
// result. m is element i of the record's list key, and at places a problem at a path of the
// record.
func dojoTurn(m *dojoMessage, o *Message, key string, i int, at func(jsonscan.Path, string) error) error {
	o.Role = m.Role
	content, problem := dojoContent(m.Content)
	if problem != "" {
		return at(jsonscan.PathOf(key, i, "content"), problem)
	}
	o.Content = content
	if len(m.ToolCalls) > 0 {
		o.Calls = make([]Call, 0, len(m.ToolCalls))
	}
	for j := range m.ToolCalls {
		c, problem := dojoToolCall(&m.ToolCalls[j])
		if problem != "" {
			return at(jsonscan.PathOf(key, i, "tool_calls", j, "function"), problem)
		}
		o.Calls = append(o.Calls, c)
	}
	if m.Role == "tool" {
		res := Result{Success: m.Error == nil, Content: content}
		if m.Error != nil {
			res.Error = *m.Error
			if res.Error == "" {
				res.Error = "error"
			}
		}
		switch {
		case m.ToolCallID != nil:
			res.CallID, res.HasID = *m.ToolCallID, true
		case m.ToolCall != nil && m.ToolCall.ID != nil:
			res.CallID, res.HasID = *m.ToolCall.ID, true
		}
		o.Results = []Result{res}
	}
	return nil
}

// dojoToolCall converts a FunctionCall: its function is the tool's name (a string), its args
// the arguments (an object).
func dojoToolCall(c *dojoCall) (Call, string) {
	if c.Function == "" {
		return Call{}, "a tool call without a function name"
	}
	call := Call{Tool: c.Function, Args: []byte("{}"), ArgsValid: true}
	if c.ID != nil {
		call.ID, call.HasID = *c.ID, true
	}
	switch k := jsonscan.KindOfValue(c.Args); k {
	case jsonscan.KindObject:
		call.Args = append([]byte(nil), c.Args...)
	case jsonscan.KindNull, jsonscan.KindInvalid:
	default:
		call.Args, call.ArgsValid = append([]byte(nil), c.Args...), false
	}
	return call, ""
}

// dojoContent is a message's text: the "content" of its text blocks joined with "\n", a
// string as older versions wrote it, or "" for null.
func dojoContent(raw json.RawMessage) (string, string) {
	switch k := jsonscan.KindOfValue(raw); k {
	case jsonscan.KindInvalid, jsonscan.KindNull:
		return "", ""
	case jsonscan.KindString:
		var s string
		_ = json.Unmarshal(raw, &s)
		return s, ""
	case jsonscan.KindArray:
		var blocks []json.RawMessage
		_ = json.Unmarshal(raw, &blocks)
		var b strings.Builder
		for n, blk := range blocks {
			var tb struct {
				Type    string          `json:"type"`
				Content json.RawMessage `json:"content"`
			}
			if k := jsonscan.KindOfValue(blk); k != jsonscan.KindObject {
				if k == jsonscan.KindString { // a string among blocks: get_text_content_as_str reads it
					var s string
					_ = json.Unmarshal(blk, &s)
					tb.Type, tb.Content = "text", nil
					appendLine(&b, s)
					continue
				}
				return "", "[" + strconv.Itoa(n) + "]: " + jsonscan.Expected(`a content block {"type", "content"}`, k)
			}
			if err := json.Unmarshal(blk, &tb); err != nil {
				return "", "[" + strconv.Itoa(n) + "]: " + `expected a content block {"type": "text", "content": "…"}`
			}
			if tb.Type != "text" {
				continue // thinking and redacted thinking are not the message
			}
			s, ok := stringValue(tb.Content)
			if !ok && jsonscan.KindOfValue(tb.Content) != jsonscan.KindNull {
				return "", "[" + strconv.Itoa(n) + "].content: " + jsonscan.Expected("a string", jsonscan.KindOfValue(tb.Content))
			}
			appendLine(&b, s)
		}
		return b.String(), ""
	default:
		return "", jsonscan.Expected("a list of content blocks, a string or null", k)
	}
}

func appendLine(b *strings.Builder, s string) {
	if b.Len() > 0 {
		b.WriteByte('\n')
	}
	b.WriteString(s)
}

// agentDojoHarness is the registry's row of an AgentDojo result file, recognised by
// "suite_name" and "user_task_id", which TraceLogger writes first.
var agentDojoHarness = Harness{
	Format:     FormatAgentDojo,
	Name:       "AgentDojo results",
	Recognised: "`suite_name` and `user_task_id`",
	Recognise: func(h *head) bool {
		return h.has("suite_name") && h.has("user_task_id")
	},
	Read: func(ctx context.Context, f File, _ Options, fn func(*Trace) error) error {
		return EachAgentDojo(ctx, f.Path, fn)
	},
	Turns:    `"messages" (or "conversations")`,
	Identity: "suite: `suite_name` (agent: `pipeline_name`); task: `user_task_id`, with `/<attack_type>/<injection_task_id>` under an injection; trace id: the file's place under runs/",
	Outcome:  "`utility` (security is not the run's success)",
	Usage:    "none recorded",
}
