package entrypoint

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/test/ghemu"
)

// A token inside a tool call's arguments, where the 60 characters of arguments that evidence
// quotes end in the middle of it: redacted before the cut, it is *** in every output; cut
// before the redaction, its first 19 characters reached the PR comment, the summary, stdout,
// the step outputs and the JSON, markdown, JUnit, SARIF and OTLP reports, where the whole
// token no longer was there to replace (issue 34, finding 4).
func TestTokenCutInEvidenceNeverLeaksAPrefix(t *testing.T) {
	e, api := emulator(t)
	ws := workspace(t)
	event := ghemu.WebhookExample(t, "pull_request", "opened", nil)
	pr := prNumber(t, event)

	// compact arguments: {"cmd":"…; export GH_TOKEN=<token>"}, the token from character 40
	head := `{"cmd":"`
	pad := strings.Repeat("x", 40-len(head)-len("; export GH_TOKEN="))
	args := `{"cmd": "` + pad + `; export GH_TOKEN=` + token + `"}`
	fail, err := os.ReadFile(filepath.Join("..", "fixtures", "fail", "traces.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(fail), "\n")
	const orig = `{"from": "BER", "to": "OSL", "date": "2026-12-12"}`
	if strings.Count(first, orig) < 3 {
		t.Fatalf("the fixture's loop changed: %.300s", first)
	}
	leaky := strings.ReplaceAll(first, orig, args)
	if err := os.WriteFile(filepath.Join(ws, "leak.jsonl"), []byte(leaky+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := step(t, ws, api, "pull_request", event, map[string]string{"traces": "leak.jsonl",
		"json": "r.json", "markdown": "r.md", "junit": "r.xml", "sarif": "r.sarif", "otel": "r.otel.jsonl"})
	if r.exit != 2 {
		t.Fatalf("exit %d, want 2 (FAIL)\n%s%s", r.exit, r.stdout, r.stderr)
	}
	comments := e.Comments(pr)
	if len(comments) != 1 {
		t.Fatalf("%d comments, want 1", len(comments))
	}
	rec, _ := json.Marshal(e.Requests())
	outs := map[string]string{
		"stdout":       strings.Replace(r.stdout, "::add-mask::"+token+"\n", "", 1),
		"stderr":       r.stderr,
		"summary":      r.summary,
		"step outputs": r.output,
		"comment":      comments[0].Body,
		"API requests": string(rec),
		"r.json":       "",
		"r.md":         "",
		"r.xml":        "",
		"r.sarif":      "",
		"r.otel.jsonl": "",
		"report-json":  "",
	}
	for _, name := range []string{"r.json", "r.md", "r.xml", "r.sarif", "r.otel.jsonl"} {
		b, err := os.ReadFile(filepath.Join(ws, name))
		if err != nil {
			t.Fatal(err)
		}
		outs[name] = string(b)
	}
	b, err := os.ReadFile(filepath.Join(ws, r.outputs["report-json"]))
	if err != nil {
		t.Fatal(err)
	}
	outs["report-json"] = string(b)
	prefix := token[:5] // "ghs_e": the kind, and one character of the secret
	for name, s := range outs {
		if strings.Contains(s, prefix) {
			i := strings.Index(s, prefix)
			t.Errorf("%s shows the start of the token: …%s…", name, s[max(0, i-80):min(len(s), i+40)])
		}
	}
	// the evidence is still there, with the token as ***
	for _, name := range []string{"stdout", "comment", "r.json", "r.xml", "r.sarif", "r.otel.jsonl"} {
		if !strings.Contains(outs[name], "GH_TOKEN=***") {
			t.Errorf("%s lost the evidence that quotes the arguments:\n%.3000s", name, outs[name])
		}
	}
}
