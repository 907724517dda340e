package artifact

import (
	"archive/zip"
	"bytes"
	"cmp"
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
		fmt.Sprintf("GET /repos/octo-org/agent/actions/runs/%d? 200 Bearer", 5000+wantID), // a push run of this repository
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

// sha is the made-up commit id of commit n.
func sha(n int) string { return fmt.Sprintf("%040x", 0xc0000+n) }

// history stores main's first-parent line c0 ← c1 ← … ← c<n-1>, a minute apart, and a side
// branch s0 ← s1 off c2, merged by c6 (parents c5, s1), whose commits are dated after c5 so
// that the listing interleaves them with main's, as `git log` does.
func history(e *ghemu.Emulator, n int) {
	for i := range n {
		c := ghemu.Commit{SHA: sha(i), Date: t0.Add(time.Duration(i) * time.Minute)}
		if i > 0 {
			c.Parents = []string{sha(i - 1)}
		}
		if i == 6 && n > 6 {
			c.Parents = append(c.Parents, sha(1001))
		}
		e.AddCommits(c)
	}
	e.AddCommits(ghemu.Commit{SHA: sha(1000), Parents: []string{sha(2)}, Date: t0.Add(5*time.Minute + 10*time.Second)},
		ghemu.Commit{SHA: sha(1001), Parents: []string{sha(1000)}, Date: t0.Add(5*time.Minute + 20*time.Second)})
}

// The baseline is the artifact of the merge base, else of its nearest first-parent ancestor
// with one, else the newest on the branch, said how; every run read again, and only push,
// schedule and workflow_dispatch runs of this repository on the branch count. The requests
// are asserted exactly.
func TestChooseByCommit(t *testing.T) {
	const arts = "GET /repos/octo-org/agent/actions/artifacts?name=agentgate-report&page=1&per_page=100 200"
	commitsPage := func(p int) string {
		return fmt.Sprintf("GET /repos/octo-org/agent/commits?page=%d&per_page=100&sha=%s 200", p, sha(4))
	}
	run := func(id int64) string { return fmt.Sprintf("GET /repos/octo-org/agent/actions/runs/%d? 200", id) }
	type art struct {
		commit int
		event  string
		fork   bool
		branch string
		exp    bool
	}
	cases := []struct {
		name      string
		mergeBase string
		arts      []art // ids 1, 2, …, created in this order a minute apart (the last is newest)
		wantID    int64
		wantHow   string
		wantReqs  []string
	}{
		{"the merge base's own", sha(4),
			[]art{{commit: 2}, {commit: 4}, {commit: 9}},
			2, "the merge base",
			[]string{arts, run(5002)}},
		{"the merge base's schedule run", sha(4),
			[]art{{commit: 4, event: "schedule"}, {commit: 9}},
			1, "the merge base",
			[]string{arts, run(5001)}},
		{"the nearest first-parent ancestor, past every kind of decoy", sha(4),
			[]art{
				{commit: 1},                               // an older ancestor
				{commit: 2, event: "workflow_dispatch"},   // the one
				{commit: 1001},                            // newer, an ancestor, but only through the merge: not first-parent
				{commit: 3, event: "pull_request_target"}, // nearer, the base repository's, head_branch main: not a baseline run
				{commit: 3, event: "workflow_run"},        // the same
				{commit: 3, fork: true},                   // a fork's run on its main
				{commit: 4, exp: true},                    // the merge base's, expired
				{commit: 4, branch: "release"},            // the merge base's commit, another branch's run
				{commit: 9},                               // the newest, after the merge base
			},
			2, "2 commits before the merge base",
			[]string{arts, commitsPage(1), run(5005), run(5004), run(5002)}},
		// c5 … c9 and the side branch's s0 and s1, merged by c6: GitHub's compare counts every commit
		{"none on the ancestry: the newest, after the merge base", sha(4),
			[]art{{commit: 5, event: "pull_request_target"}, {commit: 7}, {commit: 9}, {commit: 9, event: "pull_request_target"}},
			3, "the newest on main, 7 commits after the merge base (no artifact on the merge base's first-parent history, 5 commits looked at)",
			[]string{arts, commitsPage(1), run(5004), run(5003),
				fmt.Sprintf("GET /repos/octo-org/agent/compare/%s...%s?per_page=1 200", sha(4), sha(9))}},
		{"no merge base: the newest", "",
			[]art{{commit: 4}, {commit: 9}, {commit: 9, event: "pull_request"}},
			2, "the newest on main",
			[]string{arts, run(5003), run(5002)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, srv := ghemu.Start(t, ghemu.Config{Owner: owner, Repo: repo, Tokens: map[string]ghemu.Identity{token: ghemu.ActionsBot()}})
			history(e, 10)
			for i, a := range c.arts {
				id := int64(i + 1)
				e.AddArtifact(ghemu.Artifact{ID: id, Name: "agentgate-report", CreatedAt: t0.Add(time.Duration(i) * time.Hour), RunID: 5000 + id,
					HeadBranch: cmp.Or(a.branch, "main"), HeadSHA: sha(a.commit), Event: a.event, FromFork: a.fork, Expired: a.exp})
			}
			client, err := api.NewClient(token, srv.URL, nil)
			if err != nil {
				t.Fatal(err)
			}
			var logged []string
			q := Query{Owner: owner, Repo: repo, Name: "agentgate-report", Branch: "main", MergeBase: c.mergeBase,
				Logf: func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }}
			a, how, err := Choose(context.Background(), client, q)
			if err != nil {
				t.Fatal(err)
			}
			if a.GetID() != c.wantID || how != c.wantHow {
				t.Errorf("chose artifact %d, %q; want %d, %q", a.GetID(), how, c.wantID, c.wantHow)
			}
			var reqs []string
			for _, r := range e.Requests() {
				reqs = append(reqs, fmt.Sprintf("%s %s?%s %d", r.Method, r.Path, r.Query, r.Status))
			}
			if !slices.Equal(reqs, c.wantReqs) {
				t.Errorf("API requests:\n%s\nwant:\n%s\nlog:\n%s", strings.Join(reqs, "\n"), strings.Join(c.wantReqs, "\n"), strings.Join(logged, "\n"))
			}
		})
	}
}

// The walk is bounded: a merge base whose artifact lies 120 first-parent commits back is not
// walked to (MaxAncestors commits, in two pages of the listing), and is taken as the newest on
// the branch; candidates' runs are read at most maxRunLookups times, however many there are.
func TestChooseBounded(t *testing.T) {
	e, srv := ghemu.Start(t, ghemu.Config{Owner: owner, Repo: repo, Tokens: map[string]ghemu.Identity{token: ghemu.ActionsBot()}})
	for i := range 200 {
		c := ghemu.Commit{SHA: sha(i), Date: t0.Add(time.Duration(i) * time.Minute)}
		if i > 0 {
			c.Parents = []string{sha(i - 1)}
		}
		e.AddCommits(c)
	}
	e.AddArtifact(ghemu.Artifact{ID: 1, Name: "agentgate-report", CreatedAt: t0, RunID: 5001, HeadBranch: "main", HeadSHA: sha(30)})
	client, err := api.NewClient(token, srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	q := Query{Owner: owner, Repo: repo, Name: "agentgate-report", Branch: "main", MergeBase: sha(150)}
	a, how, err := Choose(context.Background(), client, q)
	if err != nil || a.GetID() != 1 || how != "the newest on main, 120 commits before the merge base (no artifact on the merge base's first-parent history, 100 commits looked at)" {
		t.Fatalf("chose %d, %q, %v", a.GetID(), how, err)
	}
	var pages int
	for _, r := range e.Requests() {
		if r.Path == "/repos/octo-org/agent/commits" {
			pages++
		}
	}
	if pages != 1 {
		t.Errorf("%d pages of commits read, want 1 (the 100 commits walked)", pages)
	}

	// 30 newer candidates, every one a pull_request_target run: 20 runs read, then the search
	// ends without reading the push run's, older than all of them.
	e.ResetRequests()
	for i := range 30 {
		id := int64(100 + i)
		e.AddArtifact(ghemu.Artifact{ID: id, Name: "agentgate-report", CreatedAt: t0.Add(time.Hour + time.Duration(i)*time.Minute), RunID: 6000 + id, HeadBranch: "main", HeadSHA: sha(199), Event: "pull_request_target"})
	}
	q.MergeBase = ""
	if a, how, err = Choose(context.Background(), client, q); !errors.Is(err, ErrNotFound) {
		t.Fatalf("chose %d, %q, %v; want ErrNotFound", a.GetID(), how, err)
	}
	runs := 0
	for _, r := range e.Requests() {
		if strings.HasPrefix(r.Path, "/repos/octo-org/agent/actions/runs/") {
			runs++
		}
	}
	if runs != 20 {
		t.Errorf("%d runs read, want 20", runs)
	}
}
