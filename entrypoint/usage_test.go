package entrypoint

import (
	"strings"
	"testing"
)

// A misspelled flag gets one line naming the closest flag, and exit code 3; not the usage.
func TestUnknownFlagOneLine(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"gate", "--trace", "x"}, "agentgate gate: unknown flag --trace: did you mean --traces?\n"},
		{[]string{"gate", "--tracs=x"}, "agentgate gate: unknown flag --tracs: did you mean --traces?\n"},
		{[]string{"gate", "-kapa-min", "0.5"}, "agentgate gate: unknown flag --kapa-min: did you mean --kappa-min?\n"},
		{[]string{"gate", "--jnit", "out.xml"}, "agentgate gate: unknown flag --jnit: did you mean --junit?\n"},
		{[]string{"gate", "--frobnicate"}, "agentgate gate: unknown flag --frobnicate (agentgate gate --help lists the flags)\n"},
		{[]string{"rs1", "trace.json", "--prety"}, "agentgate rs1: unknown flag --prety: did you mean --pretty?\n"},
		{[]string{"rcs", "--task", "t.json"}, "agentgate rcs: unknown flag --task: did you mean --tasks?\n"},
		{[]string{"consistency", "--pa-gate", "0.9"}, "agentgate consistency: unknown flag --pa-gate: did you mean --pa_gate?\n"},
		{[]string{"consistency", "--scholars", "s.jsonl"}, "agentgate consistency: unknown flag --scholars: did you mean --scholar?\n"},
		// Other flag errors are one line too.
		{[]string{"gate", "--pa-min"}, "agentgate gate: flag needs an argument: -pa-min\n"},
		{[]string{"rs1", "--pretty=maybe", "x"}, "agentgate rs1: invalid boolean value \"maybe\" for -pretty: parse error\n"},
	}
	for _, c := range cases {
		code, stdout, stderr := cli(t, "", c.args...)
		if code != 3 || stderr != c.want || stdout != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit 3, stderr %q", c.args, code, stderr, stdout, c.want)
		}
	}
}

// --help still prints the usage, to stdout as it was asked for, and exits 0.
func TestHelpStillPrintsUsage(t *testing.T) {
	for _, args := range [][]string{{"rcs", "--help"}, {"rcs", "-h"}, {"gate", "-help"}, {"merge", "--help"}} {
		code, stdout, stderr := cli(t, "", args...)
		want := "Usage: agentgate " + args[0] + " "
		if code != 0 || !strings.HasPrefix(stdout, want) || stderr != "" {
			t.Errorf("%v: exit %d, stdout %.60q, stderr %q; want exit 0 and the usage on stdout", args, code, stdout, stderr)
		}
	}
	code, stdout, stderr := cli(t, "", "rcs", "--help")
	if code != 0 || !strings.HasPrefix(stdout, "Usage: agentgate rcs --tasks FILE\n\nFlags:\n  -profile string\n") || stderr != "" {
		t.Errorf("rcs --help: exit %d, stdout %q", code, stdout)
	}
}

// merge names its reports as arguments: its flags are the gate's but for --merge, which
// would be a second way of naming them.
func TestMergeHasNoMergeFlag(t *testing.T) {
	_, stdout, _ := cli(t, "", "merge", "--help")
	if !strings.HasPrefix(stdout, "Usage: agentgate merge [flags] REPORT.json...\n") || strings.Contains(stdout, "  -merge") || !strings.Contains(stdout, "  -traces value\n") {
		t.Errorf("merge --help:\n%s", stdout)
	}
	code, stdout, stderr := cli(t, "", "merge", "--merge", "a.json")
	if code != 3 || stdout != "" || stderr != "agentgate merge: unknown flag --merge (agentgate merge --help lists the flags)\n" {
		t.Errorf("merge --merge: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	_, stdout, _ = cli(t, "", "gate", "--help")
	if !strings.Contains(stdout, "  -merge value\n") {
		t.Errorf("gate --help has no -merge:\n%s", stdout)
	}
}

// A bool flag given its value as the next argument (--comment false) leaves a stray
// argument: the error says how a bool flag takes its value. A stray word after a flag that
// takes a value, or a word that is no bool, gets the usual message.
func TestStrayBoolValue(t *testing.T) {
	const plain = ": name input files with --traces, --tasks, --pairs or --scholar/--auditor\n"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"gate", "--traces", "../fixtures/pass/traces.jsonl", "--comment", "false"}, `agentgate: gate takes no arguments, got "false" (a bool flag takes its value as --comment=false)` + "\n"},
		{[]string{"gate", "-allow-unmatched", "true", "--traces", "../fixtures/pass/traces.jsonl"}, `agentgate: gate takes no arguments, got "true" (a bool flag takes its value as --allow-unmatched=true)` + "\n"},
		{[]string{"gate", "--comment=true", "false"}, `agentgate: gate takes no arguments, got "false"` + plain},
		{[]string{"gate", "--comment", "maybe"}, `agentgate: gate takes no arguments, got "maybe"` + plain},
		{[]string{"gate", "--profile", "default", "false"}, `agentgate: gate takes no arguments, got "false"` + plain},
	} {
		code, stdout, stderr := cli(t, "", c.args...)
		if code != 3 || stdout != "" || stderr != c.want {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 3 and %q", c.args, code, stdout, stderr, c.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"trace", "traces", 1}, {"kitten", "sitting", 3}, {"pa-gate", "pa_gate", 1}, {"abc", "", 3}} {
		if got := editDistance(c.a, c.b); got != c.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}

// A directory where rs1 or rcs reads one file gets one clear line and exit 3, not "invalid
// JSON at line 1".
func TestDropInDirectory(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"rs1", "../fixtures/fail"}, "agentgate: rs1: ../fixtures/fail is a directory: give one trace file (.json or .jsonl); to evaluate every file in it, use agentgate gate --traces '../fixtures/fail/*.json*'\n"},
		{[]string{"rcs", "--tasks", "../fixtures"}, "agentgate: rcs: ../fixtures is a directory: give one task file (.json or .jsonl); to evaluate every file in it, use agentgate gate --tasks '../fixtures/*.json*'\n"},
		{[]string{"rcs", "../fixtures/pass/"}, "agentgate: rcs: ../fixtures/pass/ is a directory: give one task file (.json or .jsonl); to evaluate every file in it, use agentgate gate --tasks '../fixtures/pass/*.json*'\n"},
	}
	for _, c := range cases {
		code, stdout, stderr := cli(t, "", c.args...)
		if code != 3 || stderr != c.want || stdout != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit 3, stderr %q", c.args, code, stderr, stdout, c.want)
		}
	}
}
