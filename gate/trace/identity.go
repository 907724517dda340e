package trace

import (
	"errors"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/agentgate/agentgate/internal/jsonscan"
)

// A trace's identity (docs/design.md#run-identity) is (Suite, Task, Trial), read as its harness records it:
//
//	harness                      suite                             task                                      trial
//	tau2-bench results           info.environment_info.domain_name task_id                                   trial
//	tau-bench                    the domain its policy names       task_id                                   trial
//	Inspect                      the eval's task                   sample id                                 epoch
//	SWE-agent .traj, mini-swe    –                                 instance_id, else the file's stem         –
//	RS-1 / chat records          suite, else metadata.suite        task_id, task, else metadata.task_id      trial, else metadata.trial
//
// Agent (tau2's info.agent_info.llm, Inspect's eval.model) makes a suite per agent where an
// input holds several (gate's identify). A trace with no task is known by its id alone. The comparison, pass^k and the outcomes
// input pair and group runs by identity, never by their place in a list.

// errFound stops a walk once the value looked for is found.
var errFound = errors.New("found")

// docString returns the string (or number, as written) at the path of member keys in the
// JSON document data, or "" when there is none. It reads no further than it needs to, and a
// document it cannot walk has none.
func docString(data []byte, keys ...string) string {
	if raw := docValue(data, keys...); raw != nil {
		if s, ok, problem := idValue(rawRef(raw)); ok && problem == "" {
			return s
		}
	}
	return ""
}

// docValue is the JSON value at the path keys of the document data, or nil when there is none
// or the document is not well formed there.
func docValue(data []byte, keys ...string) []byte {
	if len(data) == 0 { // absent: nothing to read, and no error made to say so
		return nil
	}
	at := 0
	for _, k := range keys {
		next := -1
		_, err := jsonscan.ReadMembers(data, at, func(key []byte, v int) (int, error) {
			if jsonscan.KeyIs(key, k) {
				next = v
				return v, errFound
			}
			return jsonscan.Skip(data, v)
		})
		if next < 0 || !errors.Is(err, errFound) {
			return nil
		}
		at = next
	}
	end, err := jsonscan.Skip(data, at)
	if err != nil {
		return nil
	}
	return data[at:end]
}

// trajStem is the instance id a SWE-agent or mini-swe-agent trajectory file is named for
// (<instance_id>.traj, <instance_id>.traj.json, either gzipped), or "" for a file named
// otherwise.
func trajStem(file string) string {
	base := strings.TrimSuffix(filepath.Base(file), ".gz")
	if id, ok := strings.CutSuffix(base, ".traj.json"); ok {
		return id
	}
	if id, ok := strings.CutSuffix(base, ".traj"); ok {
		return id
	}
	return ""
}

// policyDomain is the domain a tau-bench run works in, which tau-bench does not record beside
// the run: its agents open the conversation with the domain's policy document (tau_bench/envs/
// <domain>/wiki.md) as the system message, whose title is "# Airline Agent Policy" or "# Retail
// agent policy". It is the title's first word, lower-cased; "" when the first message is no
// such document (docs/trace-formats.md, tau-bench).
func policyDomain(msgs []Message) string {
	if len(msgs) == 0 || msgs[0].Role != "system" {
		return ""
	}
	title, _, _ := strings.Cut(msgs[0].Content, "\n")
	title, ok := strings.CutPrefix(strings.TrimSpace(title), "#")
	if !ok {
		return ""
	}
	domain, ok := strings.CutSuffix(strings.ToLower(strings.TrimSpace(title)), " agent policy")
	if !ok || domain == "" || len(domain) > 64 {
		return ""
	}
	for _, r := range domain {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return ""
		}
	}
	return domain
}

// recordAgent is the agent that made a run read as a record, where its harness saves it with
// the run (docs/trace-formats.md, "Agents"), "" where none does: an AgentDojo fork's
// pipeline_name; mini-swe-agent's info.config.model.model_name (DefaultAgent.serialize merges
// the model's config there); SWE-agent's replay_config, the run's config as a JSON text
// (RunSingleConfig.model_dump_json), whose agent.model.name names the model (model_name before
// SWE-agent 1.0; sweAgentModel), else the run folder SWE-agent 0.x saved it in, named for the model and its
// settings (sweAgentRun); else the agent tau-bench's run.py names the result file for.
func recordAgent(file string, pipeline, infoConfig, replayConfig rawRef) string {
	if s, ok, problem := idValue(pipeline); ok && problem == "" && s != "" {
		return s
	}
	if s := docString(infoConfig, "model", "model_name"); s != "" {
		return s
	}
	if len(replayConfig) > 0 {
		cfg := []byte(replayConfig)
		if s, ok := stringValue(replayConfig); ok {
			cfg = []byte(s)
		}
		if s := sweAgentModel(cfg); s != "" {
			return s
		}
	}
	if run := sweAgentRun(file); run != "" {
		return run
	}
	return tauBenchAgent(file)
}

// sweAgentRun is the run folder a SWE-agent 0.x trajectory is saved in, trajectories/<user>/
// <run_name>/<instance_id>.traj, where run.py's run_name is <model>__<data>__<config>__t-<temp>
// __p-<top_p>__c-<cost limit>__install-<0|1>[__<suffix>] (SWE-agent v0.7.0, run.py): the model
// and the settings it ran with, the agent. "" for a file saved elsewhere.
func sweAgentRun(file string) string {
	file = strings.ReplaceAll(file, "\\", "/")
	if trajStem(file) == "" {
		return ""
	}
	run := filepath.Base(filepath.Dir(file))
	if !sweAgentRunName.MatchString(run) {
		return ""
	}
	return run
}

// sweAgentRunName matches the name SWE-agent 0.x's run.py gives a run folder.
var sweAgentRunName = regexp.MustCompile(`__t-[0-9.]+__p-[0-9.]+__c-[0-9.]+__install-[01](?:__.+)?$`)

// tauBenchAgent is the agent a tau-bench result file is named for: run.py saves each run's
// results as {agent_strategy}-{model}-{temperature}_range_{start}-{end}_user-{user_model}-
// {user_strategy}_{time}.json, and the part before "_range_" (the strategy, the model after
// its last "/", the temperature) is the agent. "" for a file named otherwise.
func tauBenchAgent(file string) string {
	base := strings.TrimSuffix(filepath.Base(strings.ReplaceAll(file, "\\", "/")), ".gz")
	m := tauBenchName.FindStringSubmatch(base)
	if m == nil {
		return ""
	}
	return m[1]
}

// tauBenchName matches the name run.py gives a result file.
var tauBenchName = regexp.MustCompile(`^(.+)_range_[0-9]+--?[0-9]+_user-.*\.json$`)
