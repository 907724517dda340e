package entrypoint

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/test/ghemu"
)

// The check run of `check-name` (docs/design.md#defaults), driven as the runner drives the action, with the
// emulator's requests asserted exactly.

// checkRunBody is a check-run create or update as the step sent it.
type checkRunBody struct {
	Name       string  `json:"name"`
	HeadSHA    string  `json:"head_sha"`
	Status     string  `json:"status"`
	Conclusion *string `json:"conclusion"`
	DetailsURL string  `json:"details_url"`
	Output     struct {
		Title       string                  `json:"title"`
		Summary     string                  `json:"summary"`
		Annotations []ghemu.CheckAnnotation `json:"annotations"`
	} `json:"output"`
}

// checkRunRequests returns the check-run requests among reqs, decoded, and fails the test on
// any other write but the comment's.
func checkRunRequests(t *testing.T, reqs []ghemu.Request) ([]ghemu.Request, []checkRunBody) {
	t.Helper()
	var rs []ghemu.Request
	var bodies []checkRunBody
	for _, r := range reqs {
		if !strings.Contains(r.Path, "/check-runs") {
			continue
		}
		var b checkRunBody
		if err := json.Unmarshal([]byte(r.Body), &b); err != nil {
			t.Fatalf("request %d: %v", r.N, err)
		}
		rs, bodies = append(rs, r), append(bodies, b)
	}
	return rs, bodies
}

func payloadField(t *testing.T, raw []byte, path ...string) string {
	t.Helper()
	var m any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	for _, p := range path {
		m = m.(map[string]any)[p]
	}
	s, _ := m.(string)
	return s
}

// A FAIL on a pull request: one check run of that name on the pull request's head commit (not
// GITHUB_SHA, the merge commit), conclusion failure, the report as its summary, each finding
// an annotation at its repository-relative file and line; the comment is posted as before and
// the exit code is the verdict's.
func TestActionCheckRunOnPullRequest(t *testing.T) {
	e, api := emulator(t)
	event := ghemu.WebhookExample(t, "pull_request", "opened", nil)
	prHead := payloadField(t, event, "pull_request", "head", "sha")
	in := suite("fail")
	in["check-name"] = "agentgate / evals"
	r := stepEnv(t, workspace(t), api, "pull_request", event, in, map[string]string{
		"GITHUB_SERVER_URL":   "https://github.com",
		"GITHUB_WORKFLOW_REF": owner + "/" + repo + "/.github/workflows/evals.yml@refs/pull/2/merge",
	})
	if r.exit != 2 || r.outputs["verdict"] != "FAIL" {
		t.Fatalf("exit %d verdict %q, want 2 FAIL\n%s%s", r.exit, r.outputs["verdict"], r.stdout, r.stderr)
	}
	reqs, bodies := checkRunRequests(t, e.Requests())
	if len(reqs) != 1 || reqs[0].Method != "POST" || reqs[0].Path != "/repos/"+owner+"/"+repo+"/check-runs" || reqs[0].Status != 201 {
		t.Fatalf("check-run requests %+v, want one POST answered 201", reqs)
	}
	b := bodies[0]
	if b.Name != "agentgate / evals" || b.HeadSHA != prHead || prHead == headSHA || b.Status != "completed" || b.Conclusion == nil || *b.Conclusion != "failure" {
		t.Errorf("create: name %q head_sha %q (want %q) status %q conclusion %v", b.Name, b.HeadSHA, prHead, b.Status, b.Conclusion)
	}
	if b.DetailsURL != "https://github.com/"+owner+"/"+repo+"/actions/runs/4242" {
		t.Errorf("details_url %q", b.DetailsURL)
	}
	if b.Output.Title != "FAIL, check failing: 5 gates breached: mean coherence (RCS) 0.4612 < 0.50; percent agreement 0.8200 < 0.90; κ 0.7208 < 0.75; abstain rate 0.0400 > 0.02; 2 traces failed (max 0)." {
		t.Errorf("title %q", b.Output.Title)
	}
	if !strings.HasPrefix(b.Output.Summary, "## ❌ agentgate: FAIL") || !strings.Contains(b.Output.Summary, "claims-without-calls-102") {
		t.Errorf("summary is not the report:\n%s", b.Output.Summary)
	}
	// The five gates (those without a file of their own on the workflow), the two FAIL traces,
	// the WARN trace.
	const file, workflow = "fixtures/fail/traces.jsonl", ".github/workflows/evals.yml"
	want := []struct {
		path  string
		line  int
		level string
		title string
	}{
		{"fixtures/fail/tasks.json", 1, "failure", "agentgate: gate coherence-min breached"},
		{workflow, 1, "failure", "agentgate: gate pa-min breached"},
		{workflow, 1, "failure", "agentgate: gate kappa-min breached"},
		{workflow, 1, "failure", "agentgate: gate abstain-max breached"},
		{file, 1, "failure", "agentgate: gate max-failed-traces breached"},
		{file, 1, "failure", "agentgate: trace flight-search-loop-101 FAIL"},
		{file, 2, "failure", "agentgate: trace claims-without-calls-102 FAIL"},
		{file, 3, "warning", "agentgate: trace refund-lookup-context-stuffing-103 WARN"},
	}
	got := b.Output.Annotations
	if len(got) != len(want) {
		t.Fatalf("%d annotations, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		a := got[i]
		if a.Path != w.path || a.StartLine != w.line || a.EndLine != w.line || a.AnnotationLevel != w.level || a.Title != w.title || a.Message == "" {
			t.Errorf("annotation %d: %+v, want %+v", i, a, w)
		}
	}
	if !strings.Contains(got[6].Message, "hallucination 1.0000: result for id billing-7 at message 4 answers no earlier call") {
		t.Errorf("annotation message %q", got[2].Message)
	}
	if runs := e.CheckRuns(); len(runs) != 1 || runs[0].Conclusion != "failure" || len(runs[0].Annotations) != 8 {
		t.Errorf("stored check runs %+v", runs)
	}
	if len(e.Comments(prNumber(t, event))) != 1 {
		t.Error("the comment was not posted beside the check run")
	}
	if !strings.Contains(r.stdout, `agentgate: check run "agentgate / evals" on `+prHead+": failure, 8 annotation(s) in 1 request(s)") {
		t.Errorf("no log line for the check run in:\n%s", r.stdout)
	}
	if strings.Contains(r.stdout, "::warning::") {
		t.Errorf("a warning on a check run that was posted:\n%s", r.stdout)
	}
}

// 120 findings: the create carries the first 50, two updates the next 50 and the last 20,
// every finding once and in the report's order; the conclusion is on the create alone.
func TestActionCheckRunBatches(t *testing.T) {
	e, api := emulator(t)
	ws := workspace(t)
	raw, err := os.ReadFile(filepath.Join(ws, "fixtures/fail/traces.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Split(string(raw), "\n")[1] // claims-without-calls-102: FAIL
	var b strings.Builder
	for i := range 119 {
		b.WriteString(strings.Replace(line, `"claims-without-calls-102"`, fmt.Sprintf(`"t-%03d"`, i), 1) + "\n")
	}
	if err := os.WriteFile(filepath.Join(ws, "many.jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	r := step(t, ws, api, "push", ghemu.WebhookExample(t, "push", "", nil), map[string]string{"traces": "many.jsonl", "check-name": "agentgate"})
	if r.exit != 2 {
		t.Fatalf("exit %d\n%s%s", r.exit, r.stdout, r.stderr)
	}
	reqs, bodies := checkRunRequests(t, e.Requests())
	if len(reqs) != 3 || len(e.Requests()) != 3 {
		t.Fatalf("%d check-run requests of %d, want 3 and nothing else on a push", len(reqs), len(e.Requests()))
	}
	id := e.CheckRuns()[0].ID
	for i, w := range []struct {
		method, path string
		n            int
	}{
		{"POST", "/repos/" + owner + "/" + repo + "/check-runs", 50},
		{"PATCH", fmt.Sprintf("/repos/%s/%s/check-runs/%d", owner, repo, id), 50},
		{"PATCH", fmt.Sprintf("/repos/%s/%s/check-runs/%d", owner, repo, id), 20},
	} {
		if reqs[i].Method != w.method || reqs[i].Path != w.path || reqs[i].Status/100 != 2 || len(bodies[i].Output.Annotations) != w.n {
			t.Errorf("request %d: %s %s → %d with %d annotations, want %s %s with %d", i+1, reqs[i].Method, reqs[i].Path, reqs[i].Status, len(bodies[i].Output.Annotations), w.method, w.path, w.n)
		}
		if (i == 0) != (bodies[i].Conclusion != nil) {
			t.Errorf("request %d: conclusion %v", i+1, bodies[i].Conclusion)
		}
	}
	if bodies[0].HeadSHA != headSHA || *bodies[0].Conclusion != "failure" || bodies[0].Name != "agentgate" {
		t.Errorf("create: %q %q %v", bodies[0].Name, bodies[0].HeadSHA, *bodies[0].Conclusion)
	}
	all := e.CheckRuns()[0].Annotations
	if len(all) != 120 || all[0].Title != "agentgate: gate max-failed-traces breached" {
		t.Fatalf("%d annotations stored, first %+v", len(all), all[0])
	}
	for i, a := range all[1:] {
		if want := fmt.Sprintf("agentgate: trace t-%03d FAIL", i); a.Title != want || a.Path != "many.jsonl" || a.StartLine != i+1 {
			t.Errorf("annotation %d: %+v, want %q at many.jsonl:%d", i+1, a, want, i+1)
		}
	}
}

// The conclusion follows the step: success on PASS, neutral on a WARN the step lets through
// (branch protection passes it), failure when fail-on makes the WARN fail the step.
func TestActionCheckRunConclusions(t *testing.T) {
	warnOnly := func(ws string) {
		raw, err := os.ReadFile(filepath.Join(ws, "fixtures/fail/traces.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, "warn.jsonl"), []byte(strings.Split(string(raw), "\n")[2]+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name       string
		in         map[string]string
		exit       int
		verdict    string
		conclusion string
		annotated  int
	}{
		{"pass", map[string]string{"traces": "fixtures/pass/traces.jsonl"}, 0, "PASS", "success", 0},
		{"warn", map[string]string{"traces": "warn.jsonl"}, 0, "WARN", "neutral", 1},
		{"warn, fail-on warn", map[string]string{"traces": "warn.jsonl", "fail-on": "warn"}, 1, "WARN", "failure", 1},
		{"fail", map[string]string{"traces": "fixtures/fail/traces.jsonl"}, 2, "FAIL", "failure", 4},
		{"fail, fail-on warn", map[string]string{"traces": "fixtures/fail/traces.jsonl", "fail-on": "warn"}, 2, "FAIL", "failure", 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, api := emulator(t)
			ws := workspace(t)
			warnOnly(ws)
			c.in["check-name"] = "gate"
			r := step(t, ws, api, "push", ghemu.WebhookExample(t, "push", "", nil), c.in)
			if r.exit != c.exit || r.outputs["verdict"] != c.verdict {
				t.Fatalf("exit %d verdict %q, want %d %s\n%s", r.exit, r.outputs["verdict"], c.exit, c.verdict, r.stdout)
			}
			runs := e.CheckRuns()
			if len(runs) != 1 || runs[0].Conclusion != c.conclusion || runs[0].HeadSHA != headSHA || len(runs[0].Annotations) != c.annotated {
				t.Errorf("check runs %+v, want one %s with %d annotations on %s", runs, c.conclusion, c.annotated, headSHA)
			}
		})
	}
}

// workflow_run: the check run goes on workflow_run.head_sha, the commit the other run gated.
func TestActionCheckRunOnWorkflowRun(t *testing.T) {
	e, api := emulator(t)
	event := ghemu.WebhookExample(t, "workflow_run", "completed", nil)
	want := payloadField(t, event, "workflow_run", "head_sha")
	in := suite("pass")
	in["check-name"] = "gate"
	in["comment"] = "false"
	if r := step(t, workspace(t), api, "workflow_run", event, in); r.exit != 0 {
		t.Fatalf("exit %d\n%s%s", r.exit, r.stdout, r.stderr)
	}
	if runs := e.CheckRuns(); len(runs) != 1 || runs[0].HeadSHA != want || want == headSHA || runs[0].Conclusion != "success" {
		t.Errorf("check runs %+v, want one success on %s", runs, want)
	}
}

// Without checks: write, or with a fork's read-only token, GitHub answers 403: one request, no
// retry, one warning saying what to add, a note in the job summary, and the exit code and
// outputs of the verdict alone.
func TestActionCheckRunWithoutPermission(t *testing.T) {
	noChecks := ghemu.ActionsBot()
	noChecks.NoChecks = true
	for name, id := range map[string]ghemu.Identity{"no checks: write": noChecks, "fork": ghemu.ForkBot()} {
		t.Run(name, func(t *testing.T) {
			e, srv := ghemu.Start(t, ghemu.Config{Owner: owner, Repo: repo, Tokens: map[string]ghemu.Identity{token: id}})
			in := suite("fail")
			in["check-name"] = "agentgate"
			r := step(t, workspace(t), srv.URL, "pull_request", ghemu.WebhookExample(t, "pull_request", "opened", nil), in)
			if r.exit != 2 || r.outputs["verdict"] != "FAIL" {
				t.Fatalf("exit %d verdict %q, want 2 FAIL\n%s", r.exit, r.outputs["verdict"], r.stdout)
			}
			reqs, _ := checkRunRequests(t, e.Requests())
			if len(reqs) != 1 || reqs[0].Status != 403 || len(e.CheckRuns()) != 0 {
				t.Fatalf("check-run requests %+v, want one answered 403", reqs)
			}
			var warnings []string
			for _, l := range strings.Split(r.stdout, "\n") {
				if strings.HasPrefix(l, "::warning::agentgate did not post the check run") {
					warnings = append(warnings, l)
				}
			}
			if len(warnings) != 1 || !strings.Contains(warnings[0], "`permissions: checks: write`") || !strings.Contains(warnings[0], "The verdict is unchanged") {
				t.Errorf("warnings %q, want one naming checks: write", warnings)
			}
			if !strings.Contains(r.summary, "> agentgate did not post the check run `agentgate`: the token may not create check runs.") {
				t.Errorf("no note in the summary:\n%s", r.summary)
			}
		})
	}
}

// Without check-name nothing is posted to the Checks API.
func TestActionNoCheckNameNoCheckRun(t *testing.T) {
	e, api := emulator(t)
	step(t, workspace(t), api, "pull_request", ghemu.WebhookExample(t, "pull_request", "opened", nil), suite("fail"))
	if reqs, _ := checkRunRequests(t, e.Requests()); len(reqs) != 0 {
		t.Errorf("check-run requests without check-name: %+v", reqs)
	}
}

// A trace id carrying the token and a hostile file name: the check run's summary, title and
// annotations show *** for the token, and the path stays the file's repository path.
func TestActionCheckRunRedactsAndEscapes(t *testing.T) {
	e, api := emulator(t)
	ws := workspace(t)
	raw, err := os.ReadFile(filepath.Join(ws, "fixtures/fail/traces.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Replace(strings.Split(string(raw), "\n")[1], `"claims-without-calls-102"`, `"leak-`+token+`-::error::x"`, 1)
	name := "evil ::warning::<img src=x>.jsonl"
	if err := os.WriteFile(filepath.Join(ws, name), []byte(line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := step(t, ws, api, "push", ghemu.WebhookExample(t, "push", "", nil), map[string]string{"traces": "evil*.jsonl", "check-name": "gate"})
	if r.exit != 2 {
		t.Fatalf("exit %d\n%s%s", r.exit, r.stdout, r.stderr)
	}
	for _, q := range e.Requests() {
		if strings.Contains(q.Body, token) || strings.Contains(q.Body, "ghs_e2eSecret") {
			t.Fatalf("request %d carries the token", q.N)
		}
	}
	run := e.CheckRuns()[0]
	a := run.Annotations[1]
	if a.Path != name || a.Title != "agentgate: trace leak-***-::error::x FAIL" {
		t.Errorf("annotation %+v", a)
	}
	if !strings.Contains(run.Summary, "leak-\\*\\*\\*") && !strings.Contains(run.Summary, "leak-***") {
		t.Errorf("the summary does not show the redacted id:\n%s", run.Summary)
	}
}

// A check run's name is one line: a line break or a control character in it is a usage error
// naming where it was given.
func TestCheckNameIsOneLine(t *testing.T) {
	for _, v := range []string{"a\nb", "gate\x1b[31m", "x\ry"} {
		_, err := settings{"check-name": {value: v, source: "input check-name"}}.gateConfig()
		if err == nil || !strings.HasPrefix(err.Error(), "input check-name: ") || !strings.HasSuffix(err.Error(), ": a check run's name is one line of text") {
			t.Errorf("check-name %q: %v", v, err)
		}
	}
	c, err := settings{"check-name": {value: "  agentgate / evals ", source: "t"}}.gateConfig()
	if err != nil || c.checkName != "agentgate / evals" {
		t.Errorf("check-name: %q, %v", c.checkName, err)
	}
}

// A run that cannot be evaluated (exit code 3) fails the required check with the reason and an
// annotation at the offending file and line, rather than leave it pending; a setting that
// cannot be read leaves no check run (the name may be what is wrong).
func TestActionCheckRunOnBadInput(t *testing.T) {
	e, api := emulator(t)
	ws := workspace(t)
	if err := os.WriteFile(filepath.Join(ws, "fixtures", "bad.jsonl"), []byte("{\"trace_id\": \"ok\", \"messages\": []}\n{\"trace_id\": \"broken\", \"messages\": [}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	event := ghemu.WebhookExample(t, "pull_request", "opened", nil)
	r := step(t, ws, api, "pull_request", event, map[string]string{"traces": "fixtures/bad.jsonl", "check-name": "agentgate"})
	if r.exit != 3 || r.outputs["verdict"] != "ERROR" {
		t.Fatalf("exit %d verdict %q, want 3 ERROR\n%s%s", r.exit, r.outputs["verdict"], r.stdout, r.stderr)
	}
	if w := writes(e.Requests()); len(w) != 1 || w[0] != "POST /repos/"+owner+"/"+repo+"/check-runs" {
		t.Fatalf("writes %v, want the check run alone (no comment)", w)
	}
	runs := e.CheckRuns()
	if len(runs) != 1 || runs[0].Conclusion != "failure" || runs[0].Title != "could not evaluate" || runs[0].HeadSHA != payloadField(t, event, "pull_request", "head", "sha") ||
		!strings.HasPrefix(runs[0].Summary, "## ⛔ agentgate: could not evaluate") {
		t.Fatalf("check runs %+v", runs)
	}
	want := ghemu.CheckAnnotation{Path: "fixtures/bad.jsonl", StartLine: 2, EndLine: 2, AnnotationLevel: "failure",
		Title: "agentgate could not evaluate the suite", Message: "fixtures/bad.jsonl:2:37: invalid JSON: expected a value, found '}'"}
	if len(runs[0].Annotations) != 1 || runs[0].Annotations[0] != want {
		t.Errorf("annotations %+v, want %+v", runs[0].Annotations, want)
	}

	e2, api2 := emulator(t)
	r = step(t, workspace(t), api2, "pull_request", event, map[string]string{"traces": "fixtures/fail/traces.jsonl", "check-name": "agentgate", "pa-min": "lots"})
	if r.exit != 3 || len(e2.Requests()) != 0 {
		t.Errorf("a setting that cannot be read: exit %d, %d requests; want 3 and none", r.exit, len(e2.Requests()))
	}
}

// GitHub's answer is untrusted: quoted in the job summary's note it cannot ping, link or
// inject HTML.
func TestActionCheckRunRefusalIsEscaped(t *testing.T) {
	e, api := emulator(t)
	e.AddFault(ghemu.Fault{Method: "POST", Path: "/repos/" + owner + "/" + repo + "/check-runs", Status: 422, Message: "no @octocat <img src=x> [x](http://evil)"})
	in := suite("pass")
	in["check-name"] = "gate"
	r := step(t, workspace(t), api, "push", ghemu.WebhookExample(t, "push", "", nil), in)
	if r.exit != 0 {
		t.Fatalf("exit %d", r.exit)
	}
	_, note, ok := strings.Cut(r.summary, "> agentgate did not post the check run `gate`: GitHub refused it: ")
	if !ok {
		t.Fatalf("no note in the summary:\n%s", r.summary)
	}
	for _, bad := range []string{"@octocat", "<img", "[x](http://evil)"} {
		if strings.Contains(note, bad) {
			t.Errorf("the note carries %q unescaped: %s", bad, note)
		}
	}
	if strings.Count(r.stdout, "::warning::agentgate did not post the check run") != 1 {
		t.Errorf("want one warning:\n%s", r.stdout)
	}
}
