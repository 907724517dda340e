package jsonreport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/agentgate/agentgate/gate/coherence"
	"github.com/agentgate/agentgate/gate/compare"
	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/gate/outcome"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/verdict"
	"github.com/agentgate/agentgate/internal/jsonscan"
)

// MaxBaselineSize is the most bytes ReadBaseline reads; a longer baseline is unusable. The
// file is untrusted (an artifact anyone with write access could have uploaded), so its size
// is bounded; jsonscan bounds its nesting depth.
const MaxBaselineSize = 1 << 30

// maxBaselineSize is MaxBaselineSize, smaller in tests.
var maxBaselineSize int64 = MaxBaselineSize

// ReadBaseline reads a JSON report (SPEC §5) of schema 2 from r; name is the file's name for
// messages. Every problem with the content (not JSON, too large, another schema, a malformed
// record, a duplicate id) is an *compare.Unusable whose reason names the file and the place (line and
// column, in characters, of the value at fault); an error of another type is an I/O error of
// r. The traces, tasks and items come back sorted by id. Members the comparison does not need
// are skipped, and unknown members are ignored, so a later report still reads.
//
// The text is checked by jsonscan first, so that a syntax error is worded and placed as every
// other reader's; only then is it decoded, member by member.
func ReadBaseline(r io.Reader, name string) (*compare.Baseline, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxBaselineSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading baseline %s: %w", name, err)
	}
	if int64(len(data)) > maxBaselineSize {
		return nil, unusable("baseline %s is larger than %d bytes: not read", name, maxBaselineSize)
	}
	if err := jsonscan.Validate(data); err != nil {
		var se *jsonscan.Error
		if errors.As(err, &se) {
			return nil, unusable("baseline %s:%s: not valid JSON: %s", name, place(data, se.Off), se.Msg)
		}
		return nil, unusable("baseline %s: not valid JSON: %v", name, err)
	}
	br := &baselineReader{data: data, dec: json.NewDecoder(bytes.NewReader(data)), name: name, b: &compare.Baseline{Name: name}}
	if err := br.read(); err != nil {
		var pe *posError
		if errors.As(err, &pe) {
			return nil, unusable("baseline %s:%s: %s", name, place(data, pe.off), pe.msg)
		}
		return nil, err
	}
	return br.b, nil
}

// unusable returns a *compare.Unusable with a formatted reason.
func unusable(format string, args ...any) *compare.Unusable {
	return &compare.Unusable{Reason: fmt.Sprintf(format, args...)}
}

// posError is a problem at byte offset off of the baseline.
type posError struct {
	off int
	msg string
}

func (e *posError) Error() string { return fmt.Sprintf("offset %d: %s", e.off, e.msg) }

// place names byte offset off of data as "line:col". The decoder's offset is where it
// stopped: before the separator and spaces that lead to the value at fault, which is what the
// place names.
func place(data []byte, off int) string {
	p := jsonscan.Position(data, jsonscan.SkipSeparators(data, off))
	return strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Col)
}

// baselineReader decodes a report member by member with encoding/json's token stream, over
// text that jsonscan has found valid.
type baselineReader struct {
	data []byte
	dec  *json.Decoder
	name string
	b    *compare.Baseline
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
	schema := -1
	err := br.object("the report", func(key string) error {
		switch key {
		case "schema":
			var s float64
			if err := br.value(&s, "schema"); err != nil {
				return err
			}
			schema = -2 // not a whole number: another schema
			if s == math.Trunc(s) && s >= 0 && s < 1<<30 {
				schema = int(s)
			}
			return nil
		case "profile":
			return br.value(&b.Profile, "profile")
		case "source":
			return br.value(&b.Source, "source")
		case "reliability":
			b.Reliability = &reliability.Summary{Traces: []reliability.Result{}}
			return br.object("reliability", func(key string) error {
				if key != "traces" {
					return br.skip("reliability." + key)
				}
				return br.array("reliability.traces", func(i int) error { return br.trace(i) })
			})
		case "coherence":
			b.Coherence = &coherence.Summary{Tasks: []coherence.TaskResult{}}
			return br.object("coherence", func(key string) error {
				if key != "tasks" {
					return br.skip("coherence." + key)
				}
				return br.array("coherence.tasks", func(i int) error { return br.task(i) })
			})
		case "agreement":
			return br.agreement()
		}
		return br.skip(key)
	})
	if err != nil {
		return err
	}
	switch {
	case schema == -1:
		return unusable("baseline %s has no \"schema\": it was written by an agentgate older than schema %d", br.name, Schema)
	case schema != Schema:
		return unusable("baseline %s has schema %s, this agentgate reads schema %d", br.name, schemaText(schema), Schema)
	case b.Profile == "":
		return unusable("baseline %s has no \"profile\"", br.name)
	}
	return br.sortUnits()
}

// sortUnits sorts the traces, tasks and items by id, and rejects an id that occurs twice:
// units are matched by id, so a duplicate cannot be matched.
func (br *baselineReader) sortUnits() error {
	b := br.b
	if s := b.Reliability; s != nil {
		if id, dup := sortByID(s.Traces, func(t *reliability.Result) string { return t.ID }); dup {
			return unusable("baseline %s: trace id %q occurs twice", br.name, id)
		}
	}
	if s := b.Coherence; s != nil {
		if id, dup := sortByID(s.Tasks, func(t *coherence.TaskResult) string { return t.ID }); dup {
			return unusable("baseline %s: task id %q occurs twice", br.name, id)
		}
	}
	if a := b.Agreement; a != nil {
		if qid, dup := sortByID(a.Finals.(compare.FinalList), func(f *compare.Final) string { return f.QID }); dup {
			return unusable("baseline %s: item qid %q occurs twice", br.name, qid)
		}
	}
	return nil
}

// sortByID sorts units by id and returns the first id that occurs twice, if one does.
func sortByID[T any](units []T, id func(*T) string) (string, bool) {
	slices.SortFunc(units, func(x, y T) int { return strings.Compare(id(&x), id(&y)) })
	for i := 1; i < len(units); i++ {
		if a := id(&units[i]); a == id(&units[i-1]) {
			return a, true
		}
	}
	return "", false
}

// schemaText writes a schema number, or "that is not a whole number".
func schemaText(n int) string {
	if n < 0 {
		return "that is not a whole number"
	}
	return strconv.Itoa(n)
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
	Task     json.RawMessage        `json:"task"`
	Trial    json.RawMessage        `json:"trial"`
	// Outcome is the run's own outcome (SPEC §15), absent when unknown.
	Outcome *outcome.JSON `json:"outcome"`
}

// trace reads one element of reliability.traces.
func (br *baselineReader) trace(i int) error {
	off := br.offset()
	what := fmt.Sprintf("reliability.traces[%d]", i)
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
	task, hasTask, err := idText(t.Task)
	if err != nil {
		return bad("task %s", err)
	}
	trial, hasTrial, err := idText(t.Trial)
	if err != nil {
		return bad("trial %s", err)
	}
	rel := br.b.Reliability
	if t.Outcome != nil && br.b.Runs == nil {
		br.b.Runs = make([]outcome.Run, len(rel.Traces), len(rel.Traces)+1)
		for j := range br.b.Runs {
			br.b.Runs[j] = outcome.RunOfJSON(nil)
		}
	}
	if br.b.Runs != nil {
		br.b.Runs = append(br.b.Runs, outcome.RunOfJSON(t.Outcome))
	}
	rel.Add(reliability.Result{ID: *t.ID, File: t.File, Line: t.Line, Verdict: t.Verdict, Score: *t.Score, Signals: t.Signals, Evidence: t.Evidence})
	if hasTask && hasTrial {
		tr := compare.Trial{Task: task, Trial: trial, Verdict: t.Verdict}
		if t.Outcome != nil {
			tr.HasOutcome, tr.Succeeded = true, t.Outcome.Success
		}
		br.b.Trials = append(br.b.Trials, tr)
	}
	return nil
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
