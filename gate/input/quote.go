package input

import (
	"strconv"
	"unicode/utf8"
)

// MaxQuoted is how many characters of a value from the input an error message shows.
const MaxQuoted = 200

// Quote returns s quoted as %q quotes it, cut to its first MaxQuoted characters with a note of
// how many more there were: a value from the input, which anyone may have written, quoted in
// an error. A 10 MB label must not make a 10 MB message, annotation and job summary.
func Quote(s string) string {
	head, more := cut(s)
	return strconv.Quote(head) + more
}

// Cut is Quote for a value shown as written, without quotes (a number, say).
func Cut(s string) string {
	head, more := cut(s)
	return head + more
}

// cut returns the first MaxQuoted characters of s, and the note of what follows them ("" if
// nothing does).
func cut(s string) (head, more string) {
	i, n := 0, 0
	for i < len(s) && n < MaxQuoted {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
	}
	if i == len(s) {
		return s, ""
	}
	n = utf8.RuneCountInString(s[i:])
	if n == 1 {
		return s[:i], "… (1 more character)"
	}
	return s[:i], "… (" + strconv.Itoa(n) + " more characters)"
}
