//go:build realsources

package trace

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/internal/realsources"
)

// harnessFigures are a real source's figures as a harness's own files give them: realTotals,
// the agent's tokens where the harness records them, and the runs' identity.
type harnessFigures struct {
	realTotals
	// prompt and completion are the agent's tokens summed over the runs that record usage
	// (withUsage of them).
	prompt, completion int64
	withUsage          int
	// suites, tasks and trials count the distinct suites, (suite, task) and (suite, task,
	// trial) of the runs; suiteNames and agents list the suites and the agents they name,
	// sorted, joined by "|".
	suites, tasks, trials int
	suiteNames, agents    string
	// crashes counts the runs that crashed before the agent's first turn.
	crashes int
}

// harnessFiguresOf reads every trace of the files at paths (as the gate reads one file, with
// options o), a folder standing for every .json file under it (in sorted order), and sums
// their figures.
func harnessFiguresOf(t *testing.T, paths []string, o Options) harnessFigures {
	t.Helper()
	var files []string
	for _, path := range paths {
		if st, err := os.Stat(path); err != nil || !st.IsDir() {
			files = append(files, path)
			continue
		}
		err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") {
				files = append(files, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var f harnessFigures
	suites, tasks, trials, agents := map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, file := range files {
		err := EachFileWith(context.Background(), file, o, func(tr *Trace) error {
			f.add(tr)
			if tr.Usage.Recorded {
				f.withUsage++
				f.prompt += tr.Usage.Prompt
				f.completion += tr.Usage.Completion
			}
			suites[tr.Suite] = true
			tasks[tr.Suite+"\x00"+tr.Task] = true
			trials[fmt.Sprintf("%s\x00%s\x00%d\x00%t", tr.Suite, tr.Task, tr.Trial, tr.HasTrial)] = true
			if tr.Agent != "" {
				agents[tr.Agent] = true
			}
			if tr.Crash != "" {
				f.crashes++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	f.suites, f.tasks, f.trials = len(suites), len(tasks), len(trials)
	f.suiteNames, f.agents = joinKeys(suites), joinKeys(agents)
	return f
}

// joinKeys returns the keys of set, sorted, joined by "|".
func joinKeys(set map[string]bool) string {
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, "|")
}

// checkHarness compares the figures of the real source name's files rels with want.
func checkHarness(t *testing.T, name string, rels []string, o Options, want harnessFigures) {
	t.Helper()
	paths := make([]string, len(rels))
	for i, rel := range rels {
		paths[i] = realsources.Path(t, name, rel)
	}
	if got := harnessFiguresOf(t, paths, o); got != want {
		t.Errorf("%s %v:\n read %+v\n want %+v", name, rels, got, want)
	}
}

// The tau2-bench sources are counted by python3 (json.load) on the same files: runs =
// len(simulations) (in the dir format, the simulations/*.json files); messages = len(messages),
// or, for a simulation saved with ticks and no messages, as tau2's SimulationRun.get_messages
// flattens them (per tick: one assistant message if agent_chunk or agent_tool_calls, the
// agent_tool_results, one user message if user_chunk or user_tool_calls, the
// user_tool_results); calls = the assistant messages' tool_calls whose requestor is
// "assistant"; results = role "tool" messages whose requestor is not "user"; fails = those
// with error == true; succeeded = reward_info.reward within 1e-6 of 1 (tau2's
// is_successful); prompt and completion = the assistant messages' usage.prompt_tokens and
// usage.completion_tokens (the user simulator's are not the agent's); suite =
// info.environment_info.domain_name; agent = info.agent_info.llm, after
// info.agent_info.implementation and "/" where that is not llm_agent; a trial is (task_id, trial).

// TestRealSourceTau2JitrcGeminiFlash reads tau2-enhanced's gemini-2.5-flash airline run:
// 10 tasks, 2 trials each, in tau2's json format.
func TestRealSourceTau2JitrcGeminiFlash(t *testing.T) {
	checkHarness(t, "tau2-jitrc-gemini-flash-airline", []string{"samples/logs/airline_gemini2_5_flash_10tasks_2t.json"}, Options{}, harnessFigures{
		realTotals: realTotals{runs: 20, messages: 382, calls: 79, results: 79, fails: 8, succeeded: 12},
		prompt:     760602, completion: 33504, withUsage: 20,
		suites: 1, suiteNames: "airline", tasks: 10, trials: 20, agents: "gemini/gemini-2.5-flash",
	})
}

// TestRealSourceTau2JitrcAgents reads tau2-enhanced's three other agent implementations on
// gemini-2.5-flash, each over the same 10 airline tasks, 2 trials each: each is its own agent.
func TestRealSourceTau2JitrcAgents(t *testing.T) {
	for _, c := range []struct {
		impl               string
		totals             realTotals
		prompt, completion int64
	}{
		{"context_agent", realTotals{runs: 20, messages: 382, calls: 83, results: 83, fails: 7, succeeded: 12}, 777321, 37310},
		{"enhanced_agent", realTotals{runs: 20, messages: 404, calls: 93, results: 93, fails: 11, succeeded: 11}, 856216, 34665},
		{"retry_agent", realTotals{runs: 20, messages: 392, calls: 88, results: 88, fails: 5, succeeded: 12}, 803960, 27892},
	} {
		name := "tau2-jitrc-gemini-flash-" + strings.ReplaceAll(c.impl, "_", "-")
		checkHarness(t, name, []string{"samples/logs/airline_gemini2_5_flash_10tasks_2t_" + c.impl + ".json"}, Options{}, harnessFigures{
			realTotals: c.totals, prompt: c.prompt, completion: c.completion, withUsage: 20,
			suites: 1, suiteNames: "airline", tasks: 10, trials: 20, agents: c.impl + "/gemini/gemini-2.5-flash",
		})
	}
}

// TestRealSourceTau2BlakeeliasGrok reads a fork's two runs of one airline-relaxed task by two
// agents, four trials each: grok-3-mini (no success) and grok-4-fast-reasoning (3 of 4).
func TestRealSourceTau2BlakeeliasGrok(t *testing.T) {
	checkHarness(t, "tau2-blakeelias-grok3-mini-relaxed", []string{"data/simulations/2025-10-06T19:24:15.909785_airline_relaxed_llm_agent_grok-3-mini_user_simulator_grok-3-mini.json"}, Options{}, harnessFigures{
		realTotals: realTotals{runs: 4, messages: 86, calls: 16, results: 16, fails: 1, succeeded: 0},
		prompt:     209549, completion: 4740, withUsage: 4,
		suites: 1, suiteNames: "airline-relaxed", tasks: 1, trials: 4, agents: "xai/grok-3-mini",
	})
	checkHarness(t, "tau2-blakeelias-grok4-fast-relaxed", []string{"data/simulations/2025-10-07T07:44:20.888691_airline_relaxed_llm_agent_grok-4-fast-reasoning_user_simulator_grok-4-fast-reasoning.json"}, Options{}, harnessFigures{
		realTotals: realTotals{runs: 4, messages: 104, calls: 33, results: 33, fails: 0, succeeded: 3},
		prompt:     295382, completion: 6986, withUsage: 4,
		suites: 1, suiteNames: "airline-relaxed", tasks: 1, trials: 4, agents: "xai/grok-4-fast-reasoning",
	})
}

// TestRealSourceTau2ActivegraphMock reads a vendored tau2-bench 1.x run (simulation_index,
// ticks null beside the messages) of the mock domain, whose task update_task_with_user_tools
// has the simulated user call a tool of its own: the user's call and its result are not the
// agent's (11 messages, 3 agent calls, 3 agent results).
func TestRealSourceTau2ActivegraphMock(t *testing.T) {
	checkHarness(t, "tau2-activegraph-gpt41-mini-mock", []string{"runs/20260531-184109-726391/tau2_output/results.json"}, Options{}, harnessFigures{
		realTotals: realTotals{runs: 10, messages: 77, calls: 14, results: 14, fails: 0, succeeded: 8},
		prompt:     12568, completion: 625, withUsage: 10,
		suites: 1, suiteNames: "mock", tasks: 10, trials: 10, agents: "openai/gpt-4.1-mini",
	})
}

// TestRealSourceTau2SierraVoice reads tau2-bench's own full-duplex retail experiment in the
// dir format: results.json (no simulation_index, no simulations) and three
// simulations/<id>.json holding ticks and no messages. The simulations record no reward and
// no usage: no run succeeded by the harness's label, none is counted.
func TestRealSourceTau2SierraVoice(t *testing.T) {
	checkHarness(t, "tau2-sierra-voice-experiment", []string{"tests/test_voice/test_interaction_metrics/testdata/experiment/results.json"}, Options{}, harnessFigures{
		realTotals: realTotals{runs: 3, messages: 8246, calls: 0, results: 0, fails: 0, succeeded: 0},
		suites:     1, suiteNames: "retail", tasks: 3, trials: 3, agents: "discrete_time_audio_native_agent/openai:gpt-realtime-2",
	})
}

// The AgentDojo sources are folders of one run a file, counted by python3 (json.load of every
// .json file under the folder): runs = the files; messages = len(messages), else
// len(conversations) (DRIFT's writer, pipeline_main.py, keeps the turns there); calls = the
// assistant messages' tool_calls; results = role "tool" messages; fails = those whose error
// is not null; succeeded = utility is true (DRIFT's top-level utility; the luna fork's
// evaluation.utility, given as --outcome-field); crashes = runs whose error is not null and
// that hold no assistant message. suites = distinct suite_name; a task is the run's user task
// under its attack and injection task (the luna fork's task_id of its suite); agent =
// pipeline_name. Neither writer records usage the reader takes as the agent's: DRIFT's
// total_tokens is its client's count, the defence's own model calls included.

// TestRealSourceAgentDojoLuna reads the luna fork's 215 runs of 12 domains (codex1, codex2),
// five of which crashed on the model's HTTP 503 before the agent's first turn.
func TestRealSourceAgentDojoLuna(t *testing.T) {
	checkHarness(t, "agentdojo-luna-gpt56", []string{"runs/2026-07-18"}, Options{OutcomeField: "evaluation.utility"}, harnessFigures{
		realTotals: realTotals{runs: 215, messages: 2887, calls: 1364, results: 1364, fails: 54, succeeded: 63},
		suites:     12, suiteNames: "airport_suite|automotive_suite|banking_suite|ecommerce_suite|employment_suite|government_suite|healthcare_suite|logistics_suite|saas_suite|telecom_suite|ticketing_suite|university_suite", tasks: 215, trials: 215, agents: "gpt-5.6-luna", crashes: 5,
	})
}

// TestRealSourceAgentDojoDrift reads DRIFT's gpt-4o-mini runs of AgentDojo v1.2's four
// suites: the 97 user tasks without attack and 949 under important_instructions.
func TestRealSourceAgentDojoDrift(t *testing.T) {
	checkHarness(t, "agentdojo-drift-gpt4o-mini", []string{"runs/gpt-4o-mini-2024-07-18"}, Options{}, harnessFigures{
		realTotals: realTotals{runs: 1046, messages: 9057, calls: 3580, results: 3580, fails: 316, succeeded: 621},
		suites:     4, suiteNames: "banking|slack|travel|workspace", tasks: 1046, trials: 1046, agents: "gpt-4o-mini-2024-07-18",
	})
}

// TestRealSourceAgentDojoDriftAgentDyn reads DRIFT's later runs of the AgentDyn github suite
// (20 user tasks, each without attack and under 9 injection tasks of important_instructions).
func TestRealSourceAgentDojoDriftAgentDyn(t *testing.T) {
	checkHarness(t, "agentdojo-drift-agentdyn-github", []string{"runs/gpt-4o-mini-2024-07-18/github"}, Options{}, harnessFigures{
		realTotals: realTotals{runs: 200, messages: 2406, calls: 910, results: 910, fails: 78, succeeded: 65},
		suites:     1, suiteNames: "github", tasks: 200, trials: 200, agents: "gpt-4o-mini-2024-07-18",
	})
}

// The Inspect AI logs are counted by python3 (json.load of a .json log; zipfile and json.load
// of a .eval log's header.json and samples/*.json): runs = the samples; where a sample's
// messages hold an assistant message, messages = len(messages), calls = the assistant
// messages' tool_calls, results = role "tool" messages, fails = those whose error is not
// null; where they hold none (SciCode keeps only the prompt there), messages = len(messages)
// plus the model and tool events before the scorers' (a span_begin named "scorers", or a step
// event of type "scorer"), calls = those model events' output.choices[0].message.tool_calls,
// results = the tool events; succeeded = the score the outcome scorer names ("scorer/key" in
// a dict value), else the first score, is "C", true, or a number at least 1 - 1e-6; prompt
// and completion = model_usage[eval.model].input_tokens and .output_tokens; suite =
// eval.task, agent = eval.model, a trial is (id, epoch).

// TestRealSourceInspectSciCode reads an inspect_evals SciCode log of claude-3-haiku (a .eval
// of deflated members): the turns are model events, the outcome the dict score's "Problem
// Correctness" (13 of 50 problems solved).
func TestRealSourceInspectSciCode(t *testing.T) {
	checkHarness(t, "inspect-scicode-claude3-haiku", []string{"logs/2026-02-06T01-49-23-07-00_scicode_fXKJvoyJdbtWYQAWpTYDvJ.eval"},
		Options{OutcomeScorer: "scicode_scorer/Problem Correctness"}, harnessFigures{
			realTotals: realTotals{runs: 50, messages: 159, calls: 0, results: 0, fails: 0, succeeded: 13},
			prompt:     239610, completion: 125745, withUsage: 50,
			suites: 1, suiteNames: "scicode", tasks: 50, trials: 50, agents: "anthropic/claude-3-haiku-20240307",
		})
}

// TestRealSourceInspectCcot reads a paper's .json logs of one task (_inner) by three models,
// 10 samples each, unscored; each sample's usage is its own model's (deepseek-r1's reasoning
// and grok's cache reads are not input or output tokens).
func TestRealSourceInspectCcot(t *testing.T) {
	for _, c := range []struct {
		name, rel          string
		prompt, completion int64
		agent              string
	}{
		{"inspect-ccot-grok3-mini", "logs/2025-08-27T22-28-46-04-00_word_avoidance_open_ended-inner_openrouter_x_ai_grok_3_mini_Yz5aWzc6um7tnxWBzmrmo8.json", 608, 13867, "openrouter/x-ai/grok-3-mini"},
		{"inspect-ccot-deepseek-r1", "logs/2025-08-27T22-32-45-04-00_word_avoidance_open_ended-inner_openrouter_deepseek_deepseek_r1_0528_ZTahQjmKyDXZNEnXSKAkXf.json", 623, 16600, "openrouter/deepseek/deepseek-r1-0528"},
		{"inspect-ccot-claude-opus4", "logs/2025-08-28T13-51-10-04-00_word_avoidance_open_ended-inner_anthropic_claude_opus_4_20250514_Wpz475ch23hBrtFBuPzHYF.json", 983, 8276, "anthropic/claude-opus-4-20250514"},
	} {
		checkHarness(t, c.name, []string{c.rel}, Options{}, harnessFigures{
			realTotals: realTotals{runs: 10, messages: 20},
			prompt:     c.prompt, completion: c.completion, withUsage: 10,
			suites: 1, suiteNames: "_inner", tasks: 10, trials: 10, agents: c.agent,
		})
	}
}

// TestRealSourceInspectPopularityLogs reads inspect_ai's two .eval logs of one popularity
// task, each of the same 10 samples at epoch 1: the first unscored, the second scored by match
// (8 of 10 C). Read one by one, each log's runs are trials (id, 1); the gate renumbers the
// second's (TestRealSourceGateInspectTwoLogs).
func TestRealSourceInspectPopularityLogs(t *testing.T) {
	for _, c := range []struct {
		rel       string
		succeeded int
	}{
		{"tests/scorer/logs/2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval", 0},
		{"tests/scorer/logs/2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval", 8},
	} {
		checkHarness(t, "inspect-ai-popularity-two-logs", []string{c.rel}, Options{}, harnessFigures{
			realTotals: realTotals{runs: 10, messages: 30, succeeded: c.succeeded},
			prompt:     620, completion: 20, withUsage: 10,
			suites: 1, suiteNames: "popularity", tasks: 10, trials: 10, agents: "openai/gpt-4o-mini",
		})
	}
}

// TestRealSourceInspectAnalysisLogs reads inspect_ai's .json logs of three tasks (Inspect
// 0.3.95): browser (one sample, four web_browser calls), popularity (cancelled after 3
// samples) and security_guide (3 samples); its log written with no samples is left out, as a
// folder's side file (TestRealSourceGateInspectAnalysisLogs).
func TestRealSourceInspectAnalysisLogs(t *testing.T) {
	checkHarness(t, "inspect-ai-analysis-logs", []string{
		"tests/analysis/test_logs/2025-05-12T20-27-36-04-00_browser.json",
		"tests/analysis/test_logs/2025-05-12T20-28-13-04-00_popularity.json",
		"tests/analysis/test_logs/2025-05-12T20-28-26-04-00_security-guide.json",
	}, Options{}, harnessFigures{
		realTotals: realTotals{runs: 7, messages: 28, calls: 4, results: 4, fails: 0, succeeded: 6},
		prompt:     15235 + 192 + 959, completion: 281 + 6 + 1033, withUsage: 7,
		suites: 3, suiteNames: "browser|popularity|security_guide", tasks: 7, trials: 7, agents: "openai/gpt-4o-mini",
	})
}

// The tau-bench sources are counted by python3 (json.load) as TestRealSourceTauBench counts
// its file: runs = the records; messages = len(traj); calls = tool_calls over all messages;
// results = role "tool" messages; fails = those whose content, left-stripped, starts with
// "error" in any case; succeeded = reward within 1e-6 of 1 (tau-bench's is_successful);
// crashes = runs with no assistant message and an info.error; suite = the domain the system
// message's policy title names ("# Retail agent policy"), none without one; agent = the file
// name up to "_range_" (run.py's <strategy>-<model>-<temperature>); a trial is (task_id, trial).

// TestRealSourceTauBenchGrok3Retail reads a fork's grok-3 retail run offered upstream in a
// pull request: 115 tasks, one trial each, every reward the fork's fraction (0.93, 0.91, …)
// or 0, so that none succeeded as tau-bench counts success.
func TestRealSourceTauBenchGrok3Retail(t *testing.T) {
	checkHarness(t, "tau-bench-grok3-retail-pr68", []string{"tau_bench/tool-calling-grok-3-0.0_range_0--1_user-grok-3-llm_0921131646.json"}, Options{}, harnessFigures{
		realTotals: realTotals{runs: 115, messages: 3804, calls: 932, results: 932, fails: 159, succeeded: 0},
		suites:     1, suiteNames: "retail", tasks: 115, trials: 115, agents: "tool-calling-grok-3-0.0",
	})
}

// TestRealSourceTauBenchDeepseekCrash reads a fork's deepseek-v3 run whose one task crashed
// before the agent's first turn (the human user strategy read stdin: "EOF when reading a
// line"): traj [], the crash read from info.error.
func TestRealSourceTauBenchDeepseekCrash(t *testing.T) {
	checkHarness(t, "tau-bench-deepseek-v3-crash-pr55", []string{"results_test_company_model/tool-calling-deepseek-v3-0.0_range_0-1_user-gpt-4o-human_0612073827.json"}, Options{}, harnessFigures{
		realTotals: realTotals{runs: 1},
		suites:     1, tasks: 1, trials: 1, agents: "tool-calling-deepseek-v3-0.0", crashes: 1,
	})
	p := realsources.Path(t, "tau-bench-deepseek-v3-crash-pr55", "results_test_company_model/tool-calling-deepseek-v3-0.0_range_0-1_user-gpt-4o-human_0612073827.json")
	err := EachFile(context.Background(), p, func(tr *Trace) error {
		if tr.Crash != "EOF when reading a line" {
			t.Errorf("crash %q, want info.error %q", tr.Crash, "EOF when reading a line")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
