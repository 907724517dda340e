package entrypoint

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// A credential inside an Inspect attachment that tool calls' arguments name
// (attachment://<md5>, as inspect_ai/log/_condense.py writes the text once in the sample's
// "attachments") is redacted where the attachment is held, once, as the trace is read: the
// evidence quoting the looping call's arguments expanded says "GH_TOKEN=***; echo MARK", the
// text after the token in the 60 characters evidence keeps, in the JSON, markdown and SARIF
// reports and on the terminal, and no output holds any of the token. Without the
// attachments' redaction (the arguments keep the reference, not the text), the evidence
// quoted the token cut at the window's end.
func TestCredentialInAttachmentInNoOutput(t *testing.T) {
	const tok = "ghp_1a2B3c4D5e6F7g8H9i0JkLmNoPqRsTuVwXyZ"
	const key = "5d41402abc4b2a76b9719d911017c592"
	text := "export GH_TOKEN=" + tok + "; echo MARK\n" + strings.Repeat("x", 5000)
	var msgs []string
	msgs = append(msgs, `{"role": "user", "content": "deploy"}`)
	for k := range 4 {
		msgs = append(msgs,
			fmt.Sprintf(`{"role": "assistant", "content": "", "tool_calls": [{"id": "c%d", "function": "bash", "arguments": {"cmd": "attachment://%s"}}]}`, k, key),
			fmt.Sprintf(`{"role": "tool", "content": "denied", "tool_call_id": "c%d", "function": "bash", "error": {"type": "unknown", "message": "denied"}}`, k))
	}
	log := `{"version": 2, "status": "success", "eval": {"task": "deploy", "model": "openai/gpt-4o"}, "samples": [{"id": "s1", "epoch": 1, "messages": [` +
		strings.Join(msgs, ", ") + `], "attachments": {"` + key + `": "` + strings.ReplaceAll(text, "\n", `\n`) + `"}}]}`
	dir := t.TempDir()
	write(t, filepath.Join(dir, "log.json"), log)
	code, stdout, stderr := cli(t, "", "gate", "--traces", filepath.Join(dir, "log.json"),
		"--json", filepath.Join(dir, "r.json"), "--markdown", filepath.Join(dir, "r.md"), "--sarif", filepath.Join(dir, "r.sarif"))
	if code != 2 {
		t.Fatalf("exit %d, want 2\n%s%s", code, stdout, stderr)
	}
	outs := readOutputs(t, dir, "r.json", "r.md", "r.sarif")
	outs["stdout"], outs["stderr"] = stdout, stderr
	for name, s := range outs {
		if name != "stderr" && !strings.Contains(s, "GH_TOKEN=***; echo MARK") {
			t.Errorf("%s does not quote the arguments redacted:\n%.3000s", name, s)
		}
		for i := 0; i+8 <= len(tok); i += 4 {
			if strings.Contains(s, tok[i:i+8]) {
				t.Errorf("%s quotes %q of the token", name, tok[i:i+8])
			}
		}
	}
}
