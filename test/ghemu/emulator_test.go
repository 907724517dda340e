package ghemu

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const testToken = "ghp_emulatorTestToken000000000000000000"

// call sends one request to the emulator and returns status, headers and
// decoded JSON body (nil for an empty body).
func call(t *testing.T, method, url, auth, body string) (int, http.Header, any) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("%s %s: body is not JSON: %q", method, url, raw)
		}
	}
	return resp.StatusCode, resp.Header, v
}

func TestPaginationLinks(t *testing.T) {
	e, srv := Start(t, Config{Owner: "o", Repo: "r", Tokens: map[string]Identity{testToken: User("u", 1)}})
	for i := range 250 {
		e.Seed(5, User("someone", 2), fmt.Sprintf("comment %d", i+1))
	}
	auth := "Bearer " + testToken
	base := srv.URL + "/repos/o/r/issues/5/comments"
	link := func(page int) string {
		return fmt.Sprintf("<%s?page=%d&per_page=100>", base, page)
	}
	cases := []struct {
		query     string
		n         int
		first     string
		wantLinks string
	}{
		{"?per_page=100", 100, "comment 1", link(2) + `; rel="next", ` + link(3) + `; rel="last"`},
		{"?page=2&per_page=100", 100, "comment 101", link(1) + `; rel="prev", ` + link(3) + `; rel="next", ` + link(3) + `; rel="last", ` + link(1) + `; rel="first"`},
		{"?page=3&per_page=100", 50, "comment 201", link(2) + `; rel="prev", ` + link(1) + `; rel="first"`},
		{"?page=4&per_page=100", 0, "", link(3) + `; rel="prev", ` + link(1) + `; rel="first"`},
		{"", 30, "comment 1", fmt.Sprintf("<%s?page=2&per_page=30>; rel=\"next\", <%s?page=9&per_page=30>; rel=\"last\"", base, base)},
		{"?per_page=500", 100, "comment 1", link(2) + `; rel="next", ` + link(3) + `; rel="last"`},
	}
	for _, c := range cases {
		status, h, v := call(t, "GET", base+c.query, auth, "")
		if status != 200 {
			t.Fatalf("%s: status %d", c.query, status)
		}
		items := v.([]any)
		if len(items) != c.n {
			t.Errorf("%s: %d items, want %d", c.query, len(items), c.n)
		}
		if c.n > 0 {
			if got := items[0].(map[string]any)["body"]; got != c.first {
				t.Errorf("%s: first body %q, want %q", c.query, got, c.first)
			}
		}
		if got := h.Get("Link"); got != c.wantLinks {
			t.Errorf("%s: Link\n got %s\nwant %s", c.query, got, c.wantLinks)
		}
	}
}

func TestAuthAndIdentities(t *testing.T) {
	const botToken = "ghs_installationToken000000000000000000"
	e, srv := Start(t, Config{Owner: "o", Repo: "r", Tokens: map[string]Identity{
		testToken: User("octo", 7),
		botToken:  ActionsBot(),
	}})
	status, _, v := call(t, "GET", srv.URL+"/user", "", "")
	if status != 401 || v.(map[string]any)["message"] != "Requires authentication" {
		t.Errorf("no credentials: %d %v", status, v)
	}
	status, _, v = call(t, "GET", srv.URL+"/user", "Bearer wrong", "")
	want := map[string]any{"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest", "status": "401"}
	if status != 401 || fmt.Sprint(v) != fmt.Sprint(want) {
		t.Errorf("wrong token: %d %v, want 401 %v", status, v, want)
	}
	status, _, v = call(t, "GET", srv.URL+"/user", "token "+testToken, "")
	if status != 200 || v.(map[string]any)["login"] != "octo" || v.(map[string]any)["user_view_type"] != "private" {
		t.Errorf("user token, token scheme: %d %v", status, v)
	}
	status, _, v = call(t, "GET", srv.URL+"/user", "Bearer "+botToken, "")
	if status != 403 || v.(map[string]any)["message"] != "Resource not accessible by integration" {
		t.Errorf("installation token /user: %d %v", status, v)
	}
	status, _, v = call(t, "POST", srv.URL+"/repos/o/r/issues/3/comments", "Bearer "+botToken, `{"body":"from the bot"}`)
	if status != 201 {
		t.Fatalf("bot create: %d %v", status, v)
	}
	c := v.(map[string]any)
	user := c["user"].(map[string]any)
	if user["login"] != "github-actions[bot]" || user["type"] != "Bot" || c["performed_via_github_app"] == nil {
		t.Errorf("bot comment: user %v app %v", user, c["performed_via_github_app"])
	}
	status, _, _ = call(t, "GET", srv.URL+"/repos/o/other/issues/3/comments", "Bearer "+botToken, "")
	if status != 404 {
		t.Errorf("other repository: %d, want 404", status)
	}
	reqs := e.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d requests recorded, want 6", len(reqs))
	}
	for _, r := range reqs {
		if r.Header.Get("Authorization") != "" {
			t.Errorf("request %d: Authorization recorded", r.N)
		}
		if strings.Contains(fmt.Sprint(r), testToken) || strings.Contains(fmt.Sprint(r), botToken) {
			t.Errorf("request %d: token recorded", r.N)
		}
	}
	if got := []string{reqs[0].AuthScheme, reqs[2].AuthScheme, reqs[3].AuthScheme}; fmt.Sprint(got) != "[ token Bearer]" {
		t.Errorf("auth schemes %q", got)
	}
}

func TestWritesAndFaults(t *testing.T) {
	e, srv := Start(t, Config{Owner: "o", Repo: "r", PathPrefix: "/api/v3", Tokens: map[string]Identity{testToken: User("octo", 7)}})
	api := srv.URL + "/api/v3"
	auth := "Bearer " + testToken
	e.AddFault(Fault{Request: 1, Status: 502})
	e.AddFault(Fault{Method: "PATCH", Path: "/repos/o/r/issues/comments/*", Times: 1, Status: 429, Header: map[string]string{"Retry-After": "9"}})
	e.AddFault(Fault{Method: "DELETE", Times: 1, Status: 500, Commit: true})

	status, _, _ := call(t, "POST", api+"/repos/o/r/issues/1/comments", auth, `{"body":"one"}`)
	if status != 502 || len(e.AllComments()) != 0 {
		t.Fatalf("request 1: %d with %d comments, want 502 and nothing stored", status, len(e.AllComments()))
	}
	status, h, v := call(t, "POST", api+"/repos/o/r/issues/1/comments", auth, `{"body":"one"}`)
	if status != 201 {
		t.Fatalf("create: %d %v", status, v)
	}
	id := int64(v.(map[string]any)["id"].(float64))
	if want := fmt.Sprintf("%s/repos/o/r/issues/comments/%d", api, id); h.Get("Location") != want {
		t.Errorf("Location %q, want %q", h.Get("Location"), want)
	}
	cu := fmt.Sprintf("%s/repos/o/r/issues/comments/%d", api, id)
	status, h, _ = call(t, "PATCH", cu, auth, `{"body":"two"}`)
	if status != 429 || h.Get("Retry-After") != "9" {
		t.Fatalf("patch fault: %d Retry-After %q", status, h.Get("Retry-After"))
	}
	if status, _, v = call(t, "PATCH", cu, auth, `{"body":"two"}`); status != 200 || v.(map[string]any)["body"] != "two" {
		t.Fatalf("patch: %d %v", status, v)
	}
	long := strings.Repeat("é", MaxCommentChars+1)
	status, _, v = call(t, "PATCH", cu, auth, `{"body":"`+long+`"}`)
	if status != 422 || !strings.Contains(fmt.Sprint(v), "body is too long (maximum is 65536 characters)") {
		t.Fatalf("too long: %d %v", status, v)
	}
	// Commit: the delete happens, the answer is 500 anyway.
	if status, _, _ = call(t, "DELETE", cu, auth, ""); status != 500 || len(e.AllComments()) != 0 {
		t.Fatalf("delete with committed fault: %d, %d comments left", status, len(e.AllComments()))
	}
	if status, _, _ = call(t, "DELETE", cu, auth, ""); status != 404 {
		t.Fatalf("second delete: %d, want 404", status)
	}
	if status, _, _ = call(t, "GET", srv.URL+"/repos/o/r/issues/1/comments", auth, ""); status != 404 {
		t.Fatalf("path without the GHES prefix: %d, want 404", status)
	}
	var got []string
	for _, r := range e.Requests() {
		got = append(got, fmt.Sprintf("%d %s %s %d", r.N, r.Method, r.FullPath, r.Status))
	}
	want := []string{
		"1 POST /api/v3/repos/o/r/issues/1/comments 502",
		"2 POST /api/v3/repos/o/r/issues/1/comments 201",
		fmt.Sprintf("3 PATCH /api/v3/repos/o/r/issues/comments/%d 429", id),
		fmt.Sprintf("4 PATCH /api/v3/repos/o/r/issues/comments/%d 200", id),
		fmt.Sprintf("5 PATCH /api/v3/repos/o/r/issues/comments/%d 422", id),
		fmt.Sprintf("6 DELETE /api/v3/repos/o/r/issues/comments/%d 500", id),
		fmt.Sprintf("7 DELETE /api/v3/repos/o/r/issues/comments/%d 404", id),
		"8 GET /repos/o/r/issues/1/comments 404",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("requests:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestViolationsRecorded shows that the emulator notices a client request
// that breaks GitHub's description.
func TestViolationsRecorded(t *testing.T) {
	e := New(Config{Owner: "o", Repo: "r", Spec: TestSpec(t), Tokens: map[string]Identity{testToken: User("octo", 7)}})
	srv := httptestServer(t, e)
	call(t, "GET", srv+"/repos/o/r/issues/1/comments?per_page=lots&sort=created", "Bearer "+testToken, "")
	v := e.Violations()
	if len(v) != 1 {
		t.Fatalf("violations %q, want one", v)
	}
	for _, want := range []string{"#1 request GET /repos/o/r/issues/1/comments (issues/list-comments)", `query per_page: "lots" is not a number`, "query sort: not a documented parameter"} {
		if !strings.Contains(v[0], want) {
			t.Errorf("violation %q lacks %q", v[0], want)
		}
	}
}

func TestControlEndpointsAndState(t *testing.T) {
	e, srv := Start(t, Config{Owner: "o", Repo: "r", Tokens: map[string]Identity{testToken: User("octo", 7)}})
	call(t, "POST", srv.URL+"/repos/o/r/issues/2/comments", "Bearer "+testToken, `{"body":"x"}`)
	status, _, v := call(t, "GET", srv.URL+"/_emulator/requests", "", "")
	if status != 200 || len(v.([]any)) != 1 || v.([]any)[0].(map[string]any)["body"] != `{"body":"x"}` {
		t.Fatalf("requests endpoint: %d %v", status, v)
	}
	status, _, v = call(t, "GET", srv.URL+"/_emulator/comments", "", "")
	if status != 200 || len(v.([]any)) != 1 || v.([]any)[0].(map[string]any)["issue"] != float64(2) {
		t.Fatalf("comments endpoint: %d %v", status, v)
	}
	status, _, _ = call(t, "POST", srv.URL+"/_emulator/faults", "", `{"method":"GET","status":503,"times":1}`)
	if status != 204 {
		t.Fatalf("faults endpoint: %d", status)
	}
	if status, _, _ = call(t, "GET", srv.URL+"/repos/o/r/issues/2/comments", "Bearer "+testToken, ""); status != 503 {
		t.Fatalf("installed fault: %d, want 503", status)
	}
	if status, _, _ = call(t, "POST", srv.URL+"/_emulator/faults", "", `[{"status":200}]`); status != 400 {
		t.Fatalf("bad fault: %d, want 400", status)
	}
	st := e.Snapshot()
	e2 := New(Config{Owner: "o", Repo: "r"})
	e2.Restore(st)
	if got := e2.Comments(2); len(got) != 1 || got[0].Body != "x" {
		t.Fatalf("restored comments %v", got)
	}
	if c := e2.Seed(2, User("a", 1), "y"); c.ID != st.NextID || !c.CreatedAt.After(st.Comments[0].CreatedAt) {
		t.Fatalf("restored counters: id %d (want %d), created %v", c.ID, st.NextID, c.CreatedAt)
	}
}

// httptestServer serves e for the test without Start's check for
// violations, for tests that provoke violations on purpose.
func httptestServer(t *testing.T, e *Emulator) string {
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	return srv.URL
}

// GET pulls/{n} answers GitHub's documented example with the configured
// head, valid against the description (Start fails the test otherwise);
// an unknown number is 404.
func TestGetPull(t *testing.T) {
	e, srv := Start(t, Config{Owner: "o", Repo: "r", Tokens: map[string]Identity{testToken: ForkBot()},
		Pulls: map[int]Pull{7: {HeadSHA: "0123456789abcdef0123456789abcdef01234567", HeadRef: "fix"}}})
	auth := "Bearer " + testToken
	status, _, body := call(t, "GET", srv.URL+"/repos/o/r/pulls/7", auth, "")
	if status != 200 {
		t.Fatalf("status %d", status)
	}
	pr := body.(map[string]any)
	head := pr["head"].(map[string]any)
	if pr["number"] != float64(7) || pr["state"] != "open" || head["sha"] != "0123456789abcdef0123456789abcdef01234567" || head["ref"] != "fix" || head["label"] != "o:fix" ||
		pr["html_url"] != srv.URL+"/o/r/pull/7" {
		t.Errorf("pull: number %v state %v head %v %v %v html_url %v", pr["number"], pr["state"], head["sha"], head["ref"], head["label"], pr["html_url"])
	}
	if status, _, _ := call(t, "GET", srv.URL+"/repos/o/r/pulls/8", auth, ""); status != 404 {
		t.Errorf("unknown pull: status %d, want 404", status)
	}
	if status, _, _ := call(t, "GET", srv.URL+"/repos/o/r/pulls/7", "", ""); status != 401 {
		t.Errorf("no token: status %d, want 401", status)
	}
	var got []string
	for _, r := range e.Requests() {
		got = append(got, fmt.Sprintf("%s %s %d", r.Method, r.Path, r.Status))
	}
	if want := "GET /repos/o/r/pulls/7 200|GET /repos/o/r/pulls/8 404|GET /repos/o/r/pulls/7 401"; strings.Join(got, "|") != want {
		t.Errorf("requests %q, want %q", got, want)
	}
}

// An artifact download answers 302 to the storage host, as GitHub does; an
// unknown artifact 404, an expired one 410.
func TestArtifactRedirect(t *testing.T) {
	e, srv := Start(t, Config{Owner: "o", Repo: "r", Tokens: map[string]Identity{testToken: ActionsBot()}})
	e.SetStorage("https://storage.example")
	e.AddArtifact(Artifact{ID: 42, Name: "agentgate-report", Zip: []byte("PK")})
	e.AddArtifact(Artifact{ID: 44, Name: "agentgate-report", Expired: true})
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequest("GET", srv.URL+"/repos/o/r/actions/artifacts/42/zip", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 302 || resp.Header.Get("Location") != "https://storage.example/blob/42.zip?sig=emulated" {
		t.Errorf("status %d Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if status, _, _ := call(t, "GET", srv.URL+"/repos/o/r/actions/artifacts/43/zip", "Bearer "+testToken, ""); status != 404 {
		t.Errorf("unknown artifact: status %d, want 404", status)
	}
	if status, _, _ := call(t, "GET", srv.URL+"/repos/o/r/actions/artifacts/44/zip", "Bearer "+testToken, ""); status != 410 {
		t.Errorf("expired artifact: status %d, want 410", status)
	}
}

// TestCheckRuns: a create stores a completed check run and answers 201 with GitHub's
// check-run object; an update appends annotations; 51 annotations in one request, a missing
// head_sha and a token without checks: write are refused as GitHub refuses them, and the
// request breaking the description is noticed.
func TestCheckRuns(t *testing.T) {
	bot := ActionsBot()
	noChecks := bot
	noChecks.NoChecks = true
	e := New(Config{Owner: "o", Repo: "r", Spec: TestSpec(t), Tokens: map[string]Identity{testToken: bot, "ghs_nochecks": noChecks, "ghs_fork": ForkBot()}})
	srv := httptestServer(t, e)
	auth := "Bearer " + testToken
	ann := func(n int) string {
		var parts []string
		for i := range n {
			parts = append(parts, fmt.Sprintf(`{"path":"a.jsonl","start_line":%d,"end_line":%d,"annotation_level":"warning","message":"m"}`, i+1, i+1))
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	head := strings.Repeat("ab", 20)
	status, _, v := call(t, "POST", srv+"/repos/o/r/check-runs", auth,
		`{"name":"agentgate","head_sha":"`+head+`","status":"completed","conclusion":"neutral","output":{"title":"WARN","summary":"s","annotations":`+ann(50)+`}}`)
	if status != 201 {
		t.Fatalf("create: %d %v", status, v)
	}
	obj := v.(map[string]any)
	id := int64(obj["id"].(float64))
	if obj["conclusion"] != "neutral" || obj["status"] != "completed" || obj["head_sha"] != head || obj["output"].(map[string]any)["annotations_count"] != float64(50) {
		t.Errorf("created %v", obj)
	}
	if got := e.Violations(); len(got) != 0 {
		t.Fatalf("a valid create broke the description: %q", got)
	}
	path := fmt.Sprintf("%s/repos/o/r/check-runs/%d", srv, id)
	if status, _, v = call(t, "PATCH", path, auth, `{"output":{"title":"WARN","summary":"s","annotations":`+ann(20)+`}}`); status != 200 {
		t.Fatalf("update: %d %v", status, v)
	}
	if runs := e.CheckRuns(); len(runs) != 1 || len(runs[0].Annotations) != 70 || runs[0].Conclusion != "neutral" || runs[0].Annotations[69].StartLine != 20 {
		t.Fatalf("stored %+v", runs)
	}
	if len(e.Violations()) != 0 {
		t.Fatalf("violations %q", e.Violations())
	}
	for _, c := range []struct {
		auth, method, url, body string
		status                  int
	}{
		{auth, "PATCH", path, `{"output":{"title":"t","summary":"s","annotations":` + ann(51) + `}}`, 422},
		{auth, "POST", srv + "/repos/o/r/check-runs", `{"name":"x"}`, 422},
		{auth, "PATCH", srv + "/repos/o/r/check-runs/1", `{"output":{"title":"t","summary":"s"}}`, 404},
		{"Bearer ghs_nochecks", "POST", srv + "/repos/o/r/check-runs", `{"name":"x","head_sha":"` + head + `"}`, 403},
		{"Bearer ghs_fork", "PATCH", path, `{"output":{"title":"t","summary":"s"}}`, 403},
	} {
		if status, _, v := call(t, c.method, c.url, c.auth, c.body); status != c.status {
			t.Errorf("%s %s %s: %d %v, want %d", c.auth, c.method, c.url, status, v, c.status)
		}
	}
	v2 := e.Violations()
	if len(v2) != 2 || !strings.Contains(v2[0], "$.output.annotations: 51 items, above maxItems 50") || !strings.Contains(v2[1], `required property "head_sha" is missing`) {
		t.Errorf("violations %q: want the 51 annotations and the missing head_sha", v2)
	}
	if runs := e.CheckRuns(); len(runs) != 1 || len(runs[0].Annotations) != 70 {
		t.Errorf("a refused request changed the check run: %+v", runs)
	}
	status, _, v = call(t, "GET", srv+"/_emulator/check-runs", "", "")
	if runs, _ := v.([]any); status != 200 || len(runs) != 1 || runs[0].(map[string]any)["conclusion"] != "neutral" || len(runs[0].(map[string]any)["annotations"].([]any)) != 70 {
		t.Errorf("check-runs endpoint: %d %v", status, v)
	}
}
