package pystr

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// AppendJSONFloat appends f as Python's json module writes a float: repr(f) ("1.0", "0.5619",
// "1e-05", "1e+16"), and NaN, Infinity, -Infinity as json.dumps writes them.
func AppendJSONFloat(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	}
	return AppendFloat(dst, f)
}

// AppendJSONString appends s as a JSON string the way Python's json.dumps writes it. With
// ensureASCII (json's default) every character outside printable ASCII is a \uXXXX escape
// (UTF-16 surrogate pairs above U+FFFF); without it only '"', '\\' and control characters are
// escaped. Invalid UTF-8, which a Python str cannot hold, becomes U+FFFD.
func AppendJSONString(dst []byte, s string, ensureASCII bool) []byte {
	const hex = "0123456789abcdef"
	u4 := func(r rune) {
		dst = append(dst, '\\', 'u', hex[r>>12&15], hex[r>>8&15], hex[r>>4&15], hex[r&15])
	}
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '"' || r == '\\':
			dst = append(dst, '\\', byte(r))
		case r == '\n':
			dst = append(dst, '\\', 'n')
		case r == '\r':
			dst = append(dst, '\\', 'r')
		case r == '\t':
			dst = append(dst, '\\', 't')
		case r == '\b':
			dst = append(dst, '\\', 'b')
		case r == '\f':
			dst = append(dst, '\\', 'f')
		case r < ' ':
			u4(r)
		case !ensureASCII || r <= '~':
			dst = utf8.AppendRune(dst, r)
		case r > 0xffff:
			r -= 0x10000
			u4(0xd800 + r>>10)
			u4(0xdc00 + r&0x3ff)
		default:
			u4(r)
		}
	}
	return append(dst, '"')
}

// Round4 is Python's round(x, 4): correctly rounded from x's binary value, so ties (which
// only exactly representable halves can be) go to even. NaN and infinities stay as they are.
func Round4(x float64) float64 {
	y, err := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 4, 64), 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	return y
}
