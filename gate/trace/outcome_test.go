package trace

import (
	"testing"

	"github.com/agentgate/agentgate/internal/refdata"
)

func TestRecordOutcome(t *testing.T) {
	const msgs = `"messages": [{"role": "user", "content": "hi"}]`
	for _, c := range []struct {
		name, rec string
		want      Outcome
	}{
		{"none", `{` + msgs + `}`, Outcome{}},
		{"tau-bench reward", `{"task_id": 3, "reward": 0.0, "trial": 1, "traj": [{"role": "user", "content": "x"}]}`, Outcome{Known: true, Value: 0, Source: "reward"}},
		{"reward one", `{"reward": 1, ` + msgs + `}`, Outcome{Known: true, Value: 1, Source: "reward"}},
		{"score", `{"score": 0.75, ` + msgs + `}`, Outcome{Known: true, Value: 0.75, Source: "score"}},
		{"success true", `{"success": true, ` + msgs + `}`, Outcome{Known: true, Value: 1, IsBool: true, Source: "success"}},
		{"passed false", `{"passed": false, ` + msgs + `}`, Outcome{Known: true, Value: 0, IsBool: true, Source: "passed"}},
		{"resolved", `{"resolved": true, ` + msgs + `}`, Outcome{Known: true, Value: 1, IsBool: true, Source: "resolved"}},
		{"metadata", `{"metadata": {"trial": 2, "resolved": false}, ` + msgs + `}`, Outcome{Known: true, Value: 0, IsBool: true, Source: "metadata.resolved"}},
		{"top level wins", `{"metadata": {"success": false}, "passed": true, ` + msgs + `}`, Outcome{Known: true, Value: 1, IsBool: true, Source: "passed"}},
		{"reward before success", `{"success": false, "reward": 0.5, ` + msgs + `}`, Outcome{Known: true, Value: 0.5, Source: "reward"}},
		{"null is none", `{"reward": null, "metadata": {"score": 2e-1}, ` + msgs + `}`, Outcome{Known: true, Value: 0.2, Source: "metadata.score"}},
		{"metadata not an object", `{"metadata": "x", ` + msgs + `}`, Outcome{}},
		{"nested deeper is not read", `{"metadata": {"extra": {"reward": "high"}}, ` + msgs + `}`, Outcome{}},
	} {
		tr, err := decode(c.rec)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if tr.Outcome != c.want {
			t.Errorf("%s: outcome %+v, want %+v", c.name, tr.Outcome, c.want)
		}
	}
}

func TestRecordOutcomeErrors(t *testing.T) {
	const msgs = `"messages": [{"role": "user", "content": "hi"}]`
	for _, c := range []struct{ rec, want string }{
		{`{"reward": "yes", ` + msgs + `}`, `t.jsonl:7:12: field "reward": expected true, false or a number, found the string "yes"`},
		{`{` + msgs + `, "metadata": {"success": "true"}}`, `t.jsonl:7:75: field "metadata.success": expected true, false or a number, found the string "true"`},
		{`{"score": 1e999, ` + msgs + `}`, `t.jsonl:7:11: field "score": expected true, false or a finite number, found 1e999`},
		{`{"passed": [true], ` + msgs + `}`, `t.jsonl:7:12: field "passed": expected true, false or a number, found an array`},
		{`{"resolved": {"ok": 1}, ` + msgs + `}`, `t.jsonl:7:14: field "resolved": expected true, false or a number, found an object`},
		// an invalid value is an error even where a valid one comes after it
		{`{"reward": "1", "metadata": {"reward": 1}, ` + msgs + `}`, `t.jsonl:7:12: field "reward": expected true, false or a number, found the string "1"`},
	} {
		_, err := decode(c.rec)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.rec, err, c.want)
		}
	}
}

// TestTauBenchRewards reads the real tau-bench sample: every run carries its reward.
func TestTauBenchRewards(t *testing.T) {
	path := refdata.Path(t, "transcripts/tau-bench-airline-sample.json")
	n := 0
	err := Each(path, func(tr *Trace) error {
		n++
		if want := (Outcome{Known: true, Value: 0, Source: "reward"}); tr.Outcome != want {
			t.Errorf("%s: outcome %+v, want %+v", tr.ID, tr.Outcome, want)
		}
		return nil
	})
	if err != nil || n != 10 {
		t.Fatalf("read %d traces, err %v; want 10", n, err)
	}
}
