package jsonreport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"sort"
	"strconv"

	"github.com/agentgate/agentgate/gate/coherence"
	"github.com/agentgate/agentgate/gate/compare"
	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/gate/outcome"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/verdict"
	"github.com/agentgate/agentgate/internal/jsonscan"
)

// MaxBaselineSize is the most bytes ReadBaseline reads; a longer baseline is not read. The
// file is untrusted (an artifact anyone with write access could have uploaded), so its size
// is bounded; jsonscan bounds its nesting depth.
const MaxBaselineSize = 1 << 30

// maxBaselineSize is MaxBaselineSize, smaller in tests.
var maxBaselineSize int64 = MaxBaselineSize

// ReadBaselineFile reads the baseline report at path as ReadBaseline does. It opens the file
// as every input is opened (input.OpenRegular: a FIFO, device or directory is refused without
// blocking) and refuses one larger than MaxBaselineSize by its size, before reading any of it.
func ReadBaselineFile(path string) (*compare.Baseline, error) {
	f, err := input.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("reading baseline %s: %w", path, err)
	}
	return readBaseline(f, path, st.Size())
}

// ReadBaseline reads a JSON report (docs/design.md#one-binary) of schema 3 (Schema) or 2 (Previous) from r;
// name is the file's name for messages. The traces, tasks and items come back sorted by id.
// Members the comparison does not need are skipped, and unknown members are ignored, so a
// later report still reads.
//
// Its errors say whether there is anything to compare with (docs/design.md#comparison, docs/design.md#honest-words):
//   - a well-formed report of another schema version (or an agentgate report older than
//     schema 2, which had no "schema") is an *compare.Unusable: nothing to compare with, a
//     note;
//   - content that is not an agentgate report of schema 2 or 3 (empty, not JSON, not an object
//     with "schema", a malformed or duplicate record, larger than MaxBaselineSize) is an
//     *input.Error naming the file and the line and column (in characters) of the value at
//     fault;
//   - any other error is an I/O error of r.
//
// The text is checked by jsonscan first, so that a syntax error is worded and placed as every
// other reader's; only then is it decoded, member by member.
func ReadBaseline(r io.Reader, name string) (*compare.Baseline, error) {
	return readBaseline(r, name, -1)
}

// readBaseline is ReadBaseline of r, whose size is size bytes when it is not negative (a
// file's: it is then checked before reading, and the buffer made to fit).
func readBaseline(r io.Reader, name string, size int64) (*compare.Baseline, error) {
	tooLarge := &input.Error{File: name, Msg: fmt.Sprintf("not read: a baseline report holds at most %d bytes", maxBaselineSize)}
	if size > maxBaselineSize {
		return nil, tooLarge
	}
	var buf bytes.Buffer
	if size >= 0 {
		buf.Grow(int(size) + bytes.MinRead)
	}
	if _, err := buf.ReadFrom(io.LimitReader(r, maxBaselineSize+1)); err != nil {
		return nil, fmt.Errorf("reading baseline %s: %w", name, err)
	}
	if int64(buf.Len()) > maxBaselineSize {
		return nil, tooLarge
	}
	return decodeLarge(buf.Bytes(), name)
}

// ReadBaselineBytes is ReadBaseline of data, read in place: a report fetched from an artifact
// is in memory already.
func ReadBaselineBytes(data []byte, name string) (*compare.Baseline, error) {
	if int64(len(data)) > maxBaselineSize {
		return nil, &input.Error{File: name, Msg: fmt.Sprintf("not read: a baseline report holds at most %d bytes", maxBaselineSize)}
	}
	return decodeLarge(data, name)
}

// decodeLarge is decodeBaseline, then, when data is huge (input.HugeRecord), a collection:
// the text is not needed any more, and the collector's next goal, twice what it finds live,
// is then counted from the baseline read, not from it and its text as well (docs/
// performance.md, "A million runs").
func decodeLarge(data []byte, name string) (*compare.Baseline, error) {
	huge := len(data) >= input.HugeRecord
	b, err := decodeBaseline(data, name)
	if huge {
		runtime.GC()
	}
	return b, err
}

// decodeBaseline reads the report data: first its top level, to tell a report of another
// version (a note) from something that is no report (an error), then the whole of it.
func decodeBaseline(data []byte, name string) (*compare.Baseline, error) {
	start := jsonscan.SkipSpace(data, 0)
	if start == len(data) {
		return nil, notReport(name, data, start, "the file holds no JSON value (expected an object with \"schema\")")
	}
	if data[start] != '{' {
		if k := jsonscan.KindOf(data[start]); k != jsonscan.KindInvalid {
			return nil, notReport(name, data, start, "expected an object with \"schema\", found "+k.String())
		}
		return nil, syntaxError(name, data, jsonscan.Validate(data))
	}
	schemaAt := -1
	var older struct{ verdict, gates bool }
	end, err := jsonscan.EachMember(data, start, func(key []byte, at, _ int) error {
		switch {
		case jsonscan.KeyIs(key, "schema"):
			schemaAt = at
		case jsonscan.KeyIs(key, "verdict"):
			older.verdict = true
		case jsonscan.KeyIs(key, "gates"):
			older.gates = true
		}
		return nil
	})
	if err != nil {
		if verr := jsonscan.Validate(data); verr != nil {
			err = verr // placed as in the whole text, as every reader places it
		}
		return nil, syntaxError(name, data, err)
	}
	if schemaAt < 0 {
		if older.verdict && older.gates {
			return nil, unusable("baseline %s has no \"schema\": it was written by an agentgate older than schema %d", name, Previous)
		}
		// The first record of a JSON Lines file, most likely: say which setting takes it.
		e := notReport(name, data, start, "expected an object with \"schema\"")
		e.LooksLike = input.LooksLike(data[start:end])
		return nil, e
	}
	if jsonscan.SkipSpace(data, end) != len(data) {
		return nil, syntaxError(name, data, jsonscan.Validate(data)) // Validate says what follows
	}
	if err := checkSchema(name, data, schemaAt); err != nil {
		return nil, err
	}
	br := &baselineReader{data: data, dec: json.NewDecoder(bytes.NewReader(data)), name: name, b: &compare.Baseline{Name: name}}
	if err := br.read(); err != nil {
		var pe *posError
		if errors.As(err, &pe) {
			return nil, notReport(name, data, pe.off, pe.msg)
		}
		return nil, err
	}
	return br.b, nil
}

// unusable returns a *compare.Unusable with a formatted reason.
func unusable(format string, args ...any) *compare.Unusable {
	return &compare.Unusable{Reason: fmt.Sprintf(format, args...)}
}

// checkSchema reads the "schema" member whose value starts at offset at: a whole number,
// Schema or Previous, or the note that the report is of another version.
func checkSchema(name string, data []byte, at int) error {
	end, _ := jsonscan.Skip(data, at) // the text is valid
	raw := data[at:end]
	if k := jsonscan.KindOfValue(raw); k != jsonscan.KindNumber {
		return notReport(name, data, at, `field "schema": `+jsonscan.Expected("a number", k))
	}
	s, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || s != math.Trunc(s) || s < 0 {
		return notReport(name, data, at, fmt.Sprintf(`"schema" must be a whole number, got %s`, input.Quote(string(raw))))
	}
	if s != Schema && s != Previous {
		return unusable("baseline %s has schema %s, this agentgate reads schema %d and %d", name, strconv.FormatFloat(s, 'g', -1, 64), Previous, Schema)
	}
	return nil
}

// notReport is the error for data, read from the file name, that is not an agentgate report
// of this schema: msg says what is wrong with the value at byte offset off. The decoder's
// offset is where it stopped: before the separator and spaces that lead to the value at
// fault, which is what the place names.
func notReport(name string, data []byte, off int, msg string) *input.Error {
	p := jsonscan.Position(data, jsonscan.SkipSeparators(data, off))
	return &input.Error{File: name, Line: p.Line, Col: p.Col, Msg: "not an agentgate JSON report: " + msg}
}

// syntaxError is notReport for an error of jsonscan's: the text is not JSON.
func syntaxError(name string, data []byte, err error) error {
	var se *jsonscan.Error
	if errors.As(err, &se) {
		return notReport(name, data, se.Off, "not valid JSON: "+se.Msg)
	}
	return &input.Error{File: name, Msg: "not an agentgate JSON report: not valid JSON: " + err.Error()}
}

// posError is a problem at byte offset off of the baseline.
type posError struct {
	off int
	msg string
}

func (e *posError) Error() string { return fmt.Sprintf("offset %d: %s", e.off, e.msg) }

// baselineReader decodes a report member by member with encoding/json's token stream, over
// text that jsonscan has found valid.
type baselineReader struct {
	data []byte
	dec  *json.Decoder
	name string
	b    *compare.Baseline
	// items counts the traces, tasks, agreement items, evidence entries and message indices
	// read so far, toward maxBaselineItems
	items int
	// files holds one copy of each trace file's name: a million runs name a few files.
	files map[string]string
}

// maxFileNames is the most file names baselineReader.file keeps one copy of; a hostile report
// naming a new file in every run costs no more than without the copies.
const maxFileNames = 1 << 12

// file returns name, or the copy of it an earlier run had.
func (br *baselineReader) file(name string) string {
	if f, ok := br.files[name]; ok {
		return f
	}
	if br.files == nil {
		br.files = map[string]string{}
	}
	if len(br.files) < maxFileNames {
		br.files[name] = name
	}
	return name
}

// offset is where the decoder stands in data.
func (br *baselineReader) offset() int { return int(br.dec.InputOffset()) }

// wrap turns an error of decoding the value that starts at offset start, which what names,
// into a problem placed in the text. The text is valid JSON, so what decoding can find wrong
// is a value of the wrong type: the message names it by its path from the top of the report,
// in jsonscan's words, at the value itself.
func (br *baselineReader) wrap(err error, start int, what string) error {
	var pe *posError
	if errors.As(err, &pe) {
		return err
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		at, msg := input.TypeError(br.data, start+int(te.Offset), te)
		return &posError{off: at, msg: msg}
	}
	return &posError{off: start, msg: what + ": " + err.Error()}
}

// value decodes the next value into v; what names it in messages. A type error is found again
// in the value alone (the decoder counts its offsets from wherever its buffer starts), so that
// its offset counts from the value's start; only a failing value is decoded twice.
func (br *baselineReader) value(v any, what string) error {
	start := jsonscan.SkipSeparators(br.data, br.offset())
	err := br.dec.Decode(v)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		end, _ := jsonscan.Skip(br.data, start) // the text is valid
		err = json.Unmarshal(br.data[start:end], v)
	}
	if err != nil {
		return br.wrap(err, start, what)
	}
	return nil
}

// delim reads the delimiter want ('{' or '['), or reports that what is not an object or array.
func (br *baselineReader) delim(want json.Delim, what string) error {
	off := br.offset()
	tok, err := br.dec.Token()
	if err != nil {
		return br.wrap(err, off, what)
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		kind := "an object"
		if want == '[' {
			kind = "an array"
		}
		return &posError{off: off, msg: fmt.Sprintf("%s must be %s", what, kind)}
	}
	return nil
}

// object reads an object, calling member for each key with the decoder before its value;
// member must consume the value.
func (br *baselineReader) object(what string, member func(key string) error) error {
	if err := br.delim('{', what); err != nil {
		return err
	}
	for br.dec.More() {
		off := br.offset()
		tok, err := br.dec.Token()
		if err != nil {
			return br.wrap(err, off, what)
		}
		key, _ := tok.(string) // the decoder only yields strings as keys
		if err := member(key); err != nil {
			return err
		}
	}
	_, err := br.dec.Token() // '}'
	if err != nil {
		return br.wrap(err, br.offset(), what)
	}
	return nil
}

// array reads an array, calling elem with the decoder before each element and its index.
func (br *baselineReader) array(what string, elem func(i int) error) error {
	if err := br.delim('[', what); err != nil {
		return err
	}
	for i := 0; br.dec.More(); i++ {
		if err := elem(i); err != nil {
			return err
		}
	}
	_, err := br.dec.Token() // ']'
	if err != nil {
		return br.wrap(err, br.offset(), what)
	}
	return nil
}

// skip consumes the next value.
func (br *baselineReader) skip(what string) error {
	start := jsonscan.SkipSeparators(br.data, br.offset())
	var raw json.RawMessage
	if err := br.dec.Decode(&raw); err != nil {
		return br.wrap(err, start, what)
	}
	return nil
}

// read decodes the whole report and checks its schema.
func (br *baselineReader) read() error {
	b := br.b
	err := br.object("the report", func(key string) error {
		switch key {
		case "profile":
			return br.value(&b.Profile, "profile")
		case "token_budget":
			return br.value(&b.TokenBudget, "token_budget")
		case "source":
			return br.value(&b.Source, "source")
		case "reliability":
			b.Reliability = &reliability.Summary{Traces: []reliability.Result{}}
			return br.object("reliability", func(key string) error {
				if key != "traces" {
					return br.skip("reliability." + key)
				}
				b.Reliability.Traces = make([]reliability.Result, 0, br.listLen())
				return br.array("reliability.traces", func(i int) error { return br.trace(i) })
			})
		case "coherence":
			b.Coherence = &coherence.Summary{Tasks: []coherence.TaskResult{}}
			return br.object("coherence", func(key string) error {
				if key != "tasks" {
					return br.skip("coherence." + key)
				}
				b.Coherence.Tasks = make([]coherence.TaskResult, 0, br.listLen())
				return br.array("coherence.tasks", func(i int) error { return br.task(i) })
			})
		case "agreement":
			return br.agreement()
		case "history":
			return br.history()
		case "comparison":
			return br.recorded()
		}
		return br.skip(key)
	})
	if err != nil {
		return err
	}
	if b.Profile == "" {
		return &posError{off: jsonscan.SkipSpace(br.data, 0), msg: `it has no "profile"`}
	}
	if !validSHA(b.Source.SHA) {
		b.Source.SHA = "" // not a commit: unknown, rather than text that reaches outputs and headers
	}
	if err := br.sortUnits(); err != nil {
		return err
	}
	if s := b.Reliability; s != nil {
		if compare.Renumber(s.Traces) {
			b.Notes = append(b.Notes, compare.RenumberNote)
		}
		b.Trials = compare.TrialsOf(s.Traces)
	}
	return nil
}

// sortUnits sorts the traces, tasks and items by id, and rejects an id that occurs twice:
// units are matched by id, so a duplicate cannot be matched.
func (br *baselineReader) sortUnits() error {
	b := br.b
	if s := b.Reliability; s != nil {
		if id, dup := sortByID(s.Traces, func(t *reliability.Result) string { return t.ID }); dup {
			return br.duplicate("reliability", "traces", "id", id)
		}
	}
	if s := b.Coherence; s != nil {
		if id, dup := sortByID(s.Tasks, func(t *coherence.TaskResult) string { return t.ID }); dup {
			return br.duplicate("coherence", "tasks", "id", id)
		}
	}
	if a := b.Agreement; a != nil {
		if qid, dup := sortByID(a.Finals.(compare.FinalList), func(f *compare.Final) string { return f.QID }); dup {
			return br.duplicate("agreement", "items", "qid", qid)
		}
	}
	return nil
}

// duplicate is the error for the id that occurs twice in the list section.list, placed at
// its second occurrence: the units were sorted, so the text is searched again for it, once.
func (br *baselineReader) duplicate(section, list, key, id string) error {
	at := jsonscan.Locate(br.data, jsonscan.PathOf(section, list))
	first, i := -1, 0
	second := at
	_, _ = jsonscan.EachElement(br.data, at, func(start, end int) error {
		var u map[string]json.RawMessage
		var got string
		if json.Unmarshal(br.data[start:end], &u) == nil && json.Unmarshal(u[key], &got) == nil && got == id {
			if first >= 0 {
				second = start
				return errStop
			}
			first = i
		}
		i++
		return nil
	})
	return &posError{off: second, msg: fmt.Sprintf("%s.%s[%d]: %s %s occurs twice (first in %s.%s[%d])", section, list, i, key, input.Quote(id), section, list, first)}
}

// errStop ends a walk early.
var errStop = errors.New("stop")

// sortByID sorts units by id and returns the first id that occurs twice, if one does. The ids
// are read in place: a comparison of copies (slices.SortFunc hands it two) moved each copy to
// the heap for id, a Result per comparison, 7 KB allocated a trace of a baseline of 32,768.
func sortByID[T any](units []T, id func(*T) string) (string, bool) {
	sort.Sort(unitsByID[T]{units, id})
	for i := 1; i < len(units); i++ {
		if a := id(&units[i]); a == id(&units[i-1]) {
			return a, true
		}
	}
	return "", false
}

// unitsByID sorts units by id.
type unitsByID[T any] struct {
	units []T
	id    func(*T) string
}

func (u unitsByID[T]) Len() int           { return len(u.units) }
func (u unitsByID[T]) Less(i, j int) bool { return u.id(&u.units[i]) < u.id(&u.units[j]) }
func (u unitsByID[T]) Swap(i, j int)      { u.units[i], u.units[j] = u.units[j], u.units[i] }

// validSHA reports whether sha names a commit: 7 to 64 hex digits (an abbreviation, SHA-1 or
// SHA-256).
func validSHA(sha string) bool {
	if len(sha) < 7 || len(sha) > 64 {
		return false
	}
	for i := 0; i < len(sha); i++ {
		if !jsonscan.IsHex(sha[i]) {
			return false
		}
	}
	return true
}

// baselineTrace is a trace of the report as the baseline is read: reliability.Result's members,
// with pointers where absence must be told from zero, and the trial's task and index.
type baselineTrace struct {
	ID       *string                `json:"id"`
	File     string                 `json:"file"`
	Line     int                    `json:"line"`
	Verdict  verdict.Verdict        `json:"verdict"`
	Score    *float64               `json:"score"`
	Signals  reliability.Signals    `json:"signals"`
	Evidence []reliability.Evidence `json:"evidence"`
	Suite    json.RawMessage        `json:"suite"`
	Task     json.RawMessage        `json:"task"`
	Trial    json.RawMessage        `json:"trial"`
	// Outcome is the run's own outcome (docs/design.md#outcomes), absent when unknown.
	Outcome *outcome.JSON `json:"outcome"`
	// SuiteCost is what the run's cost compared across its suite, for a merge to compare again.
	SuiteCost *reliability.SuiteCost `json:"suite_cost"`
}

// trace reads one element of reliability.traces.
func (br *baselineReader) trace(i int) error {
	if err := br.unit("reliability.traces", i); err != nil {
		return err
	}
	off := br.offset()
	what := fmt.Sprintf("reliability.traces[%d]", i)
	if err := br.precheckTrace(jsonscan.SkipSeparators(br.data, off), what); err != nil {
		return err
	}
	var t baselineTrace
	if err := br.value(&t, what); err != nil {
		return err
	}
	bad := func(format string, args ...any) error {
		return &posError{off: off, msg: what + ": " + fmt.Sprintf(format, args...)}
	}
	switch {
	case t.ID == nil:
		return bad("no \"id\"")
	case t.Verdict != verdict.Pass && t.Verdict != verdict.Warn && t.Verdict != verdict.Fail:
		return bad("verdict must be PASS, WARN or FAIL, got %q", t.Verdict)
	case t.Score == nil:
		return bad("no \"score\"")
	}
	if c := t.SuiteCost; c != nil {
		switch {
		case c.Tokens < 1:
			return bad("suite_cost.tokens must be 1 or more, got %d", c.Tokens)
		case !(c.Relative >= 0 && c.Relative <= 1) || !(c.Alone >= 0 && c.Alone <= 1):
			return bad("suite_cost.relative and suite_cost.alone must be between 0 and 1")
		case c.Relative > 0 && c.AloneVerdict != verdict.Pass && c.AloneVerdict != verdict.Warn && c.AloneVerdict != verdict.Fail:
			return bad("suite_cost.alone_verdict must be PASS, WARN or FAIL, got %q", c.AloneVerdict)
		}
	}
	task, hasTask, err := idText(t.Task)
	if err != nil {
		return bad("task %s", err)
	}
	trial, hasTrial, err := idText(t.Trial)
	if err != nil {
		return bad("trial %s", err)
	}
	suite, _, err := idText(t.Suite)
	if err != nil {
		return bad("suite %s", err)
	}
	r := reliability.Result{ID: *t.ID, File: br.file(t.File), Line: t.Line, Verdict: t.Verdict, Score: *t.Score, Signals: t.Signals,
		Evidence: t.Evidence, Run: outcome.RunOfJSON(t.Outcome), SuiteCost: t.SuiteCost}
	if suite != "" || hasTask || hasTrial {
		r.Attempt = &reliability.Attempt{Suite: suite, Task: task}
		if hasTrial {
			n, ok := wholeNumber(trial)
			if !ok {
				return bad("trial must be a whole number, got %s", trial)
			}
			r.Attempt.Trial = &n
		}
	}
	br.b.Reliability.Add(r)
	return nil
}

// wholeNumber reads a trial index written as a whole number ("2", "2.0"), as the trace's
// identity holds it (docs/design.md#run-identity).
func wholeNumber(s string) (int, bool) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<31 {
		return 0, false
	}
	return int(f), true
}

// idText reads a task id or trial index: a string, or a number kept as written; null or
// absent is no value.
func idText(raw json.RawMessage) (string, bool, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", false, nil
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", false, err
		}
		return s, true, nil
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return string(raw), true, nil
	}
	return "", false, errors.New("must be a string or a number")
}

// baselineTask is a task of the coherence section as the baseline is read.
type baselineTask struct {
	ID   *string  `json:"id"`
	File string   `json:"file"`
	Line int      `json:"line"`
	RCS  *float64 `json:"rcs"`
}

// task reads one element of coherence.tasks.
func (br *baselineReader) task(i int) error {
	if err := br.unit("coherence.tasks", i); err != nil {
		return err
	}
	off := br.offset()
	what := fmt.Sprintf("coherence.tasks[%d]", i)
	var t baselineTask
	if err := br.value(&t, what); err != nil {
		return err
	}
	switch {
	case t.ID == nil:
		return &posError{off: off, msg: what + ": no \"id\""}
	case t.RCS == nil:
		return &posError{off: off, msg: what + ": no \"rcs\""}
	}
	br.b.Coherence.Add(coherence.TaskResult{ID: *t.ID, File: t.File, Line: t.Line, RCS: *t.RCS})
	return nil
}

// agreement reads the agreement section.
func (br *baselineReader) agreement() error {
	start := br.offset()
	a := &compare.Agreement{}
	finals := compare.FinalList{}
	var have struct{ n, pa, kappa, defined, se bool }
	err := br.object("agreement", func(key string) error {
		switch key {
		case "n":
			have.n = true
			return br.value(&a.N, "agreement.n")
		case "percent_agreement":
			have.pa = true
			return br.value(&a.PercentAgreement, "agreement.percent_agreement")
		case "kappa":
			have.kappa = true
			return br.value(&a.Kappa, "agreement.kappa")
		case "kappa_defined":
			have.defined = true
			return br.value(&a.KappaDefined, "agreement.kappa_defined")
		case "kappa_se":
			have.se = true
			return br.value(&a.KappaSE, "agreement.kappa_se")
		case "items":
			return br.array("agreement.items", func(i int) error {
				if err := br.unit("agreement.items", i); err != nil {
					return err
				}
				off := br.offset()
				what := fmt.Sprintf("agreement.items[%d]", i)
				var it struct {
					QID   *string `json:"qid"`
					Final string  `json:"final"`
				}
				if err := br.value(&it, what); err != nil {
					return err
				}
				if it.QID == nil {
					return &posError{off: off, msg: what + ": no \"qid\""}
				}
				finals = append(finals, compare.Final{QID: *it.QID, Final: it.Final})
				return nil
			})
		}
		return br.skip("agreement." + key)
	})
	if err != nil {
		return err
	}
	for _, m := range []struct {
		ok   bool
		name string
	}{{have.n, "n"}, {have.pa, "percent_agreement"}, {have.kappa, "kappa"}, {have.defined, "kappa_defined"}, {have.se, "kappa_se"}} {
		if !m.ok {
			return &posError{off: start, msg: fmt.Sprintf("agreement has no %q", m.name)}
		}
	}
	a.Finals = finals
	br.b.Agreement = a
	return nil
}
