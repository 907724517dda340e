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

// appendWords appends the hashes of the words of text, in order, to dst. scratch is reused for
// the lower-cased text and returned for the next call.
func appendWords(dst []uint64, text string) []uint64 {
	dst, _ = appendWordsBuf(dst, nil, text)
	return dst
}

func appendWordsBuf(dst []uint64, scratch []byte, text string) ([]uint64, []byte) {
	low := pystr.AppendLower(scratch[:0], text)
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
	return dst, low
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || '0' <= r && r <= '9' || 'A' <= r && r <= 'Z'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// appendShingles appends the hashes of the word 3-shingles (runs of three consecutive words).
func appendShingles(dst, words []uint64) []uint64 {
	for i := 0; i+3 <= len(words); i++ {
		h := uint64(fnvOffset)
		for _, w := range words[i : i+3] {
			for s := 0; s < 64; s += 8 {
				h = (h ^ (w >> s & 0xff)) * fnvPrime
			}
		}
		dst = append(dst, h)
	}
	return dst
}

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
