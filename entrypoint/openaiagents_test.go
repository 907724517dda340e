package entrypoint

import (
	"os"
	"path/filepath"
	"testing"
)

// TestOpenAIAgentsResponseSpans: runs of the OpenAI Agents SDK's default model export only
// response spans, which hold no message. A file of them is refused as read blind, naming the
// response spans (exit 3); one such run among others is read with a note saying why
// (docs/trace-formats.md, "OpenAI Agents SDK traces").
func TestOpenAIAgentsResponseSpans(t *testing.T) {
	testdata := filepath.Join("..", "gate", "trace", "testdata", "formats", "openai-agents")
	responses := filepath.Join(testdata, "responses.jsonl")
	code, _, stderr := cli(t, "", "gate", "--traces", responses)
	want := "agentgate: " + responses + ": 1 of 1 traces read as OpenAI Agents SDK traces hold no agent turn (no assistant message under " +
		"generation spans' span_data.input and span_data.output, or response spans' span_data.input and span_data.response (export() leaves these out: the trace processor must add them)): " +
		"the format was read blind, and agentgate refuses to judge runs it could not see (docs/trace-formats.md, \"Blind reads and crashes\")\n"
	if code != 3 || stderr != want {
		t.Errorf("exit %d, stderr\n got %q\nwant %q", code, stderr, want)
	}

	dir := t.TempDir()
	for _, name := range []string{"chat.jsonl", "responses.jsonl"} {
		data, err := os.ReadFile(filepath.Join(testdata, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, stdout, r := gateFolder(t, "--traces", dir)
	checkCounts(t, r, "trace_4b1f0c2d9e8a47f6b3c5d7e9f1a2b3c4 5 1 -", "trace_8c2e1d3f5a7b49c0d2e4f6a8b0c1d2e3 9 2 -", "trace_0d1c2b3a49586776a5b4c3d2e1f0a9b8 0 0 -")
	checkNotes(t, r, stdout,
		"1 trace: the model calls are response spans, which hold only a response_id (the SDK's OpenAI Responses model: its export leaves the messages out): "+
			"no message of the run was exported, so its turns and tool calls were not read (docs/trace-formats.md, \"OpenAI Agents SDK traces\")",
		"1 trace has no assistant message: the agent's turns were not found in this format")
}
