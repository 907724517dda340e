package trace

import (
	"strconv"
	"strings"
)

// This file locates values inside a record's JSON text by path, so that an error found after
// decoding can still point at a line and column. It runs only when there is an error to
// report, so it favours simplicity over speed; it never panics, even on invalid JSON.

// step is one element of a path: an object key or an array index.
type step struct {
	key     string
	index   int
	isIndex bool
}

// path builds a path from keys (strings) and indices (ints).
func path(elems ...any) []step {
	p := make([]step, 0, len(elems))
	for _, e := range elems {
		switch v := e.(type) {
		case string:
			p = append(p, step{key: v})
		case int:
			p = append(p, step{index: v, isIndex: true})
		}
	}
	return p
}

// formatPath writes p as messages[3].tool_calls[0].function.name.
func formatPath(p []step) string {
	var b strings.Builder
	for i, s := range p {
		if s.isIndex {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.index))
			b.WriteByte(']')
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.key)
	}
	return b.String()
}

func samePath(a, b []step) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// walker scans JSON text and reports every value, after scanning it, with its path and span.
type walker struct {
	data []byte
	path []step
	fn   func(p []step, start, end int)
}

func (w *walker) space(i int) int {
	for i < len(w.data) {
		switch w.data[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// str returns the offset just past the string starting at i.
func (w *walker) str(i int) int {
	for i++; i < len(w.data); i++ {
		switch w.data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(w.data)
}

// value scans the value at or after i and returns the offset just past it. Every call
// consumes at least one byte when any is left, so the loops always make progress.
func (w *walker) value(i int) int {
	i = w.space(i)
	start := i
	if i >= len(w.data) {
		return i
	}
	switch w.data[i] {
	case '{':
		i++
		for {
			i = w.space(i)
			if i >= len(w.data) {
				break
			}
			if c := w.data[i]; c == '}' {
				i++
				break
			} else if c != '"' {
				i++ // a comma, or junk in invalid input
				continue
			}
			ks := i
			i = w.str(i)
			k := decodeKey(w.data[ks:i])
			i = w.space(i)
			if i < len(w.data) && w.data[i] == ':' {
				i++
			}
			w.path = append(w.path, step{key: k})
			i = w.value(i)
			w.path = w.path[:len(w.path)-1]
		}
	case '[':
		i++
		for n := 0; ; {
			i = w.space(i)
			if i >= len(w.data) {
				break
			}
			if c := w.data[i]; c == ']' {
				i++
				break
			} else if c == ',' {
				i++
				continue
			}
			w.path = append(w.path, step{index: n, isIndex: true})
			i = w.value(i)
			w.path = w.path[:len(w.path)-1]
			n++
		}
	case '"':
		i = w.str(i)
	default:
		for i < len(w.data) {
			switch w.data[i] {
			case ',', '}', ']', ':', ' ', '\t', '\r', '\n', '"', '{', '[':
				goto done
			}
			i++
		}
	done:
		if i == start {
			i++
		}
	}
	w.fn(w.path, start, i)
	return i
}

func decodeKey(raw []byte) string {
	if s, ok := stringValue(raw); ok {
		return s
	}
	return strings.Trim(string(raw), `"`)
}

// locate returns the offset at which the value at path p starts in data, or, when there is
// no such value, where its deepest existing ancestor starts (0 for the record itself).
func locate(data []byte, p []step) int {
	best, bestLen := 0, -1
	w := walker{data: data, fn: func(q []step, start, _ int) {
		if len(q) > bestLen && len(q) <= len(p) && samePath(q, p[:len(q)]) {
			best, bestLen = start, len(q)
		}
	}}
	w.value(0)
	return best
}

// pathAt returns the path of the innermost value whose text contains offset off.
func pathAt(data []byte, off int) []step {
	var best []step
	found := false
	w := walker{data: data, fn: func(q []step, start, end int) {
		if start <= off && off < end && (!found || len(q) > len(best)) {
			best, found = append(best[:0:0], q...), true
		}
	}}
	w.value(0)
	return best
}

// kindOf names the JSON type of the value raw, as errors say it.
func kindOf(raw []byte) string {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '"':
			return "a string"
		case '{':
			return "an object"
		case '[':
			return "an array"
		case 't', 'f':
			return "a boolean"
		case 'n':
			return "null"
		}
		return "a number"
	}
	return "nothing"
}
