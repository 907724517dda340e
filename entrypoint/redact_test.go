package entrypoint

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The token never appears in what agentgate writes, whichever setting it sits under (issue 25
// item 2): `pa-min: ghs_…` in a config file was quoted in "… is not a number" on stderr, in the
// error annotation and in the job summary. It is masked first, then every value equal to it is
// shown as ***.
func TestTokenUnderAnotherKeyNeverQuoted(t *testing.T) {
	const shaped = "ghs_16C7e42F292c6912E7710c838347Ae178B4a" // a token as GitHub writes them
	const input = "s3cret-token-from-the-input"               // any value of the github-token input
	cases := []struct {
		name   string
		config string
		inputs map[string]string
		secret string
		stdout string // the runner commands, in order
		stderr string
	}{
		{"token-shaped value under pa-min", "traces: a.jsonl\npa-min: " + shaped + "\n", nil, shaped,
			"::add-mask::" + shaped + "\n" +
				"::error title=agentgate could not evaluate the suite::agentgate.yml:2:9: pa-min: \"***\" is not a number\n",
			"agentgate: agentgate.yml:2:9: pa-min: \"***\" is not a number\n"},
		{"the github-token input's value under kappa-min", "traces: a.jsonl\nkappa-min: \"" + input + "\"\n", map[string]string{"github-token": input}, input,
			"::add-mask::" + input + "\n" +
				"::error title=agentgate could not evaluate the suite::agentgate.yml:2:12: kappa-min: \"***\" is not a number\n",
			"agentgate: agentgate.yml:2:12: kappa-min: \"***\" is not a number\n"},
		{"the config's github-token under fail-on", "github-token: " + input + "\nfail-on: " + input + "\n", nil, input,
			"::add-mask::" + input + "\n" +
				"::error title=agentgate could not evaluate the suite::agentgate.yml:2:10: unknown fail-on \"***\": want \"fail\", \"warn\" or \"never\"\n",
			"agentgate: agentgate.yml:2:10: unknown fail-on \"***\": want \"fail\", \"warn\" or \"never\"\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, filepath.Join(dir, "agentgate.yml"), c.config)
			inputs := map[string]string{"config": "agentgate.yml"}
			for k, v := range c.inputs {
				inputs[k] = v
			}
			code, stdout, stderr, summary := actionRun(t, dir, inputs)
			if code != 3 {
				t.Errorf("exit %d, want 3", code)
			}
			if stdout != c.stdout {
				t.Errorf("stdout\n got  %q\n want %q", stdout, c.stdout)
			}
			if stderr != c.stderr {
				t.Errorf("stderr\n got  %q\n want %q", stderr, c.stderr)
			}
			if strings.Contains(summary, c.secret) || !strings.Contains(summary, `"***" is not a number`) && !strings.Contains(summary, `fail-on "***"`) {
				t.Errorf("summary:\n%s", summary)
			}
			// the same config on the command line: no mask, and stderr shows no token either
			code, _, stderr = cli(t, "", "gate", "--config", filepath.Join(dir, "agentgate.yml"))
			if code != 3 || strings.Contains(stderr, c.secret) && c.inputs == nil {
				t.Errorf("CLI: exit %d, stderr %q", code, stderr)
			}
		})
	}
}

// A trace whose id is the token (an agent that logged its environment, say) is reported with
// *** in its place: in the text on stdout, the annotations, the job summary and the JSON,
// markdown, JUnit, SARIF and OTLP/JSON reports.
func TestTokenInTraceDataRedactedFromReports(t *testing.T) {
	const token = "ghs_TokenThatTheTraceLeaked0123456789ab"
	dir := t.TempDir()
	fail, err := os.ReadFile(filepath.Join("..", "fixtures", "fail", "traces.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(fail), "\n")
	leaked := strings.Replace(first, `"flight-search-loop-101"`, `"run `+token+`"`, 1)
	write(t, filepath.Join(dir, "a.jsonl"), leaked+"\n")
	code, stdout, stderr, summary := actionRun(t, dir, map[string]string{"github-token": token, "traces": "a.jsonl",
		"json": "r.json", "markdown": "r.md", "junit": "r.xml", "sarif": "r.sarif", "otel": "r.otel.jsonl"})
	if code != 2 {
		t.Fatalf("exit %d, want 2 (FAIL)\n%s%s", code, stdout, stderr)
	}
	// the mask is the one place the token is written, and the first line
	if !strings.HasPrefix(stdout, "::add-mask::"+token+"\n") || strings.Count(stdout, token) != 1 {
		t.Errorf("stdout quotes the token:\n%s", stdout)
	}
	if !strings.Contains(stdout, "::error ") || !strings.Contains(stdout, "run ***") {
		t.Errorf("stdout has no annotation naming the trace as run ***:\n%s", stdout)
	}
	if strings.Contains(stderr, token) {
		t.Errorf("stderr quotes the token:\n%s", stderr)
	}
	if strings.Contains(summary, token) || !strings.Contains(summary, "run \\*\\*\\*") && !strings.Contains(summary, "run ***") {
		t.Errorf("summary:\n%s", summary)
	}
	for _, name := range []string{"r.json", "r.md", "r.xml", "r.sarif", "r.otel.jsonl"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), token) || !strings.Contains(string(b), "run ***") && !strings.Contains(string(b), `run \*\*\*`) {
			t.Errorf("%s quotes the token or lost the trace:\n%.2000s", name, b)
		}
	}
}

// The report writers write in chunks that may cut a token in two: the redactor still finds it,
// and writes everything, the last partial line at Flush.
func TestRedactWriterAcrossWrites(t *testing.T) {
	r := &redactor{}
	r.add("ghs_abcdefghijklmnopqrstuvwxyz", "x", "")
	var b strings.Builder
	w := r.Writer(&b)
	text := "id ghs_abcdefghijklmnopqrstuvwxyz here\n\"ghs_abcdefghijklmnopqrstuvwxyz\", x\nlast ghs_abcdefghijklmnopqrstuvwxyz"
	for i := 0; i < len(text); i += 7 {
		if _, err := w.Write([]byte(text[i:min(i+7, len(text))])); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if want := "id *** here\n\"***\", x\nlast ***"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// A text cut in the middle of a secret shows its first characters before "…", where
// replacing whole secrets finds nothing: the redactor masks them as well.
func TestRedactorMasksASecretCutShort(t *testing.T) {
	const sec = "ghs_CutShortSecret0123456789abcdefABCDEF"
	red := &redactor{}
	red.add(sec)
	for in, want := range map[string]string{
		"args {\"k\":\"" + sec[:19] + "…":                         "args {\"k\":\"***…",
		`value "` + sec[:30] + `"… (10 more characters)`:          `value "***"… (10 more characters)`,
		"a " + sec[:5] + "… and " + sec + " and " + sec[:9] + "…": "a ***… and *** and ***…",
		"cut in the kind: gh…":                                    "cut in the kind: gh…", // too short to say
		"ghs… three characters":                                   "ghs… three characters",
		"ghs_… four":                                              "***… four",
		"no cut: " + sec[:20]:                                     "no cut: " + sec[:20],
		"…" + sec[:10]:                                            "…" + sec[:10],
	} {
		if got := red.String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
}

// result reaches every text of a result: fields, slices, maps (keys too), pointers.
func TestRedactorResultReachesEveryText(t *testing.T) {
	const sec = "ghs_ResultSecret0123456789abcdefABCDEFGH"
	type inner struct {
		Text  string
		Bytes []byte
		Any   any
	}
	type outer struct {
		ID    string
		Items []inner
		Ptr   *inner
		Map   map[string]inner
		Named map[string]string
		hide  string
	}
	v := &outer{
		ID:    "run " + sec,
		Items: []inner{{Text: "x " + sec + " y", Bytes: []byte(sec), Any: "a " + sec}},
		Ptr:   &inner{Text: sec[:12] + "…"},
		Map:   map[string]inner{"k": {Text: sec}},
		Named: map[string]string{sec: "v " + sec},
		hide:  sec,
	}
	v.Items = append(v.Items, *v.Ptr)
	red := &redactor{}
	red.add(sec)
	red.result(v)
	got := fmt.Sprintf("%s|%s|%s|%v|%s|%s|%v", v.ID, v.Items[0].Text, v.Items[0].Bytes, v.Items[0].Any, v.Ptr.Text, v.Map["k"].Text, v.Named)
	if want := "run ***|x *** y|***|a ***|***…|***|map[***:v ***]"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if v.hide != sec {
		t.Error("an unexported field was changed")
	}
}
