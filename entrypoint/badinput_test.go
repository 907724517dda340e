package entrypoint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadInput covers every kind of bad input of docs/design.md#bad-input through the CLI: exit code 3 and a
// message naming the file, the line (and column where known) and what was expected.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	okTrace := `{"trace_id": "ok", "messages": [{"role": "user", "content": "hi"}]}`
	cases := []struct {
		name string
		flag string
		file string
		want string // the whole stderr, with FILE for the path
	}{
		{"empty traces file", "--traces", file("empty.jsonl", ""),
			"agentgate: FILE: no records: the file is empty\n"},
		{"empty tasks file", "--tasks", file("empty.json", "\n"),
			"agentgate: FILE: no records: the file is empty\n"},
		{"non-UTF-8 bytes", "--traces", file("latin1.jsonl", okTrace+"\n"+`{"trace_id": "caf`+"\xe9"+`", "messages": []}`+"\n"),
			"agentgate: FILE:2:18: invalid UTF-8: input files must be UTF-8 text\n"},
		{"duplicate trace ids", "--traces", file("dup.jsonl", okTrace+"\n"+okTrace+"\n"),
			"agentgate: FILE:2: duplicate trace id \"ok\": already used at FILE:1; every trace needs its own id\n"},
		{"negative token count", "--traces", file("neg.jsonl", `{"trace_id": "n", "messages": [], "token_usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": -6}}`+"\n"),
			"agentgate: FILE:1:111: token_usage.total_tokens must be a non-negative integer, got -6\n"},
		{"NaN token count", "--traces", file("nan.jsonl", `{"trace_id": "n", "messages": [], "token_usage": {"total_tokens": NaN}}`+"\n"),
			"agentgate: FILE:1:67: invalid JSON: expected a value, found 'N'\n"},
		{"truncated record", "--traces", file("trunc.json", "[\n"+okTrace+",\n"+`{"trace_id": "x", "messages": [`),
			"agentgate: FILE:3:32: invalid JSON: unexpected end of input, expected a value\n"},
		{"no message list", "--traces", file("shape.jsonl", `{"trace_id": "x", "turns": []}`+"\n"),
			"agentgate: FILE:1:1: expected a message list under \"messages\", \"trajectory\", \"traj\", \"history\" or \"conversations\"; found keys: trace_id, turns\n"},
		{"unknown label", "--pairs", file("pairs.jsonl", `{"qid": "A1", "scholar": {"label": "VALID"}, "auditor": {"label": "valid"}}`+"\n"),
			"agentgate: FILE:1:"},
		{"task without action", "--tasks", file("tasks.jsonl", `{"id": "t", "intent": "a", "understanding": "b"}`+"\n"),
			"agentgate: FILE:1:"},
		{"missing file", "--traces", filepath.Join(dir, "nope.jsonl"),
			"agentgate: traces: FILE: no files match this pattern\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := cli(t, "", "gate", c.flag, c.file)
			want := strings.ReplaceAll(c.want, "FILE", c.file)
			if code != 3 {
				t.Errorf("exit %d, want 3; stdout %q", code, stdout)
			}
			if strings.HasSuffix(want, "\n") && stderr != want || !strings.HasPrefix(stderr, want) {
				t.Errorf("stderr\n got %q\nwant %q", stderr, want)
			}
		})
	}
}

// A trace with no messages and a line over 64 KiB are not errors: the first is judged (WARN
// under default, PASS under reference, as RS-1 scores it), the second is read whole.
func TestEdgeInputsThatAreNotErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty-trace.jsonl")
	long := `{"trace_id": "long", "messages": [{"role": "user", "content": "` + strings.Repeat("a", 200<<10) + `"}]}`
	if err := os.WriteFile(empty, []byte(`{"trace_id": "silent", "messages": []}`+"\n"+long+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := cli(t, "", "gate", "--traces", empty)
	if code != 0 || !strings.HasPrefix(stdout, "agentgate: WARN, check passing, with warnings\n") || !strings.Contains(stdout, "the trace has no messages") {
		t.Errorf("default: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = cli(t, "", "gate", "--traces", empty, "--profile", "reference")
	if code != 0 || !strings.HasPrefix(stdout, "agentgate: PASS, check passing\n") || !strings.Contains(stdout, "2 traces") {
		t.Errorf("reference: exit %d\n%s", code, stdout)
	}
}
