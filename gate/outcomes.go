package gate

import (
	"context"
	"fmt"
	"math"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/gate/outcome"
)

// readOutcomes reads the outcomes input and sets the outcome of every trace it names,
// overriding the record's own (docs/design.md#outcomes); the ids that match no trace are kept for the report.
func (r *Result) readOutcomes(ctx context.Context, patterns []string, scorer string) error {
	if len(patterns) == 0 {
		return nil
	}
	files, err := input.Expand(patterns)
	if err != nil {
		return fmt.Errorf("outcomes: %w", err)
	}
	set, err := outcome.Read(ctx, files, scorer)
	if err != nil {
		return err
	}
	if r.Reliability == nil {
		return &UsageError{"outcomes were given without traces: outcomes are matched to traces by id, give the traces too"}
	}
	for i := range r.Reliability.Traces {
		t := &r.Reliability.Traces[i]
		o, ok := set.Take(t.ID)
		if !ok && t.Attempt != nil && t.Attempt.OTLP != nil && t.Attempt.OTLP.SpanID != "" {
			o, ok = set.Take(t.Attempt.OTLP.SpanID) // a Phoenix span annotation names the run's root span
		}
		if !ok && t.Attempt != nil && t.Task != "" {
			o, ok = set.Take(t.Task) // a SWE-bench report names the instance, the run's task (docs/design.md#run-identity)
		}
		if ok {
			t.Run.Set(o)
		}
	}
	r.unmatchedOutcomes = set.Unmatched()
	r.untraced, r.untracedResolved = set.Untraced()
	r.Notes = append(r.Notes, set.Notes()...)
	r.outcomesGiven = true
	return nil
}

// summarizeOutcomes decides every run's success at threshold and computes the outcomes
// section; without any outcome (and no outcomes input) there is none.
func (r *Result) summarizeOutcomes(threshold float64) {
	if r.Reliability == nil {
		r.Outcomes = nil
		return
	}
	known := false
	for i := range r.Reliability.Traces {
		run := &r.Reliability.Traces[i].Run
		run.Decide(threshold)
		known = known || run.Known
	}
	if !known && !r.outcomesGiven {
		r.Outcomes = nil
		return
	}
	r.Outcomes = outcome.Summarize(r.Reliability.Traces, threshold, r.unmatchedOutcomes)
	r.Outcomes.AddUntraced(r.untraced, r.untracedResolved)
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
