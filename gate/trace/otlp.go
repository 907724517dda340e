package trace

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/internal/jsonscan"
)

// OpenTelemetry traces as OTLP/JSON (docs/design.md#file-layouts-and-formats). One agent run is one traceId; its spans are
// read in start-time order (ties in file order), each in whichever of three dialects it is
// written: the GenAI semantic conventions, Arize's OpenInference or Traceloop's OpenLLMetry.
//
// Model spans carry the conversation: each one's input repeats the messages before it, and
// Conversations (conversation.go) puts the calls together into one or more conversations.
// Tool spans carry one call each: its result, and whether it failed (status ERROR,
// error.type, an exception event), are added to the call the model made, or to a call of
// their own when the model spans hold no messages (GenAI instrumentations record no content
// by default). Token usage is the sum over the spans
// that report it, leaving out a span whose descendants report usage too (an agent span
// that totals its model calls).

// otlpSpan is one span as OTLP/JSON writes it; Phoenix's REST API and its UI's OTLP download
// write the same spans with snake_case keys (proto field names, as its Pydantic models of
// OTLP name them: trace_id, span_id, parent_span_id, start_time_unix_nano, string_value, …),
// every member present and null when unset (docs/trace-formats.md, "Phoenix spans").
type otlpSpan struct {
	TraceID           string          `json:"traceId"`
	SpanID            string          `json:"spanId"`
	ParentSpanID      string          `json:"parentSpanId"`
	Name              string          `json:"name"`
	StartTimeUnixNano json.RawMessage `json:"startTimeUnixNano"`
	Attributes        []otlpKV        `json:"attributes"`
	Events            []otlpEvent     `json:"events"`
	Status            struct {
		Code    json.RawMessage `json:"code"`
		Message *string         `json:"message"`
	} `json:"status"`
	// Phoenix's spelling
	TraceIDS      *string         `json:"trace_id"`
	SpanIDS       *string         `json:"span_id"`
	ParentSpanIDS *string         `json:"parent_span_id"`
	StartTimeS    json.RawMessage `json:"start_time_unix_nano"`
}

// snakeCase moves the members of Phoenix's spelling to their OTLP/JSON names.
func (s *otlpSpan) snakeCase() {
	for _, m := range [...]struct{ to, from *string }{{&s.TraceID, s.TraceIDS}, {&s.SpanID, s.SpanIDS}, {&s.ParentSpanID, s.ParentSpanIDS}} {
		if *m.to == "" && m.from != nil {
			*m.to = *m.from
		}
	}
	if isNull(s.StartTimeUnixNano) {
		s.StartTimeUnixNano = s.StartTimeS
	}
}

type otlpEvent struct {
	Name       string   `json:"name"`
	Attributes []otlpKV `json:"attributes"`
}

type otlpKV struct {
	Key   string    `json:"key"`
	Value otlpValue `json:"value"`
}

// otlpValue is an OTLP AnyValue: exactly one of its fields is set (none for an empty value),
// in either spelling (null when unset, as Phoenix writes every member).
type otlpValue struct {
	StringValue *string         `json:"stringValue"`
	BoolValue   *bool           `json:"boolValue"`
	IntValue    json.RawMessage `json:"intValue"`    // a number, or a string of one (proto JSON)
	DoubleValue json.RawMessage `json:"doubleValue"` // likewise; also "NaN", "Infinity"
	BytesValue  *string         `json:"bytesValue"`  // base64, kept as text
	ArrayValue  *otlpArray      `json:"arrayValue"`
	KvlistValue *otlpKVList     `json:"kvlistValue"`
	// Phoenix's spelling
	StringValueS *string         `json:"string_value"`
	BoolValueS   *bool           `json:"bool_value"`
	IntValueS    json.RawMessage `json:"int_value"`
	DoubleValueS json.RawMessage `json:"double_value"`
	BytesValueS  *string         `json:"bytes_value"`
	ArrayValueS  *otlpArray      `json:"array_value"`
	KvlistValueS *otlpKVList     `json:"kvlist_value"`
}

type otlpArray struct {
	Values []otlpValue `json:"values"`
}

type otlpKVList struct {
	Values []otlpKV `json:"values"`
}

// snakeCase moves the members of Phoenix's spelling to their OTLP/JSON names.
func (v *otlpValue) snakeCase() {
	if v.StringValue == nil {
		v.StringValue = v.StringValueS
	}
	if v.BoolValue == nil {
		v.BoolValue = v.BoolValueS
	}
	if isNull(v.IntValue) {
		v.IntValue = v.IntValueS
	}
	if isNull(v.DoubleValue) {
		v.DoubleValue = v.DoubleValueS
	}
	if v.BytesValue == nil {
		v.BytesValue = v.BytesValueS
	}
	if v.ArrayValue == nil {
		v.ArrayValue = v.ArrayValueS
	}
	if v.KvlistValue == nil {
		v.KvlistValue = v.KvlistValueS
	}
}

// span is one span read from a file, its attributes as Go values (string, int64, float64,
// bool, []any, map[string]any or nil).
type span struct {
	index     int // in file order, from 0
	line, col int
	traceID   string
	spanID    string
	parentID  string
	name      string
	start     uint64
	attrs     map[string]any
	failed    bool   // status ERROR, error.type or an exception event
	errText   string // why, where the span says
	statusMsg string
	evals     []otlpEvaluation // its gen_ai.evaluation.result events (otlpoutcome.go)
	// eventIn and eventOut are the messages of its deprecated per-message events
	// (otlpgenai.go): its input, then its output (gen_ai.choice)
	eventIn, eventOut []Message
}

// EachOTLP streams the agent runs of an OTLP/JSON file at path to fn, one per traceId, in the
// order their first span appears. The file holds one export, or one per line as the
// collector's file exporter writes them. Problems are *input.Error values naming the file,
// the line and the span.
func EachOTLP(ctx context.Context, path string, o Options, fn func(*Trace) error) error {
	data, err := readDocument(path)
	if err != nil {
		return err
	}
	traces, err := readOTLP(path, data, o)
	if err != nil {
		return err
	}
	for _, t := range traces {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(t); err != nil {
			return err
		}
	}
	return nil
}

// ReadOTLP reads the agent runs of OTLP/JSON data; file names it in errors and traces.
func ReadOTLP(file string, data []byte) ([]*Trace, error) { return readOTLP(file, data, Options{}) }

// readOTLP is ReadOTLP with options: o.OutcomeScorer picks the evaluation that is a run's
// outcome.
func readOTLP(file string, data []byte, o Options) ([]*Trace, error) {
	if err := checkDoc(file, data); err != nil {
		return nil, err
	}
	spans, logs, events, err := readSpans(file, data)
	if err != nil {
		return nil, err
	}
	if spans, err = attachEvents(file, spans, events); err != nil {
		return nil, err
	}
	if len(spans) == 0 && len(logs) > 0 {
		return nil, &input.Error{File: file, Msg: "the OTLP file holds no spans, only log records: a run's " + evaluationEvent + " log records are read beside its spans, in the same file"}
	}
	if len(spans) == 0 {
		return nil, &input.Error{File: file, Msg: "the OTLP file holds no spans"}
	}
	order, byTrace := byTraceID(spans)
	out := make([]*Trace, 0, len(order))
	for _, id := range order {
		t, err := buildOTLP(file, byTrace[id])
		if err != nil {
			return nil, err
		}
		if t.Outcome, err = otlpOutcome(file, byTrace[id], logs[id], o.OutcomeScorer); err != nil {
			return nil, err
		}
		if !t.Outcome.Known && t.Outcome.Note == "" { // no evaluation event: Phoenix's annotations, where its download carries them
			if t.Outcome, err = annotationOutcome(file, startOrder(byTrace[id]), o.OutcomeScorer); err != nil {
				return nil, err
			}
		}
		out = append(out, t)
	}
	return out, nil
}

// byTraceID groups spans by trace id: the ids in the order their first span appears, and
// each one's spans in file order.
func byTraceID(spans []*span) (order []string, byTrace map[string][]*span) {
	byTrace = map[string][]*span{}
	for _, s := range spans {
		if _, ok := byTrace[s.traceID]; !ok {
			order = append(order, s.traceID)
		}
		byTrace[s.traceID] = append(byTrace[s.traceID], s)
	}
	return order, byTrace
}

// readSpans reads every span of every export in data, in file order, the
// gen_ai.evaluation.result log records of the log exports among them, by traceId, and their
// other GenAI events (otlpgenai.go), in file order.
func readSpans(file string, data []byte) ([]*span, map[string][]otlpEvaluation, []*genAIEvent, error) {
	x := &otlpExports{d: newDoc(file, data), file: file, logs: map[string][]otlpEvaluation{}}
	d := x.d
	for d.next() < len(data) {
		err := d.object("an OTLP export", func(key string, _ int) error {
			switch key {
			case "resourceSpans", "resource_spans": // the second Phoenix's download's
				return d.array(key, x.resourceSpans)
			case "data": // Phoenix's REST API's page of spans: {"data": [...], "next_cursor"}
				return d.array(key, x.span)
			case "resourceLogs":
				return d.array("resourceLogs", x.resourceLogs)
			}
			return d.skip()
		})
		if err != nil {
			return nil, nil, nil, err
		}
	}
	return x.spans, x.logs, x.events, nil
}

// otlpExports is what readSpans has read so far of a file's exports: the spans, the
// evaluation log records by traceId, the other GenAI events, and how many log records.
type otlpExports struct {
	d      *doc
	file   string
	spans  []*span
	logs   map[string][]otlpEvaluation
	events []*genAIEvent
	nLogs  int
}

// resourceSpans reads an element of resourceSpans: its scopeSpans' spans.
func (x *otlpExports) resourceSpans(_, _ int) error {
	d := x.d
	scope := func(_, _ int) error {
		return d.object("a scopeSpans element", func(key string, _ int) error {
			if key == "spans" {
				return d.array("spans", x.span)
			}
			return d.skip()
		})
	}
	return d.object("a resourceSpans element", func(key string, _ int) error {
		if key == "scopeSpans" || key == "instrumentationLibrarySpans" || key == "scope_spans" {
			return d.array(key, scope)
		}
		return d.skip()
	})
}

// span reads one span, at offset at.
func (x *otlpExports) span(_, at int) error {
	var raw otlpSpan
	if err := x.d.value(&raw); err != nil {
		return err
	}
	s, err := newSpan(x.d, &raw, len(x.spans), at)
	if err != nil {
		return err
	}
	x.spans = append(x.spans, s)
	return nil
}

// resourceLogs reads an element of resourceLogs: its scopeLogs' log records.
func (x *otlpExports) resourceLogs(_, _ int) error {
	d := x.d
	scopeLogs := func(_, _ int) error {
		return d.object("a scopeLogs element", func(key string, _ int) error {
			if key == "logRecords" {
				return d.array("logRecords", x.log)
			}
			return d.skip()
		})
	}
	return d.object("a resourceLogs element", func(key string, _ int) error {
		if key == "scopeLogs" {
			return d.array(key, scopeLogs)
		}
		return d.skip()
	})
}

// log reads one log record, at offset at: an evaluation (logEvaluation) or another GenAI event
// (logEvent); any other record is passed over.
func (x *otlpExports) log(_, at int) error {
	var raw otlpLogRecord
	if err := x.d.value(&raw); err != nil {
		return err
	}
	e := x.d.errAt(at, "")
	ev, ok, err := logEvaluation(&raw, x.nLogs, e.Line, e.Col)
	if err == nil && !ok {
		var ge *genAIEvent
		if ge, ok, err = logEvent(&raw, x.nLogs, e.Line, e.Col); ok {
			x.events = append(x.events, ge)
			ok = false
		}
	}
	x.nLogs++
	if err != nil {
		return &input.Error{File: x.file, Line: e.Line, Col: e.Col, Msg: err.Error()}
	}
	if ok {
		x.logs[raw.TraceID] = append(x.logs[raw.TraceID], ev)
	}
	return nil
}

// newSpan checks a span and converts its attributes; at is its offset in the document.
func newSpan(d *doc, raw *otlpSpan, index, at int) (*span, error) {
	p := d.pos(at)
	raw.snakeCase()
	s := &span{index: index, line: p.Line, col: p.Col, traceID: raw.TraceID, spanID: raw.SpanID,
		parentID: raw.ParentSpanID, name: raw.Name}
	if raw.Status.Message != nil {
		s.statusMsg = *raw.Status.Message
	}
	fail := func(format string, args ...any) error {
		return d.errAt(at, "span %d%s: %s", index, s.named(), fmt.Sprintf(format, args...))
	}
	if s.traceID == "" {
		return nil, fail("has no traceId")
	}
	var err error
	if s.start, err = unixNano(raw.StartTimeUnixNano); err != nil {
		return nil, fail("startTimeUnixNano %v", err)
	}
	if s.attrs, err = attrMap(raw.Attributes); err != nil {
		return nil, fail("%v", err)
	}
	code := strings.Trim(string(raw.Status.Code), `"`)
	if code == "2" || strings.EqualFold(code, "STATUS_CODE_ERROR") || strings.EqualFold(code, "ERROR") {
		s.failed = true
	}
	if et, ok := s.attrs["error.type"]; ok && et != nil {
		s.failed = true
		s.errText = textOf(et)
	}
	for i, ev := range raw.Events {
		if ev.Name == evaluationEvent {
			e, err := spanEvaluation(&ev, i)
			if err != nil {
				return nil, fail("%v", err)
			}
			s.evals = append(s.evals, e)
			continue
		}
		if !isGenAIEvent(ev.Name) {
			continue
		}
		attrs, err := attrMap(ev.Attributes)
		if err != nil {
			return nil, fail("event %d: %v", i, err)
		}
		e := &genAIEvent{name: ev.Name, attrs: attrs, where: fmt.Sprintf("event %d (%s)", i, ev.Name)}
		if err := s.apply(d.rec.File, e); err != nil {
			return nil, err
		}
	}
	switch {
	case s.errText == "":
		s.errText = s.statusMsg
	case s.statusMsg != "" && s.errText == textOf(s.attrs["error.type"]) && s.statusMsg != s.errText:
		s.errText += ": " + s.statusMsg // error.type names the error, the status says what it was
	}
	return s, nil
}

// named is " (spanId X)" for errors, or "" when the span has no id.
func (s *span) named() string {
	if s.spanID == "" {
		return ""
	}
	return " (spanId " + input.Cut(s.spanID) + ")"
}

// errf is an error about span s.
func (s *span) errf(file, format string, args ...any) error {
	return &input.Error{File: file, Line: s.line, Col: s.col, Msg: fmt.Sprintf("span %d%s: ", s.index, s.named()) + fmt.Sprintf(format, args...)}
}

// attrErr is an error about attribute key of span s.
func (s *span) attrErr(file, key, format string, args ...any) error {
	return &input.Error{File: file, Line: s.line, Col: s.col, Msg: fmt.Sprintf("attribute %s of span %d%s: ", key, s.index, s.named()) + fmt.Sprintf(format, args...)}
}

// unixNano reads a timestamp in nanoseconds: a number or a string of one; absent is 0.
func unixNano(raw json.RawMessage) (uint64, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, nil
	}
	s := strings.Trim(string(raw), `"`)
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("must be a non-negative integer, got %s", raw)
	}
	return n, nil
}

// attrMap converts a list of attributes; a key given twice keeps its last value.
func attrMap(kvs []otlpKV) (map[string]any, error) {
	m := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		v, err := kv.Value.toGo(0)
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %v", kv.Key, err)
		}
		m[kv.Key] = v
	}
	return m, nil
}

// toGo converts an AnyValue to a Go value.
func (v *otlpValue) toGo(depth int) (any, error) {
	if depth > maxValueDepth {
		return nil, fmt.Errorf("values nested deeper than %d levels", maxValueDepth)
	}
	v.snakeCase()
	switch {
	case v.StringValue != nil:
		return *v.StringValue, nil
	case v.BoolValue != nil:
		return *v.BoolValue, nil
	case !isNull(v.IntValue):
		s := strings.Trim(string(v.IntValue), `"`)
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("intValue must be an integer, got %s", v.IntValue)
		}
		return n, nil
	case !isNull(v.DoubleValue):
		s := strings.Trim(string(v.DoubleValue), `"`)
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("doubleValue must be a number, got %s", v.DoubleValue)
		}
		return f, nil
	case v.BytesValue != nil:
		return *v.BytesValue, nil
	case v.ArrayValue != nil:
		out := make([]any, len(v.ArrayValue.Values))
		for i := range v.ArrayValue.Values {
			x, err := v.ArrayValue.Values[i].toGo(depth + 1)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case v.KvlistValue != nil:
		out := make(map[string]any, len(v.KvlistValue.Values))
		for _, kv := range v.KvlistValue.Values {
			x, err := kv.Value.toGo(depth + 1)
			if err != nil {
				return nil, err
			}
			out[kv.Key] = x
		}
		return out, nil
	}
	return nil, nil
}

// textOf is a value as text: a string as it is, nil as "", anything else as JSON.
func textOf(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	b, err := json.Marshal(jsonSafe(v))
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// jsonSafe replaces the floats JSON cannot hold (NaN, ±Inf) by their names.
func jsonSafe(v any) any {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return strconv.FormatFloat(x, 'g', -1, 64)
		}
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = jsonSafe(x[i])
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonSafe(e)
		}
		return out
	}
	return v
}

// argsOf is a tool call's arguments from a value: a string is the arguments' text (valid when
// it parses as JSON), anything else is turned into JSON.
func argsOf(v any) ([]byte, bool) {
	switch x := v.(type) {
	case nil:
		return nil, true
	case string:
		b := []byte(x)
		return b, json.Valid(b)
	}
	return []byte(textOf(v)), true
}

// rawArgs is arguments written as JSON inside a message: a JSON string holds their text.
func rawArgs(raw json.RawMessage) ([]byte, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []byte(s), json.Valid([]byte(s))
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return append([]byte(nil), raw...), true
	}
	return b.Bytes(), true
}

// rawText is a JSON value as text: a string's content, null as "", anything else as JSON.
func rawText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// messageResult is a tool result carried in a message, which has no success flag: as for
// OpenAI tool messages, text beginning "Error" or a JSON object with an error is a failure.
func messageResult(id string, content string) Result {
	r := Result{CallID: id, HasID: id != "", Success: true, Content: content}
	if e, failed := openAIFailure(content); failed {
		r.Success, r.Error = false, e
	}
	return r
}

// buildOTLP turns the spans of one traceId (in file order) into a Trace.
func buildOTLP(file string, spans []*span) (*Trace, error) {
	first := spans[0]
	parents, err := parentLinks(file, spans)
	if err != nil {
		return nil, err
	}
	sorted := startOrder(spans)
	conv := NewConversations()
	var required map[string][]string
	for _, s := range sorted {
		required = spanToolSchemas(s, required)
		in, out, err := spanMessages(file, s)
		if err != nil {
			return nil, err
		}
		conv.Model(in, out)
		if call, ok, err := toolCall(file, s); err != nil {
			return nil, err
		} else if ok {
			e := ToolEvent{Call: call.Call, Result: call.resultText, Failed: s.failed, Error: s.errText}
			if e.Failed && e.Error == "" {
				e.Error = "the tool span's status is ERROR"
			}
			conv.Tool(e)
		}
	}
	usage, perCall, err := otlpUsage(file, spans, parents)
	if err != nil {
		return nil, err
	}
	t := &Trace{ID: first.traceID, File: file, Line: first.line, Shape: ShapeOTLP, Messages: conv.Messages(), Usage: usage,
		PerCall: perCall, SpanID: rootSpan(sorted), RequiredParams: required}
	if !t.HasAgentTurn() {
		t.Crash = otlpCrash(sorted)
	}
	return t, nil
}

// spanToolSchemas adds to req the required parameters of the tools a model span was given
// (toolschema.go; docs/trace-formats.md, "Tool schemas"): the GenAI conventions'
// gen_ai.tool.definitions (JSON text on the span, a structured list on the details event:
// [{"type": "function", "name", "description", "parameters"}]) and OpenInference's
// llm.tools.<i>.tool.json_schema (each the tool as the application gave it to the model's API),
// in index order. A tool keeps the first description a span of the run gave it.
func spanToolSchemas(s *span, req map[string][]string) map[string][]string {
	if v, ok := s.attrs["gen_ai.tool.definitions"]; ok && v != nil {
		text, isStr := v.(string)
		if !isStr {
			text = textOf(v)
		}
		req = addToolSchemas(req, []byte(text))
	}
	for _, f := range flatMessages(s.attrs, "llm.tools.", "tool.") {
		v, ok := f.fields["json_schema"]
		text, isStr := v.(string)
		if !isStr {
			text = textOf(v)
		}
		if b := bytes.TrimSpace([]byte(text)); ok && len(b) > 0 && b[0] == '{' && json.Valid(b) {
			req = addToolSchemas(req, append(append([]byte{'['}, b...), ']'))
		}
	}
	return req
}

// startOrder is spans in start order, ties in file order.
func startOrder(spans []*span) []*span {
	sorted := append([]*span(nil), spans...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].start < sorted[j].start })
	return sorted
}

// otlpCrash is why a run with no turn failed, where its root span failed (an error that
// ended the whole run, not a call retried): the error of the last span to start, other than
// a tool's, that says why (the innermost: the model call under the agent) (an exception event, error.type, status ERROR with its message). The run
// crashed (docs/trace-formats.md, "Blind reads and crashes"); "" when it did not so.
func otlpCrash(sorted []*span) string {
	ids := make(map[string]bool, len(sorted))
	for _, s := range sorted {
		ids[s.spanID] = true
	}
	rootFailed := false
	for _, s := range sorted {
		if s.failed && (s.parentID == "" || !ids[s.parentID]) {
			rootFailed = true
		}
	}
	if !rootFailed {
		return ""
	}
	for i := len(sorted) - 1; i >= 0; i-- {
		s := sorted[i]
		if !s.failed || s.attrs["gen_ai.operation.name"] == "execute_tool" ||
			strings.EqualFold(textOf(s.attrs["openinference.span.kind"]), "TOOL") || textOf(s.attrs["traceloop.span.kind"]) == "tool" {
			continue
		}
		if s.errText != "" {
			return s.errText
		}
	}
	return "the run's root span ended with status ERROR"
}

// rootSpan is the id of the run's root span: the first span, in start order, whose parent is
// not among the run's spans (none, or one another process recorded).
func rootSpan(sorted []*span) string {
	ids := make(map[string]bool, len(sorted))
	for _, s := range sorted {
		ids[s.spanID] = true
	}
	for _, s := range sorted {
		if s.parentID == "" || !ids[s.parentID] {
			return s.spanID
		}
	}
	return "" // every span has a parent in the run: a cycle
}

// spanCall is a tool span's call and the text of its result.
type spanCall struct {
	Call
	resultText string
}

// toolCall reads the call of a tool span, in whichever dialect: GenAI execute_tool,
// OpenInference TOOL, OpenLLMetry tool. ok is false for any other span.
func toolCall(file string, s *span) (c spanCall, ok bool, err error) {
	a := s.attrs
	var nameKey string
	var args, result any
	switch {
	case a["gen_ai.operation.name"] == "execute_tool":
		nameKey, args, result = "gen_ai.tool.name", a["gen_ai.tool.call.arguments"], a["gen_ai.tool.call.result"]
		c.ID = textOf(a["gen_ai.tool.call.id"])
	case strings.EqualFold(textOf(a["openinference.span.kind"]), "TOOL"):
		nameKey, args, result = "tool.name", a["input.value"], a["output.value"]
		c.ID = textOf(cmpOr(a["tool_call.id"], a["tool.id"]))
	case textOf(a["traceloop.span.kind"]) == "tool":
		nameKey, args, result = "traceloop.entity.name", a["traceloop.entity.input"], a["traceloop.entity.output"]
		c.ID = textOf(a["gen_ai.tool.call.id"])
	default:
		return c, false, nil
	}
	c.Tool = textOf(a[nameKey])
	if c.Tool == "" {
		c.Tool = strings.TrimSpace(strings.TrimPrefix(s.name, "execute_tool"))
	}
	if c.Tool == "" {
		return c, false, s.errf(file, "is a tool span without a tool name (%s)", nameKey)
	}
	c.HasID = c.ID != ""
	c.Args, c.ArgsValid = argsOf(args)
	c.resultText = textOf(result)
	return c, true, nil
}

// cmpOr is the first of its values that is not nil.
func cmpOr(vs ...any) any {
	for _, v := range vs {
		if v != nil {
			return v
		}
	}
	return nil
}

// spanMessages reads a model span's input and output messages in whichever dialect it has.
// Both are nil for a span without messages.
func spanMessages(file string, s *span) (in, out []Message, err error) {
	a := s.attrs
	if _, ok := a["gen_ai.input.messages"]; ok || a["gen_ai.output.messages"] != nil {
		if in, err = genAIMessages(file, s, "gen_ai.input.messages"); err != nil {
			return nil, nil, err
		}
		if sys, ok, err := systemInstructions(file, s); err != nil {
			return nil, nil, err
		} else if ok {
			in = append([]Message{sys}, in...)
		}
		if out, err = genAIMessages(file, s, "gen_ai.output.messages"); err != nil {
			return nil, nil, err
		}
		return nonNil(in), nonNil(out), nil
	}
	for _, d := range [...]struct {
		in, out, infix string
		names          flatNames
	}{
		{"llm.input_messages.", "llm.output_messages.", "message.", openInferenceNames},
		{"gen_ai.prompt.", "gen_ai.completion.", "", openLLMetryNames},
	} {
		inFlat, outFlat := flatMessages(a, d.in, d.infix), flatMessages(a, d.out, d.infix)
		if len(inFlat) == 0 && len(outFlat) == 0 {
			continue
		}
		if in, err = d.names.messages(file, s, d.in, d.infix, inFlat); err != nil {
			return nil, nil, err
		}
		if out, err = d.names.messages(file, s, d.out, d.infix, outFlat); err != nil {
			return nil, nil, err
		}
		return nonNil(in), nonNil(out), nil
	}
	if s.eventIn != nil || s.eventOut != nil {
		return nonNil(s.eventIn), nonNil(s.eventOut), nil
	}
	return nil, nil, nil
}

func nonNil(ms []Message) []Message {
	if ms == nil {
		return []Message{}
	}
	return ms
}

// genAIMessage is a message of gen_ai.input.messages / gen_ai.output.messages.
type genAIMessage struct {
	Role    string          `json:"role"`
	Parts   []genAIPart     `json:"parts"`
	Content json.RawMessage `json:"content"` // older instrumentations: a string
}

type genAIPart struct {
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	ID        *string         `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Response  json.RawMessage `json:"response"`
	Result    json.RawMessage `json:"result"`
	// a call the model's provider ran itself (semantic conventions 1.39 on)
	ServerCall     json.RawMessage `json:"server_tool_call"`
	ServerResponse json.RawMessage `json:"server_tool_call_response"`
}

// genAIMessages reads the messages of attribute key of span s: JSON text, or the same
// structure as OTLP values.
func genAIMessages(file string, s *span, key string) ([]Message, error) {
	v, ok := s.attrs[key]
	if !ok || v == nil {
		return nil, nil
	}
	fail := func(format string, args ...any) error {
		return s.attrErr(file, key, format, args...)
	}
	var text []byte
	if str, isStr := v.(string); isStr {
		text = []byte(str)
	} else {
		text = []byte(textOf(v))
	}
	if off, msg := checkJSON(text); off >= 0 {
		p := jsonscan.Position(text, off)
		return nil, fail("invalid JSON at line %d, column %d of its text: %s", p.Line, p.Col, msg)
	}
	var raw []genAIMessage
	if err := json.Unmarshal(text, &raw); err != nil {
		return nil, fail("%s", embeddedJSONError(text, err))
	}
	out := make([]Message, 0, len(raw))
	var texts []string
	for i := range raw {
		m := Message{Role: raw[i].Role}
		texts = texts[:0]
		if raw[i].Parts == nil && len(raw[i].Content) > 0 {
			texts = append(texts, rawText(raw[i].Content))
		}
		for j, p := range raw[i].Parts {
			id, has := "", false
			if p.ID != nil {
				id, has = *p.ID, true
			}
			switch p.Type {
			case "text":
				texts = append(texts, rawText(p.Content))
			case "tool_call":
				if p.Name == "" {
					return nil, fail("message %d part %d: a tool_call without a name", i, j)
				}
				args, valid := rawArgs(p.Arguments)
				m.Calls = append(m.Calls, Call{ID: id, HasID: has, Tool: p.Name, Args: args, ArgsValid: valid})
			case "server_tool_call":
				if p.Name == "" {
					return nil, fail("message %d part %d: a server_tool_call without a name", i, j)
				}
				args, valid := rawArgs(p.ServerCall)
				m.Calls = append(m.Calls, Call{ID: id, HasID: has, Tool: p.Name, Args: args, ArgsValid: valid})
			case "server_tool_call_response":
				r := messageResult(id, rawText(p.ServerResponse))
				r.HasID = has
				m.Results = append(m.Results, r)
			case "tool_call_response":
				resp := p.Response
				if len(resp) == 0 {
					resp = p.Result
				}
				r := messageResult(id, rawText(resp))
				r.HasID = has
				m.Results = append(m.Results, r)
			}
		}
		m.Content = strings.Join(texts, "\n")
		out = append(out, m)
	}
	return out, nil
}

// embeddedJSONError describes a type error of encoding/json in JSON text held by an
// attribute, with its own position.
func embeddedJSONError(text []byte, err error) string {
	if e, ok := err.(*json.UnmarshalTypeError); ok {
		at, msg := input.TypeError(text, int(e.Offset), e)
		p := jsonscan.Position(text, at)
		return fmt.Sprintf("at line %d, column %d of its text: %s", p.Line, p.Col, msg)
	}
	return fmt.Sprintf("invalid JSON: %v", err) // not a syntax error: checkJSON has found those before
}

// flatMsg is one message written as flattened attributes: the keys after its prefix, index
// and infix.
type flatMsg struct {
	index  int
	fields map[string]any
}

// flatMessages gathers the attributes <prefix><i>.<infix><field> by message index i, in
// index order.
func flatMessages(attrs map[string]any, prefix, infix string) []flatMsg {
	by := map[int]map[string]any{}
	for k, v := range attrs {
		rest, ok := strings.CutPrefix(k, prefix)
		if !ok {
			continue
		}
		num, field, ok := strings.Cut(rest, ".")
		if !ok {
			continue
		}
		i, err := strconv.Atoi(num)
		if err != nil || i < 0 {
			continue
		}
		field, ok = strings.CutPrefix(field, infix)
		if !ok {
			continue
		}
		if by[i] == nil {
			by[i] = map[string]any{}
		}
		by[i][field] = v
	}
	out := make([]flatMsg, 0, len(by))
	for i, f := range by {
		out = append(out, flatMsg{i, f})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].index < out[b].index })
	return out
}

// flatNames are the field names of a dialect's flattened messages.
type flatNames struct {
	callPrefix, callID, callName, callArgs string
	textParts                              string // prefix of content parts holding text, if any
}

var (
	openInferenceNames = flatNames{"tool_calls.", "tool_call.id", "tool_call.function.name", "tool_call.function.arguments", "contents."}
	openLLMetryNames   = flatNames{"tool_calls.", "id", "name", "arguments", ""}
)

// messages turns flattened messages into Messages.
func (n flatNames) messages(file string, s *span, prefix, infix string, flat []flatMsg) ([]Message, error) {
	out := make([]Message, 0, len(flat))
	for _, f := range flat {
		m := Message{Role: textOf(f.fields["role"]), Content: textOf(f.fields["content"])}
		if m.Content == "" && n.textParts != "" {
			m.Content = joinParts(f.fields, n.textParts)
		}
		calls := map[int]map[string]any{}
		for k, v := range f.fields {
			rest, ok := strings.CutPrefix(k, n.callPrefix)
			if !ok {
				continue
			}
			num, field, ok := strings.Cut(rest, ".")
			j, err := strconv.Atoi(num)
			if !ok || err != nil || j < 0 {
				continue
			}
			if calls[j] == nil {
				calls[j] = map[string]any{}
			}
			calls[j][field] = v
		}
		idx := make([]int, 0, len(calls))
		for j := range calls {
			idx = append(idx, j)
		}
		sort.Ints(idx)
		for _, j := range idx {
			c := calls[j]
			name := textOf(c[n.callName])
			if name == "" {
				return nil, s.attrErr(file, fmt.Sprintf("%s%d.%s%s%d", prefix, f.index, infix, n.callPrefix, j), "a tool call without a name (%s)", n.callName)
			}
			id := textOf(c[n.callID])
			args, valid := argsOf(c[n.callArgs])
			m.Calls = append(m.Calls, Call{ID: id, HasID: id != "", Tool: name, Args: args, ArgsValid: valid})
		}
		if id, ok := f.fields["tool_call_id"]; ok || m.Role == "tool" {
			m.Results = append(m.Results, messageResult(textOf(id), m.Content))
		}
		out = append(out, m)
	}
	return out, nil
}

// joinParts joins the text of OpenInference content parts <prefix><k>.message_content.text.
func joinParts(fields map[string]any, prefix string) string {
	parts := map[int]string{}
	for k, v := range fields {
		rest, ok := strings.CutPrefix(k, prefix)
		if !ok {
			continue
		}
		num, field, ok := strings.Cut(rest, ".")
		k, err := strconv.Atoi(num)
		if ok && err == nil && field == "message_content.text" {
			parts[k] = textOf(v)
		}
	}
	idx := make([]int, 0, len(parts))
	for k := range parts {
		idx = append(idx, k)
	}
	sort.Ints(idx)
	texts := make([]string, len(idx))
	for i, k := range idx {
		texts[i] = parts[k]
	}
	return strings.Join(texts, "\n")
}

// usage keys by dialect, in order of preference.
var (
	promptKeys     = []string{"gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens", "llm.token_count.prompt", "llm.usage.prompt_tokens"}
	completionKeys = []string{"gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens", "llm.token_count.completion", "llm.usage.completion_tokens"}
	totalKeys      = []string{"llm.token_count.total", "llm.usage.total_tokens", "gen_ai.usage.total_tokens"}
)

// otlpUsage sums the token usage of the spans that report it, leaving out a span whose
// descendants report usage too (it totals theirs), and says how many spans it summed; parents
// are the spans' parentLinks.
func otlpUsage(file string, spans []*span, parents []int) (Usage, CallUsage, error) {
	type spanUsage struct {
		prompt, completion, total int64
		has                       bool
	}
	us := make([]spanUsage, len(spans))
	for i, s := range spans {
		var present [3]bool
		var v [3]int64
		for k, keys := range [3][]string{promptKeys, completionKeys, totalKeys} {
			for _, key := range keys {
				x, ok := s.attrs[key]
				if !ok || x == nil {
					continue
				}
				n, ok := tokenValue(x)
				if !ok {
					return Usage{}, CallUsage{}, s.attrErr(file, key, "must be a non-negative integer, got %s", textOf(x))
				}
				v[k], present[k] = n, true
				break
			}
		}
		if present[0] || present[1] || present[2] {
			total := v[2]
			if !present[2] {
				total = satAdd(v[0], v[1])
			}
			us[i] = spanUsage{v[0], v[1], total, true}
		}
	}
	// A covered span's ancestors are all covered: a walk up stops at the first one already
	// marked, so each span is marked once and the walks cost linear time in all.
	covered := make([]bool, len(spans))
	for i := range spans {
		if !us[i].has {
			continue
		}
		for j := parents[i]; j >= 0 && !covered[j]; j = parents[j] {
			covered[j] = true
		}
	}
	var u Usage
	var calls CallUsage
	for i := range spans {
		if us[i].has && !covered[i] {
			u.Prompt = satAdd(u.Prompt, us[i].prompt)
			u.Completion = satAdd(u.Completion, us[i].completion)
			u.Total = satAdd(u.Total, us[i].total)
			u.Recorded = true
			calls.Calls++
			calls.MaxPrompt = max(calls.MaxPrompt, us[i].prompt)
		}
	}
	return u, calls, nil
}

// parentLinks resolves each span's parentSpanId to the position of that span in spans, or -1
// when it has none or the parent is not in the file (a trace exported in pieces, or a parent
// in another service): such a span is a root. Where two spans share an id, the later one is
// the parent. Links that form a cycle are an error naming the span of the cycle that comes
// first in the file: OTLP spans form a tree, so a cycle is a broken or forged export, and no
// reading of which span totals which would be right. Each span is visited once.
func parentLinks(file string, spans []*span) ([]int, error) {
	byID := make(map[string]int, len(spans))
	for i, s := range spans {
		if s.spanID != "" {
			byID[s.spanID] = i
		}
	}
	parents := make([]int, len(spans))
	for i, s := range spans {
		parents[i] = -1
		if j, ok := byID[s.parentID]; ok && s.parentID != "" {
			parents[i] = j
		}
	}
	const (
		unseen = iota
		onPath // on the walk under way
		rooted // its links end at a root
	)
	state := make([]uint8, len(spans))
	var path []int
	for i := range spans {
		path = path[:0]
		j := i
		for j >= 0 && state[j] == unseen {
			state[j] = onPath
			path = append(path, j)
			j = parents[j]
		}
		if j >= 0 && state[j] == onPath {
			return nil, cycleError(file, spans, parents, j)
		}
		for _, k := range path {
			state[k] = rooted
		}
	}
	return parents, nil
}

// cycleError describes the cycle of parent links through spans[at], from the member of the
// cycle that comes first in the file, naming at most four of its spans.
func cycleError(file string, spans []*span, parents []int, at int) error {
	first := at
	for j := parents[at]; j != at; j = parents[j] {
		if spans[j].index < spans[first].index {
			first = j
		}
	}
	var ids []string
	n := 0
	for j := first; ; {
		if n < 4 {
			ids = append(ids, input.Cut(spans[j].spanID))
		}
		n++
		if j = parents[j]; j == first {
			break
		}
	}
	if n > 4 {
		ids = append(ids, fmt.Sprintf("… %d more", n-4))
	}
	ids = append(ids, input.Cut(spans[first].spanID))
	return spans[first].errf(file, "its parent links form a cycle (%s): a span cannot be its own ancestor", strings.Join(ids, " → "))
}

// tokenValue reads a token count attribute: an integer, an integral double or a string of
// digits.
func tokenValue(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, x >= 0
	case float64:
		if x >= 0 && x == math.Trunc(x) && x < math.MaxInt64 {
			return int64(x), true
		}
	case string:
		n, err := strconv.ParseInt(x, 10, 64)
		return n, err == nil && n >= 0
	}
	return 0, false
}

// phoenixOTLPPage reports whether v, the head of a member "data", is a list of spans as
// Phoenix's REST API writes them in OTLP form (GET /v1/projects/{project}/spans/otlpv1): its
// first element has trace_id and span_id, or, where its attributes are longer than the head,
// starts with them as a list of {"key", "value"} (the API's first member).
func phoenixOTLPPage(v []byte) bool {
	first := &head{data: v, at: jsonscan.SkipSpace(v, 0)}
	if k := firstElementKeys(first); k.has("trace_id") && k.has("span_id") {
		return true
	}
	i := jsonscan.SkipSpace(v, first.at+1)
	if first.at >= len(v) || v[first.at] != '[' || i >= len(v) || v[i] != '{' {
		return false
	}
	key, at, err := jsonscan.Key(v, i+1)
	if err != nil || !jsonscan.KeyIs(key, "attributes") {
		return false
	}
	at = jsonscan.SkipSpace(v, at)
	if at >= len(v) || v[at] != '[' {
		return false
	}
	if at = jsonscan.SkipSpace(v, at+1); at >= len(v) || v[at] != '{' {
		return false
	}
	key, _, err = jsonscan.Key(v, at+1)
	return err == nil && jsonscan.KeyIs(key, "key")
}

// otlpHarness is the registry's row of OpenTelemetry spans as OTLP/JSON, recognised by a
// top-level "resourceSpans" (or "resourceLogs", the evaluation events).
var otlpHarness = Harness{
	Format:     FormatOTLP,
	Name:       "OpenTelemetry spans (OTLP/JSON)",
	Recognised: "a top-level `resourceSpans` (or `resourceLogs`, or Phoenix's `resource_spans`), or Phoenix's page of OTLP spans (`data` whose first element has `trace_id` and `span_id`, or starts with `attributes` as a list of `key` and `value`)",
	Recognise: func(h *head) bool {
		return h.has("resourceSpans") || h.has("resourceLogs") || h.has("resource_spans") || h.has("data") && phoenixOTLPPage(h.value("data"))
	},
	Read: func(ctx context.Context, f File, o Options, fn func(*Trace) error) error {
		return EachOTLP(ctx, f.Path, o, fn)
	},
	Turns:    "model spans' input and output messages",
	Turnless: true, // GenAI instrumentations record no message content by default
	Identity: "task: the trace id (one run a traceId); no suite or trial",
	Outcome:  "the evaluation event or span attribute outcome-scorer names (`gen_ai.evaluation.*`), else the first",
	Usage:    "the sum of the spans' `gen_ai.usage.*` (or OpenInference `llm.token_count.*`), leaving out a span whose descendants report usage",
}
