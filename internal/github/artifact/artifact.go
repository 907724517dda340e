// Package artifact fetches the base branch's last JSON report from its workflow artifact, for
// `baseline: auto` (SPEC §10): the newest unexpired artifact of the given name uploaded by a
// run of this repository on the base branch, downloaded as a zip from GitHub's blob storage.
//
// Everything GitHub answers is untrusted: the list is checked again (name, expiry, branch, and
// that the run was not a fork's), the zip is read with bounded sizes, and the storage URL it
// redirects to is fetched without the token.
package artifact

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/go-github/v66/github"
)

// Limits on what a download may cost: the zip as fetched, and the report inside it (variables
// so that tests can lower them).
var (
	MaxZipBytes    int64 = 256 << 20
	MaxReportBytes int64 = 256 << 20
)

// maxPages bounds the listing: 100 artifacts a page.
const maxPages = 100

// ErrNotFound is returned when no artifact qualifies.
var ErrNotFound = errors.New("no artifact found")

// Found is the report fetched from an artifact.
type Found struct {
	ArtifactID int64
	RunID      int64
	HeadSHA    string
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
}

// Fetch finds the newest qualifying artifact with api (a client for the API host, carrying the
// token) and downloads it from storage with the plain client storage, which must carry no
// credentials: GitHub answers the download with a 302 to a signed URL on another host.
func Fetch(ctx context.Context, api *github.Client, storage *http.Client, q Query) (*Found, error) {
	a, err := Latest(ctx, api, q)
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
	return &Found{ArtifactID: a.GetID(), RunID: run.GetID(), HeadSHA: run.GetHeadSHA(), Entry: entry, Report: report}, nil
}

// Latest lists every page of the artifacts named q.Name and returns the newest that is
// unexpired and was uploaded by a run of this repository (not a fork's: a fork's pull request
// can name its branch main too) on q.Branch. Ties in creation time go to the higher id.
func Latest(ctx context.Context, api *github.Client, q Query) (*github.Artifact, error) {
	var best *github.Artifact
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
			if qualifies(a, q) && (best == nil || newer(a, best)) {
				best = a
			}
		}
		if resp.NextPage <= page { // a next page that does not move on ends the walk
			break
		}
		page = resp.NextPage
	}
	if best == nil {
		return nil, ErrNotFound
	}
	return best, nil
}

func qualifies(a *github.Artifact, q Query) bool {
	run := a.GetWorkflowRun()
	return a != nil && a.GetName() == q.Name && !a.GetExpired() && a.GetID() != 0 && run != nil &&
		run.GetHeadBranch() == q.Branch && run.GetRepositoryID() != 0 && run.GetHeadRepositoryID() == run.GetRepositoryID()
}

func newer(a, b *github.Artifact) bool {
	if c := a.GetCreatedAt().Compare(b.GetCreatedAt().Time); c != 0 {
		return c > 0
	}
	return a.GetID() > b.GetID()
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
