package comment_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgate/agentgate/internal/github/api"
	"github.com/agentgate/agentgate/internal/github/comment"
	"github.com/agentgate/agentgate/test/ghemu"
)

// The secrets of these tests: none may appear in an error, a log line or
// anything the emulator recorded.
const (
	userToken = "ghp_userTokenSecret0123456789abcdefABCD"
	botToken  = "ghs_installTokenSecret0123456789abcdefAB"
	forkToken = "ghs_forkReadOnlySecret0123456789abcdefAB"
	pr        = 12
)

var (
	me    = ghemu.User("agentgate-user", 501)
	other = ghemu.User("mallory", 666)
)

// harness is one emulator plus a recording of everything the code under
// test said: sleeps requested, log lines, errors returned.
type harness struct {
	t      *testing.T
	emu    *ghemu.Emulator
	srv    *httptest.Server
	prefix string

	mu     sync.Mutex
	sleeps []time.Duration
	logs   []string
	errs   []string
}

func newHarness(t *testing.T, prefix string) *harness {
	t.Helper()
	emu, srv := ghemu.Start(t, ghemu.Config{
		Owner: "acme", Repo: "agent", PathPrefix: prefix,
		Tokens: map[string]ghemu.Identity{userToken: me, botToken: ghemu.ActionsBot(), forkToken: ghemu.ForkBot()},
	})
	h := &harness{t: t, emu: emu, srv: srv, prefix: prefix}
	t.Cleanup(h.checkNoSecrets)
	return h
}

// service returns a comment.GitHub for token, built the way the entry point
// builds it, with a Sleep that records instead of sleeping.
func (h *harness) service(token string, opts comment.Options) *comment.GitHub {
	h.t.Helper()
	client, err := api.NewClient(token, h.srv.URL+h.prefix, h.srv.Client())
	if err != nil {
		h.t.Fatalf("NewClient: %v", err)
	}
	opts.Retry.Sleep = func(ctx context.Context, d time.Duration) error {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.sleeps = append(h.sleeps, d)
		return ctx.Err()
	}
	opts.Logf = func(format string, args ...any) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.logs = append(h.logs, fmt.Sprintf(format, args...))
	}
	return comment.NewGitHub(client, "acme", "agent", pr, opts)
}

// upsert runs one Upsert with a fresh service (a new process, as on a
// re-run) and records its error text.
func (h *harness) upsert(token string, opts comment.Options, body string) (comment.Outcome, error) {
	h.t.Helper()
	out, err := h.service(token, opts).Upsert(context.Background(), body)
	if err != nil {
		h.mu.Lock()
		h.errs = append(h.errs, err.Error())
		h.mu.Unlock()
	}
	return out, err
}

func (h *harness) checkNoSecrets() {
	h.mu.Lock()
	defer h.mu.Unlock()
	var said []string
	said = append(said, h.errs...)
	said = append(said, h.logs...)
	rec, _ := json.Marshal(h.emu.Requests())
	said = append(said, string(rec))
	for _, s := range said {
		for _, tok := range []string{userToken, botToken, forkToken} {
			if strings.Contains(s, tok) {
				h.t.Errorf("a token leaked into %q", s)
			}
		}
	}
}

func (h *harness) sleepsSoFar() []time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]time.Duration(nil), h.sleeps...)
}

// req is the part of a recorded request a test pins down. Body is the exact
// JSON go-github sends for writes, "" for reads and deletes.
type req struct {
	Method, Path, Query, Body string
	Status                    int
}

func (r req) String() string {
	s := fmt.Sprintf("%s %s", r.Method, r.Path)
	if r.Query != "" {
		s += "?" + r.Query
	}
	if r.Body != "" {
		s += " body=" + r.Body
	}
	return fmt.Sprintf("%s -> %d", s, r.Status)
}

// wantRequests asserts the exact sequence of requests the emulator received
// since the last reset, then resets the record.
func (h *harness) wantRequests(want ...req) {
	h.t.Helper()
	var got []string
	for _, r := range h.emu.Requests() {
		got = append(got, req{r.Method, r.Path, r.Query, r.Body, r.Status}.String())
		if r.Method == "POST" || r.Method == "PATCH" {
			if ct := r.Header.Get("Content-Type"); ct != "application/json" {
				h.t.Errorf("%s %s: Content-Type %q", r.Method, r.Path, ct)
			}
		}
		if ua := r.Header.Get("User-Agent"); ua != "agentgate (+https://github.com/agentgate/agentgate)" {
			h.t.Errorf("%s %s: User-Agent %q", r.Method, r.Path, ua)
		}
		if r.AuthScheme != "Bearer" {
			h.t.Errorf("%s %s: auth scheme %q, want Bearer", r.Method, r.Path, r.AuthScheme)
		}
	}
	var ws []string
	for _, w := range want {
		ws = append(ws, w.String())
	}
	if strings.Join(got, "\n") != strings.Join(ws, "\n") {
		h.t.Errorf("requests:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(ws, "\n  "))
	}
	h.emu.ResetRequests()
}

// bodyJSON is the exact request body go-github sends for a comment body:
// JSON without HTML escaping, newline-terminated.
func bodyJSON(t *testing.T, body string) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]string{"body": body}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

const (
	listPath     = "/repos/acme/agent/issues/12/comments"
	firstPage    = "per_page=100"
	commentsPath = "/repos/acme/agent/issues/comments/"
	marker       = comment.DefaultMarker
)

func userReq() req { return req{"GET", "/user", "", "", 200} }

func TestFirstRunCreatesThenRerunEditsThenUnchanged(t *testing.T) {
	h := newHarness(t, "")
	h.emu.Seed(pr, other, "LGTM")

	out, err := h.upsert(userToken, comment.Options{}, "## agentgate: PASS\n")
	if err != nil {
		t.Fatal(err)
	}
	want := marker + "\n## agentgate: PASS\n"
	if exact := `{"body":"<!-- agentgate:report -->\n## agentgate: PASS\n"}` + "\n"; bodyJSON(t, want) != exact {
		t.Fatalf("test helper encodes %q, want %q", bodyJSON(t, want), exact)
	}
	h.wantRequests(
		userReq(),
		req{"GET", listPath, firstPage, "", 200},
		req{"POST", listPath, "", bodyJSON(t, want), 201},
	)
	cs := h.emu.Comments(pr)
	if len(cs) != 2 || cs[1].Body != want || cs[1].Author.Login != me.Login {
		t.Fatalf("comments after first run: %+v", cs)
	}
	id := cs[1].ID
	wantURL := fmt.Sprintf("%s/acme/agent/pull/12#issuecomment-%d", h.srv.URL, id)
	if !reflect.DeepEqual(out, comment.Outcome{Action: "created", URL: wantURL, ID: id, Author: me.Login}) {
		t.Errorf("outcome %+v", out)
	}

	// Re-run with a new verdict: one PATCH of the same comment, no POST.
	out, err = h.upsert(userToken, comment.Options{}, "## agentgate: FAIL\n")
	if err != nil {
		t.Fatal(err)
	}
	want2 := marker + "\n## agentgate: FAIL\n"
	h.wantRequests(
		userReq(),
		req{"GET", listPath, firstPage, "", 200},
		req{"PATCH", commentsPath + fmt.Sprint(id), "", bodyJSON(t, want2), 200},
	)
	if out.Action != "updated" || out.ID != id || out.URL != wantURL {
		t.Errorf("outcome %+v", out)
	}
	if cs := h.emu.Comments(pr); len(cs) != 2 || cs[1].Body != want2 {
		t.Fatalf("comments after re-run: %+v", cs)
	}

	// Same body again: no write at all.
	out, err = h.upsert(userToken, comment.Options{}, "## agentgate: FAIL\n")
	if err != nil {
		t.Fatal(err)
	}
	h.wantRequests(userReq(), req{"GET", listPath, firstPage, "", 200})
	if out.Action != "unchanged" || out.ID != id {
		t.Errorf("outcome %+v", out)
	}
	if got := h.sleepsSoFar(); len(got) != 0 {
		t.Errorf("slept %v on a clean run", got)
	}
}

func TestFindsCommentOnPage3Of250(t *testing.T) {
	h := newHarness(t, "")
	var mine int64
	for i := 1; i <= 250; i++ {
		switch i {
		case 230:
			mine = h.emu.Seed(pr, me, marker+"\nold report").ID
		case 40:
			h.emu.Seed(pr, other, marker+"\nforged by someone else")
		default:
			h.emu.Seed(pr, other, fmt.Sprintf("chatter %d", i))
		}
	}
	out, err := h.upsert(userToken, comment.Options{}, "new report")
	if err != nil {
		t.Fatal(err)
	}
	h.wantRequests(
		userReq(),
		req{"GET", listPath, "per_page=100", "", 200},
		req{"GET", listPath, "page=2&per_page=100", "", 200},
		req{"GET", listPath, "page=3&per_page=100", "", 200},
		req{"PATCH", commentsPath + fmt.Sprint(mine), "", bodyJSON(t, marker+"\nnew report"), 200},
	)
	if out.Action != "updated" || out.ID != mine {
		t.Errorf("outcome %+v, want updated %d", out, mine)
	}
	if n := len(h.emu.Comments(pr)); n != 250 {
		t.Errorf("%d comments, want 250", n)
	}
}

func TestMarkerCommentByAnotherUserIsIgnored(t *testing.T) {
	h := newHarness(t, "")
	forged := h.emu.Seed(pr, other, marker+"\nI am the report now")
	out, err := h.upsert(userToken, comment.Options{}, "real report")
	if err != nil {
		t.Fatal(err)
	}
	h.wantRequests(
		userReq(),
		req{"GET", listPath, firstPage, "", 200},
		req{"POST", listPath, "", bodyJSON(t, marker+"\nreal report"), 201},
	)
	if out.Action != "created" || out.ID == forged.ID {
		t.Errorf("outcome %+v", out)
	}
	if cs := h.emu.Comments(pr); cs[0].Body != forged.Body {
		t.Errorf("the other user's comment was changed: %q", cs[0].Body)
	}
}

// TestInstallationToken: GITHUB_TOKEN cannot call /user (403), so the
// comments of github-actions[bot] are taken as agentgate's; a marker
// comment by a human is not.
func TestInstallationTokenFallsBackToActionsBot(t *testing.T) {
	h := newHarness(t, "")
	h.emu.Seed(pr, me, marker+"\nby a human with the marker")
	bot := h.emu.Seed(pr, ghemu.ActionsBot(), marker+"\nprevious report")
	out, err := h.upsert(botToken, comment.Options{}, "fresh report")
	if err != nil {
		t.Fatal(err)
	}
	h.wantRequests(
		req{"GET", "/user", "", "", 403},
		req{"GET", listPath, firstPage, "", 200},
		req{"PATCH", commentsPath + fmt.Sprint(bot.ID), "", bodyJSON(t, marker+"\nfresh report"), 200},
	)
	if out.Action != "updated" || out.ID != bot.ID || out.Author != "github-actions[bot]" {
		t.Errorf("outcome %+v", out)
	}
	if len(h.sleepsSoFar()) != 0 {
		t.Errorf("a 403 on /user was retried: sleeps %v", h.sleepsSoFar())
	}

	// An explicit author skips /user altogether.
	out, err = h.upsert(botToken, comment.Options{Author: "github-actions[bot]"}, "fresh report")
	if err != nil {
		t.Fatal(err)
	}
	h.wantRequests(req{"GET", listPath, firstPage, "", 200})
	if out.Action != "unchanged" {
		t.Errorf("outcome %+v", out)
	}
}

func TestDuplicatesUpdateNewestAndReportStale(t *testing.T) {
	h := newHarness(t, "")
	old1 := h.emu.Seed(pr, me, marker+"\nreport v1")
	h.emu.Seed(pr, other, "comment in between")
	old2 := h.emu.Seed(pr, me, marker+"\nreport v2")
	newest := h.emu.Seed(pr, me, marker+"\nreport v3")
	out, err := h.upsert(userToken, comment.Options{}, "report v4")
	if err != nil {
		t.Fatal(err)
	}
	h.wantRequests(
		userReq(),
		req{"GET", listPath, firstPage, "", 200},
		req{"PATCH", commentsPath + fmt.Sprint(newest.ID), "", bodyJSON(t, marker+"\nreport v4"), 200},
	)
	if out.Action != "updated" || out.ID != newest.ID || fmt.Sprint(out.Stale) != fmt.Sprint([]int64{old1.ID, old2.ID}) {
		t.Errorf("outcome %+v", out)
	}
}

func TestRecreateDeletesThenCreates(t *testing.T) {
	h := newHarness(t, "")
	old := h.emu.Seed(pr, me, marker+"\nreport v1")
	h.emu.Seed(pr, other, "a later review comment")
	opts := comment.Options{Mode: comment.ModeRecreate}
	out, err := h.upsert(userToken, opts, "report v1") // same body, but not at the bottom
	if err != nil {
		t.Fatal(err)
	}
	h.wantRequests(
		userReq(),
		req{"GET", listPath, firstPage, "", 200},
		req{"DELETE", commentsPath + fmt.Sprint(old.ID), "", "", 204},
		req{"POST", listPath, "", bodyJSON(t, marker+"\nreport v1"), 201},
	)
	cs := h.emu.Comments(pr)
	if len(cs) != 2 || cs[1].Body != marker+"\nreport v1" || out.Action != "recreated" || out.ID != cs[1].ID {
		t.Fatalf("outcome %+v, comments %+v", out, cs)
	}

	// Identical and already last: nothing to do.
	out, err = h.upsert(userToken, opts, "report v1")
	if err != nil {
		t.Fatal(err)
	}
	h.wantRequests(userReq(), req{"GET", listPath, firstPage, "", 200})
	if out.Action != "unchanged" {
		t.Errorf("outcome %+v", out)
	}

	// No report yet: recreate mode simply creates.
	h2 := newHarness(t, "")
	out, err = h2.upsert(userToken, opts, "first")
	if err != nil || out.Action != "created" {
		t.Fatalf("outcome %+v, %v", out, err)
	}
}

// TestForkTokenNoPermission: the read-only token of a fork's pull request
// can list but not write; Upsert returns ErrNoPermission after exactly one
// refused write, with no retries and no sleeping.
func TestForkTokenNoPermission(t *testing.T) {
	h := newHarness(t, "")
	_, err := h.upsert(forkToken, comment.Options{}, "report")
	if !errors.Is(err, comment.ErrNoPermission) {
		t.Fatalf("error %v, want ErrNoPermission", err)
	}
	h.wantRequests(
		req{"GET", "/user", "", "", 403},
		req{"GET", listPath, firstPage, "", 200},
		req{"POST", listPath, "", bodyJSON(t, marker+"\nreport"), 403},
	)
	if got := err.Error(); got != `create comment on acme/agent#12: GitHub answered 403 "Resource not accessible by integration": the token may not read or write this pull request's comments` {
		t.Errorf("error text %q", got)
	}
	if len(h.sleepsSoFar()) != 0 {
		t.Errorf("slept %v", h.sleepsSoFar())
	}
	if !strings.Contains(comment.Hint(), "workflow_run") || !strings.Contains(comment.Hint(), "pull-requests: write") {
		t.Errorf("Hint does not explain the workflow_run route:\n%s", comment.Hint())
	}
}

// A 404 is not a read-only token (that one reads, and is refused writes with 403): it is a
// pull request, repository or API URL that the token does not find.
func TestListing404IsNotFound(t *testing.T) {
	h := newHarness(t, "")
	h.emu.AddFault(ghemu.Fault{Method: "GET", Path: listPath, Status: 404})
	_, err := h.upsert(userToken, comment.Options{}, "report")
	if !errors.Is(err, comment.ErrNotFound) || errors.Is(err, comment.ErrNoPermission) {
		t.Fatalf("error %v, want ErrNotFound only", err)
	}
	if got := err.Error(); got != `list comments on acme/agent#12 (page 1): GitHub answered 404 "Not Found": GitHub found no such pull request or repository for this token (check the pull request number, the token's access and GITHUB_API_URL)` {
		t.Errorf("error text %q", got)
	}
	h.wantRequests(userReq(), req{"GET", listPath, firstPage, "", 404})
	if len(h.sleepsSoFar()) != 0 {
		t.Errorf("slept %v", h.sleepsSoFar())
	}
}

func TestRetriesThenSucceeds(t *testing.T) {
	cases := []struct {
		name   string
		fault  ghemu.Fault
		seed   bool
		want   func(t *testing.T, id int64) []req
		sleeps []time.Duration
	}{
		{
			name:  "429 with Retry-After on POST",
			fault: ghemu.Fault{Method: "POST", Times: 1, Status: 429, Header: map[string]string{"Retry-After": "3"}},
			want: func(t *testing.T, _ int64) []req {
				return []req{userReq(), {"GET", listPath, firstPage, "", 200},
					{"POST", listPath, "", bodyJSON(t, marker+"\nr"), 429},
					{"POST", listPath, "", bodyJSON(t, marker+"\nr"), 201}}
			},
			sleeps: []time.Duration{3 * time.Second},
		},
		{
			name:  "secondary rate limit 403 with Retry-After on PATCH",
			fault: func() ghemu.Fault { f := ghemu.SecondaryRateLimit(7); f.Method, f.Times = "PATCH", 2; return f }(),
			seed:  true,
			want: func(t *testing.T, id int64) []req {
				p := commentsPath + fmt.Sprint(id)
				return []req{userReq(), {"GET", listPath, firstPage, "", 200},
					{"PATCH", p, "", bodyJSON(t, marker+"\nr"), 403},
					{"PATCH", p, "", bodyJSON(t, marker+"\nr"), 403},
					{"PATCH", p, "", bodyJSON(t, marker+"\nr"), 200}}
			},
			sleeps: []time.Duration{7 * time.Second, 7 * time.Second},
		},
		{
			name: "secondary rate limit without Retry-After: wait a minute, as GitHub's documentation says",
			fault: func() ghemu.Fault {
				f := ghemu.SecondaryRateLimit(0)
				f.Header, f.Method, f.Times = nil, "POST", 1
				return f
			}(),
			want: func(t *testing.T, _ int64) []req {
				return []req{userReq(), {"GET", listPath, firstPage, "", 200},
					{"POST", listPath, "", bodyJSON(t, marker+"\nr"), 403},
					{"POST", listPath, "", bodyJSON(t, marker+"\nr"), 201}}
			},
			sleeps: []time.Duration{time.Minute},
		},
		{
			name:  "429 without Retry-After: a minute",
			fault: ghemu.Fault{Method: "GET", Path: listPath, Times: 1, Status: 429},
			want: func(t *testing.T, _ int64) []req {
				return []req{userReq(), {"GET", listPath, firstPage, "", 429}, {"GET", listPath, firstPage, "", 200},
					{"POST", listPath, "", bodyJSON(t, marker+"\nr"), 201}}
			},
			sleeps: []time.Duration{time.Minute},
		},
		{
			name:  "403 with Retry-After but no documentation link",
			fault: ghemu.Fault{Path: "/user", Times: 1, Status: 403, Message: "slow down", Header: map[string]string{"Retry-After": "2"}},
			want: func(t *testing.T, _ int64) []req {
				return []req{{"GET", "/user", "", "", 403}, userReq(), {"GET", listPath, firstPage, "", 200},
					{"POST", listPath, "", bodyJSON(t, marker+"\nr"), 201}}
			},
			sleeps: []time.Duration{2 * time.Second},
		},
		{
			name:  "502 twice on the listing: exponential backoff",
			fault: ghemu.Fault{Method: "GET", Path: listPath, Times: 2, Status: 502},
			want: func(t *testing.T, _ int64) []req {
				return []req{userReq(), {"GET", listPath, firstPage, "", 502}, {"GET", listPath, firstPage, "", 502},
					{"GET", listPath, firstPage, "", 200}, {"POST", listPath, "", bodyJSON(t, marker+"\nr"), 201}}
			},
			sleeps: []time.Duration{time.Second, 2 * time.Second},
		},
		{
			name:  "502 on POST that GitHub did not store: look, then post again",
			fault: ghemu.Fault{Method: "POST", Times: 1, Status: 502},
			want: func(t *testing.T, _ int64) []req {
				return []req{userReq(), {"GET", listPath, firstPage, "", 200},
					{"POST", listPath, "", bodyJSON(t, marker+"\nr"), 502},
					{"GET", listPath, firstPage, "", 200},
					{"POST", listPath, "", bodyJSON(t, marker+"\nr"), 201}}
			},
			sleeps: []time.Duration{time.Second},
		},
		{
			name:  "502 on POST that GitHub did store: adopt it, no duplicate",
			fault: ghemu.Fault{Method: "POST", Times: 1, Status: 502, Commit: true},
			want: func(t *testing.T, _ int64) []req {
				return []req{userReq(), {"GET", listPath, firstPage, "", 200},
					{"POST", listPath, "", bodyJSON(t, marker+"\nr"), 502},
					{"GET", listPath, firstPage, "", 200}}
			},
			sleeps: []time.Duration{time.Second},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, "")
			var id int64
			if c.seed {
				id = h.emu.Seed(pr, me, marker+"\nold").ID
			}
			h.emu.AddFault(c.fault)
			out, err := h.upsert(userToken, comment.Options{}, "r")
			if err != nil {
				t.Fatal(err)
			}
			h.wantRequests(c.want(t, id)...)
			if got := h.sleepsSoFar(); fmt.Sprint(got) != fmt.Sprint(c.sleeps) {
				t.Errorf("sleeps %v, want %v", got, c.sleeps)
			}
			cs := h.emu.Comments(pr)
			if len(cs) != 1 || cs[0].Body != marker+"\nr" || out.ID != cs[0].ID {
				t.Errorf("outcome %+v, comments %+v", out, cs)
			}
		})
	}
}

func TestGivesUpAfterTheCap(t *testing.T) {
	h := newHarness(t, "")
	h.emu.AddFault(ghemu.Fault{Method: "GET", Path: listPath, Status: 500})
	_, err := h.upsert(userToken, comment.Options{Retry: comment.RetryPolicy{MaxAttempts: 5, MaxDelay: 3 * time.Second}}, "r")
	if !errors.Is(err, comment.ErrUnavailable) {
		t.Fatalf("error %v, want ErrUnavailable", err)
	}
	l := req{"GET", listPath, firstPage, "", 500}
	h.wantRequests(userReq(), l, l, l, l, l)
	if got, want := fmt.Sprint(h.sleepsSoFar()), "[1s 2s 3s 3s]"; got != want {
		t.Errorf("sleeps %s, want %s (doubling, capped at MaxDelay)", got, want)
	}
	if got := err.Error(); got != `list comments on acme/agent#12 (page 1): GitHub answered 500 "Server Error" (after 5 attempts): GitHub did not answer successfully` {
		t.Errorf("error text %q", got)
	}

	// Default policy: 4 attempts, waits of 1s, 2s, 4s.
	h2 := newHarness(t, "")
	h2.emu.AddFault(ghemu.Fault{Method: "GET", Path: listPath, Status: 503})
	if _, err := h2.upsert(userToken, comment.Options{}, "r"); !errors.Is(err, comment.ErrUnavailable) {
		t.Fatalf("error %v", err)
	}
	if got := fmt.Sprint(h2.sleepsSoFar()); got != "[1s 2s 4s]" {
		t.Errorf("default sleeps %s", got)
	}
}

// TestRetryAfterLongerThanCap: GitHub asks for more patience than the step
// has; retrying early would be punished, so it fails at once.
func TestRetryAfterLongerThanCap(t *testing.T) {
	h := newHarness(t, "")
	f := ghemu.SecondaryRateLimit(120)
	f.Method = "POST"
	h.emu.AddFault(f)
	_, err := h.upsert(userToken, comment.Options{}, "r")
	if !errors.Is(err, comment.ErrRateLimited) {
		t.Fatalf("error %v, want ErrRateLimited", err)
	}
	h.wantRequests(userReq(), req{"GET", listPath, firstPage, "", 200}, req{"POST", listPath, "", bodyJSON(t, marker+"\nr"), 403})
	if len(h.sleepsSoFar()) != 0 {
		t.Errorf("slept %v", h.sleepsSoFar())
	}
	if !strings.Contains(err.Error(), "GitHub asked to wait 2m0s, longer than the 1m0s this step waits") {
		t.Errorf("error text %q", err)
	}
}

func TestPrimaryRateLimitSaysWhenItResets(t *testing.T) {
	h := newHarness(t, "")
	reset := time.Now().Add(42 * time.Minute).Truncate(time.Second)
	h.emu.AddFault(ghemu.PrimaryRateLimit(reset))
	_, err := h.upsert(userToken, comment.Options{}, "r")
	if !errors.Is(err, comment.ErrRateLimited) {
		t.Fatalf("error %v, want ErrRateLimited", err)
	}
	h.wantRequests(req{"GET", "/user", "", "", 403})
	if want := "it resets at " + reset.UTC().Format(time.RFC3339); !strings.Contains(err.Error(), want) {
		t.Errorf("error %q lacks %q", err, want)
	}
	if len(h.sleepsSoFar()) != 0 {
		t.Errorf("slept %v", h.sleepsSoFar())
	}

	// 429 with X-RateLimit-Remaining: 0 is the primary limit too.
	h2 := newHarness(t, "")
	f := ghemu.PrimaryRateLimit(reset)
	f.Status = 429
	h2.emu.AddFault(f)
	if _, err := h2.upsert(userToken, comment.Options{}, "r"); !errors.Is(err, comment.ErrRateLimited) || !strings.Contains(err.Error(), "it resets at") {
		t.Fatalf("429 primary: %v", err)
	}
	if len(h2.sleepsSoFar()) != 0 {
		t.Errorf("slept %v", h2.sleepsSoFar())
	}
}

func TestUnauthorized(t *testing.T) {
	h := newHarness(t, "")
	const bad = "ghp_revokedTokenSecret0000000000000000"
	_, err := h.upsert(bad, comment.Options{}, "r")
	if !errors.Is(err, comment.ErrUnauthorized) || errors.Is(err, comment.ErrNoPermission) {
		t.Fatalf("error %v, want ErrUnauthorized only", err)
	}
	h.wantRequests(req{"GET", "/user", "", "", 401})
	want := `look up the token's user (GET /user): GitHub answered 401 "Bad credentials": GitHub rejected the token (check the github-token input)`
	if err.Error() != want {
		t.Errorf("error text\n %q\nwant\n %q", err, want)
	}
	if strings.Contains(err.Error(), bad) {
		t.Error("error holds the token")
	}
}

func TestValidationErrorCarriesGitHubsMessage(t *testing.T) {
	h := newHarness(t, "")
	h.emu.AddFault(ghemu.Fault{Method: "POST", Status: 422, Errors: []map[string]any{
		{"resource": "IssueComment", "code": "custom", "field": "body", "message": "body is too long (maximum is 65536 characters)"},
	}})
	_, err := h.upsert(userToken, comment.Options{}, "r")
	if !errors.Is(err, comment.ErrValidation) {
		t.Fatalf("error %v, want ErrValidation", err)
	}
	want := `create comment on acme/agent#12: GitHub answered 422 "Validation Failed (body: body is too long (maximum is 65536 characters))": GitHub refused the comment as invalid`
	if err.Error() != want {
		t.Errorf("error text\n %q\nwant\n %q", err, want)
	}
	var apiErr *comment.APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 422 || apiErr.Attempts != 1 {
		t.Errorf("APIError %+v", apiErr)
	}
}

// TestGHES runs the whole flow against a server whose API lives under
// /api/v3, as GITHUB_API_URL says on GitHub Enterprise Server.
func TestGHES(t *testing.T) {
	h := newHarness(t, "/api/v3")
	out, err := h.upsert(userToken, comment.Options{}, "on GHES")
	if err != nil {
		t.Fatal(err)
	}
	var full []string
	for _, r := range h.emu.Requests() {
		full = append(full, r.Method+" "+r.FullPath)
	}
	if want := "GET /api/v3/user|GET /api/v3" + listPath + "|POST /api/v3" + listPath; strings.Join(full, "|") != want {
		t.Errorf("paths %q, want %q", full, want)
	}
	if out.Action != "created" {
		t.Errorf("outcome %+v", out)
	}
}

func TestLongBodyIsCutToGitHubsLimit(t *testing.T) {
	h := newHarness(t, "")
	var b strings.Builder
	b.WriteString("| trace | verdict |\n|---|---|\n")
	for i := 0; b.Len() < 90000; i++ {
		fmt.Fprintf(&b, "| trace-%05d 🟥 | FAIL |\n", i)
	}
	out, err := h.upsert(userToken, comment.Options{}, b.String())
	if err != nil {
		t.Fatal(err)
	}
	cs := h.emu.Comments(pr)
	if len(cs) != 1 || !out.Truncated {
		t.Fatalf("outcome %+v, %d comments", out, len(cs))
	}
	body := cs[0].Body
	if n := comment.Chars(body); n > comment.MaxBodyChars {
		t.Fatalf("posted %d characters", n)
	}
	if !strings.HasPrefix(body, marker+"\n| trace | verdict |\n") || !strings.Contains(body, "cut to fit GitHub's limit of 65,536 characters") {
		t.Errorf("body head/tail: %q ... %q", body[:60], body[len(body)-200:])
	}
	kept, _, _ := strings.Cut(body, "\n\n> [!NOTE]")
	for _, line := range strings.Split(strings.TrimSuffix(kept, "\n"), "\n")[1:] {
		if !strings.HasPrefix(line, "|") || !strings.HasSuffix(line, "|") {
			t.Fatalf("a table row was cut mid-line: %q", line)
		}
	}
}

func TestBadArguments(t *testing.T) {
	h := newHarness(t, "")
	if _, err := h.upsert(userToken, comment.Options{Mode: "append"}, "r"); err == nil || !strings.Contains(err.Error(), `comment-mode "append"`) {
		t.Errorf("bad mode: %v", err)
	}
	client, _ := api.NewClient(userToken, h.srv.URL, nil)
	if _, err := comment.NewGitHub(client, "acme", "agent", 0, comment.Options{}).Upsert(context.Background(), "r"); err == nil {
		t.Error("pull request 0 accepted")
	}
	h.wantRequests()
}

func TestContextCancelledWhileWaiting(t *testing.T) {
	h := newHarness(t, "")
	h.emu.AddFault(ghemu.Fault{Method: "GET", Path: listPath, Status: 502})
	ctx, cancel := context.WithCancel(context.Background())
	client, _ := api.NewClient(userToken, h.srv.URL, h.srv.Client())
	g := comment.NewGitHub(client, "acme", "agent", pr, comment.Options{Retry: comment.RetryPolicy{
		Sleep: func(ctx context.Context, d time.Duration) error { cancel(); return ctx.Err() },
	}})
	_, err := g.Upsert(ctx, "r")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	h.wantRequests(userReq(), req{"GET", listPath, firstPage, "", 502})
}

// TestUnexpectedStatus: an answer agentgate has no rule for is returned with
// go-github's detail and matches none of the kinds.
func TestUnexpectedStatus(t *testing.T) {
	h := newHarness(t, "")
	h.emu.AddFault(ghemu.Fault{Method: "POST", Status: 418, Message: "I'm a teapot"})
	_, err := h.upsert(userToken, comment.Options{}, "r")
	if err == nil {
		t.Fatal("no error")
	}
	for _, kind := range []error{comment.ErrNoPermission, comment.ErrNotFound, comment.ErrUnauthorized, comment.ErrValidation, comment.ErrRateLimited, comment.ErrUnavailable} {
		if errors.Is(err, kind) {
			t.Errorf("error %v matches %v", err, kind)
		}
	}
	want := fmt.Sprintf(`create comment on acme/agent#12: GitHub answered 418 "I'm a teapot": POST %s/repos/acme/agent/issues/12/comments: 418 I'm a teapot []`, h.srv.URL)
	if err.Error() != want {
		t.Errorf("error text\n %q\nwant\n %q", err, want)
	}
	h.wantRequests(userReq(), req{"GET", listPath, firstPage, "", 200}, req{"POST", listPath, "", bodyJSON(t, marker+"\nr"), 418})
}

// Under GITHUB_TOKEN every workflow of the repository comments as github-actions[bot]. Another
// workflow's comment that quotes the pull request's text, marker included, is not the report:
// only a comment whose first line is the marker is. Before, it was edited over (update) or
// deleted (recreate), and the real report went stale (issue 34, finding 5).
func TestBotCommentQuotingTheMarkerIsNotTheReport(t *testing.T) {
	quotes := []string{
		"Thanks! Your PR description:\n> " + marker + "\n> fixes the agent",
		"Summary of the PR body:\n" + marker + "\nhijacked",
		"> " + marker + "\nquoted at the top",
	}
	for _, mode := range []string{comment.ModeUpdate, comment.ModeRecreate} {
		t.Run(mode, func(t *testing.T) {
			h := newHarness(t, "")
			var others []ghemu.Comment
			for _, q := range quotes {
				others = append(others, h.emu.Seed(pr, ghemu.ActionsBot(), q))
			}
			report := h.emu.Seed(pr, ghemu.ActionsBot(), marker+"\nold report")
			h.emu.Seed(pr, ghemu.ActionsBot(), "Another workflow: "+marker) // after the report
			out, err := h.upsert(botToken, comment.Options{Mode: mode}, "new report")
			if err != nil {
				t.Fatal(err)
			}
			switch mode {
			case comment.ModeUpdate:
				h.wantRequests(
					req{"GET", "/user", "", "", 403},
					req{"GET", listPath, firstPage, "", 200},
					req{"PATCH", commentsPath + fmt.Sprint(report.ID), "", bodyJSON(t, marker+"\nnew report"), 200},
				)
				if out.Action != "updated" || out.ID != report.ID || len(out.Stale) != 0 {
					t.Errorf("outcome %+v", out)
				}
			case comment.ModeRecreate:
				h.wantRequests(
					req{"GET", "/user", "", "", 403},
					req{"GET", listPath, firstPage, "", 200},
					req{"DELETE", commentsPath + fmt.Sprint(report.ID), "", "", 204},
					req{"POST", listPath, "", bodyJSON(t, marker+"\nnew report"), 201},
				)
				if out.Action != "recreated" {
					t.Errorf("outcome %+v", out)
				}
			}
			cs := h.emu.Comments(pr)
			for i, o := range others {
				if cs[i].ID != o.ID || cs[i].Body != quotes[i] {
					t.Errorf("another workflow's comment %d changed: %+v", i, cs[i])
				}
			}
		})
	}

	// With only a quoting comment on the pull request, the report is a new comment.
	h := newHarness(t, "")
	h.emu.Seed(pr, ghemu.ActionsBot(), quotes[0])
	out, err := h.upsert(botToken, comment.Options{Mode: comment.ModeRecreate}, "report")
	if err != nil {
		t.Fatal(err)
	}
	h.wantRequests(
		req{"GET", "/user", "", "", 403},
		req{"GET", listPath, firstPage, "", 200},
		req{"POST", listPath, "", bodyJSON(t, marker+"\nreport"), 201},
	)
	if out.Action != "created" || len(h.emu.Comments(pr)) != 2 {
		t.Errorf("outcome %+v, comments %+v", out, h.emu.Comments(pr))
	}
}

// A report whose text quotes the marker (a trace that holds it) still gets the marker on its
// first line, and is found again on the next run.
func TestReportQuotingTheMarkerKeepsItsOwn(t *testing.T) {
	h := newHarness(t, "")
	body := "trace `" + marker + "` failed"
	if _, err := h.upsert(userToken, comment.Options{}, body); err != nil {
		t.Fatal(err)
	}
	h.wantRequests(userReq(), req{"GET", listPath, firstPage, "", 200}, req{"POST", listPath, "", bodyJSON(t, marker+"\n"+body), 201})
	out, err := h.upsert(userToken, comment.Options{}, body)
	if err != nil || out.Action != "unchanged" {
		t.Fatalf("outcome %+v, %v", out, err)
	}
}
