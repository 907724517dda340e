package trace

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/agentgate/agentgate/gate/input"
)

// A run's outcome in OpenTelemetry (docs/design.md#outcomes) is a gen_ai.evaluation.result event of the
// GenAI semantic conventions: a span event of one of the trace's spans, or a log record
// (eventName, or the older event.name attribute) carrying the trace's traceId, in the same
// file as the spans (the collector's file exporter writes both signals to one file when asked).
// Its gen_ai.evaluation.score.value is a number; without one, gen_ai.evaluation.score.label
// "pass" or "fail" is a success or a failure. outcome-scorer picks an evaluation by its
// gen_ai.evaluation.name; without it the first is the outcome: span events in span start
// order, then log records in file order. Log records of a traceId with no span in the file
// belong to no run read here, and are left out.

// evaluationEvent names the event that carries an evaluation's result.
const evaluationEvent = "gen_ai.evaluation.result"

// The attributes of an evaluation result.
const (
	evalName  = "gen_ai.evaluation.name"
	evalValue = "gen_ai.evaluation.score.value"
	evalLabel = "gen_ai.evaluation.score.label"
)

// otlpEvaluation is one gen_ai.evaluation.result event, with where it is for errors.
type otlpEvaluation struct {
	name      string
	value     any // the score's value as attrMap reads it; nil when absent
	label     string
	hasLabel  bool
	where     string // "span 3 (spanId ab): event 1" or "log record 2"
	line, col int
}

// otlpLogRecord is one log record as OTLP/JSON writes it.
type otlpLogRecord struct {
	TraceID              string          `json:"traceId"`
	SpanID               string          `json:"spanId"`
	TimeUnixNano         json.RawMessage `json:"timeUnixNano"`
	ObservedTimeUnixNano json.RawMessage `json:"observedTimeUnixNano"`
	EventName            string          `json:"eventName"`
	Attributes           []otlpKV        `json:"attributes"`
	Body                 otlpValue       `json:"body"`
}

// evaluationOf reads the attributes of an evaluation event.
func evaluationOf(kvs []otlpKV) (otlpEvaluation, error) {
	attrs, err := attrMap(kvs)
	if err != nil {
		return otlpEvaluation{}, err
	}
	e := otlpEvaluation{name: textOf(attrs[evalName]), value: attrs[evalValue]}
	if l, ok := attrs[evalLabel]; ok && l != nil {
		e.label, e.hasLabel = textOf(l), true
	}
	return e, nil
}

// spanEvaluation reads event i of a span, a gen_ai.evaluation.result.
func spanEvaluation(ev *otlpEvent, i int) (otlpEvaluation, error) {
	e, err := evaluationOf(ev.Attributes)
	if err != nil {
		return e, fmt.Errorf("event %d (%s): %v", i, evaluationEvent, err)
	}
	e.where = fmt.Sprintf("event %d (%s)", i, evaluationEvent)
	return e, nil
}

// logEvaluation reads log record n when it is a gen_ai.evaluation.result (ok).
func logEvaluation(raw *otlpLogRecord, n, line, col int) (e otlpEvaluation, ok bool, err error) {
	name := raw.EventName
	if name == "" {
		for _, kv := range raw.Attributes {
			if kv.Key == "event.name" && kv.Value.StringValue != nil {
				name = *kv.Value.StringValue
			}
		}
	}
	if name != evaluationEvent {
		return e, false, nil
	}
	if e, err = evaluationOf(raw.Attributes); err != nil {
		return e, false, fmt.Errorf("log record %d (%s): %v", n, evaluationEvent, err)
	}
	e.where, e.line, e.col = fmt.Sprintf("log record %d (%s)", n, evaluationEvent), line, col
	return e, raw.TraceID != "", nil
}

// otlpOutcome is the outcome of the run made of spans (in file order) and the evaluation log
// records of its traceId: the evaluation named scorer, else the first.
func otlpOutcome(file string, spans []*span, logs []otlpEvaluation, scorer string) (Outcome, error) {
	sorted := startOrder(spans)
	var all []otlpEvaluation
	for _, s := range sorted {
		for _, e := range s.evals {
			e.where = fmt.Sprintf("span %d%s: %s", s.index, s.named(), e.where)
			e.line, e.col = s.line, s.col
			all = append(all, e)
		}
	}
	all = append(all, logs...)
	if len(all) == 0 {
		return Outcome{}, nil
	}
	var names []string
	for _, e := range all {
		if scorer != "" && e.name != scorer {
			names = append(names, input.Quote(e.name))
			continue
		}
		return e.outcome(file)
	}
	e := all[0]
	return Outcome{}, &input.Error{File: file, Line: e.line, Col: e.col, Msg: fmt.Sprintf(
		"trace %s has no %s named %s (outcome-scorer); its evaluations are %s", input.Quote(spans[0].traceID),
		evaluationEvent, input.Quote(scorer), input.Cut(strings.Join(names, ", ")))}
}

// outcome reads the evaluation's score as an outcome.
func (e otlpEvaluation) outcome(file string) (Outcome, error) {
	fail := func(format string, args ...any) error {
		return &input.Error{File: file, Line: e.line, Col: e.col, Msg: e.where + ": " + fmt.Sprintf(format, args...)}
	}
	o := Outcome{Known: true, Source: evaluationEvent}
	if e.name != "" {
		o.Source += ":" + input.Cut(e.name) // the input's: at most 200 characters of it
	}
	switch v := e.value.(type) {
	case nil:
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return Outcome{}, fail("%s must be a finite number, got %v", evalValue, v)
		}
		o.Value = v
		return o, nil
	case int64:
		o.Value = float64(v)
		return o, nil
	case bool:
		o.IsBool = true
		if v {
			o.Value = 1
		}
		return o, nil
	default:
		return Outcome{}, fail("%s must be a number, got %s", evalValue, quoteAttr(v))
	}
	if !e.hasLabel {
		return Outcome{}, fail("has neither %s nor %s", evalValue, evalLabel)
	}
	switch strings.ToLower(strings.TrimSpace(e.label)) {
	case "pass", "passed":
		o.IsBool, o.Value = true, 1
		return o, nil
	case "fail", "failed":
		o.IsBool = true
		return o, nil
	}
	return Outcome{}, fail(`%s %s is neither "pass" nor "fail", and there is no %s`, evalLabel, input.Quote(e.label), evalValue)
}

// quoteAttr shows an attribute value in an error: a string quoted, anything else as JSON.
func quoteAttr(v any) string {
	if s, ok := v.(string); ok {
		return input.Quote(s)
	}
	b, _ := json.Marshal(jsonSafe(v))
	return input.Cut(string(b))
}
