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

// scanner walks one record. Its methods take the position to scan from and return the
// position after what they consumed; at the first syntax error they set bad and return -1.
// The position is passed in registers rather than kept in the struct, where every method
// would store it and the next reload it.
//
// What makes the scanner fast is mostly doing less per token: keys and labels are compared
// in place with the few that a record may hold (see literal), strings are scanned eight bytes
// at a time (stringStop), and the paths that every record takes make few calls.
type scanner struct {
	data []byte
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

// ws returns the position of the first byte at or after i that is not JSON whitespace. It is
// small enough to inline: it is called before nearly every token, most of which follow the
// one before directly or after a single space.
func (s *scanner) ws(i int) int {
	d := s.data
	for ; i < len(d); i++ {
		if c := d[i]; c > ' ' || c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			break
		}
	}
	return i
}

// peek returns the next byte at or after i after whitespace (0 at the end) and its position.
func (s *scanner) peek(i int) (byte, int) {
	i = s.ws(i)
	if i < len(s.data) {
		return s.data[i], i
	}
	return 0, i
}

// at returns the byte at i, or 0 at the end.
func (s *scanner) at(i int) byte {
	if i < len(s.data) {
		return s.data[i]
	}
	return 0
}

// fail marks a syntax error and returns -1.
func (s *scanner) fail() int {
	s.bad = true
	return -1
}

// scanString consumes the string that starts at i (which must be '"'). It returns the
// position of its closing quote, so that its contents are data[i+1:end], and whether it holds
// escapes; end is -1 at a syntax error.
func (s *scanner) scanString(i int) (end int, escaped bool) {
	d := s.data
	if i < 0 || i >= len(d) || d[i] != '"' {
		return s.fail(), false
	}
	i++
	for {
		// stringStop stops at a quote, a backslash or a control character, if any.
		if i = stringStop(d, i); i >= len(d) {
			return s.fail(), false
		}
		switch d[i] {
		case '"':
			return i, escaped
		case '\\':
			escaped = true
			if i+1 >= len(d) {
				return s.fail(), false
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(d) || !isHex(d[i+2]) || !isHex(d[i+3]) || !isHex(d[i+4]) || !isHex(d[i+5]) {
					return s.fail(), false
				}
				i += 6
			default:
				return s.fail(), false
			}
		default:
			if d[i] < utf8.RuneSelf { // a control character
				return s.fail(), false
			}
			// UTF-8, checked here so that a decoder given lines not checked beforehand
			// (input.Chunk.EachRecordUnchecked) fails on a line that is not UTF-8: outside
			// strings, JSON is ASCII.
			r, size := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && size == 1 {
				return s.fail(), false
			}
			i += size
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

// stringStop returns the position of the first quote, backslash, control character or byte
// outside ASCII at or after i, or len(d) if there is none. It looks at eight bytes at a time.
func stringStop(d []byte, i int) int {
	for ; i+8 <= len(d); i += 8 {
		if m := special(binary.LittleEndian.Uint64(d[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	if i < len(d) && len(d) >= 8 {
		// The last bytes: the final eight of d, shifted so that the zero bytes that come in
		// at the top stand for the end of d (zero is a control character).
		x := binary.LittleEndian.Uint64(d[len(d)-8:]) >> (8 * (8 - (len(d) - i)))
		return i + bits.TrailingZeros64(special(x))>>3
	}
	for ; i < len(d); i++ {
		if c := d[i]; c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
	}
	return i
}

// special has the high bit set in each byte of x that is a quote, a backslash, a control
// character or outside ASCII (whose UTF-8 scanString checks), and only there. It works on the
// low seven bits of each byte, where the additions cannot carry into the next byte, then adds
// the bytes with the high bit set.
func special(x uint64) uint64 {
	y := x & (lsb * 0x7f)
	ge := y + lsb*(0x80-0x20)       // high bit set where y >= 0x20
	nq := (y ^ lsb*'"') + lsb*0x7f  // where y != '"'
	nb := (y ^ lsb*'\\') + lsb*0x7f // where y != '\\'
	return (^(ge & nq & nb) | x) & msb
}

// str consumes the string at i and keeps its decoded value in the arena.
func (s *scanner) str(i int) (span, int) {
	// Fast path: a string without escapes, scanned once and copied as keep would.
	if d := s.data; i >= 0 && i < len(d) && d[i] == '"' {
		if end := stringStop(d, i+1); end < len(d) && d[end] == '"' {
			a := *s.arena
			off := len(a)
			*s.arena = append(a, d[i+1:end]...)
			return span{int32(off), int32(end - i - 1)}, end + 1
		}
	}
	end, esc := s.scanString(i)
	if end < 0 {
		return span{}, -1
	}
	return s.keep(i+1, end, esc), end + 1
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

// A literal is a short string known in advance, such as `"label":`, a key with its quotes and
// colon, or `"VALID"`, a label with its quotes, held as little-endian words so that it can be
// compared in place a word at a time.
type literal struct {
	name  string    // what it stands for: the key or the label without quotes or colon
	n     int       // its length, at most 24
	words [3]uint64 // its bytes, zero past its end
	masks [3]uint64 // 0xff in each byte of words that is one of its bytes
}

func newLiteral(name, lit string) literal {
	l := literal{name: name, n: len(lit)}
	if len(lit) > 8*len(l.words) {
		panic("literal too long: " + lit)
	}
	for k := 0; k < len(lit); k++ {
		l.words[k/8] |= uint64(lit[k]) << (8 * (k % 8))
		l.masks[k/8] |= 0xff << (8 * (k % 8))
	}
	return l
}

// keyLiterals returns the literals of keys.
func keyLiterals(keys ...string) []literal {
	lits := make([]literal, len(keys))
	for k, key := range keys {
		lits[k] = newLiteral(key, `"`+key+`":`)
	}
	return lits
}

// known returns the index of the literal of lits that data at i starts with, or -1. It only
// compares whole words within data, so that within the last bytes of data it may not find a
// literal that is there: the callers then scan the string as they would an unknown one.
//
// This is the fast path for keys and labels, which are few, fixed and short: a word or two
// compared with each candidate in turn costs less than scanning the string for its end, let
// alone comparing it again in a switch.
func (s *scanner) known(i int, lits []literal) int {
	d := s.data
	if i < 0 || i+8 > len(d) {
		return -1
	}
	x := binary.LittleEndian.Uint64(d[i:])
	for k := range lits {
		l := &lits[k]
		if x&l.masks[0] != l.words[0] {
			continue
		}
		if l.n <= 8 {
			return k
		}
		if i+16 > len(d) || binary.LittleEndian.Uint64(d[i+8:])&l.masks[1] != l.words[1] {
			continue
		}
		if l.n <= 16 {
			return k
		}
		if i+24 > len(d) || binary.LittleEndian.Uint64(d[i+16:])&l.masks[2] != l.words[2] {
			continue
		}
		return k
	}
	return -1
}

// member moves to the next member of an object, at i, whose '{' has been consumed (first
// says whether any member was read yet). It returns the index in keys of the member's key, or
// -1 for another key, and the position of its value; or more = false with the position past
// the closing '}', or -1 at a syntax error. An escaped key is decoded in scratch.
func (s *scanner) member(i int, first bool, keys []literal, scratch *[]byte) (key, next int, more bool) {
	c, i := s.peek(i)
	switch {
	case c == '}':
		return -1, i + 1, false
	case !first && c == ',':
		i = s.ws(i + 1)
	case !first:
		return -1, s.fail(), false
	}
	// s.known(i, keys), written out: here, for every member, the call costs more than the
	// comparisons.
	if b := s.data; i+8 <= len(b) {
		x := binary.LittleEndian.Uint64(b[i:])
		for k := range keys {
			l := &keys[k]
			if x&l.masks[0] != l.words[0] {
				continue
			}
			if l.n > 8 && (i+16 > len(b) || binary.LittleEndian.Uint64(b[i+8:])&l.masks[1] != l.words[1]) {
				continue
			}
			if l.n > 16 && (i+24 > len(b) || binary.LittleEndian.Uint64(b[i+16:])&l.masks[2] != l.words[2]) {
				continue
			}
			return k, s.ws(i + l.n), true
		}
	}
	key, i = s.key(i, keys, scratch)
	return key, i, i >= 0
}

// key consumes the object key at i, the colon after it and the whitespace after that. It
// returns the index in keys of the key's literal, or -1 for another key, and the position of
// the member's value.
func (s *scanner) key(i int, keys []literal, scratch *[]byte) (int, int) {
	end, esc := s.scanString(i)
	if end < 0 {
		return -1, -1
	}
	d := s.data
	j := end + 1
	if j >= len(d) || d[j] != ':' { // nearly always right after the key
		var c byte
		if c, j = s.peek(j); c != ':' {
			return -1, s.fail()
		}
	}
	name := d[i+1 : end]
	if esc {
		*scratch = unescape((*scratch)[:0], name)
		name = *scratch
	}
	for k := range keys {
		if string(name) == keys[k].name {
			return k, s.ws(j + 1)
		}
	}
	return -1, s.ws(j + 1)
}

// number consumes the JSON number at i and returns whether it is written as an integer (no
// fraction, no exponent), as Python's json module decides between int and float.
func (s *scanner) number(i int) (isInt bool, next int) {
	d := s.data
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
		return false, s.fail()
	}
	isInt = true
	if i < len(d) && d[i] == '.' {
		isInt = false
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
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
			return false, s.fail()
		}
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
	}
	return isInt, i
}

// literal consumes lit at i: true, false or null, or a shape's literal.
func (s *scanner) literal(i int, lit string) int {
	if len(s.data)-i < len(lit) || string(s.data[i:i+len(lit)]) != lit {
		return s.fail()
	}
	return i + len(lit)
}

// skip consumes any JSON value at or after i (after whitespace).
func (s *scanner) skip(i, depth int) int {
	c, i := s.peek(i)
	switch c {
	case '{':
		if depth >= maxDepth {
			return s.fail()
		}
		c, i = s.peek(i + 1)
		if c == '}' {
			return i + 1
		}
		for {
			end, _ := s.scanString(i)
			if end < 0 {
				return -1
			}
			if c, i = s.peek(end + 1); c != ':' {
				return s.fail()
			}
			if i = s.skip(i+1, depth+1); i < 0 {
				return -1
			}
			c, i = s.peek(i)
			switch c {
			case ',':
				i = s.ws(i + 1)
			case '}':
				return i + 1
			default:
				return s.fail()
			}
		}
	case '[':
		if depth >= maxDepth {
			return s.fail()
		}
		c, i = s.peek(i + 1)
		if c == ']' {
			return i + 1
		}
		for {
			if i = s.skip(i, depth+1); i < 0 {
				return -1
			}
			c, i = s.peek(i)
			switch c {
			case ',':
				i++
			case ']':
				return i + 1
			default:
				return s.fail()
			}
		}
	case '"':
		return s.skipString(i)
	case 't':
		return s.literal(i, "true")
	case 'f':
		return s.literal(i, "false")
	case 'n':
		return s.literal(i, "null")
	}
	_, i = s.number(i)
	return i
}

// skipFlat is skip(i, 2) for a value at i, after whitespace, at depth 2 (the members of
// answer_json, the reasons): it reads a string, or an array of strings, the usual values
// there, in one loop rather than a call a token, and hands anything else to skip.
func (s *scanner) skipFlat(i int) int {
	switch s.at(i) {
	case '"':
		return s.skipString(i)
	case '[':
		c, j := s.peek(i + 1)
		if c == ']' {
			return j + 1
		}
		for c == '"' {
			if j = s.skipString(j); j < 0 {
				return -1
			}
			switch c, j = s.peek(j); c {
			case ',':
				c, j = s.peek(j + 1)
			case ']':
				return j + 1
			default:
				return s.fail()
			}
		}
	}
	return s.skip(i, 2) // from the start: the array holds something else
}

// skipString consumes the string at i and returns the position after it.
func (s *scanner) skipString(i int) int {
	end, _ := s.scanString(i)
	if end < 0 {
		return -1
	}
	return end + 1
}

// truthy consumes any value at or after i and reports whether Python would find it true:
// false, null, 0, 0.0 (including a float that underflows to 0), "", [] and {} are false.
// depth is the value's nesting depth, as skip takes it.
func (s *scanner) truthy(i, depth int) (truth bool, next int) {
	c, start := s.peek(i)
	switch c { // the literals directly, as flags nearly always are
	case 't':
		return true, s.literal(start, "true")
	case 'f':
		return false, s.literal(start, "false")
	case 'n':
		return false, s.literal(start, "null")
	}
	if next = s.skip(start, depth); next < 0 {
		return false, -1
	}
	v := s.data[start:next]
	switch c {
	case '{':
		return !isEmptyContainer(v), next
	case '[':
		return !isEmptyContainer(v), next
	case '"':
		return len(v) > 2, next
	}
	f, _ := strconv.ParseFloat(string(v), 64)
	return f != 0, next
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

// atEnd reports whether only whitespace is left from i.
func (s *scanner) atEnd(i int) bool {
	return s.ws(i) == len(s.data)
}
