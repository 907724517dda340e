// Package entrypoint is the agentgate command's wiring: the GitHub Action's entrypoint and a
// CLI that gives the same answer anywhere (cmd/agentgate is its main). It only turns flags or
// action inputs into calls to gate/ and report/, and their result into an exit code; it
// evaluates nothing itself.
package entrypoint

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/internal/github/actions"
)

// Version is what `agentgate version` prints and reports record; cmd/agentgate sets it from
// its own version, which a build sets with -ldflags "-X main.version=…".
var Version = "dev"

const usage = `agentgate: a pre-merge gate for AI agents.

Usage:
  agentgate gate [flags]          evaluate traces, tasks and validator labels against the gates
  agentgate merge [flags] REPORT.json...
                                  merge the JSON reports of a sharded suite into the report of
                                  one run over all of it, and gate that
  agentgate plan --baseline REPORT.json [--effect 0.1]
                                  how many matched runs (and trials of each task) would detect a
                                  drop of the effect in success rate, from a report
  agentgate rs1 [FILE | --stdin]  RS-1 ReliabilityReport for one trace (drop-in for the RS-1 CLI)
  agentgate rcs --tasks FILE      RCS harness results for a task file
  agentgate consistency --pairs FILE | --scholar FILE --auditor FILE
                                  the consistency scorer's JSON and disagreements TSV
  agentgate version

Run 'agentgate COMMAND --help' for a command's flags.
Exit codes: 0 PASS (or WARN unless --fail-on warn), 1 WARN with --fail-on warn, 2 FAIL, 3 error.
`

// Main runs one agentgate command (args without the program name) and returns its exit code;
// an interrupt cancels ctx. It is the whole program without the process.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	if getenv("GITHUB_ACTIONS") == "true" {
		// Under Actions the runner acts on workflow commands in both streams, and trace ids,
		// keys and file names reach both: every byte goes through a guard (docs/design.md#trust-boundaries).
		out, errs := guardStream(stdout), guardStream(stderr)
		defer flush(out)
		defer flush(errs)
		stdout, stderr = out, errs
	}
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return gate.ExitError
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "gate":
		return runGate(ctx, cmdGate, rest, stdout, stderr, getenv)
	case "merge":
		return runGate(ctx, cmdMerge, rest, stdout, stderr, getenv)
	case "plan":
		return runPlan(rest, stdout, stderr)
	case "rs1":
		return runRS1(rest, stdin, stdout, stderr)
	case "rcs":
		return runRCS(rest, stdout, stderr)
	case "consistency":
		return runConsistency(rest, stdout, stderr)
	case "version", "--version", "-version":
		fmt.Fprintf(stdout, "agentgate %s\n", Version)
		return 0
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "agentgate: unknown command %q\n\n%s", cmd, usage)
	return gate.ExitError
}

// guardStream wraps w in an actions.Guard, unless w is a regular file: output redirected
// into a file (`agentgate consistency … > scores.json` in a run step) is data the runner never
// reads, and stays byte for byte what was written.
func guardStream(w io.Writer) io.Writer {
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			return w
		}
	}
	return actions.NewGuard(w)
}

// flush writes what a guard still holds (a last line without a line break).
func flush(w io.Writer) {
	if g, ok := w.(*actions.Guard); ok {
		_ = g.Flush()
	}
}

// parseArgs parses flags that may come before or after positional arguments, as users type
// them (`agentgate rs1 trace.json --pretty`). It returns the positional arguments. A bad flag
// is reported on one line to the flag set's output (stderr), naming the closest known flag
// when it looks misspelled ("unknown flag --trace: did you mean --traces?"); only -h/--help
// prints the usage, to stdout: it was asked for.
func parseArgs(fs *flag.FlagSet, args []string, stdout io.Writer) ([]string, error) {
	out := fs.Output()
	fs.SetOutput(io.Discard) // the flag package would print the error and the whole usage
	defer fs.SetOutput(out)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if isHelp(err) {
				fs.SetOutput(stdout)
				fs.Usage()
			} else {
				fs.SetOutput(out)
				fmt.Fprintf(out, "agentgate %s: %s\n", fs.Name(), flagError(fs, err))
			}
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// flagError rewords the flag package's error for an unknown flag, with the closest known flag
// when one is near enough to be a typo.
func flagError(fs *flag.FlagSet, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return err.Error()
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	msg := "unknown flag --" + name
	if best, ok := closest(name, names); ok {
		return msg + ": did you mean --" + best + "?"
	}
	return msg + " (agentgate " + fs.Name() + " --help lists the flags)"
}

// closest returns the name nearest to name, when it is near enough for name to be its typo;
// ties go to the first of names.
func closest(name string, names []string) (string, bool) {
	best, bestDist := "", -1
	for _, n := range slices.Sorted(slices.Values(names)) {
		if d := editDistance(name, n); bestDist < 0 || d < bestDist {
			best, bestDist = n, d
		}
	}
	return best, bestDist >= 0 && bestDist <= max(2, len(name)/3)
}

// editDistance is the Levenshtein distance between a and b, in bytes (flag names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// newFlagSet returns a flag set that reports errors to stderr and does not exit.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: agentgate %s %s\n\nFlags:\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// fail prints an error the way every command does, after "agentgate: " (no error of the
// program's starts with it), and returns exit code 3.
func fail(stderr io.Writer, err error) int {
	fmt.Fprintln(stderr, "agentgate: "+err.Error())
	return gate.ExitError
}

// isHelp reports whether flag parsing stopped for -h/--help.
func isHelp(err error) bool { return errors.Is(err, flag.ErrHelp) }
