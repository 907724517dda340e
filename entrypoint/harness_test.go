package entrypoint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHarnessFiles runs the gate on files as tau2-bench, mini-swe-agent and Inspect write them
// (gate/trace/testdata/formats): they are read as they are, and an outcome that cannot be
// read, or an outcome-scorer that names no scorer, is bad input (exit 3) with its place.
func TestHarnessFiles(t *testing.T) {
	formats := filepath.Join("..", "gate", "trace", "testdata", "formats")
	for _, c := range []struct {
		name  string
		files string
		want  string // a line of stdout
	}{
		{"tau2-bench results", filepath.Join(formats, "tau2-telecom.json"), "3 traces"},
		{"tau2-bench dir format", filepath.Join(formats, "tau2-dir"), "1 trace"},
		{"mini-swe-agent trajectories", filepath.Join(formats, "minisweagent"), "3 traces"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := cli(t, "", "gate", "--traces", c.files, "--profile", "reference")
			if code == 3 || !strings.Contains(stdout, c.want) {
				t.Errorf("exit %d\n%s%s", code, stdout, stderr)
			}
		})
	}

	inspect := filepath.Join(formats, "inspect-scores.json")
	if code, stdout, stderr := cli(t, "", "gate", "--traces", inspect, "--outcome-scorer", "model_graded_qa"); code == 3 {
		t.Errorf("a scorer the log has: exit 3\n%s%s", stdout, stderr)
	}
	code, _, stderr := cli(t, "", "gate", "--traces", inspect, "--outcome-scorer", "exact")
	if want := "agentgate: " + inspect + ":86:17: samples[0].scores has no scorer \"exact\" (outcome-scorer); it has includes, model_graded_qa\n"; code != 3 || stderr != want {
		t.Errorf("exit %d, stderr\n got %q\nwant %q", code, stderr, want)
	}

	bad := filepath.Join(t.TempDir(), "results.json")
	if err := os.WriteFile(bad, []byte(`{"info": {}, "tasks": [], "simulations": [`+"\n"+`  {"id": "s1", "task_id": "1", "trial": 0, "reward_info": {"reward": "yes"}, "messages": []}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = cli(t, "", "gate", "--traces", bad)
	if want := "agentgate: " + bad + ":2:70: field \"reward_info.reward\": expected a number, found a string (\"yes\")\n"; code != 3 || stderr != want {
		t.Errorf("exit %d, stderr\n got %q\nwant %q", code, stderr, want)
	}
}
