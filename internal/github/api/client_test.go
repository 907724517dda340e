package api_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-github/v66/github"

	"github.com/agentgate/agentgate/internal/github/api"
	"github.com/agentgate/agentgate/test/ghemu"
)

// botToken is the secret of these tests: it may reach only the API origin.
const botToken = "ghs_installTokenSecret0123456789abcdefAB"

// The token goes to the API origin and not across a 302 to another host: neither when the
// http.Client follows the redirect, nor when the caller fetches go-github's DownloadArtifact URL.
func TestTokenNeverLeavesTheAPIOrigin(t *testing.T) {
	for _, prefix := range []string{"", "/api/v3"} {
		emu, srv := ghemu.Start(t, ghemu.Config{
			Owner: "acme", Repo: "agent", PathPrefix: prefix,
			Tokens: map[string]ghemu.Identity{botToken: ghemu.ActionsBot()},
		})
		// the storage host is another origin (localhost, another port), which must never see
		// the token
		st, blob := ghemu.StartStorage(t, emu)
		emu.AddArtifact(ghemu.Artifact{ID: 42, Name: "agentgate-report", Zip: []byte("PK-zip-bytes")})
		client, err := api.NewClient(botToken, srv.URL+prefix, nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()

		// 1. The http.Client follows the 302 itself.
		resp, err := client.Client().Get(srv.URL + prefix + "/repos/acme/agent/actions/artifacts/42/zip")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(body) != "PK-zip-bytes" {
			t.Fatalf("followed download: %d %q", resp.StatusCode, body)
		}

		// 2. go-github's DownloadArtifact returns the Location; the caller fetches it with the
		// same client.
		loc, _, err := client.Actions.DownloadArtifact(ctx, "acme", "agent", 42, 0)
		if err != nil {
			t.Fatal(err)
		}
		resp, err = client.Client().Get(loc.String())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()

		// 3. A request made with a stale Authorization header for another host loses it.
		req, _ := http.NewRequest("GET", blob.URL+"/blob/direct", nil)
		req.Header.Set("Authorization", "Bearer "+botToken)
		resp, err = client.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()

		var seen []string
		for _, r := range st.Requests() {
			seen = append(seen, r.Path+" auth="+r.Authorization)
		}
		if got, want := strings.Join(seen, "|"), "/blob/42.zip auth=|/blob/42.zip auth=|/blob/direct auth="; got != want {
			t.Errorf("prefix %q: storage saw %q, want %q", prefix, got, want)
		}
		var api []string
		for _, r := range emu.Requests() {
			api = append(api, r.Method+" "+r.Path+" "+r.AuthScheme)
		}
		if got, want := strings.Join(api, "|"), "GET /repos/acme/agent/actions/artifacts/42/zip Bearer|GET /repos/acme/agent/actions/artifacts/42/zip Bearer"; got != want {
			t.Errorf("prefix %q: the API saw %q, want %q", prefix, got, want)
		}
	}
}

type recordTransport struct{ seen []string }

func (r *recordTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r.seen = append(r.seen, req.URL.String()+" auth="+req.Header.Get("Authorization"))
	return &http.Response{StatusCode: 204, Body: http.NoBody, Header: http.Header{}, Request: req}, nil
}

// The origin is scheme, host and port: the default port written or not and the host's case do
// not matter; another scheme, host or port does.
func TestTokenOrigin(t *testing.T) {
	for _, c := range []struct {
		apiURL string
		urls   []string
		want   []string
	}{
		{"", []string{"https://api.github.com/user", "https://API.github.com:443/user", "http://api.github.com/user", "https://api.github.com:8443/user", "https://objects.githubusercontent.com/a.zip"},
			[]string{"Bearer " + botToken, "Bearer " + botToken, "", "", ""}},
		{"https://ghe.example/api/v3", []string{"https://ghe.example/api/v3/user", "https://ghe.example:443/api/uploads/x", "https://ghe.example.evil/api/v3/user", "http://ghe.example/api/v3/user"},
			[]string{"Bearer " + botToken, "Bearer " + botToken, "", ""}},
	} {
		rec := &recordTransport{}
		client, err := api.NewClient(botToken, c.apiURL, &http.Client{Transport: rec})
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range c.urls {
			resp, err := client.Client().Get(u)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		}
		for i, u := range c.urls {
			if want := u + " auth=" + c.want[i]; rec.seen[i] != want {
				t.Errorf("API %q: got %q, want %q", c.apiURL, rec.seen[i], want)
			}
		}
	}
}

func TestNewClient(t *testing.T) {
	const secret = "ghp_bad token with spaces"
	if _, err := api.NewClient("", "", nil); err != api.ErrNoToken {
		t.Errorf("empty token: %v", err)
	}
	_, err := api.NewClient(secret, "", nil)
	if err == nil || strings.Contains(err.Error(), "bad token") {
		t.Errorf("token with spaces: %v", err)
	}
	c, err := api.NewClient("t", "", nil)
	if err != nil || c.BaseURL.String() != "https://api.github.com/" {
		t.Errorf("default: %v %v", c.BaseURL, err)
	}
	c, err = api.NewClient("t", "https://api.github.com", http.DefaultClient)
	if err != nil || c.BaseURL.String() != "https://api.github.com/" {
		t.Errorf("github.com: %v %v", c.BaseURL, err)
	}
	c, err = api.NewClient("t", "https://ghe.example.com/api/v3", nil)
	if err != nil || c.BaseURL.String() != "https://ghe.example.com/api/v3/" || c.UploadURL.String() != "https://ghe.example.com/api/uploads/" {
		t.Errorf("GHES: %v %v %v", c.BaseURL, c.UploadURL, err)
	}
	for _, bad := range []string{"ftp://x/api/v3", "not a url", "https://user:pw@ghe.example.com/api/v3", "https://ghe.example.com/api/v3?x=1"} {
		_, err := api.NewClient("t", bad, nil)
		if err == nil || strings.Contains(err.Error(), "pw@") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// Every answer is read within MaxResponseBytes: one of exactly the bound is read whole, one
// byte more fails with ErrTooLarge after the bound (streamed, no Content-Length), and one
// whose Content-Length is over the bound fails without a byte read.
func TestAnswersReadWithinTheBound(t *testing.T) {
	defer func(old int64) { api.MaxResponseBytes = old }(api.MaxResponseBytes)
	api.MaxResponseBytes = 1 << 20
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		body := `{"login":"` + strings.Repeat("a", n-len(`{"login":""}`)) + `"}`
		if r.URL.Query().Get("length") != "" {
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		} else {
			w.(http.Flusher).Flush() // chunked: no Content-Length
		}
		_, _ = io.WriteString(w, body)
	}))
	defer srv.Close()
	client, err := api.NewClient(botToken, srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		query string
		want  string // the login, or the error
	}{
		{"n=1048576", strings.Repeat("a", 1<<20-12)},
		{"n=1048576&length=1", strings.Repeat("a", 1<<20-12)},
		{"n=1048577", "GET /user: the answer is longer than 1 MiB, the most agentgate reads of one API answer"},
		{"n=1048577&length=1", "GET /user: the answer is longer than 1 MiB, the most agentgate reads of one API answer"},
	} {
		req, _ := client.NewRequest("GET", "user?"+c.query, nil)
		var u github.User
		_, err := client.Do(context.Background(), req, &u)
		got := u.GetLogin()
		if err != nil {
			got = err.Error()
			if !errors.Is(err, api.ErrTooLarge) {
				t.Errorf("%s: %v is not ErrTooLarge", c.query, err)
			}
		}
		if got != c.want {
			t.Errorf("%s: got %q, want %q", c.query, got, c.want)
		}
	}
}
