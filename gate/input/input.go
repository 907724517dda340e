// Package input streams JSON records out of the files an eval suite leaves behind and turns
// every problem with them into an error that names the file, the line and the column.
//
// A ".jsonl" file holds one record per line (blank lines are ignored, lines may be of any
// length); any other file holds one JSON value, either a record or an array of records, and an
// array is streamed element by element so memory does not grow with the number of records.
package input

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/agentgate/agentgate/internal/jsonscan"
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
	// LooksLike is the kind of input (KindPairs, …) the record looks like, when that is not
	// the kind it was given as; the message then ends with a hint naming the setting to use.
	LooksLike string
	// Hint is that hint, for a caller that knows how the file was given (an action input, a
	// folder); when it is empty the message ends with Hint(LooksLike, true), the command line's.
	Hint string
}

func (e *Error) Error() string {
	msg := e.Msg
	switch {
	case e.Hint != "":
		msg += "; " + e.Hint
	case e.LooksLike != "":
		msg += "; " + Hint(e.LooksLike, true)
	}
	switch {
	case e.Line > 0 && e.Col > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, msg)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, msg)
	case e.File != "":
		return fmt.Sprintf("%s: %s", e.File, msg)
	}
	return msg
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

// IsJSONLines reports whether the file called name is named as JSON Lines (its name ends
// ".jsonl" in any case).
//
// Deprecated: the layout of a file is decided by its content (docs/design.md#file-layouts-and-formats): use File.Layout.
func IsJSONLines(name string) bool { return strings.HasSuffix(strings.ToLower(name), ".jsonl") }

// EachReader is Each over an already open reader; name is used in errors and records. A *File
// (from Open) is read in the layout Open found; any other reader has its layout decided here,
// from its content, as Open decides it, and its byte order mark skipped.
func EachReader(name string, r io.Reader, fn func(Record) error) error {
	var n int
	count := func(rec Record) error { n++; return fn(rec) }
	var src *source
	var layout Layout
	if f, ok := r.(*File); ok {
		src, layout = f.src, f.layout
	} else {
		src = newSource(name, r)
		var err error
		if layout, err = src.detect(name); err != nil {
			return err
		}
	}
	var err error
	switch layout {
	case Lines:
		err = eachLine(name, src, count)
	default:
		err = eachScanned(name, src, layout == Values, count)
	}
	if err == nil && n == 0 {
		err = &Error{File: name, Msg: NoRecords}
	}
	return err
}

// NoRecords is the message of the error Each returns for a file that holds no record.
const NoRecords = "no records: the file is empty"

// IsEmptyFile reports whether err is Each's error for a file that holds no record.
func IsEmptyFile(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Msg == NoRecords && e.Line == 0
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

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
	bad := 0
	for bad < len(data) {
		r, size := utf8.DecodeRune(data[bad:])
		if r == utf8.RuneError && size == 1 {
			break
		}
		bad += size
	}
	p := jsonscan.Position(data, bad)
	if p.Line == 1 && startCol > 0 && line > 0 {
		p.Col += startCol - 1
	}
	if line > 0 {
		line += p.Line - 1
	}
	return &Error{File: name, Line: line, Col: p.Col, Msg: "invalid UTF-8: input files must be UTF-8 text"}
}

// eachValueStream reads r as eachValue does, with encoding/json alone: the reference the
// scanner is tested against.
func eachValueStream(name string, r io.Reader, fn func(Record) error) error {
	src := newSource(name, r)
	layout, err := src.detect(name)
	if err != nil {
		return err
	}
	return eachStreamed(name, src, layout != Array, fn)
}

// eachStreamed reads an array of records (seq false) or a sequence of values (seq true) with
// encoding/json's Decoder, streamed record by record (array.go reads faster, and falls back on
// this for anything unusual, errors included). What is wrong with a file is found by jsonscan,
// in the bytes the Decoder has read since the last record (see lineTracker.failure).
func eachStreamed(name string, r io.Reader, seq bool, fn func(Record) error) error {
	lt := &lineTracker{r: r}
	dec := json.NewDecoder(lt)
	dec.UseNumber()
	// at is where the Decoder stands in the grammar of the file, at the last mark
	at := inSequence
	if !seq {
		at = beforeArray
	}
	// emit checks the record the decoder just read and hands it to fn.
	emit := func(raw json.RawMessage) error {
		line, col := lt.position(dec.InputOffset() - int64(len(raw)))
		if len(raw) > MaxRecord {
			return tooLarge(name, line, col)
		}
		if !utf8.Valid(raw) {
			return invalidUTF8(name, line, col, raw)
		}
		if err := fn(Record{File: name, Line: line, Col: col, Data: raw}); err != nil {
			return err
		}
		lt.mark(dec.InputOffset())
		if !seq {
			at = afterElement
		}
		return nil
	}
	if seq {
		for {
			from := dec.InputOffset()
			var raw json.RawMessage
			err := dec.Decode(&raw)
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return lt.failure(name, err, from, at)
			}
			if err := emit(raw); err != nil {
				return err
			}
		}
	}
	// Peek at the first token without consuming a record.
	tok, err := dec.Token()
	if err == io.EOF {
		return nil
	}
	if err != nil || tok != json.Delim('[') {
		return lt.failure(name, err, 0, at)
	}
	lt.mark(dec.InputOffset())
	at = afterOpen
	for dec.More() {
		from := dec.InputOffset()
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return lt.failure(name, err, from, at)
		}
		if err := emit(raw); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // the closing ']'
		return lt.failure(name, err, dec.InputOffset(), at)
	}
	lt.mark(dec.InputOffset())
	at = afterArray
	if _, err := dec.Token(); err != io.EOF {
		return lt.failure(name, err, dec.InputOffset(), at)
	}
	return nil
}

// tooLarge is the error for a record longer than MaxRecord that starts at line:col.
func tooLarge(name string, line, col int) *Error {
	limit := fmt.Sprintf("%d bytes", MaxRecord)
	if MaxRecord%(1<<20) == 0 {
		limit = fmt.Sprintf("%d MiB", MaxRecord>>20)
	}
	return &Error{File: name, Line: line, Col: col, Msg: "record too large: longer than " + limit + ", the most a record may hold"}
}

// errTooLarge is what lineTracker's Read returns once the bytes not yet decoded exceed
// MaxRecord.
var errTooLarge = errors.New("record too large")

// lineTracker passes bytes through to a json.Decoder while keeping the bytes not yet decoded,
// so that a decoder offset can be turned into a line and column and a syntax error can be
// found and located exactly by jsonscan. The window is trimmed as records are consumed, so its
// memory is bounded by the largest record, not the file.
type lineTracker struct {
	r       io.Reader
	read    int64        // bytes passed through so far
	pos     jsonscan.Pos // the position of offset counted, which is in the window
	counted int64
	win     []byte // bytes from winOff up to read
	winOff  int64
	full    bool  // Read has returned errTooLarge
	err     error // the error of r, other than io.EOF
}

func (t *lineTracker) Read(p []byte) (int, error) {
	if len(t.win) > MaxRecord+2*trackerRead {
		t.full = true
		return 0, errTooLarge
	}
	// Small reads: the Decoder reads only when the value it decodes needs more bytes, so the
	// window then holds that value and at most one read more, and its size tells a record too
	// large.
	if len(p) > trackerRead {
		p = p[:trackerRead]
	}
	n, err := t.r.Read(p)
	t.win = append(t.win, p[:n]...)
	t.read += int64(n)
	if err != nil && err != io.EOF {
		t.err = err
	}
	return n, err
}

// trackerRead is the most a lineTracker reads at a time.
const trackerRead = 64 << 10

// mark forgets the window's bytes before offset off: they have been decoded.
func (t *lineTracker) mark(off int64) {
	if d := off - t.winOff; d > 0 && d <= int64(len(t.win)) {
		t.count(off)
		t.win = append(t.win[:0], t.win[d:]...)
		t.winOff = off
	}
}

// position returns the line and column (in characters, as jsonscan counts them) of offset off.
// Offsets before the last one asked for (or marked) are taken as that one.
func (t *lineTracker) position(off int64) (line, col int) {
	if t.pos.Line == 0 {
		t.pos = jsonscan.Start
	}
	t.count(off)
	return t.pos.Line, t.pos.Col
}

// count advances the position to offset off (at most to the end of the window).
func (t *lineTracker) count(off int64) {
	if t.pos.Line == 0 {
		t.pos = jsonscan.Start
	}
	off = min(off, t.winOff+int64(len(t.win)))
	if off > t.counted {
		t.pos.Advance(t.win[t.counted-t.winOff : off-t.winOff])
		t.counted = off
	}
}

// grammarState is where a reader of a file stands between its records.
type grammarState uint8

const (
	inSequence   grammarState = iota // a sequence of values: before one, or at the end
	beforeArray                      // at the start of an array file, before its '['
	afterOpen                        // just after the array's '['
	afterElement                     // just after an element of the array
	afterArray                       // just after the array's closing ']'
)

// failure turns the Decoder's error err into an *Error. A record too large is reported where
// it starts (at or after white space, a comma or a bracket from decoder offset from); anything
// else is what jsonscan finds wrong in the window, read from its start (the last mark), where
// the file stands at.
func (t *lineTracker) failure(name string, err error, from int64, at grammarState) *Error {
	if t.full || errors.Is(err, errTooLarge) {
		off := from
		if d := from - t.winOff; d >= 0 && d <= int64(len(t.win)) {
			rest := t.win[d:]
			i := 0
			for i < len(rest) && (isSpace(rest[i]) || rest[i] == ',' || rest[i] == '[') {
				i++
			}
			off += int64(i)
		}
		line, col := t.position(off)
		return tooLarge(name, line, col)
	}
	off, problem := scanFrom(t.win, at)
	var se *jsonscan.Error
	eof := errors.As(problem, &se) && se.EOF
	line, col := t.position(t.winOff + int64(off))
	switch {
	case problem != nil && !eof:
		if r, size := utf8.DecodeRune(t.win[off:]); r == utf8.RuneError && size == 1 {
			return invalidUTF8(name, line, col, t.win[off:]) // the Decoder lets such bytes pass
		}
	case t.err != nil:
		return readError(name, line, t.err)
	case problem == nil:
		// the Decoder failed on what jsonscan accepts, which the fuzz tests say does not
		// happen; never let it pass all the same
		return &Error{File: name, Line: line, Col: col, Msg: fmt.Sprintf("cannot read the file: %v", err)}
	}
	if se != nil {
		return &Error{File: name, Line: line, Col: col, Msg: "invalid JSON: " + se.Msg}
	}
	return &Error{File: name, Line: line, Col: col, Msg: problem.Error()}
}

// scanFrom finds the first thing wrong in win, which starts where a reader of the file stands
// at: the offset in win and the error (a *jsonscan.Error, or an error about what follows an
// array), or nil if there is nothing wrong in it.
func scanFrom(win []byte, at grammarState) (int, error) {
	i := 0
	var err error
	for {
		switch at {
		case inSequence:
			if i = jsonscan.SkipSpace(win, i); i == len(win) {
				return i, nil
			}
			i, err = jsonscan.Skip(win, i)
		case beforeArray:
			switch i = jsonscan.SkipSpace(win, i); {
			case i == len(win):
				return i, &jsonscan.Error{Off: i, Msg: "unexpected end of input, expected an array", EOF: true}
			case win[i] != '[':
				return i, &jsonscan.Error{Off: i, Msg: jsonscan.Expected("an array", jsonscan.KindOf(win[i]))}
			}
			i, at = i+1, afterOpen
		case afterOpen:
			if i = jsonscan.SkipSpace(win, i); i < len(win) && win[i] == ']' {
				i, at = i+1, afterArray
				continue
			}
			i, err = jsonscan.Skip(win, i)
			at = afterElement
		case afterElement:
			var closed bool
			if i, closed, err = jsonscan.Next(win, i, ']'); err == nil {
				if at = afterOpen; closed {
					at = afterArray
				} else if i, err = jsonscan.Skip(win, i); err == nil {
					at = afterElement
				}
			}
		case afterArray:
			if i = jsonscan.SkipSpace(win, i); i < len(win) {
				return i, fmt.Errorf("unexpected %s after the closing ']' of the array", jsonscan.Found(win, i))
			}
			return i, nil
		}
		if err != nil {
			return i, err
		}
	}
}
