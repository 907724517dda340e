package trace

import (
	"errors"
	"path/filepath"
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
	var out string
	at := 0
	for depth, k := range keys {
		next := -1
		_, err := jsonscan.ReadMembers(data, at, func(key []byte, v int) (int, error) {
			if jsonscan.KeyIs(key, k) {
				next = v
				return v, errFound
			}
			return jsonscan.Skip(data, v)
		})
		if next < 0 || !errors.Is(err, errFound) {
			return ""
		}
		at = next
		if depth == len(keys)-1 {
			end, err := jsonscan.Skip(data, at)
			if err != nil {
				return ""
			}
			if s, ok, problem := idValue(rawRef(data[at:end])); ok && problem == "" {
				out = s
			}
		}
	}
	return out
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
