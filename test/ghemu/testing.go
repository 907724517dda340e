package ghemu

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// NodeModulesDir is where `npm ci` in test/github installs the npm test
// data, relative to the module root.
const NodeModulesDir = "test/github/node_modules"

// SpecFile is GitHub's OpenAPI description inside NodeModulesDir.
const SpecFile = "@octokit/openapi/generated/api.github.com.json"

// WebhookExamplesFile is the file of real webhook payloads inside
// NodeModulesDir.
const WebhookExamplesFile = "@octokit/webhooks-examples/api.github.com/index.json"

// FindNodeModules returns the absolute path of test/github/node_modules by
// walking up from the working directory to the module root (the directory
// holding go.mod), or an error saying what is missing.
func FindNodeModules() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			nm := filepath.Join(dir, filepath.FromSlash(NodeModulesDir))
			for _, f := range []string{SpecFile, WebhookExamplesFile} {
				if _, err := os.Stat(filepath.Join(nm, filepath.FromSlash(f))); err != nil {
					return "", fmt.Errorf("%s is not installed (run `npm ci` in test/github): %w", f, err)
				}
			}
			return nm, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// NodeModules returns test/github/node_modules for a test that needs the npm
// test data. Where it is absent the test is skipped with a message saying how
// to install it, except under CI (CI=true), where the test fails: CI must
// install the data, so a missing install is a broken pipeline, not a skip.
func NodeModules(t testing.TB) string {
	t.Helper()
	nm, err := FindNodeModules()
	if err != nil {
		if strings.EqualFold(os.Getenv("CI"), "true") {
			t.Fatalf("CI=true but the npm test data is missing: %v", err)
		}
		t.Skipf("skipping: needs GitHub's OpenAPI description and webhook examples from npm: %v", err)
	}
	return nm
}

// TestSpec loads GitHub's OpenAPI description for a test (see NodeModules
// for when it skips or fails).
func TestSpec(t testing.TB) *Spec {
	t.Helper()
	s, err := LoadSpec(filepath.Join(NodeModules(t), filepath.FromSlash(SpecFile)))
	if err != nil {
		t.Fatalf("load OpenAPI description: %v", err)
	}
	return s
}

// Start runs an emulator validating against GitHub's OpenAPI description
// (loaded with TestSpec unless cfg.Spec is set) on an httptest server closed
// at the end of the test. When the test ends, every departure from the
// description that any request or response showed fails the test, with
// its location and reason.
func Start(t testing.TB, cfg Config) (*Emulator, *httptest.Server) {
	t.Helper()
	if cfg.Spec == nil {
		cfg.Spec = TestSpec(t)
	}
	e := New(cfg)
	srv := httptest.NewServer(e)
	t.Cleanup(func() {
		srv.Close()
		for _, v := range e.Violations() {
			t.Errorf("OpenAPI: %s", v)
		}
	})
	return e, srv
}

// WebhookExample returns the raw payload of the first example of event whose action is action
// ("" for events without actions, like push) and which satisfies keep (nil keeps any), from
// @octokit/webhooks-examples: real payloads GitHub sent. It skips or fails like NodeModules.
func WebhookExample(t testing.TB, event, action string, keep func(map[string]any) bool) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(NodeModules(t), filepath.FromSlash(WebhookExamplesFile)))
	if err != nil {
		t.Fatal(err)
	}
	var all []struct {
		Name     string            `json:"name"`
		Examples []json.RawMessage `json:"examples"`
	}
	if err := json.Unmarshal(raw, &all); err != nil {
		t.Fatalf("decode webhook examples: %v", err)
	}
	for _, e := range all {
		if e.Name != event {
			continue
		}
		for _, ex := range e.Examples {
			var m map[string]any
			if err := json.Unmarshal(ex, &m); err != nil {
				t.Fatal(err)
			}
			if a, _ := m["action"].(string); a == action && (keep == nil || keep(m)) {
				return ex
			}
		}
	}
	t.Fatalf("no %s/%s example in @octokit/webhooks-examples", event, action)
	return nil
}

// IssueCommentOnPull returns GitHub's example issue_comment payload (a comment created on
// issue #1) with the comment moved onto pull request #1, as GitHub sends a comment on a pull
// request: issue.pull_request set. The examples hold comments on issues only.
func IssueCommentOnPull(t testing.TB) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(WebhookExample(t, "issue_comment", "created", nil), &m); err != nil {
		t.Fatal(err)
	}
	m["issue"].(map[string]any)["pull_request"] = map[string]any{"url": "https://api.github.com/repos/Codertocat/Hello-World/pulls/1"}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
