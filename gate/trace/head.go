package trace

import (
	"bytes"
	"sync"

	"github.com/agentgate/agentgate/internal/jsonscan"
)

// head is what the registry's rows recognise a file by: its first bytes and, when they start a
// JSON object, the top-level keys they show, in order (docs/trace-formats.md, "How a file is
// recognised"). Sniff reads the keys one by one and asks the rows after each, so that a row
// is decided by the keys before the first one that would tell another.
type head struct {
	data []byte
	// zip is a zip archive; array a JSON array, whose first element starts at data[at]
	zip, array bool
	at         int
	// keys are the top-level keys seen so far, by name: where each first appeared (its
	// order) and where its value starts and ends in data (end is len(data) when the head cut
	// it)
	keys map[string]headKey
	n    int // how many keys have been seen
	// firstList is the order of the first key that holds a message list, -1 before one
	firstList int
	last      string // the key seen last
}

type headKey struct{ order, v, end int }

// has reports whether key k has been seen.
func (h *head) has(k string) bool { _, ok := h.keys[k]; return ok }

// beforeList reports whether key k has been seen before any message list.
func (h *head) beforeList(k string) bool {
	e, ok := h.keys[k]
	return ok && (h.firstList < 0 || e.order < h.firstList)
}

// value is the value of key k as far as the head holds it (nil when k was not seen).
func (h *head) value(k string) []byte {
	e, ok := h.keys[k]
	if !ok {
		return nil
	}
	return h.data[e.v:e.end]
}

// firstMember is the first key of the object that is the value of k, "" when there is none.
func (h *head) firstMember(k string) string {
	v := h.value(k)
	if len(v) == 0 || v[0] != '{' {
		return ""
	}
	key, _, err := jsonscan.Key(v, 1)
	if err != nil {
		return ""
	}
	return jsonscan.Unquote(key, jsonscan.Replace)
}

// sniffBuffers hold the first bytes of the files Sniff looks at.
var sniffBuffers = sync.Pool{New: func() any { b := make([]byte, sniffBytes); return &b }}

// sniff decides the format from the first bytes of a file: the first row of the registry that
// recognises them, records when none does. Anything it cannot read is records, whose reader
// then reports the problem with its position.
func sniff(data []byte) Format {
	h := &head{data: data, firstList: -1, zip: bytes.HasPrefix(data, []byte("PK\x03\x04"))}
	if h.zip {
		return recognised(h)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	h.data = data
	i := jsonscan.SkipSpace(data, 0)
	if i < len(data) && data[i] == '[' {
		h.array, h.at = true, i
		return recognised(h)
	}
	if i >= len(data) || data[i] != '{' {
		return FormatRecords
	}
	h.keys = map[string]headKey{}
	for i++; ; {
		// The end of the object, of the head, or bad JSON: records, whose reader says what
		// is wrong.
		key, v, err := jsonscan.Key(data, i)
		if err != nil {
			return FormatRecords
		}
		end, err := jsonscan.Skip(data, v)
		cut := err != nil
		if cut {
			end = len(data) // cut by the head, or bad JSON: as far as it goes
		}
		name := jsonscan.Unquote(key, jsonscan.Replace)
		if _, seen := h.keys[name]; !seen {
			h.keys[name] = headKey{order: h.n, v: v, end: end}
			if h.firstList < 0 && isTurnKey(name) {
				h.firstList = h.n
			}
		}
		h.n++
		h.last = name
		if f := recognised(h); f != FormatRecords || cut {
			return f
		}
		var closed bool
		if i, closed, err = jsonscan.Next(data, end, '}'); err != nil || closed {
			return FormatRecords
		}
	}
}

// recognised is the format of the first row that recognises h, records when none does.
func recognised(h *head) Format {
	for _, r := range formats {
		if r.Recognise != nil && r.Recognise(h) {
			return r.Format
		}
	}
	return FormatRecords
}

func isTurnKey(k string) bool {
	for _, t := range listKeys {
		if k == t {
			return true
		}
	}
	return false
}
