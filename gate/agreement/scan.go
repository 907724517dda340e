package agreement

import (
	"encoding/binary"
	"math/bits"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// This file is a small hand-written JSON scanner for the flat records of the label files. It
// accepts exactly the JSON that encoding/json accepts (the fuzz tests hold it to that), decodes
// strings as encoding/json does, and copies the strings it keeps into an arena so that a whole
// batch of records costs one allocation. When it meets invalid JSON it stops and the caller
// asks encoding/json for the exact error message.

// maxDepth is encoding/json's nesting limit: deeper input is a syntax error there too.
const maxDepth = 10000

// scanner walks one record. At the first syntax error it sets bad and every method fails.
type scanner struct {
	data []byte
	i    int
	bad  bool
	// arena receives decoded strings; spans index into it.
	arena *[]byte
}

// span is a decoded string kept in the arena: off and n in bytes.
type span struct{ off, n int32 }

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// ws skips JSON whitespace.
func (s *scanner) ws() {
	for s.i < len(s.data) {
		if c := s.data[s.i]; c > ' ' || c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return
		}
		s.i++
	}
}

// peek returns the next byte after whitespace, or 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.i < len(s.data) {
		return s.data[s.i]
	}
	return 0
}

// fail marks a syntax error and returns false.
func (s *scanner) fail() bool {
	s.bad = true
	return false
}

// expect consumes byte c after whitespace.
func (s *scanner) expect(c byte) bool {
	if s.peek() != c {
		return s.fail()
	}
	s.i++
	return true
}

// scanString consumes a string starting at s.i (which must be '"') and returns the bounds of
// its contents in data and whether it holds escapes.
func (s *scanner) scanString() (start, end int, escaped, ok bool) {
	if s.i >= len(s.data) || s.data[s.i] != '"' {
		return 0, 0, false, s.fail()
	}
	i := s.i + 1
	start = i
	d := s.data
	for {
		// Eight bytes at a time: stop at a quote, a backslash or a control character.
		for i+8 <= len(d) {
			x := binary.LittleEndian.Uint64(d[i:])
			q := x ^ (lsb * '"')
			b := x ^ (lsb * '\\')
			m := ((q - lsb) &^ q) | ((b - lsb) &^ b) | ((x - lsb*0x20) &^ x)
			m &= msb
			if m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(d) {
			s.i = i
			return 0, 0, false, s.fail()
		}
		c := d[i]
		switch {
		case c == '"':
			s.i = i + 1
			return start, i, escaped, true
		case c == '\\':
			escaped = true
			if i+1 >= len(d) {
				s.i = i
				return 0, 0, false, s.fail()
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(d) || !isHex(d[i+2]) || !isHex(d[i+3]) || !isHex(d[i+4]) || !isHex(d[i+5]) {
					s.i = i
					return 0, 0, false, s.fail()
				}
				i += 6
			default:
				s.i = i
				return 0, 0, false, s.fail()
			}
		case c < 0x20:
			s.i = i
			return 0, 0, false, s.fail()
		default:
			i++
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func hexVal(c byte) rune {
	switch {
	case c <= '9':
		return rune(c - '0')
	case c >= 'a':
		return rune(c - 'a' + 10)
	}
	return rune(c - 'A' + 10)
}

// getu4 decodes the \uXXXX escape at the start of b, or returns -1.
func getu4(b []byte) rune {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' || !isHex(b[2]) || !isHex(b[3]) || !isHex(b[4]) || !isHex(b[5]) {
		return -1
	}
	return hexVal(b[2])<<12 | hexVal(b[3])<<8 | hexVal(b[4])<<4 | hexVal(b[5])
}

// unescape appends the decoded contents of an already validated JSON string to dst, exactly as
// encoding/json decodes it: a lone or badly paired UTF-16 surrogate and an invalid UTF-8 byte
// become U+FFFD.
func unescape(dst, b []byte) []byte {
	for i := 0; i < len(b); {
		c := b[i]
		if c == '\\' {
			switch b[i+1] {
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				r := getu4(b[i:])
				i += 6
				if utf16.IsSurrogate(r) {
					r1 := getu4(b[i:])
					if dec := utf16.DecodeRune(r, r1); dec != utf8.RuneError {
						i += 6
						dst = utf8.AppendRune(dst, dec)
						continue
					}
					r = utf8.RuneError
				}
				dst = utf8.AppendRune(dst, r)
				continue
			default: // '"', '\\', '/'
				dst = append(dst, b[i+1])
			}
			i += 2
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			dst = utf8.AppendRune(dst, utf8.RuneError)
		} else {
			dst = append(dst, b[i:i+size]...)
		}
		i += size
	}
	return dst
}

// str consumes a string and keeps its decoded value in the arena.
func (s *scanner) str() (span, bool) {
	start, end, esc, ok := s.scanString()
	if !ok {
		return span{}, false
	}
	return s.keep(start, end, esc), true
}

// keep copies data[start:end], decoded if esc, into the arena.
func (s *scanner) keep(start, end int, esc bool) span {
	a := *s.arena
	off := len(a)
	if esc {
		a = unescape(a, s.data[start:end])
	} else {
		a = append(a, s.data[start:end]...)
	}
	*s.arena = a
	return span{int32(off), int32(len(a) - off)}
}

// key consumes an object key and the colon after it. It returns the key's decoded bytes, which
// are only valid until the next call.
func (s *scanner) key(scratch *[]byte) ([]byte, bool) {
	// Fast path: a short key without escapes, as nearly all keys are.
	d, i := s.data, s.i
	if i < len(d) && d[i] == '"' {
		for j := i + 1; j < len(d) && j <= i+24; j++ {
			c := d[j]
			if c == '"' {
				k := d[i+1 : j]
				s.i = j + 1
				if s.i < len(d) && d[s.i] == ':' {
					s.i++
				} else if !s.expect(':') {
					return nil, false
				}
				s.ws()
				return k, true
			}
			if c == '\\' || c < 0x20 {
				break
			}
		}
	}
	start, end, esc, ok := s.scanString()
	if !ok || !s.expect(':') {
		return nil, false
	}
	s.ws()
	if !esc {
		return s.data[start:end], true
	}
	*scratch = unescape((*scratch)[:0], s.data[start:end])
	return *scratch, true
}

// number consumes a JSON number and returns whether it is written as an integer (no fraction,
// no exponent), as Python's json module decides between int and float.
func (s *scanner) number() (isInt, ok bool) {
	d, i := s.data, s.i
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && '1' <= d[i] && d[i] <= '9':
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
	default:
		s.i = i
		return false, s.fail()
	}
	isInt = true
	if i < len(d) && d[i] == '.' {
		isInt = false
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			s.i = i
			return false, s.fail()
		}
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		isInt = false
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			s.i = i
			return false, s.fail()
		}
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
	}
	s.i = i
	return isInt, true
}

// literal consumes true, false or null.
func (s *scanner) literal(lit string) bool {
	if len(s.data)-s.i < len(lit) || string(s.data[s.i:s.i+len(lit)]) != lit {
		return s.fail()
	}
	s.i += len(lit)
	return true
}

// skip consumes any JSON value.
func (s *scanner) skip(depth int) bool {
	switch s.peek() {
	case '{':
		if depth >= maxDepth {
			return s.fail()
		}
		s.i++
		if s.peek() == '}' {
			s.i++
			return true
		}
		for {
			s.ws()
			if _, _, _, ok := s.scanString(); !ok || !s.expect(':') || !s.skip(depth+1) {
				return s.fail()
			}
			switch s.peek() {
			case ',':
				s.i++
			case '}':
				s.i++
				return true
			default:
				return s.fail()
			}
		}
	case '[':
		if depth >= maxDepth {
			return s.fail()
		}
		s.i++
		if s.peek() == ']' {
			s.i++
			return true
		}
		for {
			if !s.skip(depth + 1) {
				return false
			}
			switch s.peek() {
			case ',':
				s.i++
			case ']':
				s.i++
				return true
			default:
				return s.fail()
			}
		}
	case '"':
		_, _, _, ok := s.scanString()
		return ok
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	}
	_, ok := s.number()
	return ok
}

// truthy consumes any value and reports whether Python would find it true: false, null, 0,
// 0.0 (including a float that underflows to 0), "", [] and {} are false.
func (s *scanner) truthy() (truth, ok bool) {
	c := s.peek()
	start := s.i
	if !s.skip(1) {
		return false, false
	}
	v := s.data[start:s.i]
	switch c {
	case '{':
		return !isEmptyContainer(v), true
	case '[':
		return !isEmptyContainer(v), true
	case '"':
		return len(v) > 2, true
	case 't':
		return true, true
	case 'f', 'n':
		return false, true
	}
	f, _ := strconv.ParseFloat(string(v), 64)
	return f != 0, true
}

// isEmptyContainer reports whether v, a whole object or array, has no element.
func isEmptyContainer(v []byte) bool {
	for _, c := range v[1 : len(v)-1] {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return true
}

// kind names the JSON type of the value starting with c, for error messages.
func kind(c byte) string {
	switch c {
	case '{':
		return "a JSON object"
	case '[':
		return "a JSON array"
	case '"':
		return "a JSON string"
	case 't', 'f':
		return "a JSON boolean"
	case 'n':
		return "null"
	}
	return "a JSON number"
}

// atEnd reports whether only whitespace is left.
func (s *scanner) atEnd() bool {
	s.ws()
	return s.i == len(s.data)
}
