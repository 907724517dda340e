package input

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/bits"
	"unicode/utf8"
)

// A JSON array of records (tau-bench writes its results so) is read here by a scanner that
// validates each element and finds its end several times faster than encoding/json's
// streaming Decoder, which remains the reference: eachValueStream. Whenever the scanner meets
// anything but a well-formed array of well-formed values (a syntax error, a file that ends too
// soon, something after the closing bracket, a single record), the file is read again from
// its start by eachValueStream, which passes over the records already delivered and says
// exactly what it always said. So the two agree on every input, errors included; the scanner
// only needs to accept no more than encoding/json does (FuzzArrayScanner checks that).

// errFallBack asks eachScanned to read the file again with eachStreamed.
var errFallBack = errors.New("input: read again with encoding/json")

// eachValue reads r as an array of records if its first byte that is not white space is '[',
// and as a sequence of values otherwise, with the scanner (falling back on encoding/json).
func eachValue(name string, r io.Reader, fn func(Record) error) error {
	src := newSource(r)
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

	// line is the number of the line in which offset counted lies, which starts at lineStart
	line      int
	counted   int64
	lineStart int64
}

// fill reads more of the file, keeping buf[keep:]; it returns false at the end of the file.
func (a *arrayReader) fill(keep int) bool {
	if a.eof {
		return false
	}
	if keep > 0 {
		a.count(a.base + int64(keep))
		n := copy(a.buf, a.buf[keep:])
		a.buf = a.buf[:n]
		a.base += int64(keep)
	}
	if cap(a.buf)-len(a.buf) < 64<<10 {
		// double the window, but not far past the largest record allowed
		nb := make([]byte, len(a.buf), max(min(2*cap(a.buf), MaxRecord+128<<10), len(a.buf)+64<<10, 256<<10))
		copy(nb, a.buf)
		a.buf = nb
	}
	// Read until the window is full, so that a value that needs more room is scanned again
	// only as often as the window doubles, however little each read returns.
	before, empty := len(a.buf), 0
	for len(a.buf) < cap(a.buf) {
		n, err := a.r.Read(a.buf[len(a.buf):cap(a.buf)])
		a.buf = a.buf[:len(a.buf)+n]
		if err != nil {
			a.eof = true
			if err != io.EOF {
				a.err = err
			}
			break
		}
		if n > 0 {
			empty = 0
		} else if empty++; empty == 100 {
			a.eof, a.err = true, io.ErrNoProgress
			break
		}
	}
	return len(a.buf) > before
}

// position returns the line and the column (in bytes) of file offset off, which must not be
// before the last offset asked for.
func (a *arrayReader) position(off int64) (line, col int) {
	a.count(off)
	return a.line, int(off-a.lineStart) + 1
}

// count counts the lines up to file offset off, in the window.
func (a *arrayReader) count(off int64) {
	if off <= a.counted {
		return
	}
	seg := a.buf[a.counted-a.base : off-a.base]
	if n := bytes.Count(seg, newline); n > 0 {
		a.line += n
		a.lineStart = a.counted + int64(bytes.LastIndexByte(seg, '\n')) + 1
	}
	a.counted = off
}

// eachArray delivers the elements of a file that holds one JSON array (or, if seq, the values
// of a sequence of JSON values), or returns errFallBack (after the records it could deliver)
// for anything else. A record longer than MaxRecord is an error.
func eachArray(name string, r io.Reader, seq bool, fn func(Record) error) error {
	a := &arrayReader{r: r, line: 1}
	a.fill(0)
	i := 0 // offset in a.buf
	// skipSpace passes over white space, reading on; false at the end of the file.
	skipSpace := func() bool {
		for {
			for i < len(a.buf) {
				switch a.buf[i] {
				case ' ', '\t', '\n', '\r':
					i++
					continue
				}
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
		// one element, read whole
		var end int
		for {
			s := scanner{data: a.buf, i: i}
			s.value()
			if !s.failed && (!s.truncated || a.eof) {
				end = s.i
				break
			}
			if !s.truncated || a.eof {
				return errFallBack
			}
			if len(a.buf)-i > MaxRecord {
				line, col := a.position(a.base + int64(i))
				return tooLarge(name, line, col)
			}
			keep := i
			if !a.fill(keep) {
				return errFallBack
			}
			i -= keep
		}
		off := a.base + int64(i)
		line, col := a.position(off)
		if end-i > MaxRecord {
			return tooLarge(name, line, col)
		}
		data := a.buf[i:end:end]
		if !utf8.Valid(data) {
			return invalidUTF8(name, line, col, data)
		}
		if err := fn(Record{File: name, Line: line, Col: col, Data: data}); err != nil {
			return err
		}
		i = end
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

// scanner validates one JSON value and finds its end, accepting exactly what encoding/json
// accepts (with its nesting limit). It notes when it ran out of data (truncated), which may
// only mean that the window must grow.
type scanner struct {
	data      []byte
	i         int
	depth     int
	failed    bool
	truncated bool
}

const maxDepth = 10000 // encoding/json's nesting limit

func (s *scanner) fail() {
	if !s.failed {
		s.failed = true
		s.truncated = s.i >= len(s.data)
	}
}

func (s *scanner) space() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// value passes over one value, containers included, without recursion.
func (s *scanner) value() {
	var small [64]byte
	stack := small[:0]
	for {
		// a value is expected at s.i
		s.space()
		if s.i >= len(s.data) {
			s.fail()
			return
		}
		switch c := s.data[s.i]; c {
		case '{', '[':
			s.i++
			if s.depth++; s.depth > maxDepth {
				s.failed = true
				return
			}
			stack = append(stack, c)
			s.space()
			if s.i >= len(s.data) {
				s.fail()
				return
			}
			if (c == '{' && s.data[s.i] == '}') || (c == '[' && s.data[s.i] == ']') {
				s.i++
				s.depth--
				stack = stack[:len(stack)-1]
				break
			}
			if c == '{' && !s.key() {
				return
			}
			continue
		case '"':
			s.str()
		case 't':
			s.literal("true")
		case 'f':
			s.literal("false")
		case 'n':
			s.literal("null")
		default:
			if c == '-' || (c >= '0' && c <= '9') {
				s.number()
			} else {
				s.failed = true
			}
		}
		if s.failed {
			return
		}
		// after a value: a comma, or the end of the innermost container
		for {
			if len(stack) == 0 {
				return
			}
			s.space()
			if s.i >= len(s.data) {
				s.fail()
				return
			}
			top, c := stack[len(stack)-1], s.data[s.i]
			if c == ',' {
				s.i++
				if top == '{' && !s.key() {
					return
				}
				break
			}
			if (top == '{' && c == '}') || (top == '[' && c == ']') {
				s.i++
				s.depth--
				stack = stack[:len(stack)-1]
				continue
			}
			s.failed = true
			return
		}
	}
}

// key passes over an object key and its colon.
func (s *scanner) key() bool {
	s.space()
	if s.i >= len(s.data) {
		s.fail()
		return false
	}
	if s.data[s.i] != '"' {
		s.failed = true
		return false
	}
	if s.str(); s.failed {
		return false
	}
	s.space()
	if s.i >= len(s.data) {
		s.fail()
		return false
	}
	if s.data[s.i] != ':' {
		s.failed = true
		return false
	}
	s.i++
	return true
}

func (s *scanner) literal(lit string) {
	rest := s.data[s.i:]
	if len(rest) < len(lit) {
		if bytes.HasPrefix([]byte(lit), rest) {
			s.i = len(s.data)
			s.fail()
			return
		}
		s.failed = true
		return
	}
	if string(rest[:len(lit)]) != lit {
		s.failed = true
		return
	}
	s.i += len(lit)
}

// number passes over a number. One that reaches the end of the data may go on beyond it: it
// counts as truncated.
func (s *scanner) number() {
	d, i := s.data, s.i
	digits := func() bool {
		start := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		return i > start
	}
	if d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case !digits():
		s.i = i
		s.fail()
		return
	}
	if i < len(d) && d[i] == '.' {
		i++
		if !digits() {
			s.i = i
			s.fail()
			return
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if !digits() {
			s.i = i
			s.fail()
			return
		}
	}
	s.i = i
	if i >= len(d) {
		s.truncated = true // the number may go on
	}
}

// str passes over a string, eight bytes at a time while none needs a look.
func (s *scanner) str() {
	d := s.data
	i := s.i + 1
	for {
		for i+8 <= len(d) {
			if m := specials(binary.LittleEndian.Uint64(d[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(d) {
			s.i = i
			s.fail()
			return
		}
		c := d[i]
		switch {
		case c == '"':
			s.i = i + 1
			return
		case c == '\\':
			if i+1 >= len(d) {
				s.i = len(d)
				s.fail()
				return
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				for k := i + 2; k < i+6; k++ {
					if k >= len(d) {
						s.i = len(d)
						s.fail()
						return
					}
					if !isHex(d[k]) {
						s.failed = true
						return
					}
				}
				i += 6
			default:
				s.failed = true
				return
			}
		case c < 0x20:
			s.failed = true
			return
		default:
			i++
		}
	}
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// specials marks (with the high bit of the byte) the bytes of the eight in x, read little
// endian, that are a quote, a backslash or a control character. Only the first mark is sure
// to be right (a borrow may mark later bytes), and only the first is used.
func specials(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q := x ^ (ones * '"')
	b := x ^ (ones * '\\')
	return ((q-ones)&^q | (b-ones)&^b | (x-ones*0x20)&^x) & highs
}
