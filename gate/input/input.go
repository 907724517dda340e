// Package input streams JSON records out of the files an eval suite leaves behind and turns
// every problem with them into an error that names the file, the line and the column.
//
// A ".jsonl" file holds one record per line (blank lines are ignored, lines may be of any
// length); any other file holds one JSON value, either a record or an array of records, and an
// array is streamed element by element so memory does not grow with the number of records.
package input

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"
)

// Record is one JSON record and where it starts. Every record the readers of this package
// deliver is valid UTF-8 (a record that is not is an error).
type Record struct {
	File string // the path as it was matched
	Line int    // 1-based line on which the record starts
	Col  int    // 1-based column at which it starts (records in a JSON array may share a line)
	Data []byte // the record's JSON text; only valid until the callback returns
}

// Error is a problem with an input file, pointing at file:line:col when those are known.
type Error struct {
	File string
	Line int // 0 when the problem concerns the whole file
	Col  int // 0 when unknown
	Msg  string
}

func (e *Error) Error() string {
	switch {
	case e.Line > 0 && e.Col > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	case e.File != "":
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return e.Msg
}

// Errorf returns an *Error for the record rec.
func (rec Record) Errorf(format string, args ...any) *Error {
	return &Error{File: rec.File, Line: rec.Line, Msg: fmt.Sprintf(format, args...)}
}

// IsInputError reports whether err is (or wraps) an *Error: bad input rather than a failure
// of the machine.
func IsInputError(err error) bool {
	var e *Error
	return errors.As(err, &e)
}

// SplitList splits a flag or action input that may hold several patterns, separated by
// newlines or commas, as multi-line action inputs usually are.
func SplitList(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == ',' }) {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// Each streams the records of the file at path to fn, in file order. It stops at the first
// error, from the file or from fn, and returns it. A file holding no record is an error.
func Each(path string, fn func(Record) error) error {
	f, err := Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return EachReader(path, f, fn)
}

// Open opens an input file for reading; a failure is an *Error saying why, as Each says it.
func Open(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{File: path, Msg: fmt.Sprintf("cannot open: %v", unwrapPathError(err))}
	}
	return f, nil
}

// IsJSONLines reports whether the file called name holds JSON Lines (its name ends ".jsonl"
// in any case) rather than one JSON value.
func IsJSONLines(name string) bool { return strings.HasSuffix(strings.ToLower(name), ".jsonl") }

// EachReader is Each over an already open reader; name is used in errors and records and
// decides the format (".jsonl" suffix or not).
func EachReader(name string, r io.Reader, fn func(Record) error) error {
	var n int
	count := func(rec Record) error { n++; return fn(rec) }
	var err error
	if IsJSONLines(name) {
		err = eachLine(name, r, count)
	} else {
		err = eachValue(name, r, count)
	}
	if err == nil && n == 0 {
		err = &Error{File: name, Msg: "no records: the file is empty"}
	}
	return err
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

var bom = []byte{0xef, 0xbb, 0xbf}

// eachLine reads a JSON Lines file. Lines of any length are read whole.
func eachLine(name string, r io.Reader, fn func(Record) error) error {
	cr := NewChunkReader(name, r)
	buf := make([]byte, 0, 256<<10)
	for {
		c, err := cr.Next(buf)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := c.EachRecord(fn); err != nil {
			return err
		}
		buf = c.Data
	}
}

// CheckUTF8 returns the error a line of JSON Lines that is not UTF-8 gets (see
// Chunk.EachRecordUnchecked), or nil if the record is UTF-8.
func (r Record) CheckUTF8() error {
	if utf8.Valid(r.Data) {
		return nil
	}
	return invalidUTF8(r.File, r.Line, 0, r.Data)
}

func invalidUTF8(name string, line, startCol int, data []byte) *Error {
	col := 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			break
		}
		i += size
		col++
	}
	if startCol > 0 && line > 0 {
		col += startCol - 1
	}
	return &Error{File: name, Line: line, Col: col, Msg: "invalid UTF-8: input files must be UTF-8 text"}
}

// eachValueStream reads a file holding one JSON value: a record, or an array streamed element
// by element, with encoding/json's Decoder (array.go reads arrays faster, and falls back on
// this for anything unusual).
func eachValueStream(name string, r io.Reader, fn func(Record) error) error {
	lt := &lineTracker{r: r}
	dec := json.NewDecoder(lt)
	dec.UseNumber()
	// Peek at the first token without consuming a record.
	tok, err := dec.Token()
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return lt.syntaxError(name, err, dec.InputOffset())
	}
	if tok != json.Delim('[') {
		// A single record: re-read it whole. Files of one record are small by nature, but
		// read them through the same decoder path to keep positions right.
		return eachSingle(name, lt, fn)
	}
	lt.mark(dec.InputOffset())
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return lt.syntaxError(name, err, dec.InputOffset())
		}
		start := dec.InputOffset() - int64(len(raw))
		line, col := lt.position(start)
		if !utf8.Valid(raw) {
			return invalidUTF8(name, line, col, raw)
		}
		if err := fn(Record{File: name, Line: line, Col: col, Data: raw}); err != nil {
			return err
		}
		lt.mark(dec.InputOffset())
	}
	if _, err := dec.Token(); err != nil { // the closing ']'
		return lt.syntaxError(name, err, dec.InputOffset())
	}
	if tok, err := dec.Token(); err != io.EOF {
		if err != nil {
			return lt.syntaxError(name, err, dec.InputOffset())
		}
		line, col := lt.position(dec.InputOffset() - 1) // the offset is just past the token
		return &Error{File: name, Line: line, Col: col, Msg: fmt.Sprintf("unexpected %v after the closing ']' of the array", tok)}
	}
	return nil
}

// eachSingle handles a file whose top-level value is not an array: it must be exactly one
// JSON value.
func eachSingle(name string, lt *lineTracker, fn func(Record) error) error {
	data := lt.all()
	rest, err := io.ReadAll(lt.r)
	if err != nil {
		return &Error{File: name, Msg: fmt.Sprintf("read error: %v", err)}
	}
	data = append(data, rest...)
	data = bytes.TrimPrefix(data, bom)
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	offset := len(data) - len(trimmed)
	line := 1 + bytes.Count(data[:offset], []byte{'\n'})
	if !utf8.Valid(data) {
		bad := 0
		for bad < len(data) {
			r, size := utf8.DecodeRune(data[bad:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			bad += size
		}
		l, c := positionIn(data, bad)
		return &Error{File: name, Line: l, Col: c, Msg: "invalid UTF-8: input files must be UTF-8 text"}
	}
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			l, c := positionIn(data, int(se.Offset)-1)
			return &Error{File: name, Line: l, Col: c, Msg: "invalid JSON: " + se.Error()}
		}
		return &Error{File: name, Line: line, Msg: fmt.Sprintf("invalid JSON: %v", err)}
	}
	return fn(Record{File: name, Line: line, Col: 1 + offset - (bytes.LastIndexByte(data[:offset], '\n') + 1), Data: bytes.TrimSpace(data)})
}

// positionIn returns the 1-based line and column (in characters) of byte offset off in data.
func positionIn(data []byte, off int) (line, col int) {
	if off > len(data) {
		off = len(data)
	}
	line = 1 + bytes.Count(data[:off], []byte{'\n'})
	lineStart := bytes.LastIndexByte(data[:off], '\n') + 1
	return line, 1 + utf8.RuneCount(data[lineStart:off])
}

// lineTracker passes bytes through to a json.Decoder while remembering where lines start and
// keeping the bytes not yet decoded, so that a decoder offset can be turned into a line and
// column and a syntax error can be located exactly (the Decoder's own SyntaxError offsets are
// relative to its internal buffer). Both are trimmed as records are consumed, so its memory is
// bounded by the largest record, not the file.
type lineTracker struct {
	r        io.Reader
	read     int64   // bytes passed through so far
	baseLine int     // line number of the line starting at baseOff (0 before the first read)
	baseOff  int64   // offset where line baseLine starts
	starts   []int64 // offsets of line starts after baseOff, ascending
	win      []byte  // bytes from winOff up to read
	winOff   int64
}

func (t *lineTracker) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	for i := 0; i < n; i++ {
		if p[i] == '\n' {
			t.starts = append(t.starts, t.read+int64(i)+1)
		}
	}
	t.win = append(t.win, p[:n]...)
	t.read += int64(n)
	return n, err
}

// all returns every byte read so far; only meaningful before the first mark.
func (t *lineTracker) all() []byte { return t.win }

// mark forgets the window's bytes before offset off: they have been decoded.
func (t *lineTracker) mark(off int64) {
	if d := off - t.winOff; d > 0 && d <= int64(len(t.win)) {
		t.win = append(t.win[:0], t.win[d:]...)
		t.winOff = off
	}
}

// position returns the 1-based line and column (in bytes) of offset off. Offsets must not
// decrease between calls.
func (t *lineTracker) position(off int64) (line, col int) {
	if t.baseLine == 0 {
		t.baseLine = 1
	}
	i := 0
	for i < len(t.starts) && t.starts[i] <= off {
		i++
	}
	if i > 0 {
		t.baseLine += i
		t.baseOff = t.starts[i-1]
		t.starts = t.starts[i:]
	}
	return t.baseLine, int(off-t.baseOff) + 1
}

// syntaxError locates the first syntax error at or after decoder offset from (the start of the
// value being decoded) by re-scanning the kept bytes.
func (t *lineTracker) syntaxError(name string, err error, from int64) *Error {
	msg := err.Error()
	off := t.read
	if d := from - t.winOff; d >= 0 && d <= int64(len(t.win)) {
		var v any
		rest := t.win[d:]
		uerr := json.Unmarshal(rest, &v)
		var se *json.SyntaxError
		switch {
		case errors.As(uerr, &se) && se.Error() != "unexpected end of JSON input":
			off = from + se.Offset - 1
			msg = se.Error()
		case uerr != nil || err == io.ErrUnexpectedEOF || err == io.EOF:
			off = t.read
			msg = "unexpected end of file: the JSON value is not complete"
		}
	}
	if off < t.baseOff {
		off = t.baseOff
	}
	line, col := t.position(off)
	return &Error{File: name, Line: line, Col: col, Msg: "invalid JSON: " + msg}
}
