package gate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/compare"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/internal/jsonreport"
	"github.com/agentgate/agentgate/internal/refdata"
	"github.com/agentgate/agentgate/internal/testfiles"
	"github.com/agentgate/agentgate/report"
)

// The invariants of run identity (docs/comparison-and-statistics.md, "Which run is which:
// identity") over the files of every trace format, the reference data's real runs and
// testdata's files generated from each harness's writer (gate/trace/testdata/formats/README.md):
// a report compared with itself changes nothing; the order of records and of files changes no
// figure; flipping k outcomes or k verdicts gives exactly k new failures; moving or renaming
// the files changes no match; merging shards equals one run.

// gateRun gates the trace files with outcomes, compared with base when it is not nil.
func gateRun(t *testing.T, traces, outcomes []string, base *compare.Baseline) *gate.Result {
	t.Helper()
	o := gate.Options{Thresholds: gate.DefaultThresholds()}
	if base != nil {
		o.Baseline = &gate.Baseline{Report: base}
	}
	r, err := gate.Run(context.Background(), gate.Inputs{Traces: traces, Outcomes: outcomes}, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// reportJSON is r as its JSON report.
func reportJSON(t *testing.T, r *gate.Result) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jsonreport.Write(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// asBaseline reads a JSON report as a baseline.
func asBaseline(t *testing.T, report []byte) *compare.Baseline {
	t.Helper()
	b, err := jsonreport.ReadBaseline(bytes.NewReader(report), "base.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// identity names a run by its identity, else its trace id.
func identity(tr *reliability.Result) string {
	if a := tr.Attempt; a != nil && a.Task != "" {
		trial := "-"
		if a.Trial != nil {
			trial = fmt.Sprint(*a.Trial)
		}
		return fmt.Sprintf("%q/%q/%s", a.Suite, a.Task, trial)
	}
	return tr.ID
}

// figures are the figures of r that neither the order of its records and files nor where the
// files lie may change: every run's verdict, score and outcome by identity, the counts, the
// outcomes section and pass^k.
func figures(r *gate.Result) string {
	var lines []string
	if s := r.Reliability; s != nil {
		lines = append(lines, fmt.Sprintf("reliability %d %d %d %d", s.Total, s.Pass, s.Warn, s.Fail))
		for i := range s.Traces {
			tr := &s.Traces[i]
			lines = append(lines, fmt.Sprintf("run %s %s %.12g %v %v %v", identity(tr), tr.Verdict, tr.Score, tr.Run.Known, tr.Run.Value, tr.Run.Success))
		}
	}
	if o := r.Outcomes; o != nil {
		cal, _ := json.Marshal(o.Calibration)
		lines = append(lines, fmt.Sprintf("outcomes %d %d %d %v %s", o.Known, o.Successes, o.Unexplained, o.TokensPerSuccess != nil, cal))
	}
	if p := r.PassK; p != nil {
		lines = append(lines, fmt.Sprintf("passk %d %d %d %v %v", p.Tasks, p.Trials, p.MinTrials, p.Values, p.Flaky))
	}
	lines = append(lines, fmt.Sprintf("verdict %s exit %d", r.Verdict, r.ExitCode))
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// unchanged checks that c, a run compared with itself, found no change in any metric.
func unchanged(t *testing.T, what string, c *compare.Comparison, runs int) {
	t.Helper()
	if c == nil {
		t.Fatalf("%s: not compared", what)
	}
	if r := c.Reliability; r == nil || r.NewFailures != 0 || r.Fixed != 0 || r.Matched != runs {
		t.Errorf("%s: reliability %+v, want %d matched, nothing new, nothing fixed", what, r, runs)
	}
	if s := c.Success; s != nil && (s.NewFailures != 0 || s.Fixed != 0) {
		t.Errorf("%s: success: %d new failures (%v), %d fixed (%v), want none", what, s.NewFailures, s.NewFailureIDs, s.Fixed, s.FixedIDs)
	}
	for _, m := range c.Metrics() {
		if !m.Test.PDefined || m.Test.P != 1 || m.Test.Direction != compare.Same || m.Test.Outcome == compare.Degraded || m.Test.Outcome == compare.Improved {
			t.Errorf("%s: %s p %v (defined %v) direction %s outcome %s, want p 1, same", what, m.Name, m.Test.P, m.Test.PDefined, m.Test.Direction, m.Test.Outcome)
		}
	}
	if m := c.Matching; m == nil || m.Matched != runs || m.BaseRuns != runs || m.HeadRuns != runs || m.Warning != "" {
		t.Errorf("%s: matching %+v, want all %d runs matched", what, m, runs)
	}
}

// suites are the files of every trace format, and the layouts of identitySuites: each a list
// of files gated together.
func suites(t *testing.T) map[string][]string {
	formats := filepath.Join("trace", "testdata", "formats")
	mini := filepath.Join(formats, "minisweagent")
	dir := t.TempDir()
	all := identitySuites(t)
	for name, files := range map[string][]string{
		"tau-bench":       {refdata.Path(t, "transcripts/tau-bench-airline-sample.json")},
		"tau-bench mixed": {tauBenchMixed(t, dir)},
		"tau2":            {filepath.Join(formats, "tau2-telecom.json")},
		"tau2 dir":        {filepath.Join(formats, "tau2-dir", "results.json")},
		"inspect json":    {filepath.Join(formats, "inspect-tools.json"), filepath.Join(formats, "inspect-scores.json")},
		"inspect eval":    {filepath.Join(formats, "inspect-tools.eval"), refdata.Path(t, "formats/inspect-log_formats.eval")},
		"mini-swe-agent":  {filepath.Join(mini, "sympy__sympy-20590.traj.json"), filepath.Join(mini, "django__django-11133", "django__django-11133.traj.json"), filepath.Join(mini, "pylint-dev__pylint-7080", "pylint-dev__pylint-7080.traj.json")},
		"swe-agent":       {testfiles.Copy(t, refdata.Path(t, "transcripts/swe-agent-function_calling_simple.traj"), filepath.Join(dir, "django__django-11099", "django__django-11099.traj"))},
		"otlp":            {filepath.Join(formats, "otlp-genai.json"), filepath.Join(formats, "otlp-openllmetry.json"), filepath.Join(formats, "otlp-evaluations.jsonl"), filepath.Join(formats, "otlp-openinference.jsonl")},
		"rs-1":            {refdata.Path(t, "rs1/sample_trace.json"), refdata.Path(t, "rs1/sample_trace_problematic.json")},
		"openhands":       {filepath.Join(formats, "openhands", "output.jsonl")},
		"openhands trajs": {filepath.Join(formats, "openhands", "trajs", "django__django-11099.json")},
		"agentdojo": {filepath.Join(formats, "agentdojo", "runs", "gpt-4o-2024-05-13", "banking", "user_task_0", "important_instructions", "injection_task_1.json"),
			filepath.Join(formats, "agentdojo", "runs", "gpt-4o-2024-05-13", "banking", "user_task_0", "none", "none.json"),
			filepath.Join(formats, "agentdojo", "runs", "claude-3-5-sonnet-20240620", "slack", "user_task_1", "none", "none.json")},
		"chat": {filepath.Join("..", "fixtures", "pass", "traces.jsonl"), filepath.Join("..", "fixtures", "fail", "traces.jsonl")},
	} {
		all[name] = files
	}
	return all
}

// tauBenchMixed writes the real tau-bench airline runs in reverse order, so that their ids do
// not sort in file order ("9#2" first, "0#0" last), with runs 0, 4 and 8 of the reversed file made successes:
// a suite whose outcomes differ and whose report's traces are reordered when read back.
func tauBenchMixed(t *testing.T, dir string) string {
	t.Helper()
	var recs []map[string]any
	readJSON(t, refdata.Path(t, "transcripts/tau-bench-airline-sample.json"), &recs)
	slices.Reverse(recs)
	for i := range recs {
		if i%4 == 0 {
			recs[i]["reward"] = 1.0
		}
	}
	return writeJSON(t, filepath.Join(dir, "tau-bench-mixed.json"), recs)
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatal(err)
	}
}

func writeJSON(t *testing.T, path string, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return writeBytes(t, path, data)
}

// writeBytes writes data to path, making its directory.
func writeBytes(t *testing.T, path string, data []byte) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSelfComparisonChangesNothing: every format's suite compared with its own JSON report
// changes nothing, for every metric: 0 new failures, 0 fixed, p = 1, direction same, every run
// matched. The tau-bench runs whose ids do not sort in file order are the case: their
// report's traces come back sorted, and each keeps its own outcome.
func TestSelfComparisonChangesNothing(t *testing.T) {
	for name, files := range suites(t) {
		r := gateRun(t, files, nil, nil)
		c := gateRun(t, files, nil, asBaseline(t, reportJSON(t, r))).Comparison
		unchanged(t, name, c, r.Reliability.Total)
		if name == "tau-bench mixed" && (c.Success == nil || c.Success.Matched != 10 || c.Success.BaseSuccesses != 3) {
			t.Errorf("%s: success %+v, want 10 runs matched, 3 succeeded", name, c.Success)
		}
	}
}

// reorder writes the files of a suite again into dir with their records in reverse (a JSON
// array or JSONL) and returns them in reverse order; a file of another shape is copied.
func reorder(t *testing.T, files []string, dir string, rng *rand.Rand) []string {
	t.Helper()
	var out []string
	for i, f := range files {
		dst := filepath.Join(dir, fmt.Sprint(i), filepath.Base(f))
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var arr []json.RawMessage
		var doc map[string]json.RawMessage
		switch {
		case json.Unmarshal(data, &arr) == nil:
			rng.Shuffle(len(arr), func(i, j int) { arr[i], arr[j] = arr[j], arr[i] })
			writeJSON(t, dst, arr)
		case json.Unmarshal(data, &doc) == nil && doc["simulations"] != nil:
			var sims []json.RawMessage
			if err := json.Unmarshal(doc["simulations"], &sims); err != nil {
				t.Fatal(err)
			}
			rng.Shuffle(len(sims), func(i, j int) { sims[i], sims[j] = sims[j], sims[i] })
			doc["simulations"], _ = json.Marshal(sims)
			writeJSON(t, dst, doc)
		case strings.HasSuffix(f, ".jsonl"):
			lines := strings.Split(strings.TrimSpace(string(data)), "\n")
			rng.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
			testfiles.Copy(t, f, dst)
			if err := os.WriteFile(dst, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		default:
			testfiles.Copy(t, f, dst)
		}
		out = append(out, dst)
	}
	slices.Reverse(out)
	return out
}

// TestOrderChangesNothing: shuffling the records of every file and reversing the files, moved
// to another directory, changes no figure, and the shuffled run compared with the first's
// report matches every run and changes nothing.
func TestOrderChangesNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 33))
	for name, files := range suites(t) {
		if name == "tau2 dir" || name == "swe-agent" || name == "openhands trajs" {
			continue // one run a file, named by where the file lies: TestMoveChangesNoMatch
		}
		r := gateRun(t, files, nil, nil)
		for round := range 3 {
			moved := reorder(t, files, t.TempDir(), rng)
			s := gateRun(t, moved, nil, asBaseline(t, reportJSON(t, r)))
			if got, want := figures(s), figures(r); got != want {
				t.Errorf("%s, round %d: figures changed with the order:\n got %s\nwant %s", name, round, got, want)
			}
			unchanged(t, name+" reordered", s.Comparison, r.Reliability.Total)
		}
	}
}

// TestMoveChangesNoMatch: the files moved to another directory, and renamed where their name
// is not their identity, match every run of the report of where they were.
func TestMoveChangesNoMatch(t *testing.T) {
	for name, files := range suites(t) {
		r := gateRun(t, files, nil, nil)
		dir := t.TempDir()
		var moved []string
		for i, f := range files {
			base := filepath.Base(f)
			if !strings.Contains(base, ".traj") && !strings.Contains(f, "tau2-dir") && !strings.Contains(f, "trajs") { // their name is their task
				base = fmt.Sprintf("renamed-%d%s", i, filepath.Ext(f))
			}
			if strings.Contains(f, "tau2-dir") {
				testfiles.Copy(t, filepath.Join(filepath.Dir(f), "simulations", "9d2e7b10-1c44-4f7e-8f3a-6a0b7d2c5e02.json"),
					filepath.Join(dir, "elsewhere", "simulations", "9d2e7b10-1c44-4f7e-8f3a-6a0b7d2c5e02.json"))
			}
			moved = append(moved, testfiles.Copy(t, f, filepath.Join(dir, "elsewhere", fmt.Sprint(i), filepath.Base(filepath.Dir(f)), base)))
			if strings.Contains(f, "tau2-dir") {
				moved[len(moved)-1] = testfiles.Copy(t, f, filepath.Join(dir, "elsewhere", base))
			}
		}
		s := gateRun(t, moved, nil, asBaseline(t, reportJSON(t, r)))
		if m := s.Comparison.Matching; m == nil || m.Matched != r.Reliability.Total {
			t.Errorf("%s: moved, matching %+v, want all %d runs", name, m, r.Reliability.Total)
		}
	}
}

// tau2File writes a tau2-bench results file of domain: one simulation per task and trial,
// cloned from the first of tau2-telecom.json (generated from tau2's writer), with ids from model (tau2 writes a new
// uuid per simulation) and reward 1 where succeeded says so.
func tau2File(t *testing.T, path, domain, model string, tasks []string, trials int, succeeded func(task string, trial int) bool) string {
	t.Helper()
	var doc map[string]any
	readJSON(t, filepath.Join("trace", "testdata", "formats", "tau2-telecom.json"), &doc)
	tmpl, err := json.Marshal(doc["simulations"].([]any)[0])
	if err != nil {
		t.Fatal(err)
	}
	doc["info"].(map[string]any)["environment_info"].(map[string]any)["domain_name"] = domain
	var sims []any
	for _, task := range tasks {
		for trial := range trials {
			var sim map[string]any
			if err := json.Unmarshal(tmpl, &sim); err != nil {
				t.Fatal(err)
			}
			sim["id"] = fmt.Sprintf("%s-%s-%08x-%d", model, domain, len(sims)*2654435761%(1<<32), len(sims))
			sim["task_id"], sim["trial"] = task, trial
			reward := 0.0
			if succeeded(task, trial) {
				reward = 1
			}
			sim["reward_info"] = map[string]any{"reward": reward}
			sims = append(sims, sim)
		}
	}
	doc["simulations"], doc["simulation_index"] = sims, nil
	return writeJSON(t, path, doc)
}

// TestTau2TwoModelsMatch: two tau2 results files of the same 4 airline tasks × 4 trials, by
// two models whose simulations have other uuids, match 16 of 16 on suite, task and trial; flipping
// k of the outcomes gives exactly k new failures by outcome.
func TestTau2TwoModelsMatch(t *testing.T) {
	dir := t.TempDir()
	tasks := []string{"0", "1", "10", "2"}
	all := func(string, int) bool { return true }
	base := gateRun(t, []string{tau2File(t, filepath.Join(dir, "a.json"), "airline", "gpt-4.1", tasks, 4, all)}, nil, nil)
	for k := range 5 {
		flipped := func(task string, trial int) bool { return slices.Index(tasks, task)*4+trial >= k }
		head := gateRun(t, []string{tau2File(t, filepath.Join(dir, fmt.Sprint(k), "b.json"), "airline", "claude", tasks, 4, flipped)},
			nil, asBaseline(t, reportJSON(t, base)))
		c := head.Comparison
		if m := c.Matching; m == nil || m.On != compare.OnSuiteIdentity || m.Matched != 16 || m.BaseRuns != 16 || m.HeadRuns != 16 || m.Warning != "" {
			t.Fatalf("k %d: matching %+v, want 16 of 16 on suite, task and trial", k, m)
		}
		if s := c.Success; s == nil || s.Matched != 16 || s.NewFailures != k || s.Fixed != 0 {
			t.Errorf("k %d: success %+v, want %d new failures", k, s, k)
		}
	}
	// another domain's tasks of the same ids are other tasks: nothing matches, and the
	// heading's warning says why
	other := gateRun(t, []string{tau2File(t, filepath.Join(dir, "c.json"), "retail", "claude", tasks, 4, all)}, nil, asBaseline(t, reportJSON(t, base)))
	const warning = "0 of 16 runs matched: the two reports name the same task ids in different suites"
	if m := other.Comparison.Matching; m == nil || m.Matched != 0 || m.Warning != warning {
		t.Errorf("another domain: matching %+v", m)
	}
	md := report.Markdown(other, report.Options{})
	if want := " Compared with the baseline report: ⚠️ " + warning + "\n\nRuns matched on suite, task and trial: 0 of 16 in the baseline, 0 of 16 in this run.\n"; !strings.Contains(md, want) {
		t.Errorf("the comment lacks %q:\n%s", want, md)
	}
	var txt strings.Builder
	if err := report.Text(&txt, other); err != nil || !strings.Contains(txt.String(), "  warning: "+warning+"\n") {
		t.Errorf("the terminal report lacks the warning (%v):\n%s", err, txt.String())
	}
}

// TestFlipVerdicts: a baseline whose k FAIL traces are made PASS, in a report whose traces are
// shuffled, gives exactly k new failures.
func TestFlipVerdicts(t *testing.T) {
	files := []string{filepath.Join("..", "fixtures", "fail", "traces.jsonl"), refdata.Path(t, "transcripts/tau-bench-airline-sample.json")}
	r := gateRun(t, files, nil, nil)
	var doc map[string]any
	if err := json.Unmarshal(reportJSON(t, r), &doc); err != nil {
		t.Fatal(err)
	}
	traces := doc["reliability"].(map[string]any)["traces"].([]any)
	fails := 0
	for _, tr := range traces {
		if tr.(map[string]any)["verdict"] == "FAIL" {
			fails++
		}
	}
	if fails < 3 {
		t.Fatalf("%d FAIL traces, want at least 3", fails)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for k := 0; k <= fails; k++ {
		flipped := 0
		var edited []any
		for _, tr := range traces {
			m := map[string]any{}
			for key, v := range tr.(map[string]any) {
				m[key] = v
			}
			if m["verdict"] == "FAIL" && flipped < k {
				m["verdict"] = "PASS"
				flipped++
			}
			edited = append(edited, m)
		}
		rng.Shuffle(len(edited), func(i, j int) { edited[i], edited[j] = edited[j], edited[i] })
		doc["reliability"].(map[string]any)["traces"] = edited
		data, _ := json.Marshal(doc)
		c := gateRun(t, files, nil, asBaseline(t, data)).Comparison
		if c.Reliability.NewFailures != k || c.Reliability.Fixed != 0 || c.Reliability.Matched != len(traces) {
			t.Errorf("k %d: %d new failures, %d fixed, %d matched", k, c.Reliability.NewFailures, c.Reliability.Fixed, c.Reliability.Matched)
		}
	}
}

// TestDomainsArePassKSuites: three tau2 domains whose task ids are all "0".."14", one trial
// each, are 45 tasks of one trial, none flaky, not 15 tasks of 3 trials.
func TestDomainsArePassKSuites(t *testing.T) {
	dir := t.TempDir()
	var tasks []string
	for i := range 15 {
		tasks = append(tasks, fmt.Sprint(i))
	}
	var files []string
	for d, domain := range []string{"airline", "retail", "telecom"} {
		files = append(files, tau2File(t, filepath.Join(dir, domain+".json"), domain, "m", tasks, 1,
			func(task string, _ int) bool { return (len(task)+d)%2 == 0 }))
	}
	p := gateRun(t, files, nil, nil).PassK
	if p == nil || p.Tasks != 45 || p.Trials != 45 || p.MinTrials != 1 || len(p.Flaky) != 0 {
		t.Errorf("pass^k %+v, want 45 tasks of one trial, none flaky", p)
	}
}

// TestDuplicateIdentitiesRenumbered: two results files of one domain, both trials 0 and 1 of
// the same tasks, are eight runs: the second file's get trials 2 and 3, with one note, and the
// report compared with itself matches all eight.
func TestDuplicateIdentitiesRenumbered(t *testing.T) {
	dir := t.TempDir()
	tasks := []string{"a", "b"}
	files := []string{
		tau2File(t, filepath.Join(dir, "1.json"), "airline", "x", tasks, 2, func(string, int) bool { return true }),
		tau2File(t, filepath.Join(dir, "2.json"), "airline", "y", tasks, 2, func(string, int) bool { return false }),
	}
	r := gateRun(t, files, nil, nil)
	var got []string
	for i := range r.Reliability.Traces {
		got = append(got, identity(&r.Reliability.Traces[i]))
	}
	want := []string{`"airline"/"a"/0`, `"airline"/"a"/1`, `"airline"/"b"/0`, `"airline"/"b"/1`, `"airline"/"a"/2`, `"airline"/"a"/3`, `"airline"/"b"/2`, `"airline"/"b"/3`}
	if !slices.Equal(got, want) {
		t.Errorf("identities %q, want %q", got, want)
	}
	if r.IdentityNote != compare.RenumberNote || r.PassK == nil || r.PassK.Tasks != 2 || r.PassK.MinTrials != 4 {
		t.Errorf("note %q, pass^k %+v", r.IdentityNote, r.PassK)
	}
	if md := report.Markdown(r, report.Options{}); strings.Count(md, compare.RenumberNote) != 1 {
		t.Errorf("the comment does not note the renumbering once:\n%s", md)
	}
	unchanged(t, "renumbered", gateRun(t, files, nil, asBaseline(t, reportJSON(t, r))).Comparison, 8)
}

// TestSWEAgentJoinsSWEBenchReport: a SWE-agent .traj has no id, and a SWE-bench report.json
// keyed by instance id gives it its outcome through its task, the file's stem; so do the
// mini-swe-agent trajectories.
func TestSWEAgentJoinsSWEBenchReport(t *testing.T) {
	dir := t.TempDir()
	traj := testfiles.Copy(t, refdata.Path(t, "transcripts/swe-agent-function_calling_simple.traj"), filepath.Join(dir, "django__django-11099", "django__django-11099.traj"))
	mini := filepath.Join("trace", "testdata", "formats", "minisweagent", "sympy__sympy-20590.traj.json")
	report := writeFile(t, dir, "report.json", `{"django__django-11099": {"resolved": true}, "sympy__sympy-20590": {"resolved": false}}`)
	r := gateRun(t, []string{traj, mini}, []string{report}, nil)
	if o := r.Outcomes; o == nil || o.Known != 2 || o.Successes != 1 || o.Unmatched != 0 {
		t.Fatalf("outcomes %+v, want both runs joined, one resolved", o)
	}
	for _, tr := range r.Reliability.Traces {
		if want := tr.Task == "django__django-11099"; !tr.Run.Known || tr.Run.Success != want {
			t.Errorf("%s (task %s): outcome %+v", tr.ID, tr.Task, tr.Run)
		}
	}
}

// TestShardMergeEqualsOneRun: the tau2 runs of three domains with outcomes, gated as three
// shards and merged, give the report one run gives, apart from the source.
func TestShardMergeEqualsOneRun(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for d, domain := range []string{"retail", "airline", "telecom"} {
		files = append(files, tau2File(t, filepath.Join(dir, domain+".json"), domain, "m", []string{"0", "1", "2"}, 2,
			func(task string, trial int) bool { return (trial+d+len(task))%2 == 0 }))
	}
	whole := gateRun(t, files, nil, nil)
	shards := gateShards(t, dir, files, nil)
	merged := mergeAsOneRun(t, shards, whole)
	if figures(merged) != figures(whole) || merged.PassK.Tasks != 9 {
		t.Errorf("figures differ, or pass^k %+v is not of 9 tasks", merged.PassK)
	}
}

// gateShards gates each file as a shard of its own, writes its JSON report to dir and reads
// it back as a merge does; each, when not nil, is shown each shard's result first.
func gateShards(t *testing.T, dir string, files []string, each func(i int, r *gate.Result)) []gate.Shard {
	t.Helper()
	groups := make([][]string, len(files))
	for i, f := range files {
		groups[i] = []string{f}
	}
	return gateGroups(t, dir, groups, each)
}

// gateGroups is gateShards with a shard of each group of files.
func gateGroups(t *testing.T, dir string, groups [][]string, each func(i int, r *gate.Result)) []gate.Shard {
	t.Helper()
	return gateGroupsWith(t, dir, groups, nil, each)
}

// gateGroupsWith is gateGroups with the outcomes input given to every shard.
func gateGroupsWith(t *testing.T, dir string, groups [][]string, outcomes []string, each func(i int, r *gate.Result)) []gate.Shard {
	t.Helper()
	var shards []gate.Shard
	for i, files := range groups {
		r := gateRun(t, files, outcomes, nil)
		if each != nil {
			each(i, r)
		}
		path := filepath.Join(dir, fmt.Sprintf("shard%d.json", i))
		if err := os.WriteFile(path, reportJSON(t, r), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := jsonreport.ReadShard(path)
		if err != nil {
			t.Fatal(err)
		}
		shards = append(shards, s)
	}
	return shards
}

// mergeAsOneRun merges the shards and checks that the report, but for its source, is byte for
// byte whole's, the report of one run over all their files.
func mergeAsOneRun(t *testing.T, shards []gate.Shard, whole *gate.Result) *gate.Result {
	t.Helper()
	merged, err := gate.Merge(context.Background(), shards, gate.Inputs{}, gate.Options{Thresholds: gate.DefaultThresholds()})
	if err != nil {
		t.Fatal(err)
	}
	merged.Source, whole.Source = gate.Source{}, gate.Source{}
	if got, want := reportJSON(t, merged), reportJSON(t, whole); !bytes.Equal(got, want) {
		t.Errorf("merged report differs from one run's:\n%s\nwant\n%s", got, want)
	}
	return merged
}

// stripIdentity removes the members of each trace of a JSON report that an agentgate before
// docs/design.md#run-identity did not write (suite; task and trial too when all is set), as such a baseline is.
func stripIdentity(t *testing.T, report []byte, all bool) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(report, &doc); err != nil {
		t.Fatal(err)
	}
	for _, tr := range doc["reliability"].(map[string]any)["traces"].([]any) {
		delete(tr.(map[string]any), "suite")
		if all {
			delete(tr.(map[string]any), "task")
			delete(tr.(map[string]any), "trial")
		}
	}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestOldBaselineStillMatches: a report written before runs had identities is read as a
// baseline and matched by trace id (mini-swe-agent's ids are its instance ids), or by task
// and trial without the suite it did not record (tau2), with a note saying so.
func TestOldBaselineStillMatches(t *testing.T) {
	for _, c := range []struct {
		name  string
		files []string
		all   bool
		on    string
		note  string
	}{
		{"mini-swe-agent", suites(t)["mini-swe-agent"], true, compare.OnTraceID,
			"runs matched by trace id: only this run names the runs' tasks (a report written before agentgate read run identities names none)"},
		{"tau2", suites(t)["tau2"], false, compare.OnIdentity, "runs matched on task and trial without the suite: only this run names the runs' suites"},
	} {
		r := gateRun(t, c.files, nil, nil)
		cmp := gateRun(t, c.files, nil, asBaseline(t, stripIdentity(t, reportJSON(t, r), c.all))).Comparison
		unchanged(t, c.name, cmp, r.Reliability.Total)
		if cmp.Matching.On != c.on || !slices.Contains(cmp.Notes, c.note) {
			t.Errorf("%s: matched on %q, notes %q; want %q and %q", c.name, cmp.Matching.On, cmp.Notes, c.on, c.note)
		}
	}
}

// TestSubmissionResultsRate: an OpenHands submission's results/results.json given as outcomes
// to three trajectories of its instances: every list is read, so one of the three resolved (on
// main the resolved list alone was read: 1 of 1, rate 1); the five instances without a
// trajectory are unmatched, and they count in the success rate as the report counts them
// (one of them resolved), so the rate is the report's own, 2 of its 8 instances; its counter of
// empty patches, which disagrees with the list, is noted.
func TestSubmissionResultsRate(t *testing.T) {
	mini := filepath.Join("trace", "testdata", "formats", "minisweagent")
	results := filepath.Join("outcome", "testdata", "openhands-results.json")
	r := gateRun(t, []string{filepath.Join(mini, "sympy__sympy-20590.traj.json"),
		filepath.Join(mini, "django__django-11133", "django__django-11133.traj.json"),
		filepath.Join(mini, "pylint-dev__pylint-7080", "pylint-dev__pylint-7080.traj.json")}, []string{results}, nil)
	untraced := []string{"astropy__astropy-12907", "django__django-11099", "matplotlib__matplotlib-23314", "pytest-dev__pytest-5103", "sphinx-doc__sphinx-8435"}
	if o := r.Outcomes; o == nil || o.Runs != 8 || o.Known != 8 || o.Successes != 2 || o.SuccessRate != 2.0/8 || o.Unmatched != 5 ||
		o.Untraced != 5 || !slices.Equal(o.UntracedIDs, untraced) || !slices.Equal(o.UntracedResolved, []string{"django__django-11099"}) || o.TraceFailures() != 2 {
		t.Fatalf("outcomes %+v, want 2 of 8 succeeded, 5 of them untraced (django__django-11099 resolved)", o)
	}
	note := `outcomes "` + results + `": empty_patch_instances counts 1, empty_error_patch_ids lists 3; the lists were read, not the counters`
	if !slices.Contains(r.Notes, note) {
		t.Errorf("notes %q lack %q", r.Notes, note)
	}
}

// TestSubmissionShardsMergeAsOneRun: the submission's report given to each shard of three
// SWE-agent trajectories (a trace id is the file, the instance the run's task) merges into the
// outcomes of one run over them: an instance another shard's trajectory matched by its task is
// neither unmatched nor untraced in the merge, and the rate stays the report's, 2 of 8.
func TestSubmissionShardsMergeAsOneRun(t *testing.T) {
	dir := t.TempDir()
	results := filepath.Join("outcome", "testdata", "openhands-results.json")
	traj := refdata.Path(t, "transcripts/swe-agent-function_calling_simple.traj")
	var groups [][]string
	var files []string
	for _, id := range []string{"django__django-11133", "sympy__sympy-20590", "django__django-11099"} {
		f := testfiles.Copy(t, traj, filepath.Join(dir, id, id+".traj"))
		files = append(files, f)
		groups = append(groups, []string{f})
	}
	whole := gateRun(t, files, []string{results}, nil)
	merged, err := gate.Merge(context.Background(), gateGroupsWith(t, dir, groups, []string{results}, nil), gate.Inputs{}, gate.Options{Thresholds: gate.DefaultThresholds()})
	if err != nil {
		t.Fatal(err)
	}
	// each shard's note on the report's counters is kept under its name: all else is one run's
	got, _ := json.Marshal(merged.Outcomes)
	want, _ := json.Marshal(whole.Outcomes)
	if figures(merged) != figures(whole) || !bytes.Equal(got, want) {
		t.Errorf("merged:\n%s\n%s\nwant one run's:\n%s\n%s", figures(merged), got, figures(whole), want)
	}
	untraced := []string{"astropy__astropy-12907", "matplotlib__matplotlib-23314", "pylint-dev__pylint-7080", "pytest-dev__pytest-5103", "sphinx-doc__sphinx-8435"}
	if o := merged.Outcomes; o == nil || o.Known != 8 || o.Successes != 2 || !slices.Equal(o.UnmatchedIDs, untraced) || !slices.Equal(o.UntracedIDs, untraced) || len(o.UntracedResolved) != 0 {
		t.Errorf("merged outcomes %+v, want 2 of 8, untraced and unmatched %v", o, untraced)
	}
}

// rewrite writes the JSON document src to dst with edit applied to it.
func rewrite(t *testing.T, src, dst string, edit func(doc map[string]any)) string {
	t.Helper()
	var doc map[string]any
	readJSON(t, src, &doc)
	edit(doc)
	return writeJSON(t, dst, doc)
}

// inspectLog writes the generated Inspect log inspect-scores.json (task "arith", model
// openai/gpt-4o) to dst as a log of task and model.
func inspectLog(t *testing.T, dst, task, model string) string {
	return rewrite(t, filepath.Join("trace", "testdata", "formats", "inspect-scores.json"), dst, func(doc map[string]any) {
		doc["eval"].(map[string]any)["task"] = task
		doc["eval"].(map[string]any)["model"] = model
	})
}

// tau2Agent writes the tau2 results file src to dst as the runs of agent llm, each simulation
// with an id of its own (tau2 writes a new uuid per simulation).
func tau2Agent(t *testing.T, src, dst, llm string) string {
	return rewrite(t, src, dst, func(doc map[string]any) {
		doc["info"].(map[string]any)["agent_info"].(map[string]any)["llm"] = llm
		for _, sim := range doc["simulations"].([]any) {
			sim.(map[string]any)["id"] = llm + "-" + sim.(map[string]any)["id"].(string)
		}
	})
}

// tauBenchRecords writes the real tau-bench airline runs, edited by edit, to path.
func tauBenchRecords(t *testing.T, path string, edit func(recs []map[string]any) []map[string]any) string {
	t.Helper()
	var recs []map[string]any
	readJSON(t, refdata.Path(t, "transcripts/tau-bench-airline-sample.json"), &recs)
	return writeJSON(t, path, edit(recs))
}

// runs lists r's runs as "id suite/task/trial (read as id/trial)".
func runs(r *gate.Result) []string {
	var out []string
	for i := range r.Reliability.Traces {
		tr := &r.Reliability.Traces[i]
		s := tr.ID + " " + identity(tr)
		if a := tr.Attempt; a != nil && a.ReadAs != nil {
			s += fmt.Sprintf(" (read as %s/%s/%d)", a.ReadAs.ID, a.ReadAs.Suite, *a.ReadAs.Trial)
		}
		out = append(out, s)
	}
	return out
}

// identitySuites are the inputs of issue 43's layouts, each a list of files gated together:
// two tau-bench files of the same tasks, two Inspect logs of one task, two of two tasks whose
// samples share ids and epochs, two tau2 files of one domain by two agents, and two Inspect
// logs of one task by two models.
func identitySuites(t *testing.T) map[string][]string {
	dir := t.TempDir()
	airline := refdata.Path(t, "transcripts/tau-bench-airline-sample.json")
	tau2 := filepath.Join("trace", "testdata", "formats", "tau2-telecom.json")
	return map[string][]string{
		"tau-bench two files": {airline, testfiles.Copy(t, airline, filepath.Join(dir, "b", "tau-bench-airline-sample.json"))},
		"inspect two logs":    {inspectLog(t, filepath.Join(dir, "logs", "1.json"), "arith", "openai/gpt-4o"), inspectLog(t, filepath.Join(dir, "logs", "2.json"), "arith", "openai/gpt-4o")},
		"inspect two tasks":   {inspectLog(t, filepath.Join(dir, "tasks", "1.json"), "arith", "openai/gpt-4o"), inspectLog(t, filepath.Join(dir, "tasks", "2.json"), "arith_hard", "openai/gpt-4o")},
		"inspect two models":  {inspectLog(t, filepath.Join(dir, "models", "1.json"), "arith", "openai/gpt-4o"), inspectLog(t, filepath.Join(dir, "models", "2.json"), "arith", "anthropic/claude-3-5-sonnet")},
		"tau2 two agents":     {tau2Agent(t, tau2, filepath.Join(dir, "sims", "a.json"), "grok-3-mini"), tau2Agent(t, tau2, filepath.Join(dir, "sims", "b.json"), "grok-4-fast")},
	}
}

// TestIdentityInEveryLayout: the layouts of issue 43, each refused (exit 3, a duplicate trace
// id) or pooled on main, read as their harnesses mean them: further files and logs of the same
// tasks are further trials, numbered from one past the largest, each run with an id of its own
// and the id and trial it was read with kept as read_as; two tasks are two suites; two agents
// are two suites, never trials of one task.
func TestIdentityInEveryLayout(t *testing.T) {
	all := identitySuites(t)
	for _, c := range []struct {
		name              string
		want              []string
		tasks, minTrials  int
		renumbered, agent bool
	}{
		{"tau-bench two files", []string{
			`0#0 "airline"/"0"/0`, `0#2 "airline"/"0"/2`, `0#3 "airline"/"0"/3`, `3#0 "airline"/"3"/0`, `3#1 "airline"/"3"/1`,
			`3#2 "airline"/"3"/2`, `3#3 "airline"/"3"/3`, `4#2 "airline"/"4"/2`, `8#1 "airline"/"8"/1`, `9#2 "airline"/"9"/2`,
			`0#4 "airline"/"0"/4 (read as 0#0/airline/0)`, `0#5 "airline"/"0"/5 (read as 0#2/airline/2)`, `0#6 "airline"/"0"/6 (read as 0#3/airline/3)`,
			`3#4 "airline"/"3"/4 (read as 3#0/airline/0)`, `3#5 "airline"/"3"/5 (read as 3#1/airline/1)`, `3#6 "airline"/"3"/6 (read as 3#2/airline/2)`,
			`3#7 "airline"/"3"/7 (read as 3#3/airline/3)`, `4#3 "airline"/"4"/3 (read as 4#2/airline/2)`, `8#2 "airline"/"8"/2 (read as 8#1/airline/1)`,
			`9#3 "airline"/"9"/3 (read as 9#2/airline/2)`}, 5, 2, true, false},
		{"inspect two logs", []string{
			`1#1 "arith"/"1"/1`, `1#2 "arith"/"1"/2`, `two#1 "arith"/"two"/1`, `two#2 "arith"/"two"/2`, `three#1 "arith"/"three"/1`,
			`1#3 "arith"/"1"/3 (read as 1#1/arith/1)`, `1#4 "arith"/"1"/4 (read as 1#2/arith/2)`, `two#3 "arith"/"two"/3 (read as two#1/arith/1)`,
			`two#4 "arith"/"two"/4 (read as two#2/arith/2)`, `three#2 "arith"/"three"/2 (read as three#1/arith/1)`}, 3, 2, true, false},
		{"inspect two tasks", []string{
			`1#1 "arith"/"1"/1`, `1#2 "arith"/"1"/2`, `two#1 "arith"/"two"/1`, `two#2 "arith"/"two"/2`, `three#1 "arith"/"three"/1`,
			`arith_hard/1#1 "arith_hard"/"1"/1 (read as 1#1/arith_hard/1)`, `arith_hard/1#2 "arith_hard"/"1"/2 (read as 1#2/arith_hard/2)`,
			`arith_hard/two#1 "arith_hard"/"two"/1 (read as two#1/arith_hard/1)`, `arith_hard/two#2 "arith_hard"/"two"/2 (read as two#2/arith_hard/2)`,
			`arith_hard/three#1 "arith_hard"/"three"/1 (read as three#1/arith_hard/1)`}, 6, 1, false, false},
		// the suite that sorts first keeps the ids as read, whichever file holds it
		{"inspect two models", []string{
			`arith@openai/gpt-4o/1#1 "arith@openai/gpt-4o"/"1"/1 (read as 1#1/arith/1)`, `arith@openai/gpt-4o/1#2 "arith@openai/gpt-4o"/"1"/2 (read as 1#2/arith/2)`,
			`arith@openai/gpt-4o/two#1 "arith@openai/gpt-4o"/"two"/1 (read as two#1/arith/1)`, `arith@openai/gpt-4o/two#2 "arith@openai/gpt-4o"/"two"/2 (read as two#2/arith/2)`,
			`arith@openai/gpt-4o/three#1 "arith@openai/gpt-4o"/"three"/1 (read as three#1/arith/1)`,
			`1#1 "arith@anthropic/claude-3-5-sonnet"/"1"/1 (read as 1#1/arith/1)`, `1#2 "arith@anthropic/claude-3-5-sonnet"/"1"/2 (read as 1#2/arith/2)`,
			`two#1 "arith@anthropic/claude-3-5-sonnet"/"two"/1 (read as two#1/arith/1)`, `two#2 "arith@anthropic/claude-3-5-sonnet"/"two"/2 (read as two#2/arith/2)`,
			`three#1 "arith@anthropic/claude-3-5-sonnet"/"three"/1 (read as three#1/arith/1)`}, 6, 1, false, true},
	} {
		r := gateRun(t, all[c.name], nil, nil)
		if got := runs(r); !slices.Equal(got, c.want) {
			t.Errorf("%s: runs\n%s\nwant\n%s", c.name, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
		if p := r.PassK; p == nil || p.Tasks != c.tasks || p.MinTrials != c.minTrials {
			t.Errorf("%s: pass^k %+v, want %d tasks of at least %d trials", c.name, p, c.tasks, c.minTrials)
		}
		if got := strings.Contains(r.IdentityNote, compare.RenumberNote); got != c.renumbered {
			t.Errorf("%s: identity note %q: renumbered %v, want %v", c.name, r.IdentityNote, got, c.renumbered)
		}
		if got := strings.Contains(r.IdentityNote, "holds runs of 2 agents"); got != c.agent {
			t.Errorf("%s: identity note %q: agents %v, want %v", c.name, r.IdentityNote, got, c.agent)
		}
	}
}

// TestTwoAgentsAreTwoSuites: a tau2 simulations folder holding a grok-3-mini and a grok-4-fast
// run of the same telecom tasks (on main: the two tasks with 2 and 1 trials read as 6 and 3
// trials of them) is two suites, one an agent, with a note naming both.
func TestTwoAgentsAreTwoSuites(t *testing.T) {
	r := gateRun(t, identitySuites(t)["tau2 two agents"], nil, nil)
	p := r.PassK
	if p == nil || p.Tasks != 4 || p.Trials != 6 || p.MinTrials != 1 {
		t.Errorf("pass^k %+v, want 4 tasks (2 an agent), 6 trials", p)
	}
	const note = `suite "telecom" holds runs of 2 agents ("grok-3-mini", "grok-4-fast"): each agent's runs are a suite of their own ("telecom@grok-3-mini", "telecom@grok-4-fast"), never trials of one task`
	if r.IdentityNote != note {
		t.Errorf("identity note %q, want %q", r.IdentityNote, note)
	}
	for i := range r.Reliability.Traces {
		if a := r.Reliability.Traces[i].Attempt; a == nil || a.Suite != "telecom@"+a.Agent || a.Trial == nil || a.ReadAs == nil || *a.ReadAs.Trial != *a.Trial {
			t.Errorf("run %d: %+v", i, a)
		}
	}
}

// TestShardsWithRepeatedIdentities: tau-bench runs of task 5 read as trials 0, 0 (one file),
// 1 and 0 (two more) are trials 2, 3, 1 and 0 in one run (of the three trials 0, the last
// file's run sorts first by content, ContentKey, and keeps its trial; the other two follow in
// the order of their content); every split of the files into shards, merged, gives that
// run's report byte for byte. On main a shard numbered its own repeats (the second run of the
// first file got trial 1, and then the others 2 and 3), and the file with a repeated id was
// refused.
func TestShardsWithRepeatedIdentities(t *testing.T) {
	dir := t.TempDir()
	file := func(name string, trials []int, rewards []float64) string {
		return tauBenchRecords(t, filepath.Join(dir, name), func(recs []map[string]any) []map[string]any {
			var out []map[string]any
			for i, trial := range trials {
				r := recs[i]
				r["task_id"], r["trial"], r["reward"] = 5, trial, rewards[i]
				out = append(out, r)
			}
			return out
		})
	}
	a := file("a.json", []int{0, 0}, []float64{1, 0})
	b := file("b.json", []int{1}, []float64{1})
	c := file("c.json", []int{0}, []float64{0})
	whole := gateRun(t, []string{a, b, c}, nil, nil)
	want := []string{`5#2 "airline"/"5"/2 (read as 5#0/airline/0)`, `5#3 "airline"/"5"/3 (read as 5#0/airline/0)`, `5#1 "airline"/"5"/1`, `5#0 "airline"/"5"/0`}
	if got := runs(whole); !slices.Equal(got, want) {
		t.Fatalf("one run:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, split := range [][][]string{{{a}, {b}, {c}}, {{a, b}, {c}}, {{a}, {b, c}}, {{c}, {a, b}}} {
		mergeAsOneRun(t, gateGroups(t, t.TempDir(), split, nil), whole)
	}
}

// TestTauBenchDomains: tau-bench records no domain, and its runs open with their domain's
// policy: airline runs compared with the same task ids of retail runs match none, and the
// warning says the suites differ (on main all 10 matched, airline with retail). Runs whose
// policy names no domain match on task and trial, with a note that the domains are unknown.
func TestTauBenchDomains(t *testing.T) {
	dir := t.TempDir()
	policy := func(title string) func([]map[string]any) []map[string]any {
		return func(recs []map[string]any) []map[string]any {
			for _, r := range recs {
				sys := r["traj"].([]any)[0].(map[string]any)
				_, rest, _ := strings.Cut(sys["content"].(string), "\n")
				sys["content"] = title + "\n" + rest
			}
			return recs
		}
	}
	airline := refdata.Path(t, "transcripts/tau-bench-airline-sample.json")
	retail := tauBenchRecords(t, filepath.Join(dir, "retail.json"), policy("# Retail agent policy"))
	base := asBaseline(t, reportJSON(t, gateRun(t, []string{airline}, nil, nil)))
	c := gateRun(t, []string{retail}, nil, base).Comparison
	const warning = "0 of 10 runs matched: the two reports name the same task ids in different suites"
	if m := c.Matching; m == nil || m.On != compare.OnSuiteIdentity || m.Matched != 0 || m.Warning != warning {
		t.Errorf("airline against retail: matching %+v, want %q", m, warning)
	}
	blind := tauBenchRecords(t, filepath.Join(dir, "blind.json"), policy("You are a helpful agent."))
	r := gateRun(t, []string{blind}, nil, nil)
	if a := r.Reliability.Traces[0].Attempt; a == nil || a.Suite != "" || a.Task != "0" {
		t.Fatalf("no policy: %+v, want no suite", a)
	}
	c = gateRun(t, []string{blind}, nil, asBaseline(t, reportJSON(t, r))).Comparison
	const note = "runs matched on task and trial: neither report names the runs' domains (suites), and their task ids are numbers, which a harness's domains share (each numbers its tasks from 0): runs of two domains would be taken for one"
	if m := c.Matching; m == nil || m.On != compare.OnIdentity || m.Matched != 10 || !slices.Contains(c.Notes, note) {
		t.Errorf("no policy: matching %+v, notes %q; want 10 matched on task and trial, and %q", m, c.Notes, note)
	}
}

// agentLayouts are, per harness, two agents' runs of the same tasks in one folder, each agent
// named where its harness records it (docs/trace-formats.md, "Agents"), with the runs each
// suite must hold: AgentDojo's runs/<pipeline>/<suite>/… (pipeline_name), a fork of it that
// keeps suite_name beside its own keys (two domains of one agent, and two agents of one
// domain), OpenHands' output.jsonl (metadata.llm_config.model), SWE-agent's .traj
// (replay_config) and, before 1.0, its run folders, mini-swe-agent (info.config.model), and
// tau-bench's result files as run.py names them (two agents, and two files of one agent, whose
// runs are further trials of one suite).
func agentLayouts(t *testing.T) map[string]struct {
	files  []string
	suites map[string]int
} {
	dir := t.TempDir()
	formats := filepath.Join("trace", "testdata", "formats")
	dojo := filepath.Join(formats, "agentdojo", "runs", "gpt-4o-2024-05-13", "banking", "user_task_0", "none", "none.json")
	forkRun := func(domain string) string {
		return filepath.Join(formats, "agentdojo-fork", "runs", "2026-07-18", "codex1", domain, "20260718_132659_made-up-model_"+domain+"_t01",
			"made-up-model", domain+"_suite", domain, "t01", "poison_top1", "seed_1.json")
	}
	setPipeline := func(p string) func(map[string]any) { return func(doc map[string]any) { doc["pipeline_name"] = p } }
	sweTraj := filepath.Join(formats, "sweagent", "django__django-11133", "django__django-11133.traj")
	sweModel := func(model string) func(map[string]any) {
		return func(doc map[string]any) {
			var cfg map[string]any
			if err := json.Unmarshal([]byte(doc["replay_config"].(string)), &cfg); err != nil {
				t.Fatal(err)
			}
			cfg["agent"].(map[string]any)["model"].(map[string]any)["name"] = model
			b, _ := json.Marshal(cfg)
			doc["replay_config"] = string(b)
		}
	}
	sweOld := filepath.Join("trace", "testdata", "folders", "sweagent", "trajectories", "alice", "default__gpt-4o__t-0.00__p-0.95__c-2.00__install-1", "django__django-11133.traj")
	mini := filepath.Join(formats, "minisweagent", "sympy__sympy-20590.traj.json")
	miniModel := func(model string) func(map[string]any) {
		return func(doc map[string]any) {
			doc["info"].(map[string]any)["config"].(map[string]any)["model"].(map[string]any)["model_name"] = model
		}
	}
	airline := refdata.Path(t, "transcripts/tau-bench-airline-sample.json")
	tauName := func(model, at string) string {
		return filepath.Join(dir, "tau-bench", "tool-calling-"+model+"-0.0_range_0-10_user-gpt-4o-llm_"+at+".json")
	}
	type layout = struct {
		files  []string
		suites map[string]int
	}
	return map[string]layout{
		"agentdojo two pipelines": {[]string{
			rewrite(t, dojo, filepath.Join(dir, "dojo", "runs", "gpt-4o-2024-05-13", "banking", "user_task_0", "none", "none.json"), setPipeline("gpt-4o-2024-05-13")),
			rewrite(t, dojo, filepath.Join(dir, "dojo", "runs", "claude-3-5-sonnet-20240620", "banking", "user_task_0", "none", "none.json"), setPipeline("claude-3-5-sonnet-20240620")),
		}, map[string]int{"banking@claude-3-5-sonnet-20240620": 1, "banking@gpt-4o-2024-05-13": 1}},
		"agentdojo fork two domains": {[]string{forkRun("airport"), forkRun("automotive")},
			map[string]int{"airport_suite": 1, "automotive_suite": 1}},
		"agentdojo fork two agents": {[]string{
			forkRun("airport"), forkRun("automotive"),
			rewrite(t, forkRun("airport"), filepath.Join(dir, "fork", "other", "airport", "seed_1.json"), setPipeline("other-model")),
		}, map[string]int{"airport_suite@made-up-model": 1, "airport_suite@other-model": 1, "automotive_suite": 1}},
		"openhands two models": {[]string{
			filepath.Join(formats, "openhands", "output.jsonl"),
			openHandsModel(t, filepath.Join(formats, "openhands", "output.jsonl"), filepath.Join(dir, "openhands", "gpt-4o", "output.jsonl"), "openai/gpt-4o"),
		}, map[string]int{"CodeActAgent/litellm_proxy/claude-sonnet-4-20250514": 2, "CodeActAgent/openai/gpt-4o": 2}},
		"swe-agent two models": {[]string{
			rewrite(t, sweTraj, filepath.Join(dir, "swe", "a", "django__django-11133", "django__django-11133.traj"), sweModel("gpt-4o")),
			rewrite(t, sweTraj, filepath.Join(dir, "swe", "b", "django__django-11133", "django__django-11133.traj"), sweModel("claude-3-7-sonnet-20250219")),
		}, map[string]int{"claude-3-7-sonnet-20250219": 1, "gpt-4o": 1}},
		"swe-agent 0.x two runs": {[]string{
			sweOld, testfiles.Copy(t, sweOld, filepath.Join(dir, "swe0", "gpt4__swe-bench_lite__default__t-0.00__p-0.95__c-2.00__install-1", "django__django-11133.traj")),
		}, map[string]int{"default__gpt-4o__t-0.00__p-0.95__c-2.00__install-1": 1, "gpt4__swe-bench_lite__default__t-0.00__p-0.95__c-2.00__install-1": 1}},
		"mini-swe-agent two models": {[]string{
			mini, rewrite(t, mini, filepath.Join(dir, "mini", "sympy__sympy-20590", "sympy__sympy-20590.traj.json"), miniModel("openai/gpt-5")),
		}, map[string]int{"anthropic/claude-sonnet-4-20250514": 1, "openai/gpt-5": 1}},
		"tau-bench two agents": {[]string{
			testfiles.Copy(t, airline, tauName("gpt-4o", "1128090000")), testfiles.Copy(t, airline, tauName("claude-3-5-sonnet-20240620", "1128100000")),
		}, map[string]int{"airline@tool-calling-gpt-4o-0.0": 10, "airline@tool-calling-claude-3-5-sonnet-20240620-0.0": 10}},
		"tau-bench one agent two files": {[]string{
			testfiles.Copy(t, airline, tauName("gpt-4o", "1128090000")), testfiles.Copy(t, airline, tauName("gpt-4o", "1128110000")),
		}, map[string]int{"airline": 20}},
	}
}

// openHandsModel writes the OpenHands output.jsonl src to dst with every record's model set
// to model.
func openHandsModel(t *testing.T, src, dst, model string) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	for line := range strings.SplitSeq(strings.TrimSpace(string(data)), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		rec["metadata"].(map[string]any)["llm_config"].(map[string]any)["model"] = model
		b, _ := json.Marshal(rec)
		out = append(append(out, b...), '\n')
	}
	return writeBytes(t, dst, out)
}

// TestTwoAgentsInEveryHarness: two agents' runs of the same tasks read together are a suite
// per agent in every harness that records its agent, never trials of one task (on main only
// tau2 and Inspect read the agent: the AgentDojo fork's two domains pooled as two trials of
// "t01", and every other pair as trials of one task); exactly the runs of each suite, one
// note naming the agents, and each layout compared with itself changes nothing and merged
// from a shard a file equals one run.
func TestTwoAgentsInEveryHarness(t *testing.T) {
	for name, c := range agentLayouts(t) {
		r := gateRun(t, c.files, nil, nil)
		got := map[string]int{}
		for i := range r.Reliability.Traces {
			if a := r.Reliability.Traces[i].Attempt; a != nil {
				got[a.Suite]++
			}
		}
		if !maps.Equal(got, c.suites) {
			t.Errorf("%s: runs per suite %v, want %v", name, got, c.suites)
		}
		split := !strings.Contains(name, "domains") && !strings.Contains(name, "one agent")
		if strings.Contains(r.IdentityNote, "holds runs of 2 agents") != split {
			t.Errorf("%s: identity note %q: says two agents %v, want %v", name, r.IdentityNote, !split, split)
		}
		unchanged(t, name, gateRun(t, c.files, nil, asBaseline(t, reportJSON(t, r))).Comparison, r.Reliability.Total)
		mergeAsOneRun(t, gateShards(t, t.TempDir(), c.files, nil), r)
	}
}

// TestTauBenchCrashesMatchTheirDomain: a head run of the real airline runs in which two runs
// crashed before the agent's first turn (traj: [] and info.error, as tau-bench's run.py records
// a raised exception) matches the airline baseline run for run: the crashes take the domain
// of their file (on main they had no suite and matched none: 8 of 10 matched), and count as
// the baseline's successes lost.
func TestTauBenchCrashesMatchTheirDomain(t *testing.T) {
	airline := refdata.Path(t, "transcripts/tau-bench-airline-sample.json")
	base := asBaseline(t, reportJSON(t, gateRun(t, []string{airline}, nil, nil)))
	head := tauBenchRecords(t, filepath.Join(t.TempDir(), "crashed.json"), func(recs []map[string]any) []map[string]any {
		for _, r := range recs[:2] {
			r["traj"], r["reward"] = []any{}, 0.0
			r["info"] = map[string]any{"error": "litellm.RateLimitError: made up", "traceback": "Traceback (most recent call last):\nlitellm.RateLimitError: made up\n"}
		}
		return recs
	})
	c := gateRun(t, []string{head}, nil, base).Comparison
	if m := c.Matching; m == nil || m.On != compare.OnSuiteIdentity || m.Matched != 10 || m.BaseRuns != 10 || m.HeadRuns != 10 {
		t.Errorf("matching %+v, want all 10 runs matched on suite and identity", m)
	}
	// a file of crashes alone names no domain; beside the others, merged from shards, the runs
	// are those of one run over the files
	only := tauBenchRecords(t, filepath.Join(t.TempDir(), "only.json"), func(recs []map[string]any) []map[string]any {
		recs[0]["traj"], recs[0]["info"] = []any{}, map[string]any{"error": "made up"}
		return recs[:1]
	})
	r := gateRun(t, []string{only}, nil, nil)
	if a := r.Reliability.Traces[0].Attempt; a == nil || a.Suite != "" || a.Task != "0" {
		t.Errorf("a file of one crash: %+v, want no suite", a)
	}
	whole := gateRun(t, []string{head, only, airline}, nil, nil)
	suites := map[string]int{}
	for i := range whole.Reliability.Traces {
		suites[whole.Reliability.Traces[i].Attempt.Suite]++
	}
	if want := map[string]int{"airline": 20, "": 1}; !maps.Equal(suites, want) {
		t.Errorf("runs per suite %v, want %v", suites, want)
	}
	mergeAsOneRun(t, gateGroups(t, t.TempDir(), [][]string{{head}, {only, airline}}, nil), whole)
}

// shuffleRecords writes the files of a suite again under dir, file i at dir/<order[i]>/<its
// folder>/<its name> (what names a run, a file's name or folder, kept; the gate reads the
// copies in the order order gives), with its records (a JSON array, a JSONL file, a tau2
// results file's simulations) in an order rng picks. The copies are returned in files' order.
func shuffleRecords(t *testing.T, files []string, order []int, dir string, rng *rand.Rand) []string {
	t.Helper()
	var out []string
	for i, f := range files {
		dst := filepath.Join(dir, fmt.Sprint(order[i]), filepath.Base(filepath.Dir(f)), filepath.Base(f))
		moved := reorder(t, []string{f}, t.TempDir(), rng)[0]
		out = append(out, testfiles.Copy(t, moved, dst))
	}
	return out
}

// placeless is the JSON report without what says where a run lies (each trace's file and line,
// the report's source; the files' paths, which name a run that has no id of its own, written
// as their place in files), its traces sorted: what neither the order of records nor where the
// files lie may change.
func placeless(t *testing.T, report []byte, files []string) string {
	t.Helper()
	for i, f := range files {
		q, _ := json.Marshal(f)
		report = bytes.ReplaceAll(report, q[1:len(q)-1], []byte(fmt.Sprintf("<file %d>", i)))
	}
	var doc map[string]any
	if err := json.Unmarshal(report, &doc); err != nil {
		t.Fatal(err)
	}
	delete(doc, "source")
	if rel, ok := doc["reliability"].(map[string]any); ok {
		traces, _ := rel["traces"].([]any)
		keys := make([]string, len(traces))
		for i, tr := range traces {
			m := tr.(map[string]any)
			delete(m, "file")
			delete(m, "line")
			b, _ := json.Marshal(m)
			keys[i] = string(b)
		}
		slices.Sort(keys)
		rel["traces"] = keys
	}
	b, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestIdentityProperties: for every layout of repeated identities (two files of the same
// tasks, two logs of one task, logs of two tasks, two agents in every harness, and files of
// the same tasks whose runs differ), shuffling the records of each file, moving the files
// elsewhere and renaming them so that they are read in another order changes nothing in the
// report but where the runs lie, and any split of the files into shards, merged, gives the
// report of one run over them byte for byte. Which of two runs with one identity keeps its
// trial and id is decided by the runs themselves (docs/comparison-and-statistics.md, "Which
// run is which: identity"): on main it followed the order of the files' paths, and a rename
// that reversed it swapped the outcomes of trials 0 and 4.
func TestIdentityProperties(t *testing.T) {
	layouts := identitySuites(t)
	for name, c := range agentLayouts(t) {
		layouts[name] = c.files
	}
	maps.Copy(layouts, differingRuns(t))
	rng := rand.New(rand.NewPCG(43, 3))
	for name, files := range layouts {
		files = slices.Clone(files)
		slices.Sort(files) // the order the gate reads them in
		want := placeless(t, reportJSON(t, gateRun(t, files, nil, nil)), files)
		for round := range 3 {
			// round 0 keeps the files' order, round 1 reverses it, round 2 shuffles it
			order := make([]int, len(files))
			for i := range order {
				order[i] = i
			}
			switch round {
			case 1:
				slices.Reverse(order)
			case 2:
				rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			}
			moved := shuffleRecords(t, files, order, t.TempDir(), rng)
			whole := gateRun(t, moved, nil, nil)
			if got := placeless(t, reportJSON(t, whole), moved); got != want {
				t.Errorf("%s, round %d (files read in the order %v): the report changed with the order of records and the files' place and names:\n%s\nwant\n%s", name, round, order, got, want)
				continue
			}
			// a split into shards: each file to a shard rng picks, the shards in any order
			n := 1 + rng.IntN(len(moved))
			groups := make([][]string, n)
			for _, f := range moved {
				k := rng.IntN(n)
				groups[k] = append(groups[k], f)
			}
			groups = slices.DeleteFunc(groups, func(g []string) bool { return len(g) == 0 })
			rng.Shuffle(len(groups), func(i, j int) { groups[i], groups[j] = groups[j], groups[i] })
			mergeAsOneRun(t, gateGroups(t, t.TempDir(), groups, nil), whole)
		}
	}
}

// differingRuns are layouts in which runs that share an identity differ: two tau-bench files
// of the same tasks whose rewards differ (the second's runs failed where the first's
// succeeded and the other way round), two tau2 files of one agent and domain likewise, and
// two Inspect logs of one task whose samples were scored differently.
func differingRuns(t *testing.T) map[string][]string {
	dir := t.TempDir()
	airline := refdata.Path(t, "transcripts/tau-bench-airline-sample.json")
	flipped := tauBenchRecords(t, filepath.Join(dir, "tau-bench", "b.json"), func(recs []map[string]any) []map[string]any {
		for _, r := range recs {
			r["reward"] = 1 - r["reward"].(float64)
		}
		return recs
	})
	tau2 := filepath.Join("trace", "testdata", "formats", "tau2-telecom.json")
	tau2Flipped := rewrite(t, tau2, filepath.Join(dir, "tau2", "b.json"), func(doc map[string]any) {
		for _, sim := range doc["simulations"].([]any) {
			if ri, ok := sim.(map[string]any)["reward_info"].(map[string]any); ok {
				ri["reward"] = 1 - ri["reward"].(float64)
			}
		}
	})
	inspectRescored := rewrite(t, inspectLog(t, filepath.Join(dir, "logs", "tmp.json"), "arith", "openai/gpt-4o"), filepath.Join(dir, "logs", "2.json"), func(doc map[string]any) {
		for _, s := range doc["samples"].([]any) {
			if sc, ok := s.(map[string]any)["scores"].(map[string]any); ok {
				sc["includes"].(map[string]any)["value"] = "I"
			}
		}
	})
	return map[string][]string{
		"tau-bench two files, other rewards": {testfiles.Copy(t, airline, filepath.Join(dir, "tau-bench", "a.json")), flipped},
		"tau2 two files, other rewards":      {testfiles.Copy(t, tau2, filepath.Join(dir, "tau2", "a.json")), tau2Flipped},
		"inspect two logs, other scores":     {inspectLog(t, filepath.Join(dir, "logs", "1.json"), "arith", "openai/gpt-4o"), inspectRescored},
	}
}

// TestForkDomainsNote: the AgentDojo fork's task t01 of two domains is two runs of two suites,
// each with an id of its own, and the note says why the second was renamed (on main its words
// spoke of "two files of the same tasks" alone).
func TestForkDomainsNote(t *testing.T) {
	r := gateRun(t, agentLayouts(t)["agentdojo fork two domains"].files, nil, nil)
	const note = `1 run has an id another run has (two files of the same tasks, or one task id in two suites): each is named from its own suite and trial (the first by id: "t01" is "automotive_suite/t01"), and its id as read is kept as read_as`
	if r.IdentityNote != note {
		t.Errorf("identity note %q, want %q", r.IdentityNote, note)
	}
	var got []string
	for i := range r.Reliability.Traces {
		got = append(got, r.Reliability.Traces[i].ID+" "+identity(&r.Reliability.Traces[i]))
	}
	if want := []string{`t01 "airport_suite"/"t01"/-`, `automotive_suite/t01 "automotive_suite"/"t01"/-`}; !slices.Equal(got, want) {
		t.Errorf("runs %q, want %q", got, want)
	}
}

// TestSWEAgentConfigsBeside: a folder of two SWE-agent 1.x RetryAgent runs of one instance
// (run_batch's and run_single's layouts, trace/testdata/folders/sweagent-1.x), whose
// trajectories hold replay_config null, is two agents' runs, each named by the config SWE-agent
// wrote beside its trajectory: two suites, never two trials of one task (on main: one task's
// trials 0 and 1). The report says which side files it read, and lists them no more as skipped.
func TestSWEAgentConfigsBeside(t *testing.T) {
	dir := filepath.Join("trace", "testdata", "folders", "sweagent-1.x")
	r := gateRun(t, []string{dir}, nil, nil)
	want := []string{
		`batch/django__django-11133/django__django-11133.traj:1 "claude-3-7-sonnet-20250219"/"django__django-11133"/-`,
		`single/django__django-11133/django__django-11133.traj:1 "gpt-4o+o3-mini"/"django__django-11133"/-`,
	}
	var got []string
	for i := range r.Reliability.Traces {
		tr := &r.Reliability.Traces[i]
		id, _ := filepath.Rel(dir, tr.ID)
		got = append(got, filepath.ToSlash(id)+" "+identity(tr))
	}
	if !slices.Equal(got, want) {
		t.Errorf("runs\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	notes := []string{
		"read 2 side files beside the traces, for what the traces do not record (a run's config): batch/django__django-11133/django__django-11133.config.yaml, single/django__django-11133/config.yaml",
		"skipped 3 side files: batch/preds.json (predictions: a map of instance ids to patches), batch/django__django-11133/django__django-11133.patch, batch/run_batch.config.yaml",
	}
	if !slices.Equal(r.Notes[:min(2, len(r.Notes))], notes) {
		t.Errorf("notes\n%s\nwant\n%s", strings.Join(r.Notes, "\n"), strings.Join(notes, "\n"))
	}
}
