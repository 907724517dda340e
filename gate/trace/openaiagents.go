package trace

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/internal/jsonscan"
)

// OpenAI Agents SDK traces (docs/trace-formats.md, "OpenAI Agents SDK traces"), read as the
// SDK exports them (openai/openai-agents-python, src/agents/tracing: traces.py Trace.export,
// spans.py Span.export, span_data.py; processors.py's BackendSpanExporter posts them as
// {"data": [...]}):
//
//	{"object": "trace", "id", "workflow_name", "group_id", "metadata"}
//	{"object": "trace.span", "id", "trace_id", "parent_id", "started_at", "ended_at",
//	 "span_data": {"type": "agent"|"generation"|"response"|"function"|"handoff"|…, …},
//	 "error": {"message", "data"} | null}
//
// one object a line (what a TracingProcessor that writes each export as a line leaves), a
// JSON array of them, or objects {"data": [...]} (the backend exporter's payload; "spans"
// is read the same). One trace id is one run; its spans are read in started_at order (ties
// in file order: the SDK exports a span when it ends, so a parent comes after its children).
//
// Generation spans (the Chat Completions and LiteLLM models) hold the call's messages in
// span_data.input and span_data.output, as OpenAI chat messages (chatmessage.go); response spans (the default OpenAI Responses model) hold only a response_id: the
// SDK keeps the input and response on the span but its export() leaves them out; where a
// processor wrote them (span_data.input, span_data.response), they are read as the Responses
// API's items (responsesapi.go); a response that names the response it continues
// (previous_response_id) or its server conversation (conversation.id) was sent only the items
// the server had not seen, and continues that response's conversation (Conversations.ModelAfter)
// unless its instructions are another agent's. A run whose
// model spans are all without messages (response spans, or generation spans recorded with
// trace_include_sensitive_data off) holds no turn the gate could judge: it is read with no
// messages and a note saying why, and the blind-read rule refuses a file of mostly such
// runs. Function spans are tool calls without a call id (name, input the arguments, output
// the result; error their failure: the SDK's "Error running tool" with data.error), matched
// to the model's open calls of that tool as conversation.go matches a tool event without an
// id: parallel calls of one tool in their order. Usage is the sum of the
// generation and response spans' usage (input_tokens, output_tokens, total_tokens); the
// task and turn spans' usage totals theirs and is left out.

// ShapeOpenAIAgents is an OpenAI Agents SDK trace export.
const ShapeOpenAIAgents Shape = "openai-agents"

// agentsItem is one exported trace or span.
type agentsItem struct {
	Object   string          `json:"object"`
	ID       string          `json:"id"`
	TraceID  string          `json:"trace_id"`
	Parent   *string         `json:"parent_id"`
	Started  *string         `json:"started_at"`
	Ended    *string         `json:"ended_at"`
	SpanData *agentsSpanData `json:"span_data"`
	Error    json.RawMessage `json:"error"`
	Metadata json.RawMessage `json:"metadata"`
}

type agentsSpanData struct {
	Type   string          `json:"type"`
	Name   string          `json:"name"`
	Input  json.RawMessage `json:"input"`
	Output json.RawMessage `json:"output"`
	Usage  json.RawMessage `json:"usage"`
	// Response is a response span's Response (model_dump()), where a processor wrote it
	Response json.RawMessage `json:"response"`
	// ResponseID is a response span's Response's id, as export() writes it
	ResponseID json.RawMessage `json:"response_id"`
}

// agentsResponse is what is read of a response span's Response: the system prompt it was
// given, its output items, the tools it was given and its usage.
type agentsResponse struct {
	ID           json.RawMessage `json:"id"`
	Previous     json.RawMessage `json:"previous_response_id"`
	Conversation json.RawMessage `json:"conversation"`
	Instructions json.RawMessage `json:"instructions"`
	Output       json.RawMessage `json:"output"`
	Tools        json.RawMessage `json:"tools"`
	Usage        json.RawMessage `json:"usage"`
}

// agentsUsage is a model span's usage as the SDK writes it (usage.py,
// model_usage_to_span_usage; older versions wrote input_tokens and output_tokens alone).
type agentsUsage struct {
	Input  *json.Number `json:"input_tokens"`
	Output *json.Number `json:"output_tokens"`
	Total  *json.Number `json:"total_tokens"`
}

// agentsSpan is a span read, with its record for errors.
type agentsSpan struct {
	item  agentsItem
	rec   input.Record
	start time.Time
	index int
}

// agentsRun is what a file holds of one trace id.
type agentsRun struct {
	id    string
	trace *agentsItem // the trace object, nil when the file has none
	rec   input.Record
	spans []*agentsSpan
	// byID is where each span id is in spans: a processor that writes a span when it starts
	// and again when it ends gives it twice, and the export at its end (ended_at set) is it
	byID map[string]int
}

// readOpenAIAgents is the reader of the registry's row.
func readOpenAIAgents(ctx context.Context, f File, _ Options, fn func(*Trace) error) error {
	data, err := readDocument(f.Path)
	if err != nil {
		return err
	}
	return eachOpenAIAgents(ctx, f.Path, data, fn)
}

// eachOpenAIAgents streams the runs of an export's data to fn; file names it.
func eachOpenAIAgents(ctx context.Context, file string, data []byte, fn func(*Trace) error) error {
	if err := checkDoc(file, data); err != nil {
		return err
	}
	runs, err := agentsRuns(file, data)
	if err != nil {
		return err
	}
	for _, r := range runs {
		if err := ctx.Err(); err != nil {
			return err
		}
		t, err := r.trace1(file)
		if err != nil {
			return err
		}
		if err := fn(t); err != nil {
			return err
		}
	}
	return nil
}

// agentsRuns reads the items of data into runs, in the order their trace id first appears.
func agentsRuns(file string, data []byte) ([]*agentsRun, error) {
	d := newDoc(file, data)
	byID := map[string]*agentsRun{}
	var runs []*agentsRun
	nSpans := 0
	item := func(start, end int) error {
		p := d.pos(start)
		rec := input.Record{File: file, Line: p.Line, Col: p.Col, Data: data[start:end:end]}
		if k := jsonscan.KindOfValue(rec.Data); k != jsonscan.KindObject {
			return rec.ErrorAt(0, "%s", jsonscan.Expected("an OpenAI Agents SDK trace or span (an object)", k))
		}
		var it agentsItem
		if err := rec.Decode(&it); err != nil {
			return err
		}
		id := it.TraceID
		switch it.Object {
		case "trace":
			id = it.ID
		case "trace.span":
			if it.SpanData == nil {
				return fieldAt(rec, jsonscan.PathOf("span_data"), "a span without span_data")
			}
		default:
			return fieldAt(rec, jsonscan.PathOf("object"), fmt.Sprintf(`expected "trace" or "trace.span", found %s`, input.Quote(it.Object)))
		}
		if id == "" {
			key := "trace_id"
			if it.Object == "trace" {
				key = "id"
			}
			return fieldAt(rec, jsonscan.PathOf(key), "a "+it.Object+" without a trace id")
		}
		r := byID[id]
		if r == nil {
			r = &agentsRun{id: id, rec: rec, byID: map[string]int{}}
			byID[id] = r
			runs = append(runs, r)
		}
		if it.Object == "trace" {
			if r.trace == nil {
				r.trace, r.rec = &it, rec
			}
			return nil
		}
		s := &agentsSpan{item: it, rec: rec, index: nSpans}
		nSpans++
		if it.Started != nil {
			t, ok := isoTime(*it.Started)
			if !ok {
				return fieldAt(rec, jsonscan.PathOf("started_at"), "expected an ISO 8601 time, found "+input.Quote(*it.Started))
			}
			s.start = t
		}
		if at, ok := r.byID[it.ID]; ok && it.ID != "" {
			if old := r.spans[at]; old.item.Ended == nil || it.Ended != nil {
				s.index = old.index
				r.spans[at] = s
			}
			return nil
		}
		r.byID[it.ID] = len(r.spans)
		r.spans = append(r.spans, s)
		return nil
	}
	for i := jsonscan.SkipSpace(data, 0); i < len(data); i = jsonscan.SkipSpace(data, i) {
		end, err := jsonscan.Skip(data, i)
		if err != nil {
			return nil, d.errAt(i, "invalid JSON: %v", err) // checkDoc has found these before
		}
		if err := agentsValue(data, i, end, item); err != nil {
			return nil, err
		}
		i = end
	}
	if len(runs) == 0 {
		return nil, &input.Error{File: file, Msg: "the file holds no OpenAI Agents SDK trace or span"}
	}
	return runs, nil
}

// agentsValue hands item the items of the top-level value data[start:end]: itself, the
// elements of an array, or those of an object's "data" or "spans".
func agentsValue(data []byte, start, end int, item func(start, end int) error) error {
	switch data[start] {
	case '[':
		_, err := jsonscan.EachElement(data, start, item)
		return err
	case '{':
		var lists [][2]int
		isItem := false
		_, err := jsonscan.EachMember(data, start, func(key []byte, s, e int) error {
			switch {
			case jsonscan.KeyIs(key, "object"):
				isItem = true
			case (jsonscan.KeyIs(key, "data") || jsonscan.KeyIs(key, "spans")) && data[s] == '[':
				lists = append(lists, [2]int{s, e})
			}
			return nil
		})
		if err != nil {
			return err
		}
		if isItem || len(lists) == 0 {
			return item(start, end)
		}
		for _, l := range lists {
			if _, err := jsonscan.EachElement(data, l[0], item); err != nil {
				return err
			}
		}
		return nil
	}
	return item(start, end)
}

// isoTime reads a time as Python's isoformat writes it, with or without its offset, or as
// str() of a datetime or a pandas Timestamp writes it (a space for the T).
func isoTime(s string) (time.Time, bool) {
	for _, layout := range [...]string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// fieldAt is an error about the member at path p of record rec.
func fieldAt(rec input.Record, p jsonscan.Path, msg string) error {
	return rec.ErrorAt(jsonscan.Locate(rec.Data, p), "%s", input.Field(p.String(), msg))
}

// trace1 assembles the run.
func (r *agentsRun) trace1(file string) (*Trace, error) {
	sort.SliceStable(r.spans, func(i, j int) bool { return r.spans[i].start.Before(r.spans[j].start) })
	conv := NewConversations()
	t := &Trace{ID: r.id, File: file, Line: r.rec.Line, Shape: ShapeOpenAIAgents}
	models, bare := 0, map[string]int{} // model spans, and those without messages by type
	// kept are the server-kept conversations: the conversation each response went to, with
	// its instructions, by response id and by the server's conversation id
	type kept struct {
		conv int
		sys  string
	}
	byResponse, byConv := map[string]kept{}, map[string]kept{}
	for _, s := range r.spans {
		sd := s.item.SpanData
		switch sd.Type {
		case "generation", "response":
			models++
			if sd.Type == "response" {
				call, ok, err := agentsResponseCall(s, t)
				if err != nil {
					return nil, err
				}
				if !ok {
					bare["response"]++
					continue
				}
				// a response that continues a server-kept conversation was sent only the
				// items it adds: it continues the conversation of the response it names,
				// unless another agent's instructions make it a conversation of its own
				var prev kept
				found := false
				if call.previous != "" {
					prev, found = byResponse[call.previous]
				}
				if !found && call.convID != "" {
					prev, found = byConv[call.convID]
				}
				var ci int
				if found && prev.sys == call.sys {
					ci = conv.ModelAfter(prev.conv, call.in, call.out)
				} else {
					ci = conv.Model(call.input(), call.out)
				}
				if ci >= 0 {
					if call.id != "" {
						byResponse[call.id] = kept{ci, call.sys}
					}
					if call.convID != "" {
						byConv[call.convID] = kept{ci, call.sys}
					}
				}
				continue
			}
			if err := agentsUsageOf(s, sd.Usage, t); err != nil {
				return nil, err
			}
			if isNull(sd.Input) && isNull(sd.Output) {
				bare[sd.Type]++
				continue
			}
			in, err := agentsMessages(s.rec, "input", sd.Input)
			if err != nil {
				return nil, err
			}
			out, err := agentsMessages(s.rec, "output", sd.Output)
			if err != nil {
				return nil, err
			}
			conv.Model(in, out)
		case "function":
			if sd.Name == "" {
				return nil, fieldAt(s.rec, jsonscan.PathOf("span_data", "name"), "a function span without a tool name")
			}
			e := ToolEvent{Call: Call{Tool: sd.Name}, Result: rawText(sd.Output)}
			e.Call.Args, e.Call.ArgsValid = rawArgs(sd.Input)
			if !isNull(s.item.Error) {
				e.Failed, e.Error = true, agentsError(s.item.Error)
			}
			conv.Tool(e)
		}
	}
	if models > 0 && bare["generation"]+bare["response"] == models {
		t.Note = agentsBareNote(bare)
	} else {
		t.Messages = conv.Messages()
	}
	if !t.HasAgentTurn() {
		t.Crash = r.crash()
	}
	return t, r.identity(t)
}

// crash is the error of the first span that recorded one other than a tool's, for a run
// with no turn: the run crashed (docs/trace-formats.md, "Blind reads and crashes").
func (r *agentsRun) crash() string {
	for _, s := range r.spans {
		if s.item.SpanData.Type != "function" && !isNull(s.item.Error) {
			return agentsError(s.item.Error)
		}
	}
	return ""
}

// agentsBareNote says why a run whose model spans hold no messages has no turns.
func agentsBareNote(bare map[string]int) string {
	var parts []string
	if bare["response"] > 0 {
		parts = append(parts, "response spans, which hold only a response_id (the SDK's OpenAI Responses model: its export leaves the messages out)")
	}
	if bare["generation"] > 0 {
		parts = append(parts, "generation spans without input or output (recorded with trace_include_sensitive_data off)")
	}
	return "the model calls are " + strings.Join(parts, " and ") + ": no message of the run was exported, so its turns and tool calls were not read (docs/trace-formats.md, \"OpenAI Agents SDK traces\")"
}

func isNull(raw json.RawMessage) bool { return len(raw) == 0 || string(raw) == "null" }

// agentsError is the text of a span's error: data.error where the SDK put the tool's own
// error, else its message.
func agentsError(raw json.RawMessage) string {
	var e struct {
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	if json.Unmarshal(raw, &e) != nil {
		return rawText(raw)
	}
	var data struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(e.Data, &data) == nil && !isNull(data.Error) {
		if e.Message == "" {
			return rawText(data.Error)
		}
		return e.Message + ": " + rawText(data.Error)
	}
	if e.Message == "" {
		return rawText(raw)
	}
	return e.Message
}

// agentsMessages reads span_data.<key> of a span: a list of chat messages (chatmessage.go),
// or null.
func agentsMessages(rec input.Record, key string, raw json.RawMessage) ([]Message, error) {
	if isNull(raw) {
		return []Message{}, nil
	}
	path := jsonscan.PathOf("span_data", key)
	if k := jsonscan.KindOfValue(raw); k != jsonscan.KindArray {
		return nil, fieldAt(rec, path, jsonscan.Expected("a list of chat messages", k))
	}
	ms, p := chatMessages(raw)
	if p != nil {
		return nil, fieldAt(rec, append(path, p.at...), p.msg)
	}
	return nonNil(ms), nil
}

// agentsCall is a response span's model call: its instructions (the system message), the
// input items it was sent and its output; the ids of its response, of the response it
// continues (previous_response_id) and of the server's conversation it belongs to.
type agentsCall struct {
	sys                  string
	in, out              []Message
	id, previous, convID string
}

// input is the call's input: its system message, then its input items.
func (c *agentsCall) input() []Message {
	if c.sys == "" {
		return c.in
	}
	return append([]Message{{Role: "system", Content: c.sys}}, c.in...)
}

// agentsResponseCall reads a response span's call, where a processor wrote the input and
// response the SDK keeps on the span (span_data.input, the Responses API's input items;
// span_data.response, the Response's model_dump(): its instructions the system message the
// input starts with, its output items the call's output, its tools' schemas the trace's, its
// id, previous_response_id and conversation.id): ok is false for a span as export() writes
// it, which holds neither. Its usage is added to t's: span_data.usage, else the Response's.
func agentsResponseCall(s *agentsSpan, t *Trace) (call agentsCall, ok bool, err error) {
	sd := s.item.SpanData
	var r agentsResponse
	if !isNull(sd.Response) {
		if k := jsonscan.KindOfValue(sd.Response); k != jsonscan.KindObject || json.Unmarshal(sd.Response, &r) != nil {
			return call, false, fieldAt(s.rec, jsonscan.PathOf("span_data", "response"), jsonscan.Expected("a Response (an object)", k))
		}
	}
	usage, usageAt := sd.Usage, jsonscan.PathOf("span_data", "usage")
	if isNull(usage) {
		usage, usageAt = r.Usage, jsonscan.PathOf("span_data", "response", "usage")
	}
	if err := agentsUsageAt(s, usage, usageAt, t); err != nil {
		return call, false, err
	}
	if isNull(sd.Input) && isNull(sd.Response) {
		return call, false, nil
	}
	in, p := responseItems(sd.Input)
	if p != nil {
		return call, false, fieldAt(s.rec, append(jsonscan.PathOf("span_data", "input"), p.at...), p.msg)
	}
	call.in = in
	call.sys, _ = stringValue(r.Instructions)
	outItems, outAt := r.Output, jsonscan.PathOf("span_data", "response", "output")
	if isNull(outItems) {
		outItems, outAt = sd.Output, jsonscan.PathOf("span_data", "output")
	}
	if k := jsonscan.KindOfValue(outItems); k != jsonscan.KindArray && k != jsonscan.KindNull && k != jsonscan.KindInvalid {
		return call, false, fieldAt(s.rec, outAt, jsonscan.Expected("a list of output items", k))
	}
	if call.out, p = responseItems(outItems); p != nil {
		return call, false, fieldAt(s.rec, append(outAt, p.at...), p.msg)
	}
	call.id, _ = stringValue(r.ID)
	if call.id == "" {
		call.id, _ = stringValue(sd.ResponseID)
	}
	call.previous, _ = stringValue(r.Previous)
	var conv struct {
		ID json.RawMessage `json:"id"`
	}
	if jsonscan.KindOfValue(r.Conversation) == jsonscan.KindObject && json.Unmarshal(r.Conversation, &conv) == nil {
		call.convID, _ = stringValue(conv.ID)
	}
	t.RequiredParams = addToolSchemas(t.RequiredParams, r.Tools)
	return call, true, nil
}

// agentsUsageOf adds a generation span's usage to t's.
func agentsUsageOf(s *agentsSpan, raw json.RawMessage, t *Trace) error {
	return agentsUsageAt(s, raw, jsonscan.PathOf("span_data", "usage"), t)
}

// agentsUsageAt adds a model span's usage raw, at path in its record, to t's.
func agentsUsageAt(s *agentsSpan, raw json.RawMessage, path jsonscan.Path, t *Trace) error {
	if isNull(raw) {
		return nil
	}
	var u agentsUsage
	if err := json.Unmarshal(raw, &u); err != nil {
		return fieldAt(s.rec, path, jsonscan.Expected("an object of token counts", jsonscan.KindOfValue(raw)))
	}
	var v [3]int64
	var has [3]bool
	for i, n := range [3]*json.Number{u.Input, u.Output, u.Total} {
		if n == nil {
			continue
		}
		x, ok := tokenValue(n.String())
		if !ok {
			name := [3]string{"input_tokens", "output_tokens", "total_tokens"}[i]
			return fieldAt(s.rec, append(path, jsonscan.Step{Key: name}), "must be a non-negative integer, got "+input.Cut(n.String()))
		}
		v[i], has[i] = x, true
	}
	if !has[0] && !has[1] && !has[2] {
		return nil
	}
	if !has[2] {
		v[2] = satAdd(v[0], v[1])
	}
	t.Usage.Prompt = satAdd(t.Usage.Prompt, v[0])
	t.Usage.Completion = satAdd(t.Usage.Completion, v[1])
	t.Usage.Total = satAdd(t.Usage.Total, v[2])
	t.Usage.Recorded = true
	t.PerCall.Calls++
	t.PerCall.MaxPrompt = max(t.PerCall.MaxPrompt, v[0])
	return nil
}

// identity reads the run's identity and outcome from the trace's metadata, as for trace
// records: suite, task_id (or task), trial; reward, score, success, passed or resolved. The
// SDK's backend takes string values only, so a value in a string is a note, not an outcome.
func (r *agentsRun) identity(t *Trace) error {
	if r.trace == nil || isNull(r.trace.Metadata) {
		return nil
	}
	var md map[string]json.RawMessage
	if json.Unmarshal(r.trace.Metadata, &md) != nil {
		return fieldAt(r.rec, jsonscan.PathOf("metadata"), jsonscan.Expected("an object", jsonscan.KindOfValue(r.trace.Metadata)))
	}
	str := func(k string) string {
		if s, ok := stringValue(md[k]); ok {
			return s
		}
		if jsonscan.KindOfValue(md[k]) == jsonscan.KindNumber {
			return string(md[k])
		}
		return ""
	}
	t.Suite = str("suite")
	if task := firstText(str("task_id"), str("task")); task != "" {
		t.Task = task
	}
	if tr := str("trial"); tr != "" {
		n, err := parseTrial(tr)
		if err != nil {
			return fieldAt(r.rec, jsonscan.PathOf("metadata", "trial"), "expected a non-negative integer, found "+input.Quote(tr))
		}
		t.Trial, t.HasTrial = n, true
	}
	for _, k := range OutcomeKeys {
		raw, ok := md[k]
		if !ok {
			continue
		}
		o, ok, problem := ParseOutcome(raw, "metadata."+k)
		if ok {
			t.Outcome = o
			return nil
		}
		if problem != "" {
			t.Outcome.Note = fmt.Sprintf("metadata.%s is %s: not read as an outcome", k, strings.TrimPrefix(problem, "expected true, false or a number, found "))
			return nil
		}
	}
	return nil
}

// firstText is the first of its strings that is not empty.
func firstText(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// openAIAgentsHarness is the registry's row of the OpenAI Agents SDK's trace export.
var openAIAgentsHarness = Harness{
	Format:     FormatOpenAIAgents,
	Name:       "OpenAI Agents SDK traces",
	Recognised: "`object` `\"trace\"` or `\"trace.span\"` (a line, an array element, or under `data`)",
	Recognise: func(h *head) bool {
		return agentsObject(h.value("object")) || h.beforeList("data") && agentsList(h.value("data")) ||
			h.array && agentsList(h.data[h.at:])
	},
	Read:     readOpenAIAgents,
	Turns:    "generation spans' span_data.input and span_data.output, or response spans' span_data.input and span_data.response (export() leaves these out: the trace processor must add them)",
	Identity: "task: the trace's `metadata.task_id` (or `task`), else the trace id; suite: `metadata.suite`; trial: `metadata.trial`",
	Outcome:  "the trace's `metadata.reward`, `score`, `success`, `passed` or `resolved` (true, false or a number)",
	Usage:    "the sum of the generation and response spans' `usage` (`input_tokens`, `output_tokens`, `total_tokens`)",
}

// agentsObject reports whether raw is the JSON string "trace" or "trace.span".
func agentsObject(raw []byte) bool {
	s, ok := stringValue(raw)
	return ok && (s == "trace" || s == "trace.span")
}

// agentsList reports whether raw is an array whose first element starts with "object":
// "trace" or "trace.span".
func agentsList(raw []byte) bool {
	i := jsonscan.SkipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return false
	}
	i = jsonscan.SkipSpace(raw, i+1)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	key, v, err := jsonscan.Key(raw, i+1)
	if err != nil || !jsonscan.KeyIs(key, "object") {
		return false
	}
	end, err := jsonscan.Skip(raw, v)
	return err == nil && agentsObject(raw[v:end])
}
