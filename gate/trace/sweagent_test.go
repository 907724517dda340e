package trace

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/input"
)

// FuzzSWEAgentConfig: whatever a config beside a SWE-agent trajectory holds, reading it
// returns a model or an *input.Error naming the file, never a panic; the configs SWE-agent
// writes (testdata/folders/sweagent-1.x) are the seeds.
func FuzzSWEAgentConfig(f *testing.F) {
	for _, p := range []string{
		filepath.Join("testdata", "folders", "sweagent-1.x", "batch", "django__django-11133", "django__django-11133.config.yaml"),
		filepath.Join("testdata", "folders", "sweagent-1.x", "single", "django__django-11133", "config.yaml"),
		filepath.Join("testdata", "folders", "sweagent-1.x", "batch", "run_batch.config.yaml"),
	} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("agent:\n  model:\n    name: gpt-4o\n"))
	f.Add([]byte(`'{"agent":{"agent_configs":[{"model":{"name":"a"}},{"model":{"name":"b"}}]}}'`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "config.yaml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := readSideConfig(path)
		var ie *input.Error
		if err != nil && (!errors.As(err, &ie) || ie.File != path) {
			t.Fatalf("error %v is not an input error naming the file", err)
		}
	})
}

// TestSWEAgentModel: the model a SWE-agent config names: agent.model.name, model_name before
// 1.0, a RetryAgent's agent_configs' models in order, each once, joined by "+"; none else.
func TestSWEAgentModel(t *testing.T) {
	for cfg, want := range map[string]string{
		`{"agent":{"model":{"name":"gpt-4o"}}}`:                                                              "gpt-4o",
		`{"agent":{"model":{"model_name":"gpt4"}}}`:                                                          "gpt4",
		`{"agent":{"agent_configs":[{"model":{"name":"a"}},{"model":{"name":"b"}},{"model":{"name":"a"}}]}}`: "a+b",
		`{"agent":{"agent_configs":{"model":{"name":"a"}}}}`:                                                 "",
		`{"agent":{"name":"main"}}`:                                                                          "",
		`{"agent":`:                                                                                          "",
	} {
		if got := sweAgentModel([]byte(cfg)); got != want {
			t.Errorf("%s: %q, want %q", cfg, got, want)
		}
	}
}

// TestSWEAgentOwnExits: a SWE-agent 0.x history that ends on the harness's own exit (the cost
// limit here: {"role": "assistant", "content": "Exit due to cost limit", "action": "exit_cost"},
// which the environment autosubmits and no observation answers) holds no call of it: the
// model called only search_dir and open. So for each of SWE-agent's exits; exit_forfeit, a
// command the model itself may call, stays a call. Before, the exit was a call that never got
// a result (69 of the 89 runs of a real Multi-SWE-bench submission were flagged so).
func TestSWEAgentOwnExits(t *testing.T) {
	src := filepath.Join("testdata", "formats", "sweagent-0.7", "sympy__sympy-20590.traj")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, c := range []struct {
		exit  string
		tools string
	}{
		{"exit_cost", "search_dir,open"},
		{"exit_context", "search_dir,open"},
		{"exit_error", "search_dir,open"},
		{"exit_api", "search_dir,open"},
		{"exit_format", "search_dir,open"},
		{"exit_forfeit", "search_dir,open,exit_forfeit"},
	} {
		path := filepath.Join(dir, c.exit, "sympy__sympy-20590.traj")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, bytes.ReplaceAll(data, []byte(`"exit_cost"`), []byte(`"`+c.exit+`"`)), 0o644); err != nil {
			t.Fatal(err)
		}
		got := readAll(t, path)
		if len(got) != 1 {
			t.Fatalf("%s: %d traces", c.exit, len(got))
		}
		tr := got[0]
		var tools []string
		for _, m := range tr.Messages {
			for _, call := range m.Calls {
				tools = append(tools, call.Tool)
			}
		}
		last := tr.Messages[len(tr.Messages)-1]
		if strings.Join(tools, ",") != c.tools || len(tr.Messages) != 7 || last.Role != "assistant" || last.Content != "Exit due to cost limit" ||
			tr.Usage != (Usage{290123, 1204, 291327, true}) {
			t.Errorf("%s: calls %v, %d messages, last %+v, usage %+v; want calls %s, 7 messages, the exit's text kept", c.exit, tools, len(tr.Messages), last, tr.Usage, c.tools)
		}
	}
}
