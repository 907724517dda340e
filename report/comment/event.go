package comment

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// mergeQueueRef matches the head ref of a merge group, which names the pull
// request: refs/heads/gh-readonly-queue/<base branch>/pr-<number>-<sha>.
// The base branch may itself contain slashes.
var mergeQueueRef = regexp.MustCompile(`^refs/heads/gh-readonly-queue/.+/pr-([0-9]+)-[0-9a-f]+$`)

// PRFromEvent finds the pull request a workflow run is about, from the event
// name (GITHUB_EVENT_NAME), the event payload file (GITHUB_EVENT_PATH) and the
// pr-number action input.
//
// A non-empty prInput wins for every event: it is how a workflow_run
// workflow (or any other) names the pull request explicitly. It must be a
// positive decimal integer, optionally written "#123"; anything else is an
// error rather than a silent skip, since the user asked for a comment.
//
// Without it:
//   - pull_request, pull_request_target, pull_request_review and
//     pull_request_review_comment: .pull_request.number, else .number;
//   - merge_group: the payload has no number field, so it is parsed from
//     .merge_group.head_ref (refs/heads/gh-readonly-queue/main/pr-123-<sha>);
//   - workflow_run: .workflow_run.pull_requests[0].number when GitHub filled
//     it in; it leaves the list empty for pull requests from forks, which is
//     why such workflows must pass pr-number;
//   - issue_comment on a pull request (.issue.pull_request present):
//     .issue.number;
//   - push and every other event: no pull request (ok false, err nil).
//
// An unreadable or malformed payload for an event that should carry a pull
// request is an error.
func PRFromEvent(eventName, eventPath string, prInput string) (pr int, ok bool, err error) {
	if in := strings.TrimSpace(prInput); in != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(in, "#"))
		if err != nil || n <= 0 || strings.HasPrefix(in, "#+") || strings.HasPrefix(in, "+") {
			return 0, false, fmt.Errorf("pr-number input %q: want a pull request number such as 123", prInput)
		}
		return n, true, nil
	}

	switch eventName {
	case "pull_request", "pull_request_target", "pull_request_review",
		"pull_request_review_comment", "merge_group", "workflow_run", "issue_comment":
	default:
		return 0, false, nil
	}
	if eventPath == "" {
		return 0, false, fmt.Errorf("event %s: GITHUB_EVENT_PATH is not set, cannot find the pull request", eventName)
	}
	raw, err := os.ReadFile(eventPath)
	if err != nil {
		return 0, false, fmt.Errorf("event %s: read payload: %w", eventName, err)
	}
	var p payload
	if err := json.Unmarshal(raw, &p); err != nil {
		return 0, false, fmt.Errorf("event %s: decode payload %s: %w", eventName, eventPath, err)
	}

	switch eventName {
	case "merge_group":
		if p.MergeGroup == nil {
			return 0, false, fmt.Errorf("event merge_group: payload %s has no merge_group object", eventPath)
		}
		m := mergeQueueRef.FindStringSubmatch(p.MergeGroup.HeadRef)
		if m == nil {
			return 0, false, fmt.Errorf("event merge_group: head_ref %q is not refs/heads/gh-readonly-queue/<branch>/pr-<number>-<sha>", p.MergeGroup.HeadRef)
		}
		return positive(m[1], "merge_group.head_ref")
	case "workflow_run":
		if p.WorkflowRun == nil || len(p.WorkflowRun.PullRequests) == 0 {
			return 0, false, nil
		}
		return checkNumber(p.WorkflowRun.PullRequests[0].Number, "workflow_run.pull_requests[0].number")
	case "issue_comment":
		if p.Issue == nil || len(p.Issue.PullRequest) == 0 || string(p.Issue.PullRequest) == "null" {
			return 0, false, nil // a comment on an issue, not on a pull request
		}
		return checkNumber(p.Issue.Number, "issue.number")
	default: // pull_request family
		if p.PullRequest != nil && p.PullRequest.Number > 0 {
			return p.PullRequest.Number, true, nil
		}
		return checkNumber(p.Number, "number")
	}
}

// payload holds the fields of webhook payloads PRFromEvent reads.
type payload struct {
	Number      int `json:"number"`
	PullRequest *struct {
		Number int     `json:"number"`
		Base   baseRef `json:"base"`
	} `json:"pull_request"`
	MergeGroup *struct {
		HeadRef string `json:"head_ref"`
		BaseRef string `json:"base_ref"`
	} `json:"merge_group"`
	WorkflowRun *struct {
		HeadSHA      string `json:"head_sha"`
		PullRequests []struct {
			Number int     `json:"number"`
			Base   baseRef `json:"base"`
		} `json:"pull_requests"`
	} `json:"workflow_run"`
	Issue *struct {
		Number      int             `json:"number"`
		PullRequest json.RawMessage `json:"pull_request"`
	} `json:"issue"`
}

// baseRef is the base of a pull request in a payload: the branch it would merge into.
type baseRef struct {
	Ref string `json:"ref"`
}

// BaseBranch returns the branch a run's pull request would merge into, whose last report is
// the baseline of `baseline: auto` (SPEC §10): .pull_request.base.ref for the pull_request
// family, .merge_group.base_ref (without refs/heads/) for the merge queue, and
// .workflow_run.pull_requests[0].base.ref for workflow_run when GitHub filled it in. ok is
// false for every other event (a push has no base) and for a payload without it.
func BaseBranch(eventName, eventPath string) (branch string, ok bool, err error) {
	switch eventName {
	case "pull_request", "pull_request_target", "pull_request_review", "pull_request_review_comment", "merge_group", "workflow_run":
	default:
		return "", false, nil
	}
	if eventPath == "" {
		return "", false, fmt.Errorf("event %s: GITHUB_EVENT_PATH is not set, cannot find the base branch", eventName)
	}
	raw, err := os.ReadFile(eventPath)
	if err != nil {
		return "", false, fmt.Errorf("event %s: read payload: %w", eventName, err)
	}
	var p payload
	if err := json.Unmarshal(raw, &p); err != nil {
		return "", false, fmt.Errorf("event %s: decode payload %s: %w", eventName, eventPath, err)
	}
	switch {
	case eventName == "merge_group" && p.MergeGroup != nil:
		branch = strings.TrimPrefix(p.MergeGroup.BaseRef, "refs/heads/")
	case eventName == "workflow_run" && p.WorkflowRun != nil && len(p.WorkflowRun.PullRequests) > 0:
		branch = p.WorkflowRun.PullRequests[0].Base.Ref
	case p.PullRequest != nil:
		branch = p.PullRequest.Base.Ref
	}
	return branch, branch != "", nil
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

// WorkflowRunHeadSHA returns .workflow_run.head_sha of a workflow_run payload: the commit the
// triggering run gated. The pull request a workflow_run workflow comments on must have this
// head (SPEC §13), since its number may come from the other run's artifact. A payload without
// a 40-hex-digit head_sha is an error.
func WorkflowRunHeadSHA(eventPath string) (string, error) {
	if eventPath == "" {
		return "", fmt.Errorf("event workflow_run: GITHUB_EVENT_PATH is not set, cannot read workflow_run.head_sha")
	}
	raw, err := os.ReadFile(eventPath)
	if err != nil {
		return "", fmt.Errorf("event workflow_run: read payload: %w", err)
	}
	var p payload
	if err := json.Unmarshal(raw, &p); err != nil {
		return "", fmt.Errorf("event workflow_run: decode payload %s: %w", eventPath, err)
	}
	if p.WorkflowRun == nil || !sha1Hex.MatchString(p.WorkflowRun.HeadSHA) {
		return "", fmt.Errorf("event workflow_run: payload %s has no workflow_run.head_sha commit id", eventPath)
	}
	return p.WorkflowRun.HeadSHA, nil
}
