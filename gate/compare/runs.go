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

// runGroup is the runs of one side that share a key, as indexes into that side's runs.
type runGroup struct {
	key  string
	runs []int
	// name is how the report names the group: its worst run's identity (its trial as
	// written when it was keyed so), or its trace id.
	name string
}

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
}

// matchRuns keys base's and head's runs on on and matches them. A head run that was given
// the next free trial because another run already held its trial (Renumber) and whose new
// identity is not in the baseline, while its trial as written is, is keyed on the trial as
// written: a second record of one trial, not a trial the baseline lacks, so its worse outcome
// is compared rather than its failure set aside as added.
func matchRuns(base, head []reliability.Result, on matchKey) runMatch {
	// written[i] of a side: run i's key is its key as written (normalising changed none of
	// its parts, and it was not folded), so that a pair of such runs needs no key as written.
	bk, baseWritten := make([]string, len(base)), make([]bool, len(base))
	for i := range base {
		bk[i], baseWritten[i] = on.of(&base[i]), !on.normalises(&base[i])
	}
	var inBase map[string]bool // the baseline's keys, when a head run may be folded
	hk, headWritten := make([]string, len(head)), make([]bool, len(head))
	folded := make([]bool, len(head))
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
				hk[j], folded[j], headWritten[j] = w, true, false
			}
		}
	}
	bg, hg := groups(bk), groups(hk)
	for i := range bg {
		bg[i].name = on.name(worst(base, bg[i]), nil)
	}
	for j := range hg {
		w := worstOf(head, hg[j])
		var trial *int
		if folded[w] {
			trial = head[w].WrittenTrial
		}
		hg[j].name = on.name(&head[w], trial)
	}
	m := runMatch{units: make([]runUnit, 0, max(len(bg), len(hg)))}
	i, j := 0, 0
	for i < len(bg) || j < len(hg) {
		c := 0
		switch {
		case i == len(bg):
			c = 1
		case j == len(hg):
			c = -1
		default:
			c = strings.Compare(bg[i].key, hg[j].key)
		}
		switch {
		case c < 0:
			m.units = append(m.units, runUnit{base: bg[i]})
			i++
		case c > 0:
			m.units = append(m.units, runUnit{head: hg[j]})
			j++
		default:
			if (!allWritten(bg[i], baseWritten) || !allWritten(hg[j], headWritten)) && !sameAsWritten(base, bg[i], head, hg[j], on, folded) {
				m.normalised = append(m.normalised, len(m.units))
			}
			m.units = append(m.units, runUnit{bg[i], hg[j]})
			i++
			j++
		}
	}
	return m
}

// groups sorts the indexes of keys by key (then index) and groups equal keys.
func groups(keys []string) []runGroup {
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Or(strings.Compare(keys[a], keys[b]), cmp.Compare(a, b)) })
	out := make([]runGroup, 0, len(order))
	for start := 0; start < len(order); {
		end := start + 1
		for end < len(order) && keys[order[end]] == keys[order[start]] {
			end++
		}
		out = append(out, runGroup{key: keys[order[start]], runs: order[start:end:end]})
		start = end
	}
	return out
}

// allWritten reports whether every run of g is keyed as written.
func allWritten(g runGroup, written []bool) bool {
	for _, i := range g.runs {
		if !written[i] {
			return false
		}
	}
	return true
}

// sameAsWritten reports whether some run of base group b has, as written, the key of some run
// of head group h (a folded head run's key as written being its trial as written).
func sameAsWritten(base []reliability.Result, b runGroup, head []reliability.Result, h runGroup, on matchKey, folded []bool) bool {
	for _, j := range h.runs {
		hw := on.asWritten(&head[j])
		if folded[j] {
			hw = on.key(&head[j], head[j].WrittenTrial, func(s string) string { return s })
		}
		for _, i := range b.runs {
			if on.asWritten(&base[i]) == hw {
				return true
			}
		}
	}
	return false
}

// worst returns the run of g that the comparison holds for it: the worst verdict, then the
// highest score, then the smallest trace id, so that neither record nor file order chooses.
func worst(runs []reliability.Result, g runGroup) *reliability.Result { return &runs[worstOf(runs, g)] }

// worstOf is worst's index in runs.
func worstOf(runs []reliability.Result, g runGroup) int {
	w := g.runs[0]
	for _, i := range g.runs[1:] {
		r, wr := &runs[i], &runs[w]
		if c := cmp.Or(cmp.Compare(r.Verdict.Rank(), wr.Verdict.Rank()), cmp.Compare(r.Score, wr.Score),
			strings.Compare(wr.ID, r.ID)); c > 0 {
			w = i
		}
	}
	return w
}

// groupOutcome is the outcome a group is compared on: known when any of its runs has one, and
// then a success only when every run with an outcome succeeded (the worse outcome).
func groupOutcome(runs []reliability.Result, g runGroup) (known, success bool) {
	success = true
	for _, i := range g.runs {
		if o := runs[i].Run; o.Known {
			known = true
			success = success && o.Success
		}
	}
	return known, known && success
}

// outcomeRun is the run of g whose outcome the group is compared on (groupOutcome): of its
// runs with a known outcome, a failed one if any, the worst by verdict (worst's order) among
// them.
func outcomeRun(runs []reliability.Result, g runGroup) *reliability.Result {
	_, success := groupOutcome(runs, g)
	var sub runGroup
	for _, i := range g.runs {
		if o := runs[i].Run; o.Known && o.Success == success {
			sub.runs = append(sub.runs, i)
		}
	}
	return worst(runs, sub)
}

// disagree reports whether the runs of g disagree on their verdict or their known outcome:
// such a group is named in the report, which compares its worse.
func disagree(runs []reliability.Result, g runGroup) bool {
	if len(g.runs) < 2 {
		return false
	}
	v := runs[g.runs[0]].Verdict
	known, success := false, false
	for _, i := range g.runs {
		r := &runs[i]
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
