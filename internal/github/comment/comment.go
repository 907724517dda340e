// Package comment posts agentgate's report as one comment on a pull request
// and keeps it current: found again on every run by a hidden marker and the
// token's own author, edited in place (or deleted and re-created at the
// bottom), and left alone when nothing changed.
//
// The shape follows reviewdog: a one-method Service with GitHub behind it,
// typed failures (ErrNoPermission above all, for the read-only token of a
// fork's pull request) so the caller can fall back to the job summary and
// annotations, and bounded retries of GitHub's transient answers.
package comment

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/google/go-github/v66/github"

	"github.com/agentgate/agentgate/internal/github/api"
)

// Service posts or refreshes the report comment.
type Service interface {
	// Upsert makes the pull request carry exactly one current report
	// comment with body (plus the hidden marker, cut to GitHub's limit).
	Upsert(ctx context.Context, body string) (Outcome, error)
}

// What Upsert did, in Outcome.Action.
const (
	ActionCreated   = "created"   // no report comment existed; one was posted
	ActionUpdated   = "updated"   // the report comment was edited in place
	ActionUnchanged = "unchanged" // the report comment already had this body
	ActionRecreated = "recreated" // the old one was deleted and a new one posted at the bottom
)

// Outcome reports what Upsert did.
type Outcome struct {
	// Action is one of ActionCreated, ActionUpdated, ActionUnchanged,
	// ActionRecreated.
	Action string
	// URL is the comment's web address (html_url).
	URL string
	// ID is the comment's id.
	ID int64
	// Author is the login whose comments were taken for agentgate's.
	Author string
	// Stale lists older report comments by the same author that were
	// left in place (update mode keeps them and edits only the newest).
	Stale []int64
	// Truncated is true when the body had to be cut to MaxBodyChars.
	Truncated bool
}

// Comment modes (Options.Mode, the comment-mode action input).
const (
	// ModeUpdate edits the existing report comment in place.
	ModeUpdate = "update"
	// ModeRecreate deletes the old report comment(s) and posts a new one,
	// so the report sits at the bottom of the conversation.
	ModeRecreate = "recreate"
)

// ActionsBotLogin is the author of comments made with the Actions
// GITHUB_TOKEN. That token is a GitHub App installation token and cannot
// call GET /user (GitHub answers 403 "Resource not accessible by
// integration"), so when /user is refused Upsert counts comments by this
// login as its own. A token of another GitHub App posts as "<slug>[bot]";
// set Options.Author for it.
const ActionsBotLogin = "github-actions[bot]"

// Options configures GitHub.
type Options struct {
	// Mode is ModeUpdate (default) or ModeRecreate.
	Mode string
	// Marker identifies the report comment (default DefaultMarker); it
	// should be an HTML comment so that GitHub does not show it.
	Marker string
	// Author, if set, is the login whose marker comments are agentgate's,
	// skipping the GET /user lookup.
	Author string
	// Retry bounds retries of transient failures.
	Retry RetryPolicy
	// Logf, if set, receives one line per retry or fallback. It never
	// receives the token.
	Logf func(format string, args ...any)
}

// ParseMode validates a comment-mode input; "" means ModeUpdate.
func ParseMode(s string) (string, error) {
	switch m := strings.ToLower(strings.TrimSpace(s)); m {
	case "", ModeUpdate:
		return ModeUpdate, nil
	case ModeRecreate:
		return ModeRecreate, nil
	default:
		return "", fmt.Errorf("comment-mode %q: want %q or %q", s, ModeUpdate, ModeRecreate)
	}
}

// GitHub is the Service backed by GitHub's REST API. One value serves one
// pull request; it is not safe for concurrent use (it caches the token's
// login and may replace its client after a secondary rate limit).
type GitHub struct {
	r           *api.Retrier // holds the client
	owner, repo string
	pr          int
	opts        Options
	author      string // resolved login, cached across Upserts
}

var _ Service = (*GitHub)(nil)

// NewGitHub returns a Service that keeps the report comment of pull request
// pr in owner/repo, calling GitHub through client (see api.NewClient).
func NewGitHub(client *github.Client, owner, repo string, pr int, opts Options) *GitHub {
	if opts.Marker == "" {
		opts.Marker = DefaultMarker
	}
	return &GitHub{r: api.NewRetrier(client, opts.Retry, kinds, "comment", opts.Logf), owner: owner, repo: repo, pr: pr, opts: opts, author: opts.Author}
}

// Upsert finds the report comment (the newest comment on the pull request
// whose first line is the marker and whose author is the token's identity)
// and:
// posts one when there is none; skips the write when its body is already
// byte-identical; otherwise edits it (ModeUpdate) or deletes every report
// comment and posts a new one (ModeRecreate). In ModeRecreate a comment
// that is identical and already the last of the conversation is left alone.
//
// Errors match ErrNoPermission, ErrNotFound, ErrUnauthorized, ErrValidation,
// ErrRateLimited or ErrUnavailable with errors.Is.
func (g *GitHub) Upsert(ctx context.Context, body string) (Outcome, error) {
	mode, err := ParseMode(g.opts.Mode)
	if err != nil {
		return Outcome{}, err
	}
	if g.r.Client == nil || g.owner == "" || g.repo == "" || g.pr <= 0 {
		return Outcome{}, fmt.Errorf("comment: need a client, owner, repository and pull request number (got %q/%q #%d)", g.owner, g.repo, g.pr)
	}
	marked := withMarker(g.opts.Marker, body)
	want := Fit(marked, MaxBodyChars)
	out := Outcome{Truncated: want != marked}

	author, err := g.whoami(ctx)
	if err != nil {
		return out, err
	}
	out.Author = author

	all, err := g.list(ctx)
	if err != nil {
		return out, err
	}
	mine := g.reportComments(all, author)
	if len(mine) == 0 {
		c, err := g.create(ctx, want, author)
		if err != nil {
			return out, err
		}
		out.Action, out.ID, out.URL = ActionCreated, c.GetID(), c.GetHTMLURL()
		return out, nil
	}
	newest := mine[len(mine)-1]

	if mode == ModeRecreate {
		last := all[len(all)-1]
		if len(mine) == 1 && newest.GetBody() == want && last.GetID() == newest.GetID() {
			out.Action, out.ID, out.URL = ActionUnchanged, newest.GetID(), newest.GetHTMLURL()
			return out, nil
		}
		for _, c := range mine {
			if err := g.delete(ctx, c.GetID()); err != nil {
				return out, err
			}
		}
		c, err := g.create(ctx, want, author)
		if err != nil {
			return out, err
		}
		out.Action, out.ID, out.URL = ActionRecreated, c.GetID(), c.GetHTMLURL()
		return out, nil
	}

	for _, c := range mine[:len(mine)-1] {
		out.Stale = append(out.Stale, c.GetID())
	}
	if len(out.Stale) > 0 {
		g.logf("comment: %d older agentgate report comment(s) by %s left in place: %v", len(out.Stale), author, out.Stale)
	}
	out.ID, out.URL = newest.GetID(), newest.GetHTMLURL()
	if newest.GetBody() == want {
		out.Action = ActionUnchanged
		return out, nil
	}
	c, err := g.edit(ctx, newest.GetID(), want)
	if err != nil {
		return out, err
	}
	out.Action, out.URL = ActionUpdated, cmp.Or(c.GetHTMLURL(), out.URL)
	return out, nil
}

// HeadMismatchError says that the pull request's head is not the commit
// the run gated: its number (from a workflow_run artifact) names another
// pull request, or the pull request moved on since.
type HeadMismatchError struct {
	PR        int
	Want, Got string // the run's head_sha; the pull request's head.sha
}

func (e *HeadMismatchError) Error() string {
	return fmt.Sprintf("pull request #%d's head is %s, but the run that produced this report gated %s", e.PR, e.Got, e.Want)
}

// Pull reads the pull request (GET /repos/{owner}/{repo}/pulls/{n}), with the
// service's retries: its head and base, which an issue_comment's payload lacks.
func (g *GitHub) Pull(ctx context.Context) (*github.PullRequest, error) {
	var p *github.PullRequest
	err := g.r.Do(ctx, fmt.Sprintf("read pull request %s (GET /repos/%s/%s/pulls/%d)", g.where(), g.owner, g.repo, g.pr), func(ctx context.Context, _ *api.Attempt) (*github.Response, error) {
		var resp *github.Response
		var err error
		p, resp, err = g.r.Client.PullRequests.Get(ctx, g.owner, g.repo, g.pr)
		return resp, err
	})
	return p, err
}

// VerifyHead checks, with GET /repos/{owner}/{repo}/pulls/{n}, that the
// pull request's head commit is want (a workflow_run's head_sha), so that a
// pull-request number taken from a fork's artifact cannot steer the report
// onto another pull request. It returns a *HeadMismatchError when the heads
// differ, an *APIError when GitHub could not say.
func (g *GitHub) VerifyHead(ctx context.Context, want string) error {
	p, err := g.Pull(ctx)
	if err != nil {
		return err
	}
	return CheckHead(p, g.pr, want)
}

// CheckHead returns a *HeadMismatchError unless pull request p (number pr, as read) has the
// head commit want.
func CheckHead(p *github.PullRequest, pr int, want string) error {
	if got := p.GetHead().GetSHA(); !strings.EqualFold(got, want) || want == "" {
		return &HeadMismatchError{PR: pr, Want: want, Got: got}
	}
	return nil
}

// reportComments returns the comments whose first line is the marker (where
// agentgate writes it) and that author wrote, oldest first (by creation time,
// then id). A comment holding the marker anywhere else is not a report: under
// GITHUB_TOKEN every workflow of the repository comments as
// github-actions[bot], and one of them may quote the pull request's text.
func (g *GitHub) reportComments(all []*github.IssueComment, author string) []*github.IssueComment {
	var mine []*github.IssueComment
	for _, c := range all {
		if Marked(g.opts.Marker, c.GetBody()) && strings.EqualFold(c.GetUser().GetLogin(), author) {
			mine = append(mine, c)
		}
	}
	slices.SortStableFunc(mine, func(a, b *github.IssueComment) int {
		return cmp.Or(a.GetCreatedAt().Compare(b.GetCreatedAt().Time), cmp.Compare(a.GetID(), b.GetID()))
	})
	return mine
}

func (g *GitHub) where() string {
	return fmt.Sprintf("%s/%s#%d", g.owner, g.repo, g.pr)
}

func (g *GitHub) logf(format string, args ...any) {
	if g.opts.Logf != nil {
		g.opts.Logf(format, args...)
	}
}

// whoami resolves the login whose comments are agentgate's: Options.Author,
// else GET /user, else (when /user is refused, as it is for installation
// tokens like the Actions GITHUB_TOKEN) github-actions[bot].
func (g *GitHub) whoami(ctx context.Context) (string, error) {
	if g.author != "" {
		return g.author, nil
	}
	var u *github.User
	err := g.r.Do(ctx, "look up the token's user (GET /user)", func(ctx context.Context, _ *api.Attempt) (*github.Response, error) {
		var resp *github.Response
		var err error
		u, resp, err = g.r.Client.Users.Get(ctx, "")
		return resp, err
	})
	switch {
	case err == nil && u.GetLogin() != "":
		g.author = u.GetLogin()
	case errors.Is(err, ErrNoPermission):
		g.logf("comment: the token cannot read GET /user (an installation token such as GITHUB_TOKEN); taking comments by %s as agentgate's", ActionsBotLogin)
		g.author = ActionsBotLogin
	case err != nil:
		return "", err
	default:
		return "", fmt.Errorf("look up the token's user (GET /user): GitHub returned no login")
	}
	return g.author, nil
}

// list returns every comment of the pull request, following the Link header
// page by page (100 per page, GitHub's maximum).
func (g *GitHub) list(ctx context.Context) ([]*github.IssueComment, error) {
	var all []*github.IssueComment
	opt := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for page := 1; ; page++ {
		var batch []*github.IssueComment
		var next int
		err := g.r.Do(ctx, fmt.Sprintf("list comments on %s (page %d)", g.where(), page), func(ctx context.Context, _ *api.Attempt) (*github.Response, error) {
			var resp *github.Response
			var err error
			batch, resp, err = g.r.Client.Issues.ListComments(ctx, g.owner, g.repo, g.pr, opt)
			if resp != nil {
				next = resp.NextPage
			}
			return resp, err
		})
		if err != nil {
			return nil, err
		}
		all = append(all, batch...)
		if next == 0 {
			return all, nil
		}
		if page >= 1000 {
			return nil, fmt.Errorf("list comments on %s: more than 1000 pages; giving up", g.where())
		}
		opt.Page = next
	}
}

// create posts body. POST is not idempotent: when an attempt failed in a way
// that GitHub may nevertheless have stored the comment (5xx, dropped
// connection), the next attempt first lists the comments again and adopts a
// report comment with exactly this body instead of posting a duplicate.
func (g *GitHub) create(ctx context.Context, body, author string) (*github.IssueComment, error) {
	var c *github.IssueComment
	err := g.r.Do(ctx, "create comment on "+g.where(), func(ctx context.Context, prev *api.Attempt) (*github.Response, error) {
		if prev != nil && prev.Ambiguous {
			all, err := g.list(ctx)
			if err != nil {
				return nil, err
			}
			for _, existing := range slices.Backward(g.reportComments(all, author)) {
				if existing.GetBody() == body {
					g.logf("comment: the failed attempt had posted the comment after all (id %d)", existing.GetID())
					c = existing
					return nil, nil
				}
			}
		}
		var resp *github.Response
		var err error
		c, resp, err = g.r.Client.Issues.CreateComment(ctx, g.owner, g.repo, g.pr, &github.IssueComment{Body: github.String(body)})
		return resp, err
	})
	return c, err
}

// edit replaces the body of comment id (PATCH is idempotent: plain retries).
func (g *GitHub) edit(ctx context.Context, id int64, body string) (*github.IssueComment, error) {
	var c *github.IssueComment
	err := g.r.Do(ctx, fmt.Sprintf("update comment %d on %s", id, g.where()), func(ctx context.Context, _ *api.Attempt) (*github.Response, error) {
		var resp *github.Response
		var err error
		c, resp, err = g.r.Client.Issues.EditComment(ctx, g.owner, g.repo, id, &github.IssueComment{Body: github.String(body)})
		return resp, err
	})
	return c, err
}

// delete removes comment id. A 404 after an earlier attempt that may have
// succeeded means it is gone, which is what was wanted.
func (g *GitHub) delete(ctx context.Context, id int64) error {
	return g.r.Do(ctx, fmt.Sprintf("delete comment %d on %s", id, g.where()), func(ctx context.Context, prev *api.Attempt) (*github.Response, error) {
		resp, err := g.r.Client.Issues.DeleteComment(ctx, g.owner, g.repo, id)
		if err != nil && prev != nil && prev.Ambiguous && resp != nil && resp.StatusCode == http.StatusNotFound {
			return resp, nil
		}
		return resp, err
	})
}
