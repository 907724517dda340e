package entrypoint

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/compare"
	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/internal/jsonreport"
	"github.com/agentgate/agentgate/report"
)

// The commands runGate runs.
const (
	cmdGate  = "gate"  // what the action runs
	cmdMerge = "merge" // gate with the shards' reports named as arguments
)

// runGate is `agentgate gate`, what the action runs, and `agentgate merge REPORT.json…`,
// which is gate with the reports as its merge setting (docs/design.md#shards).
func runGate(ctx context.Context, cmd string, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	flags, code, done := gateFlags(cmd, args, stdout, stderr)
	if done {
		return code
	}

	// Everything written from here on goes through red, which learns the token's values as
	// they are masked (docs/design.md#trust-boundaries).
	red := &redactor{}
	rout, rerr := red.Writer(stdout), red.Writer(stderr)
	defer rerr.Flush()
	defer rout.Flush()
	stdout, stderr = rout, rerr
	var act *actionEnv
	if getenv("GITHUB_ACTIONS") == "true" {
		act = newActionEnv(getenv, stdout, red)
	}
	merged, err := layerSettings(flags, act, red)
	if err != nil {
		return act.failRun(fail(stderr, err), err)
	}
	cfg, err := merged.gateConfig()
	if err != nil {
		return act.failRun(fail(stderr, err), err)
	}
	act.configured(ctx, cfg)
	input.SetMaxInputBytes(cfg.maxInputBytes)
	if err := checkOutputs(merged); err != nil {
		return act.failRun(fail(stderr, err), err)
	}

	if cfg.noTraces == noTracesNeutral {
		if absent, ok := absentInputs(cfg); ok {
			return act.skipRun(stdout, cfg, absent)
		}
	}

	cfg.options.Source = reportSource(act != nil, getenv)
	in := cfg.inputs
	cfg.options.Source.Inputs = &in
	if cfg.options.Baseline, err = resolveBaseline(ctx, cfg, act); err != nil {
		return act.failRun(fail(stderr, err), err)
	}
	if b := cfg.options.Baseline; b != nil && b.Report != nil || len(cfg.merge) > 0 {
		jsonreport.CollectSooner()
	}
	cfg.options.Secrets = red.list() // redacted in the traces, before any evidence is cut
	res, err := evaluate(ctx, cfg)
	if err != nil {
		err = explainKind(err, cfg, act != nil)
		return act.failRun(fail(stderr, err), err)
	}
	// The baseline's runs are let go once compared, before the result is redacted and the
	// reports are written (all but SARIF's, which marks each finding new or not by them): a
	// million of them took a quarter of the live heap, which writing the report's runs then
	// grew by half again (docs/performance.md, "A million runs").
	var sarifBase *reliability.Summary
	if cfg.sarifPath != "" {
		sarifBase = comparedBaseline(res, cfg.options.Baseline)
	}
	cfg.options.Baseline = nil
	red.result(res) // and in every text of the result, before a report cuts or escapes one
	if err := report.Text(stdout, res); err != nil {
		return fail(stderr, err)
	}
	if err := writeReports(res, cfg, red, sarifBase); err != nil {
		return fail(stderr, err)
	}
	if act != nil {
		act.publish(ctx, res, cfg, stderr)
	}
	return res.ExitCode
}

// gateFlags parses the command line of gate or merge into the settings its flags give, with
// merge's arguments as its merge setting. done says the command ends there, with code: help
// was asked for, or the command line is wrong (said on stderr).
func gateFlags(cmd string, args []string, stdout, stderr io.Writer) (flags map[string]setting, code int, done bool) {
	synopsis := "[flags]"
	if cmd == cmdMerge {
		synopsis = "[flags] REPORT.json..."
	}
	fs := newFlagSet(cmd, synopsis, stderr)
	flags = map[string]setting{}
	defineFlags(fs, flags)
	pos, err := parseArgs(fs, args, stdout)
	if err != nil {
		if isHelp(err) {
			return nil, 0, true
		}
		return nil, gate.ExitError, true
	}
	switch {
	case cmd == cmdMerge && len(pos) == 0:
		return nil, fail(stderr, errors.New("merge: name the shards' JSON reports, as in agentgate merge shards/*/report.json")), true
	case cmd == cmdMerge:
		for _, p := range pos {
			if old, ok := flags["merge"]; ok {
				p = old.value + "\n" + p
			}
			flags["merge"] = setting{value: p, source: "merge's arguments"}
		}
	case len(pos) > 0 && expandedGlob(pos[0]) && flagBefore(args, pos[0]) != "":
		return nil, fail(stderr, fmt.Errorf("gate takes no arguments, got %q: it looks like a file your shell expanded from an unquoted pattern; quote the pattern so that agentgate expands it, as in %s 'runs/**/*.jsonl'", pos[0], flagBefore(args, pos[0]))), true
	case len(pos) > 0 && boolValue(fs, args, pos[0]) != "":
		f := boolValue(fs, args, pos[0])
		return nil, fail(stderr, fmt.Errorf("gate takes no arguments, got %q (a bool flag takes its value as %s=%s)", pos[0], f, pos[0])), true
	case len(pos) > 0:
		return nil, fail(stderr, fmt.Errorf("gate takes no arguments, got %q: name input files with --traces, --tasks, --pairs or --scholar/--auditor", pos[0])), true
	}
	return flags, 0, false
}

// layerSettings lays the settings on one another, each over the one before: the config file's
// (named by the flag, else by the action input), the action's inputs, the flags. The config
// file's secrets are masked and redacted before anything is printed, its error included.
func layerSettings(flags map[string]setting, act *actionEnv, red *redactor) (settings, error) {
	merged := settings{}
	var inputs map[string]setting
	if act != nil {
		inputs = act.inputs()
	}
	cfgPath := flags["config"]
	if cfgPath.value == "" {
		cfgPath = inputs["config"]
	}
	if cfgPath.value != "" {
		fromFile, secrets, err := readConfig(cfgPath.value)
		act.mask(secrets)
		red.add(secrets...)
		if err != nil {
			return nil, err
		}
		merged.layer(fromFile)
	}
	merged.layer(inputs)
	merged.layer(flags)
	return merged, nil
}

// writeReports writes each report file the settings name (JSON, markdown, JUnit, SARIF,
// OTel), redacted, stopping at the first that cannot be written. sarifBase is the reliability
// section of the baseline res was compared with (comparedBaseline), for SARIF's baselineState.
func writeReports(res *gate.Result, cfg *gateConfig, red *redactor, sarifBase *reliability.Summary) error {
	for _, out := range []struct {
		path  string
		write func(io.Writer) error
	}{
		{cfg.jsonPath, func(w io.Writer) error { return jsonreport.Write(w, res) }},
		{cfg.mdPath, func(w io.Writer) error {
			_, err := io.WriteString(w, report.Markdown(res, report.Options{Reproduce: reproduceCommand(cfg, ""), MaxBytes: -1}))
			return err
		}},
		{cfg.junitPath, func(w io.Writer) error { return report.JUnit(w, res) }},
		{cfg.sarifPath, func(w io.Writer) error { return report.SARIF(w, res, sarifBase) }},
		{cfg.otelPath, func(w io.Writer) error { return report.OTel(w, res) }},
	} {
		if out.path == "" {
			continue
		}
		if err := writeReportFile(out.path, red.report(out.write)); err != nil {
			return err
		}
	}
	return nil
}

// comparedBaseline is the reliability section of the baseline res was compared with, for
// the SARIF results' baselineState; nil when there was no comparison.
func comparedBaseline(res *gate.Result, b *gate.Baseline) *reliability.Summary {
	if res.Comparison == nil || b == nil || b.Report == nil {
		return nil
	}
	return b.Report.Reliability // nil when the baseline had no traces: every finding is new
}

// evaluate runs the gate over cfg's inputs, or merges the shards' reports cfg names with
// them. After a merge, cfg's inputs are the patterns of the whole suite, for the report's
// command that reproduces it.
func evaluate(ctx context.Context, cfg *gateConfig) (*gate.Result, error) {
	if len(cfg.merge) == 0 {
		return gate.Run(ctx, cfg.inputs, cfg.options)
	}
	files, err := input.Expand(cfg.merge)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	shards := make([]gate.Shard, len(files))
	for i, f := range files {
		if shards[i], err = jsonreport.ReadShard(f); err != nil {
			return nil, err
		}
	}
	res, err := gate.Merge(ctx, shards, cfg.inputs, cfg.options)
	if err != nil {
		return nil, err
	}
	cfg.inputs = *res.Source.Inputs
	for name, patterns := range inputLists(&cfg.inputs) {
		if len(*patterns) > 0 {
			cfg.answer[name] = *patterns
		} else {
			delete(cfg.answer, name)
		}
	}
	return res, nil
}

// reportSource says which run the report comes from (docs/design.md#comparison): the commit, ref and run under
// Actions, empty strings elsewhere (a laptop's environment may hold stale GITHUB_* variables).
func reportSource(underActions bool, getenv func(string) string) gate.Source {
	src := gate.Source{Source: compare.Source{Version: Version}}
	if underActions {
		src.SHA, src.Ref = getenv("GITHUB_SHA"), getenv("GITHUB_REF")
		src.RunID, src.RunAttempt = getenv("GITHUB_RUN_ID"), getenv("GITHUB_RUN_ATTEMPT")
	}
	return src
}

// reproduceCommand is the CLI line that gives the same answer locally, shown in the report:
// `--name value` for each setting in the table's order that changes the answer (see
// settingDef.noEffect) and is given with another value than its default, a list's patterns
// one flag each. A bool whose flag stands alone prints as `--name` (`--name=false` when its
// default is true); one with settingDef.valueFlag prints its value as the next argument.
//
// Under Actions, workspace is GITHUB_WORKSPACE: a value that is an absolute path inside it is
// written relative to it, as a developer types it in a clone ("evals/run.json", not the
// runner's "/home/runner/work/repo/repo/evals/run.json").
func reproduceCommand(c *gateConfig, workspace string) string {
	var b strings.Builder
	b.WriteString("agentgate gate")
	for _, d := range settingTable {
		vals, ok := c.answer[d.name]
		switch {
		case !ok:
		case d.boolLike:
			fmt.Fprintf(&b, " --%s=%s", d.name, vals[0])
		case d.kind == kindBool && !d.valueFlag && vals[0] == "true":
			fmt.Fprintf(&b, " --%s", d.name)
		case d.kind == kindBool && !d.valueFlag:
			fmt.Fprintf(&b, " --%s=%s", d.name, vals[0])
		default:
			for _, v := range vals {
				fmt.Fprintf(&b, " --%s %s", d.name, shellQuote(inWorkspace(v, workspace)))
			}
		}
	}
	return b.String()
}

// inWorkspace writes v relative to workspace when it is an absolute path inside it; else v.
func inWorkspace(v, workspace string) string {
	if workspace == "" || !filepath.IsAbs(v) || !filepath.IsAbs(workspace) {
		return v
	}
	rel, err := filepath.Rel(workspace, v)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return v
	}
	return rel
}

// shellQuote quotes a glob so a shell passes it through unexpanded.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
