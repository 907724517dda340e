package gate

import (
	"context"
	"fmt"
	"math"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/gate/outcome"
)

// readOutcomes reads the outcomes input and sets the outcome of every trace it names,
// overriding the record's own (SPEC §15); the ids that match no trace are kept for the report.
func (r *Result) readOutcomes(ctx context.Context, patterns []string) error {
	if len(patterns) == 0 {
		return nil
	}
	files, err := input.Expand(patterns)
	if err != nil {
		return fmt.Errorf("outcomes: %w", err)
	}
	set, err := outcome.Read(ctx, files)
	if err != nil {
		return err
	}
	if r.Reliability == nil {
		return &UsageError{"outcomes were given without traces: outcomes are matched to traces by id, give the traces too"}
	}
	if len(r.Runs) != len(r.Reliability.Traces) { // merged shards without outcomes
		r.Runs = make([]outcome.Run, len(r.Reliability.Traces))
		for i := range r.Runs {
			r.Runs[i] = outcome.RunOfJSON(nil)
		}
	}
	for i := range r.Reliability.Traces {
		if o, ok := set.Take(r.Reliability.Traces[i].ID); ok {
			r.Runs[i].Set(o)
		}
	}
	r.unmatchedOutcomes = set.Unmatched()
	r.outcomesGiven = true
	return nil
}

// summarizeOutcomes decides every run's success at threshold and computes the outcomes
// section; without any outcome (and no outcomes input) there is none, and Runs is dropped.
func (r *Result) summarizeOutcomes(threshold float64) {
	if r.Reliability == nil {
		r.Runs, r.Outcomes = nil, nil
		return
	}
	known := false
	for i := range r.Runs {
		r.Runs[i].Decide(threshold)
		known = known || r.Runs[i].Known
	}
	if !known && !r.outcomesGiven {
		r.Runs, r.Outcomes = nil, nil
		return
	}
	r.Outcomes = outcome.Summarize(r.Reliability.Traces, r.Runs, threshold, r.unmatchedOutcomes)
}

// successGate is success-rate-min: breached when the share of runs with an outcome that
// succeeded is below min. It is a row only when set; without outcomes it is skipped.
func successGate(s *outcome.Summary, min float64) []GateResult {
	if math.IsNaN(min) {
		return nil
	}
	g := GateResult{Name: SuccessRateMin, Op: ">=", Threshold: min, Passed: true}
	if s == nil || s.Known == 0 {
		g.Skipped, g.Note = true, "no run has an outcome"
		if s != nil && s.Unmatched > 0 {
			ids := fmt.Sprintf("the %d ids in the outcomes input match", s.Unmatched)
			if s.Unmatched == 1 {
				ids = "the one id in the outcomes input matches"
			}
			g.Note += ": " + ids + " no trace"
		}
		return []GateResult{g}
	}
	g.Value = s.SuccessRate
	g.Passed = s.SuccessRate >= min
	g.Note = fmt.Sprintf("%d of %d runs succeeded", s.Successes, s.Known)
	return []GateResult{g}
}

// runOf is the outcome of trace i of s, from runs (nil when no trace has one).
func runOf(runs []outcome.Run, i int) outcome.Run {
	if i < len(runs) {
		return runs[i]
	}
	return outcome.Run{}
}
