package input

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
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
	want := te.Type
	for want != nil && want.Kind() == reflect.Pointer {
		want = want.Elem()
	}
	wantKind := "a value of Go type " + fmt.Sprint(te.Type)
	if want != nil {
		wantKind = JSONKind(want.Kind().String())
	}
	start, path := typeErrorValue(rec.Data, int(te.Offset))
	msg := jsonscan.Expected(wantKind, jsonscan.KindOfValue(rec.Data[start:]))
	if path != "" {
		msg = fmt.Sprintf("field %s: %s", Quote(path), msg)
	}
	return rec.ErrorAt(start, "%s", msg)
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
// offset off is about, and returns where it starts and its path from the root
// ("messages[0].role"; "" for the root itself). The path is built here rather than taken from
// the error, whose Field names differ between encoding/json's implementations. An offset that
// fits no value is returned as it is.
func typeErrorValue(data []byte, off int) (start int, path string) {
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
	var walk func(s, e int, path []byte) bool
	walk = func(s, e int, p []byte) bool {
		if is(s, e) {
			start, path = s, string(p)
			return true
		}
		found := false
		// descend into the member or element that holds off
		enter := func(vs, ve int, p []byte) error {
			if vs <= off && off <= ve {
				found = walk(vs, ve, p)
				return errFound
			}
			return nil
		}
		switch data[s] {
		case '{':
			jsonscan.EachMember(data, s, func(key []byte, vs, ve int) error {
				q := p
				if len(q) > 0 {
					q = append(q, '.')
				}
				return enter(vs, ve, append(q, jsonscan.Unquote(key, jsonscan.Replace)...))
			})
		case '[':
			n := 0
			jsonscan.EachElement(data, s, func(vs, ve int) error {
				n++
				return enter(vs, ve, append(strconv.AppendInt(append(p, '['), int64(n-1), 10), ']'))
			})
		}
		return found
	}
	s := jsonscan.SkipSpace(data, 0)
	end, _ := jsonscan.Skip(data, s)
	if !walk(s, end, nil) {
		return min(max(off, 0), len(data)), ""
	}
	return start, path
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
