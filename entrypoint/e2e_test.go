package entrypoint

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/compare"
	"github.com/agentgate/agentgate/test/ghemu"
)

// These tests run the built binary the way the GitHub runner runs a container action: the
// inputs as INPUT_* variables (hyphens kept), an event file, GITHUB_OUTPUT and
// GITHUB_STEP_SUMMARY files, the workspace as the working directory, and GITHUB_API_URL
// pointing at the in-process GitHub emulator, whose requests are asserted exactly.

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "agentgate-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	binary = filepath.Join(dir, "agentgate")
	if runtime.GOOS == "windows" {
		binary += ".exe"
	}
	build := exec.Command("go", "build", "-o", binary, "../cmd/agentgate")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building agentgate:", err)
		os.Exit(3)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

const (
	owner = "octo-org"
	repo  = "agent"
	token = "ghs_e2eSecretToken0123456789"
	// headSHA is the commit the steps run on (GITHUB_SHA).
	headSHA = "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d"
)

// stepResult is one action step's outcome.
type stepResult struct {
	exit    int
	stdout  string
	stderr  string
	outputs map[string]string
	// output is GITHUB_OUTPUT's content, byte for byte
	output  string
	summary string
}

// workspace copies the repository's fixtures into a fresh workspace, as actions/checkout would.
func workspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	err := filepath.WalkDir("../fixtures", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("..", p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(ws, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(ws, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// step runs the binary as the action's entrypoint (`agentgate gate`) with the given inputs.
func step(t *testing.T, ws, apiURL, eventName string, event []byte, inputs map[string]string) stepResult {
	t.Helper()
	return stepEnv(t, ws, apiURL, eventName, event, inputs, nil)
}

// stepEnv is step with some of the runner's variables set otherwise (GITHUB_REF of a push).
func stepEnv(t *testing.T, ws, apiURL, eventName string, event []byte, inputs, env map[string]string) stepResult {
	t.Helper()
	files := t.TempDir()
	eventPath := filepath.Join(files, "event.json")
	if err := os.WriteFile(eventPath, event, 0o644); err != nil {
		t.Fatal(err)
	}
	outPath, sumPath := filepath.Join(files, "output"), filepath.Join(files, "summary")
	for _, p := range []string{outPath, sumPath} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(binary, "gate")
	cmd.Dir = ws
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + files,
		"GITHUB_ACTIONS=true",
		"CI=true",
		"GITHUB_WORKSPACE=" + ws,
		"GITHUB_EVENT_NAME=" + eventName,
		"GITHUB_EVENT_PATH=" + eventPath,
		"GITHUB_REPOSITORY=" + owner + "/" + repo,
		"GITHUB_API_URL=" + apiURL,
		"GITHUB_OUTPUT=" + outPath,
		"GITHUB_STEP_SUMMARY=" + sumPath,
		"GITHUB_SHA=" + headSHA,
		"GITHUB_REF=refs/pull/1/merge",
		"GITHUB_RUN_ID=4242",
		"GITHUB_RUN_ATTEMPT=2",
		// action.yml's defaults, as the runner passes them.
		"INPUT_COMMENT=true",
		"INPUT_COMMENT-MODE=update",
		"INPUT_GITHUB-TOKEN=" + token,
	}
	for k, v := range inputs {
		cmd.Env = append(cmd.Env, "INPUT_"+strings.ToUpper(k)+"="+v)
	}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v) // the last of a duplicate key wins
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := stepResult{stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.exit = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	out, _ := os.ReadFile(outPath)
	r.output, r.outputs = string(out), parseOutputs(t, string(out))
	sum, _ := os.ReadFile(sumPath)
	r.summary = string(sum)
	// The one line allowed to carry the token is the mask command that tells the runner to hide
	// it: the runner consumes it and never shows it.
	masked := strings.Replace(r.stdout, "::add-mask::"+token+"\n", "", 1)
	if masked == r.stdout {
		t.Errorf("the token was not masked (no ::add-mask:: line)")
	}
	for _, s := range []string{masked, r.stderr, r.summary, string(out)} {
		if strings.Contains(s, token) {
			t.Fatalf("the token was printed:\n%s", s)
		}
	}
	return r
}

// parseOutputs reads a GITHUB_OUTPUT file (name<<DELIM … DELIM blocks).
func parseOutputs(t *testing.T, s string) map[string]string {
	t.Helper()
	out := map[string]string{}
	lines := strings.Split(s, "\n")
	for i := 0; i < len(lines); i++ {
		if lines[i] == "" {
			continue
		}
		name, delim, ok := strings.Cut(lines[i], "<<")
		if !ok {
			t.Fatalf("GITHUB_OUTPUT line %d is not name<<DELIMITER: %q", i+1, lines[i])
		}
		var val []string
		for i++; i < len(lines) && lines[i] != delim; i++ {
			val = append(val, lines[i])
		}
		out[name] = strings.Join(val, "\n")
	}
	return out
}

func suite(kind string) map[string]string {
	return map[string]string{
		"traces": "fixtures/" + kind + "/traces.jsonl",
		"tasks":  "fixtures/" + kind + "/tasks.json",
		"pairs":  "fixtures/" + kind + "/pairs.jsonl",
	}
}

func emulator(t *testing.T) (*ghemu.Emulator, string) {
	e, srv := ghemu.Start(t, ghemu.Config{Owner: owner, Repo: repo, Tokens: map[string]ghemu.Identity{token: ghemu.ActionsBot()}})
	return e, srv.URL
}

// prNumber is the number in a pull_request payload.
func prNumber(t *testing.T, payload []byte) int {
	var p struct {
		Number int `json:"number"`
	}
	if err := json.Unmarshal(payload, &p); err != nil || p.Number == 0 {
		t.Fatalf("pull_request payload without a number: %v", err)
	}
	return p.Number
}

// writes returns "METHOD path" for every request that changed something.
func writes(reqs []ghemu.Request) []string {
	var out []string
	for _, r := range reqs {
		if r.Method != "GET" {
			out = append(out, r.Method+" "+r.Path)
		}
	}
	return out
}

func TestActionCommentLifecycle(t *testing.T) {
	e, api := emulator(t)
	ws := workspace(t)
	event := ghemu.WebhookExample(t, "pull_request", "opened", nil)
	pr := prNumber(t, event)
	commentsPath := fmt.Sprintf("/repos/%s/%s/issues/%d/comments", owner, repo, pr)

	// First run on the failing suite: FAIL, exit 2, exactly one comment created.
	r := step(t, ws, api, "pull_request", event, suite("fail"))
	if r.exit != 2 {
		t.Fatalf("exit %d, want 2 (FAIL)\nstdout:\n%s\nstderr:\n%s", r.exit, r.stdout, r.stderr)
	}
	want := map[string]string{
		"verdict": "FAIL", "traces-total": "3", "traces-failed": "2", "traces-warned": "1",
		"percent-agreement": "0.82", "abstain-rate": "0.04", "report-json": ".agentgate/report.json",
	}
	for k, v := range want {
		if r.outputs[k] != v {
			t.Errorf("output %s = %q, want %q", k, r.outputs[k], v)
		}
	}
	if got := writes(e.Requests()); len(got) != 1 || got[0] != "POST "+commentsPath {
		t.Fatalf("first run wrote %v, want exactly one POST %s", got, commentsPath)
	}
	comments := e.Comments(pr)
	if len(comments) != 1 {
		t.Fatalf("%d comments after the first run, want 1", len(comments))
	}
	first := comments[0]
	if !strings.HasPrefix(first.Body, "<!-- agentgate:report -->") || !strings.Contains(first.Body, "## ❌ agentgate: FAIL") {
		t.Errorf("comment body does not carry the marker and the verdict:\n%.300s", first.Body)
	}
	wantURL := fmt.Sprintf("issuecomment-%d", first.ID)
	if !strings.Contains(r.outputs["comment-url"], wantURL) {
		t.Errorf("comment-url = %q, want the created comment (%s)", r.outputs["comment-url"], wantURL)
	}
	if !strings.Contains(r.summary, "## ❌ agentgate: FAIL") {
		t.Errorf("job summary lacks the report:\n%.300s", r.summary)
	}
	if !strings.Contains(r.stdout, "::error file=fixtures/fail/traces.jsonl,line=1,") {
		t.Errorf("no error annotation at the failing trace's line in:\n%s", r.stdout)
	}
	if b, err := os.ReadFile(filepath.Join(ws, ".agentgate", "report.json")); err != nil {
		t.Errorf("report-json not written: %v", err)
	} else {
		var doc struct {
			Schema int         `json:"schema"`
			Source gate.Source `json:"source"`
		}
		wantSrc := gate.Source{
			Source: compare.Source{SHA: headSHA, Ref: "refs/pull/1/merge", RunID: "4242", RunAttempt: "2", Version: "dev"},
			Inputs: &gate.Inputs{Traces: []string{"fixtures/fail/traces.jsonl"}, Tasks: []string{"fixtures/fail/tasks.json"}, Pairs: []string{"fixtures/fail/pairs.jsonl"}},
		}
		if err := json.Unmarshal(b, &doc); err != nil || doc.Schema != 3 || !reflect.DeepEqual(doc.Source, wantSrc) {
			t.Errorf("report.json: schema %d source %+v (%v), want 3 and %+v", doc.Schema, doc.Source, err, wantSrc)
		}
	}

	// The fix lands: the next run on the passing suite edits the same comment.
	e.ResetRequests()
	r = step(t, ws, api, "pull_request", event, suite("pass"))
	if r.exit != 0 || r.outputs["verdict"] != "PASS" {
		t.Fatalf("exit %d verdict %q, want 0 PASS\n%s%s", r.exit, r.outputs["verdict"], r.stdout, r.stderr)
	}
	if got := writes(e.Requests()); len(got) != 1 || got[0] != fmt.Sprintf("PATCH /repos/%s/%s/issues/comments/%d", owner, repo, first.ID) {
		t.Fatalf("second run wrote %v, want exactly one PATCH of comment %d", got, first.ID)
	}
	if comments := e.Comments(pr); len(comments) != 1 || !strings.Contains(comments[0].Body, "## ✅ agentgate: PASS") {
		t.Fatalf("after the re-run: %d comments, want the one comment now saying PASS", len(comments))
	}

	// A re-run with nothing changed writes nothing.
	e.ResetRequests()
	r = step(t, ws, api, "pull_request", event, suite("pass"))
	if got := writes(e.Requests()); r.exit != 0 || len(got) != 0 {
		t.Fatalf("unchanged re-run: exit %d, wrote %v; want 0 and no writes", r.exit, got)
	}
}

func TestActionOnPushPostsNothing(t *testing.T) {
	e, api := emulator(t)
	r := step(t, workspace(t), api, "push", ghemu.WebhookExample(t, "push", "", nil), suite("fail"))
	if r.exit != 2 || r.outputs["verdict"] != "FAIL" {
		t.Fatalf("exit %d verdict %q, want 2 FAIL", r.exit, r.outputs["verdict"])
	}
	if reqs := e.Requests(); len(reqs) != 0 {
		t.Fatalf("push sent %d API requests, want none: %+v", len(reqs), reqs)
	}
	if !strings.Contains(r.summary, "## ❌ agentgate: FAIL") {
		t.Errorf("the job summary must still carry the report on push")
	}
	if r.outputs["comment-url"] != "" {
		t.Errorf("comment-url = %q on push, want empty", r.outputs["comment-url"])
	}
}

// A fork's pull request gets a read-only token: commenting answers 403. The verdict and exit code
// must not change, and the summary must explain the workflow_run pattern.
func TestActionReadOnlyTokenFallsBack(t *testing.T) {
	e, srv := ghemu.Start(t, ghemu.Config{Owner: owner, Repo: repo, Tokens: map[string]ghemu.Identity{token: ghemu.ForkBot()}})
	event := ghemu.WebhookExample(t, "pull_request", "opened", nil)
	r := step(t, workspace(t), srv.URL, "pull_request", event, suite("fail"))
	if r.exit != 2 || r.outputs["verdict"] != "FAIL" {
		t.Fatalf("exit %d verdict %q, want 2 FAIL whatever the token can do\n%s%s", r.exit, r.outputs["verdict"], r.stdout, r.stderr)
	}
	if len(e.AllComments()) != 0 {
		t.Fatalf("a read-only token created a comment")
	}
	if !strings.Contains(r.summary, "## ❌ agentgate: FAIL") || !strings.Contains(r.summary, "workflow_run") {
		t.Errorf("summary must hold the report and the workflow_run hint:\n%s", r.summary)
	}
	if !strings.Contains(r.stdout, "::warning::could not comment on pull request") {
		t.Errorf("no warning about the comment in:\n%s", r.stdout)
	}
	if r.outputs["comment-url"] != "" {
		t.Errorf("comment-url = %q, want empty", r.outputs["comment-url"])
	}
}

// Bad input: exit 3, an error annotation at the file and line, and the summary says why.
func TestActionBadInput(t *testing.T) {
	e, api := emulator(t)
	ws := workspace(t)
	bad := filepath.Join(ws, "fixtures", "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"trace_id\": \"ok\", \"messages\": []}\n{\"trace_id\": \"broken\", \"messages\": [}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := step(t, ws, api, "pull_request", ghemu.WebhookExample(t, "pull_request", "opened", nil), map[string]string{"traces": "fixtures/bad.jsonl"})
	if r.exit != 3 {
		t.Fatalf("exit %d, want 3\n%s%s", r.exit, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "fixtures/bad.jsonl:2:") {
		t.Errorf("stderr does not name the file and line:\n%s", r.stderr)
	}
	const ann = "::error col=37,file=fixtures/bad.jsonl,line=2,title=agentgate could not evaluate the suite::fixtures/bad.jsonl:2:37: invalid JSON: expected a value, found '}'\n"
	if !strings.Contains(r.stdout, ann) || strings.Count(r.stdout, "::error") != 1 {
		t.Errorf("want one annotation at fixtures/bad.jsonl line 2 column 37:\n%s\nwant\n%s", r.stdout, ann)
	}
	if !strings.Contains(r.summary, "could not evaluate") || r.outputs["verdict"] != "ERROR" {
		t.Errorf("summary/outputs do not explain the error: verdict %q\n%s", r.outputs["verdict"], r.summary)
	}
	if reqs := writes(e.Requests()); len(reqs) != 0 {
		t.Errorf("an unevaluated run wrote %v", reqs)
	}
}

// Inputs win over the config file; a bad threshold names the input it came from.
func TestActionInputsAndConfig(t *testing.T) {
	_, api := emulator(t)
	ws := workspace(t)
	cfg := filepath.Join(ws, "agentgate.yml")
	if err := os.WriteFile(cfg, []byte("# gate settings\ntraces: fixtures/fail/traces.jsonl\nmax-failed-traces: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	push := ghemu.WebhookExample(t, "push", "", nil)
	// max-failed-traces 2 from the config lets the two FAIL traces through: WARN, exit 0.
	r := step(t, ws, api, "push", push, map[string]string{"config": "agentgate.yml"})
	if r.exit != 0 || r.outputs["verdict"] != "WARN" {
		t.Fatalf("config: exit %d verdict %q, want 0 WARN\n%s%s", r.exit, r.outputs["verdict"], r.stdout, r.stderr)
	}
	// An explicit input wins over the config file, and fail-on warn turns WARN into exit 1.
	r = step(t, ws, api, "push", push, map[string]string{"config": "agentgate.yml", "fail-on": "warn"})
	if r.exit != 1 {
		t.Fatalf("fail-on warn: exit %d, want 1", r.exit)
	}
	r = step(t, ws, api, "push", push, map[string]string{"config": "agentgate.yml", "max-failed-traces": "0"})
	if r.exit != 2 || r.outputs["verdict"] != "FAIL" {
		t.Fatalf("input over config: exit %d verdict %q, want 2 FAIL", r.exit, r.outputs["verdict"])
	}
	r = step(t, ws, api, "push", push, map[string]string{"traces": "fixtures/pass/traces.jsonl", "pa-min": "high"})
	if r.exit != 3 || !strings.Contains(r.stderr, `input pa-min: "high" is not a number`) {
		t.Fatalf("bad input value: exit %d stderr %q", r.exit, r.stderr)
	}
}

// An API answer longer than api.MaxResponseBytes (64 MiB) is not read past it: before, a
// 1.5 GB answer to GET /user ended the step in "fatal error: out of memory", with no summary,
// no outputs, no comment and exit 2 on a passing suite. Now the call fails with a warning
// and everything else is as without it: exit code, outputs, job summary. The emulator streams
// the answers (70 MiB, no Content-Length) without holding them.
func TestActionOversizeAnswerWarns(t *testing.T) {
	event := ghemu.WebhookExample(t, "pull_request", "opened", nil)
	pr := prNumber(t, event)
	_, api := emulator(t)
	want := step(t, workspace(t), api, "pull_request", event, suite("pass"))
	if want.exit != 0 || want.outputs["comment-url"] == "" {
		t.Fatalf("without a fault: exit %d, comment-url %q\n%s%s", want.exit, want.outputs["comment-url"], want.stdout, want.stderr)
	}
	for _, c := range []struct{ path, warning string }{
		{"/user", "::warning::could not comment on pull request #2: look up the token's user (GET /user): GitHub answered 200: GET /user: the answer is longer than 64 MiB, the most agentgate reads of one API answer\n"},
		{fmt.Sprintf("/repos/%s/%s/issues/%d/comments", owner, repo, pr),
			fmt.Sprintf("::warning::could not comment on pull request #2: list comments on %s/%s#%d (page 1): GitHub answered 200: GET /repos/%s/%s/issues/%d/comments: the answer is longer than 64 MiB, the most agentgate reads of one API answer\n", owner, repo, pr, owner, repo, pr)},
	} {
		e, api := emulator(t)
		e.AddFault(ghemu.Fault{Method: "GET", Path: c.path, Oversize: 70 << 20})
		r := step(t, workspace(t), api, "pull_request", event, suite("pass"))
		if r.exit != want.exit || r.summary != want.summary {
			t.Errorf("%s: exit %d, want %d; summary the same: %v\n%s", c.path, r.exit, want.exit, r.summary == want.summary, r.stderr)
		}
		for k, v := range want.outputs {
			if k != "comment-url" && r.outputs[k] != v {
				t.Errorf("%s: output %s = %q, want %q", c.path, k, r.outputs[k], v)
			}
		}
		if r.outputs["comment-url"] != "" || len(e.AllComments()) != 0 {
			t.Errorf("%s: commented (%q) without knowing which comment is its own", c.path, r.outputs["comment-url"])
		}
		if strings.Count(r.stdout, "::warning::") != 1 || !strings.Contains(r.stdout, c.warning) {
			t.Errorf("%s: stdout lacks the one warning %q:\n%s", c.path, c.warning, r.stdout)
		}
	}
}
