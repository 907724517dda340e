package compare

import (
	"fmt"
	"math"
)

// This file says how many matched runs a paired pass/fail comparison (the runs' own success,
// the verdicts) would need to detect a stated drop (SPEC §21): what a team deciding how many
// runs and trials to pay for asks after "is this change worse?".

// DefaultPlanEffect is plan-effect's default: a drop of 10 points of success rate.
const DefaultPlanEffect = 0.10

// MaxRunsNeeded bounds Plan.RunsNeeded: an effect small against its discordance asks for more
// runs than any suite has, and the figure is then only "more than this".
const MaxRunsNeeded = 1 << 30

// Plan is how many matched runs McNemar's test would need to detect a drop of Effect (the
// share of runs that pass in the baseline and fail in head, less the share the other way
// round) with Power, at the Holm threshold the metric faced and the discordance the two runs
// showed (SPEC §21).
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
	p := &Plan{Effect: effect, Power: TargetPower, Matched: matched, Threshold: threshold}
	if matched > 0 {
		p.Discordance = float64(discordant) / float64(matched)
	}
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
