package report

import (
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/reliability"
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
