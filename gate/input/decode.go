package input

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentgate/agentgate/internal/jsonscan"
)

// Decode unmarshals the record into v. JSON errors become an *Error that points at the file,
// line and column inside the record, and says what was expected.
func (rec Record) Decode(v any) error {
	err := json.Unmarshal(rec.Data, v)
	if err == nil {
		return nil
	}
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return rec.ErrorAt(int(se.Offset)-1, "invalid JSON: %s", se.Error())
	case errors.As(err, &te):
		what := "value"
		if te.Field != "" {
			what = fmt.Sprintf("field %q", te.Field)
		}
		return rec.ErrorAt(int(te.Offset), "%s: expected %s, found a JSON %s", what, JSONKind(te.Type.Kind().String()), te.Value)
	}
	return rec.Errorf("%v", err)
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
