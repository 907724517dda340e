package ghemu

import (
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Commit is one commit of the repository's history, as far as the commits list and the
// compare endpoint read it.
type Commit struct {
	SHA string
	// Parents are the parents' ids, the first parent first (a merge commit has two).
	Parents []string
	// Date is the committer date; the commits list is newest first by it, as `git log` is.
	Date time.Time
}

// AddCommits stores commits (their parents need not be stored: the history may start
// anywhere, as a shallow one does).
func (e *Emulator) AddCommits(cs ...Commit) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.commits == nil {
		e.commits = map[string]Commit{}
	}
	for _, c := range cs {
		e.commits[c.SHA] = c
	}
}

// ancestorsLocked returns the stored commits reachable from sha (itself included), as a set.
func (e *Emulator) ancestorsLocked(sha string) map[string]bool {
	seen := map[string]bool{}
	stack := []string{sha}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		c, ok := e.commits[s]
		if !ok || seen[s] {
			continue
		}
		seen[s] = true
		stack = append(stack, c.Parents...)
	}
	return seen
}

// newestFirst orders the commits of set newest first (by date, then id, for a fixed order).
func (e *Emulator) newestFirstLocked(set map[string]bool) []Commit {
	out := make([]Commit, 0, len(set))
	for s := range set {
		out = append(out, e.commits[s])
	}
	slices.SortFunc(out, func(a, b Commit) int { return cmp.Or(b.Date.Compare(a.Date), strings.Compare(a.SHA, b.SHA)) })
	return out
}

// renderCommit is GitHub's commit object for c: with a Spec, GitHub's own example patched
// with c's id, date and parents.
func (e *Emulator) renderCommit(r *http.Request, c Commit) map[string]any {
	api, web := e.baseURLs(r)
	repoAPI := fmt.Sprintf("%s/repos/%s/%s", api, e.cfg.Owner, e.cfg.Repo)
	obj := map[string]any{}
	if e.cfg.Spec != nil {
		if ex, err := e.cfg.Spec.Example("commit-items"); err == nil {
			if items, _ := ex.([]any); len(items) > 0 {
				obj, _ = items[0].(map[string]any)
			}
		}
	}
	obj["sha"] = c.SHA
	obj["node_id"] = "C_" + c.SHA
	obj["url"] = repoAPI + "/commits/" + c.SHA
	obj["html_url"] = fmt.Sprintf("%s/%s/%s/commit/%s", web, e.cfg.Owner, e.cfg.Repo, c.SHA)
	obj["comments_url"] = repoAPI + "/commits/" + c.SHA + "/comments"
	inner, _ := obj["commit"].(map[string]any)
	if inner == nil {
		inner = map[string]any{}
		obj["commit"] = inner
	}
	date := c.Date.UTC().Format(time.RFC3339)
	for _, who := range []string{"author", "committer"} {
		if p, ok := inner[who].(map[string]any); ok {
			p["date"] = date
		}
	}
	inner["url"] = repoAPI + "/git/commits/" + c.SHA
	parents := []any{}
	for _, p := range c.Parents {
		parents = append(parents, map[string]any{"sha": p, "url": repoAPI + "/commits/" + p, "html_url": fmt.Sprintf("%s/%s/%s/commit/%s", web, e.cfg.Owner, e.cfg.Repo, p)})
	}
	obj["parents"] = parents
	return obj
}

// listCommits serves GET /repos/{owner}/{repo}/commits?sha=…: the commits reachable from sha,
// newest first, paginated as GitHub does. An unknown sha answers 404, as GitHub's "No commit
// found for SHA" does (422 on github.com; the description documents both).
func (e *Emulator) listCommits(rec *response, r *http.Request) {
	q := r.URL.Query()
	perPage, page := pageParams(q)
	sha := q.Get("sha")
	e.mu.Lock()
	_, known := e.commits[sha]
	all := e.newestFirstLocked(e.ancestorsLocked(sha))
	e.mu.Unlock()
	if !known {
		rec.error(http.StatusNotFound, "No commit found for SHA: "+sha, docRoot, nil)
		return
	}
	items := []any{}
	for i := (page - 1) * perPage; i < len(all) && i < page*perPage; i++ {
		items = append(items, e.renderCommit(r, all[i]))
	}
	api, _ := e.baseURLs(r)
	links := pageLinks(fmt.Sprintf("%s/repos/%s/%s/commits", api, e.cfg.Owner, e.cfg.Repo), url.Values{"sha": {sha}}, perPage, page, len(all))
	rec.json(http.StatusOK, items)
	if links != "" {
		rec.header.Set("Link", links)
	}
}

// compareCommits serves GET /repos/{owner}/{repo}/compare/{base}...{head}: the merge base
// (the newest common ancestor), the status and the counts; the commits list holds at most
// per_page of head's commits not in base.
func (e *Emulator) compareCommits(rec *response, r *http.Request, basehead string) {
	base, head, ok := strings.Cut(basehead, "...")
	e.mu.Lock()
	_, kb := e.commits[base]
	_, kh := e.commits[head]
	if !ok || !kb || !kh {
		e.mu.Unlock()
		rec.error(http.StatusNotFound, "Not Found", docRoot, nil)
		return
	}
	ab, ah := e.ancestorsLocked(base), e.ancestorsLocked(head)
	common := map[string]bool{}
	onlyHead := map[string]bool{}
	behind := 0
	for s := range ah {
		if ab[s] {
			common[s] = true
		} else {
			onlyHead[s] = true
		}
	}
	for s := range ab {
		if !ah[s] {
			behind++
		}
	}
	mb := e.newestFirstLocked(common)
	ahead := e.newestFirstLocked(onlyHead)
	baseC := e.commits[base]
	e.mu.Unlock()
	if len(mb) == 0 {
		rec.error(http.StatusNotFound, "Not Found", docRoot, nil)
		return
	}
	status := "diverged"
	switch {
	case len(ahead) == 0 && behind == 0:
		status = "identical"
	case behind == 0:
		status = "ahead"
	case len(ahead) == 0:
		status = "behind"
	}
	perPage, page := pageParams(r.URL.Query())
	commits := []any{}
	for i := (page - 1) * perPage; i < len(ahead) && i < page*perPage; i++ {
		commits = append(commits, e.renderCommit(r, ahead[i]))
	}
	obj := map[string]any{}
	if e.cfg.Spec != nil {
		if ex, err := e.cfg.Spec.Example("commit-comparison"); err == nil {
			obj, _ = ex.(map[string]any)
		}
	}
	api, web := e.baseURLs(r)
	obj["url"] = fmt.Sprintf("%s/repos/%s/%s/compare/%s", api, e.cfg.Owner, e.cfg.Repo, basehead)
	obj["html_url"] = fmt.Sprintf("%s/%s/%s/compare/%s", web, e.cfg.Owner, e.cfg.Repo, basehead)
	obj["base_commit"] = e.renderCommit(r, baseC)
	obj["merge_base_commit"] = e.renderCommit(r, mb[0])
	obj["status"] = status
	obj["ahead_by"] = len(ahead)
	obj["behind_by"] = behind
	obj["total_commits"] = len(ahead)
	obj["commits"] = commits
	obj["files"] = []any{}
	rec.json(http.StatusOK, obj)
}

// getWorkflowRun serves GET /repos/{owner}/{repo}/actions/runs/{id} for the run that uploaded
// a stored artifact: its event, branch, commit, and head repository (a fork's for FromFork).
func (e *Emulator) getWorkflowRun(rec *response, r *http.Request, idText string) {
	id, err := strconv.ParseInt(idText, 10, 64)
	var a Artifact
	found := false
	e.mu.Lock()
	for i := len(e.artifacts) - 1; i >= 0 && err == nil; i-- {
		if e.artifacts[i].RunID == id {
			a, found = e.artifacts[i], true
			break
		}
	}
	e.mu.Unlock()
	if !found {
		rec.error(http.StatusNotFound, "Not Found", docRoot, nil)
		return
	}
	obj := map[string]any{}
	if e.cfg.Spec != nil {
		if ex, err := e.cfg.Spec.Example("workflow-run"); err == nil {
			obj, _ = ex.(map[string]any)
		}
	}
	api, web := e.baseURLs(r)
	runAPI := fmt.Sprintf("%s/repos/%s/%s/actions/runs/%d", api, e.cfg.Owner, e.cfg.Repo, id)
	obj["id"] = id
	obj["node_id"] = nodeID("WFR_", id)
	obj["event"] = cmp.Or(a.Event, "push")
	obj["head_branch"] = a.HeadBranch
	obj["head_sha"] = a.HeadSHA
	obj["url"] = runAPI
	obj["html_url"] = fmt.Sprintf("%s/%s/%s/actions/runs/%d", web, e.cfg.Owner, e.cfg.Repo, id)
	obj["artifacts_url"] = runAPI + "/artifacts"
	obj["status"], obj["conclusion"] = "completed", "success"
	obj["pull_requests"] = []any{}
	if repo, ok := obj["repository"].(map[string]any); ok {
		repo["id"] = repoID
		repo["full_name"] = e.cfg.Owner + "/" + e.cfg.Repo
		repo["name"] = e.cfg.Repo
	}
	if head, ok := obj["head_repository"].(map[string]any); ok {
		head["id"] = repoID
		head["full_name"] = e.cfg.Owner + "/" + e.cfg.Repo
		head["name"] = e.cfg.Repo
		if a.FromFork {
			head["id"] = forkRepoID
			head["full_name"] = "fork-owner/" + e.cfg.Repo
			head["fork"] = true
		}
	}
	if hc, ok := obj["head_commit"].(map[string]any); ok {
		hc["id"] = a.HeadSHA
	}
	rec.json(http.StatusOK, obj)
}

// SetPull stores (or replaces) the pull request GET /repos/{owner}/{repo}/pulls/{n} serves.
func (e *Emulator) SetPull(n int, p Pull) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cfg.Pulls == nil {
		e.cfg.Pulls = map[int]Pull{}
	}
	e.cfg.Pulls[n] = p
}
