package compare

import (
	"fmt"
	"math"
	"strings"
)

// Gate names of the comparison and of repeated trials, as flags (--NAME), action inputs and
// config keys.
const (
	FailOnRegression = "fail-on-regression"
	MaxNewFailures   = "max-new-failures"
	PassKMin         = "pass-k-min"
)

// Check is one row of the gate table, of the comparison's gates here and of all gates as
// gate.GateResult, which is this type (declared here because gate imports this package).
type Check struct {
	Name      string  `json:"name"`
	Value     float64 `json:"value"`
	Op        string  `json:"op"`
	Threshold float64 `json:"threshold"`
	Passed    bool    `json:"passed"`
	Skipped   bool    `json:"skipped"`
	Note      string  `json:"note"`
	// K is the k of a pass-k-min row (0 on every other row), so a report can name pass^k
	// without reading it back out of Note.
	K int `json:"k,omitempty"`
}

// SettingError is a setting whose value cannot mean anything: Name is the setting as a flag,
// input and config key ("pa-min"), Msg what is wrong with its value ("must be between 0 and
// 1, got 1.5"). A caller that knows where the value was given (a flag, an input, a config
// file's line) reads Name through errors.As to say so. gate.SettingError is this type.
type SettingError struct {
	Name string
	Msg  string
}

func (e *SettingError) Error() string { return e.Name + " " + e.Msg }

// noBaseline is the note of a comparison gate without a comparison, when the caller gives
// none.
const noBaseline = "no baseline was compared"

// RegressionGate is fail-on-regression: breached when a metric is degraded. Value is the
// number of degraded metrics, which must be ≤ 0; the note names them. Without a comparison
// (c nil) it is skipped with why, the reason there is none (e.g. the *Unusable's reason); a
// comparison that matched no unit in any metric skips it too, saying so: it measured nothing,
// which fail-on-skipped turns into a breach (docs/design.md#honest-words).
func RegressionGate(c *Comparison, why string) Check {
	g := Check{Name: FailOnRegression, Op: "<=", Threshold: 0, Passed: true}
	if c == nil {
		return skipped(g, why)
	}
	if note := c.nothingMatched(); note != "" {
		return skipped(g, note)
	}
	deg := c.Degraded()
	g.Value = float64(len(deg))
	g.Passed = len(deg) == 0
	if !g.Passed {
		g.Note = "degraded: " + strings.Join(deg, ", ")
	}
	return g
}

// NewFailuresGate is max-new-failures: breached when more than max matched traces are FAIL
// in head and not in the baseline. The caller adds it only when max-new-failures is set.
// Without a comparison, without reliability on both sides, or when no trace matched, it is
// skipped with a note.
func NewFailuresGate(c *Comparison, max int, why string) Check {
	g := Check{Name: MaxNewFailures, Op: "<=", Threshold: float64(max), Passed: true}
	switch {
	case c == nil:
		return skipped(g, why)
	case c.Reliability == nil:
		return skipped(g, "reliability was not compared")
	case c.Reliability.Compared == 0:
		return skipped(g, noMatch([]string{"trace"}))
	}
	g.Value = float64(c.Reliability.NewFailures)
	g.Passed = c.Reliability.NewFailures <= max
	return g
}

// PassKGate is pass-k-min with pass-k: breached when the suite's pass^k is below min. The
// caller adds it only when pass-k-min is set. Without trials, or when no task has k trials,
// it is skipped with a note.
func PassKGate(p *PassK, k int, min float64) Check {
	g := Check{Name: PassKMin, Op: ">=", Threshold: min, Passed: true}
	if p == nil {
		return skipped(g, "no trace carries a trial index")
	}
	v, tasks, ok := p.At(k)
	if !ok {
		most := p.MinTrials // PerTask is not kept in a JSON report
		for _, tt := range p.PerTask {
			most = max(most, tt.Trials)
		}
		return skipped(g, fmt.Sprintf("no task has %d trials; the most is %d", k, most))
	}
	g.Value, g.K = v, k
	g.Passed = v >= min
	g.Note = fmt.Sprintf("pass^%d over %d tasks", k, tasks)
	if why := p.VerdictNote(); why != "" {
		g.Note += ", " + why
	}
	return g
}

// nothingMatched returns, when the comparison compared nothing (no metric compared, or none
// with a matched unit), the note that says so; "" when some metric matched a unit.
func (c *Comparison) nothingMatched() string {
	var units []string
	for _, m := range c.tests() {
		if m.t.Compared > 0 {
			return ""
		}
		switch m.name {
		case MetricReliability:
			units = append(units, "trace")
		case MetricCoherence:
			units = append(units, "task")
		case MetricAgreement:
			units = append(units, "qid")
		} // success's runs are traces, named with reliability's
	}
	if len(units) == 0 {
		return "no evaluator ran in both this run and the baseline, so nothing was compared"
	}
	return noMatch(units)
}

// noMatch says that no unit of the kinds named matched: "no trace or task of this run matches
// the baseline's ids, so nothing was compared".
func noMatch(units []string) string {
	what := units[0]
	if n := len(units); n > 1 {
		what = strings.Join(units[:n-1], ", ") + " or " + units[n-1]
	}
	return "no " + what + " of this run matches the baseline's ids, so nothing was compared"
}

// skipped marks g skipped (and so passed) with note, or noBaseline when note is empty.
func skipped(g Check, note string) Check {
	if note == "" {
		note = noBaseline
	}
	g.Passed, g.Skipped, g.Note = true, true, note
	return g
}

// GateOptions are the comparison and trial gates' settings (docs/design.md#comparison, docs/design.md#repeated-trials).
type GateOptions struct {
	// FailOnRegression enables fail-on-regression (default true).
	FailOnRegression bool
	// MaxNewFailures is max-new-failures; negative means unset, not gated (the default).
	MaxNewFailures int
	// PassKMin is pass-k-min; NaN means unset, not gated (the default).
	PassKMin float64
	// PassK is pass-k, the k of pass-k-min (default 1).
	PassK int
}

// DefaultGateOptions returns the defaults: fail-on-regression on, the others unset, k = 1.
func DefaultGateOptions() GateOptions {
	return GateOptions{FailOnRegression: true, MaxNewFailures: -1, PassKMin: math.NaN(), PassK: 1}
}

// Validate rejects settings that cannot mean anything; the message names the setting.
func (o GateOptions) Validate() error {
	if o.PassK < 1 {
		return &SettingError{Name: "pass-k", Msg: fmt.Sprintf("must be 1 or more, got %d", o.PassK)}
	}
	if !math.IsNaN(o.PassKMin) && (o.PassKMin < 0 || o.PassKMin > 1) {
		return &SettingError{Name: PassKMin, Msg: fmt.Sprintf("must be between 0 and 1, got %v", o.PassKMin)}
	}
	return nil
}

// Gates returns the gate rows o asks for, in the order fail-on-regression, max-new-failures,
// pass-k-min. c is the comparison (nil when no baseline was usable; why then says why) and
// head the head's pass^k (nil without trials). docs/design.md#comparison: the comparison gates only apply
// when a baseline was given, so a caller without a baseline input passes no comparison
// and an empty why, and these rows read "no baseline was compared".
func Gates(c *Comparison, why string, head *PassK, o GateOptions) []Check {
	var out []Check
	if o.FailOnRegression {
		out = append(out, RegressionGate(c, why))
	}
	if o.MaxNewFailures >= 0 {
		out = append(out, NewFailuresGate(c, o.MaxNewFailures, why))
	}
	if !math.IsNaN(o.PassKMin) {
		out = append(out, PassKGate(head, o.PassK, o.PassKMin))
	}
	return out
}
