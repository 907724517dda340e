package reliability

import (
	"cmp"
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/agentgate/agentgate/gate/pystr"
)

// The default profile reads text as words: maximal runs of Unicode letters, digits and
// combining marks after Python's lower-casing, each kept as a 64-bit FNV-1a hash so that
// comparing texts allocates nothing per word.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// strip is pystr.Strip, quick for the usual text that begins and ends with a character that
// is plainly not white space.
func strip(s string) string {
	if len(s) > 0 && notSpace(s[0]) && notSpace(s[len(s)-1]) {
		return s
	}
	return pystr.Strip(s)
}

// notSpace reports whether the byte c is an ASCII character other than Python's white space
// (\t \n \v \f \r, the separators U+001C–U+001F, the space).
func notSpace(c byte) bool { return c > ' ' && c < utf8.RuneSelf }

// appendWords appends the hashes of the words of text, in order, to dst.
func appendWords(dst []uint64, text string) []uint64 {
	dst, _ = appendWordsBuf(dst, nil, text)
	return dst
}

// appendWordsBuf is appendWords with a scratch buffer, returned for the next call.
func appendWordsBuf(dst []uint64, scratch []byte, text string) ([]uint64, []byte) {
	if out, scratch, ok := appendWordsRunes(dst, scratch, text); ok {
		return out, scratch
	}
	low := pystr.AppendLower(scratch[:0], text)
	return appendWordsLower(dst, low), low
}

// appendWordsLower appends the words of low, a text already lower-cased.
func appendWordsLower(dst []uint64, low []byte) []uint64 {
	h, in := uint64(fnvOffset), false
	for i := 0; i < len(low); {
		r, size := utf8.DecodeRune(low[i:])
		if isWordRune(r) {
			for _, c := range low[i : i+size] {
				h = (h ^ uint64(c)) * fnvPrime
			}
			in = true
		} else if in {
			dst = append(dst, h)
			h, in = fnvOffset, false
		}
		i += size
	}
	if in {
		dst = append(dst, h)
	}
	return dst
}

// asciiWord maps an ASCII byte to itself lower-cased when it belongs to a word (a–z, 0–9 and
// A–Z) and to 0 when it does not.
var asciiWord = func() (t [utf8.RuneSelf]byte) {
	for c := byte('0'); c <= '9'; c++ {
		t[c] = c
	}
	for c := byte('a'); c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = c, c
	}
	return t
}()

// appendWordsRunes is appendWordsBuf in one pass without a copy of the text: ASCII is
// lower-cased and classified inline, any other character is lower-cased on its own, which is
// what Python does to every character but Σ, whose lower case depends on its neighbours. It
// gives up (false) at a Σ, leaving dst as it was.
//
// The ASCII loop has no branch that depends on the text: word boundaries come at random in
// prose, and a mispredicted branch at each of them costs more than the hashing. It writes the
// hash at every byte and moves on only at the end of a word, so dst needs room for as many
// words as the text can hold (one per two bytes: words are apart; a character beyond ASCII
// takes two bytes or more and lower-cases to word characters or to none).
func appendWordsRunes(dst []uint64, scratch []byte, text string) ([]uint64, []byte, bool) {
	n := len(dst)
	dst = slices.Grow(dst, len(text)/2+2)
	out := dst[:cap(dst)]
	k := n
	h, in := uint64(fnvOffset), 0 // in is 1 within a word
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			l := asciiWord[c]
			next := (h ^ uint64(l)) * fnvPrime
			out[k] = h
			word := 0
			if l != 0 {
				word = 1
			}
			k += in &^ word // a word ended here
			if word == 0 {
				next = fnvOffset
			}
			h, in = next, word
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if r == 'Σ' {
			return dst[:n], scratch, false
		}
		low := pystr.AppendLower(scratch[:0], text[i:i+size])
		scratch = low
		for j := 0; j < len(low); {
			r, size := utf8.DecodeRune(low[j:])
			if isWordRune(r) {
				for _, c := range low[j : j+size] {
					h = (h ^ uint64(c)) * fnvPrime
				}
				in = 1
			} else if in == 1 {
				out[k] = h
				k++
				h, in = fnvOffset, 0
			}
			j += size
		}
		i += size
	}
	if in == 1 {
		out[k] = h
		k++
	}
	return out[:k], scratch, true
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || '0' <= r && r <= '9' || 'A' <= r && r <= 'Z'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// appendShingles appends the hashes of the word 3-shingles (runs of three consecutive words).
// Only equality of shingles matters: any hash that mixes the three word hashes in order into
// 64 bits will do (a collision is as unlikely as one of the words' own FNV hashes).
func appendShingles(dst, words []uint64) []uint64 {
	for i := 0; i+3 <= len(words); i++ {
		h := (words[i] ^ fnvOffset) * mixPrime
		h = (h ^ h>>29 ^ words[i+1]) * mixPrime
		h = (h ^ h>>29 ^ words[i+2]) * mixPrime
		dst = append(dst, h^h>>32)
	}
	return dst
}

// mixPrime is an odd 64-bit constant with well-spread bits (from splitmix64).
const mixPrime = 0xbf58476d1ce4e5b9

// sortedSet sorts s and drops repeats in place.
func sortedSet[T cmp.Ordered](s []T) []T {
	slices.Sort(s)
	return slices.Compact(s)
}

// jaccard is |a ∩ b| / |a ∪ b| for sorted sets without repeats (0 when both are empty).
func jaccard[T cmp.Ordered](a, b []T) float64 {
	inter := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			inter++
			i++
			j++
		}
	}
	union := len(a) + len(b) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}
