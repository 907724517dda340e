package coherence

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/internal/jsonscan"
)

// Each streams the tasks of the file at path to fn, in file order (docs/design.md#input-files). The file is
// JSON Lines (".jsonl") or JSON (one record or an array of records); a record is either a task
//
//	{"id" | "task_id", "intent", "understanding", "action", "alpha"?, "beta"?, "gamma"?,
//	 "reference_action"?}
//
// or a whole results file of the RCS harness, {"model", "average_rcs", "results": [{"task_id",
// "rcs", "intent", "understanding", "action", "reference_action"}]}, which yields one task per
// result (its published "rcs" and "average_rcs" are ignored: agentgate scores the texts itself).
// Other keys are ignored, so task files can carry their own metadata.
//
// Every problem is an *input.Error naming the file, the line and column, and what was
// expected: a record that is neither shape (the error lists the keys it has), a missing or
// empty id, an intent, understanding or action that is missing or not a string, a weight that
// is not a finite number >= 0. Empty texts are valid input: the profiles decide what they mean.
// A numeric id is taken as its JSON text. Each stops at the first error, from the file or from
// fn, and returns it.
//
// Each does not look for repeated task ids, which may be legitimate across files (trials of
// one task); a caller that wants them unique checks each task's id with an input.IDs.
func Each(path string, fn func(Task) error) error {
	return input.Each(path, func(rec input.Record) error { return eachInRecord(rec, fn) })
}

// EachReader is Each over an already open reader; name is used in errors and tasks and decides
// the format (".jsonl" suffix or not).
func EachReader(name string, r io.Reader, fn func(Task) error) error {
	return input.EachReader(name, r, func(rec input.Record) error { return eachInRecord(rec, fn) })
}

// member is one member of a JSON object.
type member struct {
	key string
	off int    // offset of the value in the record's data
	raw []byte // the value's JSON text
}

// members splits the JSON object data, which starts at offset base of its record, into its
// members, checking it (jsonscan.EachMember), so that a task costs no decoder and no copies of
// its values (raw values are slices of data). Keys are decoded as encoding/json does.
func members(data []byte, base int) ([]member, error) {
	n := 0
	_, err := jsonscan.ReadMembers(data, 0, func(_ []byte, v int) (int, error) {
		if n == maxMembers {
			return v, &tooManyMembers{off: base + v}
		}
		n++
		return jsonscan.Skip(data, v)
	})
	if err != nil {
		return nil, err
	}
	ms := make([]member, 0, n)
	_, err = jsonscan.EachMember(data, 0, func(key []byte, start, end int) error {
		ms = append(ms, member{key: jsonscan.Unquote(key, jsonscan.Replace), off: base + start, raw: data[start:end]})
		return nil
	})
	return ms, err
}

// elements splits the JSON array data, which starts at offset base of its record, into its
// elements, each with its offset (the splitter's fuzz test holds it to encoding/json's; the
// harness reader walks its results one at a time instead).
func elements(data []byte, base int) ([]member, error) {
	var es []member
	_, err := jsonscan.EachElement(data, 0, func(start, end int) error {
		es = append(es, member{off: base + start, raw: data[start:end]})
		return nil
	})
	return es, err
}

// maxMembers is the most members one object of a task file may hold. Each costs a member of
// tens of bytes however few it takes in the file (`"x":0,` is six): without a count a 32 MB task
// of them took 1.2 GB (issue 34, finding 3); a task has a few. A variable so that tests can
// lower it.
var maxMembers = 1 << 16

// tooManyMembers is the error of members for an object of more than maxMembers members, at the
// value of the first past the limit (an offset in the record).
type tooManyMembers struct{ off int }

func (e *tooManyMembers) Error() string {
	return fmt.Sprintf("more than %d members in one object, the most a task file's object may hold", maxMembers)
}

// membersErr is the error for members' err about the object at offset off of rec: its count,
// placed, or (which cannot happen: the record is valid JSON) what JSON says.
func membersErr(rec input.Record, off int, where string, err error) error {
	if tm, ok := err.(*tooManyMembers); ok {
		return rec.ErrorAt(tm.off, "%s%s", where, tm.Error())
	}
	return rec.ErrorAt(off, "%sinvalid JSON object", where)
}

// lookup returns the last member named key (JSON parsers, Python's included, keep the last of
// repeated keys).
func lookup(ms []member, key string) (member, bool) {
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i].key == key {
			return ms[i], true
		}
	}
	return member{}, false
}

// kind names the type of a JSON value for an error message: "a string", "true", ….
func kind(raw []byte) string { return jsonscan.KindOfValue(raw).String() }

func hasAny(ms []member, keys ...string) bool {
	for _, k := range keys {
		if _, ok := lookup(ms, k); ok {
			return true
		}
	}
	return false
}

// EachInRecord passes the tasks of one record, as the readers of package input deliver it, to
// fn: what Each does for every record of a file, for callers that read the records themselves
// (gate/pipeline's workers).
func EachInRecord(rec input.Record, fn func(Task) error) error { return eachInRecord(rec, fn) }

// eachInRecord passes the tasks of one record to fn.
func eachInRecord(rec input.Record, fn func(Task) error) error {
	if err := jsonscan.Validate(rec.Data); err != nil { // JSON Lines records reach us unparsed
		e := err.(*jsonscan.Error)
		return rec.ErrorAt(e.Off, "invalid JSON: %s", e.Msg)
	}
	start := jsonscan.SkipSpace(rec.Data, 0)
	data := rec.Data[start:]
	if data[0] != '{' {
		return rec.ErrorAt(start, "expected a task object or an RCS harness results file, found %s", kind(data))
	}
	ms, err := members(data, start)
	if err != nil {
		return membersErr(rec, start, "", err)
	}
	lines := lineCounter{rec: rec}
	switch {
	case hasAny(ms, "id", "task_id", "intent", "understanding", "action"):
		t, err := parseTask(rec, ms, start, lines.at(start), "", "")
		if ie, ok := err.(*input.Error); ok {
			return ie.LooksLikeOther(rec.Data, input.KindTasks)
		} else if err != nil {
			return err
		}
		return fn(t)
	case hasAny(ms, "results"):
		return eachInHarness(rec, ms, start, &lines, fn)
	}
	keys := make([]string, 0, len(ms))
	for _, m := range ms {
		keys = append(keys, m.key)
	}
	sort.Strings(keys)
	keys = slices.Compact(keys)
	found := "an empty object"
	if len(keys) > 0 {
		const most = 20
		quoted := make([]string, 0, min(len(keys), most)+1)
		for _, k := range keys[:min(len(keys), most)] {
			quoted = append(quoted, input.Quote(k))
		}
		if len(keys) > most {
			quoted = append(quoted, fmt.Sprintf("and %d more", len(keys)-most))
		}
		found = "keys " + strings.Join(quoted, ", ")
	}
	return rec.ErrorAt(start, `expected a task ("id" or "task_id", "intent", "understanding", "action") `+
		`or an RCS harness results file ("model", "average_rcs", "results"), found %s`, found).LooksLikeOther(rec.Data, input.KindTasks)
}

// eachInHarness passes the tasks of an RCS harness results file, one per result, to fn.
func eachInHarness(rec input.Record, ms []member, start int, lines *lineCounter, fn func(Task) error) error {
	model := ""
	if m, ok := lookup(ms, "model"); ok && m.raw[0] != 'n' {
		if m.raw[0] != '"' {
			return rec.ErrorAt(m.off, "field %q: expected a string, found %s", "model", kind(m.raw))
		}
		model = jsonscan.Unquote(m.raw, jsonscan.Replace)
	}
	res, _ := lookup(ms, "results")
	if res.raw[0] != '[' {
		return rec.ErrorAt(res.off, "field %q: expected an array of results, found %s", "results", kind(res.raw))
	}
	// the results are read one at a time, as they come: none is held for the next
	i := 0
	_, err := jsonscan.EachElement(res.raw, 0, func(start, end int) error {
		e := member{off: res.off + start, raw: res.raw[start:end]}
		where := fmt.Sprintf("results[%d]: ", i)
		i++
		if e.raw[0] != '{' {
			return rec.ErrorAt(e.off, "%sexpected a result object, found %s", where, kind(e.raw))
		}
		ems, err := members(e.raw, e.off)
		if err != nil {
			return membersErr(rec, e.off, where, err)
		}
		t, err := parseTask(rec, ems, e.off, lines.at(e.off), model, where)
		if err != nil {
			return err
		}
		return fn(t)
	})
	if _, ok := err.(*jsonscan.Error); ok { // cannot happen: the record is valid JSON
		return rec.ErrorAt(res.off, "field %q: invalid JSON array", "results")
	}
	if err == nil && i == 0 {
		return rec.ErrorAt(res.off, "field %q: expected at least one result, found an empty array", "results")
	}
	return err
}

// lineCounter turns offsets in a record, asked for in increasing order, into line numbers
// without rescanning the record from its start each time.
type lineCounter struct {
	rec  input.Record
	off  int // offset already counted up to
	line int // line of offset off, relative to the record's first line
}

func (c *lineCounter) at(off int) int {
	if off > len(c.rec.Data) {
		off = len(c.rec.Data)
	}
	if off >= c.off {
		c.line += bytes.Count(c.rec.Data[c.off:off], []byte{'\n'})
		c.off = off
	}
	return c.rec.Line + c.line
}

// parseTask reads one task object whose members are ms and which starts at offset start of the
// record, on line line. model is the harness file's model (empty for a task record) and where
// prefixes errors that come before the task's id is known ("results[3]: ").
func parseTask(rec input.Record, ms []member, start, line int, model, where string) (Task, error) {
	t := Task{File: rec.File, Line: line, Model: model}

	idKey, otherKey := "id", "task_id"
	if where != "" { // harness results name it task_id
		idKey, otherKey = otherKey, idKey
	}
	m1, ok1 := lookup(ms, idKey)
	m2, ok2 := lookup(ms, otherKey)
	if !ok1 && !ok2 {
		return t, rec.ErrorAt(start, "%smissing field %q (or %q): expected a string naming the task", where, idKey, otherKey)
	}
	var id1, id2 string
	if ok1 {
		var err error
		if id1, err = parseID(rec, m1, idKey, where); err != nil {
			return t, err
		}
	}
	if ok2 {
		var err error
		if id2, err = parseID(rec, m2, otherKey, where); err != nil {
			return t, err
		}
	}
	switch {
	case ok1 && ok2 && id1 != id2:
		return t, rec.ErrorAt(m2.off, "%sfields %q (%s) and %q (%s) disagree: give one id", where, idKey, input.Quote(id1), otherKey, input.Quote(id2))
	case ok1:
		t.ID = id1
	default:
		t.ID = id2
	}

	prefix := fmt.Sprintf("task %s: ", input.Quote(t.ID))
	for _, f := range []struct {
		key string
		dst *string
	}{{"intent", &t.Intent}, {"understanding", &t.Understanding}, {"action", &t.Action}} {
		m, ok := lookup(ms, f.key)
		if !ok {
			hint := ""
			if _, ok := lookup(ms, "prompt"); ok && f.key != "intent" {
				hint = " (this looks like a task of the RCS harness's own tasks file, before a model " +
					"answered it: give agentgate the harness's results file, or records with the answers)"
			}
			return t, rec.ErrorAt(start, "%smissing field %q: expected a string%s", prefix, f.key, hint)
		}
		if m.raw[0] != '"' {
			return t, rec.ErrorAt(m.off, "%sfield %q: expected a string, found %s", prefix, f.key, kind(m.raw))
		}
		*f.dst = jsonscan.Unquote(m.raw, jsonscan.Replace)
	}
	if m, ok := lookup(ms, "reference_action"); ok && m.raw[0] != 'n' {
		if m.raw[0] != '"' {
			return t, rec.ErrorAt(m.off, "%sfield %q: expected a string, found %s", prefix, "reference_action", kind(m.raw))
		}
		t.ReferenceAction = jsonscan.Unquote(m.raw, jsonscan.Replace)
	}
	for _, f := range []struct {
		key string
		dst **float64
	}{{"alpha", &t.Alpha}, {"beta", &t.Beta}, {"gamma", &t.Gamma}} {
		m, ok := lookup(ms, f.key)
		if !ok {
			continue
		}
		found := kind(m.raw)
		if m.raw[0] == '-' || (m.raw[0] >= '0' && m.raw[0] <= '9') {
			found = string(m.raw)
			w, err := strconv.ParseFloat(string(m.raw), 64)
			if (err == nil || w == 0) && w >= 0 && !math.IsInf(w, 0) {
				if w == 0 {
					w = 0 // not -0
				}
				*f.dst = &w
				continue
			}
		}
		return t, rec.ErrorAt(m.off, "%sfield %q: expected a finite number >= 0, found %s", prefix, f.key, found)
	}
	return t, nil
}

// parseID reads a task id: a non-empty string, or a number taken as its JSON text.
func parseID(rec input.Record, m member, key, where string) (string, error) {
	switch m.raw[0] {
	case '"':
		// a lone surrogate is kept, so that the id stays distinct from the same id with
		// another lone surrogate (as pystr.LoneSurrogates does)
		id := jsonscan.Unquote(m.raw, jsonscan.Keep)
		if id == "" {
			return "", rec.ErrorAt(m.off, "%sfield %q: expected a non-empty string, found \"\"", where, key)
		}
		return id, nil
	case '{', '[', 't', 'f', 'n':
		return "", rec.ErrorAt(m.off, "%sfield %q: expected a string, found %s", where, key, kind(m.raw))
	}
	return string(m.raw), nil
}
