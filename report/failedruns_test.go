package report

import (
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/outcome"
	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/verdict"
)

// TestFailedRunsTable holds the words of the failed-runs table (verdict cells keep the emoji
// and the word together with a no-break space): runs with a finding first, FAIL
// before WARN, in natural order; the runs that crashed alike folded into one row that names
// them all (one finding per crashed run, never one row each saying the same); a crash with
// other text its own row; the failed runs no signal explains in one line; successful runs in
// none of it.
func TestFailedRunsTable(t *testing.T) {
	crash := func(id, text string) reliability.Result {
		return reliability.Result{ID: id, Verdict: verdict.Warn, Score: 0,
			Evidence: []reliability.Evidence{{Signal: reliability.SignalTrace, Text: text, Messages: []int{}}},
			Run:      outcome.Run{Known: true, Decided: true}}
	}
	const harness = `the run crashed before the agent's first turn: the harness recorded "Traceback (most recent call last): RateLimitError"`
	const other = `the run crashed before the agent's first turn: the harness recorded "Traceback (most recent call last): ContextWindowExceededError"`
	runs := []reliability.Result{
		crash("14#14", harness),
		crash("3#3", harness),
		crash("20#20", other),
		crash("2#2", harness),
		{ID: "11#11", Verdict: verdict.Fail, Score: 0.5, Signals: reliability.Signals{reliability.Loop: 1},
			Evidence: []reliability.Evidence{{Signal: reliability.SignalLoop, Text: "`book_reservation` called 6 times with identical arguments {} at messages 1, 3, 5, 7, 9, 11", Messages: []int{1}}},
			Run:      outcome.Run{Known: true, Decided: true}},
		{ID: "10#10", Verdict: verdict.Pass, Run: outcome.Run{Known: true, Decided: true}},
		{ID: "9#9", Verdict: verdict.Pass, Run: outcome.Run{Known: true, Decided: true}},
		{ID: "1#1", Verdict: verdict.Pass, Run: outcome.Run{Known: true, Decided: true, Success: true}},
		{ID: "4#4", Verdict: verdict.Pass, Run: outcome.Run{Known: true, Decided: true, Success: true},
			Signals: reliability.Signals{reliability.Cost: 0.2}, Evidence: []reliability.Evidence{{Signal: reliability.SignalCost, Text: "120,000 tokens in total, above 100,000", Messages: []int{}}}},
	}
	rel := &reliability.Summary{}
	for _, r := range runs {
		rel.Add(r)
	}
	res := &gate.Result{Profile: profile.Default, Reliability: rel, Outcomes: outcome.Summarize(rel.Traces, 0.5, nil)}
	md := Markdown(res, Options{})
	start := strings.Index(md, "**7 failed runs**")
	if start < 0 {
		t.Fatalf("no failed-runs table in\n%s", md)
	}
	end := strings.Index(md[start:], "failures no evaluator explains):")
	if end < 0 {
		t.Fatalf("no line for the unexplained runs in\n%s", md[start:])
	}
	got := md[start:]
	got = got[:end+strings.Index(got[end:], "\n")]
	want := strings.Join([]string{
		"**7 failed runs**, 5 with a reliability finding:",
		"",
		"| run                   | verdict | strongest finding | evidence                                                                                                                            |",
		"|:----------------------|:--------|:------------------|:------------------------------------------------------------------------------------------------------------------------------------|",
		"| `11#11`               | ❌\u00a0FAIL | loop 1.0000       | `book_reservation` called 6 times with identical arguments {} at messages 1, 3, 5, 7, 9, 11                                         |",
		"| `2#2`, `3#3`, `14#14` | ⚠️\u00a0WARN  | trace             | the run crashed before the agent's first turn: the harness recorded \"Traceback (most recent call last): RateLimitError\"             |",
		"| `20#20`               | ⚠️\u00a0WARN  | trace             | the run crashed before the agent's first turn: the harness recorded \"Traceback (most recent call last): ContextWindowExceededError\" |",
		"",
		"2 failed runs with no reliability signal (failures no evaluator explains): `9#9`, `10#10`.",
	}, "\n")
	if got != want {
		t.Errorf("failed runs:\n%s\n\nwant:\n%s", got, want)
	}
	for _, id := range []string{"`1#1`", "`4#4`"} {
		if strings.Contains(got, id) {
			t.Errorf("successful run %s listed among the failed runs", id)
		}
	}
}
