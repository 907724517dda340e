package jsonreport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/compare"
	"github.com/agentgate/agentgate/gate/input"
)

// chainRun writes the traces of run i of a chain into dir: tasks a, b and c with two trials
// each. Task a's trials disagree in every third run, b's in every fifth; the first trial of c
// succeeds in runs whose i is even. So run i's success rate, pass^k and flaky tasks are known
// by construction.
func chainRun(t *testing.T, dir string, i int, tasks ...string) string {
	t.Helper()
	if len(tasks) == 0 {
		tasks = []string{"a", "b", "c"}
	}
	var b strings.Builder
	for _, task := range tasks {
		for trial := range 2 {
			reward := 1
			switch {
			case task == "a" && i%3 == 0 && trial == 1, task == "b" && i%5 == 0 && trial == 0, task == "c" && (i%2 == 1 || trial == 1):
				reward = 0
			}
			fmt.Fprintf(&b, `{"trace_id": "%s-%d", "task_id": %q, "trial": %d, "reward": %d, "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok"}]}`+"\n",
				task, trial, task, trial, reward)
		}
	}
	path := filepath.Join(dir, fmt.Sprintf("run%02d-%s.jsonl", i, strings.Join(tasks, "")))
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// sha is the commit of run i.
func sha(i int) string { return fmt.Sprintf("%040x", 0xabc000+i) }

// gateRun gates traces compared with the report base (none when nil), as the commit of run i
// on ref, and returns the result and its JSON report.
func gateRun(t *testing.T, traces []string, base []byte, i int, ref string) (*gate.Result, []byte) {
	t.Helper()
	o := gate.Options{Thresholds: gate.DefaultThresholds(), Source: gate.Source{Source: compare.Source{SHA: sha(i), Ref: ref}}}
	if base != nil {
		b, err := ReadBaseline(bytes.NewReader(base), "base.json")
		if err != nil {
			t.Fatal(err)
		}
		o.Baseline = &gate.Baseline{Report: b}
	}
	res, err := gate.Run(context.Background(), gate.Inputs{Traces: traces}, o)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Write(&out, res); err != nil {
		t.Fatal(err)
	}
	return res, out.Bytes()
}

// TestHistoryChain: 35 runs on main, each compared with the report of the one before it, as
// the push job's artifact carries it forward. The last report keeps the newest 30 points,
// oldest first, each the figures its own run reported; the history reads back exactly; a
// re-run of the last commit replaces its point; a pull request's run is the last point of
// its own report but never part of main's trend.
func TestHistoryChain(t *testing.T) {
	dir := t.TempDir()
	const main = "refs/heads/main"
	var report []byte
	var results []*gate.Result
	for i := range 35 {
		var res *gate.Result
		res, report = gateRun(t, []string{chainRun(t, dir, i)}, report, i, main)
		results = append(results, res)
		if res.Comparison == nil && i > 0 {
			t.Fatalf("run %d not compared: %s", i, res.BaselineNote)
		}
		if want := min(i+1, compare.MaxHistory); len(res.History) != want {
			t.Fatalf("run %d: %d points, want %d", i, len(res.History), want)
		}
	}
	last := results[34]
	for j, p := range last.History {
		i := j + 5
		r := results[i]
		flaky := []string{}
		if i%3 == 0 {
			flaky = append(flaky, "a")
		}
		if i%5 == 0 {
			flaky = append(flaky, "b")
		}
		if i%2 == 0 {
			flaky = append(flaky, "c")
		}
		if p.SHA != sha(i) || p.Ref != main || p.Runs != 6 || p.Known != 6 || p.SuccessRate == nil || *p.SuccessRate != r.Outcomes.SuccessRate ||
			!reflect.DeepEqual(p.PassK, r.PassK.Values) || p.TrialTasks != 3 || p.Flaky != len(flaky) || !reflect.DeepEqual(p.FlakyTasks, flaky) {
			t.Errorf("point %d (run %d): %+v, want the run's figures (success %v, pass^k %v, flaky %v)", j, i, p, r.Outcomes.SuccessRate, r.PassK.Values, flaky)
		}
	}
	// Run 34's success: a and b succeed twice, c once (its first trial fails in odd runs).
	if p := last.History[29]; *p.SuccessRate != 5.0/6 {
		t.Errorf("run 34's success rate %v, want 5/6", *p.SuccessRate)
	}
	// Task c disagrees in the 15 even runs of the 30 kept, a in the 10 runs i%3 == 0 of
	// 5..34, b in the 6 runs i%5 == 0.
	if got, want := compare.FlakyOver(last.History), []compare.FlakyTask{{Task: "c", Runs: 15, Of: 30}, {Task: "a", Runs: 10, Of: 30}, {Task: "b", Runs: 6, Of: 30}}; !reflect.DeepEqual(got, want) {
		t.Errorf("flaky over the history %+v, want %+v", got, want)
	}

	b, err := ReadBaseline(bytes.NewReader(report), "r.json")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(b.History, last.History) {
		t.Errorf("history read back differs:\n got %+v\nwant %+v", b.History, last.History)
	}

	// A re-run of run 34's commit, compared with run 34's report: the same 30 points, its own
	// last.
	rerun, _ := gateRun(t, []string{chainRun(t, dir, 36)}, report, 34, main)
	if len(rerun.History) != 30 || rerun.History[0].SHA != sha(5) || rerun.History[29].SHA != sha(34) || *rerun.History[29].SuccessRate != rerun.Outcomes.SuccessRate {
		t.Errorf("re-run: %d points, first %s, last %+v", len(rerun.History), rerun.History[0].SHA, rerun.History[29])
	}

	// The same commit on another ref is a point of its own.
	same, _ := gateRun(t, []string{chainRun(t, dir, 37)}, report, 34, "refs/pull/8/merge")
	if len(same.History) != 30 || same.History[28].SHA != sha(34) || same.History[29].SHA != sha(34) || same.History[29].Ref != "refs/pull/8/merge" {
		t.Errorf("the same commit on another ref: %d points, last two %+v", len(same.History), same.History[28:])
	}

	// A pull request: main's 30 points less the oldest, and the change as the last point.
	pr, prReport := gateRun(t, []string{chainRun(t, dir, 40)}, report, 40, "refs/pull/7/merge")
	if len(pr.History) != 30 || pr.History[0].SHA != sha(6) || pr.History[28].SHA != sha(34) || pr.History[29].SHA != sha(40) || pr.History[29].Ref != "refs/pull/7/merge" {
		t.Errorf("pull request's history: %d points, first %s, last two %+v", len(pr.History), pr.History[0].SHA, pr.History[28:])
	}
	// Its report used as main's baseline by mistake: only its points of its own ref are
	// copied, so main's trend does not take in the pull request's run.
	afterPR, _ := gateRun(t, []string{chainRun(t, dir, 41)}, prReport, 41, main)
	if len(afterPR.History) != 2 || afterPR.History[0].SHA != sha(40) || afterPR.History[1].SHA != sha(41) {
		var shas []string
		for _, p := range afterPR.History {
			shas = append(shas, p.SHA[len(p.SHA)-2:]+"@"+p.Ref)
		}
		t.Errorf("after a pull request's baseline: %v", shas)
	}

	// Without a baseline, or with one of another profile, a run's history is its own point.
	alone, _ := gateRun(t, []string{chainRun(t, dir, 42)}, nil, 42, main)
	if len(alone.History) != 1 || alone.History[0].SHA != sha(42) {
		t.Errorf("no baseline: %+v", alone.History)
	}
}

// TestHistoryOlderBaseline: a baseline written before histories were kept gives its own run,
// as read, as the first point.
func TestHistoryOlderBaseline(t *testing.T) {
	dir := t.TempDir()
	first, report := gateRun(t, []string{chainRun(t, dir, 0)}, nil, 0, "refs/heads/main")
	var doc map[string]any
	if err := json.Unmarshal(report, &doc); err != nil {
		t.Fatal(err)
	}
	delete(doc, "history")
	older, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	second, _ := gateRun(t, []string{chainRun(t, dir, 1)}, older, 1, "refs/heads/main")
	if len(second.History) != 2 || !reflect.DeepEqual(second.History[0], first.History[0]) || second.History[1].SHA != sha(1) {
		t.Errorf("older baseline: %+v, want %+v first", second.History, first.History[0])
	}
}

// TestHistoryMerge: shards of one run, each gated against the same baseline, carry its history
// and their own point; read back as shards their histories are exact, and the merged report's
// history is the baseline's with the merged run as the last point, with the baseline given to
// the merge or without it, and the same as one run over all the shards' files.
func TestHistoryMerge(t *testing.T) {
	dir := t.TempDir()
	var report []byte
	for i := range 3 {
		_, report = gateRun(t, []string{chainRun(t, dir, i)}, report, i, "refs/heads/main")
	}
	files := []string{chainRun(t, dir, 3, "a"), chainRun(t, dir, 3, "b", "c")}
	var shards []gate.Shard
	for k, f := range files {
		res, out := gateRun(t, []string{f}, report, 3, "refs/heads/main")
		path := filepath.Join(dir, fmt.Sprintf("shard%d.json", k))
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := ReadShard(path)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(s.Report.History, res.History) {
			t.Errorf("shard %d's history read back: %+v, want %+v", k, s.Report.History, res.History)
		}
		shards = append(shards, s)
	}
	one, _ := gateRun(t, files, report, 3, "refs/heads/main")
	if len(one.History) != 4 {
		t.Fatalf("one run: %d points", len(one.History))
	}
	b, err := ReadBaseline(bytes.NewReader(report), "base.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, withBase := range []bool{true, false} {
		o := gate.Options{Thresholds: gate.DefaultThresholds(), Source: gate.Source{Source: compare.Source{SHA: sha(3), Ref: "refs/heads/main"}}}
		if withBase {
			o.Baseline = &gate.Baseline{Report: b}
		}
		m, err := gate.Merge(context.Background(), shards, gate.Inputs{}, o)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(m.History, one.History) {
			t.Errorf("merge (baseline given: %v): history\n got %+v\nwant %+v", withBase, m.History, one.History)
		}
	}
	// Shards compared with different baselines share no history: an error.
	_, other := gateRun(t, []string{files[1]}, nil, 3, "refs/heads/main")
	path := filepath.Join(dir, "other.json")
	if err := os.WriteFile(path, other, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := ReadShard(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = gate.Merge(context.Background(), []gate.Shard{shards[0], s}, gate.Inputs{}, gate.Options{Thresholds: gate.DefaultThresholds()})
	if !gate.IsUsage(err) || !strings.Contains(err.Error(), "carry different histories") {
		t.Errorf("shards of different baselines: %v", err)
	}
}

// TestReadHistoryBad: a history is hostile input: each fault is an error at the point's line
// and column, with what is wrong.
func TestReadHistoryBad(t *testing.T) {
	point := `{"sha": "%s", "ref": "r", "runs": 4, "fail": 1, "known": 4, "success_rate": 0.5, "tokens_per_success": null, "pass_k": [0.5], "trial_tasks": 2, "flaky": 1, "flaky_tasks": ["a"]}`
	good := fmt.Sprintf(point, "abc1234")
	doc := func(history string) string {
		return "{\"schema\": 2, \"profile\": \"default\",\n \"history\": " + history + "}"
	}
	if b, err := ReadBaseline(strings.NewReader(doc("["+good+"]")), "h.json"); err != nil || len(b.History) != 1 || *b.History[0].SuccessRate != 0.5 {
		t.Fatalf("good history: %v %+v", err, b)
	}
	if b, err := ReadBaseline(strings.NewReader(doc("[]")), "h.json"); err != nil || b.History != nil {
		t.Errorf("an empty history is none: %v %+v", err, b)
	}
	many := strings.Repeat(good+",", 30) + good
	for _, c := range []struct{ history, want string }{
		{`{}`, "h.json:2:13: not an agentgate JSON report: history must be an array"},
		{"[" + many + "]", fmt.Sprintf("h.json:2:%d: not an agentgate JSON report: history holds more than 30 points", 14+30*(len(good)+1))},
		{`[{"ref": "r", "runs": 1, "fail": 0}]`, `h.json:2:14: not an agentgate JSON report: history[0]: no "sha"`},
		{"[" + fmt.Sprintf(point, "##[error]") + "]", `h.json:2:14: not an agentgate JSON report: history[0]: sha "##[error]" is not a commit (7 to 64 hex digits, or empty)`},
		{`[{"sha": "", "runs": 1}]`, `h.json:2:14: not an agentgate JSON report: history[0]: no "runs" or no "fail"`},
		{`[{"sha": "", "runs": 1, "fail": 2}]`, `h.json:2:14: not an agentgate JSON report: history[0]: runs 1 and fail 2 must be counts, fail at most runs`},
		{`[{"sha": "", "runs": -1, "fail": 0}]`, `h.json:2:14: not an agentgate JSON report: history[0]: runs -1 and fail 0 must be counts, fail at most runs`},
		{`[{"sha": "", "runs": 1, "fail": 0, "success_rate": 1.5}]`, `h.json:2:14: not an agentgate JSON report: history[0]: success_rate 1.5 is not between 0 and 1`},
		{`[{"sha": "", "runs": 1, "fail": 0, "tokens_per_success": -3}]`, `h.json:2:14: not an agentgate JSON report: history[0]: tokens_per_success -3 is not a count of tokens`},
		{`[{"sha": "", "runs": 1, "fail": 0, "pass_k": [0,0,0,0,0,0,0,0,0]}]`, `h.json:2:14: not an agentgate JSON report: history[0]: pass_k holds 9 values, at most 8`},
		{`[{"sha": "", "runs": 1, "fail": 0, "pass_k": [2]}]`, `h.json:2:14: not an agentgate JSON report: history[0]: pass_k[0] 2 is not between 0 and 1`},
		{`[{"sha": "", "runs": 1, "fail": 0, "trial_tasks": 1, "flaky": 2}]`, `h.json:2:14: not an agentgate JSON report: history[0]: trial_tasks 1 and flaky 2 must be counts, flaky at most trial_tasks`},
		{`[{"sha": "", "runs": 1, "fail": 0, "trial_tasks": 3, "flaky": 1, "flaky_tasks": ["a", "b"]}]`, `h.json:2:14: not an agentgate JSON report: history[0]: flaky_tasks names 2 tasks, more than flaky (1) or 20`},
		{`[{"sha": "", "runs": 1, "fail": 0, "trial_tasks": 3, "flaky": 2, "flaky_tasks": ["b", "a"]}]`, `h.json:2:14: not an agentgate JSON report: history[0]: flaky_tasks[1] "a" is out of order or named twice: the names are sorted`},
		{`[{"sha": "", "runs": 1, "fail": 0, "trial_tasks": 3, "flaky": 2, "flaky_tasks": ["a", "a"]}]`, `h.json:2:14: not an agentgate JSON report: history[0]: flaky_tasks[1] "a" is out of order or named twice: the names are sorted`},
		{`[{"sha": "", "runs": 1, "fail": 0, "trial_tasks": 1, "flaky": 1, "flaky_tasks": ["` + strings.Repeat("x", 1025) + `"]}]`, `h.json:2:14: not an agentgate JSON report: history[0]: flaky_tasks[0] is not a task name of at most 1024 bytes of UTF-8`},
		{`[{"sha": "", "runs": 1.5, "fail": 0}]`, `h.json:2:34: not an agentgate JSON report: field "history[0].runs": expected an integer, found a number`},
	} {
		_, err := ReadBaseline(strings.NewReader(doc(c.history)), "h.json")
		var ie *input.Error
		if !errors.As(err, &ie) || err.Error() != c.want {
			t.Errorf("history %.60s:\n got %v\nwant %s", c.history, err, c.want)
		}
	}
	// A recorded comparison is read for a plan, and checked.
	b, err := ReadBaseline(strings.NewReader(`{"schema": 2, "profile": "default", "comparison": {"alpha": 0.05, "success": {"matched": 100, "new_failures": 9, "fixed": 3, "power": {"threshold": 0.025}}, "reliability": {"matched": 100, "new_failures": 0, "fixed": 0}}}`), "c.json")
	if err != nil || !reflect.DeepEqual(b.Recorded, []compare.RecordedTest{{Metric: "success", Matched: 100, NewFailures: 9, Fixed: 3, Threshold: 0.025}, {Metric: "reliability", Matched: 100}}) {
		t.Errorf("recorded comparison: %v %+v", err, b)
	}
	// A report that counted missing runs records them in compared: its new failures may
	// outnumber the matched runs, and the plan is over what the test counted.
	b, err = ReadBaseline(strings.NewReader(`{"schema": 2, "profile": "default", "comparison": {"success": {"matched": 56, "compared": 80, "new_failures": 24, "fixed": 0}}}`), "c.json")
	if err != nil || !reflect.DeepEqual(b.Recorded, []compare.RecordedTest{{Metric: "success", Matched: 80, NewFailures: 24}}) {
		t.Errorf("recorded comparison with missing runs: %v %+v", err, b)
	}
	for _, c := range []struct{ cmp, want string }{
		{`{"success": {"matched": 10, "compared": 9}}`, "c.json:1:63: not an agentgate JSON report: comparison.success: compared 9 is fewer than matched 10"},
		{`{"success": {"matched": 10, "compared": 12, "new_failures": 10, "fixed": 3}}`, "c.json:1:63: not an agentgate JSON report: comparison.success: compared 12, new_failures 10 and fixed 3 must be counts, the last two within compared"},
		{`{"success": {"matched": 10, "new_failures": 9, "fixed": 3}}`, "c.json:1:63: not an agentgate JSON report: comparison.success: matched 10, new_failures 9 and fixed 3 must be counts, the last two within matched"},
		{`{"success": {"matched": 10, "power": {"threshold": 0}}}`, "c.json:1:63: not an agentgate JSON report: comparison.success: power.threshold 0 is not between 1e-12 and 1, the levels agentgate computes power at"},
		{`{"success": {"matched": 10}, "success": {"matched": 10}}`, "c.json:1:91: not an agentgate JSON report: comparison.success occurs twice"},
	} {
		_, err := ReadBaseline(strings.NewReader(`{"schema": 2, "profile": "default", "comparison": `+c.cmp+`}`), "c.json")
		if err == nil || err.Error() != c.want {
			t.Errorf("comparison %s:\n got %v\nwant %s", c.cmp, err, c.want)
		}
	}
}

// Every history a run writes reads back as a baseline's: a source or task name the reader
// would refuse never reaches it (compare.PointOf leaves them out).
func TestHistoryWrittenReadsBack(t *testing.T) {
	long := strings.Repeat("x", compare.MaxTaskLen+1)
	pk := compare.PassKOf([]compare.Trial{
		{Task: "\xff", Trial: "0", Verdict: "PASS"}, {Task: "\xff", Trial: "1", Verdict: "FAIL"},
		{Task: long, Trial: "0", Verdict: "PASS"}, {Task: long, Trial: "1", Verdict: "FAIL"},
		{Task: "ok", Trial: "0", Verdict: "PASS"}, {Task: "ok", Trial: "1", Verdict: "FAIL"},
	})
	p := compare.PointOf(compare.Source{SHA: "##[error]x", Ref: "\xff"}, nil, nil, pk)
	if p.SHA != "" || p.Ref != "" || p.Flaky != 3 || !reflect.DeepEqual(p.FlakyTasks, []string{"ok"}) {
		t.Errorf("point %+v", p)
	}
	var out bytes.Buffer
	if err := Write(&out, &gate.Result{Profile: "default", History: []compare.Point{p}}); err != nil {
		t.Fatal(err)
	}
	b, err := ReadBaseline(&out, "w.json")
	if err != nil || !reflect.DeepEqual(b.History, []compare.Point{p}) {
		t.Errorf("read back: %v %+v", err, b)
	}
}
