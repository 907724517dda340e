package agreement

import (
	"unicode/utf8"
)

// Records of one pairs file nearly always share one shape: the same members in the same order,
// written with the same spacing, only the values differing, because one program wrote them all.
// A shape is learnt from a record the decoder has read, as the bytes between the values it
// reads (`, "scholar": {"label": ` and so on); the next records are then read by comparing
// those bytes in one piece and scanning only the values, instead of finding every key, colon,
// comma and space one token at a time. A record that departs from the shape in any byte is
// read the general way, from its start, so the shape changes how fast a record is read, never
// what is read from it or which error it gets: FuzzShape holds the two ways to the same result.

// stepKind is what a shape reads after a literal.
type stepKind uint8

const (
	stepQID         stepKind = iota // a string qid, kept
	stepSchLabel                    // the Scholar's label, one of the four
	stepAudLabel                    // the Auditor's label, one of the four
	stepSchReason                   // the Scholar's reason, a string, kept
	stepAudReason                   // the Auditor's reason, a string, kept
	stepCitations                   // answer_json.citations, an array of strings kept as ids
	stepRetrieved                   // retrieved_ids, an array of strings kept as ids
	stepProvenance                  // flags.provenance_violation, true or false
	stepConstraints                 // flags.constraints_mismatch, true or false
	stepSkip                        // another member of answer_json: any value, validated only
	stepSkipReason                  // a reason when reasons are not kept: any value, validated only
	stepNone        stepKind = 0xff // (learning) a member whose object is walked for its own steps
)

// step is a literal, bytes that must follow exactly, then a value to read.
type step struct {
	lit  string
	kind stepKind
}

// shape is a learnt record shape: its steps, then the literal that ends the record (the
// closing braces), after which only whitespace may follow.
type shape struct {
	steps []step
	lits  []byte // (learning) the literals, one after the other
	ends  []int  // (learning) where each step's literal ends in lits
	tail  string // the literal that ends the record
	ok    bool   // a shape is learnt

	decoded, learnt int  // records decoded, and shapes learnt, so far
	off             bool // shapes are not worth learning here
	missed          bool // the last record did not fit the shape
}

// use reports whether the next record should be tried with the shape.
func (sh *shape) use() bool {
	sh.decoded++
	return sh.ok && !sh.off
}

// learnFrom learns the shape of data, a record the general decoder has just read whole,
// when there is none yet or the last record did not fit. It gives up on shapes when they
// keep changing: more than one learnt in eight records, after the first sixteen.
func (sh *shape) learnFrom(data []byte, noReason bool) {
	if sh.off || sh.ok && !sh.missed {
		return
	}
	sh.missed = false
	if sh.learnt++; sh.learnt > 16 && sh.learnt*8 > sh.decoded {
		sh.off, sh.ok = true, false
		return
	}
	sh.ok = sh.learn(data, noReason)
}

// learn builds the shape of data, a valid pairs record, and reports whether it has one: only
// records whose members are all known, each once, with values of the usual types (a string
// qid, known labels, string reasons, arrays for the ids, true or false for the flags).
func (sh *shape) learn(data []byte, noReason bool) bool {
	sh.steps, sh.lits, sh.ends = sh.steps[:0], sh.lits[:0], sh.ends[:0]
	var scratch, arena []byte
	s := &scanner{data: data, arena: &arena}
	prev := 0 // where the current literal starts
	// object reads the members of the object whose '{' is at i. For each member, read says
	// what its value at v is: a step, or stepNone for an object that read has walked itself,
	// ending at end; end < 0 rejects the record. object returns the position after its '}'.
	object := func(i int, keys []literal, read func(k, v int) (stepKind, int)) int {
		if s.at(i) != '{' {
			return -1
		}
		i++
		var seen uint
		for first := true; ; first = false {
			k, v, more := s.member(i, first, keys, &scratch)
			if !more {
				return v
			}
			if k < 0 || seen&(1<<k) != 0 {
				return -1
			}
			seen |= 1 << k
			kind, end := read(k, v)
			switch {
			case end < 0:
				return -1
			case kind == stepNone:
				i = end
				continue
			}
			sh.steps = append(sh.steps, step{kind: kind})
			sh.lits = append(sh.lits, data[prev:v]...)
			sh.ends = append(sh.ends, len(sh.lits))
			if i = s.skip(v, 2); i < 0 {
				return -1
			}
			prev = i
		}
	}
	// want accepts a value when ok.
	want := func(kind stepKind, ok bool) (stepKind, int) {
		if ok {
			return kind, 0
		}
		return stepNone, -1
	}
	judgement := func(v int, label, reason stepKind) (stepKind, int) {
		hasLabel := false
		end := object(v, judgementKeys, func(k, v int) (stepKind, int) {
			switch {
			case k == judgementLabel:
				hasLabel = true
				return want(label, s.known(v, labelLiterals) >= 0)
			case noReason:
				return stepSkipReason, 0
			}
			return want(reason, s.at(v) == '"')
		})
		if !hasLabel {
			end = -1
		}
		return stepNone, end
	}
	i := s.ws(0)
	end := object(i, pairKeys, func(k, v int) (stepKind, int) {
		switch k {
		case pairQID:
			return want(stepQID, s.at(v) == '"')
		case pairRetrieved:
			return want(stepRetrieved, s.at(v) == '[')
		case pairScholar:
			return judgement(v, stepSchLabel, stepSchReason)
		case pairAuditor:
			return judgement(v, stepAudLabel, stepAudReason)
		case pairAnswer:
			return stepNone, object(v, answerKeys, func(k, v int) (stepKind, int) {
				if k == answerCitations {
					return want(stepCitations, s.at(v) == '[')
				}
				return stepSkip, 0
			})
		}
		return stepNone, object(v, flagKeys, func(k, v int) (stepKind, int) {
			c := s.at(v)
			return want(stepProvenance+stepKind(k), c == 't' || c == 'f')
		})
	})
	if end < 0 || !s.atEnd(end) {
		return false
	}
	sh.lits = append(sh.lits, data[prev:end]...)
	// Known keys, whitespace and punctuation are ASCII, so the literals are: a record that
	// matches them has checked UTF-8 wherever it is not ASCII, in its values.
	for _, c := range sh.lits {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	// The literals as strings, in one allocation a shape learnt: compared as they are,
	// without slicing a buffer for each.
	text, start := string(sh.lits), 0
	for k, e := range sh.ends {
		sh.steps[k].lit, start = text[start:e], e
	}
	sh.tail = text[start:]
	return true
}

// decode reads data with the shape into r, as pair would; it reports false, with the
// decoder's arena and ids possibly grown, when data does not fit the shape.
func (sh *shape) decode(d *recordDecoder, data []byte, r *pairRaw) bool {
	d.start(data)
	s := &d.sc
	i := 0
	for _, st := range sh.steps {
		if i = s.literal(i, st.lit); i < 0 {
			return sh.miss()
		}
		switch st.kind {
		case stepQID:
			if s.at(i) != '"' {
				return sh.miss()
			}
			r.hasQID = true
			r.qid, i = s.qidStr(i)
		case stepSchLabel, stepAudLabel:
			k := s.known(i, labelLiterals)
			if k < 0 {
				return sh.miss()
			}
			j := &r.sch
			if r.hasSch = true; st.kind == stepAudLabel {
				j, r.hasAud = &r.aud, true
			}
			j.hasLabel, j.code = true, uint8(k)
			i += labelLiterals[k].n
		case stepSchReason, stepAudReason:
			if s.at(i) != '"' {
				return sh.miss()
			}
			j := &r.sch
			if st.kind == stepAudReason {
				j = &r.aud
			}
			j.reason, i = s.str(i)
		case stepCitations:
			if s.at(i) != '[' {
				return sh.miss()
			}
			i = d.idList(i, "answer_json.citations", &r.cits, nil)
		case stepRetrieved:
			if s.at(i) != '[' {
				return sh.miss()
			}
			i = d.idList(i, "retrieved_ids", &r.ret, &r.hasRetrieved)
		case stepProvenance, stepConstraints:
			dst := &r.prov
			if st.kind == stepConstraints {
				dst = &r.cons
			}
			switch s.at(i) {
			case 't':
				*dst, i = true, s.literal(i, "true")
			case 'f':
				*dst, i = false, s.literal(i, "false")
			default:
				return sh.miss()
			}
		case stepSkip, stepSkipReason:
			i = s.skipFlat(i)
		}
		if i < 0 {
			return sh.miss()
		}
	}
	if i = s.literal(i, sh.tail); i < 0 || !s.atEnd(i) || d.tooLarge() {
		return sh.miss()
	}
	return true
}

// miss notes that a record did not fit the shape and returns false.
func (sh *shape) miss() bool {
	sh.missed = true
	return false
}
