// Package pystr reproduces the few Python string operations that the reference systems (RS-1,
// the RCS harness) apply to text, so that the reference profile sees exactly the characters
// Python saw: str.lower (full case mapping: İ becomes "i̇", a word-final Σ becomes ς),
// str.strip (Python's notion of white space) and str() of a JSON-decoded value.
package pystr

import (
	"unicode"
	"unicode/utf8"
)

// Lower returns s lower-cased as Python's str.lower does. It does not allocate when s is
// already lower case ASCII.
func Lower(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || ('A' <= c && c <= 'Z') {
			return string(AppendLower(make([]byte, 0, len(s)+8), s))
		}
	}
	return s
}

// AppendLower appends the Python lower-casing of s to dst and returns the extended slice.
// Callers that lower many texts can reuse one buffer and allocate nothing per text.
func AppendLower(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			// Invalid UTF-8 cannot reach Python as str; keep the byte as it is.
			dst = append(dst, s[i])
		case r == 'İ': // U+0130: SpecialCasing maps it to i + COMBINING DOT ABOVE.
			dst = append(dst, 'i', 0xcc, 0x87)
		case r == 'Σ':
			if finalSigma(s, i, i+size) {
				dst = utf8.AppendRune(dst, 'ς')
			} else {
				dst = utf8.AppendRune(dst, 'σ')
			}
		default:
			dst = utf8.AppendRune(dst, unicode.ToLower(r))
		}
		i += size
	}
	return dst
}

// finalSigma reports whether the Σ at s[start:end] is in the Final_Sigma context of Unicode
// SpecialCasing: preceded by a cased letter (skipping case-ignorable characters) and not
// followed by one.
func finalSigma(s string, start, end int) bool {
	before := false
	for j := start; j > 0; {
		r, size := utf8.DecodeLastRuneInString(s[:j])
		j -= size
		if caseIgnorable(r) {
			continue
		}
		before = cased(r)
		break
	}
	if !before {
		return false
	}
	for j := end; j < len(s); {
		r, size := utf8.DecodeRuneInString(s[j:])
		j += size
		if caseIgnorable(r) {
			continue
		}
		return !cased(r)
	}
	return true
}

// cased is Unicode's derived property Cased.
func cased(r rune) bool {
	return unicode.IsLower(r) || unicode.IsUpper(r) || unicode.IsTitle(r) ||
		unicode.Is(unicode.Other_Lowercase, r) || unicode.Is(unicode.Other_Uppercase, r)
}

// caseIgnorable is Unicode's derived property Case_Ignorable.
func caseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', '^', '`', 0x00A8, 0x00AD, 0x00AF, 0x00B4, 0x00B7, 0x00B8,
		0x0387, 0x055F, 0x05F4, 0x2018, 0x2019, 0x2024, 0x2027, 0xFE13, 0xFE52, 0xFE55,
		0xFF07, 0xFF0E, 0xFF1A:
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}

// IsSpace reports whether Python's str.isspace would call r white space. It differs from
// unicode.IsSpace in counting the ASCII separators U+001C..U+001F.
func IsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', 0x1c, 0x1d, 0x1e, 0x1f, ' ', 0x85, 0xa0:
		return true
	}
	if r < 0x80 {
		return false
	}
	return unicode.In(r, unicode.Zs, unicode.Zl, unicode.Zp)
}

// Strip removes leading and trailing white space as Python's str.strip() does.
func Strip(s string) string {
	start := 0
	for start < len(s) {
		r, size := utf8.DecodeRuneInString(s[start:])
		if !IsSpace(r) {
			break
		}
		start += size
	}
	end := len(s)
	for end > start {
		r, size := utf8.DecodeLastRuneInString(s[start:end])
		if !IsSpace(r) {
			break
		}
		end -= size
	}
	return s[start:end]
}
