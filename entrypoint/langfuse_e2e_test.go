package entrypoint

import (
	"path/filepath"
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
	data := filepath.Join("..", "gate", "trace", "testdata", "formats", "langfuse")
	stdout, _ := experimentsCompare(t, filepath.Join(data, "blob"), filepath.Join(data, "experiment-b.jsonl"), "b-trace-2")
	if !strings.Contains(stdout, "note: skipped 2 side files: cm0proj1/scores/2026-05-04T00-00-00.jsonl (Langfuse scores, read with the observations beside them), cm0proj1/traces/2026-05-04T00-00-00.jsonl (Langfuse traces, read with the observations beside them)") {
		t.Errorf("stdout lacks the side files note:\n%s", stdout)
	}
}

// TestLangfuseBlind: the blob export's traces table alone holds no generation: refused as read
// blind, exit 3, naming where turns were looked for.
func TestLangfuseBlind(t *testing.T) {
	p := filepath.Join("..", "gate", "trace", "testdata", "formats", "langfuse", "blob", "cm0proj1", "traces", "2026-05-04T00-00-00.jsonl")
	code, _, stderr := cli(t, "", "gate", "--traces", p)
	want := "agentgate: " + p + `: 3 of 3 traces read as Langfuse export hold no agent turn (no assistant message under GENERATION observations' input and output)`
	if code != 3 || !strings.HasPrefix(stderr, want) {
		t.Errorf("exit %d, stderr\n got %s\nwant %s…", code, stderr, want)
	}
}
