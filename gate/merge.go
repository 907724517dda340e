package gate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/agentgate/agentgate/gate/agreement"
	"github.com/agentgate/agentgate/gate/coherence"
	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/gate/outcome"
	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/reliability"
)

// Shard is the JSON report (docs/design.md#one-binary) of one shard of a suite, as `gate --json` wrote it and
// jsonreport.ReadShard read it back.
type Shard struct {
	Name   string // the report file, for messages
	Report *Result
}

// Merge combines the reports of disjoint shards of one suite into the report one run over
// all their files gives (docs/design.md#shards), and evaluates in, the inputs of sections no shard holds.
// Exact means exact: the traces and tasks are put in the order of their files (by name, as
// input.Expand orders them), then the counts, sums and agreement measures are computed again
// from them, never from the shards' figures; pass^k, the comparison with o.Baseline, the
// gates and the verdict follow from o as in Run. A trace, task or qid in two shards, a file
// read by two shards, a shard of another profile or agentgate version are errors.
func Merge(ctx context.Context, shards []Shard, in Inputs, o Options) (*Result, error) {
	if err := o.prepare(); err != nil {
		return nil, err
	}
	if len(shards) == 0 {
		return nil, &UsageError{"nothing to merge: name the shards' JSON reports"}
	}
	if err := sameGating(shards, o); err != nil {
		return nil, err
	}
	res := &Result{Profile: o.Profile, TokenBudget: recordedBudget(o.TokenBudget), Source: o.Source}
	res.Source.Inputs = joinInputs(o.Source.Inputs, shards)
	if err := res.mergeSections(shards, o.Profile); err != nil {
		return nil, err
	}
	if err := res.givenOnce(in); err != nil {
		return nil, err
	}
	if len(in.Traces)+len(in.Tasks)+len(in.Pairs)+len(in.Scholar)+len(in.Auditor) > 0 {
		if err := in.Validate(); err != nil {
			return nil, err
		}
		if err := res.evaluate(ctx, in, o); err != nil {
			return nil, err
		}
	}
	// The runs get their identities from what their harnesses recorded, over all the shards'
	// runs, as one run gives them (from the runs, not their order).
	res.identify()
	// Outcomes given to the merge are matched to all the merged traces, as one run matches
	// them; a trace whose shard recorded no usage then has no tokens to count.
	if err := res.readOutcomes(ctx, in.Outcomes, o.OutcomeScorer); err != nil {
		return nil, err
	}
	var err error
	if res.inherited, err = shardsHistory(shards); err != nil {
		return nil, err
	}
	if err := res.conclude(o); err != nil {
		return nil, err
	}
	return res, nil
}

// sameGating checks that every shard was gated as the merge gates: with its profile and
// token budget, by one agentgate version.
func sameGating(shards []Shard, o Options) error {
	first := shards[0]
	for _, s := range shards {
		if s.Report.Profile != o.Profile {
			return &UsageError{fmt.Sprintf("%s was gated with profile %q, but the merge uses %q: give the merge the shards' profile", s.Name, s.Report.Profile, o.Profile)}
		}
		if b := reliability.Budget(s.Report.TokenBudget); b != o.TokenBudget {
			return &UsageError{fmt.Sprintf("%s was gated with %s %d, but the merge uses %d: give the merge the shards' %s", s.Name, TokenBudget, b, o.TokenBudget, TokenBudget)}
		}
		if v, w := s.Report.Source.Version, first.Report.Source.Version; v != w {
			return &UsageError{fmt.Sprintf("%s was written by agentgate %s, %s by %s: gate every shard with the same version", s.Name, input.Quote(v), first.Name, input.Quote(w))}
		}
	}
	return nil
}

// mergeSections puts the shards' sections together in res: the traces (their costs compared
// again over the whole suite) with the outcomes no shard matched and the notes of reading
// them, the coherence tasks and the agreement's labels.
func (res *Result) mergeSections(shards []Shard, p profile.Profile) error {
	var err error
	if res.Reliability, err = mergeReliability(shards); err != nil {
		return err
	}
	if res.Reliability != nil {
		// each shard compared its runs' tokens with its own: compare them over the whole suite
		res.Reliability.RelateCost(p)
	}
	res.unmatchedOutcomes, res.outcomesGiven = mergeUnmatched(shards, res.Reliability)
	res.untraced, res.untracedResolved = mergeUntraced(shards, res.Reliability)
	for _, s := range shards { // what reading each shard's traces found (docs/design.md#harness-folders), by shard
		for _, n := range s.Report.Notes {
			res.Notes = append(res.Notes, s.Name+": "+n)
		}
	}
	if res.Coherence, err = mergeCoherence(shards); err != nil {
		return err
	}
	var parts []agreement.Part
	for _, s := range shards {
		if a := s.Report.Agreement; a != nil {
			parts = append(parts, agreement.Part{Name: s.Name, Summary: a})
		}
	}
	if len(parts) > 0 {
		if res.Agreement, err = agreement.Merge(parts, p); err != nil {
			return err
		}
	}
	return nil
}

// givenOnce refuses inputs given to the merge for a section the shards' reports hold already.
func (res *Result) givenOnce(in Inputs) error {
	for _, c := range []struct {
		name    string
		given   bool
		inShard bool
	}{
		{"traces", len(in.Traces) > 0, res.Reliability != nil},
		{"tasks", len(in.Tasks) > 0, res.Coherence != nil},
		{"labels", len(in.Pairs)+len(in.Scholar)+len(in.Auditor) > 0, res.Agreement != nil},
	} {
		if c.given && c.inShard {
			return &UsageError{fmt.Sprintf("%s were given to the merge, but the shards' reports hold them already: give each section either to the shards or to the merge", c.name)}
		}
	}
	return nil
}

// joinInputs is the merge's own inputs, then each shard's patterns not already listed, in
// shard order: what a run over the whole suite is given.
func joinInputs(own *Inputs, shards []Shard) *Inputs {
	var out Inputs
	add := func(in *Inputs) {
		if in == nil {
			return
		}
		for _, l := range []struct{ to, from *[]string }{
			{&out.Traces, &in.Traces}, {&out.Tasks, &in.Tasks}, {&out.Pairs, &in.Pairs},
			{&out.Scholar, &in.Scholar}, {&out.Auditor, &in.Auditor}, {&out.Outcomes, &in.Outcomes},
		} {
			for _, p := range *l.from {
				if !slices.Contains(*l.to, p) {
					*l.to = append(*l.to, p)
				}
			}
		}
	}
	add(own)
	for _, s := range shards {
		add(s.Report.Source.Inputs)
	}
	return &out
}

// mergeRecords lists the records (traces or tasks) of every shard in the order of their
// files, keeping each file's own order, as one run reads them; place gives a record's id and
// where it was read ("" for a record not known by its id). A file that two shards read and an
// id that two records have are errors; has is false when no shard has the section.
func mergeRecords[T any](shards []Shard, kind string, section func(*Result) ([]T, bool), place func(*T) (string, input.Place)) (_ []T, has bool, _ error) {
	type placed struct {
		file  string
		shard int
		rec   *T
	}
	var all []placed
	for i, s := range shards {
		recs, ok := section(s.Report)
		has = has || ok
		for j := range recs {
			_, at := place(&recs[j])
			all = append(all, placed{at.File, i, &recs[j]})
		}
	}
	if !has {
		return nil, false, nil
	}
	slices.SortStableFunc(all, func(a, b placed) int { return cmp.Compare(a.file, b.file) })
	out := make([]T, len(all))
	ids := input.NewIDs(kind)
	for i, p := range all {
		if i > 0 && all[i-1].file == p.file && all[i-1].shard != p.shard {
			return nil, true, &input.Error{File: shards[p.shard].Name, Msg: fmt.Sprintf("%ss file %s was read by shard %s too: shards must read disjoint files", kind, input.Quote(p.file), shards[all[i-1].shard].Name)}
		}
		out[i] = *p.rec
		id, here := place(p.rec)
		if id == "" { // a run known by its identity, not its id
			continue
		}
		firstShard := -1
		err := ids.Check(id, i, here, func(first int) (input.Place, bool) {
			firstShard = all[first].shard
			_, there := place(all[first].rec)
			return there, false
		})
		if err != nil {
			var ie *input.Error
			if firstShard >= 0 && errors.As(err, &ie) { // a duplicate: say which shards read the two
				ie.Msg += fmt.Sprintf(" (shards %s and %s)", shards[firstShard].Name, shards[p.shard].Name)
			}
			return nil, true, err
		}
	}
	return out, true, nil
}

// mergeReliability merges the shards' traces, each with its outcome; nil when no shard has
// the section.
func mergeReliability(shards []Shard) (*reliability.Summary, error) {
	traces, has, err := mergeRecords(shards, "trace", func(r *Result) ([]reliability.Result, bool) {
		if r.Reliability == nil {
			return nil, false
		}
		return r.Reliability.Traces, true
	}, tracePlaceID)
	if !has || err != nil {
		return nil, err
	}
	// Each trace is counted and appended back in its own place, not copied a second time: a
	// million runs are held by the shards and by the merge, not a third time besides
	// (docs/performance.md, "A million runs").
	sum := &reliability.Summary{Traces: traces[:0]}
	for _, t := range traces {
		sum.Add(t)
	}
	return sum, nil
}

// tracePlaceID is the id of trace t and where it starts. A run with a task is known by its
// identity, and two runs may share an id (two logs of one task): its id is "", which
// mergeRecords does not check, and identify gives it its id as one run would.
func tracePlaceID(t *reliability.Result) (string, input.Place) {
	if a := t.Attempt; a != nil && a.Task != "" {
		return "", tracePlace(t)
	}
	return t.ID, tracePlace(t)
}

// mergeUnmatched is the outcomes no trace of the merged suite matched: those no shard's
// traces matched, less the trace ids and tasks another shard holds (matchable). given is
// whether any shard was given outcomes.
func mergeUnmatched(shards []Shard, sum *reliability.Summary) (ids []string, given bool) {
	if sum == nil {
		return nil, false
	}
	for _, s := range shards {
		if o := s.Report.Outcomes; o != nil {
			given = given || o.Unmatched > 0 || s.Report.Source.Inputs != nil && len(s.Report.Source.Inputs.Outcomes) > 0
		}
	}
	return mergeOutcomeIDs(shards, matchable(sum), func(o *outcome.Summary) []string { return o.UnmatchedIDs }), given
}

// mergeUntraced is the instances a SWE-bench report names that no trace of the merged suite
// matched (outcome.Summary.Untraced), and those of them it says resolved, less those another
// shard's trace matched (matchable).
func mergeUntraced(shards []Shard, sum *reliability.Summary) (ids, resolved []string) {
	if sum == nil {
		return nil, nil
	}
	has := matchable(sum)
	return mergeOutcomeIDs(shards, has, func(o *outcome.Summary) []string { return o.UntracedIDs }),
		mergeOutcomeIDs(shards, has, func(o *outcome.Summary) []string { return o.UntracedResolved })
}

// mergeOutcomeIDs is the union of the ids list gives of each shard's outcomes, less those
// has, sorted.
func mergeOutcomeIDs(shards []Shard, has map[string]bool, list func(*outcome.Summary) []string) []string {
	var ids []string
	seen := map[string]bool{}
	for _, s := range shards {
		if s.Report.Outcomes == nil {
			continue
		}
		for _, id := range list(s.Report.Outcomes) {
			if !has[id] && !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	slices.Sort(ids)
	return ids
}

// matchable is what an outcome of the merged suite matches a run by: its trace id, or its
// task (a SWE-bench instance id names the run's task, as readOutcomes matches it).
func matchable(sum *reliability.Summary) map[string]bool {
	has := make(map[string]bool, 2*len(sum.Traces))
	for i := range sum.Traces {
		t := &sum.Traces[i]
		has[t.ID] = true
		if t.Attempt != nil && t.Task != "" {
			has[t.Task] = true
		}
	}
	return has
}

// mergeCoherence merges the shards' tasks; nil when no shard has the section.
func mergeCoherence(shards []Shard) (*coherence.Summary, error) {
	tasks, has, err := mergeRecords(shards, "task", func(r *Result) ([]coherence.TaskResult, bool) {
		if r.Coherence == nil {
			return nil, false
		}
		return r.Coherence.Tasks, true
	}, func(t *coherence.TaskResult) (string, input.Place) {
		return t.ID, input.Place{File: t.File, Line: t.Line}
	})
	if !has || err != nil {
		return nil, err
	}
	s := coherence.Summarize(tasks)
	return &s, nil
}
