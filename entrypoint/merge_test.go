package entrypoint

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/test/ghemu"
)

// shardedSuite writes a suite of real and fixture traces, tasks and label pairs into whole/
// under dir, and the same files split over three shards' workspaces (shard-1/ … shard-3/),
// each with the files at the same paths, as the jobs of a matrix would have them. The
// shards' files interleave in name order, and shard 3 has traces only.
func shardedSuite(t *testing.T, dir string) {
	t.Helper()
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	var runs []json.RawMessage
	if err := json.Unmarshal([]byte(read(refData(t, "transcripts/tau-bench-airline-sample.json"))), &runs); err != nil {
		t.Fatal(err)
	}
	half := func(rs []json.RawMessage) string {
		b, err := json.Marshal(rs)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	failPairs := strings.SplitAfter(read("../fixtures/fail/pairs.jsonl"), "\n")
	files := []struct{ shard, path, text string }{
		{"shard-1", "suite/traces/a-fixture-fail.jsonl", read("../fixtures/fail/traces.jsonl")},
		{"shard-2", "suite/traces/b-tau-bench.json", half(runs[:5])},
		{"shard-1", "suite/traces/c-fixture-pass.jsonl", read("../fixtures/pass/traces.jsonl")},
		{"shard-3", "suite/traces/d-tau-bench.json", half(runs[5:])},
		{"shard-2", "suite/tasks/fail.json", strings.ReplaceAll(read("../fixtures/fail/tasks.json"), `"id": "`, `"id": "fail-`)},
		{"shard-1", "suite/tasks/pass.json", strings.ReplaceAll(read("../fixtures/pass/tasks.json"), `"id": "`, `"id": "pass-`)},
		{"shard-1", "suite/pairs/1.jsonl", strings.Join(failPairs[:20], "")},
		{"shard-2", "suite/pairs/2.jsonl", strings.ReplaceAll(read("../fixtures/pass/pairs.jsonl"), `"qid": "Q`, `"qid": "P`)},
		{"shard-1", "suite/pairs/3.jsonl", strings.Join(failPairs[20:], "")},
	}
	for _, f := range files {
		for _, ws := range []string{"whole", f.shard} {
			p := filepath.Join(dir, ws, f.path)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(f.text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// runIn runs the built binary in dir, outside GitHub Actions.
func runIn(t *testing.T, dir string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// The shards of a suite, gated one by one in their own workspaces and merged, give exactly
// the report of one run over all the files: the same JSON, markdown, JUnit XML, SARIF,
// OTLP/JSON, log and exit code, with a baseline too.
func TestMergeEqualsOneRun(t *testing.T) {
	dir := t.TempDir()
	shardedSuite(t, dir)
	patterns := []string{"--traces", "suite/traces", "--tasks", "suite/tasks/*.json", "--pairs", "suite/pairs/*.jsonl"}
	// A baseline: the fixtures' passing suite, so that the comparison has something to say.
	baseline := filepath.Join(dir, "baseline.json")
	if code, _, stderr := runIn(t, "..", "gate", "--traces", "fixtures/pass/traces.jsonl", "--json", baseline); code != 0 {
		t.Fatalf("baseline run: exit %d: %s", code, stderr)
	}
	outcomes := filepath.Join(dir, "outcomes.jsonl")
	if err := os.WriteFile(outcomes, []byte(`{"id": "0#0", "reward": 1.0}
{"id": "9#2", "success": true}
{"id": "refund-lookup-001", "success": false}
{"id": "ghost-run", "reward": 0.25}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		flags []string
		exit  int
	}{
		{"default gates", nil, 2},
		{"lenient gates and a baseline", []string{"--max-failed-traces", "9", "--pa-min", "0.8", "--kappa-min", "0.7", "--abstain-max", "0.1", "--coherence-min", "0.4",
			"--baseline", baseline, "--fail-on-regression", "false", "--pass-k-min", "0", "--pass-k", "2"}, 0},
		{"the reference profile", []string{"--profile", "reference", "--fail-on", "warn"}, 2},
		// Every shard and the merge read the whole outcomes file: each shard leaves the others'
		// ids unmatched, the merge only the id no trace has.
		{"outcomes kept apart", []string{"--outcomes", outcomes, "--success-rate-min", "0.5"}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			outs := func(ws, name string) []string {
				return []string{"--json", filepath.Join(dir, name+".json"), "--markdown", filepath.Join(dir, name+".md"), "--junit", filepath.Join(dir, name+".xml"),
					"--sarif", filepath.Join(dir, name+".sarif"), "--otel", filepath.Join(dir, name+".otel.jsonl")}
			}
			args := append(append(append([]string{"gate"}, patterns...), c.flags...), outs("whole", "whole")...)
			wholeCode, wholeLog, stderr := runIn(t, filepath.Join(dir, "whole"), args...)
			if wholeCode != c.exit {
				t.Fatalf("one run: exit %d, want %d: %s", wholeCode, c.exit, stderr)
			}
			shards := filepath.Join(dir, "shards")
			os.RemoveAll(shards)
			for _, s := range []string{"shard-1", "shard-2", "shard-3"} {
				var sp []string
				for i := 0; i < len(patterns); i += 2 {
					if _, err := os.Stat(filepath.Join(dir, s, strings.TrimSuffix(strings.SplitN(patterns[i+1], "*", 2)[0], "/"))); err == nil {
						sp = append(sp, patterns[i], patterns[i+1])
					}
				}
				os.MkdirAll(filepath.Join(shards, s), 0o755)
				args := append(append(append([]string{"gate"}, sp...), c.flags...), "--json", filepath.Join(shards, s, "agentgate.json"))
				if code, _, stderr := runIn(t, filepath.Join(dir, s), args...); code == 3 {
					t.Fatalf("%s: exit 3: %s", s, stderr)
				}
			}
			args = append(append([]string{"merge"}, c.flags...), outs(dir, "merged")...)
			args = append(args, "shards/*/agentgate.json")
			mergedCode, mergedLog, stderr := runIn(t, dir, args...)
			if mergedCode != wholeCode {
				t.Errorf("merge: exit %d, one run %d: %s", mergedCode, wholeCode, stderr)
			}
			if mergedLog != wholeLog {
				t.Errorf("merge's log differs from one run's:\n%s\nwant\n%s", mergedLog, wholeLog)
			}
			for _, ext := range []string{".json", ".md", ".xml", ".sarif", ".otel.jsonl"} {
				want, _ := os.ReadFile(filepath.Join(dir, "whole"+ext))
				got, err := os.ReadFile(filepath.Join(dir, "merged"+ext))
				if err != nil || len(want) == 0 {
					t.Fatalf("%s: %v (one run's is %d bytes)", ext, err, len(want))
				}
				if !bytes.Equal(got, want) {
					t.Errorf("the merged %s differs from one run's:\n%s", ext, firstDifference(string(got), string(want)))
				}
			}
		})
	}
	// The report holds what was merged: the fixtures' 3 + 5 traces and the ten tau-bench
	// runs; six tasks; 20 + 50 + 30 items.
	var r struct {
		Reliability struct{ Total, Fail int }
		Coherence   struct{ Total int }
		Outcomes    struct {
			Known, Successes, Unmatched int
			UnmatchedIDs                []string `json:"unmatched_ids"`
		}
		Agreement struct {
			N     int
			Files []struct {
				File  string
				Items int
			}
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "merged.json"))
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%d %d %d %v", r.Reliability.Total, r.Coherence.Total, r.Agreement.N, r.Agreement.Files); got != "18 6 100 [{suite/pairs/1.jsonl 20} {suite/pairs/2.jsonl 50} {suite/pairs/3.jsonl 30}]" {
		t.Errorf("merged totals %s", got)
	}
	// The last case's outcomes: the ten tau-bench rewards, two of them overridden to success,
	// and one fixture run's; the ghost run is the only id no trace has.
	if o := r.Outcomes; o.Known != 11 || o.Successes != 2 || o.Unmatched != 1 || !slices.Equal(o.UnmatchedIDs, []string{"ghost-run"}) {
		t.Errorf("merged outcomes %+v", o)
	}
}

// firstDifference shows where two texts part.
func firstDifference(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(0, i-200)
	return fmt.Sprintf("at byte %d:\n got …%s\nwant …%s", i, got[from:min(len(got), i+200)], want[from:min(len(want), i+200)])
}

// A merge refuses what one run would not give: shards that overlap, or whose reports do not
// fit together, each with a clear message and exit code 3.
func TestMergeErrors(t *testing.T) {
	dir := t.TempDir()
	shardedSuite(t, dir)
	gateTo := func(ws, out string, args ...string) string {
		t.Helper()
		p := filepath.Join(dir, out)
		if code, _, stderr := runIn(t, filepath.Join(dir, ws), append(append([]string{"gate"}, args...), "--json", p)...); code == 3 {
			t.Fatalf("%s: %s", out, stderr)
		}
		return out
	}
	one := gateTo("shard-1", "one.json", "--traces", "suite/traces/a-fixture-fail.jsonl")
	again := gateTo("shard-1", "again.json", "--traces", "suite/traces/a-fixture-fail.jsonl")
	os.Rename(filepath.Join(dir, "shard-1/suite/traces/a-fixture-fail.jsonl"), filepath.Join(dir, "shard-1/suite/traces/copy.jsonl"))
	copied := gateTo("shard-1", "copy.json", "--traces", "suite/traces/copy.jsonl")
	ref := gateTo("shard-2", "reference.json", "--traces", "suite/traces/b-tau-bench.json", "--profile", "reference")
	budget := gateTo("shard-2", "budget.json", "--traces", "suite/traces/b-tau-bench.json", "--token-budget", "200000")
	os.WriteFile(filepath.Join(dir, "whole/scholar.jsonl"), []byte(`{"qid": "Q1", "label": "VALID", "reason": "cited"}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "whole/auditor.jsonl"), []byte(`{"qid": "Q1", "label": "REJECT", "reason": "uncited"}`+"\n"), 0o644)
	joined := gateTo("whole", "joined.json", "--scholar", "scholar.jsonl", "--auditor", "auditor.jsonl")
	tasks := gateTo("shard-2", "tasks.json", "--tasks", "suite/tasks/fail.json")
	b, _ := os.ReadFile(filepath.Join(dir, one))
	os.WriteFile(filepath.Join(dir, "v2.json"), bytes.Replace(b, []byte(`"version": "dev"`), []byte(`"version": "v2.0.0"`), 1), 0o644)
	os.WriteFile(filepath.Join(dir, "old.json"), []byte(`{"schema": 1, "verdict": "PASS"}`), 0o644)
	os.WriteFile(filepath.Join(dir, "bad.json"), []byte("{\"schema\": 3,\n  \"profile\": \"default\",\n  \"gates\": [}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "typo.json"), []byte("{\"schema\": 3,\n  \"profile\": \"default\",\n  \"reliability\": {\"total\": \"three\"}}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "extra.json"), []byte("{\"schema\": 3,\n  \"profile\": \"default\", \"verdikt\": \"PASS\"}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "verdict.json"), bytes.Replace(b, []byte(`"verdict":"FAIL","score"`), []byte(`"verdict":"@here","score"`), 1), 0o644)

	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no report", []string{"merge"}, "agentgate: merge: name the shards' JSON reports, as in agentgate merge shards/*/report.json\n"},
		{"no match", []string{"merge", "nothing-*.json"}, "agentgate: merge: nothing-*.json: no files match this pattern\n"},
		{"one file in two shards", []string{"merge", one, again},
			`agentgate: one.json: traces file "suite/traces/a-fixture-fail.jsonl" was read by shard again.json too: shards must read disjoint files` + "\n"},
		{"one trace in two shards", []string{"merge", one, copied},
			`agentgate: suite/traces/copy.jsonl:1: duplicate trace id "flight-search-loop-101": already used at suite/traces/a-fixture-fail.jsonl:1; every trace needs its own id (shards one.json and copy.json)` + "\n"},
		{"another profile", []string{"merge", one, ref},
			`agentgate: reference.json was gated with profile "reference", but the merge uses "default": give the merge the shards' profile` + "\n"},
		{"another token budget", []string{"merge", one, budget},
			"agentgate: budget.json was gated with token-budget 200000, but the merge uses 100000: give the merge the shards' token-budget\n"},
		{"the merge's token budget", []string{"merge", "--token-budget", "200000", budget, one},
			"agentgate: one.json was gated with token-budget 100000, but the merge uses 200000: give the merge the shards' token-budget\n"},
		{"another version", []string{"merge", one, "v2.json"},
			`agentgate: v2.json was written by agentgate "v2.0.0", one.json by "dev": gate every shard with the same version` + "\n"},
		{"another schema", []string{"merge", "old.json"},
			"agentgate: old.json: a report of schema 1, but this agentgate merges schema 3: gate every shard with the same agentgate version as the merge\n"},
		{"bad JSON", []string{"merge", "bad.json"}, "agentgate: bad.json:3:13: expected a value, found '}'\n"},
		{"a member of the wrong type", []string{"merge", "typo.json"}, "agentgate: typo.json:3:28: field \"reliability.total\": expected an integer, found a string\n"},
		{"an unknown member", []string{"merge", "extra.json"}, "agentgate: extra.json: a member \"verdikt\" that no report of schema 3 has: not written by this agentgate\n"},
		{"a verdict that is none of the three", []string{"merge", "verdict.json"}, "agentgate: verdict.json: reliability.traces[0] has verdict \"@here\", not PASS, WARN or FAIL\n"},
		{"labels joined by qid", []string{"merge", joined},
			"agentgate: joined.json: its agreement was joined by qid from scholar and auditor files and sorted by qid across all of them, so shards of it cannot be merged exactly: give the merge itself the scholar and auditor files, or label into merged pairs files\n"},
		{"a section both in a shard and given", []string{"merge", "--tasks", "whole/suite/tasks/pass.json", tasks},
			"agentgate: tasks were given to the merge, but the shards' reports hold them already: give each section either to the shards or to the merge\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runIn(t, dir, c.args...)
			if code != 3 || stderr != c.want {
				t.Errorf("exit %d, stderr:\n%s\nwant exit 3 and:\n%s", code, stderr, c.want)
			}
		})
	}
}

// The matrix of docs/reference.md under Actions: the merge job, given the shards' reports, posts
// one comment with the whole suite's verdict and sets the outputs of one run.
func TestActionMergesShards(t *testing.T) {
	dir := t.TempDir()
	shardedSuite(t, dir)
	ws := filepath.Join(dir, "merge-job")
	for _, s := range []string{"shard-1", "shard-2", "shard-3"} {
		out := filepath.Join(ws, "shards", "agentgate-"+s, "agentgate.json")
		os.MkdirAll(filepath.Dir(out), 0o755)
		if code, _, stderr := runIn(t, filepath.Join(dir, s), "gate", "--traces", "suite/traces", "--json", out); code == 3 {
			t.Fatalf("%s: %s", s, stderr)
		}
	}
	e, api := emulator(t)
	event := ghemu.WebhookExample(t, "pull_request", "opened", nil)
	pr := prNumber(t, event)
	r := step(t, ws, api, "pull_request", event, map[string]string{"merge": "shards/*/agentgate.json", "max-failed-traces": "9"})
	if r.exit != 0 || r.outputs["verdict"] != "WARN" || r.outputs["traces-total"] != "18" || r.outputs["traces-failed"] != "3" {
		t.Fatalf("exit %d outputs %v, want 0 WARN 18 traces 3 failed\n%s%s", r.exit, r.outputs, r.stdout, r.stderr)
	}
	var got []string
	for _, q := range e.Requests() {
		got = append(got, fmt.Sprintf("%s %s %d", q.Method, q.Path, q.Status))
	}
	comments := fmt.Sprintf("/repos/%s/%s/issues/%d/comments", owner, repo, pr)
	want := []string{"GET /user 403", "GET " + comments + " 200", "POST " + comments + " 201"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("API requests:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	body := e.Comments(pr)[0].Body
	if !strings.Contains(body, "agentgate gate --traces suite/traces --max-failed-traces 9") {
		t.Errorf("the comment does not say how to reproduce the whole run:\n%s", body)
	}
}
