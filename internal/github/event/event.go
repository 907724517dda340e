// Package event reads the webhook payload of the event that started a workflow run
// (GITHUB_EVENT_NAME, GITHUB_EVENT_PATH) once, into go-github's types, and answers what
// agentgate asks of it: the pull request to comment on, the branch it would merge into, and a
// workflow_run's head commit.
package event

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/go-github/v66/github"
)

// Event is one run's triggering event. Its payload is read and decoded on first use, once;
// events that carry no pull request never read it.
type Event struct {
	// Name is the event's name (GITHUB_EVENT_NAME): pull_request, push, workflow_run, ...
	Name string
	// Path is the payload file (GITHUB_EVENT_PATH).
	Path string

	read bool
	p    payload
	err  error
	// pull is the pull request GitHub answered for an issue_comment's number (see UsePull).
	pull *github.PullRequest
}

// New returns the event called name whose payload is the file at path.
func New(name, path string) *Event {
	return &Event{Name: name, Path: path}
}

// payload holds the members of the webhook payloads agentgate reads: the union of go-github's
// PullRequestEvent (and its review variants), MergeGroupEvent, WorkflowRunEvent and
// IssueCommentEvent, which share one object each.
type payload struct {
	Number      *int                `json:"number"`
	PullRequest *github.PullRequest `json:"pull_request"`
	MergeGroup  *github.MergeGroup  `json:"merge_group"`
	WorkflowRun *github.WorkflowRun `json:"workflow_run"`
	Issue       *github.Issue       `json:"issue"`
}

// payload returns the decoded payload, reading it on the first call; need says what the
// caller looks for, for the error when there is no payload file to read.
func (e *Event) payload(need string) (*payload, error) {
	if e.Path == "" {
		return nil, fmt.Errorf("event %s: GITHUB_EVENT_PATH is not set, %s", e.Name, need)
	}
	if !e.read {
		e.read = true
		raw, err := os.ReadFile(e.Path)
		if err != nil {
			e.err = fmt.Errorf("event %s: read payload: %w", e.Name, err)
		} else if err := json.Unmarshal(raw, &e.p); err != nil {
			e.err = fmt.Errorf("event %s: decode payload %s: %w", e.Name, e.Path, err)
		}
	}
	if e.err != nil {
		return nil, e.err
	}
	return &e.p, nil
}

// mergeQueueRef matches the head ref of a merge group, which names the pull
// request: refs/heads/gh-readonly-queue/<base branch>/pr-<number>-<sha>.
// The base branch may itself contain slashes.
var mergeQueueRef = regexp.MustCompile(`^refs/heads/gh-readonly-queue/.+/pr-([0-9]+)-[0-9a-f]+$`)

// PR finds the pull request the run is about, from the event and the
// pr-number setting prInput.
//
// The event's own pull request comes first, where its payload names one:
//   - pull_request, pull_request_target, pull_request_review and
//     pull_request_review_comment: .pull_request.number, else .number;
//   - merge_group: the payload has no number field, so it is parsed from
//     .merge_group.head_ref (refs/heads/gh-readonly-queue/main/pr-123-<sha>);
//   - workflow_run: .workflow_run.pull_requests[0].number when GitHub filled
//     it in; it leaves the list empty for pull requests from forks, which is
//     why such workflows pass pr-number;
//   - issue_comment on a pull request (.issue.pull_request present):
//     .issue.number.
//
// prInput names the pull request only when the event has none (push,
// workflow_dispatch, a fork's workflow_run, ...): a number in a workflow
// input or an artifact must not redirect the report of the event's own pull
// request, which GitHub wrote. When it differs from the event's, it is left
// out and warning says so. It must be a positive decimal integer, optionally
// written "#123"; anything else is an error rather than a silent skip, since
// the user asked for a comment.
//
// An unreadable or malformed payload for an event that should carry a pull
// request is an error.
func (e *Event) PR(prInput string) (pr int, ok bool, warning string, err error) {
	in := 0
	if s := strings.TrimSpace(prInput); s != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(s, "#"))
		if err != nil || n <= 0 || strings.HasPrefix(s, "#+") || strings.HasPrefix(s, "+") {
			return 0, false, "", fmt.Errorf("pr-number input %q: want a pull request number such as 123", prInput)
		}
		in = n
	}
	pr, ok, err = e.own()
	switch {
	case err != nil && in > 0:
		return 0, false, "", fmt.Errorf("%w (pr-number %d is used only when the event has no pull request)", err, in)
	case err != nil:
		return 0, false, "", err
	case !ok && in > 0:
		return in, true, "", nil
	case ok && in > 0 && in != pr:
		return pr, true, fmt.Sprintf("pr-number %d ignored: the %s event is about pull request #%d, which is where the report goes (pr-number names the pull request only for an event that has none, such as a workflow_run from a fork)", in, e.Name, pr), nil
	}
	return pr, ok, "", nil
}

// own is the pull request the event's payload names, if any.
func (e *Event) own() (pr int, ok bool, err error) {
	switch e.Name {
	case "pull_request", "pull_request_target", "pull_request_review",
		"pull_request_review_comment", "merge_group", "workflow_run", "issue_comment":
	default:
		return 0, false, nil
	}
	p, err := e.payload("cannot find the pull request")
	if err != nil {
		return 0, false, err
	}

	switch e.Name {
	case "merge_group":
		if p.MergeGroup == nil {
			return 0, false, fmt.Errorf("event merge_group: payload %s has no merge_group object", e.Path)
		}
		m := mergeQueueRef.FindStringSubmatch(p.MergeGroup.GetHeadRef())
		if m == nil {
			return 0, false, fmt.Errorf("event merge_group: head_ref %q is not refs/heads/gh-readonly-queue/<branch>/pr-<number>-<sha>", p.MergeGroup.GetHeadRef())
		}
		return positive(m[1], "merge_group.head_ref")
	case "workflow_run":
		if p.WorkflowRun == nil || len(p.WorkflowRun.PullRequests) == 0 {
			return 0, false, nil
		}
		return checkNumber(p.WorkflowRun.PullRequests[0].GetNumber(), "workflow_run.pull_requests[0].number")
	case "issue_comment":
		if p.Issue == nil || !p.Issue.IsPullRequest() {
			return 0, false, nil // a comment on an issue, not on a pull request
		}
		return checkNumber(p.Issue.GetNumber(), "issue.number")
	default: // pull_request family
		if n := p.PullRequest.GetNumber(); n > 0 {
			return n, true, nil
		}
		return checkNumber(p.number(), "number")
	}
}

// number is the payload's top-level .number, 0 when absent.
func (p *payload) number() int {
	if p.Number == nil {
		return 0
	}
	return *p.Number
}

// Sides are what a pull request's run is compared across: the commit it gated, and the
// branch it would merge into with that branch's commit.
type Sides struct {
	// Head is the commit the run gated: the pull request's head, a merge group's head.
	Head string
	// Base is the base branch's commit: .pull_request.base.sha (the first parent of the merge
	// commit a pull_request run checks out), a merge group's base_sha.
	Base string
	// Branch is the base branch, without refs/heads/.
	Branch string
	// Queue marks a merge group, whose head is built on Base: Base is the merge base itself.
	Queue bool
}

// Sides returns the two sides of the run's pull request (docs/reference.md, "Which
// baseline"): from .pull_request for the pull_request family, .workflow_run.pull_requests[0]
// for workflow_run when GitHub filled it in (else the pull request UsePull recorded, when its
// head is workflow_run.head_sha), .merge_group for the merge queue, and the pull request
// GitHub answered (UsePull) for issue_comment. ok is false for every other event (a
// push has no base) and for a payload without a base branch. A commit that is no commit id is
// left out (""), so that nothing a payload holds reaches a URL unchecked.
func (e *Event) Sides() (s Sides, ok bool, err error) {
	switch e.Name {
	case "pull_request", "pull_request_target", "pull_request_review", "pull_request_review_comment", "merge_group", "workflow_run":
	case "issue_comment":
		if e.pull == nil {
			return Sides{}, false, nil
		}
		s = Sides{Head: e.pull.GetHead().GetSHA(), Base: e.pull.GetBase().GetSHA(), Branch: e.pull.GetBase().GetRef()}
		return s.checked(), s.Branch != "", nil
	default:
		return Sides{}, false, nil
	}
	p, err := e.payload("cannot find the base branch")
	if err != nil {
		return Sides{}, false, err
	}
	switch {
	case e.Name == "merge_group" && p.MergeGroup != nil:
		m := p.MergeGroup
		s = Sides{Head: m.GetHeadSHA(), Base: m.GetBaseSHA(), Branch: strings.TrimPrefix(m.GetBaseRef(), "refs/heads/"), Queue: true}
	case e.Name == "workflow_run" && p.WorkflowRun != nil && len(p.WorkflowRun.PullRequests) > 0:
		pr := p.WorkflowRun.PullRequests[0]
		s = Sides{Head: p.WorkflowRun.GetHeadSHA(), Base: pr.GetBase().GetSHA(), Branch: pr.GetBase().GetRef()}
	case e.Name == "workflow_run" && p.WorkflowRun != nil && e.pull != nil:
		// A fork's run names no pull request; pr-number's, read from GitHub, is taken only
		// when its head is the commit the run gated, so the number (from the fork's
		// artifact) cannot pick another pull request's base.
		if head := p.WorkflowRun.GetHeadSHA(); head != "" && strings.EqualFold(e.pull.GetHead().GetSHA(), head) {
			s = Sides{Head: head, Base: e.pull.GetBase().GetSHA(), Branch: e.pull.GetBase().GetRef()}
		}
	case e.Name != "workflow_run" && e.Name != "merge_group" && p.PullRequest != nil:
		s = Sides{Head: p.PullRequest.GetHead().GetSHA(), Base: p.PullRequest.GetBase().GetSHA(), Branch: p.PullRequest.GetBase().GetRef()}
	}
	return s.checked(), s.Branch != "", nil
}

// checked drops a commit that is not a commit id.
func (s Sides) checked() Sides {
	if !commitID.MatchString(s.Head) {
		s.Head = ""
	}
	if !commitID.MatchString(s.Base) {
		s.Base = ""
	}
	return s
}

// NeedsPull says whether the event's pull request must be read from GitHub (GET
// /repos/{owner}/{repo}/pulls/{n}) for its head and base: an issue_comment on a pull request,
// whose payload has neither, and whose GITHUB_SHA is the default branch's tip.
func (e *Event) NeedsPull() bool {
	if e.Name != "issue_comment" || e.pull != nil {
		return false
	}
	p, err := e.payload("")
	return err == nil && p.Issue != nil && p.Issue.IsPullRequest()
}

// UsePull records the pull request GitHub answered for the event's number: for an
// issue_comment, HeadSHA and Sides take its head and base from it; for a workflow_run that
// names none (a fork's, with pr-number), Sides takes its base when its head is the run's.
func (e *Event) UsePull(p *github.PullRequest) {
	e.pull = p
}

// Pull is the pull request UsePull recorded; nil when none was read.
func (e *Event) Pull() *github.PullRequest {
	return e.pull
}

func checkNumber(n int, field string) (int, bool, error) {
	if n <= 0 {
		return 0, false, fmt.Errorf("event payload: %s is missing or not a positive number", field)
	}
	return n, true, nil
}

func positive(s, field string) (int, bool, error) {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, false, fmt.Errorf("event payload: %s: pull request number %q: %w", field, s, err)
	}
	return checkNumber(n, field)
}

// sha1Hex matches a full commit id as GitHub writes it (40 lower-case hex digits).
var sha1Hex = regexp.MustCompile(`^[0-9a-f]{40}$`)

// WorkflowRunHeadSHA returns .workflow_run.head_sha of a workflow_run event: the commit the
// triggering run gated. The pull request a workflow_run workflow comments on must have this
// head (docs/design.md#trust-boundaries), since its number may come from the other run's artifact. A payload without
// a 40-hex-digit head_sha is an error.
func (e *Event) WorkflowRunHeadSHA() (string, error) {
	p, err := e.payload("cannot read workflow_run.head_sha")
	if err != nil {
		return "", err
	}
	if p.WorkflowRun == nil || !sha1Hex.MatchString(p.WorkflowRun.GetHeadSHA()) {
		return "", fmt.Errorf("event %s: payload %s has no workflow_run.head_sha commit id", e.Name, e.Path)
	}
	return p.WorkflowRun.GetHeadSHA(), nil
}

// HeadSHA returns the commit a check run about this run belongs on: the pull request's head
// commit for the pull_request family (GITHUB_SHA is then the merge commit GitHub made for the
// run, which no one looks at), workflow_run.head_sha for workflow_run (GITHUB_SHA is the
// default branch's head there), merge_group.head_sha for the merge queue, the head of the pull
// request GitHub answered (UsePull) for an issue_comment on one, and githubSHA (GITHUB_SHA)
// for every other event. A payload without the commit it should carry, or a
// commit id that is not 40 (or 64, SHA-256) hexadecimal digits, is an error.
func (e *Event) HeadSHA(githubSHA string) (string, error) {
	var sha, field string
	switch e.Name {
	case "pull_request", "pull_request_target", "pull_request_review", "pull_request_review_comment":
		p, err := e.payload("cannot find the pull request's head commit")
		if err != nil {
			return "", err
		}
		sha, field = p.PullRequest.GetHead().GetSHA(), "pull_request.head.sha"
	case "workflow_run":
		p, err := e.payload("cannot read workflow_run.head_sha")
		if err != nil {
			return "", err
		}
		sha, field = p.WorkflowRun.GetHeadSHA(), "workflow_run.head_sha"
	case "merge_group":
		p, err := e.payload("cannot read merge_group.head_sha")
		if err != nil {
			return "", err
		}
		sha, field = p.MergeGroup.GetHeadSHA(), "merge_group.head_sha"
	case "issue_comment":
		switch {
		case e.pull != nil:
			sha, field = e.pull.GetHead().GetSHA(), "the pull request's head.sha"
		case e.NeedsPull():
			// GITHUB_SHA is the default branch's tip here: a check on it would never be the
			// pull request's.
			return "", fmt.Errorf("event issue_comment: the pull request's head commit could not be read (GET /pulls/{number})")
		default: // a comment on an issue
			sha, field = githubSHA, "GITHUB_SHA"
		}
	default:
		sha, field = githubSHA, "GITHUB_SHA"
	}
	if !commitID.MatchString(sha) {
		return "", fmt.Errorf("event %s: %s %q is not a commit id", e.Name, field, cut(sha, 80))
	}
	return sha, nil
}

// commitID matches a full commit id: 40 lower-case hex digits, or 64 in a SHA-256 repository.
var commitID = regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`)

// IsCommitID says whether s is a full commit id as GitHub writes one (40 lower-case hex
// digits, or 64 in a SHA-256 repository): what may go into an API path or query.
func IsCommitID(s string) bool { return commitID.MatchString(s) }

// cut keeps at most n bytes of s, at a character boundary, for quoting.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
