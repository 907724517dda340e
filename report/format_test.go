package report

import (
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/verdict"
)

// The sentence under the verdict and the reliability heading read right for one, two and many
// gates and traces. Without a baseline, max-new-failures and pass-k-min are skipped rows:
// each set adds a gate.
func TestSentenceCounts(t *testing.T) {
	for _, c := range []struct {
		traces, gates int
		want, heading string
	}{
		{1, 1, "The gate holds; the one trace passes.", "the one trace passes"},
		{2, 2, "Both gates hold (max-new-failures skipped); both traces pass.", "both traces pass"},
		{3, 3, "All 3 gates hold (max-new-failures and pass-k-min skipped); all 3 traces pass.", "all 3 traces pass"},
		{1000, 3, "All 3 gates hold (max-new-failures and pass-k-min skipped); all 1,000 traces pass.", "all 1,000 traces pass"},
	} {
		th := gate.DefaultThresholds()
		th.FailOnSkipped = gate.SkipNone // skipped rows that hold
		if c.gates > 1 {
			th.Compare.MaxNewFailures = 0
		}
		if c.gates > 2 {
			th.Compare.PassKMin = 0.5
		}
		r := &gate.Result{Reliability: &reliability.Summary{Total: c.traces, Pass: c.traces}}
		r.Decide(th, gate.FailOnFail)
		if len(r.Gates) != c.gates {
			t.Fatalf("%d gates, want %d", len(r.Gates), c.gates)
		}
		if got := sentence(r, EscapeCell); got != c.want {
			t.Errorf("%d traces, %d gates: %q, want %q", c.traces, c.gates, got, c.want)
		}
		if md := Markdown(r, Options{}); !strings.Contains(md, "### ✅ Reliability (RS-1): "+c.heading+"\n") {
			t.Errorf("%d traces: the heading does not say %q:\n%s", c.traces, c.heading, md)
		}
	}
}

func TestEvery(t *testing.T) {
	for n, want := range map[int]string{1: "the one trial failed", 2: "both trials failed", 3: "all 3 trials failed", 1234: "all 1,234 trials failed"} {
		if got := every(n, "trial", "trials", "failed", "failed"); got != want {
			t.Errorf("every(%d) = %q, want %q", n, got, want)
		}
	}
	if got := capitalized(every(2, "gate", "gates", "holds", "hold")); got != "Both gates hold" {
		t.Errorf("capitalized: %q", got)
	}
}

// TestFindingIsDecisive: the strongest finding a report names is the one that decided the
// verdict, not the highest score. A WARN raised by a crash names the crash, though a weak
// hallucination scored higher than any other signal (the reviewer's tb-ok showed
// "hallucination 0.1667" for a WARN that came from its crash); a FAIL names the signal past
// its threshold.
func TestFindingIsDecisive(t *testing.T) {
	crash := &reliability.Result{ID: "tb", Verdict: verdict.Warn, Score: 0.0417,
		Signals: reliability.Signals{reliability.Hallucination: 0.1667},
		Evidence: []reliability.Evidence{
			{Signal: reliability.SignalHallucination, Text: "call `x` (id c1) at message 3 never got a result"},
			{Signal: reliability.SignalTrace, Text: "the run ends in a crash: Traceback (most recent call last)"},
		}}
	loop := &reliability.Result{ID: "lp", Verdict: verdict.Fail, Score: 0.45,
		Signals: reliability.Signals{reliability.Hallucination: 0.7, reliability.Loop: 1, reliability.Cost: 0.8},
		Evidence: []reliability.Evidence{
			{Signal: reliability.SignalHallucination, Text: "h"},
			{Signal: reliability.SignalLoop, Text: "`f` called 3 times with identical arguments"},
			{Signal: reliability.SignalCost, Text: "c"},
		}}
	for _, c := range []struct {
		r            *reliability.Result
		signal, text string
		others       int
	}{
		{crash, "trace", "the run ends in a crash: Traceback (most recent call last)", 1},
		{loop, "loop 1.0000", "`f` called 3 times with identical arguments", 2},
	} {
		signal, text, others := finding(c.r, func(s string) string { return s })
		if signal != c.signal || text != c.text || others != c.others {
			t.Errorf("%s: finding = %q, %q, +%d; want %q, %q, +%d", c.r.ID, signal, text, others, c.signal, c.text, c.others)
		}
	}
}
