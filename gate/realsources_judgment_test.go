//go:build realsources

package gate_test

import (
	"context"
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/verdict"
	"github.com/agentgate/agentgate/internal/realsources"
)

// TestRealSourceGateGeneralTalkIsNoClaim gates two of Langfuse's own framework traces in
// which Gemini explains what Langfuse is (google-genai and Vertex AI, no tool offered or
// called). python3 (json.load): one GENERATION each, trace.scores hallucination 0.1 and
// toxicity 0 (Langfuse's own evaluators found next to no hallucination); the answers speak
// of "a failed tool call" and "…, tool calls, final response" in general. Talk of tool calls
// is not a claim that one was made: both PASS, exit 0, no hallucination evidence (the one evidence each is the
// cost signal's: a long answer to a short question)
// (docs/reference.md, "Differences from the reference").
func TestRealSourceGateGeneralTalkIsNoClaim(t *testing.T) {
	dir := "worker/src/__tests__/chatml/framework-traces/"
	traces := []string{
		realsources.Path(t, "langfuse-google-gemini", dir+"google-gemini-2025-08-01.trace.json"),
		realsources.Path(t, "langfuse-vertex-ai", dir+"vertex-ai-2025-08-01.trace.json"),
	}
	res, err := gate.Run(context.Background(), gate.Inputs{Traces: traces}, gate.Options{Thresholds: gate.DefaultThresholds()})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != verdict.Pass || res.ExitCode != 0 || len(res.Reliability.Traces) != 2 {
		t.Fatalf("verdict %s exit %d, %d traces; want PASS, 0, 2", res.Verdict, res.ExitCode, len(res.Reliability.Traces))
	}
	for _, tr := range res.Reliability.Traces {
		if tr.Verdict != verdict.Pass {
			t.Errorf("trace %s: %s %+v, want PASS", tr.ID, tr.Verdict, tr.Evidence)
		}
		for _, ev := range tr.Evidence {
			if ev.Signal == reliability.SignalHallucination {
				t.Errorf("trace %s: %s", tr.ID, ev.Text)
			}
		}
	}
}
