package gate_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/internal/jsonreport"
	"github.com/agentgate/agentgate/internal/secrets"
	"github.com/agentgate/agentgate/test/gensuite"
)

// leakToken is the configured secret of these tests, as the entrypoint gives it (with its
// base64 forms) in Options.Secrets.
const leakToken = "ghs_16C7e42F292c6912E7710c838347Ae178B4a"

// leak is a credential an agent printed into a tool call's arguments: before it, after it.
type leak struct{ before, cred, after string }

// leaks are the credentials of the tests: the configured token, its basic-auth base64 (as
// `git config -l` shows what actions/checkout stores, but without the header's name, so
// that only the token's encodings find it), and one of each shape (made up).
func leaks() []leak {
	basic := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + leakToken))
	return []leak{
		{"export GH_TOKEN=", leakToken, ""},
		{"echo eC1hY2Nlc3MtdG9rZW46", strings.TrimPrefix(strings.TrimSuffix(basic, "Q=="), "eC1hY2Nlc3MtdG9rZW46"), "Q=="},
		{"export GH_TOKEN=", "ghp_1a2B3c4D5e6F7g8H9i0JkLmNoPqRsTuVwXyZ", ""},
		{"export GH_TOKEN=", "github_pat_11ABCDEFG0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789abcdefgh", ""},
		{"export OPENAI_API_KEY=", "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-T3BlbkFJAbCdEfGhIjKlMnOpQrStUvWxYz", ""},
		{"export ANTHROPIC_API_KEY=", "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKlMnOpQrStUvWxyzAA", ""},
		{"export AWS_ACCESS_KEY_ID=", "AKIAIOSFODNN7EXAMPLE", ""},
		{"AWS_SECRET_ACCESS_KEY=", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", ""},
		{"export SLACK_TOKEN=", "xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", ""},
		{"curl ", "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX", ""},
		{"export GOOGLE_API_KEY=", "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW", ""},
		{"cat k: ", "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA1b2c3d4e5f6g7h8i9j0\nk1l2m3n4o5p6q7r8s9t0==\n-----END RSA PRIVATE KEY-----", ""},
		{"-H 'Authorization: Bearer ", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc_DEF-123456", "'"},
	}
}

// leakyTraces writes one trace of the failing fixture's loop for each leak, its repeated
// call's arguments {"cmd": "<before><cred><after>; echo MARK"}, and returns the file.
func leakyTraces(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "fixtures", "fail", "traces.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(data), "\n")
	var texts []string
	for _, l := range leaks() {
		texts = append(texts, l.before+l.cred+l.after)
	}
	lines, err := gensuite.LeakyLoops(first, texts)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "leaks.jsonl")
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Traces are redacted as they are read, before anything is evaluated (docs/security.md, "The
// token"): the result that gate.Run gives, written as the JSON report with no redaction after
// it, quotes no credential and no part of one, and its evidence, 60 characters of the looping
// call's arguments, quotes them with *** in the credential's place and the text after it,
// which only a redaction before the cut leaves in the window. This holds each layer on its
// own: the read path of record files (the pipeline), that of whole files (the sequential
// reading, Inspect and OTLP), Options.Secrets with the token's base64 forms, and the shapes.
func TestTracesRedactedAsRead(t *testing.T) {
	path := leakyTraces(t)
	o := gate.Options{Thresholds: gate.DefaultThresholds(), Secrets: append([]string{leakToken}, secrets.Encodings(leakToken)...)}
	for name, sequential := range map[string]bool{"pipeline": false, "sequential": true} {
		res, err := gate.RunEither(context.Background(), gate.Inputs{Traces: []string{path}}, o, sequential)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := jsonreport.Write(&out, res); err != nil {
			t.Fatal(err)
		}
		report := out.String()
		for _, l := range leaks() {
			probe := l.cred[len(l.cred)/2 : len(l.cred)/2+8]
			if strings.Contains(report, probe) {
				i := strings.Index(report, probe)
				t.Errorf("%s: the report quotes %q of %.20s…: …%s…", name, probe, l.cred, report[max(0, i-60):min(len(report), i+20)])
			}
			quoted, _ := json.Marshal(l.before + "***" + l.after + "; echo MARK")
			if want := strings.Trim(string(quoted), `"`); !strings.Contains(report, want) {
				t.Errorf("%s: no evidence quotes %s", name, want)
			}
		}
	}
}
