package agreement

import (
	"cmp"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/agentgate/agentgate/gate/input"
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
		// A JSON integer is canonical as written, but for "-0", which is 0 in Python. (Not
		// through big.Int: its decimal conversion is quadratic in the number of digits.)
		if text == "-0" {
			text = "0"
		}
		return sortKey{qidKey: qidKey{num: true, s: text}, f: f}
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
	case a.s == b.s:
		return 0
	case isInfKey(a) != isInfKey(b):
		// An infinite float and an integer too large for binary64: the float is beyond it.
		if isInfKey(a) == (a.f > 0) {
			return 1
		}
		return -1
	}
	// Equal after rounding to binary64 but different exactly: two big integers (a float that
	// is not an integer is below 2^53, where binary64 holds every integer exactly), compared
	// as text in linear time.
	if c, ok := compareIntText(a.s, b.s); ok {
		return c
	}
	x, okx := new(big.Rat).SetString(a.s)
	y, oky := new(big.Rat).SetString(b.s)
	if !okx || !oky {
		return strings.Compare(a.s, b.s)
	}
	return x.Cmp(y)
}

// isInfKey says whether k is an infinite float (not an integer too large for binary64).
func isInfKey(k sortKey) bool { return k.s == "inf" || k.s == "-inf" }

// compareIntText compares two canonical decimal integers (an optional "-", then digits with
// no leading zero) by value: false if either is not one.
func compareIntText(a, b string) (int, bool) {
	negA, digitsA, okA := splitInt(a)
	negB, digitsB, okB := splitInt(b)
	if !okA || !okB {
		return 0, false
	}
	if negA != negB {
		if negA {
			return -1, true
		}
		return 1, true
	}
	c := cmp.Compare(len(digitsA), len(digitsB))
	if c == 0 {
		c = strings.Compare(digitsA, digitsB)
	}
	if negA {
		c = -c
	}
	return c, true
}

// splitInt splits a canonical decimal integer into its sign and digits.
func splitInt(s string) (neg bool, digits string, ok bool) {
	digits, neg = strings.CutPrefix(s, "-")
	if digits == "" || digits[0] == '0' && len(digits) > 1 || neg && digits == "0" {
		return false, "", false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return false, "", false
		}
	}
	return neg, digits, true
}

// quoteQID writes a qid for a message: a string quoted, a number as written, either cut to
// input.MaxQuoted characters.
func quoteQID(text string, num bool) string {
	if num {
		return input.Cut(text)
	}
	return input.Quote(text)
}
