package artifact

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/internal/github/api"
	"github.com/agentgate/agentgate/test/ghemu"
)

const (
	owner = "octo-org"
	repo  = "agent"
	token = "ghs_artifactTestToken0123456789"
)

func zipOf(t *testing.T, entries ...string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for i := 0; i+1 < len(entries); i += 2 {
		w, err := zw.Create(entries[i])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(entries[i+1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func setup(t *testing.T) (*ghemu.Emulator, *ghemu.Storage, func() (*Found, error)) {
	t.Helper()
	e, srv := ghemu.Start(t, ghemu.Config{Owner: owner, Repo: repo, Tokens: map[string]ghemu.Identity{token: ghemu.ActionsBot()}})
	st, _ := ghemu.StartStorage(t, e)
	client, err := api.NewClient(token, srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	fetch := func() (*Found, error) {
		return Fetch(context.Background(), client, &http.Client{Timeout: 10 * time.Second}, Query{Owner: owner, Repo: repo, Name: "agentgate-report", Branch: "main"})
	}
	return e, st, fetch
}

var t0 = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// The newest qualifying artifact is found over every page, past newer decoys (another branch,
// expired, a fork's run on a branch it named main), and downloaded from the storage host
// without the token.
func TestFetchNewestOverPages(t *testing.T) {
	e, st, fetch := setup(t)
	want := zipOf(t, ".agentgate/report.json", `{"schema":2}`)
	id := int64(1)
	add := func(a ghemu.Artifact) {
		a.ID, a.RunID = id, 5000+id
		if a.Name == "" {
			a.Name = "agentgate-report"
		}
		if a.Zip == nil {
			a.Zip = zipOf(t, "report.json", fmt.Sprintf(`{"decoy":%d}`, id))
		}
		id++
		e.AddArtifact(a)
	}
	// 250 older runs on main, the one to find, then 60 newer decoys of every kind.
	for i := range 250 {
		add(ghemu.Artifact{CreatedAt: t0.Add(time.Duration(i) * time.Minute), HeadBranch: "main", HeadSHA: "old"})
	}
	add(ghemu.Artifact{CreatedAt: t0.Add(290 * time.Minute), HeadBranch: "main", HeadSHA: "1a2b3c4d", Zip: want})
	wantID := id - 1
	for i := range 60 {
		at := t0.Add(time.Duration(300+i) * time.Minute)
		switch i % 4 {
		case 0:
			add(ghemu.Artifact{CreatedAt: at, HeadBranch: "feature"})
		case 1:
			add(ghemu.Artifact{CreatedAt: at, HeadBranch: "main", Expired: true})
		case 2:
			add(ghemu.Artifact{CreatedAt: at, HeadBranch: "main", FromFork: true})
		case 3:
			add(ghemu.Artifact{CreatedAt: at, HeadBranch: "main", Name: "other-artifact"})
		}
	}
	got, err := fetch()
	if err != nil {
		t.Fatal(err)
	}
	if got.ArtifactID != wantID || got.RunID != 5000+wantID || got.HeadSHA != "1a2b3c4d" || got.Entry != ".agentgate/report.json" || string(got.Report) != `{"schema":2}` {
		t.Errorf("found %+v, want artifact %d with its report", got, wantID)
	}
	var reqs []string
	for _, r := range e.Requests() {
		reqs = append(reqs, fmt.Sprintf("%s %s?%s %d %s", r.Method, r.Path, r.Query, r.Status, r.AuthScheme))
	}
	wantReqs := []string{
		"GET /repos/octo-org/agent/actions/artifacts?name=agentgate-report&page=1&per_page=100 200 Bearer",
		"GET /repos/octo-org/agent/actions/artifacts?name=agentgate-report&page=2&per_page=100 200 Bearer",
		"GET /repos/octo-org/agent/actions/artifacts?name=agentgate-report&page=3&per_page=100 200 Bearer",
		fmt.Sprintf("GET /repos/octo-org/agent/actions/artifacts/%d/zip? 302 Bearer", wantID),
	}
	if !slices.Equal(reqs, wantReqs) {
		t.Errorf("API requests:\n%s\nwant:\n%s", strings.Join(reqs, "\n"), strings.Join(wantReqs, "\n"))
	}
	sreqs := st.Requests()
	if len(sreqs) != 1 || sreqs[0].Path != fmt.Sprintf("/blob/%d.zip", wantID) || sreqs[0].Authorization != "" {
		t.Errorf("storage requests %+v, want one GET of the blob without Authorization", sreqs)
	}
}

func TestFetchNoArtifact(t *testing.T) {
	e, st, fetch := setup(t)
	e.AddArtifact(ghemu.Artifact{ID: 7, Name: "agentgate-report", CreatedAt: t0, HeadBranch: "dev", Zip: zipOf(t, "report.json", "{}")})
	if _, err := fetch(); !errors.Is(err, ErrNotFound) {
		t.Errorf("err = %v, want ErrNotFound", err)
	}
	if n := len(st.Requests()); n != 0 {
		t.Errorf("storage got %d requests, want none", n)
	}
}

// A token without actions: read gets 403 on the listing: an error naming the status.
func TestFetchForbidden(t *testing.T) {
	e, _, fetch := setup(t)
	e.AddFault(ghemu.Fault{Path: "/repos/octo-org/agent/actions/artifacts", Status: 403, Message: "Resource not accessible by integration"})
	_, err := fetch()
	if err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("err = %v, want a 403", err)
	}
}

func TestReportFromZip(t *testing.T) {
	cases := []struct {
		name    string
		zip     []byte
		entry   string
		report  string
		wantErr string
	}{
		{"first match in zip order", zipOf(t, "notes.txt", "x", "a/report.json", "A", "b/report.json", "B"), "a/report.json", "A", ""},
		{"no report", zipOf(t, "notes.txt", "x"), "", "", "the zip holds no file named *report.json"},
		{"not a zip", []byte("PK but not"), "", "", "not a zip"},
	}
	for _, c := range cases {
		name, rep, err := ReportFromZip(c.zip)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s: err %v, want %q", c.name, err, c.wantErr)
			}
			continue
		}
		if err != nil || name != c.entry || string(rep) != c.report {
			t.Errorf("%s: %q %q %v, want %q %q", c.name, name, rep, err, c.entry, c.report)
		}
	}
}

// An entry that inflates past the limit is an error, whatever its header claims.
func TestReportFromZipBounded(t *testing.T) {
	old := MaxReportBytes
	MaxReportBytes = 1 << 10
	defer func() { MaxReportBytes = old }()
	_, _, err := ReportFromZip(zipOf(t, "report.json", strings.Repeat("0", 1<<11)))
	if err == nil || !strings.Contains(err.Error(), `entry "report.json" is over`) {
		t.Errorf("err = %v, want the entry over the limit", err)
	}
}
