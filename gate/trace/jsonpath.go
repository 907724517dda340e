package trace

import (
	"errors"
	"strconv"
	"strings"

	"github.com/agentgate/agentgate/internal/jsonscan"
)

// This file locates values inside a record's JSON text by path, so that an error found after
// decoding can still point at a line and column. It runs only when there is an error to
// report, on a record the parser has checked, and walks it with jsonscan.EachMember and
// EachElement.

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

// errFound stops a walk once it has what it looks for.
var errFound = errors.New("found")

// child returns where the value one step s down from the array or object at data[at] starts,
// or -1 when there is none. Of repeated keys the last counts, as for the decoder.
func child(data []byte, at int, s step) int {
	next := -1
	if s.isIndex {
		n := 0
		jsonscan.EachElement(data, at, func(start, _ int) error {
			if n == s.index {
				next = start
				return errFound
			}
			n++
			return nil
		})
		return next
	}
	jsonscan.EachMember(data, at, func(key []byte, start, _ int) error {
		if jsonscan.KeyIs(key, s.key) {
			next = start
		}
		return nil
	})
	return next
}

// locate returns the offset at which the value at path p starts in data, or, when there is
// no such value, where its deepest existing ancestor starts (the record itself at least).
func locate(data []byte, p []step) int {
	at := jsonscan.SkipSpace(data, 0)
	for _, s := range p {
		next := child(data, at, s)
		if next < 0 {
			break
		}
		at = next
	}
	return at
}

// pathAt returns the path of the value that starts at offset off.
func pathAt(data []byte, off int) []step {
	var p []step
	for at := jsonscan.SkipSpace(data, 0); at < off; {
		next := -1
		n := 0
		inside := func(start, end int) bool { return start <= off && off < end }
		switch data[at] {
		case '{':
			jsonscan.EachMember(data, at, func(key []byte, start, end int) error {
				if !inside(start, end) {
					return nil
				}
				p, next = append(p, step{key: jsonscan.Unquote(key, jsonscan.Replace)}), start
				return errFound
			})
		case '[':
			jsonscan.EachElement(data, at, func(start, end int) error {
				if !inside(start, end) {
					n++
					return nil
				}
				p, next = append(p, step{index: n, isIndex: true}), start
				return errFound
			})
		}
		if next < 0 {
			break
		}
		at = next
	}
	return p
}

// kindOf is the kind of the value raw holds, named in errors as jsonscan names it.
func kindOf(raw []byte) jsonscan.Kind { return jsonscan.KindOfValue(raw) }
