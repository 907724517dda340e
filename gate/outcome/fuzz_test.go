package outcome

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentgate/agentgate/gate/input"
)

// FuzzRead feeds any bytes to the outcomes reader, with and without outcome-scorer: it returns
// outcomes or an *input.Error, never panics.
func FuzzRead(f *testing.F) {
	for _, p := range []string{"testdata/outcomes.jsonl", "testdata/report.json", "testdata/run.json", "testdata/results.json", "testdata/output.swebench_eval.jsonl",
		"testdata/multi-swe-bench-results.json", "testdata/openhands-results.json", "testdata/langsmith-feedback.jsonl", "testdata/langfuse-scores.json",
		"testdata/phoenix-trace-annotations.json"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"id": 1, "success": true}`))
	f.Add([]byte(`{"resolved_ids": ["a"], "completed_ids": ["a", "b"]}`))
	f.Add([]byte(`{"id": "f", "run_id": "r", "trace_id": null, "key": "correctness", "score": null, "value": true}` + "\n" + `{"id":"s","trace_id":"t","name":"correctness","value":"1","data_type":"BOOLEAN"}`))
	f.Add([]byte(`[{"id":"a","name":"correctness","annotator_kind":"LLM","result":{"label":"incorrect","score":null},"span_id":"s1"},{"id":"b","name":"tone","annotator_kind":"HUMAN","result":{"score":0.5},"trace_id":"t1"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "o.jsonl")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, scorer := range []string{"", "correctness"} { // the platforms' feedback and scores: a key named, or none
			s, err := Read(context.Background(), []string{p}, scorer)
			if err != nil {
				if !input.IsInputError(err) {
					t.Fatalf("not an input error: %v", err)
				}
				return
			}
			if len(s.Unmatched()) != s.Len() {
				t.Fatalf("%d unmatched of %d, none taken", len(s.Unmatched()), s.Len())
			}
		}
	})
}
