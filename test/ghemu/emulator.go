// Package ghemu is an in-process emulator of the few GitHub REST endpoints
// agentgate uses to post its pull-request report: GET /user, listing and
// creating issue comments, editing and deleting one, creating and updating a
// check run. It keeps comments in
// memory, authenticates tokens, paginates like GitHub (per_page, page and a
// Link header), injects faults (401, 403, 404, 422, 429, 5xx with Retry-After
// or X-RateLimit-* headers), records every request for assertions, and, given
// GitHub's OpenAPI description, validates every request it receives and every
// response it sends.
//
// Tests use Start; the command in cmd/ghemu serves the same handler on a
// fixed address for container tests.
package ghemu

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// MaxCommentChars is GitHub's limit on a comment body, in characters.
const MaxCommentChars = 65536

// Identity is the account a token authenticates as.
type Identity struct {
	Login string `json:"login"`
	ID    int64  `json:"id"`
	// Type is "User" or "Bot".
	Type string `json:"type"`
	// Installation marks a GitHub App installation token, such as the
	// Actions GITHUB_TOKEN: GET /user answers 403 "Resource not accessible
	// by integration" and comments carry performed_via_github_app.
	Installation bool `json:"installation,omitempty"`
	// ReadOnly marks a token that may read but not write, like the
	// GITHUB_TOKEN of a pull request from a fork: writes answer 403.
	ReadOnly bool `json:"read_only,omitempty"`
	// NoChecks marks a token without checks: write (a job whose permissions do not list
	// it): creating or updating a check run answers 403.
	NoChecks bool `json:"no_checks,omitempty"`
}

// User returns the identity of a personal access token of login.
func User(login string, id int64) Identity {
	return Identity{Login: login, ID: id, Type: "User"}
}

// ActionsBot returns the identity of the Actions GITHUB_TOKEN: the
// github-actions[bot] account (its real id), an installation token.
func ActionsBot() Identity {
	return Identity{Login: "github-actions[bot]", ID: 41898282, Type: "Bot", Installation: true}
}

// ForkBot returns ActionsBot with a read-only token, as a workflow run for a
// pull request from a fork receives.
func ForkBot() Identity {
	id := ActionsBot()
	id.ReadOnly = true
	return id
}

// Comment is one stored issue comment.
type Comment struct {
	ID        int64     `json:"id"`
	Issue     int       `json:"issue"`
	Body      string    `json:"body"`
	Author    Identity  `json:"author"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Request is one recorded API request and the status it was answered with.
type Request struct {
	// N numbers API requests from 1 in arrival order (control requests
	// under /_emulator/ are neither numbered nor recorded).
	N      int    `json:"n"`
	Method string `json:"method"`
	// Path is the request path without the GHES prefix.
	Path string `json:"path"`
	// FullPath is the path as received, prefix included.
	FullPath string `json:"full_path"`
	// Query is the raw query string as sent.
	Query string `json:"query"`
	// Header holds the request headers except Authorization.
	Header http.Header `json:"header"`
	// AuthScheme is "Bearer", "token", or "" when no credentials came.
	AuthScheme string `json:"auth_scheme"`
	Body       string `json:"body"`
	Status     int    `json:"status"`
}

// Fault makes the emulator answer matching requests with an error instead of
// serving them. Zero fields match anything.
type Fault struct {
	// Request matches only the N-th API request (see Request.N).
	Request int `json:"request,omitempty"`
	// Method matches the HTTP method, e.g. "PATCH".
	Method string `json:"method,omitempty"`
	// Path matches the path (without GHES prefix) exactly, or, ending in
	// "*", by prefix.
	Path string `json:"path,omitempty"`
	// Times is how many matching requests the fault answers; 0 means all.
	Times int `json:"times,omitempty"`
	// Status is the HTTP status to answer with.
	Status int `json:"status"`
	// Message and DocumentationURL fill GitHub's error object; defaults
	// follow what GitHub says for the status.
	Message          string `json:"message,omitempty"`
	DocumentationURL string `json:"documentation_url,omitempty"`
	// Errors fills the "errors" array of a 422.
	Errors []map[string]any `json:"errors,omitempty"`
	// Header adds response headers, e.g. Retry-After or X-RateLimit-Remaining.
	Header map[string]string `json:"header,omitempty"`
	// Commit serves the request first (a write takes effect) and then
	// answers with the fault anyway, like a gateway timing out after
	// GitHub stored the comment.
	Commit bool `json:"commit,omitempty"`
	// Oversize, when not 0, answers with Status (200 when 0) and a JSON object
	// whose one member holds a string of Oversize bytes, streamed without a
	// Content-Length and never held: a hostile or broken API's endless answer.
	Oversize int64 `json:"oversize,omitempty"`
}

// SecondaryRateLimit is GitHub's answer when a client trips a secondary
// (abuse) rate limit: 403 with Retry-After and the documentation link that
// go-github recognises.
func SecondaryRateLimit(retryAfterSeconds int) Fault {
	return Fault{
		Status:           http.StatusForbidden,
		Message:          "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
		DocumentationURL: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits",
		Header:           map[string]string{"Retry-After": strconv.Itoa(retryAfterSeconds)},
	}
}

// PrimaryRateLimit is GitHub's answer when the hourly request budget is
// spent: 403 with X-RateLimit-Remaining: 0 and the reset time.
func PrimaryRateLimit(reset time.Time) Fault {
	return Fault{
		Status:           http.StatusForbidden,
		Message:          "API rate limit exceeded for installation ID 1.",
		DocumentationURL: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-the-rate-limit",
		Header: map[string]string{
			"X-RateLimit-Limit":     "1000",
			"X-RateLimit-Remaining": "0",
			"X-RateLimit-Used":      "1000",
			"X-RateLimit-Reset":     strconv.FormatInt(reset.Unix(), 10),
			"X-RateLimit-Resource":  "core",
		},
	}
}

// Config sets up an Emulator.
type Config struct {
	// Owner and Repo name the one repository that exists.
	Owner, Repo string
	// PathPrefix is "" for github.com or "/api/v3" to emulate GitHub
	// Enterprise Server, whose REST API lives under that prefix.
	PathPrefix string
	// Tokens maps each accepted token to its identity.
	Tokens map[string]Identity
	// Spec, when set, validates every request and response; departures
	// are kept in Violations and never change the answer.
	Spec *Spec
	// Start is the clock's first reading (default 2024-01-01T00:00:00Z);
	// the clock advances one second per write, so timestamps are
	// deterministic and strictly increasing.
	Start time.Time
	// OnChange, if set, is called after every change to the comments,
	// outside the emulator's lock.
	OnChange func()
	// Pulls are the pull requests GET /repos/{owner}/{repo}/pulls/{n}
	// serves, by number; any other number answers 404.
	Pulls map[int]Pull
}

// Pull is a pull request as far as agentgate reads one: the commit its head
// branch points at (what a workflow_run's head_sha must equal), and the branch
// and commit it would merge into (what an issue_comment run compares with).
type Pull struct {
	// HeadSHA is head.sha.
	HeadSHA string
	// HeadRef is head.ref, the branch (default "feature").
	HeadRef string
	// BaseSHA and BaseRef are base.sha and base.ref (GitHub's example's when empty).
	BaseSHA, BaseRef string
	// State is "open" (default) or "closed".
	State string
}

// Emulator is the fake GitHub: an http.Handler.
type Emulator struct {
	mu         sync.Mutex
	cfg        Config
	comments   []*Comment
	nextID     int64
	clock      time.Time
	requests   []Request
	faults     []*faultState
	violations []string
	remaining  int
	artifacts  []Artifact
	commits    map[string]Commit
	checkRuns  []*CheckRun
	storage    string // base URL of the artifact storage host
}

type faultState struct {
	Fault
	fired int
}

// New returns an emulator for cfg.
func New(cfg Config) *Emulator {
	if cfg.Start.IsZero() {
		cfg.Start = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	cfg.PathPrefix = strings.TrimSuffix(cfg.PathPrefix, "/")
	return &Emulator{cfg: cfg, nextID: 1000000001, clock: cfg.Start, remaining: 5000}
}

// AddFault installs a fault; faults are tried in the order added.
func (e *Emulator) AddFault(f Fault) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.faults = append(e.faults, &faultState{Fault: f})
}

// Seed stores a comment as if author had written it before the test.
func (e *Emulator) Seed(issue int, author Identity, body string) Comment {
	e.mu.Lock()
	c := e.addLocked(issue, author, body)
	e.mu.Unlock()
	e.changed()
	return c
}

// Requests returns a copy of the recorded API requests.
func (e *Emulator) Requests() []Request {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]Request, len(e.requests))
	for i, r := range e.requests {
		r.Header = r.Header.Clone()
		out[i] = r
	}
	return out
}

// ResetRequests forgets the recorded requests (numbering starts again at 1),
// keeping comments and faults.
func (e *Emulator) ResetRequests() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.requests = nil
}

// Comments returns copies of the comments on one issue, oldest first.
func (e *Emulator) Comments(issue int) []Comment {
	var out []Comment
	for _, c := range e.AllComments() {
		if c.Issue == issue {
			out = append(out, c)
		}
	}
	return out
}

// AllComments returns copies of every stored comment, oldest first.
func (e *Emulator) AllComments() []Comment {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]Comment, len(e.comments))
	for i, c := range e.comments {
		out[i] = *c
	}
	return out
}

// State is what survives an emulator restart (see cmd/ghemu -state).
type State struct {
	Comments []Comment `json:"comments"`
	NextID   int64     `json:"next_id"`
	Clock    time.Time `json:"clock"`
}

// Snapshot returns the current comments and counters.
func (e *Emulator) Snapshot() State {
	cs := e.AllComments()
	e.mu.Lock()
	defer e.mu.Unlock()
	return State{Comments: cs, NextID: e.nextID, Clock: e.clock}
}

// Restore replaces the comments and counters with a snapshot.
func (e *Emulator) Restore(s State) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.comments = nil
	for _, c := range s.Comments {
		e.comments = append(e.comments, &c)
	}
	if s.NextID > e.nextID {
		e.nextID = s.NextID
	}
	if s.Clock.After(e.clock) {
		e.clock = s.Clock
	}
}

// Violations returns every departure from GitHub's OpenAPI description seen
// so far, one string per request or response, with locations and reasons.
func (e *Emulator) Violations() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.violations)
}

func (e *Emulator) addLocked(issue int, author Identity, body string) Comment {
	now := e.tickLocked()
	c := &Comment{ID: e.nextID, Issue: issue, Body: body, Author: author, CreatedAt: now, UpdatedAt: now}
	e.nextID++
	e.comments = append(e.comments, c)
	return *c
}

func (e *Emulator) tickLocked() time.Time {
	t := e.clock
	e.clock = e.clock.Add(time.Second)
	return t
}

func (e *Emulator) changed() {
	if e.cfg.OnChange != nil {
		e.cfg.OnChange()
	}
}

// ServeHTTP answers API requests under the configured prefix and control
// requests under /_emulator/.
func (e *Emulator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/_emulator/") {
		e.serveControl(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	if err != nil {
		http.Error(w, "read body: "+err.Error(), http.StatusBadRequest)
		return
	}
	path, hasPrefix := strings.CutPrefix(r.URL.Path, e.cfg.PathPrefix)
	if !hasPrefix || path == "" {
		path = r.URL.Path
	}

	hdr := r.Header.Clone()
	hdr.Del("Authorization")
	scheme, token := splitAuth(r.Header.Get("Authorization"))

	e.mu.Lock()
	n := len(e.requests) + 1
	e.requests = append(e.requests, Request{
		N: n, Method: r.Method, Path: path, FullPath: r.URL.Path, Query: r.URL.RawQuery,
		Header: hdr, AuthScheme: scheme, Body: string(body),
	})
	e.mu.Unlock()

	rec := &response{header: http.Header{}}
	switch {
	case !hasPrefix:
		rec.error(http.StatusNotFound, "Not Found", "https://docs.github.com/rest", nil)
	default:
		e.validateRequest(n, r.Method, path, r.URL.Query(), r.Header, body)
		e.serveAPI(rec, r, n, path, token, scheme, body)
	}

	e.mu.Lock()
	if n <= len(e.requests) && e.requests[n-1].N == n {
		e.requests[n-1].Status = rec.status
	}
	e.remaining = max(e.remaining-1, 1)
	rem := e.remaining
	e.mu.Unlock()

	// Headers GitHub sends on every API answer.
	base := http.Header{}
	base.Set("X-GitHub-Media-Type", "github.v3; format=json")
	base.Set("X-GitHub-Request-Id", fmt.Sprintf("EMU0:%04d", n))
	base.Set("X-RateLimit-Limit", "5000")
	base.Set("X-RateLimit-Remaining", strconv.Itoa(rem))
	base.Set("X-RateLimit-Used", strconv.Itoa(5000-rem))
	base.Set("X-RateLimit-Reset", strconv.FormatInt(e.cfg.Start.Add(time.Hour).Unix(), 10))
	base.Set("X-RateLimit-Resource", "core")
	for k, v := range base {
		if rec.header.Get(k) == "" {
			rec.header[k] = v
		}
	}
	if hasPrefix && rec.oversize == 0 {
		e.validateResponse(n, r.Method, path, rec)
	}
	maps.Copy(w.Header(), rec.header)
	w.WriteHeader(rec.status)
	if rec.oversize > 0 {
		writeOversize(w, rec.oversize)
	} else {
		_, _ = w.Write(rec.body)
	}
	if rec.changed {
		e.changed()
	}
}

// writeOversize writes {"login":"aaa…"} with n bytes of "a", a block at a time, until the
// client stops reading.
func writeOversize(w io.Writer, n int64) {
	block := bytes.Repeat([]byte("a"), 1<<20)
	if _, err := io.WriteString(w, `{"login":"`); err != nil {
		return
	}
	for n > 0 {
		k := min(n, int64(len(block)))
		if _, err := w.Write(block[:k]); err != nil {
			return
		}
		n -= k
	}
	_, _ = io.WriteString(w, `"}`)
}

// splitAuth parses "Bearer T" or "token T".
func splitAuth(h string) (scheme, token string) {
	s, t, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok {
		return "", ""
	}
	switch strings.ToLower(s) {
	case "bearer":
		return "Bearer", strings.TrimSpace(t)
	case "token":
		return "token", strings.TrimSpace(t)
	}
	return s, ""
}

// response buffers an answer so it can be validated before it is sent.
type response struct {
	status  int
	header  http.Header
	body    []byte
	changed bool
	// oversize is Fault.Oversize: body is written before and after that many bytes of "a"
	oversize int64
}

func (rec *response) json(status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("ghemu: encode response: %v", err)) // our own values: a bug
	}
	rec.status = status
	rec.header.Set("Content-Type", "application/json; charset=utf-8")
	rec.body = b
}

// error writes GitHub's error object: message, documentation_url, status
// (as a string, as GitHub sends it), and errors for 422.
func (rec *response) error(status int, message, doc string, errs []map[string]any) {
	obj := map[string]any{"message": message, "documentation_url": doc, "status": strconv.Itoa(status)}
	if errs != nil {
		obj["errors"] = errs
	}
	rec.json(status, obj)
}

func (e *Emulator) validateRequest(n int, method, path string, q url.Values, h http.Header, body []byte) {
	if e.cfg.Spec == nil {
		return
	}
	if err := e.cfg.Spec.ValidateRequest(method, path, q, h, body); err != nil {
		e.mu.Lock()
		e.violations = append(e.violations, fmt.Sprintf("#%d %v", n, err))
		e.mu.Unlock()
	}
}

func (e *Emulator) validateResponse(n int, method, path string, rec *response) {
	if e.cfg.Spec == nil {
		return
	}
	if err := e.cfg.Spec.ValidateResponse(method, path, rec.status, rec.header, rec.body); err != nil {
		e.mu.Lock()
		e.violations = append(e.violations, fmt.Sprintf("#%d %v", n, err))
		e.mu.Unlock()
	}
}

// matchFault returns the first fault that applies to request n and counts it.
func (e *Emulator) matchFault(n int, method, path string) *Fault {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, f := range e.faults {
		if f.Request != 0 && f.Request != n {
			continue
		}
		if f.Method != "" && !strings.EqualFold(f.Method, method) {
			continue
		}
		if f.Path != "" {
			if p, ok := strings.CutSuffix(f.Path, "*"); ok {
				if !strings.HasPrefix(path, p) {
					continue
				}
			} else if f.Path != path {
				continue
			}
		}
		if f.Times > 0 && f.fired >= f.Times {
			continue
		}
		f.fired++
		cp := f.Fault
		return &cp
	}
	return nil
}

// Documentation links GitHub puts in its answers.
const (
	docRoot         = "https://docs.github.com/rest"
	docUser         = "https://docs.github.com/rest/users/users#get-the-authenticated-user"
	docListComments = "https://docs.github.com/rest/issues/comments#list-issue-comments"
	docCreate       = "https://docs.github.com/rest/issues/comments#create-an-issue-comment"
	docUpdate       = "https://docs.github.com/rest/issues/comments#update-an-issue-comment"
	docDelete       = "https://docs.github.com/rest/issues/comments#delete-an-issue-comment"
	docGetPull      = "https://docs.github.com/rest/pulls/pulls#get-a-pull-request"
)

// defaultFaultMessage is what GitHub says for a status when the fault names
// nothing.
func defaultFaultMessage(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return "Bad credentials"
	case http.StatusForbidden:
		return "Resource not accessible by integration"
	case http.StatusNotFound:
		return "Not Found"
	case http.StatusUnprocessableEntity:
		return "Validation Failed"
	case http.StatusTooManyRequests:
		return "API rate limit exceeded"
	case http.StatusInternalServerError:
		return "Server Error"
	case http.StatusBadGateway:
		return "Server Error"
	case http.StatusServiceUnavailable:
		return "Service Unavailable"
	}
	return http.StatusText(status)
}

func (e *Emulator) writeFault(rec *response, f *Fault) {
	if f.Oversize > 0 {
		rec.status = cmp.Or(f.Status, http.StatusOK)
		rec.header.Set("Content-Type", "application/json; charset=utf-8")
		rec.body, rec.oversize = nil, f.Oversize
		return
	}
	msg := f.Message
	if msg == "" {
		msg = defaultFaultMessage(f.Status)
	}
	doc := f.DocumentationURL
	if doc == "" {
		doc = docRoot
	}
	errs := f.Errors
	if f.Status == http.StatusUnprocessableEntity && errs == nil {
		errs = []map[string]any{{"resource": "IssueComment", "code": "custom", "field": "body", "message": "injected validation failure"}}
	}
	rec.error(f.Status, msg, doc, errs)
	for k, v := range f.Header {
		rec.header.Set(k, v)
	}
}

// serveAPI routes one API request.
func (e *Emulator) serveAPI(rec *response, r *http.Request, n int, path, token, scheme string, body []byte) {
	f := e.matchFault(n, r.Method, path)
	if f != nil && !f.Commit {
		e.writeFault(rec, f)
		return
	}
	if f != nil {
		defer func() {
			changed := rec.changed
			*rec = response{header: http.Header{}, changed: changed}
			e.writeFault(rec, f)
		}()
	}
	if scheme == "" {
		rec.error(http.StatusUnauthorized, "Requires authentication", docRoot, nil)
		return
	}
	id, ok := e.cfg.Tokens[token]
	if !ok || token == "" {
		rec.error(http.StatusUnauthorized, "Bad credentials", docRoot, nil)
		return
	}
	segs := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(segs) == 1 && segs[0] == "user":
		if r.Method != http.MethodGet {
			rec.error(http.StatusNotFound, "Not Found", docRoot, nil)
			return
		}
		e.getUser(rec, r, id)
		return
	case len(segs) >= 4 && segs[0] == "repos" && (!strings.EqualFold(segs[1], e.cfg.Owner) || !strings.EqualFold(segs[2], e.cfg.Repo)):
		rec.error(http.StatusNotFound, "Not Found", docRoot, nil)
		return
	case len(segs) == 5 && segs[0] == "repos" && segs[3] == "pulls" && r.Method == http.MethodGet:
		e.getPull(rec, r, segs[4])
		return
	case len(segs) == 4 && segs[0] == "repos" && segs[3] == "commits" && r.Method == http.MethodGet:
		e.listCommits(rec, r)
		return
	case len(segs) == 5 && segs[0] == "repos" && segs[3] == "compare" && r.Method == http.MethodGet:
		e.compareCommits(rec, r, segs[4])
		return
	case (len(segs) == 4 || len(segs) == 5) && segs[0] == "repos" && segs[3] == "check-runs":
		e.serveCheckRuns(rec, r, id, segs, body)
		return
	case len(segs) >= 4 && segs[0] == "repos" && segs[3] == "actions":
		e.serveActions(rec, r, segs)
		return
	case len(segs) >= 4 && segs[0] == "repos" && segs[3] == "issues":
		switch {
		case len(segs) == 6 && segs[5] == "comments" && segs[4] != "comments":
			issue, err := strconv.Atoi(segs[4])
			if err != nil || issue <= 0 {
				rec.error(http.StatusNotFound, "Not Found", docRoot, nil)
				return
			}
			switch r.Method {
			case http.MethodGet:
				e.listComments(rec, r, issue)
			case http.MethodPost:
				e.createComment(rec, r, id, issue, body)
			default:
				rec.error(http.StatusNotFound, "Not Found", docRoot, nil)
			}
			return
		case len(segs) == 6 && segs[4] == "comments":
			cid, err := strconv.ParseInt(segs[5], 10, 64)
			if err != nil {
				rec.error(http.StatusNotFound, "Not Found", docRoot, nil)
				return
			}
			switch r.Method {
			case http.MethodPatch:
				e.updateComment(rec, r, id, cid, body)
			case http.MethodDelete:
				e.deleteComment(rec, id, cid)
			default:
				rec.error(http.StatusNotFound, "Not Found", docRoot, nil)
			}
			return
		}
	}
	rec.error(http.StatusNotFound, "Not Found", docRoot, nil)
}

// getPull serves GET /repos/{owner}/{repo}/pulls/{n}. With a Spec the answer
// is GitHub's own documented example of a pull request with this one's
// number, state and head; without, the fields agentgate reads.
func (e *Emulator) getPull(rec *response, r *http.Request, num string) {
	n, err := strconv.Atoi(num)
	e.mu.Lock()
	p, ok := e.cfg.Pulls[n]
	e.mu.Unlock()
	if err != nil || !ok {
		rec.error(http.StatusNotFound, "Not Found", docGetPull, nil)
		return
	}
	ref, state := cmp.Or(p.HeadRef, "feature"), cmp.Or(p.State, "open")
	api, web := e.baseURLs(r)
	repoAPI := fmt.Sprintf("%s/repos/%s/%s", api, e.cfg.Owner, e.cfg.Repo)
	obj := map[string]any{}
	if e.cfg.Spec != nil {
		if ex, err := e.cfg.Spec.Example("pull-request"); err == nil {
			obj, _ = ex.(map[string]any)
		}
	}
	head, _ := obj["head"].(map[string]any)
	if head == nil {
		head = map[string]any{}
		obj["head"] = head
	}
	obj["number"] = n
	obj["state"] = state
	obj["url"] = fmt.Sprintf("%s/pulls/%d", repoAPI, n)
	obj["html_url"] = fmt.Sprintf("%s/%s/%s/pull/%d", web, e.cfg.Owner, e.cfg.Repo, n)
	obj["issue_url"] = fmt.Sprintf("%s/issues/%d", repoAPI, n)
	obj["comments_url"] = fmt.Sprintf("%s/issues/%d/comments", repoAPI, n)
	head["sha"], head["ref"], head["label"] = p.HeadSHA, ref, e.cfg.Owner+":"+ref
	if base, _ := obj["base"].(map[string]any); base != nil {
		if p.BaseSHA != "" {
			base["sha"] = p.BaseSHA
		}
		if p.BaseRef != "" {
			base["ref"], base["label"] = p.BaseRef, e.cfg.Owner+":"+p.BaseRef
		}
	} else {
		obj["base"] = map[string]any{"sha": p.BaseSHA, "ref": p.BaseRef}
	}
	// GitHub's example lists a team without the "type" its own schema
	// requires; the emulator has no teams.
	obj["requested_teams"] = []any{}
	rec.json(http.StatusOK, obj)
}

// baseURLs returns the API root (with prefix) and the web root of this
// emulator as seen by the client.
func (e *Emulator) baseURLs(r *http.Request) (api, web string) {
	web = "http://" + r.Host
	return web + e.cfg.PathPrefix, web
}

func (e *Emulator) getUser(rec *response, r *http.Request, id Identity) {
	if id.Installation {
		rec.error(http.StatusForbidden, "Resource not accessible by integration", docUser, nil)
		return
	}
	api, web := e.baseURLs(r)
	u := simpleUser(api, web, id)
	u["user_view_type"] = "private"
	for k, v := range map[string]any{
		"name": nil, "company": nil, "blog": "", "location": nil, "email": nil,
		"notification_email": nil, "hireable": nil, "bio": nil, "twitter_username": nil,
		"public_repos": 2, "public_gists": 0, "followers": 0, "following": 0,
		"created_at": "2020-01-01T00:00:00Z", "updated_at": "2024-01-01T00:00:00Z",
		"private_gists": 0, "total_private_repos": 0, "owned_private_repos": 0,
		"disk_usage": 0, "collaborators": 0, "two_factor_authentication": true,
		"plan": map[string]any{"name": "free", "space": 976562499, "collaborators": 0, "private_repos": 10000},
	} {
		u[k] = v
	}
	rec.json(http.StatusOK, u)
}

// simpleUser renders GitHub's simple-user object for an identity.
func simpleUser(api, web string, id Identity) map[string]any {
	login := url.PathEscape(id.Login)
	return map[string]any{
		"login":               id.Login,
		"id":                  id.ID,
		"node_id":             nodeID("U_", id.ID),
		"avatar_url":          fmt.Sprintf("https://avatars.githubusercontent.com/u/%d?v=4", id.ID),
		"gravatar_id":         "",
		"url":                 api + "/users/" + login,
		"html_url":            web + "/" + login,
		"followers_url":       api + "/users/" + login + "/followers",
		"following_url":       api + "/users/" + login + "/following{/other_user}",
		"gists_url":           api + "/users/" + login + "/gists{/gist_id}",
		"starred_url":         api + "/users/" + login + "/starred{/owner}{/repo}",
		"subscriptions_url":   api + "/users/" + login + "/subscriptions",
		"organizations_url":   api + "/users/" + login + "/orgs",
		"repos_url":           api + "/users/" + login + "/repos",
		"events_url":          api + "/users/" + login + "/events{/privacy}",
		"received_events_url": api + "/users/" + login + "/received_events",
		"type":                id.Type,
		"user_view_type":      "public",
		"site_admin":          false,
	}
}

func nodeID(prefix string, id int64) string {
	return prefix + strconv.FormatInt(id, 36)
}

// actionsApp is the GitHub App behind github-actions[bot], as GitHub
// reports it in performed_via_github_app.
func actionsApp(api, web string) map[string]any {
	owner := simpleUser(api, web, Identity{Login: "github", ID: 9919, Type: "Organization"})
	return map[string]any{
		"id":           15368,
		"slug":         "github-actions",
		"client_id":    "Iv1.05c79e9ad1f6bdfa",
		"node_id":      "MDM6QXBwMTUzNjg=",
		"owner":        owner,
		"name":         "GitHub Actions",
		"description":  "Automate your workflow from idea to production",
		"external_url": "https://help.github.com/en/actions",
		"html_url":     web + "/apps/github-actions",
		"created_at":   "2018-07-30T09:30:17Z",
		"updated_at":   "2024-04-10T20:33:16Z",
		"permissions":  map[string]any{"issues": "write", "metadata": "read", "pull_requests": "write"},
		"events":       []any{"issue_comment", "pull_request"},
	}
}

// render turns a stored comment into GitHub's issue-comment object.
func (e *Emulator) render(r *http.Request, c Comment) map[string]any {
	api, web := e.baseURLs(r)
	repoAPI := fmt.Sprintf("%s/repos/%s/%s", api, e.cfg.Owner, e.cfg.Repo)
	assoc := "OWNER"
	var app any
	if c.Author.Type == "Bot" {
		assoc = "NONE"
	}
	if c.Author.Installation {
		app = actionsApp(api, web)
	}
	url := fmt.Sprintf("%s/issues/comments/%d", repoAPI, c.ID)
	return map[string]any{
		"id":                       c.ID,
		"node_id":                  nodeID("IC_", c.ID),
		"url":                      url,
		"html_url":                 fmt.Sprintf("%s/%s/%s/pull/%d#issuecomment-%d", web, e.cfg.Owner, e.cfg.Repo, c.Issue, c.ID),
		"body":                     c.Body,
		"user":                     simpleUser(api, web, c.Author),
		"created_at":               c.CreatedAt.UTC().Format(time.RFC3339),
		"updated_at":               c.UpdatedAt.UTC().Format(time.RFC3339),
		"issue_url":                fmt.Sprintf("%s/issues/%d", repoAPI, c.Issue),
		"author_association":       assoc,
		"performed_via_github_app": app,
		"reactions": map[string]any{
			"url": url + "/reactions", "total_count": 0, "+1": 0, "-1": 0, "laugh": 0,
			"hooray": 0, "confused": 0, "heart": 0, "rocket": 0, "eyes": 0,
		},
	}
}

// listComments serves one page. GitHub's rules: per_page defaults to 30 and
// is capped at 100; page defaults to 1; a page past the end is an empty
// array; the Link header carries prev/next/last/first as they apply.
func (e *Emulator) listComments(rec *response, r *http.Request, issue int) {
	perPage, page := pageParams(r.URL.Query())
	all := e.Comments(issue)
	items := []any{}
	for i := (page - 1) * perPage; i < len(all) && i < page*perPage; i++ {
		items = append(items, e.render(r, all[i]))
	}
	api, _ := e.baseURLs(r)
	links := pageLinks(fmt.Sprintf("%s/repos/%s/%s/issues/%d/comments", api, e.cfg.Owner, e.cfg.Repo, issue), nil, perPage, page, len(all))
	rec.json(http.StatusOK, items)
	if links != "" {
		rec.header.Set("Link", links)
	}
}

// pageParams reads per_page (default 30, at most 100) and page (default 1) as GitHub does.
func pageParams(q url.Values) (perPage, page int) {
	perPage, page = 30, 1
	if v, err := strconv.Atoi(q.Get("per_page")); err == nil && v > 0 {
		perPage = min(v, 100)
	}
	if v, err := strconv.Atoi(q.Get("page")); err == nil && v > 0 {
		page = v
	}
	return perPage, page
}

// pageLinks is the Link header of page of a list of n items at base (with the query
// parameters filter), carrying prev/next/last/first as they apply; "" for a single page.
func pageLinks(base string, filter url.Values, perPage, page, n int) string {
	last := max(1, (n+perPage-1)/perPage)
	link := func(p int) string {
		v := url.Values{}
		for k, vs := range filter {
			v[k] = vs
		}
		v.Set("per_page", strconv.Itoa(perPage))
		v.Set("page", strconv.Itoa(p))
		return fmt.Sprintf("<%s?%s>", base, v.Encode())
	}
	var parts []string
	if page > 1 {
		parts = append(parts, link(min(page-1, last))+`; rel="prev"`)
	}
	if page < last {
		parts = append(parts, link(page+1)+`; rel="next"`, link(last)+`; rel="last"`)
	}
	if page > 1 {
		parts = append(parts, link(1)+`; rel="first"`)
	}
	return strings.Join(parts, ", ")
}

// decodeBody reads the {"body": "..."} object of a create or update, and
// answers 400 or 422 as GitHub does when it is unusable.
func decodeBody(rec *response, raw []byte, doc string) (string, bool) {
	var in struct {
		Body *string `json:"body"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		rec.error(http.StatusBadRequest, "Problems parsing JSON", doc, nil)
		return "", false
	}
	if in.Body == nil {
		rec.error(http.StatusUnprocessableEntity, "Invalid request.\n\n\"body\" wasn't supplied.", doc, nil)
		return "", false
	}
	if strings.TrimSpace(*in.Body) == "" {
		rec.error(http.StatusUnprocessableEntity, "Validation Failed", doc,
			[]map[string]any{{"resource": "IssueComment", "code": "missing_field", "field": "body"}})
		return "", false
	}
	if n := utf8.RuneCountInString(*in.Body); n > MaxCommentChars {
		rec.error(http.StatusUnprocessableEntity, "Validation Failed", doc,
			[]map[string]any{{"resource": "IssueComment", "code": "custom", "field": "body",
				"message": fmt.Sprintf("body is too long (maximum is %d characters)", MaxCommentChars)}})
		return "", false
	}
	return *in.Body, true
}

func (e *Emulator) createComment(rec *response, r *http.Request, id Identity, issue int, raw []byte) {
	if id.ReadOnly {
		rec.error(http.StatusForbidden, "Resource not accessible by integration", docCreate, nil)
		return
	}
	body, ok := decodeBody(rec, raw, docCreate)
	if !ok {
		return
	}
	e.mu.Lock()
	c := e.addLocked(issue, id, body)
	e.mu.Unlock()
	rec.changed = true
	rec.json(http.StatusCreated, e.render(r, c))
	api, _ := e.baseURLs(r)
	rec.header.Set("Location", fmt.Sprintf("%s/repos/%s/%s/issues/comments/%d", api, e.cfg.Owner, e.cfg.Repo, c.ID))
}

func (e *Emulator) find(cid int64) *Comment {
	for _, c := range e.comments {
		if c.ID == cid {
			return c
		}
	}
	return nil
}

func (e *Emulator) updateComment(rec *response, r *http.Request, id Identity, cid int64, raw []byte) {
	if id.ReadOnly {
		rec.error(http.StatusForbidden, "Resource not accessible by integration", docUpdate, nil)
		return
	}
	body, ok := decodeBody(rec, raw, docUpdate)
	if !ok {
		return
	}
	e.mu.Lock()
	c := e.find(cid)
	if c == nil {
		e.mu.Unlock()
		rec.error(http.StatusNotFound, "Not Found", docUpdate, nil)
		return
	}
	c.Body = body
	c.UpdatedAt = e.tickLocked()
	cp := *c
	e.mu.Unlock()
	rec.changed = true
	rec.json(http.StatusOK, e.render(r, cp))
}

func (e *Emulator) deleteComment(rec *response, id Identity, cid int64) {
	if id.ReadOnly {
		rec.error(http.StatusForbidden, "Resource not accessible by integration", docDelete, nil)
		return
	}
	e.mu.Lock()
	idx := slices.IndexFunc(e.comments, func(c *Comment) bool { return c.ID == cid })
	if idx < 0 {
		e.mu.Unlock()
		rec.error(http.StatusNotFound, "Not Found", docDelete, nil)
		return
	}
	e.comments = slices.Delete(e.comments, idx, idx+1)
	e.tickLocked()
	e.mu.Unlock()
	rec.changed = true
	rec.status = http.StatusNoContent
}

// serveControl answers the emulator's own endpoints, which are not GitHub's:
//
//	GET  /_emulator/requests    the recorded API requests (JSON array of Request)
//	GET  /_emulator/comments    every stored comment (JSON array of Comment)
//	GET  /_emulator/check-runs  every stored check run (JSON array of CheckRun)
//	GET  /_emulator/violations  OpenAPI departures seen so far (JSON array of strings)
//	POST /_emulator/faults      install faults (a JSON Fault or array of them)
func (e *Emulator) serveControl(w http.ResponseWriter, r *http.Request) {
	writeJSON := func(v any) {
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(v)
	}
	fail := func(status int, msg string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/_emulator/requests":
		reqs := e.Requests()
		if reqs == nil {
			reqs = []Request{}
		}
		writeJSON(reqs)
	case r.Method == http.MethodGet && r.URL.Path == "/_emulator/comments":
		cs := e.AllComments()
		if cs == nil {
			cs = []Comment{}
		}
		writeJSON(cs)
	case r.Method == http.MethodGet && r.URL.Path == "/_emulator/check-runs":
		writeJSON(e.CheckRuns())
	case r.Method == http.MethodGet && r.URL.Path == "/_emulator/violations":
		v := e.Violations()
		if v == nil {
			v = []string{}
		}
		writeJSON(v)
	case r.Method == http.MethodPost && r.URL.Path == "/_emulator/faults":
		raw, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			fail(http.StatusBadRequest, err.Error())
			return
		}
		var fs []Fault
		if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '{' {
			var f Fault
			err = json.Unmarshal(t, &f)
			fs = []Fault{f}
		} else {
			err = json.Unmarshal(t, &fs)
		}
		if err != nil {
			fail(http.StatusBadRequest, "decode faults: "+err.Error())
			return
		}
		for _, f := range fs {
			if f.Status < 400 || f.Status > 599 {
				fail(http.StatusBadRequest, fmt.Sprintf("fault status %d: want 400-599", f.Status))
				return
			}
		}
		for _, f := range fs {
			e.AddFault(f)
		}
		w.WriteHeader(http.StatusNoContent)
	default:
		fail(http.StatusNotFound, "unknown emulator endpoint "+r.Method+" "+r.URL.Path)
	}
}
