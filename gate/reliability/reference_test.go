package reliability

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/verdict"
)

// referenceCases are RS-1 1.0.0's figures for the traces in testdata/, computed by a Python
// port of RS-1's signal code (written for this purpose and run with CPython 3.11, not
// committed): Python's own str.lower, set, str(dict) and float arithmetic produced them.
// Each trace exercises one Python semantic that a naive Go port gets wrong:
//   - unicode_text: lower("ΟΔΟΣ") ends in ς, so {ο,δ,ς} and {ο,δ,σ} are only 50% alike, and
//     lower("İNVOKED") is "i̇nvoked", which does not contain "invoked" (strings.ToLower would
//     give loop 2/3 and hallucination 0.5);
//   - nested_arguments: str(sorted(items)) sorts top-level keys only, and 1.0 prints as 1.0;
//   - suspicious_arguments: None, a key "none_of" and "error handling" all match (d);
//   - costly: 10 short assistant turns "turn 1", "turn 3", … share almost all characters;
//   - raw_and_missing_arguments: raw text that is not JSON, missing arguments and null ids;
//   - ids_out_of_order: sets of ids cannot see a result that comes before its call.
var referenceCases = []struct {
	name    string
	verdict verdict.Verdict
	overall float64
	signals [4]float64
}{
	{"concentrated", "PASS", 0.09375, [4]float64{0.0, 0.0, 0.375, 0.0}},
	{"costly", "FAIL", 0.355, [4]float64{0.0, 1.0, 0.0, 0.7}},
	{"ids_out_of_order", "PASS", 0.0, [4]float64{0.0, 0.0, 0.0, 0.0}},
	{"long_chat", "PASS", 0.07, [4]float64{0.0, 0.1, 0.0, 0.3}},
	{"nested_arguments", "PASS", 0.03125, [4]float64{0.0, 0.125, 0.0, 0.0}},
	{"raw_and_missing_arguments", "WARN", 0.3395833333333333, [4]float64{0.16666666666666666, 0.125, 0.95, 0.08333333333333333}},
	{"suspicious_arguments", "PASS", 0.09687499999999999, [4]float64{0.0, 0.0, 0.38749999999999996, 0.0}},
	{"unicode_text", "PASS", 0.0, [4]float64{0.0, 0.0, 0.0, 0.0}},
}

func TestReferenceMatchesRS1(t *testing.T) {
	for _, c := range referenceCases {
		t.Run(c.name, func(t *testing.T) {
			r := Evaluate(readRS1(t, filepath.Join("testdata", c.name+".json")), profile.Reference)
			if r.Verdict != c.verdict || !near(r.Score, c.overall) {
				t.Errorf("verdict %s, overall %v; RS-1 says %s, %v", r.Verdict, r.Score, c.verdict, c.overall)
			}
			got := scores(r)
			for i := range got {
				if !near(got[i], c.signals[i]) {
					t.Errorf("%s = %v; RS-1 says %v", SignalTable[i].Name, got[i], c.signals[i])
				}
			}
			checkEvidence(t, r)
		})
	}
}

// rs1Expected is the shape of reference-data/rs1/*.expected.json, RS-1 1.0.0's own output.
type rs1Expected struct {
	TraceID      string             `json:"trace_id"`
	Verdict      verdict.Verdict    `json:"verdict"`
	OverallScore float64            `json:"overall_score"`
	SignalScores map[string]float64 `json:"signal_scores"`
	Metadata     Metadata           `json:"metadata"`
	ExitCode     int                `json:"exit_code"`
}

// TestReferenceGoldenSamples runs the two sample traces shipped with RS-1 and compares every
// figure with the output RS-1 1.0.0 produced for them (reference-data/rs1/*.expected.json).
func TestReferenceGoldenSamples(t *testing.T) {
	dir := sharedData(t, "rs1")
	for _, name := range []string{"sample_trace", "sample_trace_problematic"} {
		t.Run(name, func(t *testing.T) {
			var want rs1Expected
			data, err := os.ReadFile(filepath.Join(dir, name+".expected.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &want); err != nil {
				t.Fatal(err)
			}
			for _, tr := range goldenTraces(t, filepath.Join(dir, name+".json")) {
				r := Evaluate(tr, profile.Reference)
				rep := r.RS1()
				if rep.TraceID != want.TraceID || rep.Verdict != want.Verdict || !near(rep.OverallScore, want.OverallScore) {
					t.Errorf("got %s %s %v; RS-1 says %s %s %v", rep.TraceID, rep.Verdict, rep.OverallScore,
						want.TraceID, want.Verdict, want.OverallScore)
				}
				for _, s := range rep.SignalScores {
					if w, ok := want.SignalScores[s.SignalName]; !ok || !near(s.Score, w) {
						t.Errorf("%s = %v; RS-1 says %v", s.SignalName, s.Score, w)
					}
				}
				if rep.Metadata != want.Metadata {
					t.Errorf("metadata %+v; RS-1 says %+v", rep.Metadata, want.Metadata)
				}
				if code := exitCode(rep.Verdict); code != want.ExitCode {
					t.Errorf("exit code %d; RS-1 says %d", code, want.ExitCode)
				}
				checkEvidence(t, r)
			}
		})
	}
}

// exitCode is the RS-1 CLI's exit code for a verdict.
func exitCode(v verdict.Verdict) int {
	switch v {
	case verdict.Fail:
		return 2
	case verdict.Warn:
		return 1
	}
	return 0
}

// TestReferenceReasoningAndDetails checks the RS-1 report text of the problematic sample
// against what RS-1's evaluator.py and policy.py print for its scores: details by score band
// (0.533 → "Moderate…", 0.375 → "Minor…", 1.0 → "Severe…", 0.21 → "Moderate… (8000 tokens)")
// and the reasoning with Python's {:.2f}.
func TestReferenceReasoningAndDetails(t *testing.T) {
	r := Evaluate(problematicTrace(), profile.Reference)
	want := [4]string{
		"Moderate hallucination indicators found",
		"Minor repetition observed",
		"Severe tool misuse patterns detected",
		"Moderate resource usage (8000 tokens)",
	}
	if r.Detail.Notes != want {
		t.Errorf("details %q;\nwant %q", r.Detail.Notes, want)
	}
	const reasoning = "Overall reliability score: 0.56 (0.0=good, 1.0=bad). Critical issues detected: tool_misuse. " +
		"Signal breakdown: hallucination: 0.53 (moderate); loop: 0.38 (low); tool_misuse: 1.00 (critical); cost: 0.21 (low). " +
		"This execution shows some concerning patterns that warrant review."
	if r.Detail.Reasoning != reasoning {
		t.Errorf("reasoning %q;\nwant %q", r.Detail.Reasoning, reasoning)
	}
}

// checkEvidence asserts the evidence contract: every non-zero signal has evidence, evidence
// only for non-zero signals, grouped in signal order. Within a signal the evidence of the
// largest factor comes first (TestEvidenceLeadsWithTheLargestFactor).
func checkEvidence(t *testing.T, r Result) {
	t.Helper()
	got := scores(r)
	has := map[string]bool{}
	order := map[string]int{SignalTrace: -1}
	for i := range SignalTable {
		n := SignalTable[i].Name
		order[n] = i
	}
	lastSignal := -2
	for _, e := range r.Evidence {
		has[e.Signal] = true
		o, ok := order[e.Signal]
		if !ok {
			t.Errorf("evidence for unknown signal %q", e.Signal)
		}
		if e.Messages == nil {
			t.Errorf("evidence %q has nil messages", e.Text)
		}
		if o < lastSignal {
			t.Errorf("evidence out of signal order at %q", e.Text)
		}
		lastSignal = o
		for _, m := range e.Messages {
			if m < 0 || m >= r.Detail.Meta.TotalMessages {
				t.Errorf("evidence %q names message %d of %d", e.Text, m, r.Detail.Meta.TotalMessages)
			}
		}
	}
	for i := range SignalTable {
		n := SignalTable[i].Name
		if (got[i] > 0) != has[n] {
			t.Errorf("%s = %v but evidence present = %v", n, got[i], has[n])
		}
	}
}
