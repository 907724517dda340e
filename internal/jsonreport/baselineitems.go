package jsonreport

import (
	"fmt"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/internal/jsonscan"
)

// maxBaselineItems is the most traces, coherence tasks, agreement items, evidence entries,
// evidence message indices and history pass@k values and flaky tasks one baseline may hold
// together. Each costs the reader a fixed size
// however few bytes it takes in the file (`{}` is three, `0,` two), so without a count a 32 MB
// baseline of `{}` evidence took 3 GB (issue 34, finding 3). They are counted before they are
// decoded. A variable so that tests can lower it.
var maxBaselineItems = 1 << 22

// tooMany is the error for the item at offset off of the baseline, named what, that passes
// maxBaselineItems.
func (br *baselineReader) tooMany(off int, what string) error {
	p := jsonscan.Position(br.data, off)
	return &input.Error{File: br.name, Line: p.Line, Col: p.Col, Msg: fmt.Sprintf(
		"%s: more than %d traces, tasks, agreement items, evidence entries and list elements in one baseline, the most a baseline may hold", what, maxBaselineItems)}
}

// unit counts one trace, task or agreement item, whose value starts where the decoder stands.
func (br *baselineReader) unit(what string, i int) error {
	if br.items >= maxBaselineItems {
		return br.tooMany(jsonscan.SkipSeparators(br.data, br.offset()), fmt.Sprintf("%s[%d]", what, i))
	}
	br.items++
	return nil
}

// listLen is the number of elements of the array the decoder stands before, at most
// maxBaselineItems, or 0 when it is no array: the size to make its list at, rather than growing
// it a quarter at a time, which allocates five times its size.
func (br *baselineReader) listLen() int {
	at := jsonscan.SkipSeparators(br.data, br.offset())
	n := 0
	if at < len(br.data) && br.data[at] == '[' {
		_, _ = jsonscan.EachElement(br.data, at, func(int, int) error {
			if n++; n > maxBaselineItems {
				return errStop
			}
			return nil
		})
	}
	return min(n, maxBaselineItems)
}

// precheckTrace counts the evidence entries of the trace whose value starts at data[start], and
// the message indices of each, and checks its signals (checkSignals), before the trace
// is decoded. Keys are matched as encoding/json matches them to the fields it fills, case
// folded; every repeat counts. Text that is not an object is left to the decoder.
func (br *baselineReader) precheckTrace(start int, what string) error {
	data := br.data
	_, err := jsonscan.ReadMembers(data, start, func(key []byte, v int) (int, error) {
		if v < len(data) && jsonscan.KeyFolds(key, "signals") {
			return checkSignals(data, v, false)
		}
		if v >= len(data) || data[v] != '[' || !jsonscan.KeyFolds(key, "evidence") {
			return jsonscan.Skip(data, v)
		}
		return jsonscan.ReadElements(data, v, func(j, at int) (int, error) {
			if br.items >= maxBaselineItems {
				return at, br.tooMany(at, fmt.Sprintf("%s.evidence[%d]", what, j))
			}
			br.items++
			if data[at] != '{' {
				return jsonscan.Skip(data, at)
			}
			return jsonscan.ReadMembers(data, at, func(key []byte, v int) (int, error) {
				if v >= len(data) || data[v] != '[' || !jsonscan.KeyFolds(key, "messages") {
					return jsonscan.Skip(data, v)
				}
				return jsonscan.ReadElements(data, v, func(k, at int) (int, error) {
					if br.items >= maxBaselineItems {
						return at, br.tooMany(at, fmt.Sprintf("%s.evidence[%d].messages[%d]", what, j, k))
					}
					br.items++
					return jsonscan.Skip(data, at)
				})
			})
		})
	})
	switch err.(type) {
	case *input.Error, *posError:
		return err
	}
	return nil // the decoder says what is wrong with the text
}

// countLists counts the elements of the arrays named keys in the object whose value starts at
// data[start], before it is decoded, as precheckTrace does.
func (br *baselineReader) countLists(start int, what string, keys ...string) error {
	data := br.data
	_, err := jsonscan.ReadMembers(data, start, func(key []byte, v int) (int, error) {
		if v >= len(data) || data[v] != '[' {
			return jsonscan.Skip(data, v)
		}
		for _, name := range keys {
			if !jsonscan.KeyFolds(key, name) {
				continue
			}
			return jsonscan.ReadElements(data, v, func(j, at int) (int, error) {
				if br.items >= maxBaselineItems {
					return at, br.tooMany(at, fmt.Sprintf("%s.%s[%d]", what, jsonscan.Unquote(key, jsonscan.Replace), j))
				}
				br.items++
				return jsonscan.Skip(data, at)
			})
		}
		return jsonscan.Skip(data, v)
	})
	if _, ok := err.(*input.Error); ok {
		return err
	}
	return nil
}
