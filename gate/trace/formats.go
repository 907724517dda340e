package trace

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/internal/jsonscan"
)

// Format is how a trace file is laid out, decided by its content: each is one row of the
// registry (registry.go; docs/trace-formats.md, "The registry of formats").
type Format int

const (
	// FormatRecords is a file of trace records (RS-1, OpenAI, Anthropic), read by Each.
	FormatRecords Format = iota
	// FormatOTLP is OpenTelemetry spans as OTLP/JSON exports, read by EachOTLP.
	FormatOTLP
	// FormatInspectJSON is an Inspect AI eval log written as one JSON object, read by
	// EachInspect.
	FormatInspectJSON
	// FormatInspectEval is an Inspect AI .eval log (a zip archive), read by EachInspect.
	FormatInspectEval
	// FormatTau2 is a tau2-bench results file, read by EachTau2.
	FormatTau2
	// FormatOpenHands is OpenHands evaluation output (output.jsonl) or an LLM completion log,
	// read by EachOpenHands.
	FormatOpenHands
	// FormatAgentDojo is an AgentDojo result file, read by EachAgentDojo.
	FormatAgentDojo
	// FormatMessageList is one run's message list on its own (a JSON array of messages, as
	// OpenHands' SWE-bench submission writes trajs/<instance_id>.json), read by
	// EachMessageList.
	FormatMessageList
	// FormatLangSmith is a LangSmith run export (runs as the SDK's Run schema writes them),
	// read by readLangSmith.
	FormatLangSmith
	// FormatLangfuse is a Langfuse export (a trace with its observations, or the blob
	// export's rows), read by readLangfuse.
	FormatLangfuse
	// FormatOpenAIAgents is the OpenAI Agents SDK's trace export, read by readOpenAIAgents.
	FormatOpenAIAgents
	// FormatPhoenix is Phoenix's span JSON, read by readPhoenix.
	FormatPhoenix
	// FormatLangSmithFeedback is a file of LangSmith feedback records, read with the runs
	// beside it (readLangSmith).
	FormatLangSmithFeedback
	// FormatOpenHandsResolver is OpenHands' issue resolver output (output/output.jsonl), read
	// by readOpenHandsResolver.
	FormatOpenHandsResolver
	// NumFormats is how many formats there are.
	NumFormats = iota
)

// Limits on the formats read whole rather than streamed: they bound the memory that one
// crafted file can take.
const (
	// maxDocDepth is how deeply a document of OTLP or Inspect, or JSON held inside an OTLP
	// attribute, may nest (encoding/json alone allows 10000 levels).
	maxDocDepth = 512
	// maxValueDepth is how deeply OTLP attribute values (arrayValue, kvlistValue) may nest.
	maxValueDepth = 64
	// sniffBytes is how much of a file Sniff reads to tell its format.
	sniffBytes = 64 << 10
)

// maxDocument is the most bytes a file of OTLP or an Inspect .json log, or one member of a
// .eval archive, may hold after decompression (a variable so that tests can lower it).
var maxDocument int64 = 256 << 20

// maxItems is the most messages, tool calls, tool results, content blocks and ids one trace
// may hold together, whatever its format. Each costs a reader a fixed size however few bytes
// it takes in the file (`{}` is three), so without a count a record of empty objects took
// tens of times its size (a 32 MB record of `{}` tool calls: 6 GB and 100 s of CPU); a real
// run holds a few thousand. A variable so that tests can lower it.
var maxItems = 1 << 20

// tooManyItems is the message of the error placed at the item that passes maxItems.
func tooManyItems() string {
	return fmt.Sprintf("more than %d messages, tool calls, tool results and content blocks in one trace, the most a trace may hold", maxItems)
}

// Sniff tells the format of the trace file at path from its first bytes (sniffBytes of them,
// through gzip's decompression, which input.Open sees to): the first row of the registry that
// recognises them (head.go), else records, as is a file whose first bytes do not tell. It
// reads little and allocates little: the gate asks it of every file.
func Sniff(path string) (Format, error) {
	kind, err := input.KindOf(path)
	if err != nil {
		return 0, err
	}
	if kind == input.ZipArchive {
		return FormatInspectEval, nil
	}
	f, err := input.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	bp := sniffBuffers.Get().(*[]byte)
	defer sniffBuffers.Put(bp)
	head := *bp
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return 0, &input.Error{File: path, Msg: fmt.Sprintf("cannot read: %v", err)}
	}
	return sniff(head[:n]), nil
}

// Options are the settings that change how trace files are read.
type Options struct {
	// OutcomeScorer names the Inspect scorer whose score is a sample's outcome (docs/design.md#outcomes,
	// setting outcome-scorer); empty means the first scorer of each sample.
	OutcomeScorer string
	// OutcomeField is the member of a trace record (a dotted path, as metadata.correct) that
	// holds the run's own success, read before the members docs/design.md#outcomes names (setting
	// outcome-field, docs/design.md#harness-folders); empty means none.
	OutcomeField string
}

// EachFile streams the traces of the file at path to fn, whatever its format (Sniff): trace
// records, OTLP spans, an Inspect log or a tau2-bench results file. Problems with the input
// are *input.Error values.
func EachFile(ctx context.Context, path string, fn func(*Trace) error) error {
	return EachFileWith(ctx, path, Options{}, fn)
}

// EachFileWith is EachFile with options: the file is recognised, then read by its format's
// reader (Read).
func EachFileWith(ctx context.Context, path string, o Options, fn func(*Trace) error) error {
	format, err := Sniff(path)
	if err != nil {
		return err
	}
	return Read(ctx, File{Path: path, Format: format}, o, fn)
}

// readDocument reads a whole file (decompressed if gzip, without a UTF-8 BOM) up to
// maxDocument bytes.
func readDocument(path string) ([]byte, error) {
	f, err := input.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := readBounded(f, maxDocument) // decompressed, bounded, without a BOM: input.Open sees to all three
	if err != nil {
		return nil, docError(path, err)
	}
	return data, nil
}

// docError is the *input.Error for a document (or archive member) that could not be read:
// an input over its limit as the input.LimitedReader said it, anything else named here.
func docError(name string, err error) *input.Error {
	var e *input.Error
	if errors.As(err, &e) {
		return e
	}
	return &input.Error{File: name, Msg: err.Error()}
}

// errTooLarge says a document passed maxDocument.
func errTooLarge() error {
	return fmt.Errorf("larger than %d MiB after decompression: too large to read", maxDocument>>20)
}

// readBounded reads r to its end, failing once it passes limit bytes.
func readBounded(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read: %w", err)
	}
	if int64(len(data)) > limit {
		return nil, errTooLarge()
	}
	return data, nil
}

// doc is one JSON document read whole, with what is needed to point at a byte of it.
type doc struct {
	rec input.Record // the document as a record starting at line 1 (for ErrorAt)
	dec *json.Decoder
	// seen is the position of byte seenAt, where pos last stopped
	seen   jsonscan.Pos
	seenAt int
}

// pos is the position of byte offset off. Records are met in order, so it counts on from
// where it last stopped: finding the line of every record costs one pass over the document,
// not one from its start per record.
func (d *doc) pos(off int) jsonscan.Pos {
	off = min(max(off, 0), len(d.rec.Data))
	if off < d.seenAt || d.seenAt == 0 {
		d.seen, d.seenAt = jsonscan.Start, 0
	}
	d.seen.Advance(d.rec.Data[d.seenAt:off])
	d.seenAt = off
	return d.seen
}

func newDoc(file string, data []byte) *doc {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return &doc{rec: input.Record{File: file, Line: 1, Col: 1, Data: data}, dec: dec}
}

// errAt is an *input.Error at byte offset off of the document.
func (d *doc) errAt(off int, format string, args ...any) *input.Error {
	return d.rec.ErrorAt(off, format, args...)
}

// next returns the offset at which the next value starts (after white space, a comma or a
// colon), for errors and lines.
func (d *doc) next() int { return jsonscan.SkipSeparators(d.rec.Data, int(d.dec.InputOffset())) }

// jsonErr turns an error of encoding/json into an *input.Error; base is the offset its error
// offsets count from (0 for Token's, which count from the start of the input). Syntax errors
// never get here: checkDoc has found them before.
func (d *doc) jsonErr(err error, base int) error {
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &te):
		at, msg := input.TypeError(d.rec.Data, base+int(te.Offset), te)
		return d.errAt(at, "%s", msg)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return d.errAt(len(d.rec.Data), "invalid JSON: unexpected end of input")
	}
	return d.errAt(base, "%v", err)
}

// object reads an object, calling fn with each key and the offset of its value; fn must read
// the value (with value or skip).
func (d *doc) object(what string, fn func(key string, at int) error) error {
	at := d.next()
	tok, err := d.dec.Token()
	if err != nil {
		return d.jsonErr(err, 0)
	}
	if tok != json.Delim('{') {
		return d.errAt(at, "%s: %s", what, jsonscan.Expected("an object", jsonscan.KindOfValue(d.rec.Data[at:])))
	}
	for d.dec.More() {
		tok, err := d.dec.Token()
		if err != nil {
			return d.jsonErr(err, 0)
		}
		key, _ := tok.(string)
		if err := fn(key, d.next()); err != nil {
			return err
		}
	}
	if _, err := d.dec.Token(); err != nil {
		return d.jsonErr(err, 0)
	}
	return nil
}

// array reads an array, calling fn with each element's index and offset; fn must read the
// element. A null is an empty array.
func (d *doc) array(what string, fn func(i, at int) error) error {
	at := d.next()
	tok, err := d.dec.Token()
	if err != nil {
		return d.jsonErr(err, 0)
	}
	if tok == nil {
		return nil
	}
	if tok != json.Delim('[') {
		return d.errAt(at, "%s: %s", what, jsonscan.Expected("an array", jsonscan.KindOfValue(d.rec.Data[at:])))
	}
	for i := 0; d.dec.More(); i++ {
		if err := fn(i, d.next()); err != nil {
			return err
		}
	}
	if _, err := d.dec.Token(); err != nil {
		return d.jsonErr(err, 0)
	}
	return nil
}

// value decodes the next value into v.
func (d *doc) value(v any) error {
	base := d.afterSeparator()
	if err := d.dec.Decode(v); err != nil {
		return d.jsonErr(err, base)
	}
	return nil
}

// afterSeparator is where the decoder's next value begins, white space included: after the
// comma or colon that comes first. encoding/json counts the offsets of type errors from there.
func (d *doc) afterSeparator() int {
	data := d.rec.Data
	i := int(d.dec.InputOffset())
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n') {
		i++
	}
	if i < len(data) && (data[i] == ',' || data[i] == ':') {
		return i + 1
	}
	return int(d.dec.InputOffset())
}

// skip reads past the next value.
func (d *doc) skip() error {
	var raw json.RawMessage
	return d.value(&raw)
}

// checkJSON checks data, one JSON value or several in a row (JSON Lines), with jsonscan before
// encoding/json decodes it: a syntax error is then jsonscan's, with its wording and position
// (encoding/json only ever sees valid JSON), and no value nests deeper than maxDocDepth levels.
// It returns the offset and jsonscan's message of the first problem, or -1.
func checkJSON(data []byte) (int, string) {
	for i := jsonscan.SkipSpace(data, 0); i < len(data); i = jsonscan.SkipSpace(data, i) {
		end, err := jsonscan.SkipMax(data, i, maxDocDepth)
		if e, ok := err.(*jsonscan.Error); ok {
			return e.Off, e.Msg
		}
		i = end
	}
	return -1, ""
}

// checkDoc is checkJSON for a whole file (or archive member), with the problem as an
// *input.Error.
func checkDoc(file string, data []byte) error {
	if off, msg := checkJSON(data); off >= 0 {
		return input.Record{File: file, Line: 1, Col: 1, Data: data}.ErrorAt(off, "invalid JSON: %s", msg)
	}
	return nil
}
