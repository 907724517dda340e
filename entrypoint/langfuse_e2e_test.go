package entrypoint

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLangfuseExperimentsCompare gates two Langfuse experiments on one dataset, end to end: the
// first is its project's blob-storage export (the folder: observations read with the scores and
// traces beside them, which the plan lists as side files), the baseline of the second, the
// API's traces, compared run by run on the dataset item (metadata.dataset_item_id) with the
// correctness score as the outcome. Item di-2 failed in the second (its tool observation is
// ERROR): 1 new failure. Each compared with itself changes nothing.
func TestLangfuseExperimentsCompare(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join("..", "gate", "trace", "testdata", "formats", "langfuse")
	a, b := filepath.Join(data, "blob"), filepath.Join(data, "experiment-b.jsonl")
	base, head, self := filepath.Join(dir, "base.json"), filepath.Join(dir, "head.json"), filepath.Join(dir, "self.json")
	code, stdout, stderr := cli(t, "", "gate", "--traces", a, "--outcome-scorer", "correctness", "--json", base)
	if code != 0 {
		t.Fatalf("base: exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "note: skipped 2 side files: cm0proj1/scores/2026-05-04T00-00-00.000Z.jsonl (Langfuse scores, read with the observations beside them), cm0proj1/traces/2026-05-04T00-00-00.000Z.jsonl (Langfuse traces, read with the observations beside them)") {
		t.Errorf("stdout lacks the side files note:\n%s", stdout)
	}
	code, stdout, stderr = cli(t, "", "gate", "--traces", b, "--outcome-scorer", "correctness", "--baseline", base, "--json", head)
	if code != 0 {
		t.Fatalf("head: exit %d, want 0 (one WARN, no gate breached)\n%s%s", code, stdout, stderr)
	}
	r := readComparison(t, head)
	m := r.Comparison.Matching
	if m.On != "task and trial" || m.BaseRuns != 3 || m.HeadRuns != 3 || m.Matched != 3 {
		t.Errorf("matching %+v, want 3 of 3 on both sides, on task and trial", m)
	}
	s := r.Comparison.Success
	if s.Matched != 3 || s.NewFailures != 1 || s.Fixed != 0 || !slices.Equal(s.NewFailureIDs, []string{"b-trace-2"}) {
		t.Errorf("success %+v, want 3 matched, 1 new failure (b-trace-2), 0 fixed", s)
	}
	for _, tr := range r.Reliability.Traces {
		if tr.Messages != 5 || tr.ToolCalls != 1 {
			t.Errorf("%s: %d messages, %d tool calls, want 5 and 1", tr.ID, tr.Messages, tr.ToolCalls)
		}
	}
	for _, c := range []struct{ traces, baseline string }{{a, base}, {b, head}} {
		if code, stdout, stderr := cli(t, "", "gate", "--traces", c.traces, "--outcome-scorer", "correctness", "--baseline", c.baseline, "--json", self); code != 0 {
			t.Fatalf("self: exit %d\n%s%s", code, stdout, stderr)
		}
		s := readComparison(t, self).Comparison.Success
		if s.Matched != 3 || s.NewFailures != 0 || s.Fixed != 0 || s.P != 1 || s.Direction != "same" {
			t.Errorf("%s compared with itself: %+v, want 3 matched, nothing changed, p 1, same", c.traces, s)
		}
	}
}

// TestLangfuseBlind: the blob export's traces table alone holds no generation: refused as read
// blind, exit 3, naming where turns were looked for.
func TestLangfuseBlind(t *testing.T) {
	p := filepath.Join("..", "gate", "trace", "testdata", "formats", "langfuse", "blob", "cm0proj1", "traces", "2026-05-04T00-00-00.000Z.jsonl")
	code, _, stderr := cli(t, "", "gate", "--traces", p)
	want := "agentgate: " + p + `: 3 of 3 traces read as Langfuse export hold no agent turn (no assistant message under GENERATION observations' input and output)`
	if code != 3 || !strings.HasPrefix(stderr, want) {
		t.Errorf("exit %d, stderr\n got %s\nwant %s…", code, stderr, want)
	}
}
