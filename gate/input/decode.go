package input

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"

	"github.com/agentgate/agentgate/internal/jsonscan"
)

// Decode unmarshals the record into v. Its problems become an *Error at the file, line and
// column inside the record, in jsonscan's words: a syntax error as jsonscan finds it, a value
// of the wrong kind at the start of that value, with its path ("field \"messages[0].role\":
// expected a string, found an array").
func (rec Record) Decode(v any) error {
	if err := jsonscan.Validate(rec.Data); err != nil {
		var se *jsonscan.Error
		if errors.As(err, &se) {
			return rec.ErrorAt(se.Off, "invalid JSON: %s", se.Msg)
		}
		return rec.Errorf("invalid JSON: %v", err)
	}
	err := json.Unmarshal(rec.Data, v)
	var te *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case !errors.As(err, &te):
		return rec.Errorf("%v", err)
	}
	start, msg := TypeError(rec.Data, int(te.Offset), te)
	return rec.ErrorAt(start, "%s", msg)
}

// TypeError places and words encoding/json's type error te about data, the valid JSON text it
// decoded (one value, or several in a row), off being the error's offset in data (te.Offset,
// plus where decoding started when it did not start at data's beginning). It returns where the
// value at fault starts and `field "messages[0].role": expected a string, found an array` (the
// path from the top of the value holding it, written by Field). The path is
// found in the text rather than taken from the error, whose Field differs between
// encoding/json's implementations, and so is the offset (see typeErrorAtStart).
func TypeError(data []byte, off int, te *json.UnmarshalTypeError) (int, string) {
	want := "a value of Go type " + fmt.Sprint(te.Type)
	if t := te.Type; t != nil {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		want = JSONKind(t.Kind().String())
	}
	top, start := typeErrorValue(data, off)
	return start, Field(jsonscan.PathAt(data[top:], start-top).String(), jsonscan.Expected(want, jsonscan.KindOfValue(data[start:])))
}

// Field prefixes msg, a problem with a value, with the value's path in a record, quoted (keys
// come from the input): `field "messages[0].role": expected a string, found an array`. An
// empty path, the record itself, adds nothing.
func Field(path, msg string) string {
	if path == "" {
		return msg
	}
	return "field " + Quote(path) + ": " + msg
}

// typeErrorAtStart reports whether encoding/json gives a type error the offset where the value
// starts, as its implementation on encoding/json/v2 does (GOEXPERIMENT=jsonv2); the classic one
// gives the offset just past a number, string or literal, and just past the '[' or '{' of an
// array or object.
var typeErrorAtStart = sync.OnceValue(func() bool {
	var te *json.UnmarshalTypeError
	return errors.As(json.Unmarshal([]byte("0"), new(string)), &te) && te.Offset == 0
})

// errFound stops the walk of typeErrorValue.
var errFound = errors.New("found")

// typeErrorValue finds the value of data (valid JSON) that encoding/json's type error at
// offset off is about, and returns where the top value holding it starts and where it starts.
// An offset that fits no value is returned as it is.
func typeErrorValue(data []byte, off int) (top, start int) {
	atStart := typeErrorAtStart()
	// is reports whether the value data[s:e] is the one the error is about
	is := func(s, e int) bool {
		switch {
		case atStart:
			return s == off
		case data[s] == '[' || data[s] == '{':
			return s+1 == off
		}
		return e == off
	}
	var walk func(s, e int) bool
	walk = func(s, e int) bool {
		if is(s, e) {
			start = s
			return true
		}
		found := false
		// descend into the member or element that holds off
		enter := func(vs, ve int) error {
			if vs <= off && off <= ve {
				found = walk(vs, ve)
				return errFound
			}
			return nil
		}
		switch data[s] {
		case '{':
			_, _ = jsonscan.EachMember(data, s, func(_ []byte, vs, ve int) error { return enter(vs, ve) })
		case '[':
			_, _ = jsonscan.EachElement(data, s, enter)
		}
		return found
	}
	for s := jsonscan.SkipSpace(data, 0); s < len(data); {
		e, err := jsonscan.Skip(data, s)
		if err != nil {
			break
		}
		if off <= e {
			if walk(s, e) {
				return s, start
			}
			break
		}
		s = jsonscan.SkipSpace(data, e)
	}
	off = min(max(off, 0), len(data))
	return off, off
}

// ErrorAt returns an *Error at byte offset off inside the record's data; its column counts
// characters (see package jsonscan).
func (rec Record) ErrorAt(off int, format string, args ...any) *Error {
	if off < 0 {
		off = 0
	}
	if off > len(rec.Data) {
		off = len(rec.Data)
	}
	p := jsonscan.Position(rec.Data, off)
	col := p.Col
	if p.Line == 1 && rec.Col > 1 {
		col += rec.Col - 1 // the record starts inside its first line
	}
	line := rec.Line + p.Line - 1
	if rec.Line == 0 {
		line = 0
	}
	return &Error{File: rec.File, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// JSONKind names a Go kind (reflect.Kind's String) as the JSON value that decodes into it, for
// the messages of encoding/json's type errors: "an array", "an integer", "true or false".
func JSONKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "slice", "array":
		return "an array"
	case "map", "struct":
		return "an object"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "an integer"
	case "float32", "float64":
		return "a number"
	}
	return goKind
}
