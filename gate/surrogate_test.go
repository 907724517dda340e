package gate_test

import (
	"context"
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/input"
)

// TestLoneSurrogateIDs: ids that differ only in a lone surrogate escape (\ud800 against
// \ud801) are different ids, as they are to Python, for traces, tasks and qids (merged and
// joined); encoding/json decodes both to U+FFFD, which made them "duplicates". The same lone
// surrogate twice is still a duplicate.
func TestLoneSurrogateIDs(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	base := gate.Options{Thresholds: gate.DefaultThresholds()}
	for _, sequential := range []bool{false, true} {
		traces := writeFile(t, dir, "traces.jsonl", `{"trace_id": "run-\ud800", "messages": []}`+"\n"+`{"trace_id": "run-\ud801", "messages": []}`+"\n")
		tasks := writeFile(t, dir, "tasks.jsonl", `{"id": "\udc00", "intent": "a", "understanding": "a", "action": "a"}`+"\n"+`{"id": "\udc01", "intent": "b", "understanding": "b", "action": "b"}`+"\n")
		res, err := gate.RunEither(ctx, gate.Inputs{Traces: []string{traces}, Tasks: []string{tasks}}, base, sequential)
		if err != nil {
			t.Fatalf("sequential %v: %v", sequential, err)
		}
		if got := [4]string{res.Reliability.Traces[0].ID, res.Reliability.Traces[1].ID, res.Coherence.Tasks[0].ID, res.Coherence.Tasks[1].ID}; got != [4]string{"run-\xed\xa0\x80", "run-\xed\xa0\x81", "\xed\xb0\x80", "\xed\xb0\x81"} {
			t.Errorf("ids %q", got)
		}

		dup := writeFile(t, dir, "dup.jsonl", `{"trace_id": "run-\ud800", "messages": []}`+"\n"+`{"trace_id": "run-\ud800", "messages": []}`+"\n")
		_, err = gate.RunEither(ctx, gate.Inputs{Traces: []string{dup}}, base, sequential)
		want := dup + `:2: duplicate trace id "run-\xed\xa0\x80": already used at ` + dup + `:1; every trace needs its own id`
		if err == nil || err.Error() != want || !input.IsInputError(err) {
			t.Errorf("err = %v\nwant %s", err, want)
		}
	}

	pairs := writeFile(t, dir, "pairs.jsonl", `{"qid": "q\ud800", "scholar": {"label": "VALID"}, "auditor": {"label": "VALID"}}`+"\n"+
		`{"qid": "q\ud801", "scholar": {"label": "VALID"}, "auditor": {"label": "REJECT"}}`+"\n")
	for _, sequential := range []bool{false, true} {
		res, err := gate.RunEither(ctx, gate.Inputs{Pairs: []string{pairs}}, base, sequential)
		if err != nil || res.Agreement.N != 2 {
			t.Fatalf("pairs, sequential %v: %v", sequential, err)
		}
	}
	s := writeFile(t, dir, "s.jsonl", `{"qid": "q\ud800", "label": "VALID"}`+"\n"+`{"qid": "q\ud801", "label": "VALID"}`+"\n")
	a := writeFile(t, dir, "a.jsonl", `{"qid": "q\ud801", "label": "REJECT"}`+"\n"+`{"qid": "q\ud800", "label": "VALID"}`+"\n")
	res, err := gate.Run(ctx, gate.Inputs{Scholar: []string{s}, Auditor: []string{a}}, base)
	if err != nil || res.Agreement.N != 2 || res.Agreement.PercentAgreement != 0.5 {
		t.Fatalf("joined: %v, %+v", err, res.Agreement)
	}
}
