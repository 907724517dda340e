package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const zw = "\u200b"

// actionRun runs `agentgate gate` in process as under Actions (push event: no comment) in
// dir, with the given inputs, and returns the exit code, stdout, stderr and the job summary.
func actionRun(t *testing.T, dir string, inputs map[string]string, args ...string) (int, string, string, string) {
	t.Helper()
	files := t.TempDir()
	env := map[string]string{
		"GITHUB_ACTIONS":      "true",
		"GITHUB_EVENT_NAME":   "push",
		"GITHUB_OUTPUT":       filepath.Join(files, "output"),
		"GITHUB_STEP_SUMMARY": filepath.Join(files, "summary"),
		"INPUT_COMMENT":       "false",
	}
	for k, v := range inputs {
		env["INPUT_"+strings.ToUpper(k)] = v
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), append([]string{"gate"}, args...), nil, &stdout, &stderr, func(k string) string { return env[k] })
	sum, _ := os.ReadFile(env["GITHUB_STEP_SUMMARY"])
	return code, stdout.String(), stderr.String(), string(sum)
}

// runnerCommands returns the lines of out the Actions runner would act on: the runner splits
// at "\n", "\r" and "\r\n", and acts on a line that starts with "::" after leading white space
// and on "##[" anywhere in a line.
func runnerCommands(out string) []string {
	var cmds []string
	for _, l := range strings.FieldsFunc(out, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if strings.HasPrefix(strings.TrimSpace(l), "::") || strings.Contains(l, "##[") {
			cmds = append(cmds, l)
		}
	}
	return cmds
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func equalLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n got  %q\n want %q", what, got, want)
	}
}

// A trace id holding the legacy "##[stop-commands]" would switch off every later annotation.
func TestActionTraceIDCannotStopCommands(t *testing.T) {
	dir := t.TempDir()
	raw, err := os.ReadFile("../fixtures/fail/traces.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(raw), "\n")
	write(t, filepath.Join(dir, "t.jsonl"), strings.Replace(first, "flight-search-loop-101", "run-1 ##[stop-commands]x", 1)+"\n")
	code, stdout, stderr, _ := actionRun(t, dir, map[string]string{"traces": "t.jsonl"})
	if code != 2 {
		t.Fatalf("exit %d, want 2\n%s%s", code, stdout, stderr)
	}
	var idLines []string
	for _, l := range strings.Split(stdout, "\n") {
		if strings.Contains(l, "stop-commands") && !strings.HasPrefix(l, "::") {
			idLines = append(idLines, l)
		}
	}
	equalLines(t, "lines with the id", idLines, []string{"  FAIL  0.4375  run-1 ##" + zw + "[stop-commands]x  t.jsonl:1"})
	equalLines(t, "runner commands on stdout", runnerCommands(stdout), []string{
		"::error file=t.jsonl,title=agentgate%3A gate max-failed-traces breached::1 trace failed (max 0).",
		"::error file=t.jsonl,line=1,title=agentgate%3A trace run-1 ##[stop-commands]x FAIL::Score 0.4375; strongest signal loop 1.0000: `search_flights` called 6 times with identical arguments {\"from\":\"BER\",\"to\":\"OSL\",\"date\":\"2026-12-12\"} at messages 1, 3, 5, 7, 9, 11, failing 6 times",
	})
	equalLines(t, "runner commands on stderr", runnerCommands(stderr), nil)
}

// A JSON key and a file name holding a line break followed by a command: the error reaches
// stderr, the annotation and the summary, and starts no command anywhere.
func TestActionKeyAndFileNameCannotStartCommands(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "k.jsonl"), "{\"trace_id\":\"t\",\"a\\n::error::x\":1}\n")
	code, stdout, stderr, summary := actionRun(t, dir, map[string]string{"traces": "k.jsonl"})
	if code != 3 {
		t.Fatalf("exit %d, want 3\n%s%s", code, stdout, stderr)
	}
	if stderr != "agentgate: k.jsonl:1:1: expected a message list under \"messages\", \"trajectory\", \"traj\" or \"history\"; found keys: a\n:"+zw+":error::x, trace_id\n" {
		t.Errorf("stderr %q", stderr)
	}
	equalLines(t, "runner commands on stdout", runnerCommands(stdout), []string{
		"::error file=k.jsonl,line=1,title=agentgate could not evaluate the suite::k.jsonl:1:1: expected a message list under \"messages\", \"trajectory\", \"traj\" or \"history\"; found keys: a%0A::error::x, trace_id",
	})
	if !strings.Contains(summary, "```text\nk.jsonl:1:1: expected") {
		t.Errorf("summary does not quote the error:\n%s", summary)
	}

	name := "f\n::add-mask::x.jsonl"
	write(t, filepath.Join(dir, name), "{\"trace_id\":\"t\",\"messages\":[}\n")
	code, stdout, stderr, _ = actionRun(t, dir, map[string]string{"traces": "f*"})
	if code != 3 {
		t.Fatalf("exit %d, want 3\n%s%s", code, stdout, stderr)
	}
	if stderr != "agentgate: f\n:"+zw+":add-mask::x.jsonl:1:29: invalid JSON: invalid character '}' looking for beginning of value\n" {
		t.Errorf("stderr %q", stderr)
	}
	equalLines(t, "runner commands on stdout", runnerCommands(stdout), []string{
		"::error file=f%0A%3A%3Aadd-mask%3A%3Ax.jsonl,line=1,title=agentgate could not evaluate the suite::f%0A::add-mask::x.jsonl:1:29: invalid JSON: invalid character '}' looking for beginning of value",
	})
}

// A github-token in the config file is masked before anything else is printed, and a malformed
// config line quotes it nowhere: not in stderr, the annotation or the summary.
func TestActionConfigTokenMaskedFirstAndNeverQuoted(t *testing.T) {
	const secret = "ghp_configSecret0123456789"
	dir := t.TempDir()
	for _, c := range []struct {
		config, stdout, stderr string
	}{
		{
			config: "github-token: " + secret + "\ntraces: a.jsonl\npa-min 0.9 " + secret + "\n",
			stdout: "::add-mask::" + secret + "\n" +
				"::error file=agentgate.yml,line=3,title=agentgate could not evaluate the suite::agentgate.yml:3: expected `key: value`, found \"pa-min\" without a colon\n",
			stderr: "agentgate: agentgate.yml:3: expected `key: value`, found \"pa-min\" without a colon\n",
		},
		{
			config: "traces: a.jsonl\ngithub-token: \"" + secret + "\n",
			stdout: "::add-mask::\"" + secret + "\n" + "::add-mask::" + secret + "\n" +
				"::error file=agentgate.yml,line=2,title=agentgate could not evaluate the suite::agentgate.yml:2: github-token: the value is not a valid plain or quoted string (it is not shown: it is a secret)\n",
			stderr: "agentgate: agentgate.yml:2: github-token: the value is not a valid plain or quoted string (it is not shown: it is a secret)\n",
		},
	} {
		write(t, filepath.Join(dir, "agentgate.yml"), c.config)
		code, stdout, stderr, summary := actionRun(t, dir, map[string]string{"config": "agentgate.yml"})
		if code != 3 {
			t.Errorf("exit %d, want 3", code)
		}
		if stdout != c.stdout {
			t.Errorf("stdout\n got  %q\n want %q", stdout, c.stdout)
		}
		if stderr != c.stderr {
			t.Errorf("stderr\n got  %q\n want %q", stderr, c.stderr)
		}
		if strings.Contains(summary, secret) || !strings.Contains(summary, "could not evaluate") {
			t.Errorf("summary:\n%s", summary)
		}
	}
}
