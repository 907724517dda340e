//go:build realsources

package gate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/internal/jsonreport"
	"github.com/agentgate/agentgate/internal/realsources"
)

// realGate is what a gate run on real harness outputs reports, as the harness's own tools
// would print it: the verdict, the runs and how many the harness labelled successful, pass^k
// over the tasks, and the reliability verdicts.
type realGate struct {
	verdict           string
	exitCode          int
	runs, successes   int
	withoutOutcome    int
	passTasks, trials int
	passK             []float64
	passBasis         string // what a passing trial is: its "outcome", or its "verdict" where no outcome is recorded
	fail, warn        int
	identityNoteHolds string // a part of the report's identity note, "" when none is given
}

// gateOnReal runs the gate with the default profile over the real sources' paths (name,
// path pairs), the outcome read from outcomeField where it is not "", and reads its JSON
// report.
func gateOnReal(t *testing.T, outcomeField string, sources ...[2]string) realGate {
	t.Helper()
	return gateOnRealWith(t, gate.Options{OutcomeField: outcomeField}, sources...)
}

// gateOnRealWith is gateOnReal with options o (their profile and thresholds the defaults).
func gateOnRealWith(t *testing.T, o gate.Options, sources ...[2]string) realGate {
	t.Helper()
	var in gate.Inputs
	for _, s := range sources {
		in.Traces = append(in.Traces, realsources.Path(t, s[0], s[1]))
	}
	o.Profile, o.Thresholds = profile.Default, gate.DefaultThresholds()
	res, err := gate.Run(context.Background(), in, o)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := jsonreport.Write(&b, res); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Verdict     string `json:"verdict"`
		ExitCode    int    `json:"exit_code"`
		Reliability struct {
			Fail int `json:"fail"`
			Warn int `json:"warn"`
		} `json:"reliability"`
		Outcomes *struct {
			Runs           int     `json:"runs"`
			Successes      int     `json:"successes"`
			WithoutOutcome int     `json:"without_outcome"`
			SuccessRate    float64 `json:"success_rate"`
		} `json:"outcomes"`
		PassK *struct {
			Tasks  int       `json:"tasks"`
			Trials int       `json:"trials"`
			Values []float64 `json:"values"`
			Basis  string    `json:"basis"`
		} `json:"pass_k"`
		IdentityNote string `json:"identity_note"`
	}
	if err := json.Unmarshal(b.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	g := realGate{verdict: rep.Verdict, exitCode: rep.ExitCode, fail: rep.Reliability.Fail, warn: rep.Reliability.Warn, identityNoteHolds: rep.IdentityNote}
	if o := rep.Outcomes; o != nil {
		g.runs, g.successes, g.withoutOutcome = o.Runs, o.Successes, o.WithoutOutcome
		if known := o.Runs - o.WithoutOutcome; known > 0 && o.SuccessRate != float64(o.Successes)/float64(known) {
			t.Errorf("success rate %v, not %d of %d", o.SuccessRate, o.Successes, known)
		}
	}
	if p := rep.PassK; p != nil {
		g.passTasks, g.trials, g.passK, g.passBasis = p.Tasks, p.Trials, p.Values, p.Basis
	}
	return g
}

// checkRealGate compares a gate run with want; identityNoteHolds is matched as a part of the
// note, pass^k within 1e-12.
func checkRealGate(t *testing.T, got, want realGate) {
	t.Helper()
	note := got.identityNoteHolds
	if want.identityNoteHolds == "" && note != "" || !strings.Contains(note, want.identityNoteHolds) {
		t.Errorf("identity note %q, want one holding %q", note, want.identityNoteHolds)
	}
	got.identityNoteHolds, want.identityNoteHolds = "", ""
	gk, wk := got.passK, want.passK
	got.passK, want.passK = nil, nil
	if len(gk) != len(wk) {
		t.Errorf("pass^k %v, want %v", gk, wk)
	}
	for i := range gk {
		if i < len(wk) && math.Abs(gk[i]-wk[i]) > 1e-12 {
			t.Errorf("pass^%d %v, want %v", i+1, gk[i], wk[i])
		}
	}
	if fmtGate(got) != fmtGate(want) {
		t.Errorf("gate:\n got %s\nwant %s", fmtGate(got), fmtGate(want))
	}
}

func fmtGate(g realGate) string {
	b, _ := json.Marshal(map[string]any{
		"verdict": g.verdict, "exit": g.exitCode, "runs": g.runs, "successes": g.successes,
		"without": g.withoutOutcome, "tasks": g.passTasks, "trials": g.trials, "basis": g.passBasis, "fail": g.fail, "warn": g.warn,
	})
	return string(b)
}

// The figures below are those the harnesses' own tools print, counted by python3 on the same
// files (gate/trace/realsources_harness_test.go says how each run is counted): the success
// rate is the runs whose own label says success over the runs; pass^k is tau2-bench's
// pass_hat_k, the mean over tasks of comb(c, k)/comb(n, k) (c of n trials succeeded).

// TestRealSourceGateTau2TwoAgents gates a fork's two results files of one airline-relaxed task
// by two agents, read together: two suites of one task each (grok-3-mini: 0 of 4,
// grok-4-fast-reasoning: 3 of 4), never eight trials of one task, and the note says so. pass^k
// over the two: ((0 + 3/4)/2, (0 + 3/6)/2, (0 + 1/4)/2, 0).
func TestRealSourceGateTau2TwoAgents(t *testing.T) {
	got := gateOnReal(t, "",
		[2]string{"tau2-blakeelias-grok3-mini-relaxed", "data/simulations/2025-10-06T19:24:15.909785_airline_relaxed_llm_agent_grok-3-mini_user_simulator_grok-3-mini.json"},
		[2]string{"tau2-blakeelias-grok4-fast-relaxed", "data/simulations/2025-10-07T07:44:20.888691_airline_relaxed_llm_agent_grok-4-fast-reasoning_user_simulator_grok-4-fast-reasoning.json"})
	checkRealGate(t, got, realGate{
		verdict: "PASS", runs: 8, successes: 3, passTasks: 2, trials: 8, passK: []float64{0.375, 0.25, 0.125, 0}, passBasis: "outcome",
		identityNoteHolds: `suite "airline-relaxed" holds runs of 2 agents ("xai/grok-3-mini", "xai/grok-4-fast-reasoning")`,
	})
}

// TestRealSourceGateTau2Jitrc gates tau2-enhanced's gemini-2.5-flash airline run: 12 of 20
// runs succeeded; each of the 10 tasks passed both trials or neither (6 and 4), so pass^1 =
// pass^2 = 0.6, as tau2's own metrics print.
func TestRealSourceGateTau2Jitrc(t *testing.T) {
	got := gateOnReal(t, "", [2]string{"tau2-jitrc-gemini-flash-airline", "samples/logs/airline_gemini2_5_flash_10tasks_2t.json"})
	checkRealGate(t, got, realGate{verdict: "PASS", runs: 20, successes: 12, passTasks: 10, trials: 20, passK: []float64{0.6, 0.6}, passBasis: "outcome"})
}

// TestRealSourceGateTau2Implementations gates tau2-enhanced's four agent implementations
// (llm_agent, context_agent, enhanced_agent, retry_agent) on one model over the same 10
// airline tasks, 2 trials each, read together: four agents, so four suites of 10 tasks of 2
// trials (never 10 tasks of 8), and the note names them. 47 of 80 runs succeeded (12, 12, 11,
// 12); pass^k over the 40 tasks is the mean of each file's own (pass^1 0.6, 0.6, 0.55, 0.6;
// pass^2 0.6, 0.5, 0.5, 0.5), as tau2's metrics print per run.
func TestRealSourceGateTau2Implementations(t *testing.T) {
	got := gateOnReal(t, "",
		[2]string{"tau2-jitrc-gemini-flash-airline", "samples/logs/airline_gemini2_5_flash_10tasks_2t.json"},
		[2]string{"tau2-jitrc-gemini-flash-context-agent", "samples/logs/airline_gemini2_5_flash_10tasks_2t_context_agent.json"},
		[2]string{"tau2-jitrc-gemini-flash-enhanced-agent", "samples/logs/airline_gemini2_5_flash_10tasks_2t_enhanced_agent.json"},
		[2]string{"tau2-jitrc-gemini-flash-retry-agent", "samples/logs/airline_gemini2_5_flash_10tasks_2t_retry_agent.json"})
	checkRealGate(t, got, realGate{
		verdict: "FAIL", exitCode: 2, runs: 80, successes: 47, passTasks: 40, trials: 80,
		passK: []float64{(0.6 + 0.6 + 0.55 + 0.6) / 4, (0.6 + 0.5 + 0.5 + 0.5) / 4}, passBasis: "outcome", fail: 2,
		identityNoteHolds: `suite "airline" holds runs of 4 agents ("context_agent/gemini/gemini-2.5-flash", "enhanced_agent/gemini/gemini-2.5-flash", "gemini/gemini-2.5-flash", "retry_agent/gemini/gemini-2.5-flash")`,
	})
}

// TestRealSourceGateTau2VoiceDir gates tau2-bench's own full-duplex experiment given as its
// dir-format folder: results.json is a side file, the three simulations are read from their
// ticks, and none records a reward, so no outcome is reported and pass^k counts the runs'
// verdicts (three tasks of one trial, each PASS), as the report says.
func TestRealSourceGateTau2VoiceDir(t *testing.T) {
	got := gateOnReal(t, "", [2]string{"tau2-sierra-voice-experiment", "tests/test_voice/test_interaction_metrics/testdata/experiment"})
	checkRealGate(t, got, realGate{verdict: "PASS", passTasks: 3, trials: 3, passK: []float64{1}, passBasis: "verdict"})
}

// TestRealSourceGateAgentDojoDrift gates DRIFT's 1046 gpt-4o-mini runs: 621 succeeded by
// AgentDojo's utility (62 of the 97 runs without attack, 559 of the 949 under
// important_instructions). Two runs of workspace user_task_25 that sent the same empty
// send_email three times, failing each time, FAIL (both failed by utility too), so the gate
// fails (exit 2).
func TestRealSourceGateAgentDojoDrift(t *testing.T) {
	got := gateOnReal(t, "", [2]string{"agentdojo-drift-gpt4o-mini", "runs/"})
	checkRealGate(t, got, realGate{verdict: "FAIL", exitCode: 2, runs: 1046, successes: 621, fail: 2, warn: 24})
}

// TestRealSourceGateAgentDojoLuna gates the luna fork's 215 runs with the outcome where the
// fork keeps it (evaluation.utility): 63 succeeded. Its task ids (t01…t18) repeat across its
// 12 suites, which the identity note says; the five runs that crashed before the agent's
// first turn WARN, with two more.
func TestRealSourceGateAgentDojoLuna(t *testing.T) {
	got := gateOnReal(t, "evaluation.utility", [2]string{"agentdojo-luna-gpt56", "runs/"})
	checkRealGate(t, got, realGate{
		verdict: "WARN", runs: 215, successes: 63, warn: 7,
		identityNoteHolds: "197 runs have an id another run has",
	})
}

// TestRealSourceGateInspectSciCode gates the SciCode log with the score key SciCode's own
// summary reports: 13 of 50 problems correct, 0.26, the "Problem Correctness" mean in the
// log's own results.
func TestRealSourceGateInspectSciCode(t *testing.T) {
	got := gateOnRealWith(t, gate.Options{OutcomeScorer: "scicode_scorer/Problem Correctness"},
		[2]string{"inspect-scicode-claude3-haiku", "logs/"})
	checkRealGate(t, got, realGate{verdict: "PASS", runs: 50, successes: 13, passTasks: 50, trials: 50, passK: []float64{0.26}, passBasis: "outcome"})
}

// TestRealSourceGateInspectTwoLogs gates inspect_ai's log folder holding two logs of one
// popularity task (the same 10 samples at epoch 1): 20 runs, the second log's further trials
// of the first's tasks (10 tasks of 2 trials), never duplicate ids. The first log is
// unscored: 8 of the 10 runs with an outcome succeeded, and pass^k counts the verdicts.
func TestRealSourceGateInspectTwoLogs(t *testing.T) {
	got := gateOnReal(t, "", [2]string{"inspect-ai-popularity-two-logs", "tests/scorer/logs/"})
	checkRealGate(t, got, realGate{
		verdict: "PASS", runs: 20, successes: 8, withoutOutcome: 10, passTasks: 10, trials: 20, passK: []float64{1, 1}, passBasis: "verdict",
		identityNoteHolds: "were given the next free trial numbers",
	})
}

// TestRealSourceGateInspectThreeAgents gates three logs of one task by three models, 10
// samples each: three suites of 10 tasks, never 3 trials of each, and the note names the
// agents. No sample is scored, so no outcome is reported.
func TestRealSourceGateInspectThreeAgents(t *testing.T) {
	got := gateOnReal(t, "",
		[2]string{"inspect-ccot-grok3-mini", "logs/2025-08-27T22-28-46-04-00_word_avoidance_open_ended-inner_openrouter_x_ai_grok_3_mini_Yz5aWzc6um7tnxWBzmrmo8.json"},
		[2]string{"inspect-ccot-deepseek-r1", "logs/2025-08-27T22-32-45-04-00_word_avoidance_open_ended-inner_openrouter_deepseek_deepseek_r1_0528_ZTahQjmKyDXZNEnXSKAkXf.json"},
		[2]string{"inspect-ccot-claude-opus4", "logs/2025-08-28T13-51-10-04-00_word_avoidance_open_ended-inner_anthropic_claude_opus_4_20250514_Wpz475ch23hBrtFBuPzHYF.json"})
	checkRealGate(t, got, realGate{
		verdict: "PASS", passTasks: 30, trials: 30, passK: []float64{1}, passBasis: "verdict",
		identityNoteHolds: `suite "_inner" holds runs of 3 agents ("anthropic/claude-opus-4-20250514", "openrouter/deepseek/deepseek-r1-0528", "openrouter/x-ai/grok-3-mini")`,
	})
}

// TestRealSourceGateInspectAnalysisLogs gates inspect_ai's folder of .json logs of three
// tasks: 6 of 7 samples succeeded by their first score; the log written with no samples is a
// side file, not an error; sample ids shared across the tasks are named by their suite.
func TestRealSourceGateInspectAnalysisLogs(t *testing.T) {
	got := gateOnReal(t, "", [2]string{"inspect-ai-analysis-logs", "tests/analysis/test_logs/"})
	checkRealGate(t, got, realGate{
		verdict: "PASS", runs: 7, successes: 6, passTasks: 7, trials: 7, passK: []float64{6.0 / 7}, passBasis: "outcome",
		identityNoteHolds: "4 runs have an id another run has",
	})
}

// TestRealSourceGateTauBenchTwoDomains gates tau-bench's gpt-4o airline run (50 tasks, 4
// trials) with a fork's grok-3 retail run (115 tasks, 1 trial) read together: 84 of 315 runs
// succeeded (tau-bench's reward 1; none of the fork's fractional rewards is), task ids shared
// by the two domains are named by the domain their policy names (the note says so), never
// trials of one task: 165 tasks. pass^1 = (84/4 + 0) / 165, as tau-bench's pass^k counts it
// over the tasks (min trials 1: no pass^2). The gpt-4o file's 9#2 and four grok-3 runs that
// repeat a failing call FAIL, all failed by their reward.
func TestRealSourceGateTauBenchTwoDomains(t *testing.T) {
	got := gateOnReal(t, "",
		[2]string{"tau-bench-gpt4o-airline", "historical_trajectories/gpt-4o-airline.json"},
		[2]string{"tau-bench-grok3-retail-pr68", "tau_bench/tool-calling-grok-3-0.0_range_0--1_user-grok-3-llm_0921131646.json"})
	checkRealGate(t, got, realGate{
		verdict: "FAIL", exitCode: 2, runs: 315, successes: 84, passTasks: 165, trials: 315,
		passK: []float64{21.0 / 165}, passBasis: "outcome", fail: 5, warn: 3,
		identityNoteHolds: `50 runs have an id another run has (two files of the same tasks, or one task id in two suites): each is named from its own suite and trial (the first by id: "0#0" is "retail/0#0")`,
	})
}

// TestRealSourceGateTauBenchCrash gates a fork's run that crashed before the agent's first
// turn: one failed run, a WARN whose finding is the crash (TestRealSourceTauBenchDeepseekCrash
// reads its words), not "turns not found".
func TestRealSourceGateTauBenchCrash(t *testing.T) {
	got := gateOnReal(t, "", [2]string{"tau-bench-deepseek-v3-crash-pr55", "results_test_company_model/"})
	checkRealGate(t, got, realGate{verdict: "WARN", runs: 1, passTasks: 1, trials: 1, passK: []float64{0}, passBasis: "outcome", warn: 1})
}

// TestRealSourceGateAgentDojoRerun gates DRIFT's banking runs of January (16 user tasks
// without attack, 144 under injections) with its April rerun of the 144 (the same places
// under runs/): 304 runs, 77 + 59 successes. The rerun's runs are further trials of the same
// tasks, never duplicates: pass^k over the 144 tasks of 2 trials (the 16 of one trial have
// too few), mean comb(c, k)/comb(2, k), as python3 counts it. Read in either order, the
// figures are the same.
func TestRealSourceGateAgentDojoRerun(t *testing.T) {
	jan := [2]string{"agentdojo-drift-gpt4o-mini", "runs/gpt-4o-mini-2024-07-18/banking/"}
	apr := [2]string{"agentdojo-drift-banking-rerun", "runs/gpt-4o-mini-2024-07-18/banking/"}
	want := realGate{
		verdict: "WARN", runs: 304, successes: 136, passTasks: 144, trials: 288,
		passK: []float64{0.4444444444444444, 0.375}, passBasis: "outcome", warn: 1,
		identityNoteHolds: "were given the next free trial numbers",
	}
	checkRealGate(t, gateOnReal(t, "", jan, apr), want)
	checkRealGate(t, gateOnReal(t, "", apr, jan), want)
}
