package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/test/ghemu"
)

// serve runs the command with args until the test ends and returns the URL
// it printed on its first line.
func serve(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, args, pw, io.Discard)
		pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("run: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("ghemu did not stop within 10s of its context ending")
		}
	})
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(pr).ReadString('\n')
		lines <- line
		_, _ = io.Copy(io.Discard, pr)
	}()
	select {
	case line := <-lines:
		return strings.TrimSpace(line)
	case err := <-done:
		t.Fatalf("ghemu exited before printing its URL: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("ghemu printed no URL within 10s")
	}
	return ""
}

func get(t *testing.T, url, token string, into any) int {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if into != nil {
		if err := json.NewDecoder(resp.Body).Decode(into); err != nil {
			t.Fatalf("GET %s: %v", url, err)
		}
	}
	return resp.StatusCode
}

func TestServeInstallationTokenWithState(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	const token = "ghs_cmdTestToken"
	url := serve(t, "-listen", "127.0.0.1:0", "-repo", "acme/widgets", "-token", token, "-installation", "-state", state, "-prefix", "/api/v3")
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/api/v3") {
		t.Fatalf("first line %q: want http://127.0.0.1:PORT/api/v3", url)
	}
	if status := get(t, url+"/user", token, nil); status != http.StatusForbidden {
		t.Errorf("GET /user with -installation: %d, want 403", status)
	}
	req, _ := http.NewRequest("POST", url+"/repos/acme/widgets/issues/4/comments", strings.NewReader(`{"body":"report"}`))
	req.Header.Set("Authorization", "token "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %d", resp.StatusCode)
	}
	root := strings.TrimSuffix(url, "/api/v3")
	var comments []ghemu.Comment
	get(t, root+"/_emulator/comments", "", &comments)
	if len(comments) != 1 || comments[0].Author.Login != "github-actions[bot]" || comments[0].Body != "report" || comments[0].Issue != 4 {
		t.Fatalf("comments %+v", comments)
	}
	var reqs []ghemu.Request
	get(t, root+"/_emulator/requests", "", &reqs)
	if len(reqs) != 2 || reqs[1].Method != "POST" || reqs[1].Path != "/repos/acme/widgets/issues/4/comments" || reqs[1].Status != 201 {
		t.Fatalf("requests %+v", reqs)
	}
	raw, err := os.ReadFile(state)
	if err != nil {
		t.Fatalf("state file: %v", err)
	}
	var st ghemu.State
	if err := json.Unmarshal(raw, &st); err != nil || len(st.Comments) != 1 || st.Comments[0].Body != "report" {
		t.Fatalf("state file %s: %v", raw, err)
	}
	if strings.Contains(string(raw), token) {
		t.Error("state file holds the token")
	}

	// A second emulator started on the same state file sees the comment.
	url2 := serve(t, "-listen", "127.0.0.1:0", "-repo", "acme/widgets", "-token", token, "-state", state)
	var page []map[string]any
	if status := get(t, url2+"/repos/acme/widgets/issues/4/comments", token, &page); status != 200 || len(page) != 1 || page[0]["body"] != "report" {
		t.Fatalf("restarted emulator: %d %v", status, page)
	}
}

func TestFlagErrors(t *testing.T) {
	for _, args := range [][]string{
		{"-repo", "nobody", "-token", "x"},
		{"-repo", "a/b"},
		{"-repo", "a/b", "-token", "x", "-listen", "256.0.0.1:1"},
	} {
		if err := run(context.Background(), args, io.Discard, io.Discard); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}
