//go:build realsources

package gate_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/internal/realsources"
)

// The SWE-bench harnesses' real outputs gated whole, as a user points the gate at them
// (docs/development.md#real-sources): the run folder as --traces, the harness's report as
// --outcomes. The figures are the harness's own (its report's counts), counted with python3
// from the same files; the success gate is set just below and just above the rate the
// harness prints, so that the verdict follows that rate.

// gateSWE gates traces with outcomes at success-rate-min min and returns the result.
func gateSWE(t *testing.T, traces, outcomes []string, min float64) *gate.Result {
	t.Helper()
	o := gate.Options{Thresholds: gate.DefaultThresholds()}
	o.Thresholds.SuccessRateMin = min
	r, err := gate.Run(context.Background(), gate.Inputs{Traces: traces, Outcomes: outcomes}, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// successGateOf returns r's success-rate-min row.
func successGateOf(t *testing.T, r *gate.Result) gate.GateResult {
	t.Helper()
	for _, g := range r.Gates {
		if g.Name == gate.SuccessRateMin {
			return g
		}
	}
	t.Fatalf("no %s row in %+v", gate.SuccessRateMin, r.Gates)
	return gate.GateResult{}
}

// agentsOf counts r's runs by agent, and its distinct tasks.
func agentsOf(r *gate.Result) (agents map[string]int, tasks int) {
	agents = map[string]int{}
	seen := map[string]bool{}
	for _, tr := range r.Reliability.Traces {
		if tr.Attempt != nil {
			agents[tr.Attempt.Agent]++
			seen[tr.Attempt.Task] = true
		}
	}
	return agents, len(seen)
}

// TestRealSourceGateMiniSWEAgentSBCli gates a mini-swe-agent 1.15.0 run of SWE-bench Verified
// (gruckion/mini-swe-agent: trajs/ as mini-extra swebench leaves it) with the report sb-cli
// wrote into it. python3: the report's total_instances 500, resolved_instances 371 (= len
// resolved_ids; unresolved_ids 129, the other lists empty): sb-cli prints 371/500, 0.742; the
// trajectories' instance_id, one each; info.config.model.model_name: 484
// "google/gemini-3-pro-preview", 16 "@google/gemini-3-pro-preview" (two names the harness
// recorded, so two agents).
func TestRealSourceGateMiniSWEAgentSBCli(t *testing.T) {
	dir := realsources.Path(t, "mini-swe-agent-gemini3-verified", "swebench_results/20251118_gemini-3-pro-74pct/trajs")
	report := filepath.Join(dir, "sb-cli-reports", "swe-bench_verified__test__20251118_mini-v1.15.0_gemini-3-pro-preview-20251118.json")
	for _, c := range []struct {
		min  float64
		pass bool
	}{{0.742, true}, {0.7421, false}} {
		r := gateSWE(t, []string{dir}, []string{report}, c.min)
		if o := r.Outcomes; o == nil || o.Runs != 500 || o.Known != 500 || o.Successes != 371 || o.Unmatched != 0 || o.SuccessRate != 371.0/500 {
			t.Fatalf("outcomes %+v, want 371 of 500 runs, every one matched", o)
		}
		if g := successGateOf(t, r); g.Passed != c.pass || g.Skipped {
			t.Errorf("success-rate-min %v: %+v, want passed %v", c.min, g, c.pass)
		}
	}
	r := gateSWE(t, []string{dir}, []string{report}, 0.742)
	agents, tasks := agentsOf(r)
	if want := map[string]int{"google/gemini-3-pro-preview": 484, "@google/gemini-3-pro-preview": 16}; tasks != 500 || len(agents) != 2 ||
		agents["google/gemini-3-pro-preview"] != want["google/gemini-3-pro-preview"] || agents["@google/gemini-3-pro-preview"] != want["@google/gemini-3-pro-preview"] {
		t.Errorf("%d tasks, agents %v; want 500 tasks, agents %v", tasks, agents, want)
	}
}

// TestRealSourceGateSWEAgentMultiSWEBench gates the trajectories of two Multi-SWE-bench Java
// submissions of SWE-agent 0.x with their results/results.json. python3: each report's
// total_instances 91 and every one of them named by a list (completed, incomplete,
// empty_patch, submitted, resolved, unresolved); resolved 6 (gpt-4o) and 9 (deepseek-chat-v2),
// every resolved instance with a trajectory; the listed instances without one (the .traj
// stems against the lists): gpt-4o 2, fasterxml__jackson-core-1182 and -1204 (both in
// incomplete_ids), deepseek-chat-v2 none. The harness's rate is resolved over
// total_instances, 6/91 and 9/91: the success gate at it passes, just above it fails.
func TestRealSourceGateSWEAgentMultiSWEBench(t *testing.T) {
	for _, c := range []struct {
		run                     string
		total, resolved, traces int
		untraced                []string
	}{
		{"gpt4o", 91, 6, 89, []string{"fasterxml__jackson-core-1182", "fasterxml__jackson-core-1204"}},
		{"deepseek", 91, 9, 91, nil},
	} {
		folder := map[string]string{"gpt4o": "20240825_SWE-agent_gpt-4o-2024-05-13", "deepseek": "20240825_SWE-agent_deepseek-chat-v2"}[c.run]
		trajs := realsources.Path(t, "multi-swe-bench-sweagent-"+c.run, "evaluation/java/verified/"+folder+"/trajs")
		results := realsources.Path(t, "multi-swe-bench-sweagent-"+c.run+"-results", "evaluation/java/verified/"+folder+"/results/results.json")
		rate := float64(c.resolved) / float64(c.total)
		for _, g := range []struct {
			min  float64
			pass bool
		}{{rate, true}, {rate + 1e-9, false}} {
			r := gateSWE(t, []string{trajs}, []string{results}, g.min)
			o := r.Outcomes
			if o == nil || o.Runs != c.total || o.Known != c.total || o.Successes != c.resolved || o.SuccessRate != rate ||
				o.Untraced != len(c.untraced) || !slices.Equal(o.UntracedIDs, c.untraced) || len(o.UntracedResolved) != 0 {
				t.Errorf("%s: outcomes %+v; want %d of %d instances resolved, untraced %v", c.run, o, c.resolved, c.total, c.untraced)
			}
			if s := successGateOf(t, r); s.Passed != g.pass || s.Skipped {
				t.Errorf("%s: success-rate-min %v: %+v, want passed %v", c.run, g.min, s, g.pass)
			}
			if _, tasks := agentsOf(r); tasks != c.traces {
				t.Errorf("%s: %d tasks, want one per trajectory, %d", c.run, tasks, c.traces)
			}
		}
	}
}

// TestRealSourceGateOpenHandsOutput gates OpenHands' example Multi-SWE-bench output.jsonl. python3:
// 3 lines, instance_id each distinct; metadata.agent_class "CodeActAgent" and
// metadata.llm_config.model "openai/openrouter-llama-4-maverick"; no line holds a report,
// so no run has an outcome.
func TestRealSourceGateOpenHandsOutput(t *testing.T) {
	p := realsources.Path(t, "openhands-multi-swe-bench-example", "evaluation/benchmarks/multi_swe_bench/examples/output.jsonl")
	r := gateSWE(t, []string{p}, nil, 0)
	agents, tasks := agentsOf(r)
	if tasks != 3 || len(agents) != 1 || agents["CodeActAgent/openai/openrouter-llama-4-maverick"] != 3 {
		t.Errorf("%d tasks, agents %v; want 3 tasks of CodeActAgent/openai/openrouter-llama-4-maverick", tasks, agents)
	}
	if r.Outcomes != nil {
		t.Errorf("outcomes %+v, want none", r.Outcomes)
	}
}
