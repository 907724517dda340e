package gate

import (
	"errors"

	"github.com/agentgate/agentgate/gate/compare"
	"github.com/agentgate/agentgate/gate/reliability"
)

// Baseline is what a run is compared with (docs/design.md#comparison): a report of an earlier run read by
// jsonreport.ReadBaseline, or, when none is usable, the one line that says why. An unusable
// baseline is not an error: the report shows the note, the comparison gates are skipped with
// it, and the verdict is what it would be without a baseline.
type Baseline struct {
	Report *compare.Baseline
	Note   string
	// Chosen says which commit's report `baseline: auto` took, and how; nil for a baseline
	// given by path.
	Chosen *BaselineChosen
}

// BaselineChosen is the commit whose report `baseline: auto` compared with and how it was
// chosen (docs/reference.md, "Which baseline"): "main@1a2b3c4, the merge base".
type BaselineChosen struct {
	// Branch is the base branch, SHA the commit its run gated.
	Branch string `json:"branch"`
	SHA    string `json:"sha"`
	// How is how the commit stands to the pull request's merge base: "the merge base",
	// "2 commits before the merge base", "the newest on main, …".
	How string `json:"how"`
}

// compareWith holds r, whose repeated trials are headTrials, against b and keeps the
// comparison, or the note of why there is none. Only a bug of the caller (bad options) is an
// error.
func (r *Result) compareWith(b *Baseline, headTrials []compare.Trial, o compare.Options) error {
	if b.Report == nil {
		r.BaselineNote = b.Note
		if r.BaselineNote == "" {
			r.BaselineNote = "no baseline report: not compared"
		}
		return nil
	}
	head := &compare.Run{Profile: r.Profile, TokenBudget: r.TokenBudget, Source: r.Source.Source, Reliability: r.Reliability,
		Coherence: r.Coherence, Agreement: compare.AgreementOf(r.Agreement), Trials: headTrials}
	c, err := compare.Compare(b.Report, head, o)
	var u *compare.Unusable
	switch {
	case errors.As(err, &u):
		r.BaselineNote = u.Reason
	case err != nil:
		return err
	default:
		r.Comparison, r.BaselineChosen = c, b.Chosen
	}
	return nil
}

// trials lists the traces that name their task and trial index, with their outcomes, for
// pass^k (docs/design.md#repeated-trials, docs/design.md#outcomes).
func trials(s *reliability.Summary) []compare.Trial {
	if s == nil {
		return nil
	}
	return compare.TrialsOf(s.Traces)
}
