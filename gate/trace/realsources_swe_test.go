//go:build realsources

package trace

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/internal/realsources"
)

// The SWE-bench harnesses' real outputs (docs/development.md#real-sources): SWE-agent's .traj
// (0.x and 1.x), mini-swe-agent's .traj.json and OpenHands' output.jsonl, each read file by
// file as its format's reader reads it, against what python3 counts in the same files.

// sweTotals are platformTotals (realTotals and the tokens, Usage.Total summed) with the runs
// that recorded no usage.
type sweTotals struct {
	platformTotals
	noUsage int
}

// sweFiles are the files under the real source name's folder rel, at any depth, whose names
// end in suffix, in lexical order of their paths; none fails the test.
func sweFiles(t *testing.T, name, rel, suffix string) []string {
	t.Helper()
	dir := realsources.Path(t, name, rel)
	var files []string
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() && strings.HasSuffix(path, suffix) {
			files = append(files, path)
		}
		return err
	})
	if err != nil || len(files) == 0 {
		t.Fatalf("%s: no file named *%s (%v)", dir, suffix, err)
	}
	slices.Sort(files)
	return files
}

// sweTotalsOf sums the reader's view of every trace in files, each read as its format's
// reader reads it (the registry recognises the file).
func sweTotalsOf(t *testing.T, files []string) sweTotals {
	t.Helper()
	var traces []*Trace
	for _, f := range files {
		traces = append(traces, readWith(t, f, Options{})...)
	}
	got := sweTotals{platformTotals: sumPlatformTotals(traces)}
	for _, tr := range traces {
		if !tr.Usage.Recorded {
			got.noUsage++
		}
	}
	return got
}

// TestRealSourceMiniSWEAgentGemini3 reads the 500 trajectories of a mini-swe-agent 1.15.0 run
// of SWE-bench Verified (gruckion/mini-swe-agent, gemini-3-pro-preview). python3 (json.load
// of each <id>/<id>.traj.json): len(messages); the assistant turns in which 1.x's
// action_regex (```bash\s*\n(.*?)\n``` , DOTALL) finds exactly one block are the calls; the
// next message (user) answers each; it failed when it begins <returncode>N</returncode> with
// N != 0, or <exception>, or is the harness's "The last command … timed out and has been
// killed."; the submission's diff answers the submitting command and is no failure; tokens:
// each assistant turn's extra.response.usage.total_tokens, summed. The trajectories record no
// outcome: that is sb-cli's report (gate/realsources_swe_test.go).
func TestRealSourceMiniSWEAgentGemini3(t *testing.T) {
	files := sweFiles(t, "mini-swe-agent-gemini3-verified", "swebench_results/20251118_gemini-3-pro-74pct/trajs", ".traj.json")
	want := sweTotals{platformTotals: platformTotals{realTotals{runs: 500, messages: 41326, calls: 19479, results: 19479, fails: 1464}, 338604681}}
	if got := sweTotalsOf(t, files); got != want {
		t.Errorf("read %+v, want %+v", got, want)
	}
}

// TestRealSourceSWEAgent reads four real sets of SWE-agent trajectories: SWE-agent's own test
// runs (0.x, gpt4, one with function calling); its demonstrations (replays and human-written
// runs, 0.x and 1.x, model_stats at zero: no usage); and two Multi-SWE-bench Java submissions
// of SWE-agent 0.x (gpt-4o, deepseek-chat-v2), whose runs end on an action no observation
// answers (the submission, exit_cost). python3 (json.load of each .traj): len(history); an assistant message's
// tool_calls are calls, each answered by the tool message listing its id in tool_call_ids
// (failed when its content, left-stripped, begins "error" in any case); without tool_calls a
// non-empty "action" (for message_type "action" with none: the last fenced block of the
// content) other than SWE-agent's own exits (exit_api, exit_context, exit_cost, exit_error,
// exit_format: 69 of the gpt-4o runs and 29 of the deepseek runs end on one) is one call, answered by the next user or tool message, which failed when it begins
// <returncode>N</returncode> with N != 0, or "error" in any case, or holds "wrong flag",
// "command not found", "no such file or directory", "introduced new syntax error", "usage: "
// or "timed out and has been killed" (any case); tokens: info.model_stats.tokens_sent +
// tokens_received, a run whose counters are 0 recording none.
func TestRealSourceSWEAgent(t *testing.T) {
	for _, c := range []struct {
		name, rel, pattern string
		want               sweTotals
	}{
		{"swe-agent-test-trajectories", "tests/test_data/trajectories", ".traj",
			sweTotals{platformTotals{realTotals{runs: 3, messages: 48, calls: 21, results: 19, fails: 3}, 184552}, 0}},
		{"swe-agent-demonstrations", "trajectories/demonstrations", ".traj",
			sweTotals{platformTotals{realTotals{runs: 19, messages: 441, calls: 209, results: 194, fails: 15}, 0}, 19}},
		{"multi-swe-bench-sweagent-gpt4o", "evaluation/java/verified/20240825_SWE-agent_gpt-4o-2024-05-13/trajs", ".traj",
			sweTotals{platformTotals{realTotals{runs: 89, messages: 2764, calls: 1224, results: 1204, fails: 191}, 12892122}, 0}},
		{"multi-swe-bench-sweagent-deepseek", "evaluation/java/verified/20240825_SWE-agent_deepseek-chat-v2/trajs", ".traj",
			sweTotals{platformTotals{realTotals{runs: 91, messages: 2790, calls: 1275, results: 1213, fails: 275}, 16177005}, 0}},
	} {
		if got := sweTotalsOf(t, sweFiles(t, c.name, c.rel, c.pattern)); got != c.want {
			t.Errorf("%s: read %+v, want %+v", c.name, got, c.want)
		}
	}
}

// TestRealSourceOpenHandsOutput reads two OpenHands run_infer.py outputs: OpenHands' own
// example of its Multi-SWE-bench run (3 lines, llama-4-maverick; one ended by the iteration
// limit, with two error observations of calls whose arguments failed validation, which no
// action precedes), and a MopenHands fork's run (1 line of an older OpenHands: no system or
// recall events, metrics without token usage). python3 (json.loads of each line): len(history);
// an agent action with tool_call_metadata other than finish (the agent's last word, which
// nothing answers: docs/trace-formats.md, OpenHands) is one call; the observation whose
// cause is a call's id answers it, failed when it is an "error" observation or its success is
// false, or, without success, a run observation whose extras.metadata.exit_code is not 0;
// tokens: metrics.accumulated_token_usage prompt_tokens + completion_tokens. Neither line was
// evaluated (no report).
func TestRealSourceOpenHandsOutput(t *testing.T) {
	for _, c := range []struct {
		name, rel string
		want      sweTotals
	}{
		{"openhands-multi-swe-bench-example", "evaluation/benchmarks/multi_swe_bench/examples/output.jsonl",
			sweTotals{platformTotals{realTotals{runs: 3, messages: 222, calls: 103, results: 103, fails: 19}, 1926683}, 0}},
		{"openhands-python-openhands-output", "output.jsonl",
			sweTotals{platformTotals{realTotals{runs: 1, messages: 40, calls: 19, results: 19, fails: 6}, 0}, 1}},
	} {
		if got := sweTotalsOf(t, []string{realsources.Path(t, c.name, c.rel)}); got != c.want {
			t.Errorf("%s: read %+v, want %+v", c.name, got, c.want)
		}
	}
}
