package trace

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/internal/jsonscan"
)

// Inspect AI eval logs (docs/design.md#file-layouts-and-formats): a .json log holds the whole log with its samples[]; a
// .eval log is a zip of header.json and samples/<id>_epoch_<n>.json, members deflated or,
// as Inspect writes them since April 2026, compressed with zstd (zip method 93). Every
// sample and epoch is one trace, id "<sample id>#<epoch>"; the epoch is its trial (docs/design.md#repeated-trials).

// zipMethodZstd is the zip compression method number of zstd.
const zipMethodZstd = 93

// maxEvalMembers is how many members a .eval archive may list.
const maxEvalMembers = 1 << 20

type inspectSample struct {
	ID          json.RawMessage               `json:"id"`
	Epoch       json.RawMessage               `json:"epoch"`
	Messages    []inspectMessage              `json:"messages"`
	ModelUsage  map[string]*inspectModelUsage `json:"model_usage"`
	Attachments map[string]string             `json:"attachments"`
	Events      []inspectEvent                `json:"events"` // read when Messages lack the model's turns (inspect_events.go)

	att   attachments // how its attachment references are expanded
	model string      // the eval's own model, eval.model: the agent's, whose usage is the run's
}

// attachments resolves the attachment:// references of one sample without copying the
// attachments (docs/security.md, "Attachments"): content that is an attachment shares its
// memory, and arguments that name one keep the reference, their call pointing at the
// attachments the sample's calls name, held once. Two counts bound what the references cost.
// What the sample holds, its own bytes (each attachment once, each call's own text) and the
// copies a reference makes (the arguments of a call Inspect could not parse, expanded; content
// of several parts, joined), counts toward the sample's size (input.MaxRecord, as a record)
// and the input's limits (its input.LimitedReader: max-input-bytes and the check on what a
// compressed input expands to). What every reference stands for, read by the evaluator where
// it stands, counts toward the input's reading budget (referenceReading): a log of a few KB
// that names a 1 MiB attachment millions of times is an error at the reference that passes
// it, not hours of reading.
type attachments struct {
	limit  *input.LimitedReader // the input's count of what it holds; nil: none kept (tests)
	read   *referenceReading    // the input's count of what its references stand for
	held   int64                // the sample's bytes, plus the copies its references made
	quoted map[string]int       // attachment key → its length as a JSON string
	named  *Attachments         // the attachments the sample's calls name
	args   map[string]expansion // arguments of a call with a parse_error → the same, expanded
}

// expansion is the arguments of a call with a parse_error with their references expanded,
// and what those references stand for (the bytes they add to the reading budget each time
// the same arguments come again).
type expansion struct {
	out  []byte
	read int64
}

// maxReferenced is the most text the attachment:// references of one input may stand for
// together, counted at every reference (an attachment named 240 times counts 240 times):
// the evaluator reads each where it stands. It is what an input may hold by default, four
// times a record: the texts are held once, and it bounds work, not memory (docs/security.md,
// "Attachments").
const maxReferenced = 1 << 30

// referenceReading counts what the attachment:// references of one input stand for, toward
// maxReferenced.
type referenceReading struct{ n int64 }

// errSampleTooLarge says what a sample holds, with the copies its references made, passes
// input.MaxRecord.
type errSampleTooLarge struct{}

func (e errSampleTooLarge) Error() string {
	return fmt.Sprintf("the sample, with the copies its attachment:// references make, holds more than %s, the most a record may hold", input.SizeText(int64(input.MaxRecord)))
}

// errReadingTooLong says the references of an input stand for more than maxReferenced.
type errReadingTooLong struct{}

func (errReadingTooLong) Error() string {
	return fmt.Sprintf("the input's attachment:// references stand for more than %s of text, the most agentgate reads through the references of one input", input.SizeText(maxReferenced))
}

// hold counts n more bytes the sample holds: a copy a reference made.
func (a *attachments) hold(n int64) error {
	if n <= 0 {
		return nil
	}
	a.held += n
	if a.held > int64(input.MaxRecord) {
		return errSampleTooLarge{}
	}
	if a.limit != nil {
		return a.limit.Add(n)
	}
	return nil
}

// reading counts n more bytes that a reference stands for.
func (a *attachments) reading(n int64) error {
	if n > maxReferenced-a.read.n {
		a.read.n = maxReferenced + 1
		return errReadingTooLong{}
	}
	a.read.n += n
	return nil
}

// inspectMessageItems are the lists of a message that decoding turns into a value per element:
// its tool calls and content parts (see itemShape).
var inspectMessageItems = itemShape{{key: "tool_calls", list: true}, {key: "content", list: true}}

// inspectSampleItems are those of a sample: its messages; its events, and of each the choices
// of a model event's output (each choice's message) and a tool event's result parts, which
// turnsFromEvents decodes; and the entries of its maps, attachments and model_usage. The
// conversation a model event's input repeats is not decoded, and not counted. presize makes
// the first two lists at their sizes (itemSizes), by the index of their member here.
var inspectSampleItems = itemShape{
	{key: "messages", list: true, shape: inspectMessageItems},
	{key: "events", list: true, shape: itemShape{
		{key: "output", shape: itemShape{{key: "choices", list: true, shape: itemShape{{key: "message", shape: inspectMessageItems}}}}},
		{key: "result", list: true},
	}},
	{key: "attachments", dict: true},
	{key: "model_usage", dict: true},
}

type inspectMessage struct {
	Role       string            `json:"role"`
	Content    json.RawMessage   `json:"content"` // a string or content parts
	ToolCalls  []inspectToolCall `json:"tool_calls"`
	ToolCallID *string           `json:"tool_call_id"`
	Function   *string           `json:"function"`
	Error      *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

type inspectToolCall struct {
	ID         *string         `json:"id"`
	Function   string          `json:"function"`
	Arguments  json.RawMessage `json:"arguments"`
	ParseError *string         `json:"parse_error"`
}

type inspectPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type inspectModelUsage struct {
	InputTokens  *int64 `json:"input_tokens"`
	OutputTokens *int64 `json:"output_tokens"`
	TotalTokens  *int64 `json:"total_tokens"`
	// the cache tokens Inspect's total_tokens adds, which are not counted
	CacheWrite *int64 `json:"input_tokens_cache_write"`
	CacheRead  *int64 `json:"input_tokens_cache_read"`
}

// EachInspect streams the traces of an Inspect log at path (.json or .eval, told by content)
// to fn, one per sample and epoch, in the log's order; o.OutcomeScorer picks the score that
// is each sample's outcome.
func EachInspect(ctx context.Context, path string, o Options, fn func(*Trace) error) error {
	kind, err := input.KindOf(path)
	if err != nil {
		return err
	}
	if kind == input.ZipArchive {
		f, err := input.OpenRegular(path)
		if err != nil {
			return err
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return &input.Error{File: path, Msg: fmt.Sprintf("cannot read: %v", err)}
		}
		return eachEval(ctx, path, f, st.Size(), o, fn)
	}
	data, err := readDocument(path)
	if err != nil {
		return err
	}
	return eachInspectJSON(ctx, path, data, o, fn)
}

// eachInspectJSON reads a whole log written as JSON: its samples, each decoded in turn.
func eachInspectJSON(ctx context.Context, path string, data []byte, o Options, fn func(*Trace) error) error {
	if err := checkDoc(path, data); err != nil {
		return err
	}
	d := newDoc(path, data)
	n := 0
	task := docString(data, "eval", "task") // the suite of the samples' ids (docs/design.md#run-identity)
	model := docString(data, "eval", "model")
	limit := inspectLimit(path, len(data))
	read := &referenceReading{} // the samples' references together
	err := d.object("an Inspect log", func(key string, _ int) error {
		if key != "samples" {
			return d.skip()
		}
		return d.array("samples", func(i, at int) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			over, sizes := itemsOver(data, at, false, inspectSampleItems)
			if over >= 0 {
				return d.errAt(over, "samples[%d].%s: %s", i, jsonscan.PathAt(data[at:], over-at), tooManyItems())
			}
			s := inspectSample{att: attachments{limit: limit, read: read}, model: model}
			s.presize(&sizes)
			if err := d.value(&s); err != nil {
				return err
			}
			s.att.held = d.dec.InputOffset() - int64(at)
			t, err := s.trace(path, d.pos(at).Line, func(format string, args ...any) error {
				return d.errAt(at, "samples[%d]: %s", i, fmt.Sprintf(format, args...))
			})
			if err != nil {
				return err
			}
			t.Suite, t.Agent = task, model
			sample := data[at:d.dec.InputOffset()]
			var off int
			var problem string
			if t.Outcome, off, problem = inspectOutcome(sample, o.OutcomeScorer); problem != "" {
				return d.errAt(at+off, "samples[%d].%s", i, problem)
			}
			n++
			return fn(t)
		})
	})
	if err != nil {
		return err
	}
	if d.next() < len(data) {
		return d.errAt(d.next(), "invalid JSON: more than one value in an Inspect log")
	}
	if n == 0 {
		return &SideFileError{Why: noSamples, Err: &input.Error{File: path, Msg: "the Inspect log holds no samples (was it written with log_samples off?)"}}
	}
	return nil
}

var zstdDecoders = sync.Pool{New: func() any {
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true), zstd.WithDecoderMaxMemory(uint64(maxDocument)+1))
	if err != nil {
		return err
	}
	return d
}}

// zstdDecompressor reads a zip member compressed with zstd.
func zstdDecompressor(r io.Reader) io.ReadCloser {
	switch d := zstdDecoders.Get().(type) {
	case *zstd.Decoder:
		if err := d.Reset(r); err != nil {
			zstdDecoders.Put(d)
			return io.NopCloser(errReader{err})
		}
		return &pooledZstd{d}
	case error:
		return io.NopCloser(errReader{d})
	}
	return io.NopCloser(errReader{fmt.Errorf("no zstd decoder")})
}

type pooledZstd struct{ d *zstd.Decoder }

func (p *pooledZstd) Read(b []byte) (int, error) {
	if p.d == nil {
		return 0, io.ErrClosedPipe
	}
	return p.d.Read(b)
}

func (p *pooledZstd) Close() error {
	if p.d != nil {
		p.d.Reset(nil)
		zstdDecoders.Put(p.d)
		p.d = nil
	}
	return nil
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// eachEval reads a .eval archive: its samples/*.json members in archive order.
func eachEval(ctx context.Context, path string, f io.ReaderAt, size int64, o Options, fn func(*Trace) error) error {
	zr, err := zip.NewReader(f, size)
	if err != nil {
		return &input.Error{File: path, Msg: fmt.Sprintf("not a readable .eval (zip) archive: %v", err)}
	}
	zr.RegisterDecompressor(zipMethodZstd, zstdDecompressor)
	if len(zr.File) > maxEvalMembers {
		return &input.Error{File: path, Msg: fmt.Sprintf("the .eval archive lists %d members, more than %d", len(zr.File), maxEvalMembers)}
	}
	n := 0
	// the members read count toward the archive's limit, as one input; the ratio check holds
	// what they expand to against the archive's size
	limited := &input.LimitedReader{Name: path, Packed: func() int64 { return size }}
	read := &referenceReading{} // the samples' references together
	task, model, err := evalTask(zr, limited)
	if err != nil {
		return docError(path, err)
	}
	for _, zf := range zr.File {
		if !strings.HasPrefix(zf.Name, "samples/") || !strings.HasSuffix(zf.Name, ".json") {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		member := path + "[" + zf.Name + "]"
		data, err := readMember(zf, limited)
		if err != nil {
			return docError(member, err)
		}
		if err := checkDoc(member, data); err != nil {
			return err
		}
		d := newDoc(member, data)
		over, sizes := itemsOver(data, 0, false, inspectSampleItems)
		if over >= 0 {
			return d.errAt(over, "%s: %s", jsonscan.PathAt(data, over), tooManyItems())
		}
		s := inspectSample{att: attachments{limit: limited, read: read, held: int64(len(data))}, model: model}
		s.presize(&sizes)
		if err := d.value(&s); err != nil {
			return err
		}
		if d.next() < len(data) {
			return d.errAt(d.next(), "invalid JSON: more than one value in a sample")
		}
		t, err := s.trace(member, 1, func(format string, args ...any) error {
			return d.errAt(0, format, args...)
		})
		if err != nil {
			return err
		}
		t.Suite, t.Agent = task, model
		var off int
		var problem string
		if t.Outcome, off, problem = inspectOutcome(data, o.OutcomeScorer); problem != "" {
			return d.errAt(off, "%s", problem)
		}
		n++
		if err := fn(t); err != nil {
			return err
		}
	}
	if n == 0 {
		return &SideFileError{Why: noSamples, Err: &input.Error{File: path, Msg: "the .eval archive holds no samples/*.json member"}}
	}
	return nil
}

// evalTask is the eval's task in a .eval archive, the suite of its samples' ids (docs/design.md#run-identity),
// and its model, the agent: eval.task and eval.model of header.json, else of
// _journal/start.json, which Inspect writes first; "" when neither names one.
func evalTask(zr *zip.Reader, limited *input.LimitedReader) (task, model string, err error) {
	for _, name := range [...]string{"header.json", "_journal/start.json"} {
		for _, zf := range zr.File {
			if zf.Name != name {
				continue
			}
			data, err := readMember(zf, limited)
			if err != nil {
				return "", "", err
			}
			if task := docString(data, "eval", "task"); task != "" {
				return task, docString(data, "eval", "model"), nil
			}
		}
	}
	return "", "", nil
}

// readMember reads one zip member through limited (the archive's input.LimitedReader), at most
// maxDocument bytes after decompression whatever its header claims: a zip bomb is an error,
// not memory growth.
func readMember(zf *zip.File, limited *input.LimitedReader) ([]byte, error) {
	if zf.UncompressedSize64 > uint64(maxDocument) {
		return nil, errTooLarge()
	}
	if zf.Method != zip.Store && zf.Method != zip.Deflate && zf.Method != zipMethodZstd {
		return nil, fmt.Errorf("compressed with zip method %d: only stored, deflate and zstd (93) members are read", zf.Method)
	}
	rc, err := zf.Open()
	if err != nil {
		return nil, fmt.Errorf("cannot open the member: %v", err)
	}
	defer rc.Close()
	limited.R = rc
	return readBounded(limited, maxDocument)
}

// presize makes the sample's messages and events lists at the sizes itemsOver found, for
// decoding to fill (see itemSizes).
func (s *inspectSample) presize(sizes *itemSizes) {
	if n, ok := sizes.of(0); ok { // messages
		s.Messages = make([]inspectMessage, 0, n)
	}
	if n, ok := sizes.of(1); ok { // events
		s.Events = make([]inspectEvent, 0, n)
	}
}

// trace turns a sample into a Trace; fail makes an error at the sample.
func (s *inspectSample) trace(file string, line int, fail func(format string, args ...any) error) (*Trace, error) {
	id, ok, problem := idValue(rawRef(s.ID))
	if problem != "" {
		return nil, fail("id %s", problem)
	}
	if !ok || id == "" {
		return nil, fail("a sample without an id")
	}
	t := &Trace{ID: id, File: file, Line: line, Shape: ShapeInspect, Task: id}
	if epoch, ok, problem := idValue(rawRef(s.Epoch)); problem != "" {
		return nil, fail("epoch %s", problem)
	} else if ok {
		n, err := parseTrial(epoch)
		if err != nil {
			return nil, fail("epoch must be a non-negative integer, got %s", epoch)
		}
		t.ID += "#" + epoch
		t.Trial, t.HasTrial = n, true
	}
	t.Messages = make([]Message, len(s.Messages))
	for i := range s.Messages {
		if err := s.message(&s.Messages[i], &t.Messages[i]); err != nil {
			var limit *input.Error
			if errors.As(err, &limit) {
				return nil, limit // the input's limits, named for the file as a whole
			}
			return nil, fail("messages[%d]: %v", i, err)
		}
	}
	if len(s.Events) > 0 && s.lacksTurns() {
		var err error
		if t.Messages, err = s.turnsFromEvents(t.Messages); err != nil {
			return nil, fail("%v", err)
		}
	}
	t.RequiredParams = s.toolSchemas()
	var err error
	if t.Usage, err = s.usage(); err != nil {
		return nil, fail("%v", err)
	}
	return t, nil
}

// usage is the run's usage from the sample's model_usage (docs/trace-formats.md, "Inspect AI
// eval logs"): the entry of the eval's own model; where it has none, the one model the sample
// used; where it used several and none is the eval's, none recorded (a grader's or a monitor's
// model is not the agent's). The count is input_tokens + output_tokens, total_tokens only
// where neither is given: Inspect's total adds the cache tokens, which are not counted. Every
// entry is checked, counted or not.
func (s *inspectSample) usage() (Usage, error) {
	var u Usage
	names := make([]string, 0, len(s.ModelUsage))
	for name, m := range s.ModelUsage {
		if m == nil {
			continue
		}
		for _, f := range [...]struct {
			key string
			n   *int64
		}{{"input_tokens", m.InputTokens}, {"output_tokens", m.OutputTokens}, {"total_tokens", m.TotalTokens},
			{"input_tokens_cache_write", m.CacheWrite}, {"input_tokens_cache_read", m.CacheRead}} {
			if f.n != nil && *f.n < 0 {
				return u, fmt.Errorf("model_usage[%q].%s must be a non-negative integer, got %d", name, f.key, *f.n)
			}
		}
		names = append(names, name)
	}
	name := s.model
	if m := s.ModelUsage[name]; m == nil {
		if len(names) != 1 {
			return u, nil
		}
		name = names[0]
	}
	m := s.ModelUsage[name]
	if m.InputTokens != nil {
		u.Prompt = *m.InputTokens
	}
	if m.OutputTokens != nil {
		u.Completion = *m.OutputTokens
	}
	u.Total = satAdd(u.Prompt, u.Completion)
	if m.InputTokens == nil && m.OutputTokens == nil && m.TotalTokens != nil {
		u.Total = *m.TotalTokens
	}
	u.Recorded = true
	return u, nil
}

// parseTrial reads an epoch written as a non-negative integer.
func parseTrial(s string) (int, error) {
	var n int
	if _, err := fmt.Sscanf(s, "%d", &n); err != nil || n < 0 || fmt.Sprint(n) != s {
		return 0, fmt.Errorf("not a non-negative integer")
	}
	return n, nil
}

// message converts one Inspect message.
func (s *inspectSample) message(m *inspectMessage, out *Message) error {
	out.Role = m.Role
	content, err := s.content(m.Content)
	if err != nil {
		return err
	}
	out.Content = content
	if len(m.ToolCalls) > 0 {
		out.Calls = make([]Call, 0, len(m.ToolCalls))
	}
	for j, c := range m.ToolCalls {
		if c.Function == "" {
			return fmt.Errorf("tool_calls[%d]: a tool call without a function name", j)
		}
		call := Call{Tool: c.Function}
		if c.ID != nil {
			call.ID, call.HasID = *c.ID, true
		}
		call.ArgsValid = c.ParseError == nil
		args, att, err := s.arguments(c.Arguments, call.ArgsValid)
		if err != nil {
			return fmt.Errorf("tool_calls[%d].arguments: %w", j, err)
		}
		call.Args, call.Attachments = args, att
		out.Calls = append(out.Calls, call)
	}
	if m.Role == "tool" {
		r := Result{Success: m.Error == nil, Content: content}
		if m.ToolCallID != nil {
			r.CallID, r.HasID = *m.ToolCallID, true
		}
		if m.Error != nil {
			r.Error = strings.TrimSuffix(m.Error.Type+": "+m.Error.Message, ": ")
			if r.Error == "" {
				r.Error = "error"
			}
		}
		out.Results = []Result{r}
	}
	return nil
}

// content is a message's text: a string, or the text parts of a list joined with "\n".
func (s *inspectSample) content(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if raw[0] == '"' {
		var str string
		if err := json.Unmarshal(raw, &str); err != nil {
			return "", err
		}
		return s.resolve(str)
	}
	var parts []inspectPart
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("content must be a string or a list of content parts: %v", err)
	}
	var texts []string
	var copied int64 // the attachments' bytes that joining the parts copies
	for _, p := range parts {
		if p.Type == "text" {
			t, err := s.resolve(p.Text)
			if err != nil {
				return "", err
			}
			if strings.HasPrefix(p.Text, attachmentPrefix) {
				copied += int64(len(t))
			}
			texts = append(texts, t)
		}
	}
	if len(texts) < 2 {
		return strings.Join(texts, ""), nil // the one text, shared
	}
	if err := s.att.hold(copied); err != nil {
		return "", err
	}
	return strings.Join(texts, "\n"), nil
}

const attachmentPrefix = "attachment://"

// inspectLimit is the count of what an Inspect log written as JSON holds, its size bytes read
// so far, that its attachment references add to: for a gzip-compressed log, with the file's
// size as the compressed bytes behind them.
func inspectLimit(path string, size int) *input.LimitedReader {
	l := &input.LimitedReader{Name: path, N: int64(size)}
	if f, err := input.OpenRegular(path); err == nil {
		var magic [2]byte
		if _, err := io.ReadFull(f, magic[:]); err == nil && magic == [2]byte{0x1f, 0x8b} {
			if st, err := f.Stat(); err == nil {
				packed := st.Size()
				l.Packed = func() int64 { return packed }
			}
		}
		f.Close()
	}
	return l
}

// resolve replaces an attachment:// reference by the attachment's text, which it shares; the
// text counts toward the input's reading budget.
func (s *inspectSample) resolve(str string) (string, error) {
	hash, ok := strings.CutPrefix(str, attachmentPrefix)
	if !ok {
		return str, nil
	}
	text, ok := s.Attachments[hash]
	if !ok {
		return "", fmt.Errorf("%s%s is not among the sample's attachments", attachmentPrefix, hash)
	}
	if err := s.att.reading(int64(len(text))); err != nil {
		return "", err
	}
	return text, nil
}

// arguments returns a tool call's arguments as compact JSON and, when string values of them
// name attachments (attachment:// and a key), the sample's attachments they name: the arguments
// are kept as written, the references unexpanded, and the calls share the attachments, held
// once (docs/security.md, "Attachments"). The arguments of a call with a parse_error (valid
// false) are read as raw text, not JSON: each reference in them is expanded in place, a copy,
// which the sample holds. Either way each reference counts what it stands for, the attachment
// quoted as JSON, toward the input's reading budget: the evaluator reads it at every call that
// names it.
func (s *inspectSample) arguments(raw json.RawMessage, valid bool) ([]byte, *Attachments, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil, nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return nil, nil, err
	}
	compact := b.Bytes()
	if !bytes.Contains(compact, []byte(attachmentPrefix)) && !bytes.Contains(compact, []byte(`\`)) {
		return compact, nil, nil
	}
	if !valid {
		out, err := s.expandedArguments(compact)
		return out, nil, err
	}
	named := false
	if err := eachReference(compact, func(from, to int, key string) error {
		q, err := s.quotedAttachment(key)
		if err != nil {
			return err
		}
		named = true
		return s.att.reading(int64(q))
	}); err != nil {
		return nil, nil, err
	}
	if !named {
		return compact, nil, nil
	}
	return compact, s.att.named, nil
}

// expandedArguments returns compact with every reference expanded in place, a copy the sample
// holds; equal arguments share one expansion, held once and read again.
func (s *inspectSample) expandedArguments(compact []byte) ([]byte, error) {
	if e, ok := s.att.args[string(compact)]; ok {
		return e.out, s.att.reading(e.read)
	}
	var read int64
	out, err := appendExpanded(nil, compact, -1, func(key string, lit []byte, _ int) ([]byte, error) {
		n, err := s.quotedAttachment(key)
		if err != nil {
			return nil, err
		}
		if err := s.att.reading(int64(n)); err != nil {
			return nil, err
		}
		if err := s.att.hold(int64(n - len(lit))); err != nil {
			return nil, err
		}
		read += int64(n)
		return quoteText(s.Attachments[key], -1), nil
	})
	if err != nil {
		return nil, err
	}
	if s.att.args == nil {
		s.att.args = map[string]expansion{}
	}
	s.att.args[string(compact)] = expansion{out, read}
	return out, nil
}

// quotedAttachment returns the length of the attachment key as a JSON string, found once per
// sample, and makes it one of those the sample's calls name (s.att.named).
func (s *inspectSample) quotedAttachment(key string) (int, error) {
	if n, ok := s.att.quoted[key]; ok {
		return n, nil
	}
	text, ok := s.Attachments[key]
	if !ok {
		return 0, fmt.Errorf("%s%s is not among the sample's attachments", attachmentPrefix, key)
	}
	if s.att.quoted == nil {
		s.att.quoted = map[string]int{}
		s.att.named = &Attachments{text: map[string]string{}}
	}
	n := quotedLen(text)
	s.att.quoted[key] = n
	s.att.named.text[key] = text
	return n, nil
}

// inspectOutcome reads a sample's outcome (docs/design.md#outcomes) from its scores, in sample, the sample's
// JSON text: the score of the scorer named scorer, else of the first scorer in the file's
// order. Its value reads as Inspect's value_to_float reads it: "C" (correct) and "I"
// (incorrect) are a success and a failure, as are true and false, "yes" and "no", "true" and
// "false" (any case), and "N" (no answer) a failure; "P" (partial) is 0.5; a number, or a
// string of one, is that number. A sample without scores has no outcome, as has one whose
// first scorer gives a list or an object when no scorer is named. Any other value is a
// problem, at offset at of sample.
func inspectOutcome(sample []byte, scorer string) (o Outcome, at int, problem string) {
	scores := -1
	if _, err := jsonscan.EachMember(sample, 0, func(key []byte, start, _ int) error {
		if jsonscan.KeyIs(key, "scores") {
			scores = start
		}
		return nil
	}); err != nil || scores < 0 || sample[scores] != '{' {
		return Outcome{}, 0, "" // no scores (checkDoc and the decoder have checked the JSON)
	}
	var names []string
	name, score := "", -1
	_, _ = jsonscan.EachMember(sample, scores, func(key []byte, start, _ int) error {
		k := jsonscan.Unquote(key, jsonscan.Replace)
		names = append(names, k)
		if (scorer == "" && score < 0) || (scorer != "" && k == scorer) {
			name, score = k, start
		}
		return nil
	})
	if len(names) == 0 {
		return Outcome{}, 0, ""
	}
	key := "" // outcome-scorer scorer/key: a member of a score whose value is a dict (docs/design.md#harness-folders)
	if score < 0 {
		name, score, key = keyedScorer(sample, scores, scorer)
	}
	name = input.Cut(name) // the scorer's name is the input's: at most 200 characters of it
	if score < 0 {
		return Outcome{}, scores, fmt.Sprintf("scores has no scorer %s (outcome-scorer); it has %s", input.Quote(scorer), input.Cut(strings.Join(names, ", ")))
	}
	value := -1
	if sample[score] == '{' {
		_, _ = jsonscan.EachMember(sample, score, func(key []byte, start, _ int) error {
			if jsonscan.KeyIs(key, "value") {
				value = start
			}
			return nil
		})
	}
	if value < 0 {
		return Outcome{}, score, fmt.Sprintf("scores.%s: a score without a \"value\"", name)
	}
	end, _ := jsonscan.Skip(sample, value)
	raw := sample[value:end]
	if o, at, problem, done := dictScore(sample, value, name, key, scorer); done {
		return o, at, problem
	}
	if key != "" {
		value, name = keyValue(sample, value, key), name+"/"+input.Cut(key)
		end, _ = jsonscan.Skip(sample, value)
		raw = sample[value:end]
	}
	return valueToFloat(raw, value, "scores."+name, scorer)
}

// valueToFloat reads a score's value, raw, at offset at of the sample, as Inspect's
// value_to_float does (see inspectOutcome); source names the score. A list or an object is no
// outcome unless scorer names the scorer, when it is a problem, as is any other value it cannot
// read.
func valueToFloat(raw []byte, at int, source, scorer string) (o Outcome, _ int, problem string) {
	o = Outcome{Known: true, Source: source}
	switch k := jsonscan.KindOfValue(raw); k {
	case jsonscan.KindTrue, jsonscan.KindFalse:
		o.IsBool = true
		if k == jsonscan.KindTrue {
			o.Value = 1
		}
		return o, 0, ""
	case jsonscan.KindNumber:
		v, p := outcomeNumber(raw)
		if p != "" {
			return Outcome{}, at, fmt.Sprintf("%s.value %s", source, p)
		}
		o.Value = v
		return o, 0, ""
	case jsonscan.KindString:
		s, _ := stringValue(raw)
		switch strings.ToLower(s) {
		case "c", "yes", "true":
			o.IsBool, o.Value = true, 1
			return o, 0, ""
		case "i", "n", "no", "false":
			o.IsBool = true
			return o, 0, ""
		case "p":
			o.Value = 0.5
			return o, 0, ""
		}
		if v, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil && !math.IsInf(v, 0) && !math.IsNaN(v) {
			o.Value = v
			return o, 0, ""
		}
		return Outcome{}, at, fmt.Sprintf(`%s.value: %s is not a score agentgate can read as an outcome (want "C", "I", "P", "N", a number or true/false)`, source, input.Quote(s))
	case jsonscan.KindArray, jsonscan.KindObject:
		if scorer == "" {
			return Outcome{}, 0, "" // several values: only a named scorer is asked for one
		}
		return Outcome{}, at, fmt.Sprintf("%s.value: %s", source, jsonscan.Expected(`"C", "I", "P", "N", a number or true/false`, k))
	}
	return Outcome{}, 0, "" // null: no value
}

// inspectJSONHarness is the registry's row of an Inspect AI eval log written as one JSON
// object, recognised by "eval" beside "samples", "version" or "status". Inspect's agents end a
// run with their submit tool (inspect_ai's basic_agent and react, submit name "submit").
var inspectJSONHarness = Harness{
	Format:     FormatInspectJSON,
	Name:       "Inspect AI log (.json)",
	Recognised: "`eval` beside `samples`, `version` or `status`",
	Recognise: func(h *head) bool {
		return h.has("eval") && (h.has("samples") || h.has("version") || h.has("status"))
	},
	Read:          readInspect,
	Folder:        inspectLogsOnce,
	Turns:         `samples[].messages (and their "events")`,
	TerminalTools: []string{"submit"},
	Identity:      inspectIdentity,
	Outcome:       inspectOutcomeRule,
	Usage:         inspectUsage,
}

// inspectEvalHarness is the registry's row of an Inspect AI .eval log, a zip archive.
var inspectEvalHarness = Harness{
	Format:        FormatInspectEval,
	Name:          "Inspect AI log (.eval)",
	Recognised:    "a zip archive",
	Recognise:     func(h *head) bool { return h.zip },
	Read:          readInspect,
	Side:          evalSide,
	Turns:         `samples/*.json messages (and their "events")`,
	TerminalTools: []string{"submit"},
	Identity:      inspectIdentity,
	Outcome:       inspectOutcomeRule,
	Usage:         inspectUsage,
}

// The rules of both Inspect rows, as docs/trace-formats.md states them.
const (
	inspectIdentity    = "suite: the eval's `task` (a suite per model where `eval.model` differs); task: sample `id`; trial: `epoch` (a further log of the task: further trials)"
	inspectOutcomeRule = "the score outcome-scorer names (`scorer/key` for a dict value), else the first; C/I as true/false"
	inspectUsage       = "the sample's `model_usage` of the eval's own model (`eval.model`), input and output tokens; cache tokens and other models (graders, monitors) not counted"
)

// readInspect is the Inspect rows' reader: EachInspect.
func readInspect(ctx context.Context, f File, o Options, fn func(*Trace) error) error {
	return EachInspect(ctx, f.Path, o, fn)
}
