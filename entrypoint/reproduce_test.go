package entrypoint

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate"
)

// TestReproduceCommand pins the command for settings given as a user would write them, through
// an action's inputs: the values in one spelling, defaults left out, the table's order.
func TestReproduceCommand(t *testing.T) {
	for _, c := range []struct {
		name string
		set  map[string]string
		want string
	}{
		{"nothing", nil, "agentgate gate"},
		// outcome-scorer was once left out, and the command gave another answer
		{"outcome-scorer", map[string]string{"traces": "logs/*.eval", "outcome-scorer": " model_graded_qa "},
			"agentgate gate --traces 'logs/*.eval' --outcome-scorer model_graded_qa"},
		{"defaults written out", map[string]string{"coherence-min": "0.50", "pa-min": "0.9", "max-failed-traces": "0",
			"fail-on-regression": "yes", "regression-alpha": ".05", "pass-k": "1", "success-threshold": "0.999999",
			"fail-on-skipped": "explicit", "allow-unmatched": "off", "profile": "default", "fail-on": "fail"},
			"agentgate gate --fail-on-regression true"}, // given, it breaches when skipped (fail-on-skipped explicit)
		{"defaults written out, fail-on-skipped false", map[string]string{"kappa-min": "0.75", "fail-on-regression": "yes", "fail-on-skipped": "no"},
			"agentgate gate --fail-on-skipped=false"},
		{"a default gate given", map[string]string{"kappa-min": "0.75"}, "agentgate gate --kappa-min 0.75"},
		{"bools", map[string]string{"fail-on-regression": "off", "fail-on-skipped": "yes", "allow-unmatched": "1"},
			"agentgate gate --fail-on-regression false --fail-on-skipped=true --allow-unmatched"},
		{"numbers", map[string]string{"coherence-min": "0.70", "max-failed-traces": " 3", "max-new-failures": "0",
			"pass-k-min": "1", "pass-k": "4", "success-rate-min": "9e-1", "max-input-bytes": "2GiB"},
			"agentgate gate --coherence-min 0.7 --max-failed-traces 3 --max-new-failures 0 --pass-k-min 1 --pass-k 4 --success-rate-min 0.9 --max-input-bytes 2147483648"},
		{"lists", map[string]string{"traces": "a b/*.jsonl,\nc.json", "scholar": "s.jsonl", "auditor": "a.jsonl", "outcomes": "o.jsonl"},
			"agentgate gate --traces 'a b/*.jsonl' --traces c.json --scholar s.jsonl --auditor a.jsonl --outcomes o.jsonl"},
		{"baseline path", map[string]string{"baseline": "it's.json", "profile": "reference", "fail-on": "warn"},
			`agentgate gate --baseline 'it'\''s.json' --profile reference --fail-on warn`},
		{"baseline auto", map[string]string{"baseline": "auto", "baseline-artifact": "other"}, "agentgate gate"},
		{"no effect", map[string]string{"pairs": "p.jsonl", "merge": "shards/*.json", "config": "c.yml", "json": "r.json",
			"markdown": "r.md", "junit": "j.xml", "sarif": "s.sarif", "otel": "o.json", "comment": "false",
			"comment-mode": "recreate", "github-token": "ghs_x", "pr-number": "7"},
			"agentgate gate --pairs p.jsonl"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := settings{}
			for k, v := range c.set {
				s[k] = setting{value: v, source: "input " + k}
			}
			cfg, err := s.gateConfig()
			if err != nil {
				t.Fatal(err)
			}
			if got := reproduceCommand(cfg); got != c.want {
				t.Errorf("\n got %s\nwant %s", got, c.want)
			}
		})
	}
}

// Every setting that changes the answer is a flag the reproduce command carries: given alone
// with a value other than its default, the command has it, and parsing the command's
// arguments as the CLI does gives the same configuration. A setting added to the table is
// walked too, so it cannot be left out of the command unnoticed; one that does not change
// the answer must say why (settingDef.noEffect), and is never printed.
func TestReproduceEverySetting(t *testing.T) {
	// other is a value other than the default for each kind, as a user might write it, and
	// the flags the command prints for it; strings that must be a known word say it here.
	other := map[settingKind]struct{ value, flags string }{
		kindNumber: {" 0.125 ", " --NAME 0.125"},
		kindWhole:  {"7", " --NAME 7"},
		kindSize:   {"3KiB", " --NAME 3072"},
		kindList:   {"runs/a b/*.jsonl, runs/c.json", " --NAME 'runs/a b/*.jsonl' --NAME runs/c.json"},
		kindString: {"it's here", ` --NAME 'it'\''s here'`},
	}
	words := map[string]string{"profile": "reference", "fail-on": "warn", "fail-on-skipped": "false"}
	all, allWant := settings{}, "agentgate gate"
	var budget setting
	var budgetWant string
	n := 0
	for _, d := range settingTable {
		if d.noEffect != "" {
			continue
		}
		n++
		if d.where&asFlag == 0 {
			t.Errorf("%s changes the answer but is no flag: the reproduce command cannot give it", d.name)
			continue
		}
		o, ok := other[d.kind]
		switch {
		case d.kind == kindBool:
			o.value = map[string]string{"true": "off", "false": "yes", "": "yes"}[d.def]
			switch {
			case d.valueFlag:
				o.flags = " --NAME " + map[string]string{"off": "false", "yes": "true"}[o.value]
			case o.value == "yes":
				o.flags = " --NAME"
			default:
				o.flags = " --NAME=false"
			}
		case d.boolLike: // a flag that stands alone for true takes its value after "="
			o = struct{ value, flags string }{words[d.name], " --NAME=" + words[d.name]}
		case words[d.name] != "":
			o = struct{ value, flags string }{words[d.name], " --NAME " + words[d.name]}
		case !ok:
			t.Fatalf("%s: no value of kind %d in this test", d.name, d.kind)
		}
		want := "agentgate gate" + strings.ReplaceAll(o.flags, "NAME", d.name)
		s := settings{d.name: {value: o.value, source: "input " + d.name}}
		checkReproduces(t, d.name, s, want)
		if d.name == gate.TokenBudget {
			// the reference profile (profile's other value) refuses any budget but RS-1's:
			// token-budget joins the others in place of profile below
			budget, budgetWant = s[d.name], strings.TrimPrefix(want, "agentgate gate")
			continue
		}
		all[d.name] = s[d.name]
		allWant += strings.TrimPrefix(want, "agentgate gate")
	}
	checkReproduces(t, "every setting at once", all, allWant)
	delete(all, "profile")
	all[gate.TokenBudget] = budget
	allWant = strings.Replace(allWant, " --profile reference", budgetWant, 1)
	checkReproduces(t, "every setting at once, token-budget for profile", all, allWant)
	if n != 29 {
		t.Errorf("%d settings change the answer, want 29", n)
	}
}

// checkReproduces checks that s's reproduce command is want, and that it parses back, through
// a shell and the gate's flags, to the configuration s gives.
func checkReproduces(t *testing.T, name string, s settings, want string) {
	t.Helper()
	cfg, err := s.gateConfig()
	if err != nil {
		t.Errorf("%s: %v (give it a valid value in this test)", name, err)
		return
	}
	got := reproduceCommand(cfg)
	if got != want {
		t.Errorf("%s: reproduce command\n got %s\nwant %s", name, got, want)
		return
	}
	fs := newFlagSet(cmdGate, "[flags]", io.Discard)
	flags := map[string]setting{}
	defineFlags(fs, flags)
	if pos, err := parseArgs(fs, shellWords(t, got), io.Discard); err != nil || len(pos) > 0 {
		t.Errorf("%s: %s: arguments %q, %v", name, got, pos, err)
		return
	}
	back, err := settings(flags).gateConfig()
	if err != nil {
		t.Errorf("%s: %s: %v", name, got, err)
		return
	}
	cfg.baselineSource, back.baselineSource = "", "" // an input's name, then a flag's
	// %+v, not reflect.DeepEqual: unset gates are NaN
	if g, w := fmt.Sprintf("%+v", *back), fmt.Sprintf("%+v", *cfg); g != w {
		t.Errorf("%s: %s parses to another configuration:\n got %s\nwant %s", name, got, g, w)
	}
}

// shellWords is the arguments a POSIX shell passes to `agentgate gate` for the command line.
func shellWords(t *testing.T, command string) []string {
	t.Helper()
	rest, ok := strings.CutPrefix(command, "agentgate gate")
	if !ok {
		t.Fatalf("%q is no agentgate gate command", command)
	}
	if rest == "" {
		return nil
	}
	out, err := exec.Command("sh", "-c", `printf '%s\0'`+rest).Output()
	if err != nil {
		t.Fatalf("sh: %v", err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
}

// The command a report prints gives the report's answer: run on an Inspect log whose outcome
// is another scorer's than the first (outcome-scorer, which the command once left out), it
// writes the same JSON report byte for byte, and that report is not the first scorer's.
func TestReproduceGivesTheSameAnswer(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join("..", "gate", "trace", "testdata", "formats", "inspect-scores.json")
	md, first, again, firstScorer := filepath.Join(dir, "r.md"), filepath.Join(dir, "1.json"), filepath.Join(dir, "2.json"), filepath.Join(dir, "3.json")
	gate := func(args ...string) []byte {
		t.Helper()
		if code, stdout, stderr := cli(t, "", append([]string{"gate"}, args...)...); code != 0 {
			t.Fatalf("%q: exit %d\n%s%s", args, code, stdout, stderr)
		}
		b, err := os.ReadFile(args[len(args)-1])
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	report := string(gate("--traces", log, "--outcome-scorer", "model_graded_qa", "--json", first, "--markdown", md))
	want := gate("--traces", log, "--outcome-scorer", "model_graded_qa", "--json", first)
	_, command, ok := strings.Cut(report, "Reproduce locally:\n\n```sh\n")
	command, _, ok2 := strings.Cut(command, "\n```")
	if !ok || !ok2 {
		t.Fatalf("no reproduce command in\n%s", report)
	}
	if c := "agentgate gate --traces " + log + " --outcome-scorer model_graded_qa"; command != c {
		t.Errorf("command\n got %s\nwant %s", command, c)
	}
	if got := gate(append(shellWords(t, command), "--json", again)...); !bytes.Equal(got, want) {
		t.Errorf("the reproduce command %s gives another report:\n%s\nwant\n%s", command, got, want)
	}
	if bytes.Equal(gate("--traces", log, "--json", firstScorer), want) {
		t.Errorf("the first scorer gives the same report: the test shows nothing")
	}
}
