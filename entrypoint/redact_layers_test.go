package entrypoint

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/test/gensuite"
	"github.com/agentgate/agentgate/test/ghemu"
)

// These tests hold each layer of redaction to what it alone does (docs/security.md, "The
// token"): the traces redacted as they are read (Options.Secrets, trace.Trace.Redact), the
// result redacted before a report cuts or escapes its texts (redactor.result), and every byte
// written redacted on its way out (redactor.Writer). Before, removing either of the first two
// passed every test, as the last one hid both.

// leakyArgsTraces writes traces of the failing fixture's loop, one per text, its repeated
// call's arguments {"cmd": "<text>; echo MARK"} (gensuite.LeakyLoops), and returns the file's
// name in dir.
func leakyArgsTraces(t *testing.T, dir string, texts ...string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "fixtures", "fail", "traces.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(data), "\n")
	lines, err := gensuite.LeakyLoops(first, texts)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "leaks.jsonl"), lines)
	return "leaks.jsonl"
}

// readOutputs returns the files named in dir.
func readOutputs(t *testing.T, dir string, names ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		out[n] = string(b)
	}
	return out
}

// The traces are redacted of the configured token (from a config file) and its base64 forms
// as they are read, before evidence is cut to 60 characters of arguments: the evidence then
// holds "GH_TOKEN=***; echo MARK", the text after the token in the window that *** left.
// Without Options.Secrets, the token was cut in the window and masked later: "GH_TOKEN=***…",
// and the base64 of "x-access-token:TOKEN" (as `git config -l` prints what actions/checkout
// stores) reached every report whole.
func TestConfiguredTokenRedactedAsTracesAreRead(t *testing.T) {
	const tok = "ghs_16C7e42F292c6912E7710c838347Ae178B4a"
	basic := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + tok))
	dir := t.TempDir()
	traces := leakyArgsTraces(t, dir, "export GH_TOKEN="+tok, "echo "+basic)
	write(t, filepath.Join(dir, "agentgate.yml"), "github-token: "+tok+"\n")
	code, stdout, stderr := cli(t, "", "gate", "--config", filepath.Join(dir, "agentgate.yml"), "--traces", filepath.Join(dir, traces),
		"--json", filepath.Join(dir, "r.json"), "--sarif", filepath.Join(dir, "r.sarif"))
	if code != 2 {
		t.Fatalf("exit %d, want 2\n%s%s", code, stdout, stderr)
	}
	outs := readOutputs(t, dir, "r.json", "r.sarif")
	outs["stdout"] = stdout
	for name, s := range outs {
		for _, want := range []string{"GH_TOKEN=***; echo MARK", "echo eC1hY2Nlc3MtdG9rZW46***Q==; echo MARK"} {
			if !strings.Contains(s, want) {
				t.Errorf("%s does not quote %q:\n%.3000s", name, want, s)
			}
		}
		if strings.Contains(s, basic[20:40]) || strings.Contains(s, tok[4:12]) {
			t.Errorf("%s quotes the token or its base64", name)
		}
	}
}

// The result is redacted before a report cuts its texts: a task id (tasks are not traces)
// that holds a GitHub token of a known shape, past the 160 characters the terminal shows of
// an id and the 200 of a markdown cell, is shown "aaa…***". Without redactor.result the cut
// left "ghp_1a2B3c4D5e6F7g8…", a start too short for any shape, in the terminal and the
// markdown report.
func TestResultRedactedBeforeItIsCut(t *testing.T) {
	const cred = "ghp_1a2B3c4D5e6F7g8H9i0JkLmNoPqRsTuVwXyZ"
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("..", "fixtures", "pass", "tasks.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		pad   int
		where string
	}{{140, "stdout"}, {180, "r.md"}} {
		id := strings.Repeat("a", c.pad) + cred
		tasks := strings.Replace(string(data), `"id": "sort-fruits"`, `"id": "`+id+`"`, 1)
		write(t, filepath.Join(dir, "tasks.json"), tasks)
		code, stdout, stderr := cli(t, "", "gate", "--tasks", filepath.Join(dir, "tasks.json"), "--markdown", filepath.Join(dir, "r.md"))
		if code != 0 {
			t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
		}
		outs := readOutputs(t, dir, "r.md")
		outs["stdout"] = stdout
		if s := outs[c.where]; strings.Contains(s, "ghp_1a2") || !strings.Contains(s, strings.Repeat("a", c.pad)+"***") {
			i := strings.Index(s, "aaaa")
			t.Errorf("%s shows the id %q", c.where, s[max(0, i):min(len(s), i+c.pad+40)])
		}
	}
}

// What is written is redacted on its way out, errors included: a duplicate task id (tasks are
// not traces, and an error is no result) that is an OpenAI key is quoted *** on stderr.
// Without the shapes in redactor.String it was quoted whole.
func TestErrorsRedactedOnTheWayOut(t *testing.T) {
	const cred = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-T3BlbkFJAbCdEfGhIjKlMnOpQrStUvWxYz"
	dir := t.TempDir()
	write(t, filepath.Join(dir, "tasks.jsonl"),
		`{"id": "`+cred+`", "intent": "a", "understanding": "a", "action": "a"}`+"\n"+
			`{"id": "`+cred+`", "intent": "b", "understanding": "b", "action": "b"}`+"\n")
	code, stdout, stderr := cli(t, "", "gate", "--tasks", filepath.Join(dir, "tasks.jsonl"))
	want := "agentgate: " + filepath.Join(dir, "tasks.jsonl") + `:2: duplicate task id "***": already used at ` + filepath.Join(dir, "tasks.jsonl") + ":1; every task needs its own id\n"
	if code != 3 || stdout != "" || stderr != want {
		t.Errorf("exit %d, stdout %q\n got %q\nwant %q", code, stdout, stderr, want)
	}
}

// Credentials of every known shape that an agent printed into its tool calls reach none of
// the outputs, run as the runner runs the action: stdout (the annotations), stderr, the job
// summary, the step outputs, the PR comment, the check run, and the JSON, markdown, SARIF,
// JUnit and OTLP reports; the evidence quotes each as ***.
func TestCredentialShapesInNoOutput(t *testing.T) {
	creds := []string{
		"ghp_1a2B3c4D5e6F7g8H9i0JkLmNoPqRsTuVwXyZ",
		"github_pat_11ABCDEFG0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789abcdefgh",
		"sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-T3BlbkFJAbCdEfGhIjKlMnOpQrStUvWxYz",
		"sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKlMnOpQrStUvWxyzAA",
		"AKIAIOSFODNN7EXAMPLE",
		"xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
		"AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW",
		"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----",
	}
	var texts []string
	for _, c := range creds {
		texts = append(texts, "K="+c)
	}
	texts = append(texts, "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
	creds = append(creds, "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
	e, api := emulator(t)
	ws := workspace(t)
	traces := leakyArgsTraces(t, ws, texts...)
	event := ghemu.WebhookExample(t, "pull_request", "opened", nil)
	r := step(t, ws, api, "pull_request", event, map[string]string{"traces": traces, "check-name": "agentgate",
		"json": "r.json", "markdown": "r.md", "junit": "r.xml", "sarif": "r.sarif", "otel": "r.otel.jsonl"})
	if r.exit != 2 {
		t.Fatalf("exit %d, want 2 (FAIL)\n%s%s", r.exit, r.stdout, r.stderr)
	}
	comments := e.Comments(prNumber(t, event))
	checks := e.CheckRuns()
	if len(comments) != 1 || len(checks) != 1 {
		t.Fatalf("%d comments and %d check runs, want 1 and 1", len(comments), len(checks))
	}
	reqs, _ := json.Marshal(e.Requests())
	outs := readOutputs(t, ws, "r.json", "r.md", "r.xml", "r.sarif", "r.otel.jsonl")
	outs["stdout"], outs["stderr"], outs["summary"], outs["step outputs"] = r.stdout, r.stderr, r.summary, r.output
	outs["comment"], outs["API requests"] = comments[0].Body, string(reqs)
	for name, s := range outs {
		for _, c := range creds {
			if probe := c[len(c)/2 : len(c)/2+8]; strings.Contains(s, probe) {
				i := strings.Index(s, probe)
				t.Errorf("%s quotes %q of %.20s…: …%s…", name, probe, c, s[max(0, i-60):min(len(s), i+20)])
			}
		}
	}
	for _, name := range []string{"stdout", "comment", "r.json", "r.sarif"} {
		if n := strings.Count(outs[name], "=***; echo MARK"); n < len(texts) {
			t.Errorf("%s quotes %d of the %d credentials as ***:\n%.3000s", name, n, len(texts), outs[name])
		}
	}
}

// The rs1 drop-in reads traces as the gate does, credentials of a known shape redacted: the
// RS-1 report it prints quotes the looping call's arguments with *** in the key's place.
func TestRS1RedactsCredentialShapes(t *testing.T) {
	const cred = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-T3BlbkFJAbCdEfGhIjKlMnOpQrStUvWxYz"
	dir := t.TempDir()
	traces := leakyArgsTraces(t, dir, "export OPENAI_API_KEY="+cred)
	code, stdout, stderr := cli(t, "", "rs1", filepath.Join(dir, traces), "--verbose")
	if code != 2 || strings.Contains(stdout+stderr, cred[8:30]) || !strings.Contains(stdout+stderr, "OPENAI_API_KEY=***") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
}
