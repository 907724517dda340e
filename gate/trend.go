package gate

import (
	"fmt"
	"slices"

	"github.com/agentgate/agentgate/gate/compare"
)

// extendHistory sets r's history (docs/design.md#planning-and-trend): the history of the baseline it was compared with
// (none when it was not: a baseline of another profile is another trend), or in a merge
// without a baseline the shards' shared one, with r's own run as the last point.
func (r *Result) extendHistory(b *Baseline) {
	prev := r.inherited
	if r.Comparison != nil && b != nil && b.Report != nil {
		prev = compare.BaselineHistory(b.Report)
	}
	o := r.Outcomes
	if o != nil && o.Known == 0 {
		o = nil
	}
	head := compare.PointOf(r.Source.Source, r.Reliability, o, r.PassK)
	r.History = compare.ExtendHistory(prev, head)
}

// shardsHistory is the history the shards of one run share: each shard's, less its last
// point (the shard's own run). Shards compared with different baselines have different
// histories, which no one run has: an error. A merge given a baseline takes that baseline's
// history instead, as one run would.
func shardsHistory(shards []Shard) ([]compare.Point, error) {
	var shared []compare.Point
	for i, s := range shards {
		h := s.Report.History
		if len(h) > 0 {
			h = h[:len(h)-1]
		}
		if i == 0 {
			shared = h
			continue
		}
		if !slices.EqualFunc(shared, h, equalPoints) {
			return nil, &UsageError{fmt.Sprintf("%s and %s carry different histories: the shards were compared with different baselines; gate every shard with the same baseline", shards[0].Name, s.Name)}
		}
	}
	return shared, nil
}

// equalPoints reports whether two history points are the same.
func equalPoints(a, b compare.Point) bool {
	eqf := func(x, y *float64) bool { return x == nil && y == nil || x != nil && y != nil && *x == *y }
	return a.SHA == b.SHA && a.Ref == b.Ref && a.Runs == b.Runs && a.Fail == b.Fail && a.Known == b.Known &&
		eqf(a.SuccessRate, b.SuccessRate) && eqf(a.TokensPerSuccess, b.TokensPerSuccess) &&
		slices.Equal(a.PassK, b.PassK) && a.TrialTasks == b.TrialTasks && a.Flaky == b.Flaky &&
		slices.Equal(a.FlakyTasks, b.FlakyTasks)
}
