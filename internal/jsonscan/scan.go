package jsonscan

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"strconv"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting of arrays and objects Skip accepts: encoding/json's limit,
// so that both call the same texts valid.
const MaxDepth = 10000

// Error is a problem in JSON text: what is wrong (Msg) and the byte offset where it is (Off),
// which the caller turns into a line and column with Position. EOF is true when the text ended
// before the value was complete, so that a reader holding a window of a longer file knows that
// more of the file may make it whole.
type Error struct {
	Off int
	Msg string
	EOF bool
}

// Error returns the message, without the position (the caller names file, line and column).
func (e *Error) Error() string { return e.Msg }

func errAt(off int, format string, args ...any) error {
	return &Error{Off: off, Msg: fmt.Sprintf(format, args...)}
}

// errEnd is the error for text that ends at off inside what (" in a string").
func errEnd(off int, what string) error {
	return &Error{Off: off, Msg: "unexpected end of input" + what, EOF: true}
}

// Found describes the byte at data[i] for an error message: 'x' for a printable character,
// U+000A for a control character, "invalid UTF-8", or "the end of the input".
func Found(data []byte, i int) string {
	if i >= len(data) {
		return "the end of the input"
	}
	c := data[i]
	switch {
	case c < 0x20 || c == 0x7f:
		return fmt.Sprintf("U+%04X", c)
	case c < utf8.RuneSelf:
		return strconv.QuoteRune(rune(c))
	}
	r, size := utf8.DecodeRune(data[i:])
	if r == utf8.RuneError && size == 1 {
		return "invalid UTF-8"
	}
	return strconv.QuoteRune(r)
}

// IsSpace reports whether c is JSON white space: space, tab, line feed or carriage return.
// Most bytes asked about are not, and are above ' ': one comparison answers for them.
func IsSpace(c byte) bool { return c <= ' ' && (c == ' ' || c == '\t' || c == '\n' || c == '\r') }

// SkipSpace returns the offset of the first byte at or after i that is not JSON white space
// (len(data) if there is none).
func SkipSpace(data []byte, i int) int {
	for i < len(data) && IsSpace(data[i]) {
		i++
	}
	return i
}

// IsHex reports whether c is a hexadecimal digit.
func IsHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

const (
	ones  = 0x0101010101010101
	lows  = 0x7f7f7f7f7f7f7f7f
	highs = 0x8080808080808080
)

// specials marks, with the high bit of the byte, exactly those of the eight bytes in x (read
// little endian) that a string scanner must look at: a quote, a backslash, a control character
// (below 0x20) or a byte of a multi-byte UTF-8 sequence (0x80 and up). Every mark is right:
// the sums below stay within their byte (at most 0x7f+0x7f), so no carry or borrow runs from one
// byte into the next.
func specials(x uint64) uint64 {
	q := x ^ (ones * '"')
	b := x ^ (ones * '\\')
	// the high bit of ((y&lows)+lows)|y is clear exactly when the byte of y is zero
	notQuote := ((q & lows) + lows) | q
	notBackslash := ((b & lows) + lows) | b
	// the high bit of ((x&lows)+0x60)|x is clear exactly when the byte is below 0x20
	notControl := ((x & lows) + ones*0x60) | x
	return (^(notQuote & notBackslash & notControl) | x) & highs
}

// String scans the JSON string whose opening quote is at data[i], checking its escapes and that
// it is UTF-8, and returns the offset just past its closing quote and whether it holds escapes
// (if not, data[i+1:end-1] is its text as it is). It reads eight bytes at a time while none of
// them needs a look.
func String(data []byte, i int) (end int, escaped bool, err error) {
	d := data
	for i++; ; {
		for i+8 <= len(d) {
			if m := specials(binary.LittleEndian.Uint64(d[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(d) {
			return len(d), escaped, errEnd(len(d), " in a string")
		}
		c := d[i]
		switch {
		case c == '"':
			return i + 1, escaped, nil
		case c == '\\':
			escaped = true
			if i+1 >= len(d) {
				return len(d), escaped, errEnd(len(d), " in a string")
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				for k := i + 2; k < i+6; k++ {
					if k >= len(d) {
						return len(d), escaped, errEnd(len(d), " in a string")
					}
					if !IsHex(d[k]) {
						return k, escaped, errAt(i, `invalid escape \u%s: expected four hexadecimal digits`, printable(d[i+2:k+1]))
					}
				}
				i += 6
			default:
				if d[i+1] >= utf8.RuneSelf || d[i+1] < 0x20 {
					return i, escaped, errAt(i, `invalid escape: \ followed by %s`, Found(d, i+1))
				}
				return i, escaped, errAt(i, `invalid escape \%c`, d[i+1])
			}
		case c < 0x20:
			return i, escaped, errAt(i, "control character %s in a string: it must be escaped", Found(d, i))
		case c < utf8.RuneSelf: // a byte the scan stopped on after a multi-byte character
			i++
		default:
			r, size := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && size == 1 {
				if !utf8.FullRune(d[i:]) {
					return len(d), escaped, errEnd(len(d), " in a string")
				}
				return i, escaped, errAt(i, "invalid UTF-8")
			}
			i += size
		}
	}
}

// printable returns b for a message, with bytes that are not printable ASCII as \xNN.
func printable(b []byte) string {
	out := make([]byte, 0, len(b))
	for _, c := range b {
		if c < 0x20 || c >= 0x7f {
			out = fmt.Appendf(out, `\x%02x`, c)
		} else {
			out = append(out, c)
		}
	}
	return string(out)
}

// Number scans the JSON number starting at data[i] and returns the offset just past it and
// whether it is an integer (no fraction and no exponent: "-12", not "1.0" or "1e3"). A number
// that reaches the end of data is complete as far as data goes; a reader holding a window of a
// longer file must look further before taking it whole.
func Number(data []byte, i int) (end int, integer bool, err error) {
	d := data
	digits := func() bool {
		start := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		return i > start
	}
	// bad is the error for a missing digit at i, after what.
	bad := func(after string) (int, bool, error) {
		if i >= len(d) {
			return i, false, errEnd(i, " in a number")
		}
		if after != "" {
			after = " " + after
		}
		return i, false, errAt(i, "invalid number: expected a digit%s, found %s", after, Found(d, i))
	}
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case !digits():
		return bad("")
	}
	integer = true
	if i < len(d) && d[i] == '.' {
		i++
		integer = false
		if !digits() {
			return bad("after '.'")
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		integer = false
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if !digits() {
			return bad("in the exponent")
		}
	}
	return i, integer, nil
}

// Literal scans true, false or null at data[i] and returns the offset just past it and its
// kind.
func Literal(data []byte, i int) (end int, k Kind, err error) {
	var lit string
	switch {
	case i < len(data) && data[i] == 't':
		lit, k = "true", KindTrue
	case i < len(data) && data[i] == 'f':
		lit, k = "false", KindFalse
	case i < len(data) && data[i] == 'n':
		lit, k = "null", KindNull
	default:
		return i, KindInvalid, unexpected(data, i)
	}
	for j := 1; j < len(lit); j++ {
		if i+j >= len(data) {
			return i + j, k, errEnd(i+j, " in "+lit)
		}
		if data[i+j] != lit[j] {
			return i + j, k, errAt(i+j, "invalid literal: expected %s, found %s", lit, Found(data, i+j))
		}
	}
	return i + len(lit), k, nil
}

// unexpected is the error for data[i] where a value must start.
func unexpected(data []byte, i int) error {
	if i >= len(data) {
		return errEnd(i, ", expected a value")
	}
	return errAt(i, "expected a value, found %s", Found(data, i))
}

// Skip passes over the JSON value starting at data[i] (white space before it is skipped too),
// checking it whole, and returns the offset just past it. Objects and arrays nested deeper
// than MaxDepth are an error. It keeps a stack of its own rather than recursing.
func Skip(data []byte, i int) (end int, err error) {
	return skip(data, i, MaxDepth, MaxDepth)
}

// skip is Skip allowing limit levels of nesting in the value; named is the limit its error
// names (the text's, which is more than limit when the value sits inside others).
func skip(data []byte, i, limit, named int) (end int, err error) {
	var small [64]byte
	stack := small[:0] // '{' or '[' for each open container
	for {
		// a value is expected at i
		i = SkipSpace(data, i)
		if i >= len(data) {
			return i, unexpected(data, i)
		}
		switch c := data[i]; c {
		case '{', '[':
			if len(stack) == limit {
				return i, errAt(i, "nesting deeper than %d levels", named)
			}
			stack = append(stack, c)
			i = SkipSpace(data, i+1)
			if i < len(data) && data[i] == c+2 { // '}' is '{'+2, ']' is '['+2
				i++
				stack = stack[:len(stack)-1]
				break
			}
			if c == '{' {
				if i, err = key(data, i); err != nil {
					return i, err
				}
			}
			continue
		case '"':
			if i, _, err = String(data, i); err != nil {
				return i, err
			}
		case 't', 'f', 'n':
			if i, _, err = Literal(data, i); err != nil {
				return i, err
			}
		default:
			if c != '-' && (c < '0' || c > '9') {
				return i, unexpected(data, i)
			}
			if i, _, err = Number(data, i); err != nil {
				return i, err
			}
		}
		// after a value: a comma, or the end of the innermost container
		for {
			if len(stack) == 0 {
				return i, nil
			}
			i = SkipSpace(data, i)
			top := stack[len(stack)-1]
			if i >= len(data) {
				return i, errEnd(i, " in "+KindOf(top).String())
			}
			c := data[i]
			if c == ',' {
				if i++; top == '{' {
					if i, err = key(data, SkipSpace(data, i)); err != nil {
						return i, err
					}
				}
				break
			}
			if c == top+2 {
				i++
				stack = stack[:len(stack)-1]
				continue
			}
			if top == '{' {
				return i, errAt(i, "expected ',' or '}' after an object member, found %s", Found(data, i))
			}
			return i, errAt(i, "expected ',' or ']' after an array element, found %s", Found(data, i))
		}
	}
}

// key passes over an object key at data[i] and the colon after it.
func key(data []byte, i int) (int, error) {
	if i >= len(data) {
		return i, errEnd(i, " in an object")
	}
	if data[i] != '"' {
		return i, errAt(i, "expected a string key, found %s", Found(data, i))
	}
	i, _, err := String(data, i)
	if err != nil {
		return i, err
	}
	return Colon(data, i)
}

// Colon passes over the white space and the ':' after an object key that ends at i, and the
// white space after it, returning the offset where the member's value starts.
func Colon(data []byte, i int) (int, error) {
	i = SkipSpace(data, i)
	if i >= len(data) {
		return i, errEnd(i, " in an object")
	}
	if data[i] != ':' {
		return i, errAt(i, "expected ':' after an object key, found %s", Found(data, i))
	}
	return SkipSpace(data, i+1), nil
}

// Validate checks that data holds exactly one JSON value, with nothing but white space around
// it.
func Validate(data []byte) error {
	end, err := Skip(data, 0)
	if err != nil {
		return err
	}
	if end = SkipSpace(data, end); end < len(data) {
		return errAt(end, "unexpected %s after the value", Found(data, end))
	}
	return nil
}

// AtEOF reports whether err is an *Error saying that the text ended before the value was
// complete: a reader holding a window of a longer file reads on and scans again.
func AtEOF(err error) bool {
	e, ok := err.(*Error)
	return ok && e.EOF
}
