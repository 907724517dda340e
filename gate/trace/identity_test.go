package trace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/internal/refdata"
	"github.com/agentgate/agentgate/internal/testfiles"
)

// identities reads the traces of path and lists each as "id suite/task/trial" (trial "-"
// when it has none).
func identities(t *testing.T, path string) []string {
	t.Helper()
	var out []string
	for _, tr := range readWith(t, path, Options{}) {
		trial := "-"
		if tr.HasTrial {
			trial = fmt.Sprint(tr.Trial)
		}
		out = append(out, fmt.Sprintf("%s %s/%s/%s", tr.ID, tr.Suite, tr.Task, trial))
	}
	return out
}

// TestIdentityByHarness reads each harness's identity where it records it (docs/design.md#run-identity): tau2's
// domain, task_id and trial; Inspect's eval task, sample id and epoch, in a .json log and a
// .eval archive; mini-swe-agent's instance_id; SWE-agent's file stem; tau-bench's task_id and
// trial, with the domain its policy names. The trace ids stay as they were.
func TestIdentityByHarness(t *testing.T) {
	dir := filepath.Join("testdata", "formats")
	for _, c := range []struct {
		path string
		want []string
	}{
		{filepath.Join(dir, "tau2-telecom.json"), []string{
			"4f0c2a52-55f3-4b0e-9a8a-2d5e3c1a9b01 telecom/" + tau2Task + "/0",
			"9d2e7b10-1c44-4f7e-8f3a-6a0b7d2c5e02 telecom/" + tau2Task + "/1",
			"c1a3f5e7-2b4d-4c6e-8f0a-1b3d5f7a9c03 telecom/[billing]view_bill[PERSONA:None]/0"}},
		// tau2's dir format: the simulations beside results.json are of its domain
		{filepath.Join(dir, "tau2-dir", "results.json"), []string{"9d2e7b10-1c44-4f7e-8f3a-6a0b7d2c5e02 telecom/" + tau2Task + "/1"}},
		{filepath.Join(dir, "inspect-tools.json"), []string{"s1#1 demo/s1/1", "s1#2 demo/s1/2", "2#1 demo/2/1"}},
		{filepath.Join(dir, "inspect-tools.eval"), []string{"s1#1 demo/s1/1", "s1#2 demo/s1/2"}},
		{filepath.Join(dir, "minisweagent", "sympy__sympy-20590.traj.json"), []string{"sympy__sympy-20590 /sympy__sympy-20590/-"}},
		// tau-bench records no domain: its runs' system message, the policy, names it
		{refdata.Path(t, "transcripts/tau-bench-airline-sample.json"), []string{"0#0 airline/0/0", "0#2 airline/0/2", "0#3 airline/0/3",
			"3#0 airline/3/0", "3#1 airline/3/1", "3#2 airline/3/2", "3#3 airline/3/3", "4#2 airline/4/2", "8#1 airline/8/1", "9#2 airline/9/2"}},
	} {
		if got := identities(t, c.path); !slices.Equal(got, c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.path, got, c.want)
		}
	}
	// SWE-agent's .traj has no id: the trace id is <file>:1, the task the file's stem
	traj := refdata.Path(t, "transcripts/swe-agent-function_calling_simple.traj")
	tmp := filepath.Join(t.TempDir(), "django__django-11099.traj")
	data, err := os.ReadFile(traj)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := identities(t, tmp), []string{tmp + ":1 /django__django-11099/-"}; !slices.Equal(got, want) {
		t.Errorf("SWE-agent: got %q, want %q", got, want)
	}
}

// TestIdentityOfRecords: RS-1 and chat records name their suite, task and trial at the top
// level or under metadata; task_id comes first, then task, then metadata.task_id; a member
// that is not a string or a number names nothing, and no identity member changes the id.
func TestIdentityOfRecords(t *testing.T) {
	msgs := `"messages": [{"role": "user", "content": "hi"}]`
	for _, c := range []struct{ rec, want string }{
		{`{"id": "a", "suite": "retail", "task": "t1", "trial": 2, ` + msgs + `}`, "a retail/t1/2"},
		{`{"id": "a", "metadata": {"suite": "s", "task_id": 7, "trial": "3"}, ` + msgs + `}`, "a s/7/3"},
		{`{"id": "a", "task_id": "x", "task": "y", "metadata": {"task_id": "z"}, ` + msgs + `}`, "a /x/-"},
		{`{"id": "a", "task": "y", "metadata": {"task_id": "z"}, ` + msgs + `}`, "a /y/-"},
		{`{"id": "a", "task": {"goal": "y"}, "suite": ["s"], ` + msgs + `}`, "a //-"},
		{`{"id": "a", "instance_id": "repo__repo-1", ` + msgs + `}`, "a /repo__repo-1/-"},
	} {
		tr, err := Decode(input.Record{File: "r.jsonl", Line: 1, Col: 1, Data: []byte(c.rec)})
		if err != nil {
			t.Fatalf("%s: %v", c.rec, err)
		}
		trial := "-"
		if tr.HasTrial {
			trial = fmt.Sprint(tr.Trial)
		}
		if got := fmt.Sprintf("%s %s/%s/%s", tr.ID, tr.Suite, tr.Task, trial); got != c.want {
			t.Errorf("%s: %s, want %s", c.rec, got, c.want)
		}
	}
}

// TestDocString reads a member's string at a path without reading past it, and nothing where
// there is none.
func TestDocString(t *testing.T) {
	doc := []byte(`{"a": 1, "info": {"environment_info": {"domain_name": "airline"}, "x": [}`)
	if got := docString(doc, "info", "environment_info", "domain_name"); got != "airline" {
		t.Errorf("got %q", got)
	}
	for _, keys := range [][]string{{"info", "nope"}, {"a", "b"}, {"info", "environment_info"}, {"zz"}} {
		if got := docString(doc, keys...); got != "" {
			t.Errorf("%v: got %q, want none", keys, got)
		}
	}
}

// TestPolicyDomain: tau-bench's two policy documents, as its wiki.md files title them
// (sierra-research/tau-bench 59a200c6, tau_bench/envs/*/wiki.md), name the runs' domains; a
// system message that is no policy, or a first message that is not the system's, names none.
func TestPolicyDomain(t *testing.T) {
	for _, c := range []struct {
		msgs []Message
		want string
	}{
		{[]Message{{Role: "system", Content: "# Airline Agent Policy\n\nThe current time is 2024-05-15 15:00:00 EST."}}, "airline"},
		{[]Message{{Role: "system", Content: "# Retail agent policy\n\nAs a retail agent, you can help users"}, {Role: "user", Content: "hi"}}, "retail"},
		{[]Message{{Role: "system", Content: "#  Telecom_2 Agent Policy  "}}, "telecom_2"},
		{[]Message{{Role: "system", Content: "You are a helpful agent. # Airline Agent Policy"}}, ""},
		{[]Message{{Role: "system", Content: "# Two words agent policy"}}, ""},
		{[]Message{{Role: "system", Content: "# Agent policy"}}, ""},
		{[]Message{{Role: "user", Content: "# Airline Agent Policy"}}, ""},
		{nil, ""},
	} {
		if got := policyDomain(c.msgs); got != c.want {
			t.Errorf("%+v: %q, want %q", c.msgs, got, c.want)
		}
	}
}

// TestAgentByHarness: the agent of a run where its harness records one: tau2's
// info.agent_info.llm (in a results file and its dir format), Inspect's eval.model (a .json log
// and a .eval archive), mini-swe-agent's info.config.model.model_name, SWE-agent's
// replay_config (agent.model.name) or, before 1.0, its run folder, OpenHands' agent_class and
// llm_config.model (a completion log: the model it is named for), AgentDojo's pipeline_name
// (its own files and a fork's). tau-bench's result file names are TestTauBenchAgent's.
func TestAgentByHarness(t *testing.T) {
	dir := filepath.Join("testdata", "formats")
	dojo := filepath.Join(dir, "agentdojo", "runs")
	fork := filepath.Join(dir, "agentdojo-fork", "runs", "2026-07-18", "codex1", "airport",
		"20260718_132659_made-up-model_airport_t01", "made-up-model", "airport_suite", "airport", "t01", "poison_top1", "seed_1.json")
	for path, want := range map[string]string{
		filepath.Join(dir, "tau2-telecom.json"):                                             "gpt-4.1-2025-04-14",
		filepath.Join(dir, "tau2-dir", "results.json"):                                      "gpt-4.1-2025-04-14",
		filepath.Join(dir, "inspect-tools.json"):                                            "openai/gpt-4o",
		filepath.Join(dir, "inspect-tools.eval"):                                            "openai/gpt-4o",
		filepath.Join(dir, "minisweagent", "sympy__sympy-20590.traj.json"):                  "anthropic/claude-sonnet-4-20250514",
		filepath.Join(dir, "sweagent", "django__django-11133", "django__django-11133.traj"): "claude-3-7-sonnet-20250219",
		filepath.Join("testdata", "folders", "sweagent", "trajectories", "alice", "default__gpt-4o__t-0.00__p-0.95__c-2.00__install-1", "django__django-11133.traj"): "default__gpt-4o__t-0.00__p-0.95__c-2.00__install-1",
		filepath.Join(dir, "openhands", "output.jsonl"): "CodeActAgent/litellm_proxy/claude-sonnet-4-20250514",
		filepath.Join(dir, "openhands", "llm_completions", "django__django-11099", "claude-sonnet-4-20250514-1763632900.25.json"): "claude-sonnet-4-20250514",
		filepath.Join(dojo, "gpt-4o-2024-05-13", "banking", "user_task_0", "none", "none.json"):                                   "gpt-4o-2024-05-13",
		filepath.Join(dojo, "claude-3-5-sonnet-20240620", "slack", "user_task_1", "none", "none.json"):                            "claude-3-5-sonnet-20240620",
		fork: "made-up-model",
		refdata.Path(t, "transcripts/swe-agent-function_calling_simple.traj"): "",
	} {
		for _, tr := range readWith(t, path, Options{}) {
			if tr.Agent != want {
				t.Errorf("%s: %s: agent %q, want %q", path, tr.ID, tr.Agent, want)
			}
		}
	}
}

// TestTauBenchAgent: tau-bench's run.py names a result file for the agent that made its runs,
// {agent_strategy}-{model}-{temperature}_range_{start}-{end}_user-{user_model}-{user_strategy}_{time}.json
// (sierra-research/tau-bench 59a200c6, tau_bench/run.py; end is -1 for "to the last task");
// a file named otherwise names none.
func TestTauBenchAgent(t *testing.T) {
	for file, want := range map[string]string{
		"results/tool-calling-gpt-4o-0.0_range_0-50_user-gpt-4o-llm_1128093012.json":              "tool-calling-gpt-4o-0.0",
		"results/react-claude-3-5-sonnet-20240620-0.0_range_0--1_user-gpt-4o-llm_0101000000.json": "react-claude-3-5-sonnet-20240620-0.0",
		`C:\runs\act-gpt-4o-mini-0.7_range_10-20_user-gpt-4o-react_0101000000.json.gz`:            "act-gpt-4o-mini-0.7",
		"historical_trajectories/gpt-4o-airline.json":                                             "",
		"tool-calling-gpt-4o-0.0_range_0-50.json":                                                 "",
		"_range_0-50_user-x_1.json":                                                               "",
	} {
		if got := tauBenchAgent(file); got != want {
			t.Errorf("%s: %q, want %q", file, got, want)
		}
	}
}

// TestSWEAgentConfigBeside: a SWE-agent 1.x RetryAgent's trajectory holds replay_config null
// (the chosen attempt's, whose agent was given none); the agent is read from the config
// SWE-agent wrote beside it (testdata/folders/sweagent-1.x, generated as run_batch and
// run_single write them: <id>.config.yaml, config.yaml, each yaml.dump of the config's JSON,
// single- and double-quoted), its agent_configs' models joined by "+", and the trace names the
// side file read. On main both read no agent. A trajectory that records its config reads no
// side file, and neither does mini-swe-agent's .traj.json.
func TestSWEAgentConfigBeside(t *testing.T) {
	dir := filepath.Join("testdata", "folders", "sweagent-1.x")
	batch := filepath.Join(dir, "batch", "django__django-11133")
	single := filepath.Join(dir, "single", "django__django-11133")
	for _, c := range []struct{ traj, agent, side string }{
		{filepath.Join(batch, "django__django-11133.traj"), "claude-3-7-sonnet-20250219", filepath.Join(batch, "django__django-11133.config.yaml")},
		{filepath.Join(single, "django__django-11133.traj"), "gpt-4o+o3-mini", filepath.Join(single, "config.yaml")},
	} {
		trs := readWith(t, c.traj, Options{})
		if len(trs) != 1 || trs[0].Agent != c.agent || trs[0].SideFile != c.side || trs[0].Task != "django__django-11133" {
			t.Errorf("%s: %d traces, agent %q side %q, want %q from %q", c.traj, len(trs), trs[0].Agent, trs[0].SideFile, c.agent, c.side)
		}
	}
	// a trajectory with its replay_config, beside a config naming another model: its own
	tmp := t.TempDir()
	traj := filepath.Join(tmp, "django__django-11133", "django__django-11133.traj")
	testfiles.Copy(t, filepath.Join("testdata", "formats", "sweagent", "django__django-11133", "django__django-11133.traj"), traj)
	testfiles.Copy(t, filepath.Join(single, "config.yaml"), filepath.Join(filepath.Dir(traj), "config.yaml"))
	if trs := readWith(t, traj, Options{}); trs[0].Agent != "claude-3-7-sonnet-20250219" || trs[0].SideFile != "" {
		t.Errorf("with replay_config: agent %q, side %q", trs[0].Agent, trs[0].SideFile)
	}
	mini := filepath.Join(tmp, "sympy__sympy-20590", "sympy__sympy-20590.traj.json")
	testfiles.Copy(t, filepath.Join("testdata", "formats", "minisweagent", "sympy__sympy-20590.traj.json"), mini)
	testfiles.Copy(t, filepath.Join(single, "config.yaml"), filepath.Join(filepath.Dir(mini), "config.yaml"))
	if trs := readWith(t, mini, Options{}); trs[0].Agent != "anthropic/claude-sonnet-4-20250514" || trs[0].SideFile != "" {
		t.Errorf("mini-swe-agent: agent %q, side %q", trs[0].Agent, trs[0].SideFile)
	}
}

// TestSWEAgentConfigBesideErrors: a config beside a trajectory without replay_config that is
// not as SWE-agent writes it is an error naming it (exit 3), never a silent skip; a config
// written as a YAML mapping is read as well.
func TestSWEAgentConfigBesideErrors(t *testing.T) {
	src := filepath.Join("testdata", "folders", "sweagent-1.x", "batch", "django__django-11133", "django__django-11133.traj")
	for _, c := range []struct{ name, config, agent, err string }{
		{"mapping", "agent:\n  model:\n    name: gpt-4o\n", "gpt-4o", ""},
		{"empty", "", "", ""},
		{"not yaml", "'{\"agent\": \n\t- x", "", `config.yaml: a SWE-agent config beside a trajectory, but not YAML: `},
		{"not json", "'agent: {model: x'\n", "", `config.yaml:1:1: a SWE-agent config beside a trajectory holds a string that is not the config's JSON`},
		{"a list", "- a\n- b\n", "", `config.yaml:1:1: a SWE-agent config beside a trajectory, but neither the config's JSON as a string nor a mapping`},
		{"too large", "'" + strings.Repeat("x", maxSideConfig) + "'", "", `config.yaml: a SWE-agent config beside a trajectory holds more than 8388608 bytes: not read`},
	} {
		dir := t.TempDir()
		traj := filepath.Join(dir, "django__django-11133.traj")
		testfiles.Copy(t, src, traj)
		if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(c.config), 0o644); err != nil {
			t.Fatal(err)
		}
		var got []*Trace
		err := EachFileWith(context.Background(), traj, Options{}, func(tr *Trace) error { got = append(got, tr); return nil })
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.err == "" && (len(got) != 1 || got[0].Agent != c.agent):
			t.Errorf("%s: %d traces, want agent %q", c.name, len(got), c.agent)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want %q", c.name, err, c.err)
		}
	}
}
