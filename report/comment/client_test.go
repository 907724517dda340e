package comment_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/report/comment"
	"github.com/agentgate/agentgate/test/ghemu"
)

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
		client, err := comment.NewClient(botToken, srv.URL+prefix, nil)
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
		client, err := comment.NewClient(botToken, c.apiURL, &http.Client{Transport: rec})
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
