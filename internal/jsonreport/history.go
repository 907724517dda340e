package jsonreport

import (
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/agentgate/agentgate/gate/compare"
	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/internal/jsonscan"
)

// This file reads and writes a report's history (docs/design.md#planning-and-trend) and what `agentgate plan` needs of
// its recorded comparison. A baseline's history is copied into every report that descends from
// it, so it is read as the hostile input it is: at most compare.MaxHistory points of bounded
// lists and strings, every number in its range, every problem placed at its line and column.

// Bounds of a history's strings: what compare.PointOf keeps.
const (
	maxRefLen  = compare.MaxRefLen
	maxTaskLen = compare.MaxTaskLen
)

// historyWithLists returns h with nil lists empty, so consumers need no null check: h itself
// when none is nil, else a copy; an empty history for nil.
func historyWithLists(h []compare.Point) []compare.Point {
	if h == nil {
		return []compare.Point{}
	}
	for _, p := range h {
		if p.PassK == nil || p.FlakyTasks == nil {
			out := make([]compare.Point, len(h))
			for i, p := range h {
				if p.PassK == nil {
					p.PassK = []float64{}
				}
				if p.FlakyTasks == nil {
					p.FlakyTasks = []string{}
				}
				out[i] = p
			}
			return out
		}
	}
	return h
}

// historyPoint is a point as it is read: pointers where absence must be told from zero.
type historyPoint struct {
	SHA              *string   `json:"sha"`
	Ref              string    `json:"ref"`
	Runs             *int      `json:"runs"`
	Fail             *int      `json:"fail"`
	Known            int       `json:"known"`
	SuccessRate      *float64  `json:"success_rate"`
	TokensPerSuccess *float64  `json:"tokens_per_success"`
	PassK            []float64 `json:"pass_k"`
	TrialTasks       int       `json:"trial_tasks"`
	Flaky            int       `json:"flaky"`
	FlakyTasks       []string  `json:"flaky_tasks"`
}

// history reads the report's "history": an array of at most compare.MaxHistory points.
func (br *baselineReader) history() error {
	h := []compare.Point{}
	err := br.array("history", func(i int) error {
		off := br.offset()
		what := fmt.Sprintf("history[%d]", i)
		if i == compare.MaxHistory {
			return &posError{off: off, msg: fmt.Sprintf("history holds more than %d points", compare.MaxHistory)}
		}
		if err := br.countLists(jsonscan.SkipSeparators(br.data, off), what, "pass_k", "flaky_tasks"); err != nil {
			return err
		}
		var hp historyPoint
		if err := br.value(&hp, what); err != nil {
			return err
		}
		p, msg := hp.point()
		if msg != "" {
			return &posError{off: off, msg: what + ": " + msg}
		}
		h = append(h, p)
		return nil
	})
	if err != nil {
		return err
	}
	if len(h) > 0 { // an empty one (a report not written by a run) is no history
		br.b.History = h
	}
	return nil
}

// point checks a point read from a report and returns it, or what is wrong with it.
func (hp *historyPoint) point() (compare.Point, string) {
	var p compare.Point
	unit := func(v float64) bool { return v >= 0 && v <= 1 }
	switch {
	case hp.SHA == nil:
		return p, `no "sha"`
	case *hp.SHA != "" && !validSHA(*hp.SHA):
		return p, fmt.Sprintf("sha %s is not a commit (7 to 64 hex digits, or empty)", input.Quote(*hp.SHA))
	case len(hp.Ref) > maxRefLen || !utf8.ValidString(hp.Ref):
		return p, fmt.Sprintf("ref is not a ref of at most %d bytes of UTF-8", maxRefLen)
	case hp.Runs == nil || hp.Fail == nil:
		return p, `no "runs" or no "fail"`
	case *hp.Runs < 0 || *hp.Fail < 0 || *hp.Fail > *hp.Runs:
		return p, fmt.Sprintf("runs %d and fail %d must be counts, fail at most runs", *hp.Runs, *hp.Fail)
	case hp.Known < 0 || hp.Known > *hp.Runs:
		return p, fmt.Sprintf("known %d must be between 0 and runs (%d)", hp.Known, *hp.Runs)
	case hp.SuccessRate != nil && !unit(*hp.SuccessRate):
		return p, fmt.Sprintf("success_rate %v is not between 0 and 1", *hp.SuccessRate)
	case hp.TokensPerSuccess != nil && !(*hp.TokensPerSuccess >= 0 && *hp.TokensPerSuccess <= math.MaxFloat64):
		return p, fmt.Sprintf("tokens_per_success %v is not a count of tokens", *hp.TokensPerSuccess)
	case len(hp.PassK) > compare.MaxPassKPoint:
		return p, fmt.Sprintf("pass_k holds %d values, at most %d", len(hp.PassK), compare.MaxPassKPoint)
	case hp.TrialTasks < 0 || hp.Flaky < 0 || hp.Flaky > hp.TrialTasks:
		return p, fmt.Sprintf("trial_tasks %d and flaky %d must be counts, flaky at most trial_tasks", hp.TrialTasks, hp.Flaky)
	case len(hp.FlakyTasks) > min(hp.Flaky, compare.MaxFlakyNames):
		return p, fmt.Sprintf("flaky_tasks names %d tasks, more than flaky (%d) or %d", len(hp.FlakyTasks), hp.Flaky, compare.MaxFlakyNames)
	}
	for k, v := range hp.PassK {
		if !unit(v) {
			return p, fmt.Sprintf("pass_k[%d] %v is not between 0 and 1", k, v)
		}
	}
	for j, t := range hp.FlakyTasks {
		switch {
		case len(t) > maxTaskLen || !utf8.ValidString(t):
			return p, fmt.Sprintf("flaky_tasks[%d] is not a task name of at most %d bytes of UTF-8", j, maxTaskLen)
		case j > 0 && t <= hp.FlakyTasks[j-1]:
			return p, fmt.Sprintf("flaky_tasks[%d] %s is out of order or named twice: the names are sorted", j, input.Quote(t))
		}
	}
	p = compare.Point{SHA: *hp.SHA, Ref: hp.Ref, Runs: *hp.Runs, Fail: *hp.Fail, Known: hp.Known,
		SuccessRate: hp.SuccessRate, TokensPerSuccess: hp.TokensPerSuccess, PassK: hp.PassK,
		TrialTasks: hp.TrialTasks, Flaky: hp.Flaky, FlakyTasks: hp.FlakyTasks}
	if p.PassK == nil {
		p.PassK = []float64{}
	}
	if p.FlakyTasks == nil {
		p.FlakyTasks = []string{}
	}
	return p, ""
}

// recordedTest is a paired pass/fail metric of a recorded comparison, as it is read.
type recordedTest struct {
	Matched int `json:"matched"`
	// Compared is the runs the test counted, the missing ones counted as failures too
	// (docs/comparison-and-statistics.md, "Every baseline run accounted for"); absent from a
	// report written before runs were accounted for, which counted the matched ones only.
	Compared    *int `json:"compared"`
	NewFailures int  `json:"new_failures"`
	Fixed       int  `json:"fixed"`
	Power       *struct {
		Threshold float64 `json:"threshold"`
	} `json:"power"`
}

// recorded reads what a plan needs of the report's own "comparison": the matched runs, new
// failures, fixed runs and Holm threshold of its success and reliability metrics.
func (br *baselineReader) recorded() error {
	return br.object("comparison", func(key string) error {
		if key != compare.MetricReliability && key != compare.MetricSuccess {
			return br.skip("comparison." + key)
		}
		off := br.offset()
		what := "comparison." + key
		var t recordedTest
		if err := br.value(&t, what); err != nil {
			return err
		}
		n, of := t.Matched, "matched"
		if t.Compared != nil {
			n, of = *t.Compared, "compared"
		}
		rt := compare.RecordedTest{Metric: key, Matched: n, NewFailures: t.NewFailures, Fixed: t.Fixed}
		if t.Power != nil {
			rt.Threshold = t.Power.Threshold
		}
		switch {
		case t.Compared != nil && (*t.Compared < t.Matched):
			return &posError{off: off, msg: fmt.Sprintf("%s: compared %d is fewer than matched %d", what, *t.Compared, t.Matched)}
		case n < 0 || t.Matched < 0 || t.NewFailures < 0 || t.Fixed < 0 || t.NewFailures > n || t.Fixed > n-t.NewFailures:
			return &posError{off: off, msg: fmt.Sprintf("%s: %s %d, new_failures %d and fixed %d must be counts, the last two within %s", what, of, n, t.NewFailures, t.Fixed, of)}
		case t.Power != nil && rt.Threshold == 0:
			return &posError{off: off, msg: fmt.Sprintf("%s: power.threshold 0 is not between %v and 1, the levels agentgate computes power at", what, compare.MinLevel)}
		}
		if err := rt.Validate(of); err != nil {
			return &posError{off: off, msg: what + ": " + err.Error()}
		}
		for _, r := range br.b.Recorded {
			if r.Metric == key {
				return &posError{off: off, msg: what + " occurs twice"}
			}
		}
		br.b.Recorded = append(br.b.Recorded, rt)
		return nil
	})
}

// checkHistory checks a shard's history as a baseline's is checked (a shard's report is as
// untrusted), naming the first point at fault.
func checkHistory(name string, h []compare.Point) error {
	if len(h) > compare.MaxHistory {
		return &input.Error{File: name, Msg: fmt.Sprintf("history holds %d points, at most %d", len(h), compare.MaxHistory)}
	}
	for i := range h {
		p := h[i]
		sha := p.SHA
		runs, fail := p.Runs, p.Fail
		hp := historyPoint{SHA: &sha, Ref: p.Ref, Runs: &runs, Fail: &fail, Known: p.Known, SuccessRate: p.SuccessRate,
			TokensPerSuccess: p.TokensPerSuccess, PassK: p.PassK, TrialTasks: p.TrialTasks, Flaky: p.Flaky, FlakyTasks: p.FlakyTasks}
		if _, msg := hp.point(); msg != "" {
			return &input.Error{File: name, Msg: fmt.Sprintf("history[%d]: %s", i, msg)}
		}
	}
	return nil
}
