// Package artifact fetches the base branch's JSON report from its workflow artifact, for
// `baseline: auto` (docs/reference.md, "Which baseline"): the artifact of the pull request's
// merge base, else of its nearest first-parent ancestor that has one, else the newest on the
// base branch, uploaded by a push, schedule or workflow_dispatch run of this repository and
// downloaded as a zip from GitHub's blob storage.
//
// Everything GitHub answers is untrusted: the list is checked again (name, expiry, branch, and
// that the run was not a fork's), each candidate's run is read to check its event, branch,
// commit and repository, every walk is bounded, the zip is read with bounded sizes, and the
// storage URL it redirects to is fetched without the token.
package artifact

import (
	"archive/zip"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/google/go-github/v66/github"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/internal/github/event"
)

// Limits on what a download may cost: the zip as fetched, and the report inside it (variables
// so that tests can lower them).
var (
	MaxZipBytes    int64 = 256 << 20
	MaxReportBytes int64 = 256 << 20
)

// Bounds on the API calls one search makes, whatever the repository holds.
const (
	// maxPages bounds the artifact listing: 100 artifacts a page.
	maxPages = 100
	// MaxAncestors is how many commits of the merge base's first-parent history (itself
	// included) are looked at.
	MaxAncestors = 100
	// maxCommitPages bounds the commit listing the walk reads its parents from: 100 commits a
	// page, merged branches' commits included, so a first-parent step may need several.
	maxCommitPages = 5
	// maxRunLookups bounds how many candidates' workflow runs are read.
	maxRunLookups = 20
)

// ErrNotFound is returned when no artifact qualifies.
var ErrNotFound = errors.New("no artifact found")

// Found is the report fetched from an artifact.
type Found struct {
	ArtifactID int64
	RunID      int64
	// HeadSHA is the commit the run gated: the baseline's commit.
	HeadSHA string
	// How says how that commit was chosen, relative to the merge base: "the merge base",
	// "2 commits before the merge base", "the newest on main, 3 commits after the merge base
	// (no artifact on the merge base's first-parent history)".
	How string
	// Entry is the zip entry the report was read from.
	Entry string
	// Report is the JSON report's bytes.
	Report []byte
}

// Query names the artifact to look for.
type Query struct {
	Owner, Repo string
	// Name is the artifact's name (input baseline-artifact).
	Name string
	// Branch is the base branch whose runs qualify.
	Branch string
	// MergeBase is the commit the search starts from: the pull request's merge base with
	// Branch (a merge group's base commit). "" takes the newest artifact on Branch.
	MergeBase string
	// Logf, if set, is told why a candidate was passed over.
	Logf func(format string, args ...any)
}

func (q *Query) logf(format string, args ...any) {
	if q.Logf != nil {
		q.Logf(format, args...)
	}
}

// Fetch chooses the artifact with api (a client for the API host, carrying the token; see
// Choose) and downloads it from storage with the plain client storage, which must carry no
// credentials: GitHub answers the download with a 302 to a signed URL on another host.
func Fetch(ctx context.Context, api *github.Client, storage *http.Client, q Query) (*Found, error) {
	a, how, err := Choose(ctx, api, q)
	if err != nil {
		return nil, err
	}
	loc, _, err := api.Actions.DownloadArtifact(ctx, q.Owner, q.Repo, a.GetID(), 0)
	if err != nil {
		return nil, fmt.Errorf("downloading artifact %d: %w", a.GetID(), err)
	}
	zipBytes, err := get(ctx, storage, loc)
	if err != nil {
		return nil, fmt.Errorf("downloading artifact %d from storage: %w", a.GetID(), err)
	}
	entry, report, err := ReportFromZip(zipBytes)
	if err != nil {
		return nil, fmt.Errorf("artifact %d: %w", a.GetID(), err)
	}
	run := a.GetWorkflowRun()
	return &Found{ArtifactID: a.GetID(), RunID: run.GetID(), HeadSHA: run.GetHeadSHA(), How: how, Entry: entry, Report: report}, nil
}

// Choose finds the baseline artifact and says how it was chosen. Of the artifacts that
// qualify (see Candidates), it takes the newest of the merge base's commit, else of the
// nearest commit on the merge base's first-parent history (up to MaxAncestors commits), else
// the newest on the branch; a candidate counts only when its workflow run, read again, was a
// push, schedule or workflow_dispatch run of this repository on the branch, at the
// artifact's commit: a pull_request_target or workflow_run run, which runs with the base
// repository's token on a pull request's behalf, or a fork's run, is never a baseline.
func Choose(ctx context.Context, api *github.Client, q Query) (*github.Artifact, string, error) {
	if q.MergeBase != "" && !event.IsCommitID(q.MergeBase) {
		return nil, "", fmt.Errorf("merge base %s is not a commit id", input.Quote(q.MergeBase))
	}
	all, err := Candidates(ctx, api, q)
	if err != nil {
		return nil, "", err
	}
	if len(all) == 0 {
		return nil, "", ErrNotFound
	}
	c := &chooser{api: api, q: q, runs: map[int64]bool{}}
	bySHA := map[string][]*github.Artifact{}
	for _, a := range all {
		sha := a.GetWorkflowRun().GetHeadSHA()
		bySHA[sha] = append(bySHA[sha], a)
	}
	walked := 0
	if q.MergeBase != "" {
		var a *github.Artifact
		a, walked, err = c.walk(ctx, bySHA)
		switch {
		case err != nil:
			return nil, "", err
		case a != nil && walked == 1:
			return a, "the merge base", nil
		case a != nil:
			return a, fmt.Sprintf("%s before the merge base", commits(walked-1)), nil
		}
	}
	for _, a := range all {
		ok, err := c.qualifies(ctx, a)
		if err != nil {
			return nil, "", err
		}
		if ok {
			return a, c.newestHow(ctx, a, walked), nil
		}
	}
	return nil, "", ErrNotFound
}

// chooser is one search: the runs it has read, and how many it may still read.
type chooser struct {
	api  *github.Client
	q    Query
	runs map[int64]bool // run id → qualifies
	// spent is set once maxRunLookups runs were read.
	spent bool
}

// walk follows the merge base's first parents, newest first, and returns the first
// qualifying artifact of a commit on that line and how many commits it looked at (the merge
// base is the first). It stops at MaxAncestors commits, at the end of the history GitHub lists
// within maxCommitPages pages, or at a root commit.
func (c *chooser) walk(ctx context.Context, bySHA map[string][]*github.Artifact) (*github.Artifact, int, error) {
	parents := map[string]string{} // commit → first parent ("" for a root)
	page, more := 1, true
	cur := c.q.MergeBase
	for n := 1; ; n++ {
		for _, a := range bySHA[cur] {
			ok, err := c.qualifies(ctx, a)
			if err != nil {
				return nil, n, err
			}
			if ok {
				return a, n, nil
			}
		}
		if n == MaxAncestors {
			return nil, n, nil
		}
		for _, known := parents[cur]; !known && more && page <= maxCommitPages; _, known = parents[cur] {
			var err error
			if more, err = c.listCommits(ctx, page, parents); err != nil {
				// The history is no reason to go without a baseline: the newest is taken.
				c.q.logf("agentgate: baseline: %v", err)
				return nil, n, nil
			}
			page++
		}
		next, known := parents[cur]
		if !known || next == "" {
			return nil, n, nil
		}
		cur = next
	}
}

// listCommits reads one page of the merge base's history into parents and says whether
// GitHub has another.
func (c *chooser) listCommits(ctx context.Context, page int, parents map[string]string) (more bool, err error) {
	opts := &github.CommitsListOptions{SHA: c.q.MergeBase, ListOptions: github.ListOptions{PerPage: 100, Page: page}}
	list, resp, err := c.api.Repositories.ListCommits(ctx, c.q.Owner, c.q.Repo, opts)
	if err != nil {
		return false, fmt.Errorf("listing the commits of %s: %w", c.q.MergeBase, err)
	}
	for _, rc := range list {
		first := ""
		if len(rc.Parents) > 0 {
			first = rc.Parents[0].GetSHA()
		}
		if sha := rc.GetSHA(); sha != "" {
			parents[sha] = first
		}
	}
	return len(list) > 0 && resp.NextPage > page, nil
}

// qualifies reads a's workflow run (once per run, at most maxRunLookups runs a search) and
// says whether it can be a baseline: a push, schedule or workflow_dispatch run of this
// repository, on the branch, at the commit the artifact listing gave.
func (c *chooser) qualifies(ctx context.Context, a *github.Artifact) (bool, error) {
	id := a.GetWorkflowRun().GetID()
	if ok, seen := c.runs[id]; seen {
		return ok, nil
	}
	if len(c.runs) == maxRunLookups {
		if !c.spent {
			c.spent = true
			c.q.logf("agentgate: baseline: artifact %d and older passed over: %d workflow runs were read already", a.GetID(), maxRunLookups)
		}
		return false, nil
	}
	run, _, err := c.api.Actions.GetWorkflowRunByID(ctx, c.q.Owner, c.q.Repo, id)
	if err != nil {
		return false, fmt.Errorf("reading workflow run %d of artifact %d: %w", id, a.GetID(), err)
	}
	why := ""
	switch {
	case !slices.Contains(baselineEvents, run.GetEvent()):
		why = fmt.Sprintf("a %s run: only push, schedule and workflow_dispatch runs can be a baseline", input.Quote(run.GetEvent()))
	case run.GetRepository().GetID() == 0 || run.GetHeadRepository().GetID() != run.GetRepository().GetID():
		why = "its head repository is not this repository"
	case run.GetHeadBranch() != c.q.Branch:
		why = "it ran on another branch"
	case run.GetHeadSHA() != a.GetWorkflowRun().GetHeadSHA():
		why = "it ran on another commit than the artifact listing says"
	}
	c.runs[id] = why == ""
	if why != "" {
		c.q.logf("agentgate: baseline: artifact %d of run %d passed over: %s", a.GetID(), id, why)
	}
	return why == "", nil
}

// baselineEvents are the events whose runs gate the base branch itself.
var baselineEvents = []string{"push", "schedule", "workflow_dispatch"}

// newestHow says how the newest artifact on the branch stands to the merge base, after the
// walk over walked commits of its first-parent history found none; GitHub's compare says how
// many commits apart they are.
func (c *chooser) newestHow(ctx context.Context, a *github.Artifact, walked int) string {
	how := "the newest on " + c.q.Branch
	if c.q.MergeBase == "" {
		return how
	}
	none := fmt.Sprintf(" (no artifact on the merge base's first-parent history, %s looked at)", commits(walked))
	sha := a.GetWorkflowRun().GetHeadSHA()
	cm, _, err := c.api.Repositories.CompareCommits(ctx, c.q.Owner, c.q.Repo, c.q.MergeBase, sha, &github.ListOptions{PerPage: 1})
	if err != nil {
		c.q.logf("agentgate: baseline: cannot compare %s with the merge base: %v", sha, err)
		return how + none
	}
	switch cm.GetStatus() {
	case "ahead":
		return fmt.Sprintf("%s, %s after the merge base%s", how, commits(cm.GetAheadBy()), none)
	case "behind":
		return fmt.Sprintf("%s, %s before the merge base%s", how, commits(cm.GetBehindBy()), none)
	}
	return how + ", not on the merge base's history" + none
}

// commits is "1 commit" or "n commits".
func commits(n int) string {
	if n == 1 {
		return "1 commit"
	}
	return fmt.Sprintf("%d commits", n)
}

// MergeBase asks GitHub's compare for the merge base of base and head (GET
// /repos/{owner}/{repo}/compare/{base}...{head}): the commit the pull request's branch left
// the base branch at.
func MergeBase(ctx context.Context, api *github.Client, owner, repo, base, head string) (string, error) {
	for _, s := range []string{base, head} {
		if !event.IsCommitID(s) {
			return "", fmt.Errorf("%s is not a commit id", input.Quote(s))
		}
	}
	cm, _, err := api.Repositories.CompareCommits(ctx, owner, repo, base, head, &github.ListOptions{PerPage: 1})
	if err != nil {
		return "", fmt.Errorf("comparing %s...%s: %w", base[:7], head[:7], err)
	}
	mb := cm.GetMergeBaseCommit().GetSHA()
	if !event.IsCommitID(mb) {
		return "", fmt.Errorf("comparing %s...%s: GitHub named no merge base commit", base[:7], head[:7])
	}
	return mb, nil
}

// Candidates lists every page of the artifacts named q.Name and returns, newest first, those
// unexpired and uploaded by a run of this repository (not a fork's: a fork's pull request can
// name its branch main too) on q.Branch, as the listing describes them. Ties in creation time
// go to the higher id.
func Candidates(ctx context.Context, api *github.Client, q Query) ([]*github.Artifact, error) {
	var out []*github.Artifact
	page := 1
	for n := 0; page != 0; n++ {
		if n == maxPages {
			return nil, fmt.Errorf("listing artifacts: more than %d pages", maxPages)
		}
		v := url.Values{}
		v.Set("name", q.Name)
		v.Set("per_page", "100")
		v.Set("page", fmt.Sprint(page))
		req, err := api.NewRequest("GET", fmt.Sprintf("repos/%s/%s/actions/artifacts?%s", url.PathEscape(q.Owner), url.PathEscape(q.Repo), v.Encode()), nil)
		if err != nil {
			return nil, err
		}
		var list github.ArtifactList
		resp, err := api.Do(ctx, req, &list)
		if err != nil {
			return nil, fmt.Errorf("listing artifacts: %w", err)
		}
		for _, a := range list.Artifacts {
			if listed(a, q) {
				out = append(out, a)
			}
		}
		if resp.NextPage <= page { // a next page that does not move on ends the walk
			break
		}
		page = resp.NextPage
	}
	slices.SortStableFunc(out, func(a, b *github.Artifact) int {
		if c := b.GetCreatedAt().Compare(a.GetCreatedAt().Time); c != 0 {
			return c
		}
		return cmp.Compare(b.GetID(), a.GetID())
	})
	return out, nil
}

// listed says whether the listing's own description of a qualifies it.
func listed(a *github.Artifact, q Query) bool {
	run := a.GetWorkflowRun()
	return a != nil && a.GetName() == q.Name && !a.GetExpired() && a.GetID() != 0 && run != nil && run.GetID() != 0 &&
		run.GetHeadBranch() == q.Branch && run.GetRepositoryID() != 0 && run.GetHeadRepositoryID() == run.GetRepositoryID()
}

// get fetches u with c, reading at most MaxZipBytes.
func get(ctx context.Context, c *http.Client, u *url.URL) ([]byte, error) {
	if u == nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, errors.New("the redirect is not an http(s) URL")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		// the URL carries a signature: say where, not the whole URL
		return nil, fmt.Errorf("GET %s: %w", u.Host, unwrapURL(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("storage host %s answered %d", u.Host, resp.StatusCode)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxZipBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > MaxZipBytes {
		return nil, fmt.Errorf("the zip is over %d MiB", MaxZipBytes>>20)
	}
	return b, nil
}

func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// ReportFromZip returns the first entry (in the zip's order) whose name ends "report.json",
// read to at most MaxReportBytes whatever size its header claims.
func ReportFromZip(b []byte) (name string, report []byte, err error) {
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return "", nil, fmt.Errorf("not a zip: %w", err)
	}
	for _, f := range zr.File {
		if !strings.HasSuffix(f.Name, "report.json") || f.FileInfo().IsDir() {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return "", nil, fmt.Errorf("entry %q: %w", f.Name, err)
		}
		defer rc.Close()
		data, err := io.ReadAll(io.LimitReader(rc, MaxReportBytes+1))
		if err != nil {
			return "", nil, fmt.Errorf("entry %q: %w", f.Name, err)
		}
		if int64(len(data)) > MaxReportBytes {
			return "", nil, fmt.Errorf("entry %q is over %d MiB", f.Name, MaxReportBytes>>20)
		}
		return f.Name, data, nil
	}
	return "", nil, errors.New("the zip holds no file named *report.json")
}
