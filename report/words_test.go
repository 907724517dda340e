package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/compare"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/verdict"
)

// Lists read in the order a person counts: runs of digits by value.
func TestNaturalCompare(t *testing.T) {
	ids := []string{"14#14", "3#3", "1#1", "task10", "task2", "a", "007", "7", "airline/20#0", "airline/3#1"}
	slices.SortFunc(ids, naturalCompare)
	want := []string{"1#1", "3#3", "007", "7", "14#14", "a", "airline/3#1", "airline/20#0", "task2", "task10"}
	if !slices.Equal(ids, want) {
		t.Errorf("got  %q\nwant %q", ids, want)
	}
	for _, p := range [][2]string{{"7", "007"}, {"a1", "a01"}} {
		if naturalCompare(p[0], p[1]) == 0 || naturalCompare(p[0], p[1]) != -naturalCompare(p[1], p[0]) {
			t.Errorf("%q and %q are not ordered one way", p[0], p[1])
		}
	}
}

// A share that is not 0 or 1 never reads 0% or 100%.
func TestPercentNeverRoundsOntoTheEnds(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{0, "0%"}, {1, "100%"}, {0.35, "35%"}, {0.725, "73%"},
		{199.0 / 200, "99.5%"}, {1.0 / 200, "1%"}, {0.004, "0.4%"}, {1.0 / 1000, "0.1%"},
		{0.99999992, "> 99.9%"}, {1e-7, "< 0.1%"},
	} {
		if got := percent(c.v); got != c.want {
			t.Errorf("percent(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

// Token counts carry thousands separators.
func TestTokens(t *testing.T) {
	for v, want := range map[float64]string{5319116: "5,319,116", 56470.7: "56,471", 2651: "2,651", 157.34: "157.3", 0: "0"} {
		if got := tokens(v); got != want {
			t.Errorf("tokens(%v) = %q, want %q", v, got, want)
		}
	}
}

// An evaluator's backticks become code spans, which GitHub shows without the backticks or a
// backslash; what lies outside is escaped as ever, and an unpaired backtick stays text.
func TestCellWithCode(t *testing.T) {
	for in, want := range map[string]string{
		"`book_reservation` called 3 times":  "`book_reservation` called 3 times",
		"call `x|y` (id <b>z</b>) @octocat":  "call `x\\|y` (id &lt;b&gt;z&lt;/b&gt;) @\u200boctocat",
		"a ` lone backtick":                  "a \\` lone backtick",
		"` ` blank, then `x`":                "\\` \\` blank, then `x`",
		"`a``b` side by side":                "\\`a\\`\\`b\\` side by side",
		"`@team` in a span, `##[error]` too": "`@team` in a span, `##\u200b[error]` too",
	} {
		if got := CellWithCode(in); got != want {
			t.Errorf("CellWithCode(%q)\n got %q\nwant %q", in, got, want)
		}
	}
}

// The check's state in words, for every verdict and exit code the gate gives.
func TestCheckState(t *testing.T) {
	for _, c := range []struct {
		v    verdict.Verdict
		exit int
		want string
	}{
		{verdict.Pass, gate.ExitPass, "check passing"},
		{verdict.Warn, gate.ExitPass, "check passing, with warnings"},
		{verdict.Warn, gate.ExitWarn, "check failing"},
		{verdict.Fail, gate.ExitFail, "check failing"},
		{verdict.Fail, gate.ExitPass, "check passing, report only"},
	} {
		if got := checkState(&gate.Result{Verdict: c.v, ExitCode: c.exit}); got != c.want {
			t.Errorf("%s exit %d: %q, want %q", c.v, c.exit, got, c.want)
		}
	}
}

// The trend in words: the last point against the one before it and the median of the points
// before that (73% → 70% → 35% is a fall, whatever the first point was).
func TestTrendSummary(t *testing.T) {
	s := trendSeries{what: "success rate", labels: []string{"1c0ffee", "2badd00", "3deface", "4feedba", "this change"}, values: []float64{0.72, 0.75, 0.73, 0.70, 0.35}}
	if got, want := trendSummary(s), "success rate 35% in this change: previous run (4feedba) 70%, median of the 4 runs before 72.5%"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	s = trendSeries{what: "success rate", labels: []string{"run 1", "this change"}, values: []float64{0.35, 0.35}}
	if got, want := trendSummary(s), "success rate 35% in this change: previous run (run 1) 35%"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got := median([]float64{3, 1, 2}); got != 2 {
		t.Errorf("median %v", got)
	}
}

// A run has one name in every table and list: its identity where the harness records one
// (a tau2 simulation by airline/20#0, not its uuid), its trace id when the comparison matched
// on trace ids.
func TestRunLabel(t *testing.T) {
	trial := 0
	tr := &reliability.Result{ID: "5612fc39-uuid", Attempt: &reliability.Attempt{Suite: "airline", Task: "20", Trial: &trial}}
	if got := runLabel(&gate.Result{}, tr); got != "airline/20#0" {
		t.Errorf("alone: %q", got)
	}
	c := &compare.Comparison{Matching: &compare.Matching{On: compare.OnTraceID}}
	if got := runLabel(&gate.Result{Comparison: c}, tr); got != "5612fc39-uuid" {
		t.Errorf("matched on trace id: %q", got)
	}
	if got := runLabel(&gate.Result{}, &reliability.Result{ID: "plain"}); got != "plain" {
		t.Errorf("no identity: %q", got)
	}
	if !strings.Contains(verdictCell(verdict.Warn), "\u00a0WARN") {
		t.Errorf("verdict cell %q breaks", verdictCell(verdict.Warn))
	}
}
