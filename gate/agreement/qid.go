package agreement

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// qidKey is a qid's identity as Python's dict sees it: a string is itself; a number is its
// value, exactly (an int is exact, a float is its binary64 value, and 1 == 1.0), so that the
// number 7 and the string "7" are different qids, as they are in the seed's scorer.
type qidKey struct {
	num bool
	s   string // the string, or the number's exact value as a reduced fraction, "inf" or "-inf"
}

// sortKey orders qids as Python's sorted() does: strings by code point, numbers by value. A
// mix of both makes Python raise TypeError; here numbers sort first.
type sortKey struct {
	qidKey
	f float64 // a number's value, rounded to binary64
}

// makeKey returns the identity and sort key of a qid written as text; num says whether it was
// a JSON number (text is then the number exactly as written).
func makeKey(text string, num bool) sortKey {
	if !num {
		return sortKey{qidKey: qidKey{s: text}}
	}
	isInt := !strings.ContainsAny(text, ".eE")
	f, _ := strconv.ParseFloat(text, 64)
	switch {
	case isInt && len(text) <= 15 && text != "-0":
		// JSON integers have no leading zeros, so a short one is already canonical.
		return sortKey{qidKey: qidKey{num: true, s: text}, f: f}
	case isInt:
		n, ok := new(big.Int).SetString(text, 10)
		if !ok {
			return sortKey{qidKey: qidKey{num: true, s: text}, f: f}
		}
		return sortKey{qidKey: qidKey{num: true, s: n.String()}, f: f}
	case math.IsInf(f, 1):
		return sortKey{qidKey: qidKey{num: true, s: "inf"}, f: f}
	case math.IsInf(f, -1):
		return sortKey{qidKey: qidKey{num: true, s: "-inf"}, f: f}
	}
	return sortKey{qidKey: qidKey{num: true, s: new(big.Rat).SetFloat64(f).RatString()}, f: f}
}

// compareKeys orders two qids: numbers before strings, numbers by exact value, strings by
// code point (byte order of UTF-8 is code point order).
func compareKeys(a, b sortKey) int {
	switch {
	case a.num != b.num:
		if a.num {
			return -1
		}
		return 1
	case !a.num:
		return strings.Compare(a.s, b.s)
	case a.f < b.f:
		return -1
	case a.f > b.f:
		return 1
	case a.s == b.s || math.IsInf(a.f, 0):
		return 0
	}
	// Equal after rounding to binary64 but different exactly: two big integers.
	x, okx := new(big.Rat).SetString(a.s)
	y, oky := new(big.Rat).SetString(b.s)
	if !okx || !oky {
		return strings.Compare(a.s, b.s)
	}
	return x.Cmp(y)
}

// quoteQID writes a qid for a message: a string quoted, a number as written.
func quoteQID(text string, num bool) string {
	if num {
		return text
	}
	return strconv.Quote(text)
}
