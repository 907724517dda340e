package agreement

import (
	"fmt"
	"hash/maphash"

	"github.com/agentgate/agentgate/gate/input"
)

// repeats finds, in the default profile, a pair whose qid an earlier pair had. Qids are told
// apart as Python's dict tells them apart (qidKey): a string by its text, a number by its
// value, so that 1 and 1.0 are one qid and the number 7 and the string "7" are two. A nil
// *repeats (the reference profile, which keeps repeated qids) finds nothing.
//
// The map is keyed by the qid's 64-bit hash and holds only the index of the qid's first
// place in firsts, a dense slice: a million qids cost no allocation each, nothing for the
// garbage collector to scan (keyed by the qids themselves it took three times as long), and
// about 60 bytes each (the map's slots holding the places themselves took twice that). The
// qids' texts are kept one after another in texts, to compare a qid with the one whose hash it
// shares. It is not input.IDs, agentgate's duplicate check for trace and task ids, because
// qids are not plain strings and their error keeps its own words.
type repeats struct {
	seed   maphash.Seed
	first  map[uint64]int // by the hash of the qid's identity: its index in firsts
	other  map[qidKey]int // qids whose hash an earlier, different qid has (as good as never)
	firsts []firstAt      // where each qid was first read
	texts  []byte         // the identities of the qids in firsts, one after another
	files  []string       // the files seen, in order: firstAt.file indexes them
}

// firstAt is where a qid was first read, and its identity in texts.
type firstAt struct {
	off, line int
	n, file   int32
	num       bool
}

// newRepeats returns an empty set with room for about n qids (a map grown step by step to
// millions of entries costs twice as much).
func newRepeats(n int) *repeats {
	return &repeats{seed: maphash.MakeSeed(), first: make(map[uint64]int, n), other: map[qidKey]int{}, firsts: make([]firstAt, 0, n)}
}

// add records the qid of the pair read at file:line:col, or returns the error naming the
// place an earlier pair had it; num says the qid was a JSON number.
func (r *repeats) add(qid []byte, num bool, file string, line, col int) error {
	if r == nil {
		return nil
	}
	if len(r.files) == 0 || r.files[len(r.files)-1] != file {
		r.files = append(r.files, file)
	}
	id := qid
	if num {
		id = []byte(makeKey(string(qid), true).s)
	}
	h := maphash.Bytes(r.seed, id)
	if num {
		h = ^h // the number 7 is not the string "7"
	}
	here := firstAt{off: len(r.texts), n: int32(len(id)), line: line, file: int32(len(r.files) - 1), num: num}
	i, dup := r.first[h]
	if dup {
		if f := r.firsts[i]; f.num != num || string(r.texts[f.off:f.off+int(f.n)]) != string(id) {
			k := qidKey{num: num, s: string(id)}
			if i, dup = r.other[k]; !dup {
				r.other[k] = len(r.firsts)
			}
		}
	} else {
		r.first[h] = len(r.firsts)
	}
	if !dup {
		r.firsts = append(r.firsts, here)
		r.texts = append(r.texts, id...)
		return nil
	}
	f := r.firsts[i]
	return &input.Error{File: file, Line: line, Col: col,
		Msg: fmt.Sprintf("qid %s is repeated: it is first at %s:%d", quoteQID(string(qid), num), r.files[f.file], f.line)}
}
