package gate_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/reliability"
)

// costRuns writes a JSONL file of clean OpenAI transcripts, one a line, each with the tokens
// given as its record's usage.
func costRuns(t *testing.T, path, prefix string, tokens ...int64) string {
	t.Helper()
	var b strings.Builder
	for i, n := range tokens {
		fmt.Fprintf(&b, `{"id":"%s-%d","messages":[{"role":"user","content":"Summarise the repository."},`+
			`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":"{\"path\":\"README.md\"}"}}]},`+
			`{"role":"tool","tool_call_id":"c1","content":"# demo"},{"role":"assistant","content":"It is a demo."}],`+
			`"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`+"\n", prefix, i, n-n/10, n/10, n)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// The default profile compares each run's tokens with the median of its suite, once every run
// is read (docs/reference.md, "The token budget"), so a shard, which sees a part of the suite,
// compares with another median: here shard a flags a-4 (60000 against its median 12000, 5
// times: (5−3)/7) and the whole suite does not (60000 against 23000, 2.6 times), and shard c
// does not flag c-4 (90000 against 32000, 2.8 times) where the whole suite does (90000/23000,
// 3.91 times: (90000/23000 − 3)/7). Merging the shards' reports compares again over the
// whole suite and gives, byte for byte, what one run gives.
func TestRelativeCostShardsMergeAsOneRun(t *testing.T) {
	dir := t.TempDir()
	files := []string{
		costRuns(t, filepath.Join(dir, "a.jsonl"), "a", 10000, 11000, 12000, 13000, 60000),
		costRuns(t, filepath.Join(dir, "b.jsonl"), "b", 20000, 21000, 22000, 23000, 24000),
		costRuns(t, filepath.Join(dir, "c.jsonl"), "c", 30000, 31000, 32000, 33000, 90000),
	}
	whole := gateRun(t, files, nil, nil)
	costs := map[string]float64{}
	for _, tr := range whole.Reliability.Traces {
		costs[tr.ID] = tr.Signals[reliability.Cost]
	}
	want := (90000.0/23000 - 3) / 7
	for id, c := range costs {
		if w := map[bool]float64{true: want}[id == "c-4"]; math.Abs(c-w) > 1e-12 {
			t.Errorf("one run: %s cost %v, want %v", id, c, w)
		}
	}
	shards := gateShards(t, dir, files, func(i int, r *gate.Result) {
		if c := r.Reliability.Traces[4].Signals[reliability.Cost]; i == 0 && math.Abs(c-2.0/7) > 1e-12 {
			t.Errorf("shard a alone: a-4 cost %v, want 2/7", c)
		}
	})
	mergeAsOneRun(t, shards, whole)
	// the order of the files changes nothing either
	reversed := gateRun(t, []string{files[2], files[1], files[0]}, nil, nil)
	for _, tr := range reversed.Reliability.Traces {
		if tr.Signals[reliability.Cost] != costs[tr.ID] {
			t.Errorf("files reversed: %s cost %v, want %v", tr.ID, tr.Signals[reliability.Cost], costs[tr.ID])
		}
	}
}
