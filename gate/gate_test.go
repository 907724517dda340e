package gate_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/agreement"
	"github.com/agentgate/agentgate/gate/coherence"
	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/verdict"
)

// TestDecide walks docs/design.md#gates-and-exit-codes's verdict and exit-code table.
func TestDecide(t *testing.T) {
	cases := []struct {
		name      string
		res       gate.Result
		failOn    gate.FailOn
		verdict   verdict.Verdict
		exit      int
		breached  []string
		skippedKa bool
	}{
		{name: "all pass", res: gate.Result{Reliability: &reliability.Summary{Total: 3, Pass: 3}, Coherence: &coherence.Summary{Mean: 0.5}},
			verdict: verdict.Pass, exit: 0},
		{name: "coherence exactly at the threshold holds", res: gate.Result{Coherence: &coherence.Summary{Mean: 0.50}}, verdict: verdict.Pass},
		{name: "a WARN trace warns, exit 0 by default", res: gate.Result{Reliability: &reliability.Summary{Total: 2, Pass: 1, Warn: 1}},
			verdict: verdict.Warn, exit: 0},
		{name: "a WARN trace with fail-on warn exits 1", res: gate.Result{Reliability: &reliability.Summary{Total: 2, Pass: 1, Warn: 1}},
			failOn: gate.FailOnWarn, verdict: verdict.Warn, exit: 1},
		{name: "a FAIL trace within max-failed-traces only warns", res: gate.Result{Reliability: &reliability.Summary{Total: 2, Pass: 1, Fail: 1}},
			verdict: verdict.Warn, exit: 0},
		{name: "low coherence fails", res: gate.Result{Coherence: &coherence.Summary{Mean: 0.4999}},
			verdict: verdict.Fail, exit: 2, breached: []string{gate.CoherenceMin}},
		{name: "every agreement gate", res: gate.Result{Agreement: &agreement.Summary{PercentAgreement: 0.8, Kappa: 0.6, KappaDefined: true, AbstainRate: 0.03}},
			verdict: verdict.Fail, exit: 2, breached: []string{gate.PAMin, gate.KappaMin, gate.AbstainMax}},
		{name: "undefined kappa skips its gate only", res: gate.Result{Agreement: &agreement.Summary{PercentAgreement: 1, Kappa: 0, KappaDefined: false}},
			verdict: verdict.Pass, exit: 0, skippedKa: true},
		{name: "FAIL overrides fail-on warn's exit 1", res: gate.Result{Reliability: &reliability.Summary{Total: 5, Fail: 3}},
			failOn: gate.FailOnWarn, verdict: verdict.Fail, exit: 2, breached: []string{gate.MaxFailedTraces}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			th := gate.DefaultThresholds()
			if strings.Contains(c.name, "within max-failed-traces") {
				th.MaxFailedTraces = 1
			}
			failOn := c.failOn
			if failOn == "" {
				failOn = gate.FailOnFail
			}
			r := c.res
			r.Decide(th, failOn)
			if r.Verdict != c.verdict || r.ExitCode != c.exit {
				t.Fatalf("verdict %s exit %d, want %s %d", r.Verdict, r.ExitCode, c.verdict, c.exit)
			}
			var names []string
			for _, g := range r.Breached() {
				names = append(names, g.Name)
			}
			if strings.Join(names, ",") != strings.Join(c.breached, ",") {
				t.Errorf("breached %v, want %v", names, c.breached)
			}
			for _, g := range r.Gates {
				if g.Name == gate.KappaMin && g.Skipped != c.skippedKa {
					t.Errorf("kappa gate skipped = %v, want %v (note %q)", g.Skipped, c.skippedKa, g.Note)
				}
			}
		})
	}
}

func TestThresholdsValidate(t *testing.T) {
	bad := []struct {
		mod  func(*gate.Thresholds)
		want string
	}{
		{func(t *gate.Thresholds) { t.PAMin = 1.5 }, "pa-min must be between 0 and 1, got 1.5"},
		{func(t *gate.Thresholds) { t.AbstainMax = -0.1 }, "abstain-max must be between 0 and 1, got -0.1"},
		{func(t *gate.Thresholds) { t.KappaMin = -2 }, "kappa-min must be between -1 and 1, got -2"},
		{func(t *gate.Thresholds) { t.MaxFailedTraces = -1 }, "max-failed-traces must be 0 or more, got -1"},
	}
	for _, b := range bad {
		th := gate.DefaultThresholds()
		b.mod(&th)
		if err := th.Validate(); err == nil || err.Error() != b.want {
			t.Errorf("Validate() = %v, want %q", err, b.want)
		}
	}
	if err := gate.DefaultThresholds().Validate(); err != nil {
		t.Errorf("defaults invalid: %v", err)
	}
}

func TestRunUsageErrors(t *testing.T) {
	cases := []struct {
		in   gate.Inputs
		want string
	}{
		{gate.Inputs{}, "nothing to evaluate: give at least one of traces, tasks, pairs, or scholar and auditor"},
		{gate.Inputs{Scholar: []string{"s.jsonl"}}, "scholar was given without auditor: the two label files are joined by qid, give both"},
		{gate.Inputs{Pairs: []string{"p.jsonl"}, Auditor: []string{"a.jsonl"}}, "give either pairs (one merged file) or scholar and auditor (two files), not both"},
		{gate.Inputs{Traces: []string{"no/such/*.jsonl"}}, "traces: no/such/*.jsonl: no files match this pattern"},
	}
	for _, c := range cases {
		_, err := gate.Run(context.Background(), c.in, gate.Options{Thresholds: gate.DefaultThresholds()})
		if err == nil || err.Error() != c.want {
			t.Errorf("Run(%+v) = %v, want %q", c.in, err, c.want)
		}
	}
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Two records with one id would make the report ambiguous: an input error naming both places.
func TestRunDuplicateIDs(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.jsonl", `{"trace_id": "run-1", "messages": []}`+"\n")
	b := writeFile(t, dir, "b.jsonl", `{"trace_id": "run-2", "messages": []}`+"\n"+`{"trace_id": "run-1", "messages": []}`+"\n")
	_, err := gate.Run(context.Background(), gate.Inputs{Traces: []string{a, b}}, gate.Options{Thresholds: gate.DefaultThresholds()})
	want := b + `:2: duplicate trace id "run-1": already used at ` + a + `:1; every trace needs its own id`
	if err == nil || err.Error() != want || !input.IsInputError(err) {
		t.Fatalf("err = %v\nwant %s", err, want)
	}

	ta := writeFile(t, dir, "t.jsonl", `{"id": "x", "intent": "a", "understanding": "a", "action": "a"}`+"\n"+`{"id": "x", "intent": "b", "understanding": "b", "action": "b"}`+"\n")
	_, err = gate.Run(context.Background(), gate.Inputs{Tasks: []string{ta}}, gate.Options{Thresholds: gate.DefaultThresholds()})
	if err == nil || !strings.Contains(err.Error(), `t.jsonl:2: duplicate task id "x": already used at `) {
		t.Fatalf("tasks err = %v", err)
	}
}

// A qid only one validator labelled fails the run (exit 3) unless allow-unmatched is set.
func TestRunUnmatchedQIDs(t *testing.T) {
	dir := t.TempDir()
	s := writeFile(t, dir, "scholar.jsonl", `{"qid": "A1", "label": "VALID", "reason": ""}`+"\n"+`{"qid": "A2", "label": "VALID", "reason": ""}`+"\n")
	a := writeFile(t, dir, "auditor.jsonl", `{"qid": "A1", "label": "VALID", "reason": ""}`+"\n")
	in := gate.Inputs{Scholar: []string{s}, Auditor: []string{a}}
	_, err := gate.Run(context.Background(), in, gate.Options{Thresholds: gate.DefaultThresholds()})
	want := "1 qid(s) were labelled by only one validator, so agreement cannot be measured on them:\n  " + s +
		`:2: qid "A2" is only in the scholar file` + "\nfix the label files, or set allow-unmatched to evaluate only the qids both labelled"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	res, err := gate.Run(context.Background(), in, gate.Options{Thresholds: gate.DefaultThresholds(), AllowUnmatched: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Agreement.N != 1 || len(res.Agreement.Unmatched) != 1 || res.Agreement.Unmatched[0].QID != "A2" {
		t.Fatalf("allow-unmatched: n=%d unmatched=%+v, want 1 and [A2]", res.Agreement.N, res.Agreement.Unmatched)
	}
}

// The bundled fixtures: the passing suite passes every gate, the failing one breaches each.
func TestRunFixtures(t *testing.T) {
	for _, c := range []struct {
		suite    string
		verdict  verdict.Verdict
		breached string
	}{
		{"pass", verdict.Pass, ""},
		{"fail", verdict.Fail, "coherence-min,pa-min,kappa-min,abstain-max,max-failed-traces"},
	} {
		dir := filepath.Join("..", "fixtures", c.suite)
		res, err := gate.Run(context.Background(), gate.Inputs{
			Traces: []string{filepath.Join(dir, "traces.jsonl")},
			Tasks:  []string{filepath.Join(dir, "tasks.json")},
			Pairs:  []string{filepath.Join(dir, "pairs.jsonl")},
		}, gate.Options{Thresholds: gate.DefaultThresholds()})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, g := range res.Breached() {
			names = append(names, g.Name)
		}
		if res.Verdict != c.verdict || strings.Join(names, ",") != c.breached {
			t.Errorf("%s: verdict %s breached %v, want %s %q", c.suite, res.Verdict, names, c.verdict, c.breached)
		}
	}
}

// TestRunTooManyRecords: one run reads at most input.MaxIDs traces, and as many tasks; the
// next one is an input error at its place, read in parallel or one at a time. Each record keeps
// its result for the report, a few hundred bytes however small it is: before, 1 GiB of
// 31-byte traces would have taken over 10 GB (a million of them, 31 MB, peak at 376 MB).
func TestRunTooManyRecords(t *testing.T) {
	old := input.MaxIDs
	input.MaxIDs = 3
	t.Cleanup(func() { input.MaxIDs = old })
	dir := t.TempDir()
	traces := ""
	for i := range 4 {
		traces += `{"trace_id": "run-` + string(rune('0'+i)) + `", "messages": [{"role": "user"}]}` + "\n"
	}
	a := writeFile(t, dir, "a.jsonl", traces[:len(traces)/2])
	b := writeFile(t, dir, "b.jsonl", traces[len(traces)/2:])
	tasks := ""
	for i := range 4 {
		tasks += `{"id": "t` + string(rune('0'+i)) + `", "intent": "a", "understanding": "a", "action": "a"}` + "\n"
	}
	ta := writeFile(t, dir, "t.jsonl", tasks)
	c := writeFile(t, dir, "c.jsonl", traces[:strings.LastIndex(traces[:len(traces)-1], "\n")+1])
	tc := writeFile(t, dir, "tc.jsonl", tasks[:strings.LastIndex(tasks[:len(tasks)-1], "\n")+1])
	o := gate.Options{Thresholds: gate.DefaultThresholds()}
	for _, sequential := range []bool{false, true} {
		_, err := gate.RunEither(context.Background(), gate.Inputs{Traces: []string{a, b}}, o, sequential)
		want := b + `:2: more than 3 traces in one run, the most agentgate reads (each is kept for the report)`
		if err == nil || err.Error() != want || !input.IsInputError(err) {
			t.Errorf("traces: err = %v\nwant %s", err, want)
		}
		_, err = gate.RunEither(context.Background(), gate.Inputs{Tasks: []string{ta}}, o, sequential)
		want = ta + `:4: more than 3 tasks in one run, the most agentgate reads (each is kept for the report)`
		if err == nil || err.Error() != want || !input.IsInputError(err) {
			t.Errorf("tasks: err = %v\nwant %s", err, want)
		}
		// three of each are read
		if _, err := gate.RunEither(context.Background(), gate.Inputs{Traces: []string{c}, Tasks: []string{tc}}, o, sequential); err != nil {
			t.Errorf("three traces and three tasks: %v", err)
		}
	}
}
