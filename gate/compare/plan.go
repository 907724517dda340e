package compare

import (
	"fmt"
	"math"

	"github.com/agentgate/agentgate/gate/outcome"
	"github.com/agentgate/agentgate/gate/verdict"
)

// This file says how many matched runs a paired pass/fail comparison (the runs' own success,
// the verdicts) would need to detect a stated drop (docs/design.md#planning-and-trend): what a team deciding how many
// runs and trials to pay for asks after "is this change worse?".

// DefaultPlanEffect is plan-effect's default: a drop of 10 points of success rate.
const DefaultPlanEffect = 0.10

// MaxRunsNeeded bounds Plan.RunsNeeded: an effect small against its discordance asks for more
// runs than any suite has, and the figure is then only "more than this".
const MaxRunsNeeded = 1 << 30

// Plan is how many matched runs McNemar's test would need to detect a drop of Effect (the
// share of runs that pass in the baseline and fail in head, less the share the other way
// round) with Power, at the Holm threshold the metric faced and the discordance the two runs
// showed (docs/design.md#planning-and-trend).
type Plan struct {
	// Effect is the drop to detect, as a share of runs (plan-effect: 0.1 is 10 points).
	Effect float64 `json:"effect"`
	// RunsNeeded is the fewest matched runs with which McNemar's test detects Effect with
	// Power, by Connor's formula (see McNemarRunsNeeded); at most MaxRunsNeeded.
	RunsNeeded int `json:"runs_needed"`
	// Power is the power RunsNeeded is solved for: TargetPower.
	Power float64 `json:"power"`
	// Matched is the runs matched in this comparison, and PowerNow the power its test had to
	// detect Effect with them (McNemarPower at Matched).
	Matched  int     `json:"matched"`
	PowerNow float64 `json:"power_now"`
	// Discordance is the share of matched runs whose result differed ((new failures + fixed)/
	// matched); Assumed is the discordance the figures are solved at: Discordance, or Effect
	// when Discordance is smaller (a drop of Effect takes at least that share of runs to
	// change), and never more than 1.
	Discordance float64 `json:"discordance"`
	Assumed     float64 `json:"assumed_discordance"`
	// Threshold is the two-sided significance level: the Holm threshold the metric faced.
	Threshold float64 `json:"threshold"`
}

// ValidEffect rejects a plan effect that cannot be a drop in a share of runs.
func ValidEffect(effect float64) error {
	if math.IsNaN(effect) || effect <= 0 || effect >= 1 {
		return fmt.Errorf("plan-effect must be between 0 and 1 (exclusive), a drop in the share of runs that succeed (0.1 is 10 points), got %v", effect)
	}
	return nil
}

// PlanMcNemar returns the plan for a comparison of matched runs of which discordant differed,
// to detect effect at the two-sided threshold, with TargetPower. effect must pass ValidEffect
// and 0 < threshold < 1; discordant is at most matched.
//
// The discordance is floored at the effect: a drop of δ in the share of successes moves at
// least a share δ of the runs, so no discordance below δ goes with it. With no discordance at
// all (every run agreed), the figures are those of the least discordant change that is a drop
// of δ: every discordant run a new failure.
func PlanMcNemar(matched, discordant int, effect, threshold float64) *Plan {
	var d float64
	if matched > 0 {
		d = float64(discordant) / float64(matched)
	}
	return planAt(matched, d, effect, threshold)
}

// planAt is PlanMcNemar at the discordance d, a share of runs.
func planAt(matched int, d, effect, threshold float64) *Plan {
	p := &Plan{Effect: effect, Power: TargetPower, Matched: matched, Threshold: threshold, Discordance: d}
	p.Assumed = min(1, max(p.Discordance, effect))
	n := McNemarRunsNeeded(p.Assumed, effect, threshold, TargetPower)
	p.RunsNeeded = MaxRunsNeeded
	if n < MaxRunsNeeded {
		p.RunsNeeded = int(math.Ceil(n))
	}
	p.PowerNow = McNemarPower(float64(matched), p.Assumed, effect, threshold)
	return p
}

// McNemarRunsNeeded returns the number of matched pairs with which McNemar's test at two-sided
// level alpha detects a difference δ = p₁₀ − p₀₁ between the discordant proportions with the
// given power, when the discordant proportions sum to ψ = p₁₀ + p₀₁ (0 < δ ≤ ψ ≤ 1):
//
//	n = (z(1 − α/2)·√ψ + z(power)·√(ψ − δ²))² / δ²
//
// the formula of Connor, R. J. (1987), "Sample size for testing differences in proportions for
// the paired-sample design", Biometrics 43(1):207–211; see also Lachin, J. M. (1992), "Power
// and sample size evaluation for the McNemar test with application to matched case-control
// studies", Statistics in Medicine 11:1239–1251. It is not rounded: round up for a number of runs. plan_test.go holds it to an
// independent implementation and, through the exact test's power, to what it claims.
func McNemarRunsNeeded(psi, delta, alpha, power float64) float64 {
	za, zb := normUpper(alpha/2), normUpper(1-power)
	r := za*math.Sqrt(psi) + zb*math.Sqrt(max(0, psi-delta*delta))
	return r * r / (delta * delta)
}

// McNemarPower is Connor's formula solved for the power: the chance that McNemar's test of n
// matched pairs at two-sided level alpha detects δ at discordance ψ,
// Φ((δ·√n − z(1 − α/2)·√ψ) / √(ψ − δ²)), leaving out the chance of rejecting the other way.
// It is 0 for n = 0, and 1 when ψ = δ² (every discordant pair goes one way, with ψ = δ = 1)
// and δ·√n exceeds z(1 − α/2)·√ψ.
func McNemarPower(n, psi, delta, alpha float64) float64 {
	if n <= 0 {
		return 0
	}
	num := delta*math.Sqrt(n) - normUpper(alpha/2)*math.Sqrt(psi)
	v := psi - delta*delta
	if v <= 0 {
		if num >= 0 {
			return 1
		}
		return 0
	}
	return normCDF(num / math.Sqrt(v))
}

// planner gives a metric's Plan at the threshold its p-value faced and the plan effect.
type planner func(threshold, effect float64) *Plan

// mcnemarPlanner plans a McNemar test of matched pairs of which discordant differed.
func mcnemarPlanner(matched, discordant int) planner {
	return func(threshold, effect float64) *Plan { return PlanMcNemar(matched, discordant, effect, threshold) }
}

// RecordedTest is what a report's own comparison recorded of a paired pass/fail metric: enough
// to plan from its discordance (`agentgate plan`).
type RecordedTest struct {
	Metric      string
	Matched     int
	NewFailures int
	Fixed       int
	// Threshold is the Holm threshold the metric faced; 0 when it was not in the family.
	Threshold float64
}

// Validate refuses a recorded comparison no run of agentgate writes, naming the field at
// fault as the report names it (count: "matched", or "compared" where the report counted the
// missing runs too): counts below 0 or above MaxRunsNeeded (a matched count near 2^63 printed
// "-9,223,372,036,854,775,808 of … matched differed"), new failures and fixed runs beyond the
// counted ones, and a threshold outside [MinLevel, 1) (one of 1e-300 printed "power NaN%"). A
// threshold of 0 is one not recorded. See docs/security.md, "Input limits".
func (r RecordedTest) Validate(count string) error {
	switch {
	case r.Matched < 0 || r.NewFailures < 0 || r.Fixed < 0 || r.NewFailures > r.Matched || r.Fixed > r.Matched-r.NewFailures:
		return fmt.Errorf("%s %d, new_failures %d and fixed %d must be counts, the last two within %s", count, r.Matched, r.NewFailures, r.Fixed, count)
	case r.Matched > MaxRunsNeeded:
		return fmt.Errorf("%s %d is more than %d, the most runs a comparison can match", count, r.Matched, MaxRunsNeeded)
	case r.Threshold != 0 && !(r.Threshold >= MinLevel && r.Threshold < 1):
		return fmt.Errorf("power.threshold %v is not between %v and 1, the levels agentgate computes power at", r.Threshold, MinLevel)
	}
	return nil
}

// ReportPlan is the plan `agentgate plan` gives for one paired pass/fail metric of a report,
// before a suite is sized: from the report's recorded comparison where it has one, else from
// its own pass rate.
type ReportPlan struct {
	Metric string
	// Recorded is true when the discordance is the report's recorded comparison's; else it is
	// 2·Rate·(1 − Rate), the discordance of two independent runs that each pass with Rate.
	Recorded bool
	// Rate is the share of the report's runs that passed (succeeded by their outcomes, or
	// were not FAIL) and Runs how many runs that share is of; meaningless when Recorded.
	Rate float64
	Runs int
	// Family is the number of metrics the report would compare, whose Holm threshold
	// α/Family (the strictest one can face) the plan is at, when no threshold was recorded.
	Family int
	// Tasks and MinTrials are the report's tasks run in trials and the fewest trials of one,
	// so the runs needed can be read as trials of each task; 0 without trials.
	Tasks     int
	MinTrials int
	Plan      *Plan
}

// PlanReport plans, for each paired pass/fail metric a report b has (the runs' success by
// their outcomes, the verdicts), the matched runs that would detect a drop of effect with
// TargetPower at level alpha (docs/design.md#planning-and-trend):
//   - where b records its own comparison of that metric, at its discordance (new failures
//     and fixed runs over the matched runs) and the Holm threshold it faced there;
//   - else at the discordance 2p(1 − p) of two independent runs that each pass with b's
//     rate p, and at α/m for the m metrics b would be compared on (Holm's strictest
//     threshold). Runs of one task usually agree more than independent runs do, so this
//     discordance, and the runs it asks for, are usually too high: an upper bound to pay for
//     at most.
//
// effect must pass ValidEffect and 0 < alpha < 1.
func PlanReport(b *Baseline, effect, alpha float64) []ReportPlan {
	family := 0
	for _, has := range []bool{b.Reliability != nil, b.Reliability != nil && anyOutcome(b.Reliability.Traces), b.Coherence != nil, b.Agreement != nil} {
		if has {
			family++
		}
	}
	var tasks, minTrials int
	if pk := PassKOf(b.Trials); pk != nil {
		tasks, minTrials = pk.Tasks, pk.MinTrials
	}
	recorded := func(metric string) *RecordedTest {
		for i := range b.Recorded {
			if b.Recorded[i].Metric == metric && b.Recorded[i].Matched > 0 {
				return &b.Recorded[i]
			}
		}
		return nil
	}
	var out []ReportPlan
	add := func(metric string, passed, runs int) {
		rp := ReportPlan{Metric: metric, Family: family, Tasks: tasks, MinTrials: minTrials, Runs: runs}
		if r := recorded(metric); r != nil {
			rp.Recorded = true
			th := r.Threshold
			if th == 0 {
				th = alpha / float64(family)
			}
			rp.Plan = PlanMcNemar(r.Matched, r.NewFailures+r.Fixed, effect, th)
			out = append(out, rp)
			return
		}
		if runs == 0 {
			return
		}
		rp.Rate = float64(passed) / float64(runs)
		rp.Plan = planAt(runs, 2*rp.Rate*(1-rp.Rate), effect, alpha/float64(family))
		out = append(out, rp)
	}
	if s := b.Reliability; s != nil {
		if anyOutcome(s.Traces) {
			o := outcome.Summarize(s.Traces, 0, nil)
			add(MetricSuccess, o.Successes, o.Known)
		}
		notFail := 0
		for i := range s.Traces {
			if s.Traces[i].Verdict != verdict.Fail {
				notFail++
			}
		}
		add(MetricReliability, notFail, len(s.Traces))
	}
	return out
}
