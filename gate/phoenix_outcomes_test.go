package gate_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate"
)

// TestPhoenixAnnotationsOutcomes: Phoenix's annotations exported apart from the spans are the
// outcomes input, each joined to its run: a span annotation by the run's root span (its
// other spans' annotations, an LLM span's hallucination, name no run and stay unmatched), a
// trace annotation by the trace id. The spans are testdata/formats/phoenix's two runs.
func TestPhoenixAnnotationsOutcomes(t *testing.T) {
	spans := "trace/testdata/formats/phoenix/spans.json"
	for _, c := range []struct {
		outcomes, scorer string
		values           map[string]float64
		unmatched        []string
	}{
		{"outcome/testdata/phoenix-span-annotations.json", "correctness",
			map[string]float64{"0af7651916cd43dd8448eb211c80319c": 1, "1bf7651916cd43dd8448eb211c80319d": 0}, nil},
		{"outcome/testdata/phoenix-span-annotations.json", "hallucination", nil, []string{"d7ad6b7169203333"}},
		{"outcome/testdata/phoenix-trace-annotations.json", "goal_met",
			map[string]float64{"0af7651916cd43dd8448eb211c80319c": 1, "1bf7651916cd43dd8448eb211c80319d": 0}, nil},
	} {
		o := gate.Options{Thresholds: gate.DefaultThresholds(), OutcomeScorer: c.scorer}
		res, err := gate.Run(context.Background(), gate.Inputs{Traces: []string{spans}, Outcomes: []string{c.outcomes}}, o)
		if err != nil {
			t.Fatal(err)
		}
		s := res.Outcomes
		if s == nil || s.Runs != 2 || s.Known != len(c.values) || !slices.Equal(s.UnmatchedIDs, c.unmatched) {
			t.Fatalf("%s %s: outcomes %+v", c.outcomes, c.scorer, s)
		}
		for _, tr := range res.Reliability.Traces {
			v, ok := c.values[tr.ID]
			if tr.Run.Known != ok || ok && tr.Run.Value != v {
				t.Errorf("%s %s: trace %s outcome %+v, want %v (%v)", c.outcomes, c.scorer, tr.ID, tr.Run, v, ok)
			}
		}
	}
	// without outcome-scorer, no outcome and one note naming the annotations
	res, err := gate.Run(context.Background(), gate.Inputs{Traces: []string{spans}, Outcomes: []string{"outcome/testdata/phoenix-span-annotations.json"}},
		gate.Options{Thresholds: gate.DefaultThresholds()})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool {
		return strings.HasPrefix(n, `outcomes: Phoenix annotations "correctness", "hallucination", "tone" not read as an outcome`)
	}) || res.Outcomes == nil || res.Outcomes.Known != 0 {
		t.Errorf("no scorer: notes %q, outcomes %+v", res.Notes, res.Outcomes)
	}
}
