package agreement

import (
	"fmt"

	"github.com/agentgate/agentgate/gate/input"
)

// repeats finds, in the default profile, a pair whose qid an earlier pair had. Qids are told
// apart as Python's dict tells them apart (qidKey): a string by its text, a number by its
// value, so that 1 and 1.0 are one qid and the number 7 and the string "7" are two. A nil
// *repeats (the reference profile, which keeps repeated qids) finds nothing.
//
// It is a map rather than input.IDs, agentgate's duplicate check for trace and task ids,
// because qids are not plain strings (a number is its value, and is not the string of its
// text) and their error keeps its own words, which the seed's users know.
type repeats struct {
	first map[qidKey]firstAt
	files []string // the files seen, in order: firstAt.file indexes them
}

// firstAt is where a qid was first read.
type firstAt struct {
	file int32
	line int
}

func newRepeats() *repeats { return &repeats{first: map[qidKey]firstAt{}} }

// add records the qid of the pair read at file:line:col, or returns the error naming the
// place an earlier pair had it; num says the qid was a JSON number.
func (r *repeats) add(qid string, num bool, file string, line, col int) error {
	if r == nil {
		return nil
	}
	if len(r.files) == 0 || r.files[len(r.files)-1] != file {
		r.files = append(r.files, file)
	}
	k := qidKey{s: qid}
	if num {
		k = makeKey(qid, true).qidKey
	}
	if f, dup := r.first[k]; dup {
		return &input.Error{File: file, Line: line, Col: col,
			Msg: fmt.Sprintf("qid %s is repeated: it is first at %s:%d", quoteQID(qid, num), r.files[f.file], f.line)}
	}
	r.first[k] = firstAt{file: int32(len(r.files) - 1), line: line}
	return nil
}
