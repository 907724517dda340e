package jsonscan

import (
	"errors"
	"strconv"
	"strings"
)

// Step is one element of a Path: an object member's key, or an array index when IsIndex.
type Step struct {
	Key     string
	Index   int
	IsIndex bool
}

// Path names a value inside a JSON value by the steps that lead to it from the top. Readers
// that find a problem after decoding use it to name the value in a message (its String) and
// to place it (Locate); a reader that knows only where a value is finds its name with PathAt.
type Path []Step

// PathOf builds a path from keys (strings) and indices (ints); other arguments are ignored.
func PathOf(elems ...any) Path {
	p := make(Path, 0, len(elems))
	for _, e := range elems {
		switch v := e.(type) {
		case string:
			p = append(p, Step{Key: v})
		case int:
			p = append(p, Step{Index: v, IsIndex: true})
		}
	}
	return p
}

// String writes p as messages[3].tool_calls[0].function.name.
func (p Path) String() string {
	var b strings.Builder
	for i, s := range p {
		if s.IsIndex {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.Index))
			b.WriteByte(']')
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.Key)
	}
	return b.String()
}

// errFound stops a walk once it has what it looks for.
var errFound = errors.New("found")

// child returns where the value one step s down from the array or object at data[at] starts,
// or -1 when there is none. Of repeated keys the last counts, as it does for decoders.
func child(data []byte, at int, s Step) int {
	next := -1
	if s.IsIndex {
		n := 0
		_, _ = EachElement(data, at, func(start, _ int) error {
			if n == s.Index {
				next = start
				return errFound
			}
			n++
			return nil
		})
		return next
	}
	_, _ = EachMember(data, at, func(key []byte, start, _ int) error {
		if KeyIs(key, s.Key) {
			next = start
		}
		return nil
	})
	return next
}

// Locate returns the offset at which the value at path p starts in data, or, when there is
// no such value, where its deepest existing ancestor starts (the top value at least). It is
// meant for placing an error, once: it walks the values on the way whole.
func Locate(data []byte, p Path) int {
	at := SkipSpace(data, 0)
	for _, s := range p {
		next := child(data, at, s)
		if next < 0 {
			break
		}
		at = next
	}
	return at
}

// PathAt returns the path of the value that starts at offset off of data, or of the deepest
// value that holds off.
func PathAt(data []byte, off int) Path {
	var p Path
	for at := SkipSpace(data, 0); at < off; {
		next := -1
		n := 0
		inside := func(start, end int) bool { return start <= off && off < end }
		switch data[at] {
		case '{':
			_, _ = EachMember(data, at, func(key []byte, start, end int) error {
				if !inside(start, end) {
					return nil
				}
				p, next = append(p, Step{Key: Unquote(key, Replace)}), start
				return errFound
			})
		case '[':
			_, _ = EachElement(data, at, func(start, end int) error {
				if !inside(start, end) {
					n++
					return nil
				}
				p, next = append(p, Step{Index: n, IsIndex: true}), start
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
