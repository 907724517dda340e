package outcome

import (
	"math"
	"testing"

	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/trace"
	"github.com/agentgate/agentgate/gate/verdict"
)

// TestWilson holds Wilson against statsmodels 0.13.5's
// proportion_confint(s, n, method="wilson"), computed once.
func TestWilson(t *testing.T) {
	for _, c := range []struct {
		s, n   int
		lo, hi float64
	}{
		{0, 10, 0.0, 0.27753279986288926},
		{10, 10, 0.7224672001371106, 1.0},
		{7, 10, 0.39677814746114537, 0.8922087325936989},
		{1, 1, 0.2065493143772374, 1.0},
		{0, 1, 0.0, 0.7934506856227627},
		{45, 100, 0.35614537979511973, 0.5475539700255787},
		{3, 684, 0.0014927212333669358, 0.01281502177120178},
		{500, 1000, 0.4690696003681042, 0.5309303996318958},
		{12345, 20000, 0.6104917957360657, 0.6239631718087776},
	} {
		lo, hi := Wilson(c.s, c.n)
		if math.Abs(lo-c.lo) > 1e-12 || math.Abs(hi-c.hi) > 1e-12 {
			t.Errorf("Wilson(%d, %d) = [%v, %v], want [%v, %v]", c.s, c.n, lo, hi, c.lo, c.hi)
		}
	}
}

func TestSummarize(t *testing.T) {
	tr := func(id string, v verdict.Verdict, s reliability.Signals) reliability.Result {
		return reliability.Result{ID: id, Verdict: v, Signals: s}
	}
	traces := []reliability.Result{
		tr("a", verdict.Fail, reliability.Signals{reliability.Loop: 1}),            // failed, flagged by loop
		tr("b", verdict.Pass, reliability.Signals{}),                               // failed, no signal
		tr("c", verdict.Warn, reliability.Signals{reliability.ToolMisuse: 0.8}),    // succeeded, flagged
		tr("d", verdict.Pass, reliability.Signals{}),                               // succeeded
		tr("e", verdict.Fail, reliability.Signals{reliability.Hallucination: 0.9}), // no outcome
	}
	runs := []Run{
		{Known: true, Value: 0, Tokens: 100},
		{Known: true, Value: 0, Tokens: 300},
		{Known: true, Value: 1, Success: true, Tokens: 200},
		{Known: true, Value: 1, Success: true, Tokens: 400},
		{Tokens: 50},
	}
	for i := range traces {
		traces[i].Run = runs[i]
	}
	s := Summarize(traces, DefaultThreshold, []string{"z"})
	if s.Runs != 5 || s.Known != 4 || s.Successes != 2 || s.Failures != 2 || s.WithoutOutcome != 1 || s.Unexplained != 1 || s.Unmatched != 1 {
		t.Errorf("counts %+v", s)
	}
	lo, hi := Wilson(2, 4)
	if s.SuccessRate != 0.5 || s.Interval != [2]float64{lo, hi} {
		t.Errorf("rate %v %v", s.SuccessRate, s.Interval)
	}
	if s.TokensPerSuccess == nil || *s.TokensPerSuccess != 500 { // (100+300+200+400)/2
		t.Errorf("tokens per success %v", s.TokensPerSuccess)
	}
	want := []struct {
		failed, succeeded int
		precision         float64 // -1: none flagged
	}{{0, 0, -1}, {1, 0, 1}, {0, 1, 0}, {0, 0, -1}, {1, 1, 0.5}, {1, 0, 1}}
	for i, w := range want {
		c := s.Calibration[i]
		p := -1.0
		if c.Precision != nil {
			p = *c.Precision
		}
		if c.Signal != Signals[i] || c.FlaggedFailed != w.failed || c.FlaggedSucceeded != w.succeeded || p != w.precision {
			t.Errorf("row %d = %+v (precision %v), want %+v", i, c, p, w)
		}
	}
	traces[3].Run.Tokens = -1
	if s := Summarize(traces, DefaultThreshold, nil); s.TokensPerSuccess != nil {
		t.Error("tokens per success with a run of unknown usage")
	}
}

// TestRunDecide: a run read from a trace is decided at the threshold, a boolean as given; a
// run read from a report keeps the success it was written with, whatever the threshold, until
// an outcome replaces it.
func TestRunDecide(t *testing.T) {
	for _, c := range []struct {
		o         trace.Outcome
		threshold float64
		want      bool
	}{
		{trace.Outcome{Known: true, Value: 1}, DefaultThreshold, true},
		{trace.Outcome{Known: true, Value: 0.999999}, DefaultThreshold, true},
		{trace.Outcome{Known: true, Value: 0.99999}, DefaultThreshold, false},
		{trace.Outcome{Known: true, Value: 0.5}, 0.5, true},
		{trace.Outcome{Known: true, Value: 1, IsBool: true}, 2, true},
		{trace.Outcome{Known: true, Value: 0, IsBool: true}, -1, false},
		{trace.Outcome{}, 0, false},
	} {
		r := RunOf(c.o, trace.Usage{Total: 5, Recorded: true})
		r.Decide(c.threshold)
		if r.Success != c.want || r.Tokens != 5 {
			t.Errorf("%+v at %v: %+v, want success %v", c.o, c.threshold, r, c.want)
		}
	}
	r := RunOfJSON(&JSON{Value: 0.5, Success: true})
	r.Decide(DefaultThreshold)
	if !r.Success || r.Tokens != -1 {
		t.Errorf("a report's run decided again: %+v", r)
	}
	r.Set(trace.Outcome{Known: true, Value: 0.5})
	r.Decide(DefaultThreshold)
	if r.Success {
		t.Errorf("a replaced outcome not decided: %+v", r)
	}
}

// TestAddUntraced: the instances a SWE-bench report names that left no trace count in the
// success rate as the report counts them (2 of 5 here: 1 of 3 traces, and 1 of the 2
// untraced), the trace-only figures unchanged; where no trace has an outcome, nothing is
// counted, and the rate stays unmeasured.
func TestAddUntraced(t *testing.T) {
	run := func(known, success bool) reliability.Result {
		var r reliability.Result
		r.Run = Run{Known: known, Value: map[bool]float64{true: 1}[success], Success: success}
		return r
	}
	s := Summarize([]reliability.Result{run(true, true), run(true, false), run(true, false)}, DefaultThreshold, []string{"u1", "u2"})
	s.AddUntraced([]string{"u1", "u2"}, []string{"u2"})
	lo, hi := Wilson(2, 5)
	if s.Runs != 5 || s.Known != 5 || s.Successes != 2 || s.Failures != 3 || s.WithoutOutcome != 0 || s.SuccessRate != 0.4 ||
		s.Interval != [2]float64{lo, hi} || s.Untraced != 2 || s.TraceFailures() != 2 || s.Unmatched != 2 {
		t.Errorf("%+v", s)
	}
	none := Summarize([]reliability.Result{run(false, false)}, DefaultThreshold, []string{"u1"})
	none.AddUntraced([]string{"u1"}, nil)
	if none.Known != 0 || none.Runs != 1 || none.Untraced != 0 || none.UntracedIDs != nil {
		t.Errorf("no trace with an outcome: %+v", none)
	}
}
