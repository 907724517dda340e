package checks_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/internal/github/api"
	"github.com/agentgate/agentgate/internal/github/checks"
	"github.com/agentgate/agentgate/test/ghemu"
)

const (
	botToken      = "ghs_installTokenSecret0123456789abcdefAB"
	forkToken     = "ghs_forkReadOnlySecret0123456789abcdefAB"
	noChecksToken = "ghs_noChecksWriteSecret0123456789abcdefA"
	head          = "0123456789abcdef0123456789abcdef01234567"
)

func start(t *testing.T) (*ghemu.Emulator, func(token string) *checks.GitHub, *[]time.Duration) {
	t.Helper()
	noChecks := ghemu.ActionsBot()
	noChecks.NoChecks = true
	emu, srv := ghemu.Start(t, ghemu.Config{
		Owner: "acme", Repo: "agent",
		Tokens: map[string]ghemu.Identity{botToken: ghemu.ActionsBot(), forkToken: ghemu.ForkBot(), noChecksToken: noChecks},
	})
	var sleeps []time.Duration
	svc := func(token string) *checks.GitHub {
		client, err := api.NewClient(token, srv.URL, srv.Client())
		if err != nil {
			t.Fatal(err)
		}
		return checks.NewGitHub(client, "acme", "agent", checks.Options{Retry: checks.RetryPolicy{
			Sleep: func(ctx context.Context, d time.Duration) error { sleeps = append(sleeps, d); return ctx.Err() },
		}})
	}
	return emu, svc, &sleeps
}

func findings(n int) []checks.Annotation {
	out := make([]checks.Annotation, n)
	for i := range out {
		out[i] = checks.Annotation{Path: fmt.Sprintf("runs/t%03d.jsonl", i), Line: i + 1, Level: checks.LevelFailure,
			Title: fmt.Sprintf("agentgate: trace t%03d FAIL", i), Message: "Score 0.9"}
		if i%2 == 1 {
			out[i].Level = checks.LevelWarning
		}
	}
	return out
}

// sent is one request's body as the client sent it.
type sent struct {
	Name       string  `json:"name"`
	HeadSHA    string  `json:"head_sha"`
	Status     string  `json:"status"`
	Conclusion *string `json:"conclusion"`
	Output     struct {
		Title       string                  `json:"title"`
		Summary     string                  `json:"summary"`
		Annotations []ghemu.CheckAnnotation `json:"annotations"`
	} `json:"output"`
}

func decode(t *testing.T, r ghemu.Request) sent {
	t.Helper()
	var s sent
	if err := json.Unmarshal([]byte(r.Body), &s); err != nil {
		t.Fatalf("request %d body: %v", r.N, err)
	}
	return s
}

// 120 findings: one create with the first 50 and the conclusion, then two updates with 50
// and 20, every annotation sent once, in order.
func TestPublishBatchesOf50(t *testing.T) {
	emu, svc, _ := start(t)
	anns := findings(120)
	out, err := svc(botToken).Publish(context.Background(), checks.Run{
		Name: "agentgate", HeadSHA: head, Conclusion: checks.ConclusionFailure,
		Title: "FAIL: 1 gate breached", Summary: "## ❌ agentgate: FAIL\n", Annotations: anns,
	})
	if err != nil {
		t.Fatal(err)
	}
	reqs := emu.Requests()
	if len(reqs) != 3 || out.Requests != 3 || out.Annotated != 120 || out.Dropped != 0 || out.Truncated {
		t.Fatalf("%d requests, outcome %+v; want 3 requests and 120 annotations", len(reqs), out)
	}
	wantPath := []string{"/repos/acme/agent/check-runs", fmt.Sprintf("/repos/acme/agent/check-runs/%d", out.ID), fmt.Sprintf("/repos/acme/agent/check-runs/%d", out.ID)}
	wantMethod := []string{http.MethodPost, http.MethodPatch, http.MethodPatch}
	wantN := []int{50, 50, 20}
	next := 0
	for i, r := range reqs {
		if r.Method != wantMethod[i] || r.Path != wantPath[i] || r.Status/100 != 2 {
			t.Errorf("request %d: %s %s → %d, want %s %s", i+1, r.Method, r.Path, r.Status, wantMethod[i], wantPath[i])
		}
		s := decode(t, r)
		if len(s.Output.Annotations) != wantN[i] {
			t.Errorf("request %d carries %d annotations, want %d", i+1, len(s.Output.Annotations), wantN[i])
		}
		for _, a := range s.Output.Annotations {
			w := anns[next]
			if a.Path != w.Path || a.StartLine != w.Line || a.EndLine != w.Line || a.AnnotationLevel != w.Level || a.Title != w.Title || a.Message != w.Message {
				t.Errorf("annotation %d: %+v, want %+v", next, a, w)
			}
			next++
		}
		if s.Name != "agentgate" || s.Output.Title != "FAIL: 1 gate breached" || s.Output.Summary != "## ❌ agentgate: FAIL\n" {
			t.Errorf("request %d: name %q, title %q, summary %q", i+1, s.Name, s.Output.Title, s.Output.Summary)
		}
		if i == 0 && (s.HeadSHA != head || s.Status != "completed" || s.Conclusion == nil || *s.Conclusion != "failure") {
			t.Errorf("create: head_sha %q status %q conclusion %v", s.HeadSHA, s.Status, s.Conclusion)
		}
		if i > 0 && s.Conclusion != nil {
			t.Errorf("update %d sets the conclusion again: %q", i, *s.Conclusion)
		}
	}
	runs := emu.CheckRuns()
	if len(runs) != 1 || len(runs[0].Annotations) != 120 || runs[0].Conclusion != "failure" || runs[0].Status != "completed" || runs[0].HeadSHA != head {
		t.Errorf("stored check runs: %+v", runs)
	}
	if want := fmt.Sprintf("/acme/agent/runs/%d", out.ID); !strings.HasSuffix(out.URL, want) {
		t.Errorf("URL %q, want …%s", out.URL, want)
	}
}

// Exactly 50 findings (and none) take one request; 51 take two.
func TestPublishRequestCounts(t *testing.T) {
	for _, c := range []struct{ n, requests int }{{0, 1}, {1, 1}, {50, 1}, {51, 2}, {100, 2}, {101, 3}} {
		emu, svc, _ := start(t)
		out, err := svc(botToken).Publish(context.Background(), checks.Run{Name: "gate", HeadSHA: head, Conclusion: checks.ConclusionSuccess, Summary: "ok", Annotations: findings(c.n)})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(emu.Requests()); got != c.requests || out.Requests != c.requests || out.Annotated != c.n {
			t.Errorf("%d findings: %d requests (outcome %+v), want %d", c.n, got, out, c.requests)
		}
	}
}

// Past MaxAnnotations nothing more is sent: 20 requests, the rest counted as dropped.
func TestPublishCapsAnnotations(t *testing.T) {
	emu, svc, _ := start(t)
	out, err := svc(botToken).Publish(context.Background(), checks.Run{Name: "gate", HeadSHA: head, Conclusion: checks.ConclusionFailure, Summary: "s", Annotations: findings(2345)})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(emu.Requests()); got != 20 || out.Annotated != 1000 || out.Dropped != 1345 {
		t.Errorf("%d requests, outcome %+v; want 20 requests, 1000 sent, 1345 dropped", got, out)
	}
}

// Without checks: write, and with a fork's read-only token, GitHub answers 403: one request,
// ErrNoPermission, nothing retried.
func TestPublishNoPermission(t *testing.T) {
	for _, tok := range []string{noChecksToken, forkToken} {
		emu, svc, sleeps := start(t)
		_, err := svc(tok).Publish(context.Background(), checks.Run{Name: "gate", HeadSHA: head, Conclusion: checks.ConclusionSuccess, Summary: "s", Annotations: findings(70)})
		if !errors.Is(err, checks.ErrNoPermission) {
			t.Fatalf("err %v, want ErrNoPermission", err)
		}
		var ae *checks.APIError
		if !errors.As(err, &ae) || ae.Status != 403 || ae.Message != "Resource not accessible by integration" {
			t.Errorf("APIError %+v", ae)
		}
		if reqs := emu.Requests(); len(reqs) != 1 || reqs[0].Status != 403 || len(*sleeps) != 0 {
			t.Errorf("%d requests, %d sleeps: want one 403 and no retry", len(reqs), len(*sleeps))
		}
		if strings.Contains(err.Error(), tok) {
			t.Error("the token is in the error")
		}
	}
}

// A 502 is retried; an update refused after the create leaves a complete check run and says
// how many annotations were not sent.
func TestPublishRetriesAndPartialFailure(t *testing.T) {
	emu, svc, sleeps := start(t)
	emu.AddFault(ghemu.Fault{Method: "POST", Path: "/repos/acme/agent/check-runs", Status: 502, Times: 1})
	emu.AddFault(ghemu.Fault{Method: "PATCH", Path: "/repos/acme/agent/check-runs/*", Status: 422, Times: 1})
	out, err := svc(botToken).Publish(context.Background(), checks.Run{Name: "gate", HeadSHA: head, Conclusion: checks.ConclusionNeutral, Summary: "s", Annotations: findings(120)})
	if !errors.Is(err, checks.ErrValidation) {
		t.Fatalf("err %v, want ErrValidation", err)
	}
	if len(*sleeps) != 1 || out.Requests != 1 || out.Annotated != 50 || out.Dropped != 70 {
		t.Errorf("sleeps %v, outcome %+v; want one retry, 50 sent and 70 dropped", *sleeps, out)
	}
	if runs := emu.CheckRuns(); len(runs) != 1 || runs[0].Conclusion != "neutral" {
		t.Errorf("check runs %+v: want one, neutral", runs)
	}
}

// A summary over GitHub's 65,535 characters is cut at a line, with the note, to exactly fit.
func TestPublishCutsTheSummary(t *testing.T) {
	emu, svc, _ := start(t)
	line := strings.Repeat("é", 99) + "\n"
	long := strings.Repeat(line, 1000) // 100,000 characters
	out, err := svc(botToken).Publish(context.Background(), checks.Run{Name: "gate", HeadSHA: head, Conclusion: checks.ConclusionSuccess, Summary: long})
	if err != nil {
		t.Fatal(err)
	}
	got := emu.CheckRuns()[0].Summary
	if !out.Truncated || len([]rune(got)) > checks.MaxSummaryChars || !strings.Contains(got, "The job summary and the JSON report") {
		t.Fatalf("truncated %v, %d characters", out.Truncated, len([]rune(got)))
	}
	kept, _, _ := strings.Cut(got, "\n\n> [!NOTE]")
	if kept != strings.Repeat(line, strings.Count(kept, "\n"))[:len(kept)] || !strings.HasSuffix(kept, "\n") {
		t.Error("the summary was not cut at a line boundary")
	}
}

// Hostile paths and texts: what is not a place in the repository is not sent; texts are one
// line within GitHub's limits, JSON-encoded, so nothing in them is a command or markup.
func TestPublishHostileAnnotations(t *testing.T) {
	emu, svc, _ := start(t)
	anns := []checks.Annotation{
		{Path: "../../etc/passwd", Line: 1, Message: "m"},
		{Path: "/etc/passwd", Line: 1, Message: "m"},
		{Path: "a\nb.jsonl", Line: 1, Message: "m"},
		{Path: "", Line: 1, Message: "m"},
		{Path: "./runs//x.jsonl", Line: 0, Level: "error", Title: "t\n::error::x\r" + strings.Repeat("y", 300), Message: "::stop-commands::z\n##[error]w"},
	}
	out, err := svc(botToken).Publish(context.Background(), checks.Run{Name: "gate\n::warning::x", HeadSHA: head, Conclusion: checks.ConclusionFailure, Summary: "s", Annotations: anns})
	if err != nil {
		t.Fatal(err)
	}
	if out.Annotated != 1 || out.Dropped != 4 {
		t.Fatalf("outcome %+v: want 1 sent, 4 dropped", out)
	}
	run := emu.CheckRuns()[0]
	a := run.Annotations[0]
	if run.Name != "gate ::warning::x" || a.Path != "runs/x.jsonl" || a.StartLine != 1 || a.EndLine != 1 || a.AnnotationLevel != "failure" ||
		len([]rune(a.Title)) != 255 || strings.ContainsAny(a.Title, "\r\n") || !strings.HasPrefix(a.Title, "t ::error::x y") {
		t.Errorf("run %q, annotation %+v", run.Name, a)
	}
}

func TestRepoPath(t *testing.T) {
	for _, c := range []struct{ file, ws, want string }{
		{"runs/a.jsonl", "/github/workspace", "runs/a.jsonl"},
		{"./runs/../runs/a.jsonl", "", "runs/a.jsonl"},
		{"/github/workspace/runs/a.jsonl", "/github/workspace", "runs/a.jsonl"},
		{"/github/workspace/runs/a.jsonl", "/github/workspace/", "runs/a.jsonl"},
		{"/github/workspace2/a.jsonl", "/github/workspace", ""},
		{"/github/workspace", "/github/workspace", ""},
		{"/etc/passwd", "", ""},
		{"/etc/passwd", "/", ""},
		{"../a.jsonl", "/w", ""},
		{"runs/../../a.jsonl", "/w", ""},
		{".", "/w", ""},
		{"a\x00b", "/w", ""},
		{"a\xffb", "/w", ""},
		{"evals/<script>.jsonl", "/w", "evals/<script>.jsonl"},
	} {
		if got := checks.RepoPath(c.file, c.ws); got != c.want {
			t.Errorf("RepoPath(%q, %q) = %q, want %q", c.file, c.ws, got, c.want)
		}
	}
}

// FuzzRepoPath: whatever the file name, RepoPath gives "" or a clean relative path with no
// ".." segment and no control character, which it gives back unchanged.
func FuzzRepoPath(f *testing.F) {
	for _, s := range []string{"runs/a.jsonl", "../x", "/github/workspace/a", "./a//b/../c", "a\nb", "\xff", "..", "/", ".//..//a"} {
		f.Add(s, "/github/workspace")
	}
	f.Fuzz(func(t *testing.T, file, ws string) {
		p := checks.RepoPath(file, ws)
		if p == "" {
			return
		}
		if strings.HasPrefix(p, "/") || p == "." || p == ".." || strings.HasPrefix(p, "../") || strings.Contains(p, "/../") || strings.HasSuffix(p, "/..") ||
			strings.Contains(p, "//") || strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }) {
			t.Fatalf("RepoPath(%q, %q) = %q", file, ws, p)
		}
		if again := checks.RepoPath(p, ""); again != p {
			t.Fatalf("RepoPath(%q) = %q, not itself", p, again)
		}
	})
}

// On GitHub Enterprise Server the API lives under /api/v3 (GITHUB_API_URL says so).
func TestPublishOnEnterpriseServer(t *testing.T) {
	emu, srv := ghemu.Start(t, ghemu.Config{Owner: "acme", Repo: "agent", PathPrefix: "/api/v3", Tokens: map[string]ghemu.Identity{botToken: ghemu.ActionsBot()}})
	client, err := api.NewClient(botToken, srv.URL+"/api/v3", srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	out, err := checks.NewGitHub(client, "acme", "agent", checks.Options{}).Publish(context.Background(),
		checks.Run{Name: "gate", HeadSHA: head, Conclusion: checks.ConclusionSuccess, Summary: "s", Annotations: findings(60)})
	if err != nil {
		t.Fatal(err)
	}
	reqs := emu.Requests()
	if len(reqs) != 2 || reqs[0].FullPath != "/api/v3/repos/acme/agent/check-runs" || reqs[1].FullPath != fmt.Sprintf("/api/v3/repos/acme/agent/check-runs/%d", out.ID) || reqs[0].AuthScheme != "Bearer" {
		t.Errorf("requests %+v", reqs)
	}
}
