package reliability

import (
	"cmp"
	"math"
	"slices"

	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/verdict"
	"github.com/agentgate/agentgate/internal/numfmt"
)

// The default profile's cost against the suite (docs/reference.md, "The token budget"): a
// run's tokens T against the median M of the runs of its suite that recorded usage, when the
// suite has at least minSuiteRuns of them. The cost reads 0 up to relativeFrom·M and rises
// linearly to 1 at relativeFull·M: (T/M − 3)/7. On a suite whose runs spend alike, only the
// outliers are flagged, whatever the size of the suite's runs; above the token budget a run
// still reads 1 on its own (cost.go).
const (
	minSuiteRuns = 5
	relativeFrom = 3.0
	relativeFull = 10.0
)

// SuiteCost is what the default profile's cost compares across the suite, kept on the run's
// result and written in the JSON report ("suite_cost"), so that a merge of shards compares the
// runs again over the whole suite and gets what one run over it gets.
type SuiteCost struct {
	// Tokens are the tokens the run's cost signal counted (the context once where usage is
	// given per call), when usage was recorded and is not zero.
	Tokens int64 `json:"tokens"`
	// Relative is the cost the comparison gave the run, 0 when its tokens are not an outlier
	// (or the suite has too few runs); when it is not 0, Alone and AloneVerdict are the run's
	// cost and verdict on its own, before the comparison.
	Relative     float64         `json:"relative,omitempty"`
	Alone        float64         `json:"alone,omitempty"`
	AloneVerdict verdict.Verdict `json:"alone_verdict,omitempty"`
}

// suiteCostSlab is how many SuiteCost values an Evaluator allocates at a time, so that the runs
// that record usage do not cost an allocation each.
const suiteCostSlab = 64

// suiteCost returns a SuiteCost of tokens, its memory taken from the Evaluator's slab (never
// reused: each result keeps its own).
func (ev *Evaluator) suiteCost(tokens int64) *SuiteCost {
	if len(ev.slab) == cap(ev.slab) {
		ev.slab = make([]SuiteCost, 0, suiteCostSlab)
	}
	ev.slab = append(ev.slab, SuiteCost{Tokens: tokens})
	return &ev.slab[len(ev.slab)-1]
}

// RelateCost compares each run's tokens with its suite's under profile p (nothing under the
// reference profile): the runs of a suite (Attempt.Suite; the runs without one are a suite of
// their own) with recorded usage, five or more, give the median M; a run above 3·M gets the
// cost (T/M − 3)/7 (at most 1) when it is more than the cost it had alone, with evidence saying
// so, and its score and verdict follow (the verdict never falls below the run's own). It first
// takes back what an earlier comparison did (a shard's report, read for a merge), so that the
// result depends only on the runs: not on their order, nor on how they were sharded. The
// summary's counts are taken again.
func (s *Summary) RelateCost(p profile.Profile) {
	if p == profile.Reference {
		return
	}
	// the runs with tokens, by suite then tokens: their indexes, four bytes a run of a
	// million (docs/performance.md, "A million runs")
	var ms []int32
	suite := func(i int32) string {
		if a := s.Traces[i].Attempt; a != nil {
			return a.Suite
		}
		return ""
	}
	tokens := func(i int32) int64 { return s.Traces[i].SuiteCost.Tokens }
	for i := range s.Traces {
		r := &s.Traces[i]
		restoreCost(r)
		if r.SuiteCost != nil && r.SuiteCost.Tokens > 0 {
			if ms == nil {
				ms = make([]int32, 0, len(s.Traces)-i)
			}
			ms = append(ms, int32(i))
		}
	}
	slices.SortFunc(ms, func(a, b int32) int {
		if c := cmp.Compare(suite(a), suite(b)); c != 0 {
			return c
		}
		return cmp.Compare(tokens(a), tokens(b))
	})
	for a := 0; a < len(ms); {
		b := a + 1
		for b < len(ms) && suite(ms[b]) == suite(ms[a]) {
			b++
		}
		if n := b - a; n >= minSuiteRuns {
			median := float64(tokens(ms[a+n/2]))
			if n%2 == 0 {
				median = (float64(tokens(ms[a+n/2-1])) + median) / 2
			}
			for _, m := range ms[a:b] {
				relateCost(&s.Traces[m], median, n)
			}
		}
		a = b
	}
	s.Pass, s.Warn, s.Fail = 0, 0, 0
	for i := range s.Traces {
		s.count(s.Traces[i].Verdict)
	}
}

// relateCost gives run r the cost of its tokens against the median of its suite's n runs.
func relateCost(r *Result, median float64, n int) {
	ratio := float64(r.SuiteCost.Tokens) / median
	if !(ratio > relativeFrom) || median <= 0 {
		return
	}
	f := math.Min(1, (ratio-relativeFrom)/(relativeFull-relativeFrom))
	alone := r.Signals[Cost]
	if f <= alone {
		return
	}
	sc := *r.SuiteCost
	sc.Relative, sc.Alone, sc.AloneVerdict = f, alone, r.Verdict
	r.SuiteCost = &sc

	b := numfmt.AppendCount(nil, sc.Tokens)
	b = append(b, " tokens, "...)
	b = append(b, number(math.Round(ratio*100)/100)...)
	b = append(b, " times the median of its suite ("...)
	b = append(b, number(median)...)
	b = append(b, " tokens over "...)
	b = numfmt.AppendCount(b, int64(n))
	b = append(b, " runs; the cost reads from 3 times the median)"...)
	ev := Evidence{Signal: SignalCost, Text: string(b), Messages: []int{}, Relative: true}
	k := slices.IndexFunc(r.Evidence, func(e Evidence) bool { return e.Signal == SignalCost })
	if k < 0 {
		k = len(r.Evidence)
	}
	r.Evidence = slices.Insert(slices.Clone(r.Evidence), k, ev) // the largest cost factor leads
	r.Signals[Cost] = f
	scores := r.Signals
	r.Score = overall(scores)
	r.Verdict = verdict.Worst(sc.AloneVerdict, policy(r.Score, scores))
}

// restoreCost takes back what relateCost did to r: its cost, evidence, score and verdict alone.
func restoreCost(r *Result) {
	if r.SuiteCost == nil || r.SuiteCost.Relative == 0 {
		return
	}
	sc := SuiteCost{Tokens: r.SuiteCost.Tokens}
	r.Signals[Cost], r.Verdict = r.SuiteCost.Alone, r.SuiteCost.AloneVerdict
	r.Evidence = slices.DeleteFunc(slices.Clone(r.Evidence), func(e Evidence) bool { return e.Relative })
	r.SuiteCost = &sc
	r.Score = overall(r.Signals)
}
