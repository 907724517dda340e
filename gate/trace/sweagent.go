package trace

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/internal/jsonscan"
)

// SWE-agent 1.x saves the run's config twice: in the trajectory, as replay_config (the
// RunSingleConfig as JSON text), and beside it, as YAML (docs/trace-formats.md, "Agents").
// run_batch writes <output_dir>/<instance_id>/<instance_id>.config.yaml next to
// <instance_id>.traj, run_single <output_dir>/<instance_id>/config.yaml, each
// yaml.dump(config.model_dump_json()): a YAML string whose text is the JSON. A RetryAgent's
// trajectory holds the chosen attempt's replay_config, which is null (its inner agents are
// given none), so the file beside it is where the agent is named.

// sweAgentExits are the actions SWE-agent 0.x writes into a run's history when it stops the
// run itself rather than run the model's command: the cost limit, the context window, a
// runtime error, the API's retries, the format retries (sweagent/agent/agents.py,
// forward_with_error_check and check_format_and_requery; sweagent/environment/swe_env.py's
// step autosubmits on them, and the history holds no observation of them). They are not the
// model's calls (docs/trace-formats.md, "SWE-agent's own exits").
var sweAgentExits = [...]string{"exit_api", "exit_context", "exit_cost", "exit_error", "exit_format"}

// sweAgentExit reports whether a history message's action is one of SWE-agent's own exits.
func sweAgentExit(action string) bool {
	return slices.Contains(sweAgentExits[:], strings.TrimSpace(action))
}

// maxSideConfig is the most bytes a side config may hold: SWE-agent's are tens of KiB (its
// templates), and one past this is refused rather than read whole.
const maxSideConfig = 8 << 20

// sweAgentModel is the model a SWE-agent config names (its RunSingleConfig or RunBatchConfig
// as JSON): agent.model.name (model_name before SWE-agent 1.0), else, for a RetryAgent, the
// models of its agent_configs in order, distinct, joined by "+". "" when it names none.
func sweAgentModel(cfg []byte) string {
	for _, key := range [...]string{"name", "model_name"} {
		if s := docString(cfg, "agent", "model", key); s != "" {
			return s
		}
	}
	configs := docValue(cfg, "agent", "agent_configs")
	if len(configs) == 0 || configs[0] != '[' {
		return ""
	}
	var models []string
	_, _ = jsonscan.EachElement(configs, 0, func(start, end int) error {
		if s := docString(configs[start:end], "model", "name"); s != "" && !slices.Contains(models, s) {
			models = append(models, s)
		}
		return nil
	})
	return strings.Join(models, "+")
}

// sweAgentSideConfig is the agent named by the config SWE-agent wrote beside the trajectory
// traj (a .traj, not mini-swe-agent's .traj.json), and the path of the file it was read from:
// <instance_id>.config.yaml (run_batch), else config.yaml (run_single). "" and "" when the
// trajectory is not SWE-agent's or neither file is there. A side file that is there but
// cannot be read as SWE-agent writes it is an error naming it.
func sweAgentSideConfig(traj string) (agent, side string, err error) {
	base := strings.TrimSuffix(filepath.Base(traj), ".gz")
	stem, ok := strings.CutSuffix(base, ".traj")
	if !ok || stem == "" {
		return "", "", nil
	}
	dir := filepath.Dir(traj)
	for _, name := range [...]string{stem + ".config.yaml", "config.yaml"} {
		path := filepath.Join(dir, name)
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		agent, err := readSideConfig(path)
		return agent, path, err
	}
	return "", "", nil
}

// readSideConfig reads the SWE-agent config at path (a YAML string holding the config's JSON,
// as SWE-agent writes it, or the config as a YAML mapping) and returns the model it names.
func readSideConfig(path string) (string, error) {
	f, err := input.OpenRegular(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSideConfig+1))
	if err != nil {
		return "", &input.Error{File: path, Msg: fmt.Sprintf("read error: %v", err)}
	}
	if len(data) > maxSideConfig {
		return "", &input.Error{File: path, Msg: fmt.Sprintf("a SWE-agent config beside a trajectory holds more than %d bytes: not read", maxSideConfig)}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return "", &input.Error{File: path, Msg: "a SWE-agent config beside a trajectory, but not YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return "", nil // empty
	}
	n := doc.Content[0]
	var cfg []byte
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag == "!!str":
		cfg = []byte(n.Value)
		if jsonscan.Validate(cfg) != nil || cfg[0] != '{' {
			return "", &input.Error{File: path, Line: n.Line, Col: n.Column, Msg: "a SWE-agent config beside a trajectory holds a string that is not the config's JSON (SWE-agent writes yaml.dump(config.model_dump_json()))"}
		}
	case n.Kind == yaml.MappingNode:
		var v any
		if err := n.Decode(&v); err != nil {
			return "", &input.Error{File: path, Line: n.Line, Col: n.Column, Msg: "a SWE-agent config beside a trajectory: " + strings.TrimPrefix(err.Error(), "yaml: ")}
		}
		if cfg, err = json.Marshal(v); err != nil {
			return "", &input.Error{File: path, Line: n.Line, Col: n.Column, Msg: "a SWE-agent config beside a trajectory whose keys are not all strings"}
		}
	default:
		return "", &input.Error{File: path, Line: n.Line, Col: n.Column, Msg: "a SWE-agent config beside a trajectory, but neither the config's JSON as a string nor a mapping"}
	}
	return sweAgentModel(cfg), nil
}
