package compare

import (
	"fmt"
	"strconv"

	"github.com/agentgate/agentgate/gate/coherence"
	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/verdict"
)

// Source says which run wrote a report (docs/design.md#comparison): the commit, ref, workflow run and attempt,
// and the agentgate version. Outside Actions every field but Version is empty.
type Source struct {
	SHA        string `json:"sha"`
	Ref        string `json:"ref"`
	RunID      string `json:"run_id"`
	RunAttempt string `json:"run_attempt"`
	Version    string `json:"version"`
}

// Run is one side of a comparison: what a comparison needs of a report, the head's (built
// from the gate's result) or the baseline's (read by jsonreport.ReadBaseline). A nil section
// means its evaluator did not run.
//
// Build the head's Run from the gate result without copying:
//
//	head := &compare.Run{Profile: r.Profile, Source: src, Reliability: r.Reliability,
//		Coherence: r.Coherence, Agreement: compare.AgreementOf(r.Agreement), Trials: trials}
type Run struct {
	Profile profile.Profile
	// TokenBudget is the token budget of the cost signal as the report records it: 0 for
	// reliability.DefaultTokenBudget.
	TokenBudget int64
	Source      Source
	// Reliability's Traces are matched by ID; its counts are not used.
	Reliability *reliability.Summary
	// Coherence's Tasks are matched by ID; its Total and Mean are not used.
	Coherence *coherence.Summary
	Agreement *Agreement
	// Trials are the traces that carry a trial index (docs/design.md#repeated-trials), for pass^k.
	Trials []Trial
}

// Agreement is what a comparison needs of the agreement section: the side's overall figures
// and the FINAL label of each item.
type Agreement struct {
	N                int
	PercentAgreement float64
	Kappa            float64 // meaningless unless KappaDefined
	KappaDefined     bool
	KappaSE          float64
	Finals           Finals
}

// Finals lists the items' qids with their FINAL labels.
type Finals interface {
	Len() int
	// At returns item i's qid and FINAL label.
	At(i int) (qid, final string)
}

// FinalList is a Finals held as a slice (the baseline's).
type FinalList []Final

// Final is one item's qid and FINAL label.
type Final struct {
	QID   string
	Final string
}

// Len returns the number of items.
func (l FinalList) Len() int { return len(l) }

// At returns item i's qid and FINAL label.
func (l FinalList) At(i int) (string, string) { return l[i].QID, l[i].Final }

// Trial is one run of a task (docs/design.md#repeated-trials): the task id, the trial index as written (a number or
// a string), and the trace's verdict. A trial passes when its verdict is not FAIL.
type Trial struct {
	// Suite is the namespace of Task (docs/design.md#run-identity), "" when the harness records none.
	Suite   string
	Task    string
	Trial   string
	Verdict verdict.Verdict
	// HasOutcome is true when the run's own outcome is known (docs/design.md#outcomes); Succeeded is it.
	HasOutcome bool
	Succeeded  bool
}

// TrialsOf lists the traces that name their task and trial index, with their outcomes, for
// pass^k (docs/design.md#repeated-trials, docs/design.md#outcomes): the head's and the baseline's alike.
func TrialsOf(traces []reliability.Result) []Trial {
	var out []Trial
	for i := range traces {
		t := &traces[i]
		if a := t.Attempt; a != nil && a.Task != "" && a.Trial != nil {
			out = append(out, Trial{Suite: a.Suite, Task: a.Task, Trial: strconv.Itoa(*a.Trial), Verdict: t.Verdict,
				HasOutcome: t.Run.Known, Succeeded: t.Run.Success})
		}
	}
	return out
}

// Baseline is a report of an earlier run, as jsonreport.ReadBaseline reads it.
type Baseline struct {
	Run
	Name string // the file name the baseline was read from, for notes
	// Notes are what reading it found worth saying, e.g. that runs sharing an identity were
	// renumbered; the comparison repeats them.
	Notes []string
	// History is the report's history (docs/design.md#planning-and-trend); nil when it has none (written before
	// histories were kept).
	History []Point
	// Recorded is the report's own comparison with its baseline, as far as a plan needs it
	// (docs/design.md#planning-and-trend); nil when it has none.
	Recorded []RecordedTest
}

// Unusable says why a baseline cannot be compared with: not an error of the run (docs/design.md#comparison),
// but a one-line note in the report. Reason names the file and, where known, the place.
type Unusable struct {
	Reason string
}

func (u *Unusable) Error() string { return u.Reason }

// unusable returns an *Unusable with a formatted reason.
func unusable(format string, args ...any) *Unusable {
	return &Unusable{Reason: fmt.Sprintf(format, args...)}
}

// Check returns an *Unusable when b cannot be compared with the run head: its profile or its
// token budget differs, so its scores and verdicts mean something else.
func (b *Baseline) Check(head *Run) error {
	if b.Profile != head.Profile {
		return unusable("baseline %s was written with profile %q, this run uses %q: not compared", b.Name, b.Profile, head.Profile)
	}
	if bb, hb := reliability.Budget(b.TokenBudget), reliability.Budget(head.TokenBudget); bb != hb {
		return unusable("baseline %s was written with token-budget %d, this run uses %d: not compared", b.Name, bb, hb)
	}
	return nil
}
