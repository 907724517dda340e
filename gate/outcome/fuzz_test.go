package outcome

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentgate/agentgate/gate/input"
)

// FuzzRead feeds any bytes to the outcomes reader: it returns outcomes or an *input.Error,
// never panics.
func FuzzRead(f *testing.F) {
	for _, p := range []string{"testdata/outcomes.jsonl", "testdata/report.json", "testdata/run.json", "testdata/results.json", "testdata/output.swebench_eval.jsonl",
		"testdata/multi-swe-bench-results.json", "testdata/openhands-results.json"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"id": 1, "success": true}`))
	f.Add([]byte(`{"resolved_ids": ["a"], "completed_ids": ["a", "b"]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "o.jsonl")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Read(context.Background(), []string{p})
		if err != nil {
			if !input.IsInputError(err) {
				t.Fatalf("not an input error: %v", err)
			}
			return
		}
		if len(s.Unmatched()) != s.Len() {
			t.Fatalf("%d unmatched of %d, none taken", len(s.Unmatched()), s.Len())
		}
	})
}
