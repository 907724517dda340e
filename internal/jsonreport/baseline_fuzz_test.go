package jsonreport

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/agentgate/agentgate/gate/compare"
	"github.com/agentgate/agentgate/gate/input"
)

// FuzzReadBaseline: any bytes as a baseline give a baseline, an *compare.Unusable (another
// version: a note) or an *input.Error placed in the text (no report: an error), never a
// panic; a baseline read has its units sorted by id and a sha that is a commit or empty.
func FuzzReadBaseline(f *testing.F) {
	seed, err := os.ReadFile("../../report/testdata/fail.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte("{\"schema\": 3, \"profile\": \"default\", \"reliability\": {\"traces\": [\n  {\"id\":\"a\",\"file\":\"f\",\"line\":1,\"verdict\":\"WARN\",\"score\":0.5,\"signals\":{\"loop\":1},\"evidence\":[{\"signal\":\"loop\",\"text\":\"t\"}],\"messages\":3,\"tool_calls\":0}]}}"))
	f.Add(seed)
	f.Add([]byte(`{"schema": 2, "profile": "default", "source": {"sha": "1a2b3c4"}, "coherence": {"tasks": [{"id": "t", "rcs": 1}, {"id": "t", "rcs": 0}]}}`))
	f.Add([]byte(`{"schema": 2, "profile": "default", "agreement": {"n": 2, "percent_agreement": 1, "kappa": 0, "kappa_defined": false, "kappa_se": 0, "items": [{"qid": "q"}, {"qid": "q"}]}}`))
	f.Add([]byte(`{"schema": 2, "profile": "default", "reliability": {"traces": [{"id": "x", "verdict": "PASS", "score": 1, "task": 1, "trial": "0", "outcome": {"success": true}}, {"id": "x", "verdict": "FAIL", "score": 0}]}}`))
	f.Add([]byte(`{"schema": 2, "profile": "default", "token_budget": 200000, "reliability": {"traces": []}}`))
	f.Add([]byte(`{"schema": 2, "profile": "default", "token_budget": "many"}`))
	f.Add([]byte(`{"schema": 2, "profile": "default", "history": [{"sha": "abc1234", "ref": "refs/heads/main", "runs": 4, "fail": 1, "known": 4, "success_rate": 0.5, "tokens_per_success": 1200, "pass_k": [0.5, 0.25], "trial_tasks": 2, "flaky": 1, "flaky_tasks": ["a"]}, {"sha": "", "ref": "", "runs": 0, "fail": 0}]}`))
	f.Add([]byte(`{"schema": 2, "profile": "default", "history": [{"sha": "##[error]", "runs": 1, "fail": 2, "flaky_tasks": ["b", "a"], "pass_k": [2]}]}`))
	f.Add([]byte(`{"schema": 2, "profile": "default", "history": {}, "comparison": {"success": {"matched": 10, "new_failures": 11, "fixed": 0, "power": {"threshold": 0}}}}`))
	f.Add([]byte(`{"schema": 2, "profile": "default", "comparison": {"reliability": {"matched": 100, "new_failures": 9, "fixed": 3, "power": {"threshold": 0.025}}, "reliability": {}}}`))
	f.Add([]byte(`{"verdict": "PASS", "gates": []}`))
	f.Add([]byte(`{"schema": 1e999}`))
	f.Add([]byte("{\"id\": \"t1\", \"messages\": []}\n{\"id\": \"t2\"}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := ReadBaseline(bytes.NewReader(data), "b.json")
		if err != nil {
			var u *compare.Unusable
			var ie *input.Error
			switch {
			case errors.As(err, &u):
			case errors.As(err, &ie):
				if ie.File != "b.json" || ie.Line < 1 || ie.Col < 1 {
					t.Fatalf("error not placed: %v", err)
				}
			default:
				t.Fatalf("%T %v", err, err)
			}
			return
		}
		if b.Source.SHA != "" && !validSHA(b.Source.SHA) {
			t.Fatalf("sha %q kept", b.Source.SHA)
		}
		// A history read is bounded and valid: what a report copies forward (docs/design.md#planning-and-trend).
		if len(b.History) > compare.MaxHistory {
			t.Fatalf("%d history points", len(b.History))
		}
		if err := checkHistory("b.json", b.History); err != nil {
			t.Fatalf("history read but invalid: %v", err)
		}
		for _, r := range b.Recorded {
			if r.Matched < 0 || r.NewFailures+r.Fixed > r.Matched || r.Threshold < 0 || r.Threshold >= 1 {
				t.Fatalf("recorded comparison %+v", r)
			}
		}
		if r := b.Reliability; r != nil {
			for i := 1; i < len(r.Traces); i++ {
				if r.Traces[i-1].ID >= r.Traces[i].ID {
					t.Fatalf("traces not sorted or duplicate: %q %q", r.Traces[i-1].ID, r.Traces[i].ID)
				}
			}
		}
	})
}
