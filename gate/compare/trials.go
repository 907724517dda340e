package compare

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/gate/verdict"
)

// PassK is pass^k of one side's repeated trials (docs/design.md#repeated-trials, tau-bench's definition). Trials
// are grouped by task; a trial passes when it succeeded, if every trial has an outcome, else
// when its verdict is not FAIL (docs/design.md#outcomes). For a task with n trials
// and c passes, pass^k = C(c, k)/C(n, k), the chance that k trials drawn without replacement
// all pass; the suite's pass^k is its mean over the tasks with n ≥ k. Every trial given counts,
// a repeated trial index included: the readers reject duplicate traces, not repeated indexes.
type PassK struct {
	Tasks  int `json:"tasks"`
	Trials int `json:"trials"`
	// MinTrials is the smallest number of trials of a task: every task has pass^k for k up to
	// it.
	MinTrials int `json:"min_trials"`
	// Values[k−1] is pass^k over all tasks, for k = 1..MinTrials.
	Values []float64 `json:"values"`
	// Flaky lists the tasks that passed some trials and failed others (0 < c < n), sorted.
	Flaky []string `json:"flaky"`
	// OnOutcomes is true when every trial had an outcome, so a trial passed when it
	// succeeded (tau-bench's own definition, docs/design.md#outcomes); false when a trial passed when its
	// verdict was not FAIL.
	OnOutcomes bool `json:"on_outcomes,omitempty"`
	// Basis says what a pass is, in one word for the JSON report: BasisOutcome or
	// BasisVerdict.
	Basis string `json:"basis"`
	// WithoutOutcome counts the trials without an outcome: pass^k is by verdict when it is
	// more than 0, and the report says how many so a reader knows why.
	WithoutOutcome int `json:"trials_without_outcome"`
	// PerTask holds every task's trials and passes, sorted by task.
	PerTask []TaskTrials `json:"-"`
}

// PassK.Basis values: a trial passed when it succeeded, or when its verdict was not FAIL.
const (
	BasisOutcome = "outcome"
	BasisVerdict = "verdict"
)

// VerdictNote says, when pass^k is by verdict although some trial has an outcome, why: "by
// verdict: 1 of 9 trials has no outcome"; "" when it is by outcome or no trial has one (then
// a verdict is the only pass there is).
func (p *PassK) VerdictNote() string {
	if p == nil || p.OnOutcomes || p.WithoutOutcome == p.Trials {
		return ""
	}
	has := "have"
	if p.WithoutOutcome == 1 {
		has = "has"
	}
	return fmt.Sprintf("by verdict: %d of %d trials %s no outcome", p.WithoutOutcome, p.Trials, has)
}

// TaskTrials is one task's number of trials and of passes.
type TaskTrials struct {
	// Suite is the namespace of Task (docs/design.md#run-identity): tasks of two suites with one id are two tasks.
	Suite  string `json:"suite,omitempty"`
	Task   string `json:"task"`
	Trials int    `json:"trials"`
	Passes int    `json:"passes"`
}

// Name is the task as a report names it: its id, after its suite and a slash when it has one.
func (tt TaskTrials) Name() string {
	if tt.Suite == "" {
		return tt.Task
	}
	return tt.Suite + "/" + tt.Task
}

// PassKOf computes pass^k over trials, grouped by (suite, task) (docs/design.md#run-identity); nil when there
// are none. It sorts a copy of the task ids, O(n log n), and sums pass^k over tasks in task
// order, so equal inputs give equal bits.
func PassKOf(trials []Trial) *PassK {
	if len(trials) == 0 {
		return nil
	}
	order := make([]int, len(trials))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Or(strings.Compare(trials[a].Suite, trials[b].Suite), strings.Compare(trials[a].Task, trials[b].Task))
	})
	p := &PassK{Trials: len(trials), Flaky: []string{}, OnOutcomes: true}
	for i := range trials {
		if !trials[i].HasOutcome {
			p.WithoutOutcome++
		}
	}
	p.OnOutcomes = p.WithoutOutcome == 0
	p.Basis = BasisVerdict
	if p.OnOutcomes {
		p.Basis = BasisOutcome
	}
	for _, i := range order {
		t := &trials[i]
		if n := len(p.PerTask); n == 0 || p.PerTask[n-1].Task != t.Task || p.PerTask[n-1].Suite != t.Suite {
			p.PerTask = append(p.PerTask, TaskTrials{Suite: t.Suite, Task: t.Task})
		}
		tt := &p.PerTask[len(p.PerTask)-1]
		tt.Trials++
		if (p.OnOutcomes && t.Succeeded) || (!p.OnOutcomes && t.Verdict != verdict.Fail) {
			tt.Passes++
		}
	}
	p.Tasks = len(p.PerTask)
	p.MinTrials = p.PerTask[0].Trials
	for _, tt := range p.PerTask {
		p.MinTrials = min(p.MinTrials, tt.Trials)
		if tt.Passes > 0 && tt.Passes < tt.Trials {
			p.Flaky = append(p.Flaky, tt.Name())
		}
	}
	// pass^k of one task, for k = 1, 2, …, by the running product of (c−k+1)/(n−k+1): the
	// whole table costs one step per task and k, at most the number of trials.
	p.Values = make([]float64, p.MinTrials)
	for _, tt := range p.PerTask {
		v := 1.0
		for k := 1; k <= p.MinTrials; k++ {
			v *= float64(tt.Passes-k+1) / float64(tt.Trials-k+1)
			v = max(v, 0) // c < k: no way to draw k passes
			p.Values[k-1] += v
		}
	}
	for k := range p.Values {
		p.Values[k] /= float64(p.Tasks)
	}
	return p
}

// At returns pass^k for any k ≥ 1 and the number of tasks with at least k trials it averages
// over; ok is false when no task has k trials.
func (p *PassK) At(k int) (value float64, tasks int, ok bool) {
	if p == nil || k < 1 {
		return 0, 0, false
	}
	if k <= p.MinTrials {
		return p.Values[k-1], p.Tasks, true
	}
	var sum float64
	for _, tt := range p.PerTask {
		if tt.Trials < k {
			continue
		}
		v := 1.0
		for i := 1; i <= k; i++ {
			v *= float64(tt.Passes-i+1) / float64(tt.Trials-i+1)
		}
		sum += max(v, 0)
		tasks++
	}
	if tasks == 0 {
		return 0, 0, false
	}
	return sum / float64(tasks), tasks, true
}

// PassKComparison puts pass^k of base and head side by side, for k = 1 up to the larger of
// their MinTrials: a side without that k (no trials, or fewer) has Has… false there.
type PassKComparison struct {
	Base *PassK     `json:"base"` // nil when the baseline has no trials
	Head *PassK     `json:"head"` // nil when head has none
	Rows []PassKRow `json:"rows"`
}

// PassKRow is pass^k of both sides for one k.
type PassKRow struct {
	K       int     `json:"k"`
	Base    float64 `json:"base"` // meaningless unless HasBase
	HasBase bool    `json:"has_base"`
	Head    float64 `json:"head"` // meaningless unless HasHead
	HasHead bool    `json:"has_head"`
}

// ComparePassK computes pass^k of each side and lists them side by side.
func ComparePassK(base, head []Trial) *PassKComparison {
	c := &PassKComparison{Base: PassKOf(base), Head: PassKOf(head), Rows: []PassKRow{}}
	maxK := 0
	for _, p := range []*PassK{c.Base, c.Head} {
		if p != nil {
			maxK = max(maxK, p.MinTrials)
		}
	}
	for k := 1; k <= maxK; k++ {
		row := PassKRow{K: k}
		if c.Base != nil && k <= c.Base.MinTrials {
			row.Base, row.HasBase = c.Base.Values[k-1], true
		}
		if c.Head != nil && k <= c.Head.MinTrials {
			row.Head, row.HasHead = c.Head.Values[k-1], true
		}
		c.Rows = append(c.Rows, row)
	}
	return c
}

// String writes pass^k as "pass^1 0.75, pass^2 0.5 over 4 tasks" for notes and logs.
func (p *PassK) String() string {
	if p == nil {
		return "no trials"
	}
	var b strings.Builder
	for k, v := range p.Values {
		if k > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "pass^%d %.4g", k+1, v)
	}
	fmt.Fprintf(&b, " over %d tasks", p.Tasks)
	return b.String()
}
