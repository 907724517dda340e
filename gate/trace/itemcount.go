package trace

import (
	"errors"

	"github.com/agentgate/agentgate/internal/jsonscan"
)

// The readers that decode with encoding/json (Inspect, AgentDojo, OpenHands and a bare message
// list) turn every element of a message list, a tool-call list or a content list into a Go
// value of tens of bytes, however few bytes the element takes in the file (`{}` is three):
// without a count a 32 MB file of `{}` messages took 3.6 GB. Before decoding, they walk the
// JSON text with jsonscan, which allocates nothing, and count the elements of the arrays they
// are about to decode toward maxItems; a trace that holds more is an error at the first
// element past the limit.

// itemShape is what a reader decodes of a JSON object one Go value per element: the members
// whose arrays it turns into a value per element (each element counted toward maxItems), and
// the objects on the way to such arrays. Members are matched as encoding/json matches a key to
// a struct field, case folded ("MESSAGES" and "meſſages" fill Messages too), and every repeat
// of a key counts, as encoding/json decodes every one.
type itemShape []itemMember

type itemMember struct {
	key string
	// list: the member is an array whose elements are counted; else an object, walked
	list bool
	// pairs: an element that is itself an array holds elements counted too (OpenHands'
	// [action, observation] pairs of history events)
	pairs bool
	// dict: an object decoded into a map, whose members are counted as a list's elements
	dict  bool
	shape itemShape // of each element of a list, or of the object; nil: nothing inside counted
}

// member is the member of s that key (a JSON string, quotes included) names and its index, or
// nil.
func (s itemShape) member(key []byte) (*itemMember, int) {
	for i := range s {
		if jsonscan.KeyFolds(key, s[i].key) {
			return &s[i], i
		}
	}
	return nil, -1
}

// itemCounter counts the items of one trace.
type itemCounter struct {
	data []byte
	n    int
	over int // the offset of the item past maxItems, once counted
	// depth is how many objects the walk is in; top counts the elements of the top value's
	// lists (the top list's, or the top object's, a pair's two events each), met at depth
	// topDepth, for sizes
	depth, top, topDepth int
	sizes                *itemSizes
}

// itemSizes are what itemsOver found of the lists of the top value, for making them at their
// size: the elements of the top object's lists by the index of their member in its shape
// (repeats and case-folded keys added up, as encoding/json fills one list from them; -1 when
// the object has no such list), or of the top list at 0. A reader makes the list that
// encoding/json then fills at that size (json.Unmarshal appends to a slice's capacity), rather
// than leaving encoding/json to grow it a quarter at a time, which allocates five times its
// size.
type itemSizes [8]int

// of is the size of the list of member k, and whether there is one.
func (s *itemSizes) of(k int) (int, bool) { return max(s[k], 0), s[k] >= 0 }

// errItemsOver stops the walk at the item past maxItems.
var errItemsOver = errors.New("too many items")

// itemsOver walks the value at data[i] (an object of shape s, or, when list is set, an array of
// such objects whose elements count themselves) and returns the offset of its first item past
// maxItems, or -1 when there is none, and the sizes of the top value's lists. It returns -1 too
// when the text is not valid JSON as far as the walk goes: the decoder then says what is
// wrong, and where.
func itemsOver(data []byte, i int, list bool, s itemShape) (int, itemSizes) {
	var sizes itemSizes
	for k := range sizes {
		sizes[k] = -1
	}
	over := itemsIn(data, i, list, s, &sizes)
	if list {
		sizes[0] = max(sizes[0], 0)
	}
	return over, sizes
}

func itemsIn(data []byte, i int, list bool, s itemShape, sizes *itemSizes) int {
	c := itemCounter{data: data, sizes: sizes, topDepth: 1}
	var err error
	if i = jsonscan.SkipSpace(data, i); i >= len(data) {
		return -1
	}
	if list {
		if data[i] != '[' {
			return -1
		}
		c.topDepth = 0
		_, err = c.list(i, itemMember{list: true, shape: s})
		sizes[0] = c.top
	} else {
		_, err = c.object(i, s)
	}
	if err == errItemsOver {
		return c.over
	}
	return -1
}

// object walks the object at data[i] and returns the offset just past it.
func (c *itemCounter) object(i int, s itemShape) (int, error) {
	c.depth++
	defer func() { c.depth-- }()
	return jsonscan.ReadMembers(c.data, i, func(key []byte, v int) (int, error) {
		m, k := s.member(key)
		switch {
		case m == nil || v >= len(c.data):
		case m.list && c.data[v] == '[' && c.depth == 1 && k < len(c.sizes):
			top := c.top
			end, err := c.list(v, *m)
			c.sizes[k] = max(c.sizes[k], 0) + c.top - top
			return end, err
		case m.list && c.data[v] == '[':
			return c.list(v, *m)
		case m.dict && c.data[v] == '{':
			return c.dict(v)
		case !m.list && c.data[v] == '{' && m.shape != nil:
			return c.object(v, m.shape)
		}
		return jsonscan.Skip(c.data, v)
	})
}

// list walks the array at data[i], counting its elements, and returns the offset just past it.
func (c *itemCounter) list(i int, m itemMember) (int, error) {
	data := c.data
	return jsonscan.ReadElements(data, i, func(_, at int) (int, error) {
		switch {
		case data[at] == '[' && m.pairs: // the pair is no item: its two events are
			return c.list(at, itemMember{list: true, shape: m.shape})
		case c.n >= maxItems:
			c.over = at
			return at, errItemsOver
		case data[at] == '{' && m.shape != nil:
			c.count()
			return c.object(at, m.shape)
		}
		c.count()
		return jsonscan.Skip(data, at)
	})
}

// count counts an element of a list.
func (c *itemCounter) count() {
	c.n++
	if c.depth == c.topDepth {
		c.top++ // an element of a list of the top value
	}
}

// dict walks the object at data[i], counting its members, and returns the offset just past it.
func (c *itemCounter) dict(i int) (int, error) {
	return jsonscan.ReadMembers(c.data, i, func(_ []byte, v int) (int, error) {
		if c.n >= maxItems {
			c.over = v
			return v, errItemsOver
		}
		c.n++
		return jsonscan.Skip(c.data, v)
	})
}
