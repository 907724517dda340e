package trace

import (
	"errors"
	"os"
	"path/filepath"
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
