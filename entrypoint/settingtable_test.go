package entrypoint

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// A setting's declared default is the one the binary uses: giving it explicitly changes
// nothing in the parsed configuration.
func TestSettingDefaultsAreTheBinarys(t *testing.T) {
	none, err := settings{}.gateConfig()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range settingTable {
		if d.def == "" {
			continue
		}
		n++
		got, err := settings{d.name: {value: d.def, source: "t"}}.gateConfig()
		if err != nil {
			t.Errorf("%s: its default %q is refused: %v", d.name, d.def, err)
			continue
		}
		// Given says which settings were given, the one thing the default changes: under
		// fail-on-skipped explicit a gate the user set is held to what it measured.
		if g := got.options.Thresholds.Given; !slices.Equal(g, []string{d.name}) {
			t.Errorf("%s given: Given %q", d.name, g)
		}
		got.options.Thresholds.Given = nil
		// and so, given at its default, a gate on by default that can skip is in the answer
		if slices.Contains(skippableDefaults, d.name) {
			if v := got.answer[d.name]; len(got.answer) != 1 || len(v) != 1 {
				t.Errorf("%s given at its default: answer %v", d.name, got.answer)
			}
			got.answer = none.answer
		}
		// %+v, not reflect.DeepEqual: unset gates are NaN
		if g, w := fmt.Sprintf("%+v", *got), fmt.Sprintf("%+v", *none); g != w {
			t.Errorf("%s: %q is not its default:\n got %s\nwant %s", d.name, d.def, g, w)
		}
	}
	if n != 20 {
		t.Errorf("%d settings have a default, want 20", n)
	}
}

// A setting's declared kind is how the binary reads it: a value of another kind is refused
// with the kind's own message, and a list keeps every pattern.
func TestSettingKindsAreTheBinarys(t *testing.T) {
	bad := map[settingKind]struct{ value, msg string }{
		kindNumber: {"x", `t: %s: "x" is not a number`},
		kindWhole:  {"1.5", `t: %s: "1.5" is not a whole number`},
		kindBool:   {"maybe", `t: %s: "maybe" is not true or false`},
		kindSize:   {"12 parsecs", `t: "12 parsecs" is not a size: want a positive number of bytes, as 1073741824 or 1GiB`},
	}
	for _, d := range settingTable {
		s := settings{d.name: {value: "a.jsonl,b.jsonl\nc.jsonl", source: "t"}}
		switch b, ok := bad[d.kind]; {
		case d.kind == kindList:
			if got := s.list(d.name); strings.Join(got, " ") != "a.jsonl b.jsonl c.jsonl" {
				t.Errorf("%s: list %q", d.name, got)
			}
		case ok:
			want := b.msg
			if strings.Contains(want, "%s") {
				want = fmt.Sprintf(want, d.name)
			}
			_, err := settings{d.name: {value: b.value, source: "t"}}.gateConfig()
			if err == nil || err.Error() != want {
				t.Errorf("%s = %q: %v, want %s", d.name, b.value, err, want)
			}
		}
	}
}

// The flags of `agentgate gate` are the table's, each with its usage; --help shows them.
func TestGateFlagsFromTheTable(t *testing.T) {
	code, help, stderr := cli(t, "", "gate", "--help")
	if code != 0 || stderr != "" {
		t.Fatalf("gate --help: exit %d, stderr %q", code, stderr)
	}
	var flags []string
	for _, line := range strings.Split(help, "\n") {
		if name, ok := strings.CutPrefix(line, "  -"); ok {
			name, _, _ = strings.Cut(name, " ")
			flags = append(flags, name)
		}
	}
	var want []string
	for _, d := range settingTable {
		if d.where&asFlag != 0 {
			want = append(want, d.name)
		}
	}
	slices.Sort(want) // the flag package lists them sorted
	if !slices.Equal(flags, want) {
		t.Errorf("gate --help lists %v\nwant %v", flags, want)
	}
	for _, s := range []string{
		"  -pa-min value\n    \tPercent agreement between the validators must be at least this. (default 0.90)\n",
		"  -traces value\n    \tGlob(s) or directories of execution traces, relative to the workspace: RS-1 ExecutionTrace, OpenAI, Anthropic or tau-bench transcripts, tau2-bench results, mini-swe-agent and SWE-agent trajectories, OTLP/JSON spans, Inspect AI logs (.json, .jsonl, .eval, .traj, gzipped or not). A directory means every such file under it, read as the harness wrote it: the side files beside the traces (predictions, reports, configs, logs) are skipped and listed in one note. '**' matches any depth. Several patterns: repeat the flag, or separate them with commas.\n",
		"  -comment\n    \tUnder GitHub Actions, post (or update) the report as one comment on the pull request. (default true)\n",
	} {
		if !strings.Contains(help, s) {
			t.Errorf("gate --help does not hold %q:\n%s", s, help)
		}
	}
}
