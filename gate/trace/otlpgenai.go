package trace

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentgate/agentgate/internal/jsonscan"
)

// The GenAI semantic conventions' events besides evaluations (docs/trace-formats.md,
// "OpenTelemetry spans (OTLP/JSON)"), as span events or as log records carrying the span's
// traceId and spanId (the conventions' events are log-based; instrumentations write both):
//
//   - gen_ai.client.inference.operation.details (semantic conventions 1.37 on, opt-in: the
//     Python instrumentations write it when OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT
//     is EVENT_ONLY or SPAN_AND_EVENT) carries the call's gen_ai.input.messages,
//     gen_ai.output.messages, gen_ai.system_instructions and gen_ai.tool.definitions as
//     structured values: they are the span's, where the span holds none itself;
//   - gen_ai.client.operation.exception (1.41 on) and the general exception event: the span
//     failed, with exception.type and exception.message;
//   - the per-message events the conventions deprecated in 1.37, gen_ai.system.message,
//     gen_ai.user.message, gen_ai.assistant.message, gen_ai.tool.message (its body's id the
//     call it answers) and gen_ai.choice (its body's message the output), each message in
//     the record's body (or, as span events, its attributes): the span's messages, in order,
//     where it holds none in attributes.
//
// A log record whose spanId is no span of the file is a model call of its own, at its time.

const (
	detailsEvent   = "gen_ai.client.inference.operation.details"
	exceptionEvent = "gen_ai.client.operation.exception"
)

// messageEvents are the deprecated per-message events, with the role of their message.
var messageEvents = map[string]string{
	"gen_ai.system.message": "system", "gen_ai.user.message": "user", "gen_ai.assistant.message": "assistant",
	"gen_ai.tool.message": "tool", "gen_ai.choice": "assistant",
}

// detailsKeys are the attributes of a details event that hold the call's messages and the
// tools it was given.
var detailsKeys = [...]string{"gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions", "gen_ai.tool.definitions"}

// genAIEvent is one such event, from a span or a log record.
type genAIEvent struct {
	name            string
	traceID, spanID string
	time            uint64
	attrs           map[string]any
	body            any
	where           string // "event 2 (gen_ai.user.message)" or "log record 4 (…)"
	line, col       int
}

// isGenAIEvent reports whether an event of that name is read here.
func isGenAIEvent(name string) bool {
	_, msg := messageEvents[name]
	return msg || name == detailsEvent || name == exceptionEvent || name == "exception"
}

// apply adds what event e says to span s.
func (s *span) apply(file string, e *genAIEvent) error {
	switch {
	case e.name == detailsEvent:
		for _, k := range detailsKeys {
			if v, ok := e.attrs[k]; ok && v != nil {
				if _, has := s.attrs[k]; !has {
					s.attrs[k] = v
				}
			}
		}
	case e.name == exceptionEvent || e.name == "exception":
		s.failed = true
		msg := textOf(e.attrs["exception.message"])
		if typ := textOf(e.attrs["exception.type"]); typ != "" {
			msg = strings.TrimSuffix(typ+": "+msg, ": ")
		}
		if msg != "" {
			s.errText = msg
		}
	default:
		m, err := eventMessage(e)
		if err != nil {
			return s.errf(file, "%s: %v", e.where, err)
		}
		if e.name == "gen_ai.choice" {
			s.eventOut = append(s.eventOut, m)
		} else {
			s.eventIn = append(s.eventIn, m)
		}
	}
	return nil
}

// eventMessage reads the message of a deprecated per-message event: its body, else its
// attributes, as an OpenAI chat message of the event's role (chatmessage.go).
func eventMessage(e *genAIEvent) (Message, error) {
	fields, _ := e.body.(map[string]any)
	if fields == nil {
		fields = e.attrs
	}
	m := make(map[string]any, len(fields)+2)
	for k, v := range fields {
		m[k] = v
	}
	if e.name == "gen_ai.choice" {
		inner, _ := m["message"].(map[string]any)
		m = make(map[string]any, len(inner)+1)
		for k, v := range inner {
			m[k] = v
		}
	}
	if _, ok := m["role"]; !ok || e.name != "gen_ai.choice" {
		m["role"] = messageEvents[e.name]
	}
	if e.name == "gen_ai.tool.message" {
		if _, ok := m["tool_call_id"]; !ok {
			m["tool_call_id"] = m["id"]
		}
	}
	raw, err := json.Marshal(jsonSafe(m))
	if err != nil {
		return Message{}, err
	}
	msg, p := chatMessageOf(raw)
	if p != nil {
		return Message{}, fmt.Errorf("%s", strings.TrimPrefix(fmt.Sprintf("%s: %s", pathString(p.at), p.msg), ": "))
	}
	return msg, nil
}

// attachEvents gives each span the GenAI events of log records naming it, and makes a span
// of the records that name no span of the file, one per spanId, at the time of its first.
func attachEvents(file string, spans []*span, events []*genAIEvent) ([]*span, error) {
	type key struct{ trace, span string }
	byID := make(map[key]*span, len(spans))
	for _, s := range spans {
		if s.spanID != "" {
			byID[key{s.traceID, s.spanID}] = s
		}
	}
	for _, e := range events {
		k := key{e.traceID, e.spanID}
		s := byID[k]
		if s == nil || e.spanID == "" {
			s = &span{index: len(spans), line: e.line, col: e.col, traceID: e.traceID, spanID: e.spanID,
				name: e.name, start: e.time, attrs: map[string]any{}}
			spans = append(spans, s)
			if e.spanID != "" {
				byID[k] = s
			}
		}
		if err := s.apply(file, e); err != nil {
			return nil, err
		}
	}
	return spans, nil
}

// logEvent reads log record n as a GenAI event (ok), named by its eventName or event.name.
func logEvent(raw *otlpLogRecord, n, line, col int) (e *genAIEvent, ok bool, err error) {
	name := raw.EventName
	if name == "" {
		for _, kv := range raw.Attributes {
			if kv.Key == "event.name" && kv.Value.StringValue != nil {
				name = *kv.Value.StringValue
			}
		}
	}
	if !isGenAIEvent(name) || raw.TraceID == "" {
		return nil, false, nil
	}
	e = &genAIEvent{name: name, traceID: raw.TraceID, spanID: raw.SpanID, where: fmt.Sprintf("log record %d (%s)", n, name), line: line, col: col}
	if e.time, err = unixNano(raw.TimeUnixNano); err != nil {
		return nil, false, fmt.Errorf("%s: timeUnixNano %v", e.where, err)
	}
	if e.time == 0 {
		if e.time, err = unixNano(raw.ObservedTimeUnixNano); err != nil {
			return nil, false, fmt.Errorf("%s: observedTimeUnixNano %v", e.where, err)
		}
	}
	if e.attrs, err = attrMap(raw.Attributes); err != nil {
		return nil, false, fmt.Errorf("%s: %v", e.where, err)
	}
	if e.body, err = raw.Body.toGo(0); err != nil {
		return nil, false, fmt.Errorf("%s: body: %v", e.where, err)
	}
	return e, true, nil
}

// systemInstructions reads gen_ai.system_instructions, a list of parts (text parts joined),
// as the system message the input starts with; ok is false when the span has none.
func systemInstructions(file string, s *span) (Message, bool, error) {
	v, ok := s.attrs["gen_ai.system_instructions"]
	if !ok || v == nil {
		return Message{}, false, nil
	}
	text := []byte(textOf(v))
	if str, isStr := v.(string); isStr {
		text = []byte(str)
	}
	if off, msg := checkJSON(text); off >= 0 {
		p := jsonscan.Position(text, off)
		return Message{}, false, s.attrErr(file, "gen_ai.system_instructions", "invalid JSON at line %d, column %d of its text: %s", p.Line, p.Col, msg)
	}
	var parts []genAIPart
	if err := json.Unmarshal(text, &parts); err != nil {
		return Message{}, false, s.attrErr(file, "gen_ai.system_instructions", "%s", embeddedJSONError(text, err))
	}
	var texts []string
	for _, p := range parts {
		if p.Type == "text" {
			texts = append(texts, rawText(p.Content))
		}
	}
	return Message{Role: "system", Content: strings.Join(texts, "\n")}, true, nil
}
