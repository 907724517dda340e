// Package gate holds the evaluators' results against the thresholds of docs/design.md#gates-and-exit-codes and decides
// the overall verdict and exit code. It does no I/O of its own beyond reading the input files
// through the evaluators' readers, and knows nothing of GitHub.
package gate

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/gate/agreement"
	"github.com/agentgate/agentgate/gate/coherence"
	"github.com/agentgate/agentgate/gate/compare"
	"github.com/agentgate/agentgate/gate/outcome"
	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/verdict"
)

// Exit codes of docs/design.md#gates-and-exit-codes.
const (
	ExitPass  = 0 // PASS, or WARN while fail-on is "fail"
	ExitWarn  = 1 // WARN while fail-on is "warn"
	ExitFail  = 2 // a gate was breached
	ExitError = 3 // the run could not be evaluated
)

// Gate names, as flags (--NAME), action inputs and config keys.
const (
	CoherenceMin    = "coherence-min"
	PAMin           = "pa-min"
	KappaMin        = "kappa-min"
	AbstainMax      = "abstain-max"
	MaxFailedTraces = "max-failed-traces"
	// SuccessRateMin gates the suite's own success rate (docs/design.md#outcomes); SuccessThreshold is the
	// reward at or above which a run succeeded.
	SuccessRateMin   = "success-rate-min"
	SuccessThreshold = "success-threshold"
)

// Thresholds are the gate values of docs/design.md#gates-and-exit-codes, and those of the comparison and of repeated
// trials (docs/design.md#comparison, docs/design.md#repeated-trials).
type Thresholds struct {
	CoherenceMin    float64
	PAMin           float64
	KappaMin        float64
	AbstainMax      float64
	MaxFailedTraces int
	// SuccessThreshold is success-threshold: a numeric outcome at or above it succeeded
	// (default outcome.DefaultThreshold). SuccessRateMin is success-rate-min; NaN means unset,
	// not gated (the default).
	SuccessThreshold float64
	SuccessRateMin   float64
	// Compare holds fail-on-regression and max-new-failures, which apply when a baseline was
	// asked for, and pass-k-min with pass-k.
	Compare compare.GateOptions
	// FailOnSkipped says which skipped gates breach (docs/design.md#honest-words, docs/design.md#defaults), so a check that measured
	// nothing fails closed: "" is SkipExplicit.
	FailOnSkipped SkipPolicy
	// Given names the gate settings the user gave (a flag, an input or a config key), whose
	// rows SkipExplicit breaches when skipped. The gates that are rows only when set
	// (success-rate-min, max-new-failures, pass-k-min) count as given without being named.
	Given []string
}

// FailOnSkipped is the setting that makes a skipped gate a breach, as a flag, input and
// config key.
const FailOnSkipped = "fail-on-skipped"

// SkipPolicy is fail-on-skipped: which gates that were skipped (measured nothing) breach.
type SkipPolicy string

const (
	// SkipExplicit (the default) breaches a skipped gate whose threshold the user set; a gate
	// on by default that skips (fail-on-regression without a usable baseline, kappa-min with
	// κ undefined) stays a note.
	SkipExplicit SkipPolicy = "explicit"
	SkipAll      SkipPolicy = "true"  // every skipped gate breaches
	SkipNone     SkipPolicy = "false" // no skipped gate breaches
)

// ParseSkipPolicy reads fail-on-skipped: "explicit", or true or false as every bool setting
// is written (true/yes/on/1, false/no/off/0); "" is SkipExplicit.
func ParseSkipPolicy(s string) (SkipPolicy, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", string(SkipExplicit):
		return SkipExplicit, nil
	case "true", "yes", "on", "1":
		return SkipAll, nil
	case "false", "no", "off", "0":
		return SkipNone, nil
	}
	return "", fmt.Errorf("unknown %s %q: want \"explicit\", \"true\" or \"false\"", FailOnSkipped, s)
}

// setOnly are the gates that are rows only when their setting is given: a skipped one was
// always asked for.
var setOnly = []string{SuccessRateMin, compare.MaxNewFailures, compare.PassKMin}

// breachesSkipped reports whether t makes gate name breach when it is skipped.
func (t Thresholds) breachesSkipped(name string) bool {
	switch t.FailOnSkipped {
	case SkipAll:
		return true
	case SkipNone:
		return false
	}
	return slices.Contains(setOnly, name) || slices.Contains(t.Given, name)
}

// TokenBudget is the setting of the tokens a run may spend before its cost signal reads 1
// (Options.TokenBudget), as a flag, input and config key.
const TokenBudget = "token-budget"

// CheckTokenBudget rejects a token budget below 1, and any but RS-1's under the reference
// profile, which reproduces RS-1 exactly.
func CheckTokenBudget(budget int64, p profile.Profile) error {
	if budget < 1 {
		return &SettingError{Name: TokenBudget, Msg: fmt.Sprintf("must be 1 or more, got %d", budget)}
	}
	if p == profile.Reference && budget != reliability.DefaultTokenBudget {
		return fmt.Errorf("%s %d cannot be used with profile %q, which reproduces RS-1 and its budget of %d tokens: use profile %q, or leave %s unset", TokenBudget, budget, p, reliability.DefaultTokenBudget, profile.Default, TokenBudget)
	}
	return nil
}

// recordedBudget is a run's token budget as its report records it: 0, left out of the JSON,
// for reliability.DefaultTokenBudget, so that a report at the default reads as before.
func recordedBudget(budget int64) int64 {
	if budget == reliability.DefaultTokenBudget {
		return 0
	}
	return budget
}

// DefaultThresholds returns the defaults of docs/design.md#gates-and-exit-codes, docs/design.md#comparison and docs/design.md#repeated-trials.
func DefaultThresholds() Thresholds {
	return Thresholds{CoherenceMin: 0.50, PAMin: 0.90, KappaMin: 0.75, AbstainMax: 0.02, MaxFailedTraces: 0,
		SuccessThreshold: outcome.DefaultThreshold, SuccessRateMin: math.NaN(),
		Compare: compare.DefaultGateOptions(), FailOnSkipped: SkipExplicit}
}

// Validate rejects thresholds that cannot mean anything.
func (t Thresholds) Validate() error {
	for _, c := range []struct {
		name string
		v    float64
	}{{CoherenceMin, t.CoherenceMin}, {PAMin, t.PAMin}, {AbstainMax, t.AbstainMax}} {
		if math.IsNaN(c.v) || c.v < 0 || c.v > 1 {
			return &SettingError{Name: c.name, Msg: fmt.Sprintf("must be between 0 and 1, got %v", c.v)}
		}
	}
	if math.IsNaN(t.KappaMin) || t.KappaMin < -1 || t.KappaMin > 1 {
		return &SettingError{Name: KappaMin, Msg: fmt.Sprintf("must be between -1 and 1, got %v", t.KappaMin)}
	}
	if math.IsNaN(t.SuccessThreshold) || math.IsInf(t.SuccessThreshold, 0) {
		return &SettingError{Name: SuccessThreshold, Msg: fmt.Sprintf("must be a number, got %v", t.SuccessThreshold)}
	}
	if !math.IsNaN(t.SuccessRateMin) && (t.SuccessRateMin < 0 || t.SuccessRateMin > 1) {
		return &SettingError{Name: SuccessRateMin, Msg: fmt.Sprintf("must be between 0 and 1, got %v", t.SuccessRateMin)}
	}
	if t.MaxFailedTraces < 0 {
		return &SettingError{Name: MaxFailedTraces, Msg: fmt.Sprintf("must be 0 or more, got %d", t.MaxFailedTraces)}
	}
	return t.Compare.Validate()
}

// FailOn says which verdict fails the step.
type FailOn string

const (
	FailOnFail FailOn = "fail" // only FAIL fails the step (the default)
	FailOnWarn FailOn = "warn" // WARN fails it too, with exit code 1
	// FailOnNever reports only (docs/design.md#defaults): the verdict is decided and reported as ever, and
	// the exit code is 0 whatever it is. A run that could not be evaluated still exits 3.
	FailOnNever FailOn = "never"
)

// ParseFailOn parses the fail-on flag or input; "" means "fail".
func ParseFailOn(s string) (FailOn, error) {
	switch s {
	case "", string(FailOnFail):
		return FailOnFail, nil
	case string(FailOnWarn), string(FailOnNever):
		return FailOn(s), nil
	}
	return "", fmt.Errorf("unknown fail-on %q: want \"fail\", \"warn\" or \"never\"", s)
}

// GateResult is one row of the gate table. It is compare.Check, declared there because the
// comparison's gates (fail-on-regression, max-new-failures, pass-k-min) make rows too, and
// compare may not import gate.
type GateResult = compare.Check

// SettingError is a setting whose value cannot mean anything, naming the setting in a field
// (compare.SettingError, declared there because compare's settings are checked there too).
type SettingError = compare.SettingError

// Source says which run a report came from (docs/design.md#comparison), so a comparison can name its baseline:
// the commit, ref and run under GitHub Actions (empty strings elsewhere) and the binary's
// version, and the patterns it read. It holds no wall-clock time: equal inputs give
// byte-identical reports.
type Source struct {
	compare.Source
	// Inputs are the patterns the run was given (docs/design.md#shards): a merge of shard reports joins
	// them, to say how to reproduce the whole run. Nil when unknown.
	Inputs *Inputs `json:"inputs,omitempty"`
}

// Result is the whole report: the document `gate --json` writes (docs/design.md#one-binary). A section is nil
// when its evaluator did not run.
type Result struct {
	// Schema is jsonreport.Schema in a written report; the writer fills it in.
	Schema  int             `json:"schema"`
	Verdict verdict.Verdict `json:"verdict"`
	Profile profile.Profile `json:"profile"`
	// TokenBudget is the token budget of the cost signal (Options.TokenBudget) when it is not
	// reliability.DefaultTokenBudget; 0, and not written, at the default.
	TokenBudget int64                `json:"token_budget,omitempty"`
	ExitCode    int                  `json:"exit_code"`
	Source      Source               `json:"source"`
	Gates       []GateResult         `json:"gates"`
	Reliability *reliability.Summary `json:"reliability,omitempty"`
	Coherence   *coherence.Summary   `json:"coherence,omitempty"`
	Agreement   *agreement.Summary   `json:"agreement,omitempty"`
	// PassK is pass^k of the traces that name their task and trial (docs/design.md#repeated-trials); nil when none
	// does.
	PassK *compare.PassK `json:"pass_k,omitempty"`
	// Outcomes summarises the runs' own outcomes (docs/design.md#outcomes); nil when no trace has one and no
	// outcomes input was given.
	Outcomes *outcome.Summary `json:"outcomes,omitempty"`
	// IdentityNote says, once, that some runs shared an identity and were given the next
	// free trial numbers (docs/design.md#run-identity); empty otherwise.
	IdentityNote string `json:"identity_note,omitempty"`
	// the outcomes input's ids that no trace has, and whether it was given at all; of them,
	// the instances a SWE-bench report names (untraced), and those it says resolved
	unmatchedOutcomes          []string
	outcomesGiven              bool
	untraced, untracedResolved []string
	// History is the trend this report carries (docs/design.md#planning-and-trend): its baseline's history, when it
	// was compared with one, and this run as the last point; at most compare.MaxHistory
	// points, oldest first.
	History []compare.Point `json:"history"`
	// inherited is the history a merge of shards takes from the shards when it has no
	// baseline of its own: theirs, less their own points.
	inherited []compare.Point
	// Comparison is this run held against its baseline (docs/design.md#comparison); nil without one.
	Comparison *compare.Comparison `json:"comparison,omitempty"`
	// Notes say, one line each, what reading the traces found worth knowing (docs/design.md#harness-folders): the
	// side files skipped under a folder, traces with no assistant message, no tool call at
	// all, an Inspect score read as no outcome.
	Notes []string `json:"notes,omitempty"`
	// BaselineNote says, in one line, why a baseline that was asked for was not compared
	// with (none found, unreadable, another schema or profile); empty otherwise.
	BaselineNote string `json:"baseline_note,omitempty"`
	// BaselineChosen says which commit `baseline: auto` compared with, and how it was chosen;
	// nil without a comparison, or for a baseline given by path.
	BaselineChosen *BaselineChosen `json:"baseline_chosen,omitempty"`
}

// Decide fills in the gate table, the overall verdict and the exit code from the sections
// already in r. Overall: FAIL if a gate is breached; else WARN if any trace is WARN or FAIL;
// else PASS.
func (r *Result) Decide(t Thresholds, failOn FailOn) {
	r.Gates = r.Gates[:0]
	if s := r.Coherence; s != nil {
		r.Gates = append(r.Gates, GateResult{Name: CoherenceMin, Value: s.Mean, Op: ">=", Threshold: t.CoherenceMin, Passed: s.Mean >= t.CoherenceMin})
	}
	if s := r.Agreement; s != nil {
		r.Gates = append(r.Gates, GateResult{Name: PAMin, Value: s.PercentAgreement, Op: ">=", Threshold: t.PAMin, Passed: s.PercentAgreement >= t.PAMin})
		k := GateResult{Name: KappaMin, Value: s.Kappa, Op: ">=", Threshold: t.KappaMin, Passed: s.Kappa >= t.KappaMin}
		if !s.KappaDefined {
			k.Passed, k.Skipped = true, true
			k.Note = "κ is undefined: both validators gave every item the same single label, so chance agreement is 1; the percent-agreement gate still applies"
			if s.N == 0 {
				k.Note = "κ is undefined: the validators share no qid, so no item was labelled by both; the percent-agreement gate still applies"
			}
		}
		r.Gates = append(r.Gates, k)
		r.Gates = append(r.Gates, GateResult{Name: AbstainMax, Value: s.AbstainRate, Op: "<=", Threshold: t.AbstainMax, Passed: s.AbstainRate <= t.AbstainMax})
	}
	if s := r.Reliability; s != nil {
		r.Gates = append(r.Gates, GateResult{Name: MaxFailedTraces, Value: float64(s.Fail), Op: "<=", Threshold: float64(t.MaxFailedTraces), Passed: s.Fail <= t.MaxFailedTraces})
		r.Gates = append(r.Gates, successGate(r.Outcomes, t.SuccessRateMin)...)
	}
	// fail-on-regression, on by default, applies only when a baseline was asked for (docs/design.md#comparison):
	// then an unusable one skips it with its note. max-new-failures and pass-k-min apply
	// whenever they are set: set without a baseline, max-new-failures is skipped ("no
	// baseline was compared"), which fail-on-skipped turns into a breach (docs/design.md#honest-words).
	co := t.Compare
	if r.Comparison == nil && r.BaselineNote == "" {
		co.FailOnRegression = false
	}
	r.Gates = append(r.Gates, compare.Gates(r.Comparison, r.BaselineNote, r.PassK, co)...)
	failSkipped(r.Gates, t)

	r.Verdict = verdict.Pass
	if s := r.Reliability; s != nil && s.Warn+s.Fail > 0 {
		r.Verdict = verdict.Warn
	}
	for _, g := range r.Gates {
		if !g.Passed {
			r.Verdict = verdict.Fail
		}
	}
	r.ExitCode = ExitCode(r.Verdict, failOn)
}

// failSkipped marks breached every skipped gate that fail-on-skipped breaches. The row stays
// Skipped, with its note of why, so a report can say it breached because it measured nothing.
func failSkipped(gates []GateResult, t Thresholds) {
	for i := range gates {
		if gates[i].Skipped && t.breachesSkipped(gates[i].Name) {
			gates[i].Passed = false
		}
	}
}

// ExitCode maps an overall verdict to the process exit code of docs/design.md#gates-and-exit-codes: ExitPass for any
// verdict under FailOnNever.
func ExitCode(v verdict.Verdict, failOn FailOn) int {
	if failOn == FailOnNever {
		return ExitPass
	}
	switch v {
	case verdict.Fail:
		return ExitFail
	case verdict.Warn:
		if failOn == FailOnWarn {
			return ExitWarn
		}
	}
	return ExitPass
}

// Breached returns the gates that did not hold, in table order.
func (r *Result) Breached() []GateResult {
	var out []GateResult
	for _, g := range r.Gates {
		if !g.Passed {
			out = append(out, g)
		}
	}
	return out
}
