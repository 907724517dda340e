// Package numfmt writes numbers as a person reads them in a report: counts with thousands
// separators (5319116 → "5,319,116"). The report and the evaluators' evidence both use it, so
// that a figure reads the same wherever it is shown (docs/reference.md#the-pr-comment).
package numfmt

import "strconv"

// AppendCount appends n to dst with a comma between each group of three digits.
func AppendCount(dst []byte, n int64) []byte {
	var digits [20]byte
	s := strconv.AppendInt(digits[:0], n, 10)
	if s[0] == '-' {
		dst = append(dst, '-')
		s = s[1:]
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, c)
	}
	return dst
}

// Count is AppendCount as a string.
func Count(n int64) string { return string(AppendCount(nil, n)) }
