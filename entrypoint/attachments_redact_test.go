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

// The gate reads an Inspect log whose references stand for up to 1 GiB of text, and refuses
// one whose references pass it with exit code 3 and an error at the reference that does:
// 1,023 calls naming a 1 MiB attachment (1 MiB and 2 bytes written as a JSON string) stand for
// 1,023 MiB and 2,046 bytes; the 1,024th passes 1 GiB (docs/security.md, "Attachments").
func TestAttachmentReadingBudgetExit(t *testing.T) {
	const key = "7215ee9c7d9dc229d2921a40e899ec5f"
	logOf := func(calls int) string {
		msgs := make([]string, calls)
		for k := range msgs {
			msgs[k] = fmt.Sprintf(`{"role": "assistant", "content": "", "tool_calls": [{"id": "c%d", "function": "write", "arguments": {"code": "attachment://%s"}}]}`, k, key)
		}
		return `{"version": 2, "status": "success", "eval": {"task": "t", "model": "m"}, "samples": [` + "\n" + `{"id": "s1", "epoch": 1, "messages": [` +
			strings.Join(msgs, ", ") + `], "attachments": {"` + key + `": "` + strings.Repeat("A", 1<<20) + `"}}]}`
	}
	dir := t.TempDir()
	for _, c := range []struct {
		calls int
		code  int
		err   string
	}{
		{1023, 2, ""}, // read: its loop of identical calls fails the gate
		{1024, 3, ":2:1: samples[0]: messages[1023]: tool_calls[0].arguments: the input's attachment:// references stand for more than 1 GiB of text, the most agentgate reads through the references of one input\n"},
	} {
		path := filepath.Join(dir, fmt.Sprintf("log%d.json", c.calls))
		write(t, path, logOf(c.calls))
		code, stdout, stderr := cli(t, "", "gate", "--traces", path)
		if code != c.code || (c.err != "" && stderr != "agentgate: "+path+c.err) || (c.err == "" && !strings.Contains(stdout, "Reliability: 1 trace")) {
			t.Errorf("%d calls: exit %d, want %d\nstdout %.500s\nstderr %s", c.calls, code, c.code, stdout, stderr)
		}
	}
}
