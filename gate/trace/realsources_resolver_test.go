//go:build realsources

package trace

import (
	"testing"

	"github.com/agentgate/agentgate/internal/realsources"
)

// TestRealSourceOpenHandsResolver reads OpenHands' own resolver test output, as the resolver
// was first merged (2024) and as it is now: 2 runs each. python3 (json.loads a line): len(history)
// summed; actions whose kind is not message, system, recall, finish, think, … (the calls); the
// observation right after each (its result), failed when it is an error or a run whose exit_code
// is not 0; success true.
func TestRealSourceOpenHandsResolver(t *testing.T) {
	want := realTotals{runs: 2, messages: 8 + 44, calls: 3 + 21, results: 24, fails: 0, succeeded: 2}
	for _, name := range []string{"openhands-resolver-mock-output", "openhands-resolver-mock-output-2024"} {
		p := realsources.Path(t, name, "tests/unit/resolver/mock_output/output.jsonl")
		if f, err := Sniff(p); err != nil || f != FormatOpenHandsResolver {
			t.Fatalf("%s: Sniff = %v, %v", name, f, err)
		}
		if got := sumTotals(readWith(t, p, Options{})); got != want {
			t.Errorf("%s: read %+v, want %+v", name, got, want)
		}
	}
}

// TestRealSourceMiniSWEBareLists reads the bare message lists mini-swe-agent's tests keep
// (tests/test_data/local.traj.json and github_issue.traj.json) in three versions: upstream's
// first (nanoswea, <args> observations), upstream's now (2.x action blocks) and a fork's older
// copy. python3 (json.load): messages; assistant turns with exactly one match of the pre-1.0
// re.findall(r"```[a-zA-Z]*\n(.*?)(?=\n```|```)", re.DOTALL), or else of the current
// r"```(?:bash|mswea_bash_command)\s*\n(.*?)\n```" (the calls); the next user message (the
// result), failed when its <returncode> (after an <args> block) is not 0.
func TestRealSourceMiniSWEBareLists(t *testing.T) {
	want := realTotals{runs: 2, messages: 6 + 22, calls: 2 + 10, results: 12, fails: 2}
	for _, name := range []string{"mini-swe-agent-test-data-nanoswea", "mini-swe-agent-test-data", "mini-swe-agent-fork-test-data"} {
		var got realTotals
		for _, f := range []string{"local.traj.json", "github_issue.traj.json"} {
			p := realsources.Path(t, name, "tests/test_data/"+f)
			if format, err := Sniff(p); err != nil || format != FormatMessageList {
				t.Fatalf("%s/%s: Sniff = %v, %v", name, f, format, err)
			}
			for _, tr := range readWith(t, p, Options{}) {
				got.add(tr)
			}
		}
		if got != want {
			t.Errorf("%s: read %+v, want %+v", name, got, want)
		}
	}
}
