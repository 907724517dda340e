package entrypoint

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/test/ghemu"
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
	code := Main(context.Background(), append([]string{"gate"}, args...), nil, &stdout, &stderr, func(k string) string { return env[k] })
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
	equalLines(t, "lines with the id", idLines, []string{"  FAIL  0.5000  run-1 ##" + zw + "[stop-commands]x  t.jsonl:1"})
	equalLines(t, "runner commands on stdout", runnerCommands(stdout), []string{
		"::error file=t.jsonl,title=agentgate%3A gate max-failed-traces breached::1 trace failed (max 0).",
		"::error file=t.jsonl,line=1,title=agentgate%3A trace run-1 ##[stop-commands]x FAIL::Score 0.5000; strongest signal loop 1.0000: `search_flights` called 6 times with identical arguments {\"from\":\"BER\",\"to\":\"OSL\",\"date\":\"2026-12-12\"} at messages 1, 3, 5, 7, 9, 11, failing 6 times",
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
	if stderr != "agentgate: k.jsonl:1:1: expected a message list under \"messages\", \"trajectory\", \"traj\", \"history\" or \"conversations\"; found keys: a\n:"+zw+":error::x, trace_id\n" {
		t.Errorf("stderr %q", stderr)
	}
	equalLines(t, "runner commands on stdout", runnerCommands(stdout), []string{
		"::error col=1,file=k.jsonl,line=1,title=agentgate could not evaluate the suite::k.jsonl:1:1: expected a message list under \"messages\", \"trajectory\", \"traj\", \"history\" or \"conversations\"; found keys: a%0A::error::x, trace_id",
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
	if stderr != "agentgate: f\n:"+zw+":add-mask::x.jsonl:1:29: invalid JSON: expected a value, found '}'\n" {
		t.Errorf("stderr %q", stderr)
	}
	equalLines(t, "runner commands on stdout", runnerCommands(stdout), []string{
		"::error col=29,file=f%0A%3A%3Aadd-mask%3A%3Ax.jsonl,line=1,title=agentgate could not evaluate the suite::f%0A::add-mask::x.jsonl:1:29: invalid JSON: expected a value, found '}'",
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
				"::error file=agentgate.yml,line=3,title=agentgate could not evaluate the suite::agentgate.yml:3: invalid YAML: could not find expected ':'\n",
			stderr: "agentgate: agentgate.yml:3: invalid YAML: could not find expected ':'\n",
		},
		{
			config: "traces: a.jsonl\ngithub-token: \"" + secret + "\n",
			stdout: "::add-mask::\"" + secret + "\n" + "::add-mask::" + secret + "\n" +
				"::error file=agentgate.yml,line=2,title=agentgate could not evaluate the suite::agentgate.yml:2: invalid YAML: found unexpected end of stream\n",
			stderr: "agentgate: agentgate.yml:2: invalid YAML: found unexpected end of stream\n",
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

// requestLines renders the emulator's requests as "METHOD path status".
func requestLines(reqs []ghemu.Request) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, fmt.Sprintf("%s %s %d", r.Method, r.Path, r.Status))
	}
	return out
}

// workflow_run: the pull request named by pr-number (read from the other run's artifact, which a
// fork controls) must have the event's head_sha as its head, or nothing is posted.
func TestActionWorkflowRunVerifiesHead(t *testing.T) {
	event := ghemu.WebhookExample(t, "workflow_run", "completed", func(m map[string]any) bool {
		prs, _ := m["workflow_run"].(map[string]any)["pull_requests"].([]any)
		return len(prs) == 0 // a fork's run: GitHub fills in no pull request
	})
	var p struct {
		WorkflowRun struct {
			HeadSHA string `json:"head_sha"`
		} `json:"workflow_run"`
	}
	if err := json.Unmarshal(event, &p); err != nil || p.WorkflowRun.HeadSHA != "5779607b49aab1200488439f02372c57b4f75444" {
		t.Fatalf("workflow_run example: head_sha %q, %v", p.WorkflowRun.HeadSHA, err)
	}
	other := strings.Repeat("f", 40)
	e, srv := ghemu.Start(t, ghemu.Config{Owner: owner, Repo: repo, Tokens: map[string]ghemu.Identity{token: ghemu.ActionsBot()},
		Pulls: map[int]ghemu.Pull{7: {HeadSHA: p.WorkflowRun.HeadSHA}, 8: {HeadSHA: other}}})
	ws := workspace(t)
	pulls := "/repos/" + owner + "/" + repo + "/pulls/"
	comments := "/repos/" + owner + "/" + repo + "/issues/7/comments"

	for _, c := range []struct {
		pr       string
		requests []string
		warning  string
		comments int
	}{
		{"7", []string{"GET " + pulls + "7 200", "GET /user 403", "GET " + comments + " 200", "POST " + comments + " 201"}, "", 1},
		{"8", []string{"GET " + pulls + "8 200"},
			"::warning::not commenting on pull request #8: pull request #8's head is " + other + ", but the run that produced this report gated 5779607b49aab1200488439f02372c57b4f75444. The pull request number of a workflow_run must name the pull request whose run produced the report (a number read from that run's artifact is not trusted), so nothing was posted; the verdict is unchanged and the report is in the job summary.", 0},
		{"9", []string{"GET " + pulls + "9 404"},
			"::warning::not commenting on pull request #9: cannot check that it is the pull request whose run produced the report: read pull request " + owner + "/" + repo + "#9 (GET " + pulls + "9): GitHub answered 404 \"Not Found\": GitHub found no such pull request or repository for this token (check the pull request number, the token's access and GITHUB_API_URL). The verdict is unchanged and the report is in the job summary.", 0},
	} {
		e.ResetRequests()
		in := suite("fail")
		in["pr-number"] = c.pr
		r := step(t, ws, srv.URL, "workflow_run", event, in)
		if r.exit != 2 || r.outputs["verdict"] != "FAIL" {
			t.Fatalf("pr %s: exit %d verdict %q, want 2 FAIL\n%s%s", c.pr, r.exit, r.outputs["verdict"], r.stdout, r.stderr)
		}
		equalLines(t, "pr "+c.pr+" requests", requestLines(e.Requests()), c.requests)
		var warnings []string
		for _, l := range strings.Split(r.stdout, "\n") {
			if strings.HasPrefix(l, "::warning::") {
				warnings = append(warnings, l)
			}
		}
		var want []string
		if c.warning != "" {
			want = []string{c.warning}
		}
		equalLines(t, "pr "+c.pr+" warnings", warnings, want)
		num, _ := strconv.Atoi(c.pr)
		if n := len(e.Comments(num)); n != c.comments {
			t.Errorf("pr %s: %d comments, want %d", c.pr, n, c.comments)
		}
	}
}

// An API that answers 404 to everything (a wrong GITHUB_API_URL) is not "a read-only token".
func TestActionAPI404IsNotCalledReadOnly(t *testing.T) {
	e, srv := ghemu.Start(t, ghemu.Config{Owner: owner, Repo: repo, PathPrefix: "/api/v3", Tokens: map[string]ghemu.Identity{token: ghemu.User("someone", 7)}})
	event := ghemu.WebhookExample(t, "pull_request", "opened", nil)
	n := prNumber(t, event)
	r := step(t, workspace(t), srv.URL, "pull_request", event, suite("fail")) // the prefix is missing
	if r.exit != 2 {
		t.Fatalf("exit %d, want 2", r.exit)
	}
	equalLines(t, "requests", requestLines(e.Requests()), []string{"GET /user 404"})
	want := fmt.Sprintf("::warning::could not comment on pull request #%d: look up the token's user (GET /user): GitHub answered 404 \"Not Found\": GitHub found no such pull request or repository for this token (check the pull request number, the token's access and GITHUB_API_URL). GitHub answers 404 when the pull request does not exist in %s/%s, when the token cannot see the repository, or when GITHUB_API_URL (%s) is not this repository's API; a read-only token would read and be refused writes with 403. The verdict is unchanged; the report is in the job summary.", n, owner, repo, srv.URL)
	var warnings []string
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(l, "::warning::") {
			warnings = append(warnings, l)
		}
	}
	equalLines(t, "warnings", warnings, []string{want})
	if strings.Contains(r.summary, "read-only GITHUB_TOKEN") {
		t.Errorf("the summary blames a read-only token:\n%s", r.summary)
	}
}

// pull_request and pull_request_target: the report goes to the event's own pull request, which
// GitHub wrote; a pr-number that names another (from a workflow input, a template copied from
// a workflow_run workflow) is left out with a warning, never followed (issue 34, finding 6).
func TestActionPRNumberDoesNotRedirectPullRequestEvents(t *testing.T) {
	for _, name := range []string{"pull_request", "pull_request_target"} {
		t.Run(name, func(t *testing.T) {
			event := ghemu.WebhookExample(t, "pull_request", "opened", nil)
			own := prNumber(t, event)
			other := own + 5
			e, srv := ghemu.Start(t, ghemu.Config{Owner: owner, Repo: repo, Tokens: map[string]ghemu.Identity{token: ghemu.ActionsBot()},
				Pulls: map[int]ghemu.Pull{other: {HeadSHA: strings.Repeat("f", 40)}}})
			in := suite("fail")
			in["pr-number"] = strconv.Itoa(other)
			r := step(t, workspace(t), srv.URL, name, event, in)
			if r.exit != 2 || r.outputs["verdict"] != "FAIL" {
				t.Fatalf("exit %d verdict %q, want 2 FAIL\n%s%s", r.exit, r.outputs["verdict"], r.stdout, r.stderr)
			}
			comments := fmt.Sprintf("/repos/%s/%s/issues/%d/comments", owner, repo, own)
			equalLines(t, "requests", requestLines(e.Requests()), []string{"GET /user 403", "GET " + comments + " 200", "POST " + comments + " 201"})
			var warnings []string
			for _, l := range strings.Split(r.stdout, "\n") {
				if strings.HasPrefix(l, "::warning::") {
					warnings = append(warnings, l)
				}
			}
			equalLines(t, "warnings", warnings, []string{fmt.Sprintf("::warning::pr-number %d ignored: the %s event is about pull request #%d, which is where the report goes (pr-number names the pull request only for an event that has none, such as a workflow_run from a fork)", other, name, own)})
			if n, m := len(e.Comments(own)), len(e.Comments(other)); n != 1 || m != 0 {
				t.Errorf("%d comments on #%d (want 1), %d on #%d (want 0)", n, own, m, other)
			}
		})
	}
}
