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

// --help still prints the usage, and exits 0.
func TestHelpStillPrintsUsage(t *testing.T) {
	code, _, stderr := cli(t, "", "rcs", "--help")
	if code != 0 || !strings.HasPrefix(stderr, "Usage: agentgate rcs --tasks FILE\n\nFlags:\n  -profile string\n") {
		t.Errorf("rcs --help: exit %d, stderr %q", code, stderr)
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
