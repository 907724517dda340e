package event_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-github/v66/github"

	"github.com/agentgate/agentgate/internal/github/event"
	"github.com/agentgate/agentgate/test/ghemu"
)

func webhookExample(t *testing.T, event, action string, keep func(map[string]any) bool) []byte {
	t.Helper()
	return ghemu.WebhookExample(t, event, action, keep)
}

func writeEvent(t *testing.T, payload []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(p, payload, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPRFromRealEventPayloads(t *testing.T) {
	withPRs := func(m map[string]any) bool {
		prs, _ := m["workflow_run"].(map[string]any)["pull_requests"].([]any)
		return len(prs) > 0
	}
	withoutPRs := func(m map[string]any) bool { return !withPRs(m) }
	prOpened := webhookExample(t, "pull_request", "opened", nil)
	onIssue := webhookExample(t, "issue_comment", "created", nil)
	onPR := ghemu.IssueCommentOnPull(t)

	cases := []struct {
		name, event string
		payload     []byte
		input       string
		pr          int
		ok          bool
		warn        string // what the warning says, "" for none
	}{
		{"pull_request opened", "pull_request", prOpened, "", 2, true, ""},
		{"pull_request_target", "pull_request_target", prOpened, "", 2, true, ""},
		{"merge_group: number from head_ref", "merge_group", webhookExample(t, "merge_group", "checks_requested", nil), "", 104, true, ""},
		{"workflow_run with pull_requests", "workflow_run", webhookExample(t, "workflow_run", "completed", withPRs), "", 2, true, ""},
		{"workflow_run without (a fork): no PR", "workflow_run", webhookExample(t, "workflow_run", "completed", withoutPRs), "", 0, false, ""},
		{"workflow_run with pr-number input", "workflow_run", webhookExample(t, "workflow_run", "completed", withoutPRs), "57", 57, true, ""},
		// the event's own pull request wins over pr-number, with a warning when they differ
		{"pull_request: pr-number ignored", "pull_request", prOpened, "#9", 2, true,
			"pr-number 9 ignored: the pull_request event is about pull request #2, which is where the report goes (pr-number names the pull request only for an event that has none, such as a workflow_run from a fork)"},
		{"pull_request_target: pr-number ignored", "pull_request_target", prOpened, "9", 2, true,
			"pr-number 9 ignored: the pull_request_target event is about pull request #2, which is where the report goes (pr-number names the pull request only for an event that has none, such as a workflow_run from a fork)"},
		{"pull_request: the same pr-number, no warning", "pull_request", prOpened, "2", 2, true, ""},
		{"issue_comment: pr-number ignored", "issue_comment", onPR, "5", 1, true,
			"pr-number 5 ignored: the issue_comment event is about pull request #1, which is where the report goes (pr-number names the pull request only for an event that has none, such as a workflow_run from a fork)"},
		{"workflow_run with pull_requests: pr-number ignored", "workflow_run", webhookExample(t, "workflow_run", "completed", withPRs), "57", 2, true,
			"pr-number 57 ignored: the workflow_run event is about pull request #2, which is where the report goes (pr-number names the pull request only for an event that has none, such as a workflow_run from a fork)"},
		{"push with pr-number", "push", webhookExample(t, "push", "", nil), "8", 8, true, ""},
		{"issue_comment on an issue with pr-number", "issue_comment", onIssue, "8", 8, true, ""},
		{"push: no PR", "push", webhookExample(t, "push", "", nil), "", 0, false, ""},
		{"issue_comment on an issue: no PR", "issue_comment", onIssue, "", 0, false, ""},
		{"issue_comment on a pull request", "issue_comment", onPR, "", 1, true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pr, ok, warn, err := event.New(c.event, writeEvent(t, c.payload)).PR(c.input)
			if err != nil || pr != c.pr || ok != c.ok || warn != c.warn {
				t.Fatalf("got (%d, %v, %q, %v), want (%d, %v, %q, nil)", pr, ok, warn, err, c.pr, c.ok, c.warn)
			}
		})
	}
}

// TestPRErrors needs no npm data.
func TestPRErrors(t *testing.T) {
	for _, in := range []string{"abc", "0", "-3", "+5", "1.5", "12 13", "#"} {
		if _, _, _, err := event.New("workflow_run", "").PR(in); err == nil || !strings.Contains(err.Error(), "pr-number input") {
			t.Errorf("input %q: %v", in, err)
		}
	}
	// push and unknown events never read the payload.
	for _, ev := range []string{"push", "schedule", "workflow_dispatch", ""} {
		if pr, ok, _, err := event.New(ev, "/nonexistent/event.json").PR(""); pr != 0 || ok || err != nil {
			t.Errorf("%s: (%d, %v, %v)", ev, pr, ok, err)
		}
	}
	errCases := []struct{ event, payload, want string }{
		{"pull_request", "", "GITHUB_EVENT_PATH is not set"},
		{"pull_request", "{", "decode payload"},
		{"pull_request", `{"action":"opened"}`, "number is missing"},
		{"merge_group", `{"merge_group":{"head_ref":"refs/heads/main"}}`, `head_ref "refs/heads/main" is not`},
		{"merge_group", `{}`, "no merge_group object"},
	}
	for _, c := range errCases {
		path := ""
		if c.payload != "" {
			path = writeEvent(t, []byte(c.payload))
		}
		if _, _, _, err := event.New(c.event, path).PR(""); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v, want %q", c.event, c.payload, err, c.want)
		}
	}
	p := writeEvent(t, []byte(`{"merge_group":{"head_ref":"refs/heads/gh-readonly-queue/release/v2/pr-4242-0123abcd"}}`))
	if pr, ok, _, err := event.New("merge_group", p).PR(""); pr != 4242 || !ok || err != nil {
		t.Errorf("base branch with a slash: (%d, %v, %v)", pr, ok, err)
	}
	if _, _, _, err := event.New("pull_request", filepath.Join(t.TempDir(), "missing.json")).PR(""); err == nil {
		t.Error("missing payload file accepted")
	}
}

// Sides reads what `baseline: auto` compares across from GitHub's own example payloads: the
// head, the base commit and the base branch; a push has none, and an issue_comment has them
// only from the pull request GitHub answered.
func TestSidesFromRealEventPayloads(t *testing.T) {
	withPRs := func(m map[string]any) bool {
		prs, _ := m["workflow_run"].(map[string]any)["pull_requests"].([]any)
		return len(prs) > 0
	}
	pr := webhookExample(t, "pull_request", "opened", nil)
	run := webhookExample(t, "workflow_run", "completed", withPRs)
	mg := webhookExample(t, "merge_group", "checks_requested", nil)
	field := func(raw []byte, path ...any) string {
		var m any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		for _, p := range path {
			switch p := p.(type) {
			case string:
				m = m.(map[string]any)[p]
			case int:
				m = m.([]any)[p]
			}
		}
		return m.(string)
	}
	cases := []struct {
		name, event string
		payload     []byte
		want        event.Sides
		ok          bool
	}{
		{"pull_request opened", "pull_request", pr,
			event.Sides{Head: field(pr, "pull_request", "head", "sha"), Base: field(pr, "pull_request", "base", "sha"), Branch: "master"}, true},
		{"pull_request_target", "pull_request_target", pr,
			event.Sides{Head: field(pr, "pull_request", "head", "sha"), Base: field(pr, "pull_request", "base", "sha"), Branch: "master"}, true},
		{"merge_group: the queue's base, refs/heads/ stripped", "merge_group", mg,
			event.Sides{Head: "2ffea6db159f6b6c47a24e778fb9ef40cf6b1c7d", Base: "380387fbc80638b734a49e1be1c4dfec1c01b33c", Branch: "main", Queue: true}, true},
		{"workflow_run with pull_requests", "workflow_run", run,
			event.Sides{Head: field(run, "workflow_run", "head_sha"), Base: field(run, "workflow_run", "pull_requests", 0, "base", "sha"), Branch: "master"}, true},
		{"push: no base", "push", webhookExample(t, "push", "", nil), event.Sides{}, false},
		{"issue_comment before its pull request is read", "issue_comment", webhookExample(t, "issue_comment", "created", nil), event.Sides{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok, err := event.New(c.event, writeEvent(t, c.payload)).Sides()
			if err != nil || got != c.want || ok != c.ok || ok && (len(got.Head) != 40 || len(got.Base) != 40) {
				t.Errorf("Sides = %+v, %v, %v; want %+v, %v, nil", got, ok, err, c.want, c.ok)
			}
		})
	}
	if _, _, err := event.New("pull_request", "").Sides(); err == nil || !strings.Contains(err.Error(), "GITHUB_EVENT_PATH is not set") {
		t.Errorf("no event path: %v", err)
	}
	// A commit that is no commit id is left out, never passed on.
	evil := writeEvent(t, []byte(`{"pull_request":{"head":{"sha":"../../x"},"base":{"sha":"main","ref":"main"}}}`))
	if got, ok, err := event.New("pull_request", evil).Sides(); got != (event.Sides{Branch: "main"}) || !ok || err != nil {
		t.Errorf("Sides = %+v, %v, %v; want the branch alone", got, ok, err)
	}
}

// An issue_comment on a pull request (GitHub's example, the comment moved onto a pull
// request): its payload holds neither head nor base, and GITHUB_SHA is the default branch's
// tip, so the check run's commit and the sides come from the pull request GitHub answered;
// before it is read, HeadSHA is an error rather than GITHUB_SHA. On an issue, GITHUB_SHA.
func TestIssueCommentTakesThePullRequest(t *testing.T) {
	const githubSHA = "1111111111111111111111111111111111111111"
	const head, base = "2222222222222222222222222222222222222222", "3333333333333333333333333333333333333333"
	onIssue := webhookExample(t, "issue_comment", "created", nil)
	onPR := ghemu.IssueCommentOnPull(t)

	ev := event.New("issue_comment", writeEvent(t, onPR))
	if !ev.NeedsPull() {
		t.Fatal("NeedsPull = false on a pull request's comment")
	}
	if got, err := ev.HeadSHA(githubSHA); err == nil || got != "" {
		t.Errorf("HeadSHA before the pull request is read = %q, %v; want an error", got, err)
	}
	ev.UsePull(&github.PullRequest{Head: &github.PullRequestBranch{SHA: github.String(head)},
		Base: &github.PullRequestBranch{SHA: github.String(base), Ref: github.String("main")}})
	if ev.NeedsPull() {
		t.Error("NeedsPull = true once read")
	}
	if got, err := ev.HeadSHA(githubSHA); got != head || err != nil {
		t.Errorf("HeadSHA = %q, %v; want the pull request's head %s", got, err, head)
	}
	if got, ok, err := ev.Sides(); got != (event.Sides{Head: head, Base: base, Branch: "main"}) || !ok || err != nil {
		t.Errorf("Sides = %+v, %v, %v", got, ok, err)
	}

	plain := event.New("issue_comment", writeEvent(t, onIssue))
	if got, err := plain.HeadSHA(githubSHA); plain.NeedsPull() || got != githubSHA || err != nil {
		t.Errorf("on an issue: NeedsPull %v, HeadSHA %q, %v; want GITHUB_SHA", plain.NeedsPull(), got, err)
	}
}

// The payload is read once: what PR read, Sides and WorkflowRunHeadSHA answer from
// without the file.
func TestPayloadIsReadOnce(t *testing.T) {
	const sha = "0123456789abcdef0123456789abcdef01234567"
	path := writeEvent(t, []byte(`{"workflow_run":{"head_sha":"`+sha+`","pull_requests":[{"number":7,"base":{"ref":"release/v2"}}]}}`))
	ev := event.New("workflow_run", path)
	if pr, ok, _, err := ev.PR(""); pr != 7 || !ok || err != nil {
		t.Fatalf("PR = %d, %v, %v; want 7, true, nil", pr, ok, err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if sides, ok, err := ev.Sides(); sides != (event.Sides{Head: sha, Branch: "release/v2"}) || !ok || err != nil {
		t.Errorf("Sides = %+v, %v, %v; want release/v2 at head %s, true, nil", sides, ok, err, sha)
	}
	if got, err := ev.WorkflowRunHeadSHA(); got != sha || err != nil {
		t.Errorf("WorkflowRunHeadSHA = %q, %v", got, err)
	}
	bad := event.New("workflow_run", writeEvent(t, []byte(`{"workflow_run":{"head_sha":"HEAD"}}`)))
	if _, err := bad.WorkflowRunHeadSHA(); err == nil || !strings.Contains(err.Error(), "has no workflow_run.head_sha commit id") {
		t.Errorf("head_sha HEAD: %v", err)
	}
	if _, err := event.New("workflow_run", "").WorkflowRunHeadSHA(); err == nil || err.Error() != "event workflow_run: GITHUB_EVENT_PATH is not set, cannot read workflow_run.head_sha" {
		t.Errorf("no event path: %v", err)
	}
}

// FuzzEvent: no payload makes the event's readers panic, and a pull request found is positive.
func FuzzEvent(f *testing.F) {
	f.Add("pull_request", []byte(`{"number":3,"pull_request":{"number":3,"base":{"ref":"main"}}}`))
	f.Add("merge_group", []byte(`{"merge_group":{"head_ref":"refs/heads/gh-readonly-queue/main/pr-5-abc","base_ref":"refs/heads/main"}}`))
	f.Add("issue_comment", []byte(`{"issue":{"number":1,"pull_request":{}}}`))
	f.Add("workflow_run", []byte(`{"workflow_run":{"head_sha":"x","pull_requests":[{"number":2}]}}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, name string, payload []byte) {
		path := filepath.Join(dir, "event.json")
		if err := os.WriteFile(path, payload, 0o644); err != nil {
			t.Fatal(err)
		}
		ev := event.New(name, path)
		pr, ok, _, err := ev.PR("")
		if ok && (pr <= 0 || err != nil) {
			t.Errorf("PR = %d, %v, %v", pr, ok, err)
		}
		// pr-number never moves the report off the event's own pull request
		got, gotOK, warning, gotErr := ev.PR("4242")
		switch {
		case err != nil && gotErr == nil:
			t.Errorf("PR(\"\") failed (%v), PR(\"4242\") did not", err)
		case ok && (got != pr || !gotOK || (pr != 4242) != (warning != "")):
			t.Errorf("own pull request %d; with pr-number 4242: %d, %v, %q, %v", pr, got, gotOK, warning, gotErr)
		case err == nil && !ok && (got != 4242 || !gotOK || warning != "" || gotErr != nil):
			t.Errorf("no pull request; with pr-number 4242: %d, %v, %q, %v", got, gotOK, warning, gotErr)
		}
		if sides, ok, err := ev.Sides(); ok && (err != nil || sides.Branch == "") {
			t.Errorf("Sides = %+v, %v, %v", sides, ok, err)
		}
		ev.NeedsPull()
		ev.WorkflowRunHeadSHA()
		ev.HeadSHA("1111111111111111111111111111111111111111")
	})
}

// The check run's commit: the pull request's head (not the merge commit in GITHUB_SHA),
// workflow_run.head_sha, merge_group.head_sha, else GITHUB_SHA; read from real payloads.
func TestHeadSHAFromRealEventPayloads(t *testing.T) {
	const githubSHA = "1111111111111111111111111111111111111111"
	field := func(raw []byte, path ...string) string {
		var m any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		for _, p := range path {
			m = m.(map[string]any)[p]
		}
		return m.(string)
	}
	pr := webhookExample(t, "pull_request", "opened", nil)
	run := webhookExample(t, "workflow_run", "completed", nil)
	mg := webhookExample(t, "merge_group", "checks_requested", nil)
	for _, c := range []struct {
		event   string
		payload []byte
		want    string
	}{
		{"pull_request", pr, field(pr, "pull_request", "head", "sha")},
		{"pull_request_target", pr, field(pr, "pull_request", "head", "sha")},
		{"workflow_run", run, field(run, "workflow_run", "head_sha")},
		{"merge_group", mg, field(mg, "merge_group", "head_sha")},
		{"push", webhookExample(t, "push", "", nil), githubSHA},
		{"schedule", nil, githubSHA},
	} {
		path := ""
		if c.payload != nil {
			path = writeEvent(t, c.payload)
		}
		got, err := event.New(c.event, path).HeadSHA(githubSHA)
		if err != nil || got != c.want || got == githubSHA && c.event != "push" && c.event != "schedule" || len(got) != 40 {
			t.Errorf("%s: %q, %v; want %q", c.event, got, err, c.want)
		}
	}
	// A payload without the commit, or with something else in its place, is an error.
	for _, c := range []struct{ event, payload, sha string }{
		{"pull_request", `{"pull_request":{"number":1}}`, githubSHA},
		{"workflow_run", `{"workflow_run":{"head_sha":"main; rm -rf /"}}`, githubSHA},
		{"push", `{}`, "not-a-sha"},
	} {
		if got, err := event.New(c.event, writeEvent(t, []byte(c.payload))).HeadSHA(c.sha); err == nil {
			t.Errorf("%s %s: %q, want an error", c.event, c.payload, got)
		}
	}
}

// A fork's workflow_run names no pull request: the one pr-number names, read from GitHub,
// gives the base only when its head is the commit the run gated. A number from the fork's
// artifact cannot borrow another pull request's base.
func TestForkWorkflowRunTakesTheBaseOfItsOwnPullRequest(t *testing.T) {
	const base = "3333333333333333333333333333333333333333"
	raw := webhookExample(t, "workflow_run", "completed", func(m map[string]any) bool {
		prs, _ := m["workflow_run"].(map[string]any)["pull_requests"].([]any)
		return len(prs) == 0
	})
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	head := m["workflow_run"].(map[string]any)["head_sha"].(string)
	pull := func(h string) *github.PullRequest {
		return &github.PullRequest{Head: &github.PullRequestBranch{SHA: github.String(h)},
			Base: &github.PullRequestBranch{SHA: github.String(base), Ref: github.String("main")}}
	}
	ev := event.New("workflow_run", writeEvent(t, raw))
	if s, ok, err := ev.Sides(); ok || err != nil {
		t.Fatalf("before the pull request is read: %+v, %v, %v; want none", s, ok, err)
	}
	ev.UsePull(pull("4444444444444444444444444444444444444444"))
	if s, ok, err := ev.Sides(); ok || err != nil {
		t.Errorf("another pull request's: %+v, %v, %v; want none", s, ok, err)
	}
	ev.UsePull(pull(head))
	if s, ok, err := ev.Sides(); s != (event.Sides{Head: head, Base: base, Branch: "main"}) || !ok || err != nil {
		t.Errorf("its own: %+v, %v, %v", s, ok, err)
	}
}
