package entrypoint

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/agreement"
	"github.com/agentgate/agentgate/gate/coherence"
	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/trace"
	"github.com/agentgate/agentgate/gate/verdict"
	"github.com/agentgate/agentgate/report"
)

// dropinFlags parses the arguments of a drop-in command: the flags its define adds, and
// --profile, which all three share. done is true when the command is over (help was asked
// for, or the arguments or the profile are wrong), with code its exit code.
func dropinFlags(name, synopsis string, args []string, stdout, stderr io.Writer, define func(*flag.FlagSet)) (pos []string, p profile.Profile, code int, done bool) {
	fs := newFlagSet(name, synopsis, stderr)
	define(fs)
	prof := fs.String("profile", "default", "default or reference")
	pos, err := parseArgs(fs, args, stdout)
	if err != nil {
		if isHelp(err) {
			return nil, p, 0, true
		}
		return nil, p, gate.ExitError, true
	}
	if p, err = profile.Parse(*prof); err != nil {
		return nil, p, fail(stderr, err), true
	}
	return pos, p, 0, false
}

// fileArg rejects a directory where a command reads one file, with the one-line way out:
// reading a directory would otherwise fail as "invalid JSON" at line 1, which misleads. A path
// that does not exist is left to the reader, whose error names it.
func fileArg(cmd, path, want, gateFlag string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s: %s is a directory: give %s; to evaluate every file in it, use agentgate gate %s '%s'",
			cmd, path, want, gateFlag, filepath.ToSlash(filepath.Join(path, "*.json*")))
	}
	return nil
}

// runRS1 is `agentgate rs1`: a drop-in for the RS-1 CLI. One trace gives one
// ReliabilityReport; a file of several gives one report per line. The exit code is RS-1's:
// 0 PASS, 1 WARN, 2 FAIL (the worst trace), 3 error.
func runRS1(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var useStdin, pretty, verbose bool
	pos, p, code, done := dropinFlags("rs1", "[FILE | --stdin] [--pretty] [--verbose]", args, stdout, stderr, func(fs *flag.FlagSet) {
		fs.BoolVar(&useStdin, "stdin", false, "read the trace from standard input")
		fs.BoolVar(&pretty, "pretty", false, "indent the JSON output")
		fs.BoolVar(&verbose, "verbose", false, "also explain each signal on standard error")
	})
	if done {
		return code
	}
	switch {
	case useStdin && len(pos) > 0:
		return fail(stderr, errors.New("rs1: give a FILE or --stdin, not both"))
	case !useStdin && len(pos) != 1:
		return fail(stderr, errors.New("rs1: give exactly one trace FILE, or --stdin"))
	}
	var err error
	var reports []reliability.RS1Report
	var results []reliability.Result
	each := func(t *trace.Trace) error {
		t.Redact(nil, redacted) // credentials of a known shape, as the gate reads traces
		r := reliability.Evaluate(t, p)
		results = append(results, r)
		reports = append(reports, r.RS1())
		return nil
	}
	if useStdin {
		err = input.EachReader("<stdin>", stdin, func(rec input.Record) error {
			t, err := trace.Decode(rec)
			if err != nil {
				return err
			}
			return each(t)
		})
	} else if err = fileArg("rs1", pos[0], "one trace file (.json or .jsonl)", "--traces"); err == nil {
		err = trace.Each(pos[0], each)
	}
	if err != nil {
		return fail(stderr, err)
	}
	// Byte for byte what RS-1's CLI prints (Python's json.dumps: 0.0 not 0, ", " separators).
	worst := verdict.Pass
	for i := range reports {
		if _, err := stdout.Write(append(reports[i].PythonJSON(pretty), '\n')); err != nil {
			return fail(stderr, err)
		}
		worst = verdict.Worst(worst, results[i].Verdict)
	}
	if verbose {
		for _, r := range results {
			report.TraceText(stderr, r)
		}
	}
	switch worst {
	case verdict.Fail:
		return 2
	case verdict.Warn:
		return 1
	}
	return 0
}

// runRCS is `agentgate rcs`: the RCS harness's results JSON for a task file.
func runRCS(args []string, stdout, stderr io.Writer) int {
	var tasks string
	pos, p, code, done := dropinFlags("rcs", "--tasks FILE", args, stdout, stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&tasks, "tasks", "", "task file (.json or .jsonl), or an RCS harness results file")
	})
	if done {
		return code
	}
	if tasks == "" && len(pos) == 1 {
		tasks = pos[0]
	} else if tasks == "" || len(pos) > 0 {
		return fail(stderr, errors.New("rcs: give one task file with --tasks FILE"))
	}
	if err := fileArg("rcs", tasks, "one task file (.json or .jsonl)", "--tasks"); err != nil {
		return fail(stderr, err)
	}
	// Each task is scored as it is read and its result written at once to a temporary file:
	// the report's head needs the average of all tasks, so it is written last, before the
	// results are copied back. Memory does not grow with the number of tasks, unless there is
	// no writable temporary directory (the container image has no /tmp): then they wait in
	// memory.
	var spool io.Writer
	var results func() io.Reader
	if f, err := os.CreateTemp("", "agentgate-rcs-*.json"); err == nil {
		defer func() {
			f.Close()
			os.Remove(f.Name())
		}()
		spool, results = f, func() io.Reader { return io.NewSectionReader(f, 0, math.MaxInt64) }
	} else {
		var buf bytes.Buffer
		spool, results = &buf, func() io.Reader { return &buf }
	}
	hw := coherence.NewHarnessWriter(spool)
	var sc coherence.Scorer
	err := coherence.Each(tasks, func(t coherence.Task) error {
		if err := hw.Add(t, sc.Score(t, p)); err != nil {
			return fmt.Errorf("rcs: %w", err)
		}
		return nil
	})
	if err != nil {
		return fail(stderr, err)
	}
	out := bufio.NewWriterSize(stdout, 64<<10)
	err = hw.Finish(out, results())
	if err == nil {
		_, err = out.Write([]byte{'\n'})
	}
	if err == nil {
		err = out.Flush()
	}
	if err != nil {
		return fail(stderr, err)
	}
	return 0
}

// runConsistency is `agentgate consistency`: the seed scorer's JSON on stdout and its
// disagreements TSV. Like the seed it exits 0 whatever "pass" says (gate on it with jq, or use
// `agentgate gate`); 3 on error.
func runConsistency(args []string, stdout, stderr io.Writer) int {
	var pairs, scholar, auditor, tsv string
	var paGate, kappaGate, abstainGate float64
	var allowUnmatched bool
	pos, p, code, done := dropinFlags("consistency", "--pairs FILE | --scholar FILE --auditor FILE", args, stdout, stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&pairs, "pairs", "", "merged Scholar/Auditor pairs (.jsonl)")
		fs.StringVar(&scholar, "scholar", "", "the Scholar's labels")
		fs.StringVar(&auditor, "auditor", "", "the Auditor's labels")
		fs.Float64Var(&paGate, "pa_gate", 0.90, "percent agreement gate")
		fs.Float64Var(&kappaGate, "kappa_gate", 0.75, "kappa gate")
		fs.Float64Var(&abstainGate, "abstain_gate", 0.02, "abstain rate gate")
		fs.StringVar(&tsv, "tsv", filepath.Join("runs", "consistency_disagreements.tsv"), "where to write the disagreements TSV (written only when there are disagreements, as the seed does)")
		fs.BoolVar(&allowUnmatched, "allow-unmatched", false, "evaluate only the qids both files hold (default profile)")
	})
	if done {
		return code
	}
	if len(pos) > 0 {
		return fail(stderr, fmt.Errorf("consistency takes no arguments, got %q", pos[0]))
	}
	in := gate.Inputs{}
	if pairs != "" {
		in.Pairs = []string{pairs}
	}
	if scholar != "" {
		in.Scholar = []string{scholar}
	}
	if auditor != "" {
		in.Auditor = []string{auditor}
	}
	if len(in.Pairs)+len(in.Scholar)+len(in.Auditor) == 0 {
		return fail(stderr, errors.New("consistency: give --pairs FILE, or --scholar FILE and --auditor FILE"))
	}
	if err := in.Validate(); err != nil {
		return fail(stderr, err)
	}
	sum, err := gate.Agreement(in, gate.Options{Profile: p, AllowUnmatched: allowUnmatched})
	if err != nil {
		return fail(stderr, err)
	}
	seed := agreement.NewSeedReport(*sum, paGate, kappaGate, abstainGate)
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(seed); err != nil {
		return fail(stderr, err)
	}
	if dis := agreement.Disagreements(sum.Items); len(dis) > 0 && tsv != "" {
		if err := writeReportFile(tsv, func(w io.Writer) error { return report.DisagreementsTSV(w, dis) }); err != nil {
			return fail(stderr, err)
		}
		fmt.Fprintf(stderr, "%d disagreement(s) written to %s\n", len(dis), tsv)
	}
	return 0
}
