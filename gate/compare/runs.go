package compare

import (
	"cmp"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/gate/reliability"
)

// This file matches the runs of base and head for the two paired pass/fail metrics,
// reliability (verdicts) and success (outcomes), so that every baseline run is accounted for
// (docs/comparison-and-statistics.md, "Every baseline run accounted for"): each run is keyed
// on its normalised identity, the runs of one side that share a key are one group (compared
// by their worse verdict and worse outcome), and a group is matched, missing (in the baseline
// only) or added (in head only).

// A million runs a side are matched (docs/performance.md, "A million runs"), so what matching
// holds a run is small: each side's run indexes sorted by key (four bytes a run), and a group
// is a stretch of them (eight bytes), whose key and name are found again from its runs when
// they are needed.

// side is one side's runs, and their indexes sorted by key, then index.
type side struct {
	runs  []reliability.Result
	order []int32
}

// runGroup is the runs of one side that share a key: order[first:first+n] of that side; n is
// 0 for a side that has none.
type runGroup struct{ first, n int32 }

// of is the indexes of g's runs, in order.
func (s *side) of(g runGroup) []int32 { return s.order[g.first : g.first+g.n] }

// runUnit is one key's runs on both sides: matched when both groups hold runs, missing (in
// the baseline only) when head's is empty, added (in head only) when the baseline's is.
type runUnit struct{ base, head runGroup }

// runMatch is base and head's runs matched on their keys, in key order.
type runMatch struct {
	units []runUnit
	// normalised lists the matched units (indexes into units) matched only because their
	// keys were normalised: no run of the base group has the key as written of a run of the
	// head group.
	normalised []int
	on         matchKey
	base, head side
	// folded[j]: head run j was keyed on its trial as written; nil when none was.
	folded []bool
}

// baseName is how the report names base group g: its worst run's identity, or its trace id.
func (m *runMatch) baseName(g runGroup) string { return m.on.name(m.base.worst(g), nil) }

// headName is how the report names head group g: its worst run's identity (its trial as
// written when it was keyed so), or its trace id.
func (m *runMatch) headName(g runGroup) string {
	w := worstOf(m.head.runs, m.head.of(g))
	var trial *int
	if m.folded != nil && m.folded[w] {
		trial = m.head.runs[w].WrittenTrial
	}
	return m.on.name(&m.head.runs[w], trial)
}

// matchRuns keys base's and head's runs on on and matches them. A head run that was given
// the next free trial because another run already held its trial (Renumber) and whose new
// identity is not in the baseline, while its trial as written is, is keyed on the trial as
// written: a second record of one trial, not a trial the baseline lacks, so its worse outcome
// is compared rather than its failure set aside as added.
func matchRuns(base, head []reliability.Result, on matchKey) runMatch {
	m := runMatch{on: on, base: side{runs: base}, head: side{runs: head}}
	// written[i] of a side: run i's key is its key as written (normalising changed none of
	// its parts, and it was not folded), so that a pair of such runs needs no key as written.
	bk, baseWritten := make([]string, len(base)), make([]bool, len(base))
	for i := range base {
		bk[i], baseWritten[i] = on.of(&base[i]), !on.normalises(&base[i])
	}
	var inBase map[string]bool // the baseline's keys, when a head run may be folded
	hk, headWritten := make([]string, len(head)), make([]bool, len(head))
	for j := range head {
		r := &head[j]
		hk[j], headWritten[j] = on.of(r), !on.normalises(r)
		a := r.Attempt
		if !on.identity || a == nil || a.WrittenTrial == nil {
			continue
		}
		if inBase == nil {
			inBase = make(map[string]bool, len(base))
			for _, k := range bk {
				inBase[k] = true
			}
		}
		if !inBase[hk[j]] {
			if w := on.key(r, a.WrittenTrial, normPart); inBase[w] {
				if m.folded == nil {
					m.folded = make([]bool, len(head))
				}
				hk[j], m.folded[j], headWritten[j] = w, true, false
			}
		}
	}
	inBase = nil
	m.base.order, m.head.order = sortByKey(bk), sortByKey(hk)
	// the next group of a side from its position at in its order
	group := func(keys []string, order []int32, at int) runGroup {
		end := at + 1
		for end < len(order) && keys[order[end]] == keys[order[at]] {
			end++
		}
		return runGroup{first: int32(at), n: int32(end - at)}
	}
	i, j := 0, 0
	for i < len(base) || j < len(head) {
		c := 0
		switch {
		case i == len(base):
			c = 1
		case j == len(head):
			c = -1
		default:
			c = strings.Compare(bk[m.base.order[i]], hk[m.head.order[j]])
		}
		var u runUnit
		if c <= 0 {
			u.base = group(bk, m.base.order, i)
			i += int(u.base.n)
		}
		if c >= 0 {
			u.head = group(hk, m.head.order, j)
			j += int(u.head.n)
		}
		if c == 0 && (!allWritten(m.base.of(u.base), baseWritten) || !allWritten(m.head.of(u.head), headWritten)) &&
			!sameAsWritten(&m, u) {
			m.normalised = append(m.normalised, len(m.units))
		}
		m.units = append(m.units, u)
	}
	return m
}

// sortByKey returns the indexes of keys sorted by key, then index.
func sortByKey(keys []string) []int32 {
	order := make([]int32, len(keys))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Or(strings.Compare(keys[a], keys[b]), cmp.Compare(a, b)) })
	return order
}

// allWritten reports whether every run of runs is keyed as written.
func allWritten(runs []int32, written []bool) bool {
	for _, i := range runs {
		if !written[i] {
			return false
		}
	}
	return true
}

// sameAsWritten reports whether some run of matched unit u's base group has, as written, the
// key of some run of its head group (a folded head run's key as written being its trial as
// written).
func sameAsWritten(m *runMatch, u runUnit) bool {
	on, base, head := m.on, m.base.runs, m.head.runs
	for _, j := range m.head.of(u.head) {
		hw := on.asWritten(&head[j])
		if m.folded != nil && m.folded[j] {
			hw = on.key(&head[j], head[j].WrittenTrial, func(s string) string { return s })
		}
		for _, i := range m.base.of(u.base) {
			if on.asWritten(&base[i]) == hw {
				return true
			}
		}
	}
	return false
}

// worst returns the run of g that the comparison holds for it: the worst verdict, then the
// highest score, then the smallest trace id, so that neither record nor file order chooses.
func (s *side) worst(g runGroup) *reliability.Result { return &s.runs[worstOf(s.runs, s.of(g))] }

// worstOf is the index of the worst of the runs of runs that idx names, as worst orders them.
func worstOf(runs []reliability.Result, idx []int32) int {
	w := int(idx[0])
	for _, i := range idx[1:] {
		r, wr := &runs[i], &runs[w]
		if c := cmp.Or(cmp.Compare(r.Verdict.Rank(), wr.Verdict.Rank()), cmp.Compare(r.Score, wr.Score),
			strings.Compare(wr.ID, r.ID)); c > 0 {
			w = int(i)
		}
	}
	return w
}

// outcome is the outcome group g is compared on: known when any of its runs has one, and
// then a success only when every run with an outcome succeeded (the worse outcome).
func (s *side) outcome(g runGroup) (known, success bool) {
	success = true
	for _, i := range s.of(g) {
		if o := s.runs[i].Run; o.Known {
			known = true
			success = success && o.Success
		}
	}
	return known, known && success
}

// outcomeRun is the run of g whose outcome the group is compared on (outcome): of its runs
// with a known outcome, a failed one if any, the worst by verdict (worst's order) among them.
func (s *side) outcomeRun(g runGroup) *reliability.Result {
	_, success := s.outcome(g)
	var sub []int32
	for _, i := range s.of(g) {
		if o := s.runs[i].Run; o.Known && o.Success == success {
			sub = append(sub, i)
		}
	}
	return &s.runs[worstOf(s.runs, sub)]
}

// disagree reports whether the runs of g disagree on their verdict or their known outcome:
// such a group is named in the report, which compares its worse.
func (s *side) disagree(g runGroup) bool {
	if g.n < 2 {
		return false
	}
	idx := s.of(g)
	v := s.runs[idx[0]].Verdict
	known, success := false, false
	for _, i := range idx {
		r := &s.runs[i]
		if r.Verdict != v {
			return true
		}
		if r.Run.Known {
			if known && r.Run.Success != success {
				return true
			}
			known, success = true, r.Run.Success
		}
	}
	return false
}
