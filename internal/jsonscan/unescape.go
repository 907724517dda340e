package jsonscan

import (
	"bytes"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Surrogates says what unescaping does with a lone UTF-16 surrogate escape (\ud800 with no
// partner), which no UTF-8 text can hold.
type Surrogates uint8

const (
	// Replace writes U+FFFD for it, as encoding/json does.
	Replace Surrogates = iota
	// Keep writes the surrogate as a code point of its own in its three-byte generalised UTF-8
	// form (WTF-8), as Python's json.loads keeps it: two ids that differ only in a lone
	// surrogate stay two ids. The result is then not valid UTF-8.
	Keep
)

// AppendUnescaped appends to dst the text of a JSON string whose body (the bytes between its
// quotes) String has checked, with its escapes decoded and lone surrogates treated as sur says;
// a pair of surrogate escapes becomes the one character they encode.
func AppendUnescaped(dst, body []byte, sur Surrogates) []byte {
	for i := 0; i < len(body); {
		// The text between escapes is copied in one piece: messages are long and escapes few.
		j := bytes.IndexByte(body[i:], '\\')
		if j < 0 {
			return append(dst, body[i:]...)
		}
		j += i
		dst = append(dst, body[i:j]...)
		if j+1 >= len(body) {
			return dst
		}
		i = j + 2
		switch body[j+1] {
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
			r := hex4(body[j+2:])
			i = j + 6
			if !utf16.IsSurrogate(r) {
				dst = utf8.AppendRune(dst, r)
				break
			}
			if i+6 <= len(body) && body[i] == '\\' && body[i+1] == 'u' {
				if pair := utf16.DecodeRune(r, hex4(body[i+2:])); pair != utf8.RuneError {
					dst = utf8.AppendRune(dst, pair)
					i += 6
					break
				}
			}
			if sur == Keep {
				dst = append(dst, byte(0xe0|r>>12), byte(0x80|(r>>6)&0x3f), byte(0x80|r&0x3f))
			} else {
				dst = utf8.AppendRune(dst, utf8.RuneError)
			}
		default: // '"', '\\', '/'
			dst = append(dst, body[j+1])
		}
	}
	return dst
}

// hex4 decodes the four hexadecimal digits that start b.
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c <= '9':
			c -= '0'
		case c <= 'F':
			c -= 'A' - 10
		default:
			c -= 'a' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// Unquote returns the text of raw, a whole JSON string (quotes included) that String has
// checked, as AppendUnescaped decodes it. A string without escapes costs one copy.
func Unquote(raw []byte, sur Surrogates) string {
	body := raw[1 : len(raw)-1]
	for _, c := range body {
		if c == '\\' {
			return string(AppendUnescaped(make([]byte, 0, len(body)), body, sur))
		}
	}
	return string(body)
}

// KeyIs reports whether raw, a whole JSON string (quotes included) that String has checked,
// decodes to key. It compares the bytes as they are when raw holds no escape, so matching an
// object's keys against the names a reader knows costs no allocation.
func KeyIs(raw []byte, key string) bool {
	body := raw[1 : len(raw)-1]
	for _, c := range body {
		if c == '\\' {
			var small [64]byte
			return string(AppendUnescaped(small[:0], body, Replace)) == key
		}
	}
	return string(body) == key
}

// KeyFolds is KeyIs under Unicode case folding, the way encoding/json matches a key to a
// struct field: "MESSAGES", "meſſages" and "mess\u0061ges" all fold to "messages". name is
// lower-case ASCII. Only a key that is escaped, or not ASCII and could fold to name,
// allocates.
func KeyFolds(raw []byte, name string) bool {
	body := raw[1 : len(raw)-1]
	for _, c := range body {
		if c == '\\' || c >= utf8.RuneSelf {
			// an escape takes at most 6 bytes (\u212a, the Kelvin sign, folds to k)
			return len(body) <= 6*len(name) && strings.EqualFold(Unquote(raw, Replace), name)
		}
	}
	if len(body) != len(name) {
		return false
	}
	for j, c := range body {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != name[j] {
			return false
		}
	}
	return true
}
