package entrypoint

import (
	"errors"
	"fmt"
	"io"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/compare"
	"github.com/agentgate/agentgate/internal/jsonreport"
	"github.com/agentgate/agentgate/report"
)

// runPlan is `agentgate plan --baseline REPORT [--effect 0.1] [--regression-alpha 0.05]`
// (docs/design.md#planning-and-trend): how many matched runs would detect a drop of the effect, from a report, before a
// suite is sized. It prints to stdout and exits 0; a report that cannot be read, or a bad
// flag, exits 3.
func runPlan(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("plan", "--baseline REPORT.json [--effect 0.1] [--regression-alpha 0.05]", stderr)
	var path string
	effect, alpha := compare.DefaultPlanEffect, compare.DefaultAlpha
	fs.StringVar(&path, "baseline", "", "the JSON report to plan from: its recorded comparison's discordance when it has one, else its own success rate (runs taken as independent)")
	fs.Float64Var(&effect, "effect", effect, "the drop in success rate to detect (0.1 is 10 points), as the setting plan-effect")
	fs.Float64Var(&alpha, regressionAlpha, alpha, "the family-wise significance level of the comparison (Holm's procedure)")
	pos, err := parseArgs(fs, args, stdout)
	if err != nil {
		if isHelp(err) {
			return 0
		}
		return gate.ExitError
	}
	if path == "" && len(pos) == 1 {
		path = pos[0]
	} else if path == "" || len(pos) > 0 {
		return fail(stderr, errors.New("plan: give one JSON report with --baseline REPORT.json"))
	}
	if err := compare.ValidEffect(effect); err != nil {
		return fail(stderr, fmt.Errorf("plan: --effect: %w", err))
	}
	if err := (compare.Options{Alpha: alpha, MinMatched: 1}).Validate(); err != nil {
		return fail(stderr, fmt.Errorf("plan: --%w", err))
	}
	b, err := jsonreport.ReadBaselineFile(path)
	if err != nil {
		var u *compare.Unusable
		if errors.As(err, &u) {
			return fail(stderr, fmt.Errorf("plan: %s: nothing to plan from", u.Reason))
		}
		return fail(stderr, err)
	}
	if err := report.PlanText(stdout, path, effect, compare.PlanReport(b, effect, alpha)); err != nil {
		return fail(stderr, err)
	}
	return 0
}
