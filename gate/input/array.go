package input

import (
	"bytes"
	"errors"
	"io"
	"runtime"

	"github.com/agentgate/agentgate/internal/jsonscan"
)

// A JSON array of records (tau-bench writes its results so) is read here by a scanner that
// validates each element and finds its end several times faster than encoding/json's
// streaming Decoder, which remains the reference: eachValueStream. Whenever the scanner meets
// anything but a well-formed array of well-formed values (a syntax error, a file that ends too
// soon, something after the closing bracket, a single record), the file is read again from
// its start by eachValueStream, which passes over the records already delivered and says
// what is wrong (jsonscan finds it, in the bytes read since the last record). So the two
// agree on every input, errors included; the scanner only needs to accept no more than
// encoding/json does (jsonscan's FuzzAgainstEncodingJSON checks that).

// errFallBack asks eachScanned to read the file again with eachStreamed.
var errFallBack = errors.New("input: read again with encoding/json")

// eachValue reads r as an array of records if its first byte that is not white space is '[',
// and as a sequence of values otherwise, with the scanner (falling back on encoding/json).
func eachValue(name string, r io.Reader, fn func(Record) error) error {
	src := newSource(name, r)
	layout, err := src.detect(name)
	if err != nil {
		return err
	}
	return eachScanned(name, src, layout != Array, fn)
}

// eachScanned reads an array of records (seq false) or a sequence of JSON values (seq true)
// with the scanner, and reads it again with eachStreamed when the scanner meets anything
// unusual, or at once when the source cannot be read again.
func eachScanned(name string, src *source, seq bool, fn func(Record) error) error {
	if !src.canRewind() {
		return eachStreamed(name, src, seq, fn)
	}
	delivered := 0
	err := eachArray(name, src, seq, func(rec Record) error {
		delivered++
		return fn(rec)
	})
	if err != errFallBack {
		return err
	}
	if stopsReading(src.failed) {
		return readError(name, 0, src.failed) // an input over its limit: reading again meets it again
	}
	if err := src.rewind(); err != nil {
		return &Error{File: name, Msg: "read error: " + err.Error()}
	}
	skip := delivered
	return eachStreamed(name, src, seq, func(rec Record) error {
		if skip > 0 {
			skip--
			return nil
		}
		return fn(rec)
	})
}

// arrayReader holds the window of the file that the scanner is in.
type arrayReader struct {
	r    io.Reader
	buf  []byte // buf[0] is at offset base of the file
	base int64
	eof  bool
	err  error // a read error other than io.EOF

	// pos is the position of file offset counted, which lies in the window
	pos     jsonscan.Pos
	counted int64
}

// fill reads more of the file, keeping buf[keep:]; it returns false at the end of the file.
func (a *arrayReader) fill(keep int) bool {
	if a.eof {
		return false
	}
	a.drop(keep)
	if cap(a.buf)-len(a.buf) < 64<<10 {
		// double the window, but not far past the largest record allowed
		nb := make([]byte, len(a.buf), max(min(2*cap(a.buf), MaxRecord+128<<10), len(a.buf)+64<<10, 256<<10))
		copy(nb, a.buf)
		a.buf = nb
	}
	// Read until the window is full, so that a value that needs more room is scanned again
	// only as often as the window doubles, however little each read returns.
	before := len(a.buf)
	a.buf = a.buf[:before+a.readFull(a.buf[before:cap(a.buf)])]
	return len(a.buf) > before
}

// drop forgets the window's bytes before buf[keep].
func (a *arrayReader) drop(keep int) {
	if keep > 0 {
		a.count(a.base + int64(keep))
		n := copy(a.buf, a.buf[keep:])
		a.buf = a.buf[:n]
		a.base += int64(keep)
	}
}

// shrink is drop for a window grown to hold a huge record: the bytes after buf[keep] move to
// a window of their own size, so that the grown one can be collected.
func (a *arrayReader) shrink(keep int) {
	a.drop(keep)
	a.buf = bytes.Clone(a.buf)
}

// readFull reads into b until it is full or the file ends, and returns how much it read.
func (a *arrayReader) readFull(b []byte) int {
	n, empty := 0, 0
	for n < len(b) {
		m, err := a.r.Read(b[n:])
		n += m
		if err != nil {
			a.eof = true
			if err != io.EOF {
				a.err = err
			}
			break
		}
		if m > 0 {
			empty = 0
		} else if empty++; empty == 100 {
			a.eof, a.err = true, io.ErrNoProgress
			break
		}
	}
	return n
}

// longValue is the length past which a value still unfinished is read on by fillLong.
var longValue = 4 << 20 // a variable so that tests can lower it

// fillLong is fill for a long value that starts at buf[keep] and has not ended in the window.
// It reads on in blocks and joins them to the window only once a block holds a byte that can
// end the value (ends) and the window would double, or at the end of the file: a value of
// one string or of white space that passes MaxRecord is then refused (long) with about
// MaxRecord bytes of memory, not three times that in a window grown by doubling.
func (a *arrayReader) fillLong(keep int, ends func([]byte) bool) (more, long bool) {
	if a.eof {
		return false, false
	}
	a.drop(keep)
	blocks := [][]byte{a.buf}
	total, ended := len(a.buf), false
	for !a.eof {
		b := make([]byte, longValue)
		b = b[:a.readFull(b)]
		blocks = append(blocks, b)
		total += len(b)
		ended = ended || ends(b)
		if total > MaxRecord+128<<10 {
			if !ended {
				return false, true
			}
			break
		}
		if ended && total >= 2*len(a.buf) {
			break
		}
	}
	before := len(a.buf)
	nb := make([]byte, 0, total+64<<10)
	for _, b := range blocks {
		nb = append(nb, b...)
	}
	a.buf = nb
	if total >= HugeRecord {
		// collect the blocks and the old window now, as ChunkReader.readLong does: the
		// collection the join started found them live, and the heap would grow to twice that
		runtime.GC()
	}
	return len(a.buf) > before, false
}

// valueEnds returns whether a block of bytes holds one that can end a value that starts with
// the byte c: its closing bracket or quote, or for a number any byte a number does not hold.
func valueEnds(c byte) func([]byte) bool {
	var closing byte
	switch c {
	case '{':
		closing = '}'
	case '[':
		closing = ']'
	case '"':
		closing = '"'
	default:
		return func(b []byte) bool {
			return len(bytes.Trim(b, "0123456789+-.eE")) > 0
		}
	}
	return func(b []byte) bool { return bytes.IndexByte(b, closing) >= 0 }
}

// position returns the line and the column (in characters, as jsonscan counts them) of file
// offset off, which must not be before the last offset asked for.
func (a *arrayReader) position(off int64) (line, col int) {
	a.count(off)
	return a.pos.Line, a.pos.Col
}

// count advances the position up to file offset off, in the window.
func (a *arrayReader) count(off int64) {
	if off <= a.counted {
		return
	}
	a.pos.Advance(a.buf[a.counted-a.base : off-a.base])
	a.counted = off
}

// eachArray delivers the elements of a file that holds one JSON array (or, if seq, the values
// of a sequence of JSON values), or returns errFallBack (after the records it could deliver)
// for anything else. A record longer than MaxRecord is an error.
func eachArray(name string, r io.Reader, seq bool, fn func(Record) error) error {
	a := &arrayReader{r: r, pos: jsonscan.Start}
	a.fill(0)
	i := 0 // offset in a.buf
	// skipSpace passes over white space, reading on; false at the end of the file.
	skipSpace := func() bool {
		for {
			if i = jsonscan.SkipSpace(a.buf, i); i < len(a.buf) {
				return true
			}
			if !a.fill(i) {
				return false
			}
			i = 0
		}
	}
	if !skipSpace() {
		if a.err != nil {
			return errFallBack
		}
		return nil // nothing but white space: no records, as encoding/json says
	}
	if !seq {
		if a.buf[i] != '[' {
			return errFallBack
		}
		i++
		if !skipSpace() {
			return errFallBack
		}
		if a.buf[i] == ']' {
			i++
			return a.end(skipSpace)
		}
	}
	for {
		// one element, read whole: a value that reaches the end of the window (a number may go
		// on) or is cut short by it is scanned again in a larger window
		var end int
		for {
			var err error
			end, err = jsonscan.Skip(a.buf, i)
			if err == nil && (end < len(a.buf) || a.eof) {
				break
			}
			if a.eof || (err != nil && !jsonscan.AtEOF(err)) {
				return errFallBack // the stream reader says what is wrong
			}
			if len(a.buf)-i > MaxRecord {
				line, col := a.position(a.base + int64(i))
				return tooLarge(name, line, col)
			}
			keep := i
			more := false
			if len(a.buf)-i < longValue {
				more = a.fill(keep)
			} else {
				var long bool
				if more, long = a.fillLong(keep, valueEnds(a.buf[i])); long {
					line, col := a.position(a.base)
					return tooLarge(name, line, col)
				}
			}
			if !more {
				return errFallBack
			}
			i -= keep
		}
		off := a.base + int64(i)
		line, col := a.position(off)
		if end-i > MaxRecord {
			return tooLarge(name, line, col)
		}
		data := a.buf[i:end:end] // UTF-8: jsonscan checks every string
		if err := fn(Record{File: name, Line: line, Col: col, Data: data}); err != nil {
			return err
		}
		i = end
		if len(data) >= HugeRecord {
			// the record is delivered: let go of the window grown to hold it, and collect it
			// now (see HugeRecord), before the caller decodes its copy
			a.shrink(i)
			i = 0
			runtime.GC()
		}
		if seq {
			if !skipSpace() {
				if a.err != nil {
					return errFallBack
				}
				return nil
			}
			continue
		}
		if !skipSpace() {
			return errFallBack
		}
		switch a.buf[i] {
		case ',':
			i++
			if !skipSpace() {
				return errFallBack
			}
			continue
		case ']':
			i++
			return a.end(skipSpace)
		}
		return errFallBack
	}
}

// end checks that nothing but white space follows the closing bracket, up to the end of a
// file read without error.
func (a *arrayReader) end(skipSpace func() bool) error {
	if skipSpace() || a.err != nil {
		return errFallBack
	}
	return nil
}
