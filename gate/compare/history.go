package compare

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agentgate/agentgate/gate/outcome"
	"github.com/agentgate/agentgate/gate/reliability"
)

// This file keeps a report's history (docs/design.md#planning-and-trend): a compact point for each of the runs it
// descends from on its baseline's branch, copied forward from report to report, so that the one
// artifact a branch uploads holds its trend and no API call is needed to draw it.

// History bounds: every one is what a baseline's history may hold at most, checked when it
// is read (it is untrusted).
const (
	// MaxHistory is the most points a history keeps: the newest.
	MaxHistory = 30
	// MaxFlakyNames is the most flaky task names a point lists (the first, sorted): a
	// history of MaxHistory points holds at most MaxHistory·MaxFlakyNames names.
	MaxFlakyNames = 20
	// MaxPassKPoint is the most pass^k values a point keeps (pass^1 to pass^8).
	MaxPassKPoint = 8
	// MaxRefLen is the longest ref a point keeps, and MaxTaskLen the longest flaky task
	// name (in bytes of UTF-8).
	MaxRefLen  = 1024
	MaxTaskLen = 1024
)

// Point is one run of a history: what its trend and its flaky tasks are drawn from.
type Point struct {
	// SHA and Ref are the run's commit and ref (Source); empty outside Actions.
	SHA string `json:"sha"`
	Ref string `json:"ref"`
	// Runs counts the traces (and the runs a SWE-bench report names that left none,
	// outcome.Summary.Untraced) and Fail those that were FAIL.
	Runs int `json:"runs"`
	Fail int `json:"fail"`
	// Known counts the runs with an outcome (docs/design.md#outcomes); SuccessRate is their share that
	// succeeded and TokensPerSuccess the tokens they spent per success, nil when unknown.
	Known            int      `json:"known"`
	SuccessRate      *float64 `json:"success_rate"`
	TokensPerSuccess *float64 `json:"tokens_per_success"`
	// PassK[k−1] is pass^k for k up to the smallest trial count, at most MaxPassKPoint; empty
	// without trials (docs/design.md#repeated-trials).
	PassK []float64 `json:"pass_k"`
	// TrialTasks counts the tasks run in trials, Flaky those whose trials disagreed, and
	// FlakyTasks names the first MaxFlakyNames of them, sorted.
	TrialTasks int      `json:"trial_tasks"`
	Flaky      int      `json:"flaky"`
	FlakyTasks []string `json:"flaky_tasks"`
}

// PointOf is the history point of a run: its source, reliability summary (nil when its traces
// were not evaluated), outcomes summary (nil when no run has an outcome) and pass^k (nil
// without trials), as the run's report states them. It costs O(1) beyond copying at most
// MaxPassKPoint values and MaxFlakyNames names.
//
// What a report could not read back is left out, so that every history written can be read
// as a baseline: a sha that is not a commit (7 to 64 hex digits) and a ref that is not UTF-8 or
// longer than MaxRefLen are empty, and a flaky task whose name is not UTF-8 or longer than
// MaxTaskLen is counted but not named.
func PointOf(src Source, rel *reliability.Summary, o *outcome.Summary, pk *PassK) Point {
	p := Point{PassK: []float64{}, FlakyTasks: []string{}}
	if IsCommit(src.SHA) {
		p.SHA = src.SHA
	}
	if len(src.Ref) <= MaxRefLen && utf8.ValidString(src.Ref) {
		p.Ref = src.Ref
	}
	if rel != nil {
		p.Runs, p.Fail = len(rel.Traces), rel.Fail
	}
	if o != nil {
		p.Runs += o.Untraced
		p.Known = o.Known
		if o.Known > 0 {
			rate := o.SuccessRate
			p.SuccessRate = &rate
		}
		p.TokensPerSuccess = o.TokensPerSuccess
	}
	if pk != nil {
		p.PassK = slices.Clone(pk.Values[:min(len(pk.Values), MaxPassKPoint)])
		p.TrialTasks = pk.Tasks
		p.Flaky = len(pk.Flaky)
		for _, t := range pk.Flaky {
			if len(p.FlakyTasks) == MaxFlakyNames {
				break
			}
			if len(t) <= MaxTaskLen && utf8.ValidString(t) {
				p.FlakyTasks = append(p.FlakyTasks, t)
			}
		}
	}
	return p
}

// IsCommit reports whether sha names a commit: 7 to 64 hex digits (an abbreviation, SHA-1 or
// SHA-256).
func IsCommit(sha string) bool {
	if len(sha) < 7 || len(sha) > 64 {
		return false
	}
	for i := 0; i < len(sha); i++ {
		c := sha[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// pointOfRun is the history point of a run read as a baseline: its outcomes and pass^k
// computed as its report computed them.
func pointOfRun(r *Run) Point {
	var o *outcome.Summary
	if r.Reliability != nil && anyOutcome(r.Reliability.Traces) {
		o = outcome.Summarize(r.Reliability.Traces, 0, nil)
	}
	return PointOf(r.Source, r.Reliability, o, PassKOf(r.Trials))
}

// BaselineHistory is what a run compared with b copies forward: b's history, less any point of
// another ref than b's own (a pull request's run that was used as a baseline does not become
// part of its branch's trend). A baseline written before histories were kept has none: then
// its own run, as read, is the one point.
func BaselineHistory(b *Baseline) []Point {
	if b == nil {
		return nil
	}
	if b.History == nil {
		return []Point{pointOfRun(&b.Run)}
	}
	out := make([]Point, 0, len(b.History))
	for _, p := range b.History {
		if p.Ref == b.Source.Ref {
			out = append(out, p)
		}
	}
	return out
}

// ExtendHistory returns prev with head as its last point: a run of the commit and ref prev
// ends with (the same non-empty SHA on the same ref: a re-run, or a branch's run compared with
// its own report) replaces that point rather than repeating it, and only the newest MaxHistory
// points are kept. A run of the same commit on another ref (a pull request whose head is its
// base's commit) is a point of its own. prev is not changed.
func ExtendHistory(prev []Point, head Point) []Point {
	n := len(prev)
	if n > 0 && head.SHA != "" && prev[n-1].SHA == head.SHA && prev[n-1].Ref == head.Ref {
		n--
	}
	out := make([]Point, 0, min(n+1, MaxHistory))
	out = append(out, prev[max(0, n+1-MaxHistory):n]...)
	return append(out, head)
}

// FlakyTask is a task whose trials disagreed in Runs of the Of points of a history that ran
// trials.
type FlakyTask struct {
	Task string `json:"task"`
	Runs int    `json:"runs"`
	Of   int    `json:"of"`
}

// FlakyOver returns the tasks whose trials disagreed in two or more of the history's runs
// (docs/design.md#planning-and-trend), most often first, then by name. A point names at most MaxFlakyNames tasks, so
// where a run had more, the count is a floor. It costs O(m log m) for the m names the history
// holds (at most MaxHistory·MaxFlakyNames).
func FlakyOver(h []Point) []FlakyTask {
	var names []string
	of := 0
	for _, p := range h {
		if p.TrialTasks > 0 {
			of++
		}
		names = append(names, p.FlakyTasks...)
	}
	slices.Sort(names)
	var out []FlakyTask
	for i := 0; i < len(names); {
		j := i + 1
		for j < len(names) && names[j] == names[i] {
			j++
		}
		if j-i >= 2 {
			out = append(out, FlakyTask{Task: names[i], Runs: j - i, Of: of})
		}
		i = j
	}
	slices.SortStableFunc(out, func(a, b FlakyTask) int {
		return cmp.Or(cmp.Compare(b.Runs, a.Runs), strings.Compare(a.Task, b.Task))
	})
	return out
}
