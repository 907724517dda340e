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
	// trial) of the runs; agents lists the agents they name, sorted, joined by "|".
	suites, tasks, trials int
	agents                string
	// crashes counts the runs that crashed before the agent's first turn.
	crashes int
}

// harnessFiguresOf reads every trace at path (as the gate reads one file, with options o),
// or of every .json file under path when it is a folder (in sorted order), and sums their
// figures.
func harnessFiguresOf(t *testing.T, path string, o Options) harnessFigures {
	t.Helper()
	files := []string{path}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		files = nil
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
			c := countTrace(tr)
			f.runs++
			f.messages += c.messages
			f.calls += c.calls
			f.results += c.results
			f.fails += c.fails
			if tr.Outcome.Known && tr.Outcome.Succeeded(1-1e-6) {
				f.succeeded++
			}
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
	names := make([]string, 0, len(agents))
	for a := range agents {
		names = append(names, a)
	}
	sort.Strings(names)
	f.agents = strings.Join(names, "|")
	return f
}

// checkHarness compares the figures of the real source name's file rel with want.
func checkHarness(t *testing.T, name, rel string, o Options, want harnessFigures) {
	t.Helper()
	if got := harnessFiguresOf(t, realsources.Path(t, name, rel), o); got != want {
		t.Errorf("%s/%s:\n read %+v\n want %+v", name, rel, got, want)
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
// info.environment_info.domain_name; agent = info.agent_info.llm; a trial is (task_id, trial).

// TestRealSourceTau2JitrcGeminiFlash reads tau2-enhanced's gemini-2.5-flash airline run:
// 10 tasks, 2 trials each, in tau2's json format.
func TestRealSourceTau2JitrcGeminiFlash(t *testing.T) {
	checkHarness(t, "tau2-jitrc-gemini-flash-airline", "samples/logs/airline_gemini2_5_flash_10tasks_2t.json", Options{}, harnessFigures{
		realTotals: realTotals{runs: 20, messages: 382, calls: 79, results: 79, fails: 8, succeeded: 12},
		prompt:     760602, completion: 33504, withUsage: 20,
		suites: 1, tasks: 10, trials: 20, agents: "gemini/gemini-2.5-flash",
	})
}

// TestRealSourceTau2BlakeeliasGrok reads a fork's two runs of one airline-relaxed task by two
// agents, four trials each: grok-3-mini (no success) and grok-4-fast-reasoning (3 of 4).
func TestRealSourceTau2BlakeeliasGrok(t *testing.T) {
	checkHarness(t, "tau2-blakeelias-grok3-mini-relaxed",
		"data/simulations/2025-10-06T19:24:15.909785_airline_relaxed_llm_agent_grok-3-mini_user_simulator_grok-3-mini.json", Options{}, harnessFigures{
			realTotals: realTotals{runs: 4, messages: 86, calls: 16, results: 16, fails: 1, succeeded: 0},
			prompt:     209549, completion: 4740, withUsage: 4,
			suites: 1, tasks: 1, trials: 4, agents: "xai/grok-3-mini",
		})
	checkHarness(t, "tau2-blakeelias-grok4-fast-relaxed",
		"data/simulations/2025-10-07T07:44:20.888691_airline_relaxed_llm_agent_grok-4-fast-reasoning_user_simulator_grok-4-fast-reasoning.json", Options{}, harnessFigures{
			realTotals: realTotals{runs: 4, messages: 104, calls: 33, results: 33, fails: 0, succeeded: 3},
			prompt:     295382, completion: 6986, withUsage: 4,
			suites: 1, tasks: 1, trials: 4, agents: "xai/grok-4-fast-reasoning",
		})
}

// TestRealSourceTau2ActivegraphMock reads a vendored tau2-bench 1.x run (simulation_index,
// ticks null beside the messages) of the mock domain, whose task update_task_with_user_tools
// has the simulated user call a tool of its own: the user's call and its result are not the
// agent's (11 messages, 3 agent calls, 3 agent results).
func TestRealSourceTau2ActivegraphMock(t *testing.T) {
	checkHarness(t, "tau2-activegraph-gpt41-mini-mock", "runs/20260531-184109-726391/tau2_output/results.json", Options{}, harnessFigures{
		realTotals: realTotals{runs: 10, messages: 77, calls: 14, results: 14, fails: 0, succeeded: 8},
		prompt:     12568, completion: 625, withUsage: 10,
		suites: 1, tasks: 10, trials: 10, agents: "openai/gpt-4.1-mini",
	})
}

// TestRealSourceTau2SierraVoice reads tau2-bench's own full-duplex retail experiment in the
// dir format: results.json (no simulation_index, no simulations) and three
// simulations/<id>.json holding ticks and no messages. The simulations record no reward and
// no usage: no run succeeded by the harness's label, none is counted.
func TestRealSourceTau2SierraVoice(t *testing.T) {
	checkHarness(t, "tau2-sierra-voice-experiment", "tests/test_voice/test_interaction_metrics/testdata/experiment/results.json", Options{}, harnessFigures{
		realTotals: realTotals{runs: 3, messages: 8246, calls: 0, results: 0, fails: 0, succeeded: 0},
		suites:     1, tasks: 3, trials: 3, agents: "openai:gpt-realtime-2",
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
	checkHarness(t, "agentdojo-luna-gpt56", "runs/2026-07-18", Options{OutcomeField: "evaluation.utility"}, harnessFigures{
		realTotals: realTotals{runs: 215, messages: 2887, calls: 1364, results: 1364, fails: 54, succeeded: 63},
		suites:     12, tasks: 215, trials: 215, agents: "gpt-5.6-luna", crashes: 5,
	})
}

// TestRealSourceAgentDojoDrift reads DRIFT's gpt-4o-mini runs of AgentDojo v1.2's four
// suites: the 97 user tasks without attack and 949 under important_instructions.
func TestRealSourceAgentDojoDrift(t *testing.T) {
	checkHarness(t, "agentdojo-drift-gpt4o-mini", "runs/gpt-4o-mini-2024-07-18", Options{}, harnessFigures{
		realTotals: realTotals{runs: 1046, messages: 9057, calls: 3580, results: 3580, fails: 316, succeeded: 621},
		suites:     4, tasks: 1046, trials: 1046, agents: "gpt-4o-mini-2024-07-18",
	})
}

// TestRealSourceAgentDojoDriftAgentDyn reads DRIFT's later runs of the AgentDyn github suite
// (20 user tasks, each without attack and under 9 injection tasks of important_instructions).
func TestRealSourceAgentDojoDriftAgentDyn(t *testing.T) {
	checkHarness(t, "agentdojo-drift-agentdyn-github", "runs/gpt-4o-mini-2024-07-18/github", Options{}, harnessFigures{
		realTotals: realTotals{runs: 200, messages: 2406, calls: 910, results: 910, fails: 78, succeeded: 65},
		suites:     1, tasks: 200, trials: 200, agents: "gpt-4o-mini-2024-07-18",
	})
}
