package outcome

import (
	"math"

	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/trace"
	"github.com/agentgate/agentgate/gate/verdict"
)

// DefaultThreshold is success-threshold's default: tau-bench's is_successful, reward ≥ 1 − 1e-6.
const DefaultThreshold = 1 - 1e-6

// Run is a trace's outcome and cost, as its record (reliability.Result.Run) holds it.
type Run = trace.Run

// RunOf is the Run of outcome o of a trace that used u, its success not yet decided.
func RunOf(o trace.Outcome, u trace.Usage) Run { return trace.RunOf(o, u) }

// Summary is the outcomes section of the report (docs/design.md#outcomes).
type Summary struct {
	Runs           int `json:"runs"`            // traces
	Known          int `json:"known"`           // traces with an outcome
	Successes      int `json:"successes"`       // of Known
	Failures       int `json:"failures"`        // Known − Successes
	WithoutOutcome int `json:"without_outcome"` // Runs − Known
	// SuccessRate is Successes/Known, with its Wilson 95% interval; 0 and [0, 1] when no run
	// has an outcome.
	SuccessRate float64    `json:"success_rate"`
	Interval    [2]float64 `json:"interval"`
	Threshold   float64    `json:"threshold"`
	// TokensPerSuccess is the tokens of every run with an outcome over the successes: what one
	// success costs. Nil when there is no success or a run with an outcome recorded no usage.
	TokensPerSuccess *float64 `json:"tokens_per_success"`
	// Unexplained counts the failed runs that no reliability signal flags ("no signal").
	Unexplained int `json:"unexplained"`
	// Calibration says, for each reliability signal, which runs it flags.
	Calibration []Calibration `json:"calibration"`
	// UnmatchedIDs are the ids of the outcomes input that match no trace, sorted.
	Unmatched    int      `json:"unmatched"`
	UnmatchedIDs []string `json:"unmatched_ids"`
	// Untraced counts the instances a SWE-bench report of id lists names that no trace
	// matched (UntracedIDs, sorted; UntracedResolved those it says resolved): runs that left
	// no trace, which the harness counts. They are in Runs, Known, Successes and Failures as
	// the report counts them, so that the success rate is the harness's own, resolved over
	// every instance it names (docs/input-formats.md, "SWE-bench reports"); TokensPerSuccess,
	// Unexplained and Calibration are of the traces alone.
	Untraced         int      `json:"untraced,omitempty"`
	UntracedIDs      []string `json:"untraced_ids,omitempty"`
	UntracedResolved []string `json:"untraced_resolved,omitempty"`
}

// AddUntraced counts the runs that left no trace, ids (resolved: those that succeeded), in
// the success rate (Summary.Untraced). Where no trace has an outcome, none is counted: then
// the outcomes input matched nothing, and the rate stays unmeasured.
func (s *Summary) AddUntraced(ids, resolved []string) {
	if s.Known == 0 || len(ids) == 0 {
		return
	}
	s.Untraced, s.UntracedIDs, s.UntracedResolved = len(ids), ids, resolved
	s.Runs += len(ids)
	s.Known += len(ids)
	s.Successes += len(resolved)
	s.Failures = s.Known - s.Successes
	s.SuccessRate = float64(s.Successes) / float64(s.Known)
	lo, hi := Wilson(s.Successes, s.Known)
	s.Interval = [2]float64{lo, hi}
}

// TraceFailures are the failed runs that left a trace: Failures less the untraced ones.
func (s *Summary) TraceFailures() int {
	return s.Failures - (s.Untraced - len(s.UntracedResolved))
}

// Calibration is one reliability signal held against the outcomes: the failed and the
// successful runs it flags, and its precision, the share of failed runs among those it flags
// (nil when it flags none).
type Calibration struct {
	Signal           string   `json:"signal"`
	FlaggedFailed    int      `json:"flagged_failed"`
	FlaggedSucceeded int      `json:"flagged_succeeded"`
	Precision        *float64 `json:"precision"`
}

// The calibration table's rows after the signals': the runs whose verdict is not PASS, and
// those whose verdict is FAIL.
const (
	RowNotPass = "verdict WARN or FAIL"
	RowFail    = "verdict FAIL"
)

// Signals are the calibration table's rows: the reliability signals (the rows of
// reliability.SignalTable, in its order; a signal flags a run when its score is above zero),
// then RowNotPass and RowFail.
var Signals = func() (rows [reliability.NumSignals + 2]string) {
	for i := range reliability.SignalTable {
		rows[i] = reliability.SignalTable[i].Name
	}
	rows[reliability.NumSignals], rows[reliability.NumSignals+1] = RowNotPass, RowFail
	return rows
}()

// Flags reports which of Signals flag the trace r.
func Flags(r *reliability.Result) (f [len(Signals)]bool) {
	for i, v := range r.Signals {
		f[i] = v > 0
	}
	f[reliability.NumSignals], f[reliability.NumSignals+1] = r.Verdict != verdict.Pass, r.Verdict == verdict.Fail
	return f
}

// Explained reports whether any reliability finding explains r: a signal above zero or any
// evidence.
func Explained(r *reliability.Result) bool {
	for _, v := range r.Signals {
		if v > 0 {
			return true
		}
	}
	return len(r.Evidence) > 0
}

// Summarize computes the outcomes section from the traces, each with its outcome, and the
// ids of the outcomes input no trace matched.
func Summarize(traces []reliability.Result, threshold float64, unmatched []string) *Summary {
	s := &Summary{Runs: len(traces), Threshold: threshold, Unmatched: len(unmatched), UnmatchedIDs: unmatched}
	if s.UnmatchedIDs == nil {
		s.UnmatchedIDs = []string{}
	}
	var counts [len(Signals)][2]int // [signal][failed, succeeded]
	var tokens float64
	tokensKnown := true
	for i := range traces {
		r := traces[i].Run
		if !r.Known {
			continue
		}
		s.Known++
		col := 0
		if r.Success {
			s.Successes++
			col = 1
		} else if !Explained(&traces[i]) {
			s.Unexplained++
		}
		for j, f := range Flags(&traces[i]) {
			if f {
				counts[j][col]++
			}
		}
		if r.Tokens < 0 {
			tokensKnown = false
		} else {
			tokens += float64(r.Tokens)
		}
	}
	s.Failures = s.Known - s.Successes
	s.WithoutOutcome = s.Runs - s.Known
	s.Interval = [2]float64{0, 1}
	if s.Known > 0 {
		s.SuccessRate = float64(s.Successes) / float64(s.Known)
		lo, hi := Wilson(s.Successes, s.Known)
		s.Interval = [2]float64{lo, hi}
	}
	if tokensKnown && s.Successes > 0 {
		t := tokens / float64(s.Successes)
		s.TokensPerSuccess = &t
	}
	s.Calibration = make([]Calibration, len(Signals))
	for j, name := range Signals {
		c := Calibration{Signal: name, FlaggedFailed: counts[j][0], FlaggedSucceeded: counts[j][1]}
		if n := c.FlaggedFailed + c.FlaggedSucceeded; n > 0 {
			p := float64(c.FlaggedFailed) / float64(n)
			c.Precision = &p
		}
		s.Calibration[j] = c
	}
	return s
}

// z975 is the standard normal's 0.975 quantile, scipy.stats.norm.isf(0.025).
const z975 = 1.959963984540054

// Wilson returns the Wilson score 95% interval of s successes in n trials (n > 0), as
// statsmodels' proportion_confint(s, n, method="wilson") computes it.
func Wilson(s, n int) (lo, hi float64) {
	p := float64(s) / float64(n)
	nf := float64(n)
	z2 := z975 * z975
	denom := 1 + z2/nf
	center := (p + z2/(2*nf)) / denom
	dist := z975 * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf)) / denom
	return max(center-dist, 0), min(center+dist, 1)
}

// JSON is a trace's "outcome" in the JSON report.
type JSON = trace.OutcomeJSON

// RunOfJSON is the Run a report's "outcome" (nil: none) and the trace's tokens stand for.
func RunOfJSON(j *JSON) Run { return trace.RunOfJSON(j) }

// Trace is a trace of the JSON report: its reliability result and its outcome.
type Trace struct {
	reliability.Result
	Outcome *JSON `json:"outcome,omitempty"`
}
