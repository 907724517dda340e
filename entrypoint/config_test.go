package entrypoint

import (
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
		"traces":  {"evals/a/*.jsonl,evals/b c/*.jsonl", "agentgate.yml:3"},
		"tasks":   {"evals/rcs.json", "agentgate.yml:6"},
		"pairs":   {"p1.jsonl,p2.jsonl", "agentgate.yml:7"},
		"pa-min":  {"0.85", "agentgate.yml:8"},
		"profile": {"reference", "agentgate.yml:9"},
		"scholar": {"s1.jsonl\ns2.jsonl\n", "agentgate.yml:10"},
		"fail-on": {"warn", "agentgate.yml:14"},
	}
	if len(got) != len(want) {
		t.Errorf("got %d settings %v, want %d", len(got), got, len(want))
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s = %+v, want %+v", k, got[k], w)
		}
	}
}

func TestParseConfigErrors(t *testing.T) {
	cases := []struct{ text, want string }{
		{"pa_min: 0.9\n", `c.yml:1: unknown setting "pa_min"; known settings: ` + strings.Join(settingKeys, ", ")},
		{"gates:\n  pa-min: 0.9\n", `c.yml:1: unknown setting "gates"; known settings: ` + strings.Join(settingKeys, ", ")},
		{"traces:\n  pa-min: 0.9\n", "c.yml:2: expected a list item (`- value`) under \"traces\""},
		{"  pa-min: 0.9\n", "c.yml:1: unexpected indentation: settings are top-level `key: value` lines (the action's input names)"},
		{"pa-min 0.9\n", "c.yml:1: expected `key: value`, found \"pa-min\" without a colon"},
		{"ghp_s3cret\n", "c.yml:1: expected `key: value`; this line has no colon"},
		{"pa-min: 0.9\npa-min: 0.8\n", "c.yml:2: \"pa-min\" is set twice"},
		{"tasks: \"a.json\n", "c.yml:1: tasks: unterminated double-quoted string"},
		{"pairs: [a, b\n", "c.yml:1: pairs: a flow list must close on the same line with ]"},
		{"traces: {a: 1}\n", "c.yml:1: traces: only plain values, quoted strings, lists and | blocks are supported"},
		{"config: other.yml\n", "c.yml:1: a config file cannot name another config file"},
		{"\tpa-min: 0.9\n", "c.yml:1: tabs cannot indent YAML; use spaces"},
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

func TestSettingsValueErrorsNameTheirSource(t *testing.T) {
	cases := []struct {
		s    settings
		want string
	}{
		{settings{"pa-min": {"high", "agentgate.yml:3"}}, `agentgate.yml:3: pa-min: "high" is not a number`},
		{settings{"max-failed-traces": {"1.5", "--max-failed-traces"}}, `--max-failed-traces: "1.5" is not a whole number`},
		{settings{"comment": {"maybe", "input comment"}}, `input comment: "maybe" is not true or false`},
		{settings{"profile": {"strict", "input profile"}}, `input profile: unknown profile "strict": want "default" or "reference"`},
		{settings{"fail-on": {"error", "--fail-on"}}, `--fail-on: unknown fail-on "error": want "fail" or "warn"`},
		{settings{"comment-mode": {"append", "input comment-mode"}}, `input comment-mode: unknown comment-mode "append": want "update" or "recreate"`},
		{settings{"kappa-min": {"NaN", "--kappa-min"}}, `--kappa-min: "NaN" is not a number`},
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
	for _, s := range []string{"traces:\n  - a\n", "pairs: [a, 'b']\n", "scholar: |\n  x\n", "tasks: \"a\\\"b\" # c\n", "x", "a: '", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got, _, err := parseConfig("f.yml", strings.NewReader(text))
		if err != nil {
			if !input.IsInputError(err) || !strings.HasPrefix(err.Error(), "f.yml") {
				t.Fatalf("error %T %q does not name the file", err, err)
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
		{"github-token: ghp_s3cret\npa-min 0.9 ghp_s3cret\n", []string{"ghp_s3cret"}, "c.yml:2: expected `key: value`, found \"pa-min\" without a colon"},
		{"github-token: \"ghp_s3cret\n", []string{"\"ghp_s3cret", "ghp_s3cret"}, "c.yml:1: github-token: the value is not a valid plain or quoted string (it is not shown: it is a secret)"},
		{"github-token: \"ghp_s3cret\" tail\n", []string{"\"ghp_s3cret\" tail", "ghp_s3cret\" tail"}, "c.yml:1: github-token: the value is not a valid plain or quoted string (it is not shown: it is a secret)"},
		{"github-token: [ghp_s3cret\n", []string{"[ghp_s3cret"}, "c.yml:1: github-token: a flow list must close on the same line with ]"},
		{"github-token: {ghp_s3cret}\n", []string{"{ghp_s3cret}"}, "c.yml:1: github-token: only plain values, quoted strings, lists and | blocks are supported"},
		{"github-token ghp_s3cret\n", nil, "c.yml:1: expected `key: value`, found \"github-token\" without a colon"},
		{"github-token: |\n  ghp_one\n  ghp_two\n", []string{"ghp_one", "ghp_two"}, ""},
		{"github-token:\n  - 'ghp_s3cret\n", []string{"'ghp_s3cret", "ghp_s3cret"}, "c.yml:2: github-token: the value is not a valid plain or quoted string (it is not shown: it is a secret)"},
		{"tasks: \"a.json\" tail\n", nil, "c.yml:1: tasks: unexpected \"tail\" after the quoted string"},
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
		if strings.Join(secrets, "|") != strings.Join(c.secrets, "|") {
			t.Errorf("parseConfig(%q) secrets %q, want %q", c.text, secrets, c.secrets)
		}
	}
}
