package gate_test

import (
	"path/filepath"
	"testing"

	"github.com/agentgate/agentgate/gate/outcome"
	"github.com/agentgate/agentgate/internal/refdata"
)

// Each default signal earns its row of the calibration table (docs/reference.md, "Differences
// from the reference"): on every labelled set the repository holds, a signal that flags five
// runs or more has a precision (failed runs among those it flags) above the set's failure
// rate, and 95% or more of the successful runs are PASS. The sets: the real tau2-bench pair
// (entrypoint/testdata/tau2pair), the real tau-bench airline sample of the reference data, and
// the generated suites of testdata/calibration (an Inspect log whose agents end on `submit`,
// AgentDojo runs that write optional arguments as null, an Inspect log that records its tools'
// schemas, tau2-bench runs of a custom domain: see its README). The flagged counts are exact, so that a rule that starts flagging
// other runs shows here.
func TestCalibrationLabelledSets(t *testing.T) {
	tau2 := filepath.Join("..", "entrypoint", "testdata", "tau2pair")
	cal := filepath.Join("testdata", "calibration")
	for _, c := range []struct {
		name     string
		traces   []string
		runs     int
		failed   int
		flagged  map[string][2]int // signal: failed and successful runs flagged; the others flag none
		succPASS int
	}{
		{"tau2-bench gpt-4.1 airline (real)", []string{filepath.Join(tau2, "gpt-4.1_airline.json")}, 10, 3, nil, 7},
		{"tau2-bench fine-tuned gpt-4.1 airline (real)", []string{filepath.Join(tau2, "ft-gpt-4.1_airline.json")}, 10, 3, nil, 7},
		{"tau-bench airline sample (real)", []string{refdata.Path(t, "transcripts/tau-bench-airline-sample.json")}, 10, 10,
			map[string][2]int{"loop": {4, 0}, "tool_misuse": {2, 0}, "verdict WARN or FAIL": {2, 0}, "verdict FAIL": {1, 0}}, 0},
		// before issue 46, hallucination flagged all 10 (every run ends on submit): precision 0.4;
		// the two runs with one timed-out call each are a tool_misuse finding of 0.5
		// since one failure is not a rate (TestJudgmentOneFailureIsNotARate), PASS where they
		// were WARN
		{"Inspect, ending on submit (generated)", []string{filepath.Join(cal, "inspect-submit.json")}, 10, 4,
			map[string][2]int{"loop": {2, 0}, "tool_misuse": {4, 0}, "verdict WARN or FAIL": {2, 0}, "verdict FAIL": {2, 0}}, 6},
		// before issue 46, tool_misuse flagged all 10 (every run writes "date": null): precision 0.4
		{"AgentDojo, optional arguments null (generated)", []string{filepath.Join(cal, "agentdojo")}, 10, 4,
			map[string][2]int{"tool_misuse": {4, 0}, "verdict WARN or FAIL": {4, 0}}, 6},
		// without the tools' recorded schemas, tool_misuse flagged the 6 successful runs (an
		// optional "directory": null, no member with a value) and none of the 4 failed ones (a
		// required "query": "" beside a date): precision 0
		{"Inspect, tools with schemas (generated)", []string{filepath.Join(cal, "inspect-schemas.json")}, 10, 4,
			map[string][2]int{"tool_misuse": {4, 0}}, 6},
		// before, 5 of the 6 successful runs PASSed (83%): one unknown tool relayed, 1 failed
		// result of 2, was 0.75 (WARN), and a look-up made once for each of three questions of
		// the user's was loop 0.125; now the first is a finding of 0.5 under the WARN line and
		// the second none (TestJudgmentOneFailureIsNotARate, TestJudgmentLookupAskedAgain)
		{"tau2-bench custom hotel domain (generated)", []string{filepath.Join(cal, "tau2-hotel.json")}, 10, 4,
			map[string][2]int{"hallucination": {1, 0}, "loop": {1, 0}, "tool_misuse": {4, 1}, "verdict WARN or FAIL": {4, 0}}, 6},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := gateRun(t, c.traces, nil, nil)
			o := r.Outcomes
			if o == nil || o.Known != c.runs || o.Failures != c.failed {
				t.Fatalf("outcomes %+v; want %d runs, %d failed", o, c.runs, c.failed)
			}
			rate := float64(o.Failures) / float64(o.Known)
			for _, cal := range o.Calibration {
				got := [2]int{cal.FlaggedFailed, cal.FlaggedSucceeded}
				if got != c.flagged[cal.Signal] {
					t.Errorf("%s flags %d failed and %d successful runs; want %v", cal.Signal, got[0], got[1], c.flagged[cal.Signal])
				}
				if n := got[0] + got[1]; n >= 5 && rate < 1 && float64(got[0])/float64(n) <= rate {
					t.Errorf("%s flags %d runs with precision %.3f, not above the failure rate %.3f", cal.Signal, n, float64(got[0])/float64(n), rate)
				}
			}
			pass := 0
			for _, tr := range r.Reliability.Traces {
				if tr.Run.Known && tr.Run.Success && tr.Verdict == "PASS" {
					pass++
				}
			}
			succ := o.Successes
			if pass != c.succPASS || succ > 0 && 100*pass < 95*succ {
				t.Errorf("%d of %d successful runs PASS; want %d, and 95%% or more", pass, succ, c.succPASS)
			}
		})
	}
	if len(outcome.Signals) != 6 {
		t.Fatalf("the calibration table has %d rows; this test knows 6", len(outcome.Signals))
	}
}
