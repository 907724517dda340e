package agreement

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/gate/profile"
)

// LoadMerged reads merged pairs files (docs/design.md#the-source-systems), in the order given and in file order:
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
// bytes (0 if unknown), from which the number of pairs is guessed (a pair for every 400 bytes,
// the size of the seed's records) to make room for them.
func loadMerged(files []string, each eachFunc, size int64, p profile.Profile) ([]Pair, error) {
	guess := int(min(size/400, 1<<24))
	d := &decoder{p: p}
	var seen *repeats
	if p != profile.Reference {
		seen = newRepeats(guess)
	}
	var full [][]Pair
	cur := make([]Pair, 0, guess+256)
	var texts textArena
	var r pairRec
	for _, f := range files {
		err := each(f, func(rec input.Record) error {
			if err := d.pair(rec.Data, &r); err != nil {
				return recordError(rec, err)
			}
			if err := seen.add(d.text(r.qid), r.qidNum, rec.File, rec.Line, rec.Col); err != nil {
				return err
			}
			pr := d.pairOf(&r, &texts)
			pr.File, pr.Line = rec.File, rec.Line
			if len(cur) == cap(cur) {
				// pairs are collected in chunks, each twice as long as the one before, and
				// copied once at the end: a growing slice would copy each several times
				full = append(full, cur)
				cur = make([]Pair, 0, 2*cap(cur))
			}
			cur = append(cur, pr)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if len(full) == 0 && len(cur) > 0 {
		return cur, nil
	}
	return slices.Concat(append(full, cur)...), nil // nil if there are no pairs
}

// pairOf returns the decoded record r as a Pair, its texts and ids taken from a.
func (d *decoder) pairOf(r *pairRec, a *textArena) Pair {
	str := a.string(d.buf)
	get := func(sp span) string { return str[sp.off:sp.end] }
	p := Pair{QID: get(r.qid), HasRetrieved: r.hasRetrieved, Flags: flagSet(r.prov, r.cons),
		Scholar: Judgement{r.sch.labelText(get), get(r.sch.reason)},
		Auditor: Judgement{r.aud.labelText(get), get(r.aud.reason)}}
	if nc, n := len(d.cits), len(d.cits)+len(d.ret); n > 0 {
		ids := a.strings(n)
		for i, sp := range d.cits {
			ids[i] = get(sp)
		}
		for i, sp := range d.ret {
			ids[nc+i] = get(sp)
		}
		if nc > 0 {
			p.Citations = ids[:nc:nc]
		}
		if n > nc {
			p.RetrievedIDs = ids[nc:]
		}
	}
	return p
}

// textArena hands out strings and lists of strings from blocks of some thousands of pairs'
// worth: an allocation a block rather than two a pair, and fewer objects for the garbage
// collector. A strings.Builder never changes what it has written, so the strings carved from
// its String share its memory.
type textArena struct {
	text strings.Builder
	list []string
}

// string returns a string holding b.
func (a *textArena) string(b []byte) string {
	if a.text.Cap()-a.text.Len() < len(b) {
		a.text = strings.Builder{}
		a.text.Grow(max(32<<10, len(b)))
	}
	start := a.text.Len()
	a.text.Write(b)
	return a.text.String()[start:]
}

// strings returns a list of n empty strings, to be filled.
func (a *textArena) strings(n int) []string {
	if cap(a.list)-len(a.list) < n {
		a.list = make([]string, 0, max(2048, n))
	}
	k := len(a.list)
	a.list = a.list[:k+n]
	return a.list[k : k+n : k+n]
}

// labelText returns the judgement's label, with get resolving kept texts.
func (j *judgement) labelText(get func(span) string) string {
	if j.code != other {
		return Labels[j.code]
	}
	return get(j.label)
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
	d := &decoder{p: p}
	var r labelRec
	for _, f := range files {
		err := each(f, func(rec input.Record) error {
			if err := d.labelRecord(rec.Data, &r); err != nil {
				return recordError(rec, err)
			}
			str := string(d.buf)
			get := func(sp span) string { return str[sp.off:sp.end] }
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
