package gate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/outcome"
	"github.com/agentgate/agentgate/internal/jsonreport"
)

// outcomeSuite writes four clean runs with outcomes in each of the record shapes, and an
// outcomes file that overrides one of them and names two runs that are not there.
func outcomeSuite(t *testing.T) (traces, outcomes string) {
	t.Helper()
	dir := t.TempDir()
	msgs := `"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]`
	traces = writeFile(t, dir, "traces.jsonl", strings.Join([]string{
		`{"trace_id": "a", "reward": 1.0, "token_usage": {"total_tokens": 300}, ` + msgs + `}`,
		`{"trace_id": "b", "reward": 0.5, "token_usage": {"total_tokens": 100}, ` + msgs + `}`,
		`{"trace_id": "c", "metadata": {"resolved": true}, "token_usage": {"total_tokens": 200}, ` + msgs + `}`,
		`{"trace_id": "d", "token_usage": {"total_tokens": 50}, ` + msgs + `}`,
	}, "\n")+"\n")
	outcomes = writeFile(t, dir, "outcomes.jsonl", `{"id": "c", "success": false}`+"\n"+`{"id": "zz", "reward": 1}`+"\n"+`{"id": "yy", "reward": 0}`+"\n")
	return traces, outcomes
}

func TestOutcomes(t *testing.T) {
	traces, outcomes := outcomeSuite(t)
	o := gate.Options{Thresholds: gate.DefaultThresholds()}
	res, err := gate.Run(context.Background(), gate.Inputs{Traces: []string{traces}, Outcomes: []string{outcomes}}, o)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Outcomes
	// a succeeded (reward 1); b failed (0.5 < 1 − 1e-6); c failed (the outcomes file wins
	// over its resolved: true); d has none.
	if s == nil || s.Runs != 4 || s.Known != 3 || s.Successes != 1 || s.Failures != 2 || s.WithoutOutcome != 1 ||
		s.Unexplained != 2 || s.Unmatched != 2 || !slices.Equal(s.UnmatchedIDs, []string{"yy", "zz"}) {
		t.Fatalf("outcomes %+v", s)
	}
	if lo, hi := outcome.Wilson(1, 3); s.SuccessRate != 1.0/3 || s.Interval != [2]float64{lo, hi} {
		t.Errorf("rate %v %v", s.SuccessRate, s.Interval)
	}
	// (300 + 100 + 200) tokens of the runs with an outcome, over 1 success.
	if s.TokensPerSuccess == nil || *s.TokensPerSuccess != 600 {
		t.Errorf("tokens per success %v", s.TokensPerSuccess)
	}
	if res.Verdict != "PASS" || len(res.Gates) != 1 {
		t.Errorf("verdict %s gates %+v: success-rate-min is not gated unless set", res.Verdict, res.Gates)
	}

	// success-threshold 0.5 makes b succeed: 2 of 3, still below success-rate-min 0.7.
	o.Thresholds.SuccessThreshold = 0.5
	o.Thresholds.SuccessRateMin = 0.7
	res, err = gate.Run(context.Background(), gate.Inputs{Traces: []string{traces}, Outcomes: []string{outcomes}}, o)
	if err != nil {
		t.Fatal(err)
	}
	g := res.Gates[len(res.Gates)-1]
	if res.Outcomes.Successes != 2 || g.Name != gate.SuccessRateMin || g.Value != 2.0/3 || g.Passed || g.Note != "2 of 3 runs succeeded" || res.ExitCode != gate.ExitFail {
		t.Errorf("success-rate-min: %+v, exit %d", g, res.ExitCode)
	}

	// The JSON report: each trace with an outcome carries it, tokens included.
	var buf bytes.Buffer
	if err := jsonreport.Write(&buf, res); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Reliability struct {
			Traces []struct {
				ID      string          `json:"id"`
				Outcome json.RawMessage `json:"outcome"`
			} `json:"traces"`
		} `json:"reliability"`
		Outcomes map[string]any `json:"outcomes"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tr := range doc.Reliability.Traces {
		got = append(got, tr.ID+" "+strings.Join(strings.Fields(string(tr.Outcome)), ""))
	}
	want := []string{`a {"value":1,"success":true,"tokens":300}`, `b {"value":0.5,"success":true,"tokens":100}`,
		`c {"value":0,"success":false,"tokens":200}`, `d `}
	if !slices.Equal(got, want) {
		t.Errorf("traces' outcomes\n%q\nwant\n%q", got, want)
	}
	if doc.Outcomes["successes"] != 2.0 || doc.Outcomes["unmatched"] != 2.0 {
		t.Errorf("outcomes section %v", doc.Outcomes)
	}
}

func TestOutcomesGateSkipped(t *testing.T) {
	traces, _ := outcomeSuite(t)
	dir := t.TempDir()
	none := writeFile(t, dir, "none.jsonl", `{"trace_id": "x", "messages": [{"role": "user", "content": "hi"}]}`+"\n")
	o := gate.Options{Thresholds: gate.DefaultThresholds()}
	o.Thresholds.SuccessRateMin = 0.5
	res, err := gate.Run(context.Background(), gate.Inputs{Traces: []string{none}}, o)
	if err != nil {
		t.Fatal(err)
	}
	g := res.Gates[len(res.Gates)-1]
	// success-rate-min was set, so under fail-on-skipped's default (explicit) its skip breaches.
	if res.Outcomes != nil || g.Name != gate.SuccessRateMin || !g.Skipped || g.Passed || g.Note != "no run has an outcome" || res.ExitCode != gate.ExitFail {
		t.Errorf("outcomes %+v gate %+v exit %d", res.Outcomes, g, res.ExitCode)
	}
	o.Thresholds.FailOnSkipped = gate.SkipNone
	if res, err = gate.Run(context.Background(), gate.Inputs{Traces: []string{none}}, o); err != nil || !res.Gates[len(res.Gates)-1].Passed || res.ExitCode != 0 {
		t.Errorf("fail-on-skipped false: %v %+v", err, res)
	}
	o.Thresholds.FailOnSkipped = gate.SkipExplicit
	// Outcomes without traces, and bad thresholds, are usage errors.
	if _, err := gate.Run(context.Background(), gate.Inputs{Tasks: []string{traces}, Outcomes: []string{traces}}, o); !gate.IsUsage(err) {
		t.Errorf("outcomes without traces: %v", err)
	}
	for _, th := range []func(*gate.Thresholds){
		func(t *gate.Thresholds) { t.SuccessRateMin = 1.5 },
		func(t *gate.Thresholds) { t.SuccessThreshold = math.Inf(1) },
	} {
		o := gate.Options{Thresholds: gate.DefaultThresholds()}
		th(&o.Thresholds)
		if _, err := gate.Run(context.Background(), gate.Inputs{Traces: []string{none}}, o); !gate.IsUsage(err) {
			t.Errorf("bad threshold %+v: %v", o.Thresholds, err)
		}
	}
}

// TestOutcomesBadInput: a malformed outcome is an input error naming file:line:col and the
// value.
func TestOutcomesBadInput(t *testing.T) {
	traces, _ := outcomeSuite(t)
	bad := writeFile(t, t.TempDir(), "bad.jsonl", `{"id": "a", "reward": "yes"}`+"\n")
	_, err := gate.Run(context.Background(), gate.Inputs{Traces: []string{traces}, Outcomes: []string{bad}}, gate.Options{Thresholds: gate.DefaultThresholds()})
	if want := bad + `:1:23: field "reward": expected true, false or a number, found the string "yes"`; err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

// TestPlatformOutcomesFiles: LangSmith feedback and Langfuse scores exported apart from the runs
// are the outcomes input, joined to the runs of the same experiments (gate/trace's fixtures) by
// trace id, overriding the scores the runs' own file records: LangSmith's root 2 has
// correctness 0 in its feedback_stats and 1 in the feedback file; Langfuse's b-trace-2 has 0 in
// its trace and 1 and 0.5 (mean 0.75) in the scores list.
func TestPlatformOutcomesFiles(t *testing.T) {
	o := gate.Options{Thresholds: gate.DefaultThresholds(), OutcomeScorer: "correctness"}
	for _, c := range []struct {
		traces, outcomes string
		successes        int
		unmatched        string
		values           map[string]float64
	}{
		{"trace/testdata/formats/langsmith/experiment-b.jsonl", "outcome/testdata/langsmith-feedback.jsonl", 2, "c0000000-aaaa-4bbb-8ccc-000000000009",
			map[string]float64{"b0000000-aaaa-4bbb-8ccc-000000000001": 1, "b0000000-aaaa-4bbb-8ccc-000000000002": 1, "b0000000-aaaa-4bbb-8ccc-000000000003": 0}},
		{"trace/testdata/formats/langfuse/experiment-b.jsonl", "outcome/testdata/langfuse-scores.json", 1, "b-trace-9",
			map[string]float64{"b-trace-1": 1, "b-trace-2": 0.75, "b-trace-3": 0}},
	} {
		res, err := gate.Run(context.Background(), gate.Inputs{Traces: []string{c.traces}, Outcomes: []string{c.outcomes}}, o)
		if err != nil {
			t.Fatal(err)
		}
		s := res.Outcomes
		if s == nil || s.Runs != 3 || s.Known != 3 || s.Successes != c.successes || !slices.Equal(s.UnmatchedIDs, []string{c.unmatched}) {
			t.Fatalf("%s: outcomes %+v", c.outcomes, s)
		}
		for _, tr := range res.Reliability.Traces {
			if v, ok := c.values[tr.ID]; !ok || !tr.Run.Known || tr.Run.Value != v || tr.Run.IsBool {
				t.Errorf("%s: trace %s outcome %+v, want %v from the outcomes file", c.outcomes, tr.ID, tr.Run, v)
			}
		}
	}
}

// TestLangSmithFeedbackBesideRuns: a folder given as traces with the runs of an experiment
// (without feedback_stats, as a project's runs may be listed) and their feedback exported apart,
// in two files, reads the feedback with the runs: the runs' outcomes are the feedback's, and
// the feedback file is listed as a side file. The feedback file named itself as traces is
// refused with the way to give it.
func TestLangSmithFeedbackBesideRuns(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("trace/testdata/formats/langsmith/experiment-b.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var runs bytes.Buffer
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var r map[string]any
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		r["feedback_stats"] = nil
		b, _ := json.Marshal(r)
		runs.Write(append(b, '\n'))
	}
	writeFile(t, dir, "runs.jsonl", runs.String())
	fb, err := os.ReadFile("outcome/testdata/langsmith-feedback.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "feedback.jsonl", string(fb))
	o := gate.Options{Thresholds: gate.DefaultThresholds(), OutcomeScorer: "correctness"}
	res, err := gate.Run(context.Background(), gate.Inputs{Traces: []string{dir}}, o)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"b0000000-aaaa-4bbb-8ccc-000000000001": 1, "b0000000-aaaa-4bbb-8ccc-000000000002": 1, "b0000000-aaaa-4bbb-8ccc-000000000003": 0}
	for _, tr := range res.Reliability.Traces {
		if v, ok := want[tr.ID]; !ok || !tr.Run.Known || tr.Run.Value != v {
			t.Errorf("trace %s outcome %+v, want %v from the feedback beside it", tr.ID, tr.Run, v)
		}
	}
	if s := res.Outcomes; s == nil || s.Known != 3 || s.Successes != 2 {
		t.Errorf("outcomes %+v", s)
	}
	if !slices.Contains(res.Notes, "skipped 1 side file: feedback.jsonl (LangSmith feedback, read with the runs beside it)") {
		t.Errorf("notes %q", res.Notes)
	}
	_, err = gate.Run(context.Background(), gate.Inputs{Traces: []string{filepath.Join(dir, "feedback.jsonl")}}, o)
	if err == nil || !strings.HasSuffix(err.Error(), "feedback.jsonl:1:1: a file of LangSmith feedback records and no run: give it as outcomes (with outcome-scorer naming the key), or beside the runs' file in the folder given as traces") {
		t.Errorf("feedback named as traces: %v", err)
	}
}
