package entrypoint

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/test/ghemu"
)

// A pull request whose evals were skipped (a path filter or a label): none of the input
// files exists. By default that is an error (exit 3, the check run failed); with
// `no-traces: neutral` the step passes, the check run is neutral and says why, the summary
// too, no comment is posted, and nothing else is asked of GitHub. Some inputs present and
// some absent is an error either way: a harness that wrote half its outputs is broken.
func TestActionNoTracesNeutral(t *testing.T) {
	event := ghemu.WebhookExample(t, "pull_request", "opened", nil)
	prHead := payloadField(t, event, "pull_request", "head", "sha")
	absent := map[string]string{"traces": "evals/out/traces/*.jsonl", "tasks": "evals/out/rcs.json", "check-name": "agentgate", "baseline": "auto"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range absent {
			m[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	for _, c := range []struct {
		name       string
		inputs     map[string]string
		exit       int
		verdict    string
		conclusion string
		summary    string
		// lookup: the baseline is looked for (the emulator knows no commit: the compare
		// answers 404, and no artifact is found); a run that skips has nothing to compare.
		lookup bool
	}{
		{"absent, neutral", with("no-traces", "neutral"), 0, "SKIPPED", "neutral",
			"## ⏭️ agentgate: no eval outputs\n\nNothing was evaluated: none of the input files exists, so the evals did not run (a path filter or a label may have skipped them). `no-traces` is `neutral`, so this run passes and its check run is neutral.\n\n```text\ntraces: evals/out/traces/*.jsonl\ntasks: evals/out/rcs.json\n```\n", false},
		{"absent, by default an error", absent, 3, "ERROR", "failure", "evals/out/traces/*.jsonl: no files match this pattern", true},
		{"half absent, neutral: still an error", with("no-traces", "neutral", "traces", "fixtures/pass/traces.jsonl"), 3, "ERROR", "failure", "evals/out/rcs.json: no files match this pattern", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, api := emulator(t)
			r := step(t, workspace(t), api, "pull_request", event, c.inputs)
			if r.exit != c.exit || r.outputs["verdict"] != c.verdict {
				t.Fatalf("exit %d verdict %q, want %d %s\n%s%s", r.exit, r.outputs["verdict"], c.exit, c.verdict, r.stdout, r.stderr)
			}
			var got []string
			for _, q := range e.Requests() {
				got = append(got, fmt.Sprintf("%s %s %d", q.Method, q.Path, q.Status))
			}
			want := []string{"POST /repos/" + owner + "/" + repo + "/check-runs 201"}
			if c.lookup {
				want = append([]string{"GET /repos/" + owner + "/" + repo + "/compare/" + payloadField(t, event, "pull_request", "base", "sha") + "..." + prHead + " 404",
					"GET /repos/" + owner + "/" + repo + "/actions/artifacts 200"}, want...)
			}
			if !slices.Equal(got, want) {
				t.Errorf("API requests %q, want %q", got, want)
			}
			_, bodies := checkRunRequests(t, e.Requests())
			if len(bodies) != 1 || bodies[0].HeadSHA != prHead || bodies[0].Conclusion == nil || *bodies[0].Conclusion != c.conclusion {
				t.Fatalf("check runs %+v, want one %s on %s", bodies, c.conclusion, prHead)
			}
			if !strings.Contains(r.summary, c.summary) || !strings.Contains(bodies[0].Output.Summary, c.summary) {
				t.Errorf("summary and check run lack %q:\n%s\n---\n%s", c.summary, r.summary, bodies[0].Output.Summary)
			}
		})
	}
}

// The CLI takes the setting too: a merge whose shards are all absent passes with one line
// saying so; an unknown value is a usage error naming the flag.
func TestCLINoTraces(t *testing.T) {
	code, stdout, stderr := cli(t, "", "gate", "--traces", "nowhere/*.jsonl", "--pairs", "nowhere/pairs.jsonl", "--no-traces", "neutral")
	want := "agentgate: no eval outputs, nothing evaluated: no input file exists (traces: nowhere/*.jsonl; pairs: nowhere/pairs.jsonl); no-traces is neutral, so the run passes\n"
	if code != 0 || stdout != want || stderr != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want 0 and %q", code, stdout, stderr, want)
	}
	code, stdout, _ = cli(t, "", "merge", "--no-traces", "neutral", "shards/*/report.json")
	if want := "agentgate: no eval outputs, nothing evaluated: no input file exists (merge: shards/*/report.json); no-traces is neutral, so the run passes\n"; code != 0 || stdout != want {
		t.Errorf("merge: exit %d, stdout %q, want 0 and %q", code, stdout, want)
	}
	code, _, stderr = cli(t, "", "gate", "--traces", "nowhere/*.jsonl", "--no-traces", "skip")
	if want := "agentgate: --no-traces: unknown no-traces \"skip\": want \"error\" or \"neutral\"\n"; code != 3 || stderr != want {
		t.Errorf("exit %d, stderr %q, want 3 and %q", code, stderr, want)
	}
}
