package agreement

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/gate/profile"
)

// The two flags the arbitration reads (seed 002 §4).
const (
	FlagProvenance  = "provenance_violation"
	FlagConstraints = "constraints_mismatch"
)

// Flag sets shared by all decoded pairs: the arbitration reads only the two hard flags, so a
// decoded Pair's Flags holds just those that are true, and pairs share these read-only maps
// instead of allocating one each. Do not modify a decoded Pair's Flags.
var (
	flagsProvenance  = map[string]bool{FlagProvenance: true}
	flagsConstraints = map[string]bool{FlagConstraints: true}
	flagsBoth        = map[string]bool{FlagProvenance: true, FlagConstraints: true}
)

func flagSet(prov, cons bool) map[string]bool {
	switch {
	case prov && cons:
		return flagsBoth
	case prov:
		return flagsProvenance
	case cons:
		return flagsConstraints
	}
	return nil
}

// labelFor returns the constant for a known label, so that known labels cost no allocation.
func labelFor(b []byte) (string, bool) {
	switch string(b) {
	case Valid:
		return Valid, true
	case NotInContext:
		return NotInContext, true
	case Reject:
		return Reject, true
	case Abstain:
		return Abstain, true
	}
	return "", false
}

const allowedLabels = "VALID, NOT_IN_CONTEXT, REJECT or ABSTAIN (exact case)"

// decodeErr is the first problem found in a record: a syntax error (the message then comes
// from encoding/json) or a semantic one at an offset.
type decodeErr struct {
	off int
	msg string
}

// recordError turns a failed decode into an *input.Error. A record that is not valid JSON is
// reported as such even when a type problem was met first, as encoding/json would.
func recordError(rec input.Record, syntax bool, de *decodeErr) *input.Error {
	if syntax || !json.Valid(rec.Data) {
		var v any
		if err := rec.Decode(&v); err != nil {
			if ie, ok := err.(*input.Error); ok {
				return ie
			}
			return rec.Errorf("invalid JSON: %v", err)
		}
		// The scanner rejected what encoding/json accepts: cannot happen (the fuzz tests
		// check it), but never let it pass silently.
		off := 0
		if de != nil {
			off = de.off
		}
		return rec.ErrorAt(off, "invalid JSON")
	}
	return rec.ErrorAt(de.off, "%s", de.msg)
}

// judgementRaw is a decoded {"label", "reason"} with its strings in the arena.
type judgementRaw struct {
	code     uint8 // the label's code (see Items): its index in Labels, or other
	labelRaw span  // a label whose code is other
	reason   span
	hasLabel bool
}

// labelText returns the judgement's label, with get resolving spans in the arena.
func (j *judgementRaw) labelText(get func(span) string) string {
	if j.code != other {
		return Labels[j.code]
	}
	return get(j.labelRaw)
}

// pairRaw is a decoded pairs record before its strings leave the arena.
type pairRaw struct {
	qid            span
	qidNum, hasQID bool
	sch, aud       judgementRaw
	hasSch, hasAud bool
	cits, ret      [2]int32 // ranges into recordDecoder.ids
	hasRetrieved   bool
	prov, cons     bool
}

// recordDecoder decodes records of one profile, keeping decoded strings in an arena.
//
// Its methods follow the scanner's: each takes the position of a value (after whitespace)
// and returns the position after it, or -1 on failure, with d.sc.bad set for a syntax error,
// else d.err for a semantic one.
type recordDecoder struct {
	p        profile.Profile
	noReason bool // validate reasons without keeping them (EvaluateMerged never reads one)
	sc       scanner
	arena    []byte
	ids      []span // citations and retrieved ids of the records in the arena
	scratch  []byte
	err      *decodeErr
	shape    shape // of the pairs records read so far
	noShape  bool  // read every record the general way (tests)
}

// semantic records a semantic error at off, unless one is recorded already, and returns -1.
func (d *recordDecoder) semantic(off int, format string, args ...any) int {
	if d.err == nil {
		d.err = &decodeErr{off: off, msg: fmt.Sprintf(format, args...)}
	}
	return -1
}

// tooLarge reports whether the arena outgrew the int32 offsets of its spans.
func (d *recordDecoder) tooLarge() bool {
	return len(d.arena) >= math.MaxInt32 || len(d.ids) >= math.MaxInt32
}

// start points the scanner at a record in data and forgets the last record's error.
func (d *recordDecoder) start(data []byte) {
	d.sc = scanner{data: data, arena: &d.arena}
	d.err = nil
}

// begin prepares the scanner for a record in data. It returns where the record starts and
// the position after its '{', or -1 (with the error set) if the record is not an object;
// shape and keys describe the record in that error.
func (d *recordDecoder) begin(data []byte, shape, keys string) (start, i int) {
	d.start(data)
	s := &d.sc
	c, start := s.peek(0)
	if c != '{' {
		if s.skip(start, 0) < 0 { // the record itself: at depth 0
			return start, -1
		}
		return start, d.semantic(start, "%s must be a JSON object %s, found %s", shape, keys, kind(c))
	}
	return start, start + 1
}

// end checks the end of a record whose members were read up to i (-1 if that failed): only
// whitespace may follow it.
func (d *recordDecoder) end(start, i int) bool {
	switch {
	case i < 0:
		return false
	case !d.sc.atEnd(i):
		d.sc.fail()
		return false
	case d.tooLarge():
		d.semantic(start, "record too large: its strings exceed 2 GiB")
		return false
	}
	return true
}

// The members that the decoder reads, by object: scanner.member returns an index in these.
const (
	pairQID = iota
	pairScholar
	pairAuditor
	pairAnswer
	pairRetrieved
	pairFlags
)

var pairKeys = keyLiterals("qid", "scholar", "auditor", "answer_json", "retrieved_ids", "flags")

const (
	judgementLabel = iota
	judgementReason
)

var judgementKeys = keyLiterals("label", "reason")

const answerCitations = 0

// answerKeys holds citations, the one member of answer_json that is read, then the others
// that the seed writes, which are skipped: as known keys they cost less than unknown ones.
var answerKeys = keyLiterals("citations", "claim", "constraints_echo")

const (
	flagProv = iota
	flagCons
)

var flagKeys = keyLiterals(FlagProvenance, FlagConstraints)

const (
	labelQID = iota
	labelLabel
	labelReason
)

var labelKeys = keyLiterals("qid", "label", "reason")

// labelLiterals are the known labels, in the order of Labels.
var labelLiterals = func() []literal {
	lits := make([]literal, len(Labels))
	for k, l := range Labels {
		lits[k] = newLiteral(l, `"`+l+`"`)
	}
	return lits
}()

// judgement decodes the {"label", "reason"} object at i, named field.
func (d *recordDecoder) judgement(i int, field string, j *judgementRaw) int {
	s := &d.sc
	*j = judgementRaw{}
	off := i
	c := s.at(i)
	if c != '{' {
		if s.skip(i, 1) < 0 {
			return -1
		}
		return d.semantic(off, "field %q: expected an object {\"label\", \"reason\"}, found %s", field, kind(c))
	}
	i++
	for first := true; ; first = false {
		k, v, more := s.member(i, first, judgementKeys, &d.scratch)
		if !more {
			i = v
			break
		}
		switch k {
		case judgementLabel:
			if l := s.known(v, labelLiterals); l >= 0 { // the usual label, without a detour
				j.hasLabel, j.code = true, uint8(l)
				v += labelLiterals[l].n
			} else {
				v = d.label(v, field, j)
			}
		case judgementReason:
			if d.noReason {
				v = s.skip(v, 2)
			} else if v < len(s.data) && s.data[v] == '"' { // the usual reason, without a detour
				j.reason, v = s.str(v)
			} else {
				v = d.reason(v, 2, &j.reason)
			}
		default:
			v = s.skip(v, 2)
		}
		if v < 0 {
			return -1
		}
		i = v
	}
	if i < 0 {
		return -1
	}
	if !j.hasLabel {
		return d.semantic(off, "missing field %q", field+".label")
	}
	return i
}

// label decodes the label at i of the judgement named field ("" for a label file's record).
func (d *recordDecoder) label(i int, field string, j *judgementRaw) int {
	s := &d.sc
	off := i
	j.hasLabel, j.code = true, other
	c := s.at(i)
	if c != '"' {
		if s.skip(i, depthOf(field)) < 0 {
			return -1
		}
		return d.semantic(off, "field %q: expected a string, found %s", labelField(field), kind(c))
	}
	if k := s.known(i, labelLiterals); k >= 0 {
		j.code = uint8(k)
		return i + labelLiterals[k].n
	}
	end, esc := stringStop(s.data, i+1), false
	if end >= len(s.data) || s.data[end] != '"' {
		if end, esc = s.scanString(i); end < 0 {
			return -1
		}
	}
	b := s.data[i+1 : end]
	if esc {
		d.scratch = unescape(d.scratch[:0], b)
		b = d.scratch
	}
	if l, known := labelFor(b); known {
		j.code = labelCode(l)
		return end + 1
	}
	if d.p != profile.Reference {
		return d.semantic(off, "field %q: unknown label %s: want %s", labelField(field), input.Quote(string(b)), allowedLabels)
	}
	j.labelRaw = s.keep(i+1, end, esc)
	return end + 1
}

// depthOf returns the nesting depth of the value of a field named as in messages: 1 for a
// member of the record ("qid", "label", "retrieved_ids"), 2 for one inside a member's object
// ("scholar.label", "answer_json.citations"). skip needs it to hold deep values to
// encoding/json's nesting limit exactly.
func depthOf(field string) int {
	if strings.Contains(field, ".") {
		return 2
	}
	return 1
}

// labelField names the label of the judgement field in messages.
func labelField(field string) string {
	if field == "" {
		return "label"
	}
	return field + ".label"
}

// reason decodes the reason at i: a string, null (kept as ""), or any other JSON kept as
// written (the reason is never scored, so an unusual one is no reason to fail a run).
func (d *recordDecoder) reason(i, depth int, sp *span) int {
	s := &d.sc
	c := s.at(i)
	switch c {
	case '"':
		v, next := s.str(i)
		*sp = v
		return next
	case 'n':
		*sp = span{}
		return s.literal(i, "null")
	}
	next := s.skip(i, depth)
	if next < 0 {
		return -1
	}
	*sp = s.keep(i, next, false)
	return next
}

// qid decodes the qid at i: a string or a number, kept as written.
func (d *recordDecoder) qid(i int, sp *span, num *bool) int {
	s := &d.sc
	off := i
	switch c := s.at(i); {
	case c == '"':
		v, next := s.qidStr(i)
		*sp, *num = v, false
		return next
	case c == '-' || '0' <= c && c <= '9':
		_, next := s.number(i)
		if next < 0 {
			return -1
		}
		*sp, *num = s.keep(i, next, false), true
		return next
	default:
		if s.skip(i, 1) < 0 {
			return -1
		}
		return d.semantic(off, "field \"qid\": expected a string or a number, found %s", kind(c))
	}
}

// idList decodes the citations or retrieved_ids at i: an array of strings, or a value Python
// finds false (null, [], "", 0, false, {}), which the seed reads as no ids. Any other value
// is an error (the seed would iterate a string's characters or an object's keys, or crash).
func (d *recordDecoder) idList(i int, field string, rng *[2]int32, present *bool) int {
	s := &d.sc
	off := i
	c := s.at(i)
	rng[0], rng[1] = int32(len(d.ids)), int32(len(d.ids))
	if c != '[' {
		truth, next := s.truthy(i, depthOf(field))
		if next < 0 {
			return -1
		}
		if truth {
			return d.semantic(off, "field %q: expected an array of strings, found %s", field, kind(c))
		}
		if present != nil {
			*present = c != 'n'
		}
		return next
	}
	if present != nil {
		*present = true
	}
	if c, i = s.peek(i + 1); c == ']' {
		return i + 1
	}
	for n := 0; ; n++ {
		if c != '"' {
			if s.skip(i, depthOf(field)+1) < 0 {
				return -1
			}
			return d.semantic(i, "field \"%s[%d]\": expected a string, found %s", field, n, kind(c))
		}
		v, next := s.str(i)
		if next < 0 {
			return -1
		}
		d.ids = append(d.ids, v)
		switch c, i = s.peek(next); c {
		case ',':
			c, i = s.peek(i + 1)
		case ']':
			rng[1] = int32(len(d.ids))
			return i + 1
		default:
			return s.fail()
		}
	}
}

// answer decodes the answer_json at i: only its citations are read. A value Python finds
// false means no citations, as in the seed.
func (d *recordDecoder) answer(i int, r *pairRaw) int {
	s := &d.sc
	off := i
	c := s.at(i)
	r.cits[0], r.cits[1] = int32(len(d.ids)), int32(len(d.ids)) // see pair
	if c != '{' {
		truth, next := s.truthy(i, 1)
		if next < 0 {
			return -1
		}
		if truth {
			return d.semantic(off, "field \"answer_json\": expected an object, found %s", kind(c))
		}
		return next
	}
	i++
	for first := true; ; first = false {
		k, v, more := s.member(i, first, answerKeys, &d.scratch)
		if !more {
			return v
		}
		if k == answerCitations {
			v = d.idList(v, "answer_json.citations", &r.cits, nil)
		} else {
			v = s.skip(v, 2)
		}
		if v < 0 {
			return -1
		}
		i = v
	}
}

// flags decodes the flags at i: only the two hard flags are read, with Python's truthiness
// in the reference profile; the default profile wants true, false or null there (a "false"
// string is true to Python, and would reject the item).
func (d *recordDecoder) flags(i int, r *pairRaw) int {
	s := &d.sc
	off := i
	r.prov, r.cons = false, false
	c := s.at(i)
	switch c {
	case '{':
	case 'n':
		return s.literal(i, "null")
	default:
		if s.skip(i, 1) < 0 {
			return -1
		}
		return d.semantic(off, "field \"flags\": expected an object, found %s", kind(c))
	}
	i++
	for first := true; ; first = false {
		k, v, more := s.member(i, first, flagKeys, &d.scratch)
		if !more {
			return v
		}
		var dst *bool
		switch k {
		case flagProv:
			dst = &r.prov
		case flagCons:
			dst = &r.cons
		default:
			if i = s.skip(v, 2); i < 0 {
				return -1
			}
			continue
		}
		c, j := s.at(v), v
		if d.p != profile.Reference && c != 't' && c != 'f' && c != 'n' {
			name := "flags." + flagKeys[k].name
			if s.skip(j, 2) < 0 {
				return -1
			}
			return d.semantic(v, "field %q: expected true, false or null, found %s", name, kind(c))
		}
		truth, next := s.truthy(j, 2)
		if next < 0 {
			return -1
		}
		*dst = truth
		i = next
	}
}

// pair decodes one merged pairs record into r. It returns false on failure: d.sc.bad for a
// syntax error, else d.err. A record of the shape of those before it is read by the shape
// (see shape.go), any other the general way, which then learns its shape.
func (d *recordDecoder) pair(data []byte, r *pairRaw) bool {
	if !d.noShape && d.shape.use() {
		arena, ids := len(d.arena), len(d.ids)
		d.resetPair(r)
		if d.shape.decode(d, data, r) {
			return true
		}
		d.arena, d.ids = d.arena[:arena], d.ids[:ids]
	}
	if !d.pairGeneral(data, r) {
		return false
	}
	if !d.noShape {
		d.shape.learnFrom(data, d.noReason)
	}
	return true
}

// resetPair empties r for a record about to be decoded.
func (d *recordDecoder) resetPair(r *pairRaw) {
	*r = pairRaw{}
	// Element by element: copying a [2]int32 just written as two halves (r.ret = r.cits, or
	// a composite literal, which the compiler builds on the stack) loads eight bytes from two
	// four-byte stores, which stalls for want of store forwarding: several ns a record.
	n := int32(len(d.ids))
	r.cits[0], r.cits[1] = n, n
	r.ret[0], r.ret[1] = n, n
}

// pairGeneral is pair without shapes: every member found and read one token at a time.
func (d *recordDecoder) pairGeneral(data []byte, r *pairRaw) bool {
	d.resetPair(r)
	start, i := d.begin(data, "a pairs record", `{"qid", "scholar", "auditor", ...}`)
	for first := true; i >= 0; first = false {
		k, v, more := d.sc.member(i, first, pairKeys, &d.scratch)
		if !more {
			i = v
			break
		}
		switch k {
		case pairQID:
			r.hasQID = true
			i = d.qid(v, &r.qid, &r.qidNum)
		case pairScholar:
			r.hasSch = true
			i = d.judgement(v, "scholar", &r.sch)
		case pairAuditor:
			r.hasAud = true
			i = d.judgement(v, "auditor", &r.aud)
		case pairAnswer:
			i = d.answer(v, r)
		case pairRetrieved:
			i = d.idList(v, "retrieved_ids", &r.ret, &r.hasRetrieved)
		case pairFlags:
			i = d.flags(v, r)
		default:
			i = d.sc.skip(v, 1)
		}
	}
	switch {
	case !d.end(start, i):
		return false
	case !r.hasQID:
		d.semantic(start, "missing field \"qid\"")
		return false
	case !r.hasSch:
		d.semantic(start, "missing field \"scholar\"")
		return false
	case !r.hasAud:
		d.semantic(start, "missing field \"auditor\"")
		return false
	}
	return true
}

// labelRaw is a decoded label-file record.
type labelRaw struct {
	qid    span
	qidNum bool
	hasQID bool
	j      judgementRaw
}

// labelRecord decodes one {"qid", "label", "reason"} record.
func (d *recordDecoder) labelRecord(data []byte, r *labelRaw) bool {
	*r = labelRaw{}
	start, i := d.begin(data, "a label record", `{"qid", "label", "reason"}`)
	for first := true; i >= 0; first = false {
		k, v, more := d.sc.member(i, first, labelKeys, &d.scratch)
		if !more {
			i = v
			break
		}
		switch k {
		case labelQID:
			r.hasQID = true
			i = d.qid(v, &r.qid, &r.qidNum)
		case labelLabel:
			i = d.label(v, "", &r.j)
		case labelReason:
			i = d.reason(v, 1, &r.j.reason)
		default:
			i = d.sc.skip(v, 1)
		}
	}
	switch {
	case !d.end(start, i):
		return false
	case !r.hasQID:
		d.semantic(start, "missing field \"qid\"")
		return false
	case !r.j.hasLabel:
		d.semantic(start, "missing field \"label\"")
		return false
	}
	return true
}

// errorFor returns the error of the last failed decode of rec.
func (d *recordDecoder) errorFor(rec input.Record) *input.Error {
	return recordError(rec, d.sc.bad, d.err)
}

// pendingPair is a decoded record whose strings are still in the arena.
type pendingPair struct {
	file      string
	line, col int
	raw       pairRaw
}

// mergedLoader collects pairs, moving a batch of decoded records' strings out of the arena
// with one allocation.
type mergedLoader struct {
	dec     recordDecoder
	out     []Pair
	pending []pendingPair
	hashes  *qidHashes // default profile: the qids in out, to find a repeated one
	cols    columns    // the records' columns
	size    int64      // bytes in all files, 0 if unknown
	read    int64      // bytes of the records read so far
	sized   bool       // out and hashes have been allocated
}

// allocate sizes out and seen for the number of pairs the files seem to hold, judging by the
// records read so far: one allocation each instead of a series of ever larger copies.
func (l *mergedLoader) allocate() {
	l.sized = true
	est := len(l.pending) + 64
	if l.size > l.read && l.read > 0 {
		est = int(float64(len(l.pending))*float64(l.size)/float64(l.read)*1.02) + 64
	}
	est = min(est, 1<<26)
	l.out = make([]Pair, 0, est)
	if l.dec.p != profile.Reference {
		l.hashes = newQIDHashes(est)
	}
}

const (
	batchBytes = 30 << 10
	batchPairs = 512
)

// flush turns the pending records into Pairs.
func (l *mergedLoader) flush() {
	if len(l.pending) == 0 {
		return
	}
	if !l.sized {
		l.allocate()
	}
	str := string(l.dec.arena)
	get := func(sp span) string { return str[sp.off : sp.off+sp.n] }
	var ids []string
	if len(l.dec.ids) > 0 {
		ids = make([]string, len(l.dec.ids))
		for i, sp := range l.dec.ids {
			ids[i] = get(sp)
		}
	}
	for i := range l.pending {
		pp := &l.pending[i]
		r := &pp.raw
		l.out = append(l.out, Pair{File: pp.file, Line: pp.line, HasRetrieved: r.hasRetrieved, Flags: flagSet(r.prov, r.cons)})
		p := &l.out[len(l.out)-1]
		p.QID = get(r.qid)
		p.Scholar.Label, p.Auditor.Label = r.sch.labelText(get), r.aud.labelText(get)
		p.Scholar.Reason, p.Auditor.Reason = get(r.sch.reason), get(r.aud.reason)
		if r.cits[1] > r.cits[0] {
			p.Citations = ids[r.cits[0]:r.cits[1]:r.cits[1]]
		}
		if r.ret[1] > r.ret[0] {
			p.RetrievedIDs = ids[r.ret[0]:r.ret[1]:r.ret[1]]
		}
		if l.hashes != nil {
			l.hashes.add(len(l.out)-1, p.QID, r.qidNum)
		}
		l.cols.add(len(l.out)-1, pp.col)
	}
	l.pending = l.pending[:0]
	l.dec.arena = l.dec.arena[:0]
	l.dec.ids = l.dec.ids[:0]
}

// repeated returns the error for the first pair read whose qid an earlier pair has, if any.
func (l *mergedLoader) repeated() error {
	if l.hashes == nil {
		return nil
	}
	second, first, found := l.hashes.firstRepeat(func(i int) string { return l.out[i].QID })
	if !found {
		return nil
	}
	p, f := &l.out[second], &l.out[first]
	return repeatError(p.QID, l.hashes.isNum(second), p.File, p.Line, l.cols.at(second), f.File, f.Line)
}

// LoadMerged reads merged pairs files (seed 002 §2.1), in the order given and in file order:
// {"qid", "scholar": {"label", "reason"}, "auditor": {"label", "reason"}, "answer_json":
// {"citations"}?, "retrieved_ids"?, "flags"?}. A qid is a string or a number (kept as written).
//
// Both profiles reject a record that is not an object, lacks qid, scholar, auditor or a label,
// or holds a value of the wrong type. The reference profile keeps unknown labels (Compute
// leaves them out of the matrix, as the seed does) and repeated qids; the default profile
// rejects an unknown label, a repeated qid and a hard flag that is not true, false or null.
// Every error is an *input.Error naming file:line:col.
func LoadMerged(files []string, p profile.Profile) ([]Pair, error) {
	var size int64
	for _, f := range files {
		if st, err := os.Stat(f); err == nil {
			size += st.Size()
		}
	}
	return loadMerged(files, input.Each, size, p)
}

// eachFunc streams the records of a named file, as input.Each does.
type eachFunc func(name string, fn func(input.Record) error) error

// loadMerged is LoadMerged over any source of records; size is the files' total size in
// bytes (0 if unknown), from which the number of pairs is estimated once the first batch is
// read, so that the result is allocated once rather than grown.
func loadMerged(files []string, each eachFunc, size int64, p profile.Profile) ([]Pair, error) {
	l := &mergedLoader{dec: recordDecoder{p: p}, size: size}
	for _, f := range files {
		err := each(f, func(rec input.Record) error {
			l.read += int64(len(rec.Data)) + 1
			l.pending = append(l.pending, pendingPair{file: rec.File, line: rec.Line, col: rec.Col})
			last := &l.pending[len(l.pending)-1]
			if !l.dec.pair(rec.Data, &last.raw) {
				l.pending = l.pending[:len(l.pending)-1]
				derr := l.dec.errorFor(rec)
				l.flush()
				if err := l.repeated(); err != nil {
					return err
				}
				return derr
			}
			if len(l.dec.arena) >= batchBytes || len(l.pending) >= batchPairs {
				l.flush()
			}
			return nil
		})
		l.flush()
		if err != nil {
			if rerr := l.repeated(); rerr != nil && input.IsInputError(err) {
				// A repeat read before the error comes first in the file.
				err = rerr
			}
			return nil, err
		}
	}
	if err := l.repeated(); err != nil {
		return nil, err
	}
	return l.out, nil
}

// labelEntry is one validator's label for a qid.
type labelEntry struct {
	key  sortKey
	qid  string
	num  bool
	j    Judgement
	file string
	line int
}

// side is one validator's labels, by qid.
type side struct {
	name    string
	entries []labelEntry
	index   map[qidKey]int
}

// loadSide reads one validator's label files.
func loadSide(name string, files []string, each eachFunc, p profile.Profile) (*side, error) {
	sd := &side{name: name, index: map[qidKey]int{}}
	d := &recordDecoder{p: p}
	for _, f := range files {
		err := each(f, func(rec input.Record) error {
			var r labelRaw
			d.arena = d.arena[:0]
			if !d.labelRecord(rec.Data, &r) {
				return d.errorFor(rec)
			}
			str := string(d.arena)
			get := func(sp span) string { return str[sp.off : sp.off+sp.n] }
			e := labelEntry{qid: get(r.qid), num: r.qidNum, file: rec.File, line: rec.Line}
			e.key = makeKey(e.qid, e.num)
			e.j = Judgement{Label: r.j.labelText(get), Reason: get(r.j.reason)}
			if i, dup := sd.index[e.key.qidKey]; dup {
				first := &sd.entries[i]
				if p != profile.Reference {
					return rec.ErrorAt(0, "qid %s is repeated: it is first at %s:%d", quoteQID(e.qid, e.num), first.file, first.line)
				}
				// Python's dict keeps the first key and the last value.
				e.qid, e.key = first.qid, first.key
				*first = e
				return nil
			}
			sd.index[e.key.qidKey] = len(sd.entries)
			sd.entries = append(sd.entries, e)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return sd, nil
}

// LoadJoined reads the Scholar's and the Auditor's label files ({"qid", "label", "reason"})
// and joins them by qid into pairs in sorted qid order (numbers by value before strings by
// code point, as Python's sorted() orders each). A qid is a string or a number; the number 7
// and the string "7" are different qids, as they are to the seed.
//
// Reference profile (the seed's scorer): a qid repeated on one side keeps its last label;
// qids on one side only are dropped without a word (unmatched is nil); unknown labels are kept
// for Compute to leave out of the matrix. Default profile: a repeated qid on one side is an
// error naming both places, an unknown label is an error, and the qids on one side only are
// returned, sorted by qid, for the caller to report (a qid written as a number on one side and
// as a string on the other is an error, as that is a mistake rather than two items).
func LoadJoined(scholar, auditor []string, p profile.Profile) ([]Pair, []Unmatched, error) {
	return loadJoined(scholar, auditor, input.Each, p)
}

func loadJoined(scholar, auditor []string, each eachFunc, p profile.Profile) ([]Pair, []Unmatched, error) {
	s, err := loadSide("scholar", scholar, each, p)
	if err != nil {
		return nil, nil, err
	}
	a, err := loadSide("auditor", auditor, each, p)
	if err != nil {
		return nil, nil, err
	}
	type keyed struct {
		key sortKey
		p   Pair
	}
	var joined []keyed
	var only []labelEntry
	var onlySide []string
	for _, se := range s.entries {
		i, ok := a.index[se.key.qidKey]
		if !ok {
			only, onlySide = append(only, se), append(onlySide, s.name)
			continue
		}
		ae := a.entries[i]
		joined = append(joined, keyed{se.key, Pair{QID: se.qid, File: se.file, Line: se.line, Scholar: se.j, Auditor: ae.j}})
	}
	for _, ae := range a.entries {
		if _, ok := s.index[ae.key.qidKey]; !ok {
			only, onlySide = append(only, ae), append(onlySide, a.name)
		}
	}
	slices.SortFunc(joined, func(x, y keyed) int { return compareKeys(x.key, y.key) })
	pairs := make([]Pair, len(joined))
	for i := range joined {
		pairs[i] = joined[i].p
	}
	if p == profile.Reference || len(only) == 0 {
		return pairs, nil, nil
	}
	// A qid written as a number on one side and as a string on the other.
	byText := map[string]int{}
	for i, e := range only {
		if j, ok := byText[e.qid]; ok && onlySide[j] != onlySide[i] && only[j].num != e.num {
			first, second := only[j], e
			if onlySide[i] == s.name {
				first, second = e, only[j]
			}
			return nil, nil, &input.Error{File: second.file, Line: second.line, Msg: fmt.Sprintf(
				"qid %s is %s here but %s %s at %s:%d: write each qid the same way in both files",
				quoteQID(second.qid, second.num), numOrString(second.num), numOrString(first.num), quoteQID(first.qid, first.num), first.file, first.line)}
		}
		byText[e.qid] = i
	}
	order := make([]int, len(only))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int {
		if c := compareKeys(only[x].key, only[y].key); c != 0 {
			return c
		}
		if onlySide[x] == onlySide[y] {
			return 0
		}
		if onlySide[x] == s.name {
			return -1
		}
		return 1
	})
	unmatched := make([]Unmatched, len(order))
	for i, k := range order {
		unmatched[i] = Unmatched{QID: only[k].qid, OnlyIn: onlySide[k], File: only[k].file, Line: only[k].line}
	}
	return pairs, unmatched, nil
}

func numOrString(num bool) string {
	if num {
		return "a number"
	}
	return "a string"
}
