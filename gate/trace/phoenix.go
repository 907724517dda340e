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

// Phoenix's own span JSON (docs/trace-formats.md, "Phoenix spans"), as Arize-ai/phoenix's REST
// API writes it (src/phoenix/server/api/routers/v1/spans.py, the Span model of GET
// /v1/projects/{project}/spans; the phoenix-client's client.spans.get_spans returns the same
// dicts):
//
//	{"id", "name", "context": {"trace_id", "span_id"}, "span_kind", "parent_id", "start_time",
//	 "end_time", "status_code", "status_message", "attributes": {flattened OpenInference
//	 attributes}, "events": [{"name", "timestamp", "attributes"}]}
//
// one a line, in an array, or under the API's {"data": [...]}. Phoenix moves the span's
// openinference.span.kind into span_kind and keeps the other attributes flattened as OTLP
// carries them (llm.input_messages.0.message.role, …), so each span is read as the OTLP
// reader reads an OpenInference span (otlp.go): one run per trace_id, its model calls, tool
// spans, failures and usage put together the same way.

// phoenixSpan is one span as the API writes it, or one row of the spans dataframe
// (dataframeAttrs).
type phoenixSpan struct {
	Name    string `json:"name"`
	Context struct {
		TraceID string `json:"trace_id"`
		SpanID  string `json:"span_id"`
	} `json:"context"`
	TraceID       string          `json:"context.trace_id"`
	SpanID        string          `json:"context.span_id"`
	SpanKind      string          `json:"span_kind"`
	ParentID      *string         `json:"parent_id"`
	StartTime     json.RawMessage `json:"start_time"`
	StatusCode    string          `json:"status_code"`
	StatusMessage string          `json:"status_message"`
	Attributes    json.RawMessage `json:"attributes"`
	Events        []struct {
		Name       string          `json:"name"`
		Attributes json.RawMessage `json:"attributes"`
	} `json:"events"`
	// an annotation's, given as traces by mistake
	AnnotatorKind json.RawMessage `json:"annotator_kind"`
}

// readPhoenix is the reader of the registry's row.
func readPhoenix(ctx context.Context, f File, o Options, fn func(*Trace) error) error {
	data, err := readDocument(f.Path)
	if err != nil {
		return err
	}
	return eachPhoenix(ctx, f.Path, data, o, fn)
}

// eachPhoenix streams the runs of Phoenix span JSON to fn, one per trace id, in the order
// their first span appears; file names it. o.OutcomeScorer names the annotation that is a
// run's outcome, where the spans carry Phoenix's annotations (phoenixannotations.go).
func eachPhoenix(ctx context.Context, file string, data []byte, o Options, fn func(*Trace) error) error {
	if err := checkDoc(file, data); err != nil {
		return err
	}
	d := newDoc(file, data)
	var spans []*span
	item := func(start, end int) error {
		p := d.pos(start)
		rec := input.Record{File: file, Line: p.Line, Col: p.Col, Data: data[start:end:end]}
		if k := jsonscan.KindOfValue(rec.Data); k != jsonscan.KindObject {
			return rec.ErrorAt(0, "%s", jsonscan.Expected("a Phoenix span (an object)", k))
		}
		s, err := phoenixSpanOf(rec, len(spans))
		if err != nil {
			return err
		}
		spans = append(spans, s)
		return nil
	}
	for i := jsonscan.SkipSpace(data, 0); i < len(data); i = jsonscan.SkipSpace(data, i) {
		end, err := jsonscan.Skip(data, i)
		if err != nil {
			return d.errAt(i, "invalid JSON: %v", err) // checkDoc has found these before
		}
		if err := agentsValue(data, i, end, item); err != nil {
			return err
		}
		i = end
	}
	if len(spans) == 0 {
		return &input.Error{File: file, Msg: "the file holds no Phoenix span"}
	}
	order, byTrace := byTraceID(spans)
	for _, id := range order {
		if err := ctx.Err(); err != nil {
			return err
		}
		t, err := buildOTLP(file, byTrace[id])
		if err != nil {
			return err
		}
		t.Shape = ShapePhoenix
		if t.Outcome, err = annotationOutcome(file, startOrder(byTrace[id]), o.OutcomeScorer); err != nil {
			return err
		}
		if err := fn(t); err != nil {
			return err
		}
	}
	return nil
}

// ShapePhoenix is Phoenix's span JSON.
const ShapePhoenix Shape = "phoenix"

// phoenixSpanOf reads one span into the OTLP reader's span.
func phoenixSpanOf(rec input.Record, index int) (*span, error) {
	var ps phoenixSpan
	if err := rec.Decode(&ps); err != nil {
		return nil, err
	}
	s := &span{index: index, line: rec.Line, col: rec.Col, traceID: firstText(ps.Context.TraceID, ps.TraceID),
		spanID: firstText(ps.Context.SpanID, ps.SpanID), name: ps.Name, statusMsg: ps.StatusMessage}
	if ps.ParentID != nil {
		s.parentID = *ps.ParentID
	}
	if s.traceID == "" && len(ps.AnnotatorKind) > 0 {
		return nil, rec.ErrorAt(0, "a Phoenix annotation, not a span: give the annotations as outcomes (with outcome-scorer naming the annotation), and the spans as traces")
	}
	if s.traceID == "" {
		return nil, fieldAt(rec, jsonscan.PathOf("context", "trace_id"), "a span without a trace id")
	}
	var err error
	if !isNull(ps.StartTime) {
		if s.start, err = phoenixTime(ps.StartTime); err != nil {
			return nil, fieldAt(rec, jsonscan.PathOf("start_time"), err.Error())
		}
	}
	if s.attrs, err = phoenixAttrs(ps.Attributes); err != nil {
		return nil, fieldAt(rec, jsonscan.PathOf("attributes"), err.Error())
	}
	if err := dataframeAttrs(rec, s.attrs); err != nil {
		return nil, err
	}
	if _, ok := s.attrs["openinference.span.kind"]; !ok && ps.SpanKind != "" {
		s.attrs["openinference.span.kind"] = ps.SpanKind
	}
	if strings.EqualFold(ps.StatusCode, "ERROR") {
		s.failed, s.errText = true, ps.StatusMessage
	}
	for i, ev := range ps.Events {
		if !isGenAIEvent(ev.Name) {
			continue
		}
		attrs, err := phoenixAttrs(ev.Attributes)
		if err != nil {
			return nil, fieldAt(rec, jsonscan.PathOf("events", i, "attributes"), err.Error())
		}
		if err := s.apply(rec.File, &genAIEvent{name: ev.Name, attrs: attrs, where: fmt.Sprintf("event %d (%s)", i, ev.Name)}); err != nil {
			return nil, err
		}
	}
	if s.failed && s.errText == "" {
		s.errText = "status ERROR"
	}
	return s, nil
}

// phoenixAttrs reads an attributes object as the OTLP reader's values: numbers as int64 when
// whole, else float64; a nested object is flattened to dotted keys, as OTLP carries them.
func phoenixAttrs(raw json.RawMessage) (map[string]any, error) {
	out := map[string]any{}
	if isNull(raw) {
		return out, nil
	}
	m, err := decodeNumbers(raw)
	if err != nil {
		return nil, err
	}
	obj, ok := m.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s", jsonscan.Expected("an object", jsonscan.KindOfValue(raw)))
	}
	for k, v := range obj {
		if err := flattenAttr(out, k, v, 0); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// decodeNumbers decodes a JSON value, its numbers as json.Number.
func decodeNumbers(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("invalid JSON: %v", err)
	}
	return v, nil
}

// flattenAttr adds value v of attribute key to out as OTLP carries it, the way Phoenix's
// flatten(recurse_on_sequence=True) writes attributes (src/phoenix/trace/attributes.py): an
// object's members under key.<member>, a list that holds objects as key.<i>.<member> for each
// object (its other elements left out), anything else (a list of strings, a number) as it is;
// null is no attribute.
func flattenAttr(out map[string]any, key string, v any, depth int) error {
	if depth > maxValueDepth {
		return fmt.Errorf("values nested deeper than %d levels", maxValueDepth)
	}
	switch x := v.(type) {
	case nil:
		return nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if err := flattenAttr(out, key+"."+k, x[k], depth+1); err != nil {
				return err
			}
		}
		return nil
	case []any:
		objects := false
		for i, e := range x {
			if _, ok := e.(map[string]any); ok {
				objects = true
				if err := flattenAttr(out, key+"."+strconv.Itoa(i), e, depth+1); err != nil {
					return err
				}
			}
		}
		if objects {
			return nil
		}
	}
	out[key] = phoenixValue(v)
	return nil
}

// dataframeAttrs adds to attrs the attribute columns of a row of Phoenix's spans dataframe
// (px.Client().get_spans_dataframe(), phoenix-client's client.spans.get_spans_dataframe(),
// written with to_json(orient="records")): src/phoenix/trace/dsl/query.py
// _get_spans_dataframe selects name, span_kind, parent_id, start_time, end_time, status_code,
// status_message, events, context.span_id and context.trace_id, and one column
// attributes.<name> per attribute, its semantic-convention prefixes kept whole and the rest
// nested: attributes.llm.input_messages is a list of {"message.role", "message.content",
// "message.tool_calls": [{"tool_call.function.name", …}]}, attributes.llm.token_count.prompt a
// number (120.0 where another row lacks it), null where the span has none.
func dataframeAttrs(rec input.Record, attrs map[string]any) error {
	data := rec.Data
	_, err := jsonscan.EachMember(data, jsonscan.SkipSpace(data, 0), func(key []byte, vs, ve int) error {
		name := jsonscan.Unquote(key, jsonscan.Replace)
		col, ok := strings.CutPrefix(name, "attributes.")
		if !ok || data[vs] == 'n' {
			return nil
		}
		v, err := decodeNumbers(data[vs:ve])
		if err == nil {
			err = flattenAttr(attrs, col, v, 0)
		}
		if err != nil {
			return rec.ErrorAt(vs, "%s", input.Field(name, err.Error()))
		}
		return nil
	})
	return err
}

// phoenixTime reads a span's start_time: an ISO 8601 time (the API's isoformat, or str() of
// a pandas Timestamp), or a number, as DataFrame.to_json writes a time (milliseconds since
// the epoch by default; seconds, microseconds or nanoseconds with date_unit, told by size).
// It is a time in nanoseconds.
func phoenixTime(raw json.RawMessage) (uint64, error) {
	if str, ok := stringValue(raw); ok {
		t, ok := isoTime(str)
		if !ok {
			return 0, fmt.Errorf("expected an ISO 8601 time, found %s", input.Quote(str))
		}
		return uint64(max(t.UnixNano(), 0)), nil
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || jsonscan.KindOfValue(raw) != jsonscan.KindNumber {
		return 0, fmt.Errorf("expected an ISO 8601 time or a number of milliseconds, found %s", input.Cut(string(raw)))
	}
	switch { // scale to nanoseconds by size: times since 1973 (1e11 s), in each unit
	case f < 1e11:
		f *= 1e9
	case f < 1e14:
		f *= 1e6
	case f < 1e17:
		f *= 1e3
	}
	return uint64(min(f, math.MaxInt64)), nil
}

// phoenixValue converts a decoded JSON value's numbers.
func phoenixValue(v any) any {
	switch x := v.(type) {
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n
		}
		f, err := x.Float64()
		if err != nil || math.IsInf(f, 0) {
			return x.String()
		}
		return f
	case []any:
		for i := range x {
			x[i] = phoenixValue(x[i])
		}
		return x
	case map[string]any:
		for k := range x {
			x[k] = phoenixValue(x[k])
		}
		return x
	}
	return v
}

// phoenixKeys reports whether the keys of an object are a Phoenix span's: the API's context,
// or the dataframe's context.span_id or context.trace_id, beside span_kind; or a Phoenix
// annotation's, whose file the reader refuses saying how to give it (as outcomes).
func phoenixKeys(has func(string) bool) bool {
	return has("span_kind") && (has("context") || has("context.span_id") || has("context.trace_id")) ||
		has("annotator_kind") && has("result") && (has("span_id") || has("trace_id")) // annotations, refused with the way to give them
}

// phoenixHarness is the registry's row of Phoenix's span JSON.
var phoenixHarness = Harness{
	Format:     FormatPhoenix,
	Name:       "Phoenix spans",
	Recognised: "`context` (or the spans dataframe's `context.span_id`, `context.trace_id`) and `span_kind` (a line, an array element, or under `data`); an annotation's `annotator_kind` and `result` (refused, with the way to give it as outcomes)",
	Recognise: func(h *head) bool {
		if phoenixKeys(h.has) {
			return true
		}
		if h.array {
			return phoenixKeys(firstElementKeys(h).has)
		}
		if h.beforeList("data") {
			v := h.value("data")
			return phoenixKeys(firstElementKeys(&head{data: v, at: jsonscan.SkipSpace(v, 0)}).has)
		}
		return false
	},
	Read:     readPhoenix,
	Turns:    "LLM spans' llm.input_messages and llm.output_messages attributes",
	Turnless: true, // spans recorded without content (OPENINFERENCE_HIDE_INPUTS) hold no turn
	Identity: "task: the trace id (one run a `context.trace_id`); no suite or trial",
	Outcome:  "the annotation outcome-scorer names among the root span's (`annotations.<i>.annotation.*`) and the trace's (`trace.annotations.<i>.annotation.*`), as the UI's download carries them: its score, else its label as a verdict; without it none (the names listed); annotations exported apart are the outcomes input",
	Usage:    "the sum of the spans' `llm.token_count.*`, leaving out a span whose descendants report usage",
}
