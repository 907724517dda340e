package entrypoint

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/internal/github/comment"
	"github.com/agentgate/agentgate/test/ghemu"
)

// Every event a required check meets, driven as the runner drives the action with
// `baseline: auto`, `check-name` and the comment on, against the emulator: the exact
// requests, the commit the check run lands on, and what the comparison says. The base
// branch's report comes from the push run, the first case.
func TestActionOnEveryEvent(t *testing.T) {
	ws := workspace(t)
	prEvent := ghemu.WebhookExample(t, "pull_request", "opened", nil)
	withPRs := func(m map[string]any) bool {
		prs, _ := m["workflow_run"].(map[string]any)["pull_requests"].([]any)
		return len(prs) > 0
	}
	runEvent := ghemu.WebhookExample(t, "workflow_run", "completed", withPRs)
	forkRun := ghemu.WebhookExample(t, "workflow_run", "completed", func(m map[string]any) bool { return !withPRs(m) })
	forkHead := payloadField(t, forkRun, "workflow_run", "head_sha")
	mgEvent := ghemu.WebhookExample(t, "merge_group", "checks_requested", nil)
	prHead, prBase := payloadField(t, prEvent, "pull_request", "head", "sha"), payloadField(t, prEvent, "pull_request", "base", "sha")
	runHead := payloadField(t, runEvent, "workflow_run", "head_sha")
	mgHead, mgBase := payloadField(t, mgEvent, "merge_group", "head_sha"), payloadField(t, mgEvent, "merge_group", "base_sha")
	const (
		commentHead = "c0ffee0000000000000000000000000000000001"
		commentBase = "c0ffee0000000000000000000000000000000002"
	)
	in := suite("pass")
	in["baseline"], in["check-name"] = "auto", "agentgate"
	repoPath := "/repos/" + owner + "/" + repo
	day := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

	// The requests, by what they do.
	found := []string{"GET " + repoPath + "/actions/artifacts 200", "GET " + repoPath + "/actions/runs/9001 200", "GET " + repoPath + "/actions/artifacts/501/zip 302"}
	commented := func(n int) []string {
		return []string{"GET /user 403", fmt.Sprintf("GET %s/issues/%d/comments 200", repoPath, n), fmt.Sprintf("POST %s/issues/%d/comments 201", repoPath, n)}
	}
	compared := func(base, head string) string { return "GET " + repoPath + "/compare/" + base + "..." + head + " 200" }
	checked := "POST " + repoPath + "/check-runs 201"
	seq := func(parts ...any) []string {
		var out []string
		for _, p := range parts {
			switch p := p.(type) {
			case string:
				out = append(out, p)
			case []string:
				out = append(out, p...)
			}
		}
		return out
	}
	prReqs := seq(compared(prBase, prHead), found, commented(2), checked)

	var base []byte // the push run's report, the baseline of the others
	cases := []struct {
		name, event string
		payload     []byte
		env         map[string]string
		// mergeBase is the commit the base branch's artifact is of; heads are the commits
		// branched off it (base and head of the pull request).
		mergeBase string
		heads     []string
		pulls     map[int]ghemu.Pull
		check     string // the check run's head_sha; "" for none
		branch    string
		reqs      []string // "METHOD path status", in order
		summary   string
		// noBaseline runs without `baseline: auto`; prNumber is the pr-number input.
		noBaseline bool
		prNumber   string
	}{
		{name: "push", event: "push", payload: ghemu.WebhookExample(t, "push", "", nil), env: pushToMaster,
			check: headSHA, reqs: seq(checked),
			summary: "baseline auto: a push event has no base branch to compare with: not compared"},
		{name: "schedule", event: "schedule", payload: []byte(`{"schedule":"30 5 * * 1-5","workflow":".github/workflows/evals.yml"}`), env: pushToMaster,
			check: headSHA, reqs: seq(checked),
			summary: "baseline auto: a schedule event has no base branch to compare with: not compared"},
		{name: "pull_request", event: "pull_request", payload: prEvent, mergeBase: headSHA, heads: []string{prBase, prHead},
			check: prHead, branch: "master", reqs: prReqs},
		{name: "pull_request_target", event: "pull_request_target", payload: prEvent, mergeBase: headSHA, heads: []string{prBase, prHead},
			check: prHead, branch: "master", reqs: prReqs},
		{name: "workflow_run", event: "workflow_run", payload: runEvent, mergeBase: headSHA, heads: []string{prBase, runHead},
			pulls: map[int]ghemu.Pull{2: {HeadSHA: runHead}},
			check: runHead, branch: "master", reqs: seq(compared(prBase, runHead), found,
				"GET "+repoPath+"/pulls/2 200", // the pull request's head must be the run's
				commented(2), checked)},
		// A fork's run: GitHub names no pull request, pr-number does (from the fork's artifact);
		// its pull request is read once, for the base and for the comment's head check.
		{name: "workflow_run from a fork, with pr-number", event: "workflow_run", payload: forkRun, prNumber: "7",
			mergeBase: headSHA, heads: []string{commentBase, forkHead},
			pulls: map[int]ghemu.Pull{7: {HeadSHA: forkHead, BaseSHA: commentBase, BaseRef: "master"}},
			check: forkHead, branch: "master", reqs: seq("GET "+repoPath+"/pulls/7 200",
				compared(commentBase, forkHead), found, commented(7), checked)},
		// pr-number naming a pull request whose head is not the run's: neither its base nor
		// its comment is touched.
		{name: "workflow_run from a fork, pr-number of another pull request", event: "workflow_run", payload: forkRun, prNumber: "7",
			pulls: map[int]ghemu.Pull{7: {HeadSHA: commentHead, BaseSHA: commentBase, BaseRef: "master"}},
			check: forkHead, reqs: seq("GET "+repoPath+"/pulls/7 200", checked),
			summary: "agentgate did not comment on pull request #7: its head commit is not the commit this report is about."},
		{name: "issue_comment", event: "issue_comment", payload: ghemu.IssueCommentOnPull(t), mergeBase: headSHA, heads: []string{commentBase, commentHead},
			pulls: map[int]ghemu.Pull{1: {HeadSHA: commentHead, BaseSHA: commentBase, BaseRef: "main"}},
			check: commentHead, branch: "main", reqs: seq(
				"GET "+repoPath+"/pulls/1 200", // read once: head and base
				compared(commentBase, commentHead), found, commented(1), checked)},
		{name: "issue_comment without a baseline: the pull request read for the check run", event: "issue_comment", payload: ghemu.IssueCommentOnPull(t),
			pulls: map[int]ghemu.Pull{1: {HeadSHA: commentHead, BaseSHA: commentBase, BaseRef: "main"}}, noBaseline: true,
			check: commentHead, reqs: seq(commented(1), "GET "+repoPath+"/pulls/1 200", checked)},
		{name: "issue_comment, the pull request unreadable: no check run on main", event: "issue_comment", payload: ghemu.IssueCommentOnPull(t),
			reqs:    seq("GET "+repoPath+"/pulls/1 404", commented(1)),
			summary: "agentgate did not post the check run `agentgate`: cannot tell the head commit"},
		{name: "merge_group", event: "merge_group", payload: mgEvent, mergeBase: mgBase, heads: []string{mgHead},
			// the queue's base is the merge base: no compare; no comment
			check: mgHead, branch: "main", reqs: seq(found, checked)},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if i > 0 && base == nil {
				t.Skip("no base report: the push case failed")
			}
			e, api := emulator(t)
			_, _ = ghemu.StartStorage(t, e)
			e.AddCommits(ghemu.Commit{SHA: c.mergeBase, Date: day.Add(-time.Hour)})
			for j, h := range c.heads {
				e.AddCommits(ghemu.Commit{SHA: h, Parents: []string{c.mergeBase}, Date: day.Add(time.Duration(j+1) * time.Hour)})
			}
			if c.mergeBase != "" {
				// The report of the merge base's push run: the push run's, of that commit.
				rep := bytes.ReplaceAll(base, []byte(headSHA), []byte(c.mergeBase))
				e.AddArtifact(ghemu.Artifact{ID: 501, Name: "agentgate-report", CreatedAt: day, RunID: 9001, HeadBranch: c.branch, HeadSHA: c.mergeBase, Zip: zipReport(t, rep)})
			}
			for n, p := range c.pulls {
				e.SetPull(n, p)
			}
			old := e.Seed(104, ghemu.ActionsBot(), comment.DefaultMarker+"\nthe pull request's own report")
			inputs := maps.Clone(in)
			if c.noBaseline {
				delete(inputs, "baseline")
			}
			if c.prNumber != "" {
				inputs["pr-number"] = c.prNumber
			}
			r := stepEnv(t, ws, api, c.event, c.payload, inputs, c.env)
			if r.exit != 0 || r.outputs["verdict"] != "PASS" {
				t.Fatalf("exit %d verdict %q, want 0 PASS\n%s%s", r.exit, r.outputs["verdict"], r.stdout, r.stderr)
			}
			var got []string
			for _, q := range e.Requests() {
				got = append(got, fmt.Sprintf("%s %s %d", q.Method, q.Path, q.Status))
			}
			if !slices.Equal(got, c.reqs) {
				t.Errorf("API requests:\n%s\nwant:\n%s\n%s", strings.Join(got, "\n"), strings.Join(c.reqs, "\n"), r.stdout)
			}
			_, bodies := checkRunRequests(t, e.Requests())
			switch {
			case c.check == "" && len(bodies) != 0:
				t.Errorf("a check run was posted on %s", bodies[0].HeadSHA)
			case c.check != "" && (len(bodies) != 1 || bodies[0].HeadSHA != c.check || *bodies[0].Conclusion != "success"):
				t.Errorf("check runs %+v, want one on %s", bodies, c.check)
			}
			if c.mergeBase != "" {
				// The ref is the baseline report's own: the push run's, refs/heads/master.
				want := fmt.Sprintf("### ✅ Compared with `master` @ `%s` (run `9001`), the merge base\n", c.mergeBase[:7])
				if !strings.Contains(r.summary, want) {
					t.Errorf("the summary lacks %q:\n%s", want, r.summary)
				}
			}
			if c.summary != "" && !strings.Contains(r.summary, c.summary) {
				t.Errorf("the summary lacks %q:\n%s", c.summary, r.summary)
			}
			if cs := e.Comments(104); len(cs) != 1 || cs[0] != old {
				t.Errorf("the merge queue's pull request's comment was touched: %+v", cs)
			}
			if i == 0 {
				var err error
				if base, err = os.ReadFile(filepath.Join(ws, ".agentgate", "report.json")); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
