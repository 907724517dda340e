//go:build realsources

package gate_test

import (
	"context"
	"math"
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/verdict"
	"github.com/agentgate/agentgate/internal/realsources"
)

// TestRealSourceGateLangfuseScores gates two of Langfuse's own framework traces
// (langfuse/langfuse worker/src/__tests__/chatml/framework-traces, test/realsources/sources.tsv)
// with their "correctness" score as the outcome, as `agentgate gate --traces a,b
// --outcome-scorer correctness` does. python3 (json.load): trace.scores named correctness
// are 1 (Microsoft Agent Framework) and 0 (Claude Agent SDK): 1 of 2 succeeded, the Wilson
// 95% interval of 1/2 (z = 1.959963984540054) 0.0945…–0.9055…; the tokens, the leaf
// GENERATIONs' usageDetails.total, 399 + 266, per success 665. No success gate is set, and
// both traces pass the reliability gates: PASS, exit 0.
func TestRealSourceGateLangfuseScores(t *testing.T) {
	dir := "worker/src/__tests__/chatml/framework-traces/"
	traces := []string{
		realsources.Path(t, "langfuse-microsoft-agent", dir+"microsoft-agent-2025-12-17.trace.json"),
		realsources.Path(t, "langfuse-claude-agent", dir+"claude-agent-2025-12-22.trace.json"),
	}
	res, err := gate.Run(context.Background(), gate.Inputs{Traces: traces},
		gate.Options{Thresholds: gate.DefaultThresholds(), OutcomeScorer: "correctness"})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Outcomes
	if res.Verdict != verdict.Pass || res.ExitCode != 0 || s == nil || s.Runs != 2 || s.Known != 2 || s.Successes != 1 || s.SuccessRate != 0.5 {
		t.Fatalf("verdict %s exit %d outcomes %+v, want PASS, 0, 1 of 2 runs succeeded", res.Verdict, res.ExitCode, s)
	}
	if math.Abs(s.Interval[0]-0.09453120573423074) > 1e-12 || math.Abs(s.Interval[1]-0.9054687942657693) > 1e-12 {
		t.Errorf("Wilson interval %v", s.Interval)
	}
	if s.TokensPerSuccess == nil || *s.TokensPerSuccess != 665 {
		t.Errorf("tokens per success %v, want 665", s.TokensPerSuccess)
	}
	for _, tr := range res.Reliability.Traces {
		if tr.Verdict != verdict.Pass {
			t.Errorf("trace %s: %s %+v", tr.ID, tr.Verdict, tr.Evidence)
		}
	}
}

// TestRealSourceGatePhoenixPXI gates Phoenix's own span JSON of one PXI agent turn
// (Arize-ai/phoenix tests/unit/pxi/evals/online_evals/fixtures/pxi_turn_trace.json), as
// `agentgate gate --traces <folder>` does. python3 (json.load): one trace id; its last LLM
// span's llm.input_messages (26) and output (1): 27 messages, 11 tool calls; the one failed
// tool (add_spans_to_dataset, status ERROR) is retried and succeeds, and the agent answers:
// no harness outcome, PASS, exit 0.
func TestRealSourceGatePhoenixPXI(t *testing.T) {
	p := realsources.Path(t, "phoenix-pxi-turn", "tests/unit/pxi/evals/online_evals/fixtures/pxi_turn_trace.json")
	res, err := gate.Run(context.Background(), gate.Inputs{Traces: []string{p}}, gate.Options{Thresholds: gate.DefaultThresholds()})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != verdict.Pass || res.ExitCode != 0 || res.Outcomes != nil || len(res.Reliability.Traces) != 1 {
		t.Fatalf("verdict %s exit %d outcomes %+v, %d traces", res.Verdict, res.ExitCode, res.Outcomes, len(res.Reliability.Traces))
	}
	tr := res.Reliability.Traces[0]
	if tr.ID != "fixture-trace-1" || tr.Messages != 27 || tr.ToolCalls != 11 || tr.Verdict != verdict.Pass {
		t.Errorf("trace %s: %d messages, %d calls, %s", tr.ID, tr.Messages, tr.ToolCalls, tr.Verdict)
	}
}
