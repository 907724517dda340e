package trace

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// TestTau2AgentImplementation: tau2 names a run for its agent implementation and its model
// (runner/helpers.py, make_run_name: "<implementation>_<model>"), and a team compares agent
// implementations on one model (tau2-enhanced's llm_agent, context_agent, retry_agent and
// enhanced_agent of gemini-2.5-flash): the run's agent is its model after its implementation,
// so that two implementations are two agents (docs/trace-formats.md, "Agents"); tau2's default
// llm_agent, or none, names the model alone.
func TestTau2AgentImplementation(t *testing.T) {
	src := filepath.Join("testdata", "formats", "tau2-telecom.json")
	for _, c := range []struct {
		agentInfo string
		want      string
	}{
		{`{"implementation": "llm_agent", "llm": "gpt-4.1-2025-04-14"}`, "gpt-4.1-2025-04-14"},
		{`{"llm": "gpt-4.1-2025-04-14"}`, "gpt-4.1-2025-04-14"},
		{`{"implementation": null, "llm": "gpt-4.1-2025-04-14"}`, "gpt-4.1-2025-04-14"},
		{`{"implementation": "context_agent", "llm": "gemini/gemini-2.5-flash"}`, "context_agent/gemini/gemini-2.5-flash"},
		{`{"implementation": "retry_agent", "llm": null}`, "retry_agent"},
		{`{"implementation": "llm_agent"}`, ""},
	} {
		path := rewrite(t, src, "results.json", func(m map[string]json.RawMessage) {
			var info map[string]json.RawMessage
			if err := json.Unmarshal(m["info"], &info); err != nil {
				t.Fatal(err)
			}
			info["agent_info"] = json.RawMessage(c.agentInfo)
			data, err := json.Marshal(info)
			if err != nil {
				t.Fatal(err)
			}
			m["info"] = data
		})
		traces := readWith(t, path, Options{})
		if len(traces) == 0 {
			t.Fatalf("%s: no trace", c.agentInfo)
		}
		for _, tr := range traces {
			if tr.Agent != c.want {
				t.Errorf("agent_info %s: %s: agent %q, want %q", c.agentInfo, tr.ID, tr.Agent, c.want)
			}
		}
	}
}
