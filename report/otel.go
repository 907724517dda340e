package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/coherence"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/verdict"
)

// OTelSchemaURL is the OpenTelemetry semantic conventions release the events follow: 1.38.0,
// the first with the gen_ai.evaluation.result event.
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

// OTel writes r as OTLP/JSON logs (SPEC §16): one gen_ai.evaluation.result event per trace
// (gen_ai.evaluation.name agentgate.reliability: the overall score, the verdict as its label,
// the strongest finding as the explanation) and one per coherence task (agentgate.coherence:
// the RCS), under a resource naming agentgate and its version and the pinned schema URL.
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
			if err := o.record(traceEvent(&s.Traces[i])); err != nil {
				return err
			}
		}
	}
	if s := r.Coherence; s != nil {
		for i := range s.Tasks {
			if err := o.record(taskEvent(&s.Tasks[i])); err != nil {
				return err
			}
		}
	}
	return o.flush()
}

// otelRecord is one OTLP LogRecord as OTLP/JSON writes it: enums as numbers, ids in hex.
type otelRecord struct {
	SeverityNumber int        `json:"severityNumber"`
	SeverityText   string     `json:"severityText"`
	EventName      string     `json:"eventName"`
	Attributes     []otelAttr `json:"attributes"`
}

// otelAttr is a KeyValue whose value is one AnyValue member: a string, a double, or an int
// (a decimal string in OTLP/JSON, as int64 is in the proto JSON mapping).
type otelAttr struct {
	Key   string    `json:"key"`
	Value otelValue `json:"value"`
}

type otelValue struct {
	String *string  `json:"stringValue,omitempty"`
	Double *float64 `json:"doubleValue,omitempty"`
	Int    *otelInt `json:"intValue,omitempty"`
}

// otelInt is an int64 written as a JSON string.
type otelInt int64

func (i otelInt) MarshalJSON() ([]byte, error) { return []byte(fmt.Sprintf(`"%d"`, int64(i))), nil }

func strAttr(k, v string) otelAttr { return otelAttr{Key: k, Value: otelValue{String: &v}} }

func intAttr(k string, v int) otelAttr {
	i := otelInt(v)
	return otelAttr{Key: k, Value: otelValue{Int: &i}}
}

// doubleAttr is a double attribute; a NaN or infinite value (which JSON cannot hold as a
// number) is left out.
func doubleAttr(k string, v float64) (otelAttr, bool) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return otelAttr{}, false
	}
	return otelAttr{Key: k, Value: otelValue{Double: &v}}, true
}

// otelText is untrusted text for an attribute: one line, no control characters, cut.
func otelText(s string) string { return plain(s, otelTextRunes) }

// traceEvent is the reliability event of one trace.
func traceEvent(t *reliability.Result) otelRecord {
	rec := otelRecord{EventName: "gen_ai.evaluation.result"}
	switch t.Verdict {
	case verdict.Fail:
		rec.SeverityNumber, rec.SeverityText = 17, "ERROR"
	case verdict.Warn:
		rec.SeverityNumber, rec.SeverityText = 13, "WARN"
	default:
		rec.SeverityNumber, rec.SeverityText = 9, "INFO"
	}
	a := []otelAttr{strAttr("gen_ai.evaluation.name", OTelReliability)}
	if d, ok := doubleAttr("gen_ai.evaluation.score.value", t.Score); ok {
		a = append(a, d)
	}
	a = append(a, strAttr("gen_ai.evaluation.score.label", strings.ToLower(otelText(string(t.Verdict)))))
	if signal, text, _ := finding(t, otelText); t.Verdict != verdict.Pass || text != "" {
		explanation := signal
		if text != "" {
			explanation += ": " + text
		}
		a = append(a, strAttr("gen_ai.evaluation.explanation", otelText(explanation)))
	}
	a = append(a, strAttr("agentgate.trace.id", otelText(t.ID)))
	if t.Attempt != nil && t.Task != "" {
		a = append(a, strAttr("agentgate.task.id", otelText(t.Task)))
		if t.Trial != nil {
			a = append(a, intAttr("agentgate.trial", *t.Trial))
		}
	}
	a = append(a, otelLocation(t.File, t.Line)...)
	rec.Attributes = a
	return rec
}

// taskEvent is the coherence event of one task: its RCS, with the task's note as the
// explanation when it has one. A task has no verdict of its own (only the mean is gated), so
// the event has no label.
func taskEvent(t *coherence.TaskResult) otelRecord {
	rec := otelRecord{EventName: "gen_ai.evaluation.result", SeverityNumber: 9, SeverityText: "INFO"}
	a := []otelAttr{strAttr("gen_ai.evaluation.name", OTelCoherence)}
	if d, ok := doubleAttr("gen_ai.evaluation.score.value", t.RCS); ok {
		a = append(a, d)
	}
	if t.Note != "" {
		a = append(a, strAttr("gen_ai.evaluation.explanation", otelText(t.Note)))
	}
	a = append(a, strAttr("agentgate.task.id", otelText(t.ID)))
	a = append(a, otelLocation(t.File, t.Line)...)
	rec.Attributes = a
	return rec
}

// otelLocation is the record's file and line as attributes.
func otelLocation(file string, line int) []otelAttr {
	var a []otelAttr
	if file != "" {
		a = append(a, strAttr("agentgate.record.file", otelText(file)))
	}
	if line > 0 {
		a = append(a, intAttr("agentgate.record.line", line))
	}
	return a
}

// otelWriter writes records into lines of at most otelLineBytes, each a whole export request.
type otelWriter struct {
	w       io.Writer
	version string
	line    bytes.Buffer // the records of the current line, comma-separated
	rec     bytes.Buffer
	n       int // records in line
}

func (o *otelWriter) record(rec otelRecord) error {
	o.rec.Reset()
	if err := encodeIndented(&o.rec, rec, ""); err != nil {
		return fmt.Errorf("report: writing OTLP/JSON: %w", err)
	}
	if o.n > 0 && o.line.Len()+1+o.rec.Len() > otelLineBytes {
		if err := o.flush(); err != nil {
			return err
		}
	}
	if o.n > 0 {
		o.line.WriteByte(',')
	}
	o.line.Write(o.rec.Bytes())
	o.n++
	return nil
}

// flush writes the current line, if it holds a record, as one export request.
func (o *otelWriter) flush() error {
	if o.n == 0 {
		return nil
	}
	var b bytes.Buffer
	b.Grow(o.line.Len() + 512)
	b.WriteString(`{"resourceLogs":[{"resource":{"attributes":[`)
	enc := func(v any) {
		encodeIndented(&b, v, "") // attributes and scopes of strings always encode
	}
	enc(strAttr("service.name", "agentgate"))
	if o.version != "" {
		b.WriteByte(',')
		enc(strAttr("service.version", o.version))
	}
	b.WriteString(`]},"scopeLogs":[{"scope":{"name":"agentgate"`)
	if o.version != "" {
		b.WriteString(`,"version":`)
		enc(o.version)
	}
	b.WriteString(`},"logRecords":[`)
	b.Write(o.line.Bytes())
	fmt.Fprintf(&b, `],"schemaUrl":%q}],"schemaUrl":%q}]}`+"\n", OTelSchemaURL, OTelSchemaURL)
	o.line.Reset()
	o.n = 0
	if _, err := o.w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("report: writing OTLP/JSON: %w", err)
	}
	return nil
}
