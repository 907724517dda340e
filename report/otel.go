package report

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/coherence"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/verdict"
	"github.com/agentgate/agentgate/internal/jsonreport"
)

// OTelSchemaURL is the OpenTelemetry semantic conventions release the events follow: 1.38.0,
// the first with the gen_ai.evaluation.result event, whose attributes have not changed since
// (docs/reference.md, the otel export; TestOTelSchemaNames holds the names to it).
const OTelSchemaURL = "https://opentelemetry.io/schemas/1.38.0"

// The evaluation names of the events, one per evaluator.
const (
	OTelReliability = "agentgate.reliability"
	OTelCoherence   = "agentgate.coherence"
)

// otelLineBytes bounds one line of the file: the collector's otlpjsonfile receiver reads a
// file line by line, each line one export request, through the file consumer whose longest
// line (max_log_size) is 1 MiB by default.
const otelLineBytes = 512 << 10

// otelTextRunes bounds the explanation of one event.
const otelTextRunes = 1000

// OTel writes r as OTLP/JSON logs (docs/design.md#findings-elsewhere): one gen_ai.evaluation.result event per trace
// (gen_ai.evaluation.name agentgate.reliability: the overall score, the verdict as its label,
// the strongest finding as the explanation) and one per coherence task (agentgate.coherence:
// the RCS), under a resource naming agentgate and its version and the pinned schema URL. The
// event of a trace read from OTLP spans carries that run's traceId and root spanId, as the
// conventions ask ("parented to the GenAI operation span being evaluated").
//
// The file is what the collector's file exporter writes and its otlpjsonfile receiver reads:
// one ExportLogsServiceRequest per line, a new line whenever one would pass 512 KiB, so that a
// suite of a million traces is streamed line by line rather than held whole. Events carry no
// timestamps (the report has no clock: equal inputs, equal bytes); a backend stamps them with
// the time it observes them. Untrusted text goes through encoding/json, flattened to one line
// and cut to 1,000 characters.
func OTel(w io.Writer, r *gate.Result) error {
	if r == nil {
		return errors.New("report: no result to write as OTLP/JSON")
	}
	o := &otelWriter{w: w, version: flatten(r.Source.Version)}
	if s := r.Reliability; s != nil {
		for i := range s.Traces {
			o.rec.traceEvent(&s.Traces[i])
			if err := o.add(); err != nil {
				return err
			}
		}
	}
	if s := r.Coherence; s != nil {
		for i := range s.Tasks {
			o.rec.taskEvent(&s.Tasks[i])
			if err := o.add(); err != nil {
				return err
			}
		}
	}
	return o.flush()
}

// otelRecord appends one OTLP LogRecord as OTLP/JSON writes it (enums as numbers, int64 as
// decimal strings, every string through jsonreport.AppendString): by hand rather than through
// encoding/json, so that a million events do not leave a million sets of reflection garbage.
type otelRecord struct{ b []byte }

// start opens a gen_ai.evaluation.result record of the given severity, parented to the span
// of the trace it evaluates when those ids are known (empty strings otherwise).
func (r *otelRecord) start(severity int, text, traceID, spanID string) {
	r.b = append(r.b[:0], `{"severityNumber":`...)
	r.b = strconv.AppendInt(r.b, int64(severity), 10)
	r.b = append(r.b, `,"severityText":"`...)
	r.b = append(r.b, text...)
	r.b = append(r.b, `","eventName":"gen_ai.evaluation.result",`...)
	if traceID != "" {
		r.b = append(r.b, `"traceId":"`...)
		r.b = append(r.b, traceID...)
		r.b = append(r.b, `",`...)
		if spanID != "" {
			r.b = append(r.b, `"spanId":"`...)
			r.b = append(r.b, spanID...)
			r.b = append(r.b, `",`...)
		}
	}
	r.b = append(r.b, `"attributes":[`...)
}

// otlpID returns id in lower case when it is a valid OTLP/JSON id of n hex digits (32 for a
// trace, 16 for a span) and not all zeros, which OTLP reserves for "no id"; "" otherwise, so
// that a malformed id in an input file never makes the export unreadable.
func otlpID(id string, n int) string {
	if len(id) != n || strings.Trim(id, "0") == "" {
		return ""
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return ""
		}
	}
	return strings.ToLower(id)
}

// key opens an attribute.
func (r *otelRecord) key(k string) {
	if r.b[len(r.b)-1] != '[' {
		r.b = append(r.b, ',')
	}
	r.b = append(r.b, `{"key":`...)
	r.b = jsonreport.AppendString(r.b, k)
	r.b = append(r.b, `,"value":{`...)
}

// str adds a string attribute; untrusted text is flattened to one line and cut first.
func (r *otelRecord) str(k, v string) {
	r.key(k)
	r.b = append(r.b, `"stringValue":`...)
	r.b = jsonreport.AppendString(r.b, v)
	r.b = append(r.b, "}}"...)
}

// int adds an int attribute.
func (r *otelRecord) int(k string, v int) {
	r.key(k)
	r.b = append(r.b, `"intValue":"`...)
	r.b = strconv.AppendInt(r.b, int64(v), 10)
	r.b = append(r.b, `"}}`...)
}

// double adds a double attribute; a NaN or infinite value (which JSON cannot hold as a number)
// is left out.
func (r *otelRecord) double(k string, v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return
	}
	r.key(k)
	r.b = append(r.b, `"doubleValue":`...)
	r.b = strconv.AppendFloat(r.b, v, 'g', -1, 64)
	r.b = append(r.b, "}}"...)
}

// end closes the record.
func (r *otelRecord) end() { r.b = append(r.b, "]}"...) }

// otelText is untrusted text for an attribute: one line, no control characters, cut.
func otelText(s string) string { return plain(s, otelTextRunes) }

// traceEvent is the reliability event of one trace.
func (r *otelRecord) traceEvent(t *reliability.Result) {
	var traceID, spanID string
	if t.Attempt != nil && t.OTLP != nil {
		if traceID = otlpID(t.OTLP.TraceID, 32); traceID != "" {
			spanID = otlpID(t.OTLP.SpanID, 16)
		}
	}
	switch t.Verdict {
	case verdict.Fail:
		r.start(17, "ERROR", traceID, spanID)
	case verdict.Warn:
		r.start(13, "WARN", traceID, spanID)
	default:
		r.start(9, "INFO", traceID, spanID)
	}
	r.str("gen_ai.evaluation.name", OTelReliability)
	r.double("gen_ai.evaluation.score.value", t.Score)
	r.str("gen_ai.evaluation.score.label", strings.ToLower(otelText(string(t.Verdict))))
	if signal, text, _ := finding(t, otelText); t.Verdict != verdict.Pass || text != "" {
		explanation := signal
		if text != "" {
			explanation += ": " + text
		}
		r.str("gen_ai.evaluation.explanation", otelText(explanation))
	}
	r.str("agentgate.trace.id", otelText(t.ID))
	if t.Attempt != nil && t.Task != "" {
		r.str("agentgate.task.id", otelText(t.Task))
		if t.Trial != nil {
			r.int("agentgate.trial", *t.Trial)
		}
	}
	r.location(t.File, t.Line)
	r.end()
}

// taskEvent is the coherence event of one task: its RCS, with the task's note as the
// explanation when it has one. A task has no verdict of its own (only the mean is gated), so
// the event has no label.
func (r *otelRecord) taskEvent(t *coherence.TaskResult) {
	r.start(9, "INFO", "", "")
	r.str("gen_ai.evaluation.name", OTelCoherence)
	r.double("gen_ai.evaluation.score.value", t.RCS)
	if t.Note != "" {
		r.str("gen_ai.evaluation.explanation", otelText(t.Note))
	}
	r.str("agentgate.task.id", otelText(t.ID))
	r.location(t.File, t.Line)
	r.end()
}

// location adds the record's file and line.
func (r *otelRecord) location(file string, line int) {
	if file != "" {
		r.str("agentgate.record.file", otelText(file))
	}
	if line > 0 {
		r.int("agentgate.record.line", line)
	}
}

// otelWriter writes records into lines of at most otelLineBytes, each a whole export request.
type otelWriter struct {
	w       io.Writer
	version string
	line    []byte // the records of the current line, comma-separated
	rec     otelRecord
	n       int // records in line
}

// add puts the record just built into the current line, writing the line first when the
// record would make it too long.
func (o *otelWriter) add() error {
	if o.n > 0 && len(o.line)+1+len(o.rec.b) > otelLineBytes {
		if err := o.flush(); err != nil {
			return err
		}
	}
	if o.n > 0 {
		o.line = append(o.line, ',')
	}
	o.line = append(o.line, o.rec.b...)
	o.n++
	return nil
}

// flush writes the current line, if it holds a record, as one export request.
func (o *otelWriter) flush() error {
	if o.n == 0 {
		return nil
	}
	head := []byte(`{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"agentgate"}}`)
	if o.version != "" {
		head = append(head, `,{"key":"service.version","value":{"stringValue":`...)
		head = jsonreport.AppendString(head, o.version)
		head = append(head, "}}"...)
	}
	head = append(head, `]},"scopeLogs":[{"scope":{"name":"agentgate"`...)
	if o.version != "" {
		head = append(head, `,"version":`...)
		head = jsonreport.AppendString(head, o.version)
	}
	head = append(head, `},"logRecords":[`...)
	tail := fmt.Appendf(nil, `],"schemaUrl":%q}],"schemaUrl":%q}]}`+"\n", OTelSchemaURL, OTelSchemaURL)
	for _, b := range [][]byte{head, o.line, tail} {
		if _, err := o.w.Write(b); err != nil {
			return fmt.Errorf("report: writing OTLP/JSON: %w", err)
		}
	}
	o.line = o.line[:0]
	o.n = 0
	return nil
}
