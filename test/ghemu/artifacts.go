package ghemu

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Artifact is one stored workflow-run artifact. Its zip is served by the storage host (see
// Storage), to which GET /repos/{owner}/{repo}/actions/artifacts/{id}/zip redirects, as GitHub
// redirects to blob storage on another host.
type Artifact struct {
	ID        int64
	Name      string
	Expired   bool
	CreatedAt time.Time
	// Run is the workflow run that uploaded it: its id, branch and commit, and whether it came
	// from a fork (head repository other than this one).
	RunID      int64
	HeadBranch string
	HeadSHA    string
	FromFork   bool
	// Event is the event that started the run (GET /actions/runs/{id} answers it); "" is push.
	Event string
	Zip   []byte
}

// repoID and forkRepoID are the repository ids the emulator reports.
const (
	repoID     = 1296269
	forkRepoID = 9999001
)

// AddArtifact stores an artifact (its ID must be unique and non-zero).
func (e *Emulator) AddArtifact(a Artifact) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.artifacts = append(e.artifacts, a)
}

// artifact returns the stored artifact with this id (the last one added, should ids repeat).
func (e *Emulator) artifact(id int64) (Artifact, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := len(e.artifacts) - 1; i >= 0; i-- {
		if e.artifacts[i].ID == id {
			return e.artifacts[i], true
		}
	}
	return Artifact{}, false
}

// SetStorage names the base URL of the storage host artifact downloads redirect to.
func (e *Emulator) SetStorage(base string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.storage = strings.TrimSuffix(base, "/")
}

// StorageRequest is one request the storage host received.
type StorageRequest struct {
	Path string
	// Authorization is the header as received: it must always be empty.
	Authorization string
}

// Storage is the second host of an artifact download: it serves the zips the emulator holds,
// and records every request with its Authorization header, so a test can assert that the
// token never left the API host.
type Storage struct {
	e        *Emulator
	mu       sync.Mutex
	requests []StorageRequest
}

// StartStorage starts the storage host of e on its own listener and points e's download
// redirects at it.
func StartStorage(t testing.TB, e *Emulator) (*Storage, *httptest.Server) {
	t.Helper()
	s := &Storage{e: e}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	// localhost, not 127.0.0.1: another host name as well as another port.
	u, _ := url.Parse(srv.URL)
	e.SetStorage("http://localhost:" + u.Port())
	return s, srv
}

// Requests returns the requests the storage host received, in order.
func (s *Storage) Requests() []StorageRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// ServeHTTP serves /blob/{id}.zip.
func (s *Storage) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests = append(s.requests, StorageRequest{Path: r.URL.Path, Authorization: r.Header.Get("Authorization")})
	s.mu.Unlock()
	idText, ok := strings.CutSuffix(strings.TrimPrefix(r.URL.Path, "/blob/"), ".zip")
	id, err := strconv.ParseInt(idText, 10, 64)
	if !ok || err != nil || r.URL.Query().Get("sig") == "" {
		http.Error(w, "AuthenticationFailed", http.StatusForbidden)
		return
	}
	a, found := s.e.artifact(id)
	zip := a.Zip
	if !found || zip == nil {
		http.Error(w, "BlobNotFound", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/zip")
	_, _ = w.Write(zip)
}

// serveActions answers /repos/{owner}/{repo}/actions/artifacts[...] and actions/runs/{id}.
func (e *Emulator) serveActions(rec *response, r *http.Request, segs []string) {
	if r.Method == http.MethodGet && len(segs) == 6 && segs[4] == "runs" {
		e.getWorkflowRun(rec, r, segs[5])
		return
	}
	if r.Method != http.MethodGet || len(segs) < 5 || segs[4] != "artifacts" {
		rec.error(http.StatusNotFound, "Not Found", docRoot, nil)
		return
	}
	switch {
	case len(segs) == 5:
		e.listArtifacts(rec, r)
	case len(segs) == 7 && segs[6] == "zip":
		id, err := strconv.ParseInt(segs[5], 10, 64)
		a, found := e.artifact(id)
		e.mu.Lock()
		storage := e.storage
		e.mu.Unlock()
		switch {
		case err != nil || !found:
			rec.error(http.StatusNotFound, "Not Found", docRoot, nil)
		case a.Expired:
			rec.error(http.StatusGone, "Artifact has expired", docRoot, nil)
		default:
			rec.status = http.StatusFound
			rec.header.Set("Location", fmt.Sprintf("%s/blob/%d.zip?sig=emulated", storage, id))
		}
	default:
		rec.error(http.StatusNotFound, "Not Found", docRoot, nil)
	}
}

// listArtifacts serves one page of the repository's artifacts, newest first, filtered by the
// name query parameter, with GitHub's pagination rules (see listComments).
func (e *Emulator) listArtifacts(rec *response, r *http.Request) {
	q := r.URL.Query()
	perPage, page := pageParams(q)
	name := q.Get("name")
	e.mu.Lock()
	var all []Artifact
	for _, a := range e.artifacts {
		if name == "" || a.Name == name {
			all = append(all, a)
		}
	}
	e.mu.Unlock()
	slices.SortStableFunc(all, func(a, b Artifact) int { return b.CreatedAt.Compare(a.CreatedAt) })
	api, _ := e.baseURLs(r)
	repoAPI := fmt.Sprintf("%s/repos/%s/%s", api, e.cfg.Owner, e.cfg.Repo)
	items := []any{}
	for i := (page - 1) * perPage; i < len(all) && i < page*perPage; i++ {
		a := all[i]
		head := int64(repoID)
		if a.FromFork {
			head = forkRepoID
		}
		items = append(items, map[string]any{
			"id":                   a.ID,
			"node_id":              nodeID("MDg6QXJ0aWZhY3Q", a.ID),
			"name":                 a.Name,
			"size_in_bytes":        len(a.Zip),
			"url":                  fmt.Sprintf("%s/actions/artifacts/%d", repoAPI, a.ID),
			"archive_download_url": fmt.Sprintf("%s/actions/artifacts/%d/zip", repoAPI, a.ID),
			"expired":              a.Expired,
			"created_at":           a.CreatedAt.UTC().Format(time.RFC3339),
			"updated_at":           a.CreatedAt.UTC().Format(time.RFC3339),
			"expires_at":           a.CreatedAt.Add(90 * 24 * time.Hour).UTC().Format(time.RFC3339),
			"workflow_run": map[string]any{
				"id":                 a.RunID,
				"repository_id":      repoID,
				"head_repository_id": head,
				"head_branch":        a.HeadBranch,
				"head_sha":           a.HeadSHA,
			},
		})
	}
	filter := url.Values{}
	if name != "" {
		filter.Set("name", name)
	}
	links := pageLinks(repoAPI+"/actions/artifacts", filter, perPage, page, len(all))
	rec.json(http.StatusOK, map[string]any{"total_count": len(all), "artifacts": items})
	if links != "" {
		rec.header.Set("Link", links)
	}
}
