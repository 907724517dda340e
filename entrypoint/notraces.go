package entrypoint

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/internal/github/checks"
)

// The values of no-traces (docs/reference.md, "Skipped evals").
const (
	noTracesError   = "error"
	noTracesNeutral = "neutral"
)

// absentInputs says whether every input pattern the run was given (or every shard pattern of
// a merge) matches no file, and lists them: the evals did not run, as when a path filter or
// a label skipped them. A pattern that matches, or fails otherwise (a bad glob, a dangling
// link), and a run given no input at all, are no absence: the gate says what is wrong.
func absentInputs(cfg *gateConfig) ([]string, bool) {
	var absent []string
	check := func(name string, patterns []string) bool {
		for _, p := range patterns {
			if strings.TrimSpace(p) == "" {
				continue
			}
			_, err := input.ExpandListing([]string{p})
			var ie *input.Error
			if err == nil || !errors.As(err, &ie) || ie.Msg != input.NoMatch {
				return false
			}
			absent = append(absent, name+": "+p)
		}
		return true
	}
	if !check("merge", cfg.merge) {
		return nil, false
	}
	lists := inputLists(&cfg.inputs)
	for _, name := range settingKeys {
		if l, ok := lists[name]; ok && !check(name, *l) {
			return nil, false
		}
	}
	return absent, len(absent) > 0
}

// skipRun ends a run whose inputs are all absent under `no-traces: neutral`: nothing was
// evaluated, which the log, the job summary, the `verdict` output (SKIPPED) and, with
// check-name, a neutral check run say, and the step passes (exit code 0), so that a required
// check does not wait for a run that will never come. No comment is posted: the pull
// request's last report stays as its run wrote it. A nil *actionEnv (the CLI) only logs.
func (e *actionEnv) skipRun(stdout io.Writer, cfg *gateConfig, absent []string) int {
	fmt.Fprintf(stdout, "agentgate: no eval outputs, nothing evaluated: no input file exists (%s); no-traces is neutral, so the run passes\n", strings.Join(absent, "; "))
	if e == nil {
		return 0
	}
	passes := "this run passes"
	if cfg.checkName != "" {
		passes += " and its check run is neutral"
	}
	md := "## ⏭️ agentgate: no eval outputs\n\nNothing was evaluated: none of the input files exists, so the evals did not run " +
		"(a path filter or a label may have skipped them). `no-traces` is `neutral`, so " + passes + ".\n\n```text\n" +
		strings.ReplaceAll(strings.Join(absent, "\n"), "```", "'''") + "\n```\n"
	if cfg.checkName != "" {
		if note := e.postCheckRun(e.ctx, cfg, checks.Run{Conclusion: checks.ConclusionNeutral, Title: "no eval outputs: nothing evaluated", Summary: e.red.String(md)}); note != "" {
			md += "\n" + note + "\n"
		}
	}
	e.writeSummary(md)
	e.setOutputs([][2]string{{"verdict", "SKIPPED"}})
	return 0
}
