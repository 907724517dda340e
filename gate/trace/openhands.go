package trace

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/internal/jsonscan"
)

// OpenHands evaluation output (docs/design.md#harness-folders), read as OpenHands' evaluation code writes it
// (All-Hands-AI/OpenHands, evaluation/utils/shared.py and openhands/llm/llm.py):
//
//   - output.jsonl: one EvalOutput per line, {"instance_id", "test_result", "instruction",
//     "metadata", "history", "metrics", "error", "instance"}. history is the agent's event
//     stream as event_to_dict writes it: actions {"id", "source", "action", "args",
//     "tool_call_metadata": {"function_name", "tool_call_id"}} and observations {"id",
//     "observation", "content", "extras", "cause", "success"} (older files hold [action,
//     observation] pairs). metrics.accumulated_token_usage is the run's usage, token_usages one
//     entry per model call. The scripts that evaluate it add the outcome: report.resolved
//     (update_output_with_eval.py) or test_result.report.resolved (eval_infer.py's
//     output.swebench_eval.jsonl).
//   - llm_completions/<instance_id>/<model>-<time>.json: one model call, {"messages",
//     "response", "args", "kwargs", "timestamp", "cost"}; when the model had no native function
//     calling, messages are the text-mode prompt (calls written
//     <function=name><parameter=k>v</parameter></function>, results as user turns
//     "EXECUTION RESULT of [name]:") and the OpenAI-shaped conversation is beside them as
//     "fncall_messages" / "fncall_response".
//
// The turns are read from the first present of: fncall_messages (with fncall_response's
// message), messages (with response's message; text-mode calls parsed), raw_completions.messages
// (combine_final_completions.py), the history events. One trace per record; its id and task are
// the instance id (a completion log's: the folder it was saved in, with the file's stem as id).

// ShapeOpenHands is an OpenHands evaluation output record or LLM completion log.
const ShapeOpenHands Shape = "openhands"

type ohRecord struct {
	InstanceID     json.RawMessage `json:"instance_id"`
	FncallMessages *[]ohMessage    `json:"fncall_messages"`
	FncallResponse *ohResponse     `json:"fncall_response"`
	Messages       *[]ohMessage    `json:"messages"`
	Response       *ohResponse     `json:"response"`
	RawCompletions *struct {
		Messages *[]ohMessage `json:"messages"`
	} `json:"raw_completions"`
	History json.RawMessage `json:"history"`
	Metrics *ohMetrics      `json:"metrics"`
	OpenHandsEval
	Resolved json.RawMessage `json:"resolved"`
	// Error is what run_infer's EvalOutput recorded of a run that raised (crash.go)
	Error json.RawMessage `json:"error"`
}

// OpenHandsEval is where OpenHands' evaluation records an instance's outcome in its output
// records: report.resolved (update_output_with_eval.py rewrites output.jsonl so), or
// test_result.report.resolved (eval_infer.py's output.swebench_eval.jsonl). Embedded in a
// record's struct, it decodes those members.
type OpenHandsEval struct {
	Report     *ohReport `json:"report"`
	TestResult *struct {
		Report *ohReport `json:"report"`
	} `json:"test_result"`
}

type ohReport struct {
	Resolved json.RawMessage `json:"resolved"`
}

// Resolved returns the resolved member and its path, report.resolved before
// test_result.report.resolved; nil when the record has neither.
func (e *OpenHandsEval) Resolved() (json.RawMessage, jsonscan.Path) {
	switch {
	case e.Report != nil && e.Report.Resolved != nil:
		return e.Report.Resolved, jsonscan.PathOf("report", "resolved")
	case e.TestResult != nil && e.TestResult.Report != nil && e.TestResult.Report.Resolved != nil:
		return e.TestResult.Report.Resolved, jsonscan.PathOf("test_result", "report", "resolved")
	}
	return nil, nil
}

// ohMessageItems are the lists of an OpenAI-shaped message that decoding turns into a value per
// element: its tool calls and content parts (see itemShape).
var ohMessageItems = itemShape{{key: "tool_calls", list: true}, {key: "content", list: true}}

// ohResponseItems are those of a model response: its choices, and each choice's message's.
var ohResponseItems = itemShape{{key: "choices", list: true, shape: itemShape{{key: "message", shape: ohMessageItems}}}}

// ohRecordItems are those of an OpenHands record: the message lists, the responses, the history
// events (each pair's two), each event's arguments (a map) and the response that made its
// call, and the per-call token usages. decodeOpenHands makes the first two lists, and the
// history's messages, at their sizes (itemSizes), by the index of their member here.
var ohRecordItems = itemShape{
	{key: "fncall_messages", list: true, shape: ohMessageItems},
	{key: "messages", list: true, shape: ohMessageItems},
	{key: "fncall_response", shape: ohResponseItems},
	{key: "response", shape: ohResponseItems},
	{key: "raw_completions", shape: itemShape{{key: "messages", list: true, shape: ohMessageItems}}},
	{key: "history", list: true, pairs: true, shape: itemShape{
		{key: "args", dict: true},
		{key: "tool_call_metadata", shape: itemShape{{key: "model_response", shape: ohResponseItems}}},
	}},
	{key: "metrics", shape: itemShape{{key: "token_usages", list: true}}},
}

type ohMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"` // a string, content parts or null
	ToolCalls  []ohToolCall    `json:"tool_calls"`
	ToolCallID *string         `json:"tool_call_id"`
}

type ohToolCall struct {
	ID       *string `json:"id"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"` // JSON text in a string, as OpenAI writes it
	} `json:"function"`
}

type ohResponse struct {
	Choices []struct {
		Message *ohMessage `json:"message"`
	} `json:"choices"`
	Usage *ohUsage `json:"usage"`
}

// ohMetrics is what OpenHands' Metrics.get() writes of a run's usage (openhands/llm/metrics.py):
// the sum over its model calls, and each call's.
type ohMetrics struct {
	Accumulated *ohUsage  `json:"accumulated_token_usage"`
	PerCall     []ohUsage `json:"token_usages"`
}

type ohUsage struct {
	Prompt     *int64 `json:"prompt_tokens"`
	Completion *int64 `json:"completion_tokens"`
}

type ohEvent struct {
	ID          json.RawMessage            `json:"id"`
	Source      string                     `json:"source"`
	Action      *string                    `json:"action"`
	Observation *string                    `json:"observation"`
	Args        map[string]json.RawMessage `json:"args"`
	Content     json.RawMessage            `json:"content"`
	Cause       json.RawMessage            `json:"cause"`
	Success     *bool                      `json:"success"`
	Extras      *ohExtras                  `json:"extras"`
	Meta        *struct {
		Function string      `json:"function_name"`
		CallID   string      `json:"tool_call_id"`
		Response *ohResponse `json:"model_response"`
	} `json:"tool_call_metadata"`
	// flatArgs are the arguments of an action written flat, as dataclasses.asdict writes the
	// event (the resolver's history, openhandsresolver.go): used instead of Args when set.
	flatArgs []byte
}

// ohExtras are what is read of an observation's fields: a command's exit code.
type ohExtras struct {
	ExitCode *int64 `json:"exit_code"` // before CmdOutputMetadata
	Metadata *struct {
		ExitCode *int64 `json:"exit_code"`
	} `json:"metadata"`
}

// EachOpenHands streams the traces of an OpenHands output.jsonl (one per line) or LLM
// completion log at path to fn, in file order. Problems are *input.Error values naming the
// file, line and column.
func EachOpenHands(ctx context.Context, path string, fn func(*Trace) error) error {
	return eachRecord(ctx, path, decodeOpenHands, fn)
}

// eachRecord streams the traces of the JSON Lines file at path, one a record as decode reads
// it, to fn.
func eachRecord(ctx context.Context, path string, decode func(input.Record) (*Trace, error), fn func(*Trace) error) error {
	return input.Each(path, func(rec input.Record) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		t, err := decode(rec)
		if err != nil {
			return err
		}
		return fn(t)
	})
}

// objectItems checks that record rec is a JSON object (what names it in the error) and counts
// its items of shape s toward maxItems (itemsOver): the sizes of its lists, or the error at the
// first problem.
func objectItems(rec input.Record, what string, s itemShape) (itemSizes, error) {
	if k := jsonscan.KindOfValue(rec.Data[jsonscan.SkipSpace(rec.Data, 0):]); k != jsonscan.KindObject {
		if err := jsonscan.Validate(rec.Data); err != nil {
			return itemSizes{}, rec.Decode(new(any)) // the syntax error, placed
		}
		return itemSizes{}, rec.ErrorAt(jsonscan.SkipSpace(rec.Data, 0), "%s", jsonscan.Expected(what+" (a JSON object)", k))
	}
	over, sizes := itemsOver(rec.Data, 0, false, s)
	if over >= 0 {
		return itemSizes{}, rec.ErrorAt(over, "%s", input.Field(jsonscan.PathAt(rec.Data, over).String(), tooManyItems()))
	}
	return sizes, nil
}

// ohReader decodes one record.
type ohReader struct {
	rec    input.Record
	pos    lineCounter
	events int // the history's events, as itemsOver counted them (ohRecordItems' sixth)
	// flat is set for a history of events written flat (the resolver's, openhandsresolver.go)
	flat *ohFlat
	// finished is set when the history read so far ends with the agent's finish
	finished bool
}

func decodeOpenHands(rec input.Record) (*Trace, error) {
	sizes, err := objectItems(rec, "an OpenHands output record", ohRecordItems)
	if err != nil {
		return nil, err
	}
	var r ohRecord
	for k, list := range [...]**[]ohMessage{&r.FncallMessages, &r.Messages} { // ohRecordItems' first two
		if n, ok := sizes.of(k); ok {
			msgs := make([]ohMessage, 0, n)
			*list = &msgs
		}
	}
	if err := rec.Decode(&r); err != nil {
		return nil, err
	}
	d := &ohReader{rec: rec, pos: lineCounter{data: rec.Data, line: 1}, events: sizes[5]}
	t := &Trace{File: rec.File, Line: rec.Line, Shape: ShapeOpenHands}
	id, ok, problem := idValue(rawRef(r.InstanceID))
	if problem != "" {
		return nil, d.at(jsonscan.PathOf("instance_id"), "%s", input.Field("instance_id", problem))
	}
	if ok && id != "" {
		t.ID, t.Task = id, id
	} else if task, stem := completionLogName(rec.File); task != "" {
		t.ID, t.Task = task+"/"+stem, task
	} else {
		t.ID = rec.File + ":" + strconv.Itoa(rec.Line)
	}
	switch {
	case r.FncallMessages != nil:
		t.Messages, err = d.messages(jsonscan.PathOf("fncall_messages"), *r.FncallMessages, r.FncallResponse, "fncall_response", false)
	case r.Messages != nil:
		t.Messages, err = d.messages(jsonscan.PathOf("messages"), *r.Messages, r.Response, "response", true)
	case r.RawCompletions != nil && r.RawCompletions.Messages != nil:
		t.Messages, err = d.messages(jsonscan.PathOf("raw_completions", "messages"), *r.RawCompletions.Messages, nil, "", true)
	case len(r.History) > 0 && string(r.History) != "null":
		t.Messages, err = d.history()
	case r.TestResult != nil && r.TestResult.Report != nil:
		return nil, rec.ErrorAt(0, "an OpenHands evaluation record (eval_infer.py's output.swebench_eval.jsonl) holds outcomes, not a run: give it as outcomes")
	default:
		return nil, rec.ErrorAt(0, `an OpenHands record without "history", "messages" or "fncall_messages": nothing to read`)
	}
	if err != nil {
		return nil, err
	}
	if len(t.Messages) == 0 {
		t.Crash = crashString(r.Error)
	}
	t.Agent = ohAgent(rec.Data, rec.File)
	if err := d.usage(t, &r); err != nil {
		return nil, err
	}
	if t.Outcome, err = d.outcome(&r); err != nil {
		return nil, err
	}
	return t, nil
}

// ohAgent is the agent of an OpenHands record (docs/trace-formats.md, "Agents"): an output
// record's EvalMetadata names its agent_class and llm_config.model ("CodeActAgent/gpt-4o");
// a completion log is named for the model, <model with "/" as "__">-<time.time()>.json
// (openhands/llm/llm.py). "" where neither says.
func ohAgent(data []byte, file string) string {
	model := docString(data, "metadata", "llm_config", "model")
	class := docString(data, "metadata", "agent_class")
	switch {
	case model != "" && class != "":
		return class + "/" + model
	case model != "" || class != "":
		return model + class
	}
	if _, stem := completionLogName(file); stem != "" {
		if m := completionLogModel.FindStringSubmatch(stem); m != nil {
			return strings.ReplaceAll(m[1], "__", "/")
		}
	}
	return ""
}

// completionLogModel matches a completion log's stem, <model>-<time.time()>.
var completionLogModel = regexp.MustCompile(`^(.+)-[0-9]+(?:\.[0-9]+)?$`)

// completionLogName is the instance folder and file stem of an LLM completion log as OpenHands
// saves them, llm_completions/<instance_id>/<model>-<time>.json, or as a SWE-bench submission
// keeps them, trajs/<instance_id>/<model>-<time>.json; "" for a file saved elsewhere.
func completionLogName(file string) (task, stem string) {
	parts := strings.Split(strings.ReplaceAll(file, "\\", "/"), "/")
	if len(parts) < 3 || !completionFolders[parts[len(parts)-3]] {
		return "", ""
	}
	stem = strings.TrimSuffix(strings.TrimSuffix(parts[len(parts)-1], ".gz"), ".json")
	return parts[len(parts)-2], stem
}

// completionFolders are the folders whose subfolders, one an instance, hold completion logs:
// OpenHands' llm_completions (openhands/llm/llm.py) and a SWE-bench submission's trajs.
var completionFolders = map[string]bool{"llm_completions": true, "trajs": true}

// at is an *input.Error at the value at path p.
func (d *ohReader) at(p jsonscan.Path, format string, args ...any) error {
	return d.rec.ErrorAt(jsonscan.Locate(d.rec.Data, p), format, args...)
}

// sub is the record of the value at [at, end) of the record, for decoding it on its own;
// offsets must come in increasing order.
func (d *ohReader) sub(at, end int) input.Record {
	line, col := d.pos.at(at)
	if line == 1 && d.rec.Col > 1 {
		col += d.rec.Col - 1
	}
	return input.Record{File: d.rec.File, Line: d.rec.Line + line - 1, Col: col, Data: d.rec.Data[at:end:end]}
}

// messages converts an OpenAI-shaped message list (and the response message after it, when
// the record has one). In text mode, an assistant turn's <function=…> call is its call, and
// a user turn "EXECUTION RESULT of [name]:" its result.
func (d *ohReader) messages(key jsonscan.Path, msgs []ohMessage, resp *ohResponse, respKey string, textMode bool) ([]Message, error) {
	all := msgs
	if resp != nil && len(resp.Choices) > 0 && resp.Choices[0].Message != nil {
		all = append(msgs[:len(msgs):len(msgs)], *resp.Choices[0].Message)
	}
	out := make([]Message, len(all))
	pending := ""
	for i := range all {
		m, o := &all[i], &out[i]
		path := append(key[:len(key):len(key)], jsonscan.Step{Index: i, IsIndex: true})
		if i == len(msgs) {
			path = jsonscan.PathOf(respKey, "choices", 0, "message")
		}
		o.Role = m.Role
		content, problem := ohContent(m.Content)
		if problem != "" {
			p := append(path[:len(path):len(path)], jsonscan.Step{Key: "content"})
			return nil, d.at(p, "%s", input.Field(p.String(), problem))
		}
		o.Content = content
		if len(m.ToolCalls) > 0 {
			o.Calls = make([]Call, 0, len(m.ToolCalls))
		}
		for j, c := range m.ToolCalls {
			if c.Function.Name == "" {
				p := append(path[:len(path):len(path)], jsonscan.PathOf("tool_calls", j, "function", "name")...)
				return nil, d.at(p, "%s", input.Field(p.String(), "a tool call without a function name"))
			}
			call := Call{Tool: c.Function.Name}
			if c.ID != nil {
				call.ID, call.HasID = *c.ID, true
			}
			call.Args, call.ArgsValid = ohArguments(c.Function.Arguments)
			if finish(o, call) {
				continue
			}
			o.Calls = append(o.Calls, call)
		}
		switch {
		case m.Role == "tool":
			r := ohResult(content)
			if m.ToolCallID != nil {
				r.CallID, r.HasID = *m.ToolCallID, true
			}
			o.Results = []Result{r}
		case textMode && m.Role == "assistant" && len(o.Calls) == 0:
			pending = ""
			if c, ok := textModeCall(content, i); ok && !finish(o, c) {
				o.Calls = []Call{c}
				pending = c.ID
			}
		case textMode && m.Role == "user" && pending != "":
			if rest, ok := executionResult(content); ok {
				r := ohResult(rest)
				r.CallID, r.HasID = pending, true
				o.Results = []Result{r}
			}
			pending = ""
		}
	}
	return out, nil
}

// finish reports whether call c is OpenHands' finish tool, and gives message o its final
// message when o has no words of its own. finish ends the run (AgentFinishAction): nothing
// answers it, by design, so it is the agent's last word rather than a call awaiting a result.
func finish(o *Message, c Call) bool {
	if c.Tool != "finish" {
		return false
	}
	if strings.TrimSpace(o.Content) == "" && c.ArgsValid {
		var a struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(c.Args, &a) == nil {
			o.Content = a.Message
		}
	}
	return true
}

// ohContent is a message's text: a string, or the text parts of a list joined with "\n";
// null is "".
func ohContent(raw json.RawMessage) (string, string) {
	switch k := jsonscan.KindOfValue(raw); k {
	case jsonscan.KindInvalid, jsonscan.KindNull:
		return "", ""
	case jsonscan.KindString:
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", "invalid string"
		}
		return s, ""
	case jsonscan.KindArray:
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(raw, &parts); err != nil {
			return "", `expected content parts [{"type", "text"}]`
		}
		var b strings.Builder
		for _, p := range parts {
			if p.Type != "text" {
				continue
			}
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(p.Text)
		}
		return b.String(), ""
	default:
		return "", jsonscan.Expected("a string, content parts or null", k)
	}
}

// ohArguments reads OpenAI arguments: JSON text in a string (kept as the raw text when it does
// not parse), or an object written as it is.
func ohArguments(raw json.RawMessage) ([]byte, bool) {
	switch jsonscan.KindOfValue(raw) {
	case jsonscan.KindString:
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return raw, false
		}
		if validJSON([]byte(s)) {
			return []byte(s), true
		}
		return []byte(s), false
	case jsonscan.KindInvalid, jsonscan.KindNull:
		return []byte("{}"), true
	}
	return raw, true
}

// Text-mode function calls as OpenHands' fn_call_converter writes and parses them: the first
// <function=name> … </function> of a turn (a turn cut at the stop word "</function" counts,
// as _fix_stopword mends it), its <parameter=k>v</parameter> pairs the arguments.
var (
	ohFunctionRE  = regexp.MustCompile(`(?s)<function=([^>]+)>\n(.*?)</function>`)
	ohParameterRE = regexp.MustCompile(`(?s)<parameter=([^>]+)>(.*?)</parameter>`)
)

// textModeCall is the call written in an assistant turn of text mode, if any.
func textModeCall(content string, i int) (Call, bool) {
	if !strings.Contains(content, "<function=") {
		return Call{}, false
	}
	if strings.Count(content, "<function=") == 1 && !strings.Contains(content, "</function>") {
		content = strings.TrimSuffix(strings.TrimRight(content, " \t\r\n"), "</") + "\n</function>"
	}
	m := ohFunctionRE.FindStringSubmatchIndex(content)
	if m == nil {
		return Call{}, false
	}
	name, body := content[m[2]:m[3]], content[m[4]:m[5]]
	params := map[string]string{}
	for _, p := range ohParameterRE.FindAllStringSubmatch(body, -1) {
		params[p[1]] = p[2]
	}
	args, _ := json.Marshal(params) // map keys sorted: deterministic
	return Call{ID: textActionID(i), HasID: true, Tool: name, Args: args, ArgsValid: true}, true
}

// executionResult is the tool output in a user turn of text mode, "EXECUTION RESULT of
// [name]:\n<output>".
func executionResult(content string) (string, bool) {
	rest, ok := strings.CutPrefix(content, "EXECUTION RESULT of [")
	if !ok {
		return "", false
	}
	_, out, ok := strings.Cut(rest, "]:\n")
	if !ok {
		_, out, ok = strings.Cut(rest, "]:")
	}
	return out, ok
}

// ohResult is a tool result from the observation text OpenHands hands the model: a failure
// when its command finished with a non-zero exit code or OpenHands added "[Error occurred in
// processing last action]" (an ErrorObservation).
func ohResult(content string) Result {
	r := Result{Success: true, Content: content}
	if msg, failed := ohFailure(content); failed {
		r.Success, r.Error = false, msg
	}
	return r
}

const ohErrorMark = "[Error occurred in processing last action]"

var ohExitRE = regexp.MustCompile(`\[Command finished with exit code (-?\d+)\]`)

func ohFailure(content string) (string, bool) {
	if strings.Contains(content, ohErrorMark) {
		return strings.TrimSpace(strings.Replace(content, ohErrorMark, "", 1)), true
	}
	tail := content[max(0, len(content)-512):]
	if m := ohExitRE.FindAllStringSubmatch(tail, -1); len(m) > 0 {
		if code := m[len(m)-1][1]; code != "0" {
			return "exit code " + code, true
		}
	}
	return "", false
}

// history converts the event stream: one message per event. An action of the agent with
// tool_call_metadata (or one of the runtime's actions) is an assistant message holding its
// call; the observation caused by it a tool message holding the result, failed when the
// observation says success false or is an error observation.
func (d *ohReader) history() ([]Message, error) {
	start := jsonscan.Locate(d.rec.Data, jsonscan.PathOf("history"))
	out := make([]Message, 0, max(d.events, 0))
	var event ohEvent
	calls := map[string]bool{} // the ids of the calls made so far
	decode := func(i, at, end int) error {
		event = ohEvent{}
		if k := jsonscan.KindOfValue(d.rec.Data[at:]); k != jsonscan.KindObject {
			return d.rec.ErrorAt(at, "history[%d]: %s", i, jsonscan.Expected("an event object (or an [action, observation] pair)", k))
		}
		var err error
		if d.flat != nil {
			err = d.flat.event(d, at, end, &event)
		} else {
			err = d.sub(at, end).Decode(&event)
		}
		if err != nil {
			if e, ok := err.(*input.Error); ok {
				e.Msg = "history[" + strconv.Itoa(i) + "]: " + e.Msg
			}
			return err
		}
		m, problem := ohEventMessage(&event)
		if problem != "" {
			return d.rec.ErrorAt(at, "history[%d]: %s", i, problem)
		}
		if d.flat != nil {
			d.flat.after(&event, &m)
		}
		switch {
		case event.Action != nil:
			d.finished = *event.Action == "finish"
		case event.Observation != nil && !ohNews[*event.Observation]:
			d.finished = false
		}
		for _, c := range m.Calls {
			calls[c.ID] = true
		}
		if len(m.Results) > 0 && !calls[m.Results[0].CallID] {
			// the answer to an action that is not a call (a recall): the runtime's news
			m.Role, m.Results = "system", nil
		}
		out = append(out, m)
		return nil
	}
	if k := jsonscan.KindOfValue(d.rec.Data[start:]); k != jsonscan.KindArray {
		return nil, d.rec.ErrorAt(start, "%s", input.Field("history", jsonscan.Expected("a list of events", k)))
	}
	i := 0
	_, err := jsonscan.EachElement(d.rec.Data, start, func(at, end int) error {
		defer func() { i++ }()
		if jsonscan.KindOfValue(d.rec.Data[at:]) == jsonscan.KindArray { // an [action, observation] pair
			_, err := jsonscan.EachElement(d.rec.Data, at, func(pa, pe int) error { return decode(i, pa, pe) })
			return err
		}
		return decode(i, at, end)
	})
	if e, ok := err.(*jsonscan.Error); ok {
		return nil, d.rec.ErrorAt(e.Off, "invalid JSON: %s", e.Msg)
	}
	return out, err
}

// ohEventMessage turns one event into a message.
func ohEventMessage(e *ohEvent) (Message, string) {
	switch {
	case e.Action != nil:
		return ohAction(e)
	case e.Observation != nil:
		return ohObservation(e)
	}
	return Message{}, `an event with neither "action" nor "observation"`
}

// ohNotCalls are the actions that are not tool calls when they carry no tool_call_metadata.
var ohNotCalls = map[string]bool{"message": true, "system": true, "recall": true, "change_agent_state": true,
	"condensation": true, "condensation_request": true, "null": true, "finish": true, "think": true, "reject": true}

func ohAction(e *ohEvent) (Message, string) {
	role := "assistant"
	switch {
	case *e.Action == "system", e.Source == "environment":
		role = "system"
	case e.Source == "user" && *e.Action == "message":
		role = "user"
	case e.Source == "user":
		role = "system" // the user's side asking the runtime (a recall): no turn of the conversation
	}
	m := Message{Role: role}
	for _, k := range [...]string{"content", "thought", "final_thought"} {
		if s, ok := stringValue(e.Args[k]); ok && s != "" {
			m.Content = s
			break
		}
	}
	if *e.Action == "finish" || e.Meta == nil && (role != "assistant" || ohNotCalls[*e.Action]) {
		return m, "" // finish: the agent's last word (see finish)
	}
	c := Call{Tool: *e.Action}
	if e.Meta != nil && e.Meta.Function != "" {
		c.Tool = e.Meta.Function
	}
	if e.Meta != nil && e.Meta.CallID != "" {
		c.ID, c.HasID = e.Meta.CallID, true
	} else if id, ok, _ := idValue(rawRef(e.ID)); ok {
		c.ID, c.HasID = "event-"+id, true
	}
	if args, ok := modelCallArgs(e); ok {
		c.Args, c.ArgsValid = ohArguments(args)
		m.Calls = []Call{c}
		return m, ""
	}
	if e.flatArgs != nil {
		c.Args, c.ArgsValid = e.flatArgs, true
		m.Calls = []Call{c}
		return m, ""
	}
	if len(e.Args) == 0 {
		c.Args, c.ArgsValid = []byte("{}"), true // what marshalling no arguments writes
		m.Calls = []Call{c}
		return m, ""
	}
	args := make(map[string]json.RawMessage, len(e.Args))
	for k, v := range e.Args {
		if k != "thought" { // the agent's words, not the call: repeats of a call differ in them
			args[k] = v
		}
	}
	b, err := json.Marshal(args) // keys sorted
	if err != nil {
		return Message{}, "args: " + err.Error()
	}
	c.Args, c.ArgsValid = b, true
	m.Calls = []Call{c}
	return m, ""
}

// modelCallArgs are the arguments the model wrote for the event's call, as its
// tool_call_metadata.model_response holds them: the call as the model made it, not the
// action's fields with their defaults.
func modelCallArgs(e *ohEvent) (json.RawMessage, bool) {
	if e.Meta == nil || e.Meta.Response == nil || e.Meta.CallID == "" {
		return nil, false
	}
	for _, ch := range e.Meta.Response.Choices {
		if ch.Message == nil {
			continue
		}
		for _, tc := range ch.Message.ToolCalls {
			if tc.ID != nil && *tc.ID == e.Meta.CallID && tc.Function.Arguments != nil {
				return tc.Function.Arguments, true
			}
		}
	}
	return nil, false
}

func ohObservation(e *ohEvent) (Message, string) {
	content, _ := stringValue(e.Content)
	if k := jsonscan.KindOfValue(e.Content); k != jsonscan.KindString && k != jsonscan.KindNull && k != jsonscan.KindInvalid {
		return Message{}, input.Field("content", jsonscan.Expected("a string", k))
	}
	m := Message{Role: "tool", Content: content}
	r := Result{Success: true, Content: content}
	if e.Meta != nil && e.Meta.CallID != "" {
		r.CallID, r.HasID = e.Meta.CallID, true
	} else if cause, ok, _ := idValue(rawRef(e.Cause)); ok {
		r.CallID, r.HasID = "event-"+cause, true
	} else {
		m.Role = "system" // the runtime's own news (agent_state_changed, recall): no call answered
		return m, ""
	}
	switch {
	case *e.Observation == "error":
		r.Success, r.Error = false, strings.TrimSpace(content)
	case e.Success != nil && !*e.Success:
		r.Success, r.Error = false, strings.TrimSpace(content)
	case e.Success == nil && *e.Observation == "run":
		// files written before observations carried "success": the command's exit code
		if code := e.exitCode(); code != nil && *code != 0 {
			r.Success, r.Error = false, "exit code "+strconv.FormatInt(*code, 10)
		}
	}
	if r.Error == "" && !r.Success {
		r.Error = *e.Observation + " failed"
	}
	m.Results = []Result{r}
	return m, ""
}

// exitCode is a command observation's exit code: extras.metadata.exit_code, or the
// extras.exit_code of older files; nil when neither is written.
func (e *ohEvent) exitCode() *int64 {
	if e.Extras == nil {
		return nil
	}
	if e.Extras.Metadata != nil && e.Extras.Metadata.ExitCode != nil {
		return e.Extras.Metadata.ExitCode
	}
	return e.Extras.ExitCode
}

// usage reads metrics.accumulated_token_usage (the sum over the run's model calls, each of
// token_usages), or a completion log's response usage (one call).
func (d *ohReader) usage(t *Trace, r *ohRecord) error {
	var u *ohUsage
	at := jsonscan.PathOf("metrics", "accumulated_token_usage")
	switch {
	case r.Metrics != nil && r.Metrics.Accumulated != nil:
		u = r.Metrics.Accumulated
	case r.FncallResponse != nil && r.FncallResponse.Usage != nil:
		u, at = r.FncallResponse.Usage, jsonscan.PathOf("fncall_response", "usage")
	case r.Response != nil && r.Response.Usage != nil:
		u, at = r.Response.Usage, jsonscan.PathOf("response", "usage")
	default:
		return nil
	}
	for _, f := range [...]struct {
		key string
		n   *int64
	}{{"prompt_tokens", u.Prompt}, {"completion_tokens", u.Completion}} {
		if f.n != nil && *f.n < 0 {
			p := append(at[:len(at):len(at)], jsonscan.Step{Key: f.key})
			return d.at(p, "%s", input.Field(p.String(), "must be a non-negative integer, got "+strconv.FormatInt(*f.n, 10)))
		}
	}
	if u.Prompt != nil {
		t.Usage.Prompt = *u.Prompt
	}
	if u.Completion != nil {
		t.Usage.Completion = *u.Completion
	}
	t.Usage.Total = satAdd(t.Usage.Prompt, t.Usage.Completion)
	t.Usage.Recorded = u.Prompt != nil || u.Completion != nil
	if r.Metrics != nil && r.Metrics.Accumulated != nil && len(r.Metrics.PerCall) > 0 {
		t.PerCall.Calls = len(r.Metrics.PerCall)
		for _, c := range r.Metrics.PerCall {
			if c.Prompt != nil {
				t.PerCall.MaxPrompt = max(t.PerCall.MaxPrompt, *c.Prompt)
			}
		}
	}
	return nil
}

// outcome reads report.resolved (update_output_with_eval.py), else
// test_result.report.resolved (eval_infer.py), else a top-level resolved (trajectories
// exported with their outcome); a record with none of them has none.
func (d *ohReader) outcome(r *ohRecord) (Outcome, error) {
	raw, p := r.OpenHandsEval.Resolved()
	if raw == nil && r.Resolved != nil {
		// trajectories exported with their outcome beside them, as the generic rule reads it
		raw, p = r.Resolved, jsonscan.PathOf("resolved")
	}
	if raw == nil {
		return Outcome{}, nil
	}
	o, ok, problem := ParseOutcome(raw, p.String())
	if problem == "" && ok && !o.IsBool {
		problem = jsonscan.Expected("true or false", jsonscan.KindOfValue(raw))
	}
	if problem != "" {
		return Outcome{}, d.at(p, "%s", input.Field(p.String(), problem))
	}
	return o, nil
}

// EachMessageList reads one run's message list written on its own, a JSON array of OpenAI-shaped
// messages (text-mode <function=…> turns read as in a completion log): OpenHands' SWE-bench
// submission folder holds one per instance, trajs/<instance_id>.json (the messages of the run's
// last completion log, convert_oh_folder_to_swebench_submission.sh). The run's id and task are
// the file's stem. mini-swe-agent before 1.0 saved its runs so too (traj.json): a list marked
// as its is read with its fenced actions (textactions.go).
func EachMessageList(ctx context.Context, path string, fn func(*Trace) error) error {
	data, err := readDocument(path)
	if err != nil {
		return err
	}
	t, err := decodeMessageList(path, data)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return fn(t)
}

func decodeMessageList(path string, data []byte) (*Trace, error) {
	rec := input.Record{File: path, Line: 1, Col: 1, Data: data}
	if err := checkDoc(path, data); err != nil {
		return nil, err
	}
	if k := jsonscan.KindOfValue(data[jsonscan.SkipSpace(data, 0):]); k != jsonscan.KindArray {
		return nil, rec.ErrorAt(jsonscan.SkipSpace(data, 0), "%s", jsonscan.Expected("a list of messages", k))
	}
	over, sizes := itemsOver(data, 0, true, ohMessageItems)
	if over >= 0 {
		return nil, rec.ErrorAt(over, "%s", input.Field(jsonscan.PathAt(data, over).String(), tooManyItems()))
	}
	msgs := make([]ohMessage, 0, sizes[0])
	if err := rec.Decode(&msgs); err != nil {
		return nil, err
	}
	d := &ohReader{rec: rec, pos: lineCounter{data: data, line: 1}}
	stem := filepath.Base(path)
	stem = strings.TrimSuffix(strings.TrimSuffix(stem, ".gz"), ".json")
	t := &Trace{ID: stem, Task: stem, File: path, Line: 1, Shape: ShapeOpenHands}
	if stem == "" {
		t.ID, t.Task = path, ""
	}
	var err error
	if t.Messages, err = d.messages(jsonscan.Path{}, msgs, nil, "", true); err != nil {
		return nil, err
	}
	switch {
	case miniListMark(path, t.Messages):
		// mini-swe-agent before 1.0 (textactions.go): its fenced actions, not OpenHands' text mode
		if t.Messages, err = d.messages(jsonscan.Path{}, msgs, nil, "", false); err != nil {
			return nil, err
		}
		miniListTurns(t.Messages)
		t.Shape = ShapeOpenAI
		if id := miniInstance(path); id != "" {
			t.ID, t.Task = id, id
		} else {
			t.ID, t.Task = path, "" // run/local.py's traj.json names no instance
		}
	case miniListUnmarked(t.Messages):
		i := 0
		for t.Messages[i].Role != "assistant" || miniListCommand(t.Messages[i].Content) == "" {
			i++
		}
		return nil, d.at(jsonscan.PathOf(i, "content"), "message [%d] holds a fenced block, as mini-swe-agent writes its actions, but nothing marks the list as mini-swe-agent's "+
			"(a file named traj.json or <instance_id>.traj.json, a \"<returncode>\" observation, its submit command), and no turn holds a call: "+
			"agentgate cannot tell whether the blocks ran (docs/trace-formats.md, \"mini-swe-agent trajectories\")", i)
	}
	return t, nil
}

// openHandsHarness is the registry's row of OpenHands evaluation output and LLM completion
// logs: "instance_id" with "test_result", "fncall_messages" or "fncall_response", "response"
// with "kwargs", or a message list holding OpenHands' text-mode prompt. OpenHands' agents end
// a run with the finish tool (openhands/agenthub/codeact_agent/tools/finish.py).
var openHandsHarness = Harness{
	Format:     FormatOpenHands,
	Name:       "OpenHands output",
	Recognised: "`instance_id` with `test_result`, `fncall_messages`, `response` with `kwargs`, or `messages` holding OpenHands' text-mode prompt",
	Recognise: func(h *head) bool {
		switch h.last {
		case "fncall_messages", "fncall_response":
			return true
		case "messages":
			if openHandsTextMode(h.value("messages")) {
				return true
			}
		}
		return h.has("instance_id") && h.has("test_result") || h.has("response") && h.has("kwargs")
	},
	Read: func(ctx context.Context, f File, _ Options, fn func(*Trace) error) error {
		return EachOpenHands(ctx, f.Path, fn)
	},
	Side:          func(path string) string { return firstRecordSide(path, openHandsSide) },
	Folder:        openHandsFolder,
	Turns:         `"history", "messages" or "fncall_messages"`,
	TerminalTools: []string{"finish"},
	Identity:      "task: `instance_id`; a completion log's: the folder it is saved in (`llm_completions/<instance_id>/`, `trajs/<instance_id>/`); agent: `metadata.agent_class` and `llm_config.model`, a completion log's the model it is named for",
	Outcome:       "`report.resolved`, else `test_result.report.resolved`, else `resolved`",
	Usage:         "`metrics.accumulated_token_usage`, else the sum of `metrics.token_usages`, else the completion's `response.usage`",
}

// openHandsFolder is the OpenHands row's folder rule: completion logs beside the output that
// holds their runs are skipped, and of those read as the runs, each instance's latest.
func openHandsFolder(files []File) (keep []File, skipped []Skipped) {
	keep, skipped = completionLogsBesideOutput(files)
	keep, more := latestCompletionLogs(keep)
	return keep, append(skipped, more...)
}

// messageListHarness is the registry's row of one run's message list on its own, a JSON array
// whose first element is an OpenAI-shaped message (OpenHands' SWE-bench submission,
// trajs/<instance_id>.json; mini-swe-agent's traj.json before 1.0, textactions.go).
var messageListHarness = Harness{
	Format:     FormatMessageList,
	Name:       "a message list",
	Recognised: "a JSON array whose first element is a chat message (`role` and OpenAI message members only)",
	Recognise:  func(h *head) bool { return h.array && messageListHead(h.data, h.at) },
	Read: func(ctx context.Context, f File, _ Options, fn func(*Trace) error) error {
		return EachMessageList(ctx, f.Path, fn)
	},
	Turns:         "the array's messages: OpenHands' text-mode turns, or, on a mark of mini-swe-agent before 1.0 (a file named `traj.json` or `<instance_id>.traj.json`, a `<returncode>` observation, its submit command), its one fenced action a turn; fenced blocks without such a mark are refused",
	TerminalTools: []string{"finish"},
	Identity:      "task: the file's stem (mini-swe-agent's: the instance a `.traj.json` is named for; `traj.json` names none)",
	Outcome:       "none recorded (give the SWE-bench report as outcomes)",
	Usage:         "none recorded",
}

// messageListHead reports whether the array at head[i] starts with a chat message: an object
// whose members, as far as the head shows them, include "role" and are all members of an
// OpenAI-shaped message. Such an array is not a file of trace records (a record holds its
// message list), but one run's messages.
func messageListHead(head []byte, i int) bool {
	i = jsonscan.SkipSpace(head, i+1)
	if i >= len(head) || head[i] != '{' {
		return false
	}
	role := false
	for i++; ; {
		key, v, err := jsonscan.Key(head, i)
		if err != nil {
			return false
		}
		switch string(key) {
		case `"role"`:
			role = true
		case `"content"`, `"tool_calls"`, `"tool_call_id"`, `"name"`, `"cache_control"`, `"function_call"`, `"reasoning_content"`:
		default:
			return false
		}
		end, err := jsonscan.Skip(head, v)
		if err != nil {
			return false
		}
		var closed bool
		if i, closed, err = jsonscan.Next(head, end, '}'); err != nil {
			return false
		}
		if closed {
			return role
		}
	}
}

// openHandsTextMode reports whether a message list holds the prompt OpenHands writes for a
// model without native function calling (fn_call_converter's system prompt suffix and tool
// descriptions): an LLM completion log, whose "fncall_messages", "response" and "kwargs" come
// after messages that may be longer than the head.
func openHandsTextMode(messages []byte) bool {
	return bytes.Contains(messages, []byte("You have access to the following functions:")) &&
		bytes.Contains(messages, []byte("---- BEGIN FUNCTION #1: "))
}
