package entrypoint

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/internal/refdata"
	"github.com/agentgate/agentgate/test/ghemu"
)

// tauBenchRuns writes the ten real tau-bench airline runs to ws/evals/base.json, and to
// ws/evals/head.json the same runs of which the first six (tasks 0 and 3) now loop: three
// identical failing get_reservation_details calls in a row after the user's first message.
// Without their rewards.
func tauBenchRuns(t *testing.T, ws string) {
	t.Helper()
	raw, err := os.ReadFile(refdata.Path(t, "transcripts/tau-bench-airline-sample.json"))
	if err != nil {
		t.Fatal(err)
	}
	var runs []map[string]any
	if err := json.Unmarshal(raw, &runs); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(ws, "evals"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The runs' rewards are taken out: these comparisons are of the verdicts alone
	// (TestActionComparesOutcomes compares outcomes).
	for _, r := range runs {
		delete(r, "reward")
	}
	write := func(name string) {
		b, err := json.Marshal(runs)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, "evals", name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("base.json")
	for _, r := range runs[:6] {
		traj := r["traj"].([]any)
		var loop []any
		for j := range 3 {
			id := fmt.Sprintf("call_loop_%d", j)
			loop = append(loop,
				map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
					"id": id, "type": "function",
					"function": map[string]any{"name": "get_reservation_details", "arguments": `{"reservation_id": "ZZ9XYZ"}`}}}},
				map[string]any{"role": "tool", "tool_call_id": id, "name": "get_reservation_details", "content": "Error: reservation ZZ9XYZ not found"})
		}
		r["traj"] = append(append(append([]any{}, traj[:3]...), loop...), traj[3:]...)
	}
	write("head.json")
}

// pushToMaster is the runner's ref and run of a push to the base branch ("master" in GitHub's
// example pull_request payload), whose report the pull request compares with.
var pushToMaster = map[string]string{"GITHUB_REF": "refs/heads/master", "GITHUB_RUN_ID": "9001", "GITHUB_RUN_ATTEMPT": "1"}

// publishBaseReport uploads the JSON report the last step wrote in ws as main's artifact
// agentgate-report (id 501, run 9001, at headSHA), for the next step's baseline: auto.
func publishBaseReport(t *testing.T, e *ghemu.Emulator, ws string) {
	t.Helper()
	base, err := os.ReadFile(filepath.Join(ws, ".agentgate", "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	e.AddArtifact(ghemu.Artifact{ID: 501, Name: "agentgate-report", CreatedAt: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC),
		RunID: 9001, HeadBranch: "master", HeadSHA: headSHA, Zip: zipReport(t, base)})
}

// zipReport packs a report as actions/upload-artifact does: one entry, its file name.
func zipReport(t *testing.T, report []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("report.json")
	if err != nil {
		t.Fatal(err)
	}
	w.Write(report)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// The two workflows of docs/comparison-and-statistics.md, as the runner runs them: a push to
// main gates the clean runs and leaves its report (uploaded as the artifact agentgate-report); the pull request's
// run, with baseline: auto, finds that artifact among decoys, downloads it from the storage
// host without the token, and fails on the regression alone (max-failed-traces is lifted).
func TestActionComparesWithTheBaseBranch(t *testing.T) {
	ws := workspace(t)
	tauBenchRuns(t, ws)
	e, api := emulator(t)
	storage, _ := ghemu.StartStorage(t, e)
	inputs := func(file string) map[string]string {
		return map[string]string{"traces": "evals/" + file, "max-failed-traces": "100", "baseline": "auto"}
	}

	// The push to main: no pull request, so no base to compare with; the report is written.
	r := stepEnv(t, ws, api, "push", ghemu.WebhookExample(t, "push", "", nil), inputs("base.json"), pushToMaster)
	if r.exit != 0 || r.outputs["verdict"] != "WARN" {
		t.Fatalf("push run: exit %d verdict %q, want 0 WARN\n%s%s", r.exit, r.outputs["verdict"], r.stdout, r.stderr)
	}
	if !strings.Contains(r.summary, "baseline auto: a push event has no base branch to compare with: not compared") {
		t.Errorf("push run: the summary does not say why nothing was compared:\n%s", r.summary)
	}
	base, err := os.ReadFile(filepath.Join(ws, ".agentgate", "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Requests()) != 0 {
		t.Fatalf("the push run sent %d API requests, want none", len(e.Requests()))
	}

	// The history: the pull request (GitHub's example payload) branched off main at the push's
	// commit, and main has moved on by one commit, the payload's base.sha, since.
	event := ghemu.WebhookExample(t, "pull_request", "opened", nil)
	prHead, prBase := payloadField(t, event, "pull_request", "head", "sha"), payloadField(t, event, "pull_request", "base", "sha")
	day := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	e.AddCommits(ghemu.Commit{SHA: headSHA, Date: day.Add(-time.Hour)},
		ghemu.Commit{SHA: prBase, Parents: []string{headSHA}, Date: day.Add(4 * time.Hour)},
		ghemu.Commit{SHA: prHead, Parents: []string{headSHA}, Date: day.Add(5 * time.Hour)})

	// The artifacts: the merge base's, and decoys a careless search would take (newer, but
	// of a commit after the merge base, from another branch, from a fork's run on a branch
	// named like the base, expired, or from a pull_request_target run, which runs with the
	// base repository's token on a pull request's behalf).
	e.AddArtifact(ghemu.Artifact{ID: 501, Name: "agentgate-report", CreatedAt: day, RunID: 9001, HeadBranch: "master", HeadSHA: headSHA, Zip: zipReport(t, base)})
	e.AddArtifact(ghemu.Artifact{ID: 502, Name: "agentgate-report", CreatedAt: day.Add(time.Hour), RunID: 9002, HeadBranch: "feature", HeadSHA: strings.Repeat("b", 40), Zip: zipReport(t, []byte("{}"))})
	e.AddArtifact(ghemu.Artifact{ID: 503, Name: "agentgate-report", CreatedAt: day.Add(2 * time.Hour), RunID: 9003, HeadBranch: "master", FromFork: true, HeadSHA: headSHA, Zip: zipReport(t, []byte("{}"))})
	e.AddArtifact(ghemu.Artifact{ID: 504, Name: "agentgate-report", CreatedAt: day.Add(3 * time.Hour), RunID: 9004, HeadBranch: "master", Expired: true, HeadSHA: headSHA})
	e.AddArtifact(ghemu.Artifact{ID: 505, Name: "agentgate-report", CreatedAt: day.Add(4 * time.Hour), RunID: 9005, HeadBranch: "master", HeadSHA: headSHA, Event: "pull_request_target", Zip: zipReport(t, []byte("{}"))})
	e.AddArtifact(ghemu.Artifact{ID: 506, Name: "agentgate-report", CreatedAt: day.Add(5 * time.Hour), RunID: 9006, HeadBranch: "master", HeadSHA: prBase, Zip: zipReport(t, []byte("{}"))})

	// The pull request (its base is "master" in GitHub's example payload).
	e.ResetRequests()
	pr := prNumber(t, event)
	r = step(t, ws, api, "pull_request", event, inputs("head.json"))
	if r.exit != 2 || r.outputs["verdict"] != "FAIL" {
		t.Fatalf("PR run: exit %d verdict %q, want 2 FAIL\n%s%s", r.exit, r.outputs["verdict"], r.stdout, r.stderr)
	}
	want := map[string]string{"new-failures": "6", "regressions": "reliability", "baseline-sha": headSHA, "traces-failed": "7"}
	for k, v := range want {
		if r.outputs[k] != v {
			t.Errorf("output %s = %q, want %q", k, r.outputs[k], v)
		}
	}
	var got []string
	for _, q := range e.Requests() {
		got = append(got, fmt.Sprintf("%s %s %d", q.Method, q.Path, q.Status))
	}
	artifacts := fmt.Sprintf("/repos/%s/%s/actions/artifacts", owner, repo)
	comments := fmt.Sprintf("/repos/%s/%s/issues/%d/comments", owner, repo, pr)
	wantReqs := []string{
		fmt.Sprintf("GET /repos/%s/%s/compare/%s...%s 200", owner, repo, prBase, prHead), // the merge base
		"GET " + artifacts + " 200",
		fmt.Sprintf("GET /repos/%s/%s/actions/runs/9005 200", owner, repo), // the pull_request_target run, passed over
		fmt.Sprintf("GET /repos/%s/%s/actions/runs/9001 200", owner, repo),
		"GET " + artifacts + "/501/zip 302",
		"GET /user 403", // the comment code asks who it is; an Actions token may not say
		"GET " + comments + " 200",
		"POST " + comments + " 201",
	}
	if strings.Join(got, "\n") != strings.Join(wantReqs, "\n") {
		t.Errorf("API requests:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantReqs, "\n"))
	}
	if q := e.Requests()[1]; q.Query != "name=agentgate-report&page=1&per_page=100" && q.Query != "name=agentgate-report&per_page=100&page=1" {
		t.Errorf("artifact list query %q", q.Query)
	}
	if !strings.Contains(r.stdout, "agentgate: baseline: artifact 505 of run 9005 passed over: a \"pull_request_target\" run: only push, schedule and workflow_dispatch runs can be a baseline") {
		t.Errorf("the log does not say why the pull_request_target run's artifact was passed over:\n%s", r.stdout)
	}
	sreqs := storage.Requests()
	if len(sreqs) != 1 || sreqs[0].Path != "/blob/501.zip" || sreqs[0].Authorization != "" {
		t.Errorf("storage requests %+v, want one GET of /blob/501.zip without Authorization", sreqs)
	}
	body := e.Comments(pr)[0].Body
	for _, s := range []string{"Compared with `master` @ `" + headSHA[:7] + "` (run `9001`), the merge base", "fail-on-regression"} {
		if !strings.Contains(body, s) {
			t.Errorf("the comment lacks %q:\n%s", s, body)
		}
	}
	if !strings.Contains(r.stdout, "fail-on-regression") {
		t.Errorf("the log does not name the breached gate:\n%s", r.stdout)
	}
	checkDocBlock(t, "docs/comparison-and-statistics.md", "compare-example", body, "### ⚠️ Reliability", 8)
}

// A pull request opened before main ever uploaded a report: the note says so, and the verdict
// and exit code are those of a run without a baseline.
func TestActionWithoutBaselineArtifactPasses(t *testing.T) {
	e, api := emulator(t)
	event := ghemu.WebhookExample(t, "pull_request", "opened", nil)
	in := suite("pass")
	in["baseline"] = "auto"
	r := step(t, workspace(t), api, "pull_request", event, in)
	if r.exit != 0 || r.outputs["verdict"] != "PASS" {
		t.Fatalf("exit %d verdict %q, want 0 PASS\n%s%s", r.exit, r.outputs["verdict"], r.stdout, r.stderr)
	}
	note := `baseline auto: no unexpired artifact "agentgate-report" from a push, schedule or workflow_dispatch run on master yet (the push-to-main job uploads it): not compared`
	if !strings.Contains(r.summary, note) {
		t.Errorf("the summary lacks the note %q:\n%s", note, r.summary)
	}
	if r.outputs["new-failures"] != "" || r.outputs["regressions"] != "" || r.outputs["baseline-sha"] != "" {
		t.Errorf("comparison outputs without a comparison: %q %q %q", r.outputs["new-failures"], r.outputs["regressions"], r.outputs["baseline-sha"])
	}
	// The merge base first (GitHub does not know these made-up commits: the newest is looked
	// for instead, and there is none).
	if q := e.Requests()[1]; q.Method != "GET" || q.Path != fmt.Sprintf("/repos/%s/%s/actions/artifacts", owner, repo) || q.Status != 200 {
		t.Errorf("second request %s %s %d, want the artifact list", q.Method, q.Path, q.Status)
	}
}

// A baseline report that cannot be compared with (another profile or schema) is a note in the
// JSON report, not an error: the exit code is that of the same run without a baseline. One
// that cannot be read at all, or holds no agentgate report, is an error
// (TestBaselinePathMustBeReadable, TestCLIBaselineNotAReport).
func TestCLIUnusableBaselineIsANote(t *testing.T) {
	dir := t.TempDir()
	pass := []string{"gate", "--traces", "../fixtures/pass/traces.jsonl", "--tasks", "../fixtures/pass/tasks.json", "--pairs", "../fixtures/pass/pairs.jsonl"}
	reference := filepath.Join(dir, "reference.json")
	if code, _, stderr := cli(t, "", append(pass, "--profile", "reference", "--json", reference)...); code != 0 {
		t.Fatalf("reference run: exit %d: %s", code, stderr)
	}
	old := filepath.Join(dir, "old.json")
	os.WriteFile(old, []byte(`{"schema": 1, "verdict": "PASS"}`), 0o644)
	for _, c := range []struct{ baseline, note string }{
		{reference, "baseline " + reference + ` was written with profile "reference", this run uses "default": not compared`},
		{old, "baseline " + old + " has schema 1, this agentgate reads schema 2 and 3: not compared"},
		{"auto", "baseline auto: the base branch's report artifact is looked for under GitHub Actions only; give a report's path to compare here: not compared"},
	} {
		out := filepath.Join(dir, "out.json")
		code, _, stderr := cli(t, "", append(pass, "--baseline", c.baseline, "--json", out)...)
		if code != 0 {
			t.Errorf("baseline %s: exit %d, want 0 as without one: %s", c.baseline, code, stderr)
			continue
		}
		var doc struct {
			BaselineNote string          `json:"baseline_note"`
			Comparison   json.RawMessage `json:"comparison"`
			Gates        []struct {
				Name    string `json:"name"`
				Skipped bool   `json:"skipped"`
				Note    string `json:"note"`
			} `json:"gates"`
		}
		b, _ := os.ReadFile(out)
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(doc.BaselineNote, c.note) || doc.Comparison != nil {
			t.Errorf("baseline %s: note %q, want one ending %q, and no comparison", c.baseline, doc.BaselineNote, c.note)
		}
		last := doc.Gates[len(doc.Gates)-1]
		if last.Name != "fail-on-regression" || !last.Skipped || last.Note != doc.BaselineNote {
			t.Errorf("baseline %s: last gate %+v, want fail-on-regression skipped with the note", c.baseline, last)
		}
	}
}
