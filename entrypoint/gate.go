package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/report"
)

// runGate is `agentgate gate`: what the action runs.
func runGate(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := newFlagSet("gate", "[flags]", stderr)
	flags := map[string]setting{}
	str := func(name, help string) {
		fs.Func(name, help, func(v string) error {
			flags[name] = setting{v, "--" + name}
			return nil
		})
	}
	list := func(name, help string) {
		fs.Func(name, help+" (glob; repeat the flag or separate patterns with commas)", func(v string) error {
			if old, ok := flags[name]; ok {
				v = old.value + "\n" + v
			}
			flags[name] = setting{v, "--" + name}
			return nil
		})
	}
	boolean := func(name, help string) {
		fs.BoolFunc(name, help, func(v string) error {
			flags[name] = setting{v, "--" + name}
			return nil
		})
	}
	list("traces", "execution traces: RS-1, OpenAI or Anthropic transcripts, .json or .jsonl")
	list("tasks", "intent/understanding/action tasks, or an RCS harness results file")
	list("pairs", "merged Scholar/Auditor label pairs")
	list("scholar", "the Scholar's labels (with --auditor)")
	list("auditor", "the Auditor's labels (with --scholar)")
	str(gate.CoherenceMin, "mean RCS must be at least this (default 0.50)")
	str(gate.PAMin, "percent agreement must be at least this (default 0.90)")
	str(gate.KappaMin, "Cohen's kappa must be at least this (default 0.75)")
	str(gate.AbstainMax, "abstain rate must be at most this (default 0.02)")
	str(gate.MaxFailedTraces, "at most this many FAIL traces (default 0)")
	boolean("allow-unmatched", "with --scholar/--auditor, evaluate only the qids both labelled")
	str("profile", "default or reference (default \"default\")")
	str("fail-on", "fail or warn: which verdict fails the step (default \"fail\")")
	str("config", "YAML file with the same keys as the action inputs")
	str("json", "write the machine-readable JSON report to this file")
	str("markdown", "write the markdown report to this file")
	str("junit", "write JUnit XML for test reporters to this file")
	boolean("comment", "under GitHub Actions, post the report on the pull request (default true)")
	str("comment-mode", "update or recreate the report comment (default \"update\")")
	str("pr-number", "pull request to comment on when the event has none")
	pos, err := parseArgs(fs, args)
	if err != nil {
		if isHelp(err) {
			return 0
		}
		return gate.ExitError
	}
	if len(pos) > 0 {
		return fail(stderr, fmt.Errorf("gate takes no arguments, got %q: name input files with --traces, --tasks, --pairs or --scholar/--auditor", pos[0]))
	}

	var act *actionEnv
	if getenv("GITHUB_ACTIONS") == "true" {
		act = newActionEnv(getenv, stdout)
	}
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
		fromFile, err := readConfig(cfgPath.value)
		if err != nil {
			return act.failRun(fail(stderr, err), err)
		}
		merged.layer(fromFile)
	}
	merged.layer(inputs)
	merged.layer(flags)
	cfg, err := merged.gateConfig()
	if err != nil {
		return act.failRun(fail(stderr, err), err)
	}

	res, err := gate.Run(ctx, cfg.inputs, cfg.options)
	if err != nil {
		return act.failRun(fail(stderr, err), err)
	}
	if err := report.Text(stdout, res); err != nil {
		return fail(stderr, err)
	}
	if cfg.jsonPath != "" {
		if err := writeReportFile(cfg.jsonPath, func(w io.Writer) error { return report.JSON(w, res) }); err != nil {
			return fail(stderr, err)
		}
	}
	if cfg.mdPath != "" {
		md := report.Markdown(res, report.Options{Reproduce: reproduceCommand(cfg), MaxBytes: -1})
		if err := writeReportFile(cfg.mdPath, func(w io.Writer) error { _, err := io.WriteString(w, md); return err }); err != nil {
			return fail(stderr, err)
		}
	}
	if cfg.junitPath != "" {
		if err := writeReportFile(cfg.junitPath, func(w io.Writer) error { return report.JUnit(w, res) }); err != nil {
			return fail(stderr, err)
		}
	}
	if act != nil {
		act.publish(ctx, res, cfg, stderr)
	}
	return res.ExitCode
}

// writeReportFile writes a report atomically enough for CI: to a temporary file beside it,
// then renamed, so a reader never sees half a report.
//
// The report is streamed into the temporary file rather than built in memory first: the JSON
// report of a large suite is tens of megabytes (56 MB for 1 GB of traces), and a buffer of it,
// grown by doubling, was the largest thing the gate held. The directory and the temporary file
// are created at the first byte written, so a report that fails before writing anything (a
// number JSON cannot hold) leaves nothing behind, as when it was built in memory; one that
// fails later leaves no temporary file.
func writeReportFile(path string, write func(io.Writer) error) (err error) {
	tmp := path + ".tmp"
	w := &lazyFile{path: path, tmp: tmp}
	defer func() {
		if err != nil {
			if w.f != nil {
				w.f.Close() // a second Close after a failed one does no harm
				os.Remove(tmp)
			}
			err = fmt.Errorf("writing %s: %w", path, err)
		}
	}()
	if err := write(w); err != nil {
		return err
	}
	// open creates the file of an empty report, and returns the error of a failed write that
	// write did not report
	if err := w.open(); err != nil {
		return err
	}
	if err := w.f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// lazyFile is an io.Writer that creates its file (and the file's directory) at the first
// write. A failed write is sticky: every later write returns the same error.
type lazyFile struct {
	path, tmp string
	f         *os.File
	err       error
}

// open creates the file, once.
func (w *lazyFile) open() error {
	if w.f != nil || w.err != nil {
		return w.err
	}
	if dir := filepath.Dir(w.path); dir != "." {
		if w.err = os.MkdirAll(dir, 0o755); w.err != nil {
			return w.err
		}
	}
	w.f, w.err = os.OpenFile(w.tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	return w.err
}

// Write writes p to the file, creating it first if need be.
func (w *lazyFile) Write(p []byte) (int, error) {
	if err := w.open(); err != nil {
		return 0, err
	}
	n, err := w.f.Write(p)
	if err != nil {
		w.err = err
	}
	return n, err
}

// reproduceCommand is the CLI line that gives the same answer locally, shown in the report.
func reproduceCommand(c *gateConfig) string {
	var b strings.Builder
	b.WriteString("agentgate gate")
	add := func(flag string, vals []string) {
		for _, v := range vals {
			fmt.Fprintf(&b, " --%s %s", flag, shellQuote(v))
		}
	}
	add("traces", c.inputs.Traces)
	add("tasks", c.inputs.Tasks)
	add("pairs", c.inputs.Pairs)
	add("scholar", c.inputs.Scholar)
	add("auditor", c.inputs.Auditor)
	def := gate.DefaultThresholds()
	t := c.options.Thresholds
	num := func(flag string, v, d float64) {
		if v != d {
			fmt.Fprintf(&b, " --%s %v", flag, v)
		}
	}
	num(gate.CoherenceMin, t.CoherenceMin, def.CoherenceMin)
	num(gate.PAMin, t.PAMin, def.PAMin)
	num(gate.KappaMin, t.KappaMin, def.KappaMin)
	num(gate.AbstainMax, t.AbstainMax, def.AbstainMax)
	if t.MaxFailedTraces != def.MaxFailedTraces {
		fmt.Fprintf(&b, " --%s %d", gate.MaxFailedTraces, t.MaxFailedTraces)
	}
	if c.options.AllowUnmatched {
		b.WriteString(" --allow-unmatched")
	}
	if c.options.Profile != "default" {
		fmt.Fprintf(&b, " --profile %s", c.options.Profile)
	}
	if c.options.FailOn != gate.FailOnFail {
		fmt.Fprintf(&b, " --fail-on %s", c.options.FailOn)
	}
	return b.String()
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
