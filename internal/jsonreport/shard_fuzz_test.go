package jsonreport

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/input"
)

// FuzzReadShard: any bytes as a shard's report give a report or an *input.Error, never a
// panic; a report that reads merges, alone, without a panic.
func FuzzReadShard(f *testing.F) {
	seed, err := os.ReadFile("../../report/testdata/fail.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`{"schema": 3, "profile": "default", "agreement": {"items": [{"qid": "1"}], "files": [{"file": "a", "items": 2}]}}`))
	f.Add([]byte(`{"schema": 3, "profile": "default", "reliability": {"traces": [{"id": "x", "verdict": "PASS", "task": "t", "trial": 0}]}}`))
	f.Add([]byte(`{"schema": 3, "profile": "default", "reliability": {"traces": [{"id": "x", "verdict": "PASS", "outcome": {"value": 0.5, "success": false, "tokens": 7}}, {"id": "y", "verdict": "FAIL"}]}, "outcomes": {"unmatched": 1, "unmatched_ids": ["z", "y"]}}`))
	f.Add([]byte(`{"schema": 3, "profile": "default", "token_budget": 200000, "reliability": {"traces": [{"id": "x", "verdict": "PASS"}]}}`))
	f.Add([]byte(`{"schema": 3, "profile": "default", "token_budget": -1}`))
	f.Add([]byte(`{"schema": 1}`))
	f.Add([]byte(`{"schema": 2, "profile": "default", "reliability": {"traces": []}}`))
	f.Add([]byte("{\"schema\": 3, \"profile\": \"default\", \"reliability\": {\"traces\": [\n  {\"id\":\"a\",\"file\":\"f\",\"line\":1,\"verdict\":\"WARN\",\"score\":0.5,\"signals\":{\"loop\":1},\"evidence\":[{\"signal\":\"loop\",\"text\":\"t\"}],\"messages\":3,\"tool_calls\":0}]}}"))
	f.Add([]byte(`{"schema": 3, "profile": "default", "history": [{"sha": "abc1234", "ref": "r", "runs": 1, "fail": 0, "known": 1, "success_rate": 1, "tokens_per_success": null, "pass_k": [1], "trial_tasks": 1, "flaky": 0, "flaky_tasks": []}]}`))
	f.Add([]byte(`{"schema": 3, "profile": "default", "history": [{"sha": "zz", "runs": -1, "fail": 0, "pass_k": null, "flaky_tasks": null}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := decodeShard("shard.json", data)
		if err != nil {
			var ie *input.Error
			if !errors.As(err, &ie) {
				t.Fatalf("%T %v, want an *input.Error", err, err)
			}
			return
		}
		m, err := gate.Merge(context.Background(), []gate.Shard{{Name: "shard.json", Report: r}}, gate.Inputs{}, gate.Options{Profile: r.Profile})
		if err != nil && !errors.As(err, new(*input.Error)) && !gate.IsUsage(err) {
			t.Fatalf("merge: %T %v", err, err)
		}
		// A merged report's history is the shard's, its own point replaced by the merge's.
		if err == nil && len(r.History) > 0 && len(m.History) != len(r.History) {
			t.Fatalf("merged history of %d points from a shard's %d", len(m.History), len(r.History))
		}
	})
}
