package input

import "fmt"

// IDs finds a record whose id an earlier record already had: the one duplicate check of
// agentgate's readers, so that every kind of id is rejected with the same words (trace ids and
// task ids in gate; gate/agreement is to use it for repeated qids too).
//
// Records are numbered 0, 1, 2, … by the caller, in the order it adds them. Per id, IDs keeps
// only the number of the record that had it first (an int32: suites have millions of traces),
// not its place; the caller, which keeps its records anyway, gives that place back when Add
// reports a duplicate. The zero value is not ready: use NewIDs.
type IDs struct {
	kind  string
	first map[string]int32
}

// NewIDs returns an empty set for ids of the given kind ("trace", "task"), a word used in
// the error.
func NewIDs(kind string) *IDs { return &IDs{kind: kind, first: map[string]int32{}} }

// Add records that record number n has id, unless an earlier record had it: then it records
// nothing and returns that record's number and true.
func (s *IDs) Add(id string, n int) (first int, dup bool) {
	if f, dup := s.first[id]; dup {
		return int(f), true
	}
	s.first[id] = int32(n)
	return 0, false
}

// maxReserve is the most ids Reserve makes room for (about 4 MB of map): beyond, the set grows
// as ids come, so that a wrong guess costs little.
const maxReserve = 1 << 17

// Reserve makes room for about n ids in a set still empty, n being a guess at how many the
// input holds (see pipeline.Estimate): filled from empty, a map of 18,805 trace ids was split
// and rehashed as it grew, 3.6% of the gate's CPU time on 93 MB of traces.
func (s *IDs) Reserve(n int) {
	if len(s.first) == 0 && n > 0 {
		s.first = make(map[string]int32, min(n, maxReserve))
	}
}

// MaxIDs is the most records of one kind (traces, tasks) one run reads. Each keeps its result
// for the report, a few hundred bytes however small the record (a trace of 31 bytes costs
// about 380), so without a count the 1 GiB an input may hold could be tens of millions of tiny
// traces and over 10 GB; a real suite holds thousands of runs. A variable so that tests can
// lower it.
var MaxIDs = 1 << 21

// Full returns the error for the record at p when the set already holds MaxIDs ids, else nil;
// callers ask before they add a record.
func (s *IDs) Full(p Place) error {
	if len(s.first) < MaxIDs {
		return nil
	}
	return &Error{File: p.File, Line: p.Line, Col: p.Col,
		Msg: fmt.Sprintf("more than %d %ss in one run, the most agentgate reads (each is kept for the report)", MaxIDs, s.kind)}
}

// Check is the duplicate check of a record about to be kept as record number n, with id,
// starting at here: Full's error when the set is full; else Add, and when an earlier record
// had the id, prior(first) gives that record's place and whether the two may share it (two
// trials of one task): unless they may, the error is Duplicate's.
func (s *IDs) Check(id string, n int, here Place, prior func(first int) (at Place, shared bool)) error {
	if err := s.Full(here); err != nil {
		return err
	}
	first, dup := s.Add(id, n)
	if !dup {
		return nil
	}
	at, shared := prior(first)
	if shared {
		return nil
	}
	return s.Duplicate(id, here, at)
}

// Place is where a record starts; Col is 0 when unknown.
type Place struct {
	File      string
	Line, Col int
}

// String is file:line, or file:line:col when the column is known.
func (p Place) String() string {
	if p.Col > 0 {
		return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
	}
	return fmt.Sprintf("%s:%d", p.File, p.Line)
}

// Duplicate is the error for the record at here whose id the record at first already had,
// for example
//
//	b.jsonl:2: duplicate trace id "run-1": already used at a.jsonl:1; every trace needs its own id
func (s *IDs) Duplicate(id string, here, first Place) *Error {
	return &Error{File: here.File, Line: here.Line, Col: here.Col,
		Msg: fmt.Sprintf("duplicate %s id %s: already used at %s; every %s needs its own id", s.kind, Quote(id), first, s.kind)}
}
