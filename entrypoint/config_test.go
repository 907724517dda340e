package entrypoint

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/input"
)

func TestParseConfig(t *testing.T) {
	text := `# agentgate settings
---
traces:
  - evals/a/*.jsonl   # first suite
  - 'evals/b c/*.jsonl'
tasks: "evals/rcs.json"
pairs: [p1.jsonl, "p2.jsonl"]
pa-min: 0.85 # relaxed for now
profile: reference
scholar: |
  s1.jsonl
  s2.jsonl

fail-on: 'warn'
`
	got, _, err := parseConfig("agentgate.yml", strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]setting{
		"traces":  {value: "evals/a/*.jsonl\nevals/b c/*.jsonl", source: "agentgate.yml:4:3", items: []string{"evals/a/*.jsonl", "evals/b c/*.jsonl"}},
		"tasks":   {value: "evals/rcs.json", source: "agentgate.yml:6:8"},
		"pairs":   {value: "p1.jsonl\np2.jsonl", source: "agentgate.yml:7:8", items: []string{"p1.jsonl", "p2.jsonl"}},
		"pa-min":  {value: "0.85", source: "agentgate.yml:8:9"},
		"profile": {value: "reference", source: "agentgate.yml:9:10"},
		"scholar": {value: "s1.jsonl\ns2.jsonl\n", source: "agentgate.yml:10:10"},
		"fail-on": {value: "warn", source: "agentgate.yml:14:10"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

// YAML the hand-written reader refused is read as YAML means it: a comma inside a quoted list
// item is part of the name, keys may be quoted, > folds lines, an alias repeats a value, and
// a document start or an indented mapping are fine.
func TestParseConfigValidYAML(t *testing.T) {
	cases := []struct {
		text string
		want settings
	}{
		{"traces: [\"a,1.jsonl\", b.jsonl]\n", settings{"traces": {value: "a,1.jsonl\nb.jsonl", source: "c.yml:1:9", items: []string{"a,1.jsonl", "b.jsonl"}}}},
		{"\"pa-min\": 0.8\n'kappa-min': 0.7\n", settings{"pa-min": {value: "0.8", source: "c.yml:1:11"}, "kappa-min": {value: "0.7", source: "c.yml:2:14"}}},
		{"scholar: >\n  s1.jsonl\n  s2.jsonl\n", settings{"scholar": {value: "s1.jsonl s2.jsonl\n", source: "c.yml:1:10"}}},
		{"traces: &suite [a.jsonl]\ntasks: *suite\n", settings{
			"traces": {value: "a.jsonl", source: "c.yml:1:9", items: []string{"a.jsonl"}},
			"tasks":  {value: "a.jsonl", source: "c.yml:2:8", items: []string{"a.jsonl"}}}},
		{"  pa-min: 0.9\n", settings{"pa-min": {value: "0.9", source: "c.yml:1:11"}}},
		{"traces:\npairs: []\n", settings{"traces": {source: "c.yml:1:8"}, "pairs": {source: "c.yml:2:8", items: []string{}}}},
		{"", settings{}},
		{"# nothing yet\n---\n", settings{}},
	}
	for _, c := range cases {
		got, _, err := parseConfig("c.yml", strings.NewReader(c.text))
		if err != nil || !reflect.DeepEqual(settings(got), c.want) {
			t.Errorf("parseConfig(%q)\n got %+v, %v\nwant %+v", c.text, got, err, c.want)
		}
	}
	// The list setting keeps a quoted comma whole; a plain value is split as an input is.
	s := settings{"traces": {value: "a,1.jsonl\nb.jsonl", items: []string{"a,1.jsonl", "b.jsonl"}}, "tasks": {value: "x.json, y.json"}}
	if got := s.list("traces"); !slices.Equal(got, []string{"a,1.jsonl", "b.jsonl"}) {
		t.Errorf("list(traces) = %q", got)
	}
	if got := s.list("tasks"); !slices.Equal(got, []string{"x.json", "y.json"}) {
		t.Errorf("list(tasks) = %q", got)
	}
}

func TestParseConfigErrors(t *testing.T) {
	cases := []struct{ text, want string }{
		{"pa_min: 0.9\n", `c.yml:1:1: unknown setting "pa_min": did you mean pa-min?`},
		{"tracs:\n  - a.jsonl\n", `c.yml:1:1: unknown setting "tracs": did you mean traces?`},
		{"gates:\n  pa-min: 0.9\n", `c.yml:1:1: unknown setting "gates" (the settings are the action's inputs: agentgate gate --help lists them)`},
		{"traces:\n  pa-min: 0.9\n", "c.yml:2:3: traces: a setting's value is a single value or a list, not a mapping"},
		{"traces:\n  - [a]\n", "c.yml:2:5: traces: a list item is a single value, not a list"},
		{"pa-min 0.9\n", "c.yml:1:1: a config file is a mapping of settings (`key: value` lines, the action's input names); this is a single value: is a colon missing?"},
		{"ghp_s3cret\n", "c.yml:1:1: a config file is a mapping of settings (`key: value` lines, the action's input names); this is a single value: is a colon missing?"},
		{"[a, b]\n", "c.yml:1:1: a config file is a mapping of settings (`key: value` lines, the action's input names), not a list"},
		{"? [a]\n: 1\n", "c.yml:1:3: a setting's name is a plain word (an action input's name), not a list"},
		{"pa-min: 0.9\npa-min: 0.8\n", `c.yml:2:1: "pa-min" is set twice (first on line 1)`},
		{"tasks: \"a.json\n", "c.yml:2: invalid YAML: found unexpected end of stream"},
		{"pairs: [a, b\n", "c.yml:2: invalid YAML: did not find expected ',' or ']'"},
		{"pa-min: 1\ntasks: \"a.json\" tail\n", "c.yml:2: invalid YAML: did not find expected key"},
		{"pa-min: 1\npairs: [a,\n  b\n", "c.yml:2: invalid YAML: did not find expected ',' or ']'"},
		{"traces: {a: 1}\n", "c.yml:1:9: traces: a setting's value is a single value or a list, not a mapping"},
		{"config: other.yml\n", "c.yml:1:1: a config file cannot name another config file"},
		{"pa-min: [0.9]\n", "c.yml:1:9: pa-min takes one value, not a list"},
		{"profile:\n  - reference\n", "c.yml:2:3: profile takes one value, not a list"},
		{"\tpa-min: 0.9\n", "c.yml:1: invalid YAML: found character that cannot start any token (a tab: YAML indents with spaces)"},
		{"pa-min: 0.9\n---\npa-min: 0.8\n", "c.yml:2:1: a config file holds one YAML document; this is a second one"},
		{"tasks: *nowhere\n", "c.yml:1: invalid YAML: unknown anchor 'nowhere' referenced"},
	}
	for _, c := range cases {
		_, _, err := parseConfig("c.yml", strings.NewReader(c.text))
		if err == nil || err.Error() != c.want {
			t.Errorf("parseConfig(%q)\n got %v\nwant %s", c.text, err, c.want)
		}
		if err != nil && !input.IsInputError(err) {
			t.Errorf("%q: error %T is not an input error", c.text, err)
		}
	}
}

// A config file past 1 MiB is refused before it is parsed.
func TestParseConfigTooLarge(t *testing.T) {
	text := "traces: a.jsonl\n" + strings.Repeat("# padding\n", maxConfigBytes/10+1)
	_, _, err := parseConfig("c.yml", strings.NewReader(text))
	if err == nil || err.Error() != "c.yml: not read: a config file holds at most 1048576 bytes (1 MiB) of settings" {
		t.Errorf("got %v", err)
	}
}

func TestSettingsValueErrorsNameTheirSource(t *testing.T) {
	cases := []struct {
		s    settings
		want string
	}{
		{settings{"pa-min": {value: "high", source: "agentgate.yml:3"}}, `agentgate.yml:3: pa-min: "high" is not a number`},
		{settings{"max-failed-traces": {value: "1.5", source: "--max-failed-traces"}}, `--max-failed-traces: "1.5" is not a whole number`},
		{settings{"comment": {value: "maybe", source: "input comment"}}, `input comment: "maybe" is not true or false`},
		{settings{"profile": {value: "strict", source: "input profile"}}, `input profile: unknown profile "strict": want "default" or "reference"`},
		{settings{"fail-on": {value: "error", source: "--fail-on"}}, `--fail-on: unknown fail-on "error": want "fail", "warn" or "never"`},
		{settings{"comment-mode": {value: "append", source: "input comment-mode"}}, `input comment-mode: unknown comment-mode "append": want "update" or "recreate"`},
		{settings{"kappa-min": {value: "NaN", source: "--kappa-min"}}, `--kappa-min: "NaN" is not a number`},
	}
	for _, c := range cases {
		if _, err := c.s.gateConfig(); err == nil || err.Error() != c.want {
			t.Errorf("gateConfig(%v) = %v, want %q", c.s, err, c.want)
		}
	}
}

// FuzzParseConfig: no input makes the config reader panic, and every error names the file and,
// past the first read, a line.
func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{"traces:\n  - a\n", "a: *ghp_0123456789abcdefghijAB\n", "traces: [\"a,1\", b]\n'pa-min': >\n  1\n", "pairs: [a, 'b']\n", "scholar: |\n  x\n", "tasks: \"a\\\"b\" # c\n", "x", "a: '", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got, _, err := parseConfig("f.yml", strings.NewReader(text))
		if err != nil {
			if !input.IsInputError(err) || !strings.HasPrefix(err.Error(), "f.yml") {
				t.Fatalf("error %T %q does not name the file", err, err)
			}
			if tok := tokensIn(err.Error()); len(tok) > 0 {
				t.Fatalf("error %q quotes the token-shaped %q", err, tok)
			}
			return
		}
		for k := range got {
			if !knownKey(k) {
				t.Fatalf("unknown key %q accepted", k)
			}
		}
	})
}

// A github-token in the config file is returned for masking, even when a later line (or its
// own) is malformed, and no error quotes it.
func TestParseConfigSecrets(t *testing.T) {
	cases := []struct {
		text    string
		secrets []string
		err     string
	}{
		{"github-token: ghp_s3cret\ntraces: a.jsonl\n", []string{"ghp_s3cret"}, ""},
		{"github-token: 'ghp_s3cret' # the bot's\n", []string{"ghp_s3cret"}, ""},
		{"github-token: ghp_s3cret\npa-min 0.9 ghp_s3cret\n", []string{"ghp_s3cret"}, "c.yml:2: invalid YAML: could not find expected ':'"},
		{"github-token: \"ghp_s3cret\n", []string{"\"ghp_s3cret", "ghp_s3cret"}, "c.yml:2: invalid YAML: found unexpected end of stream"},
		{"github-token: \"ghp_s3cret\" tail\n", []string{"\"ghp_s3cret\" tail", "ghp_s3cret\" tail"}, "c.yml:1: invalid YAML: did not find expected key"},
		{"github-token: [ghp_s3cret\n", []string{"[ghp_s3cret", "ghp_s3cret"}, "c.yml:2: invalid YAML: did not find expected ',' or ']'"},
		{"github-token: {ghp_s3cret}\n", []string{"ghp_s3cret"}, "c.yml:1:15: github-token: a setting's value is a single value or a list, not a mapping"},
		{"github-token ghp_s3cret\n", nil, "c.yml:1:1: a config file is a mapping of settings (`key: value` lines, the action's input names); this is a single value: is a colon missing?"},
		{"github-token: |\n  ghp_one\n  ghp_two\n", []string{"ghp_one", "ghp_two"}, ""},
		{"github-token:\n  - 'ghp_s3cret\n", []string{"'ghp_s3cret", "ghp_s3cret"}, "c.yml:2: invalid YAML: found unexpected end of stream"},
		{"\"github-token\": [ghp_one, 'ghp_two']\npa-min: [1\n", []string{"[ghp_one, 'ghp_two']", "ghp_one, 'ghp_two"}, "c.yml:2: invalid YAML: did not find expected ',' or ']'"},
		{"github-token: ghp_s3cret\npa-mim: 1\n", []string{"ghp_s3cret"}, `c.yml:2:1: unknown setting "pa-mim": did you mean pa-min?`},
		{"pa-min: ghp_0123456789abcdefghijABCDEFGHIJ\n", []string{"ghp_0123456789abcdefghijABCDEFGHIJ"}, ""},
		{"ghp_0123456789abcdefghijABCDEFGHIJ: 1\n", []string{"ghp_0123456789abcdefghijABCDEFGHIJ"}, "c.yml:1:1: unknown setting (not shown: it looks like a token)"},
		{"pa-min: *ghp_0123456789abcdefghijABCDEFGHIJ\n", []string{"ghp_0123456789abcdefghijABCDEFGHIJ"}, "c.yml:1: invalid YAML: unknown anchor '***' referenced"},
		{"tasks: \"a.json\" tail\n", nil, "c.yml:1: invalid YAML: did not find expected key"},
	}
	for _, c := range cases {
		_, secrets, err := parseConfig("c.yml", strings.NewReader(c.text))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.err {
			t.Errorf("parseConfig(%q) error\n got %s\nwant %s", c.text, got, c.err)
		}
		if strings.Contains(got, "ghp_") {
			t.Errorf("parseConfig(%q): the error quotes the secret: %s", c.text, got)
		}
		if strings.Join(secrets, "|") != strings.Join(c.secrets, "|") {
			t.Errorf("parseConfig(%q) secrets %q, want %q", c.text, secrets, c.secrets)
		}
	}
}

// A trace file whose name holds a comma is named whole by a quoted YAML list item, and the
// gate reads it: the bundled passing suite split over "a,1.jsonl" (3 traces) and b.jsonl (2).
func TestConfigListItemWithComma(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "fixtures", "pass", "traces.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("fixtures/pass/traces.jsonl has %d traces, want 5", len(lines))
	}
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a,1.jsonl"), strings.Join(lines[:3], "")+"\n")
	write(t, filepath.Join(dir, "b.jsonl"), strings.Join(lines[3:], "")+"\n")
	report := filepath.Join(dir, "r.json")
	cfg := filepath.Join(dir, "agentgate.yml")
	write(t, cfg, fmt.Sprintf("traces: [%q, %q]\n\"json\": %q\n", filepath.Join(dir, "a,1.jsonl"), filepath.Join(dir, "b.jsonl"), report))
	code, _, stderr := cli(t, "", "gate", "--config", cfg)
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s", code, stderr)
	}
	out, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"total": 5,`) {
		t.Errorf("the report does not count 5 traces:\n%.600s", out)
	}
}

// The config file docs/reference.md shows is read as it is written.
func TestDocumentedConfig(t *testing.T) {
	b, err := os.ReadFile("../docs/reference.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(b), "```yaml\n# agentgate.yml\n")
	block, _, closed := strings.Cut(block, "```\n")
	if !ok || !closed {
		t.Fatal("docs/reference.md shows no agentgate.yml")
	}
	got, _, err := parseConfig("agentgate.yml", strings.NewReader("# agentgate.yml\n"+block))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := settings(got).gateConfig()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.inputs.Traces, []string{"evals/out/traces/*.jsonl"}) || cfg.options.Thresholds.MaxFailedTraces != 1 || cfg.options.Thresholds.KappaMin != 0.7 {
		t.Errorf("docs/reference.md's agentgate.yml reads as %+v", cfg)
	}
}
