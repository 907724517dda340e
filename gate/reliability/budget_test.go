package reliability

import (
	"fmt"
	"slices"
	"testing"

	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/trace"
	"github.com/agentgate/agentgate/gate/verdict"
)

// budgetTrace is a clean run that read one file and summarised it, in messages messages (the
// first four the run, the rest user notes), that used total tokens.
func budgetTrace(total int64, messages int) *trace.Trace {
	tr := &trace.Trace{ID: "run", Usage: trace.Usage{Prompt: total - total/23, Completion: total / 23, Total: total, Recorded: true}}
	tr.Messages = []trace.Message{
		{Role: "user", Content: "summarize repo"},
		{Role: "assistant", Calls: []trace.Call{{ID: "r1", HasID: true, Tool: "read", Args: []byte(`{"f": "a"}`), ArgsValid: true}}},
		{Role: "tool", Results: []trace.Result{{CallID: "r1", HasID: true, Success: true, Content: "x"}}},
		{Role: "assistant", Content: "Summary."},
	}
	for i := len(tr.Messages); i < messages; i++ {
		tr.Messages = append(tr.Messages, trace.Message{Role: "user", Content: fmt.Sprintf("note %d", i)})
	}
	return tr
}

// The cost signal's factor (a) scales with the token budget B: thresholds B/10, B/2 and B
// (rounded down), RS-1's 10000, 50000 and 100000 at the default. The expected figures were
// computed once with Python from RS-1's formulas (factor (b), tokens per message, unchanged);
// the other three signals are 0 on these runs, so the overall score is 0.15·cost.
func TestCostTokenBudget(t *testing.T) {
	for _, c := range []struct {
		name     string
		total    int64
		messages int
		budget   int64 // 0: the Evaluator's zero value, the default
		cost     float64
		score    float64
		verdict  verdict.Verdict
		evidence []string // the cost evidence, strongest first
	}{
		// The reviewer's big-ok (reward 1.0): over RS-1's 100000, cost 1.0 and WARN.
		{"big-ok default", 115000, 4, 0, 1, 0.15, verdict.Warn,
			[]string{"115000 tokens in total, above 100000", "115000 tokens over 4 messages (28750 per message, above 1000)"}},
		{"big-ok 100000", 115000, 4, 100000, 1, 0.15, verdict.Warn,
			[]string{"115000 tokens in total, above 100000", "115000 tokens over 4 messages (28750 per message, above 1000)"}},
		// At 200000 factor (a) is 0.5 + 0.5·(115000−100000)/100000 = 0.575, but 28750 tokens
		// a message keep factor (b) at its cap, 0.7, which is the cost: below RS-1's 0.9 for
		// cost and 0.4 overall, PASS.
		{"big-ok 200000", 115000, 4, 200000, 0.7, 0.105, verdict.Pass,
			[]string{"115000 tokens over 4 messages (28750 per message, above 1000)", "115000 tokens in total, above 100000"}},
		// Spread over 50 messages (2300 a message, factor (b) 0.7·(2300−1000)/2000 ≈ 0.455),
		// factor (a) is the cost.
		{"long default", 115000, 50, 0, 1, 0.15, verdict.Warn,
			[]string{"115000 tokens in total, above 100000", "115000 tokens over 50 messages (2300 per message, above 1000)"}},
		{"long 200000", 115000, 50, 200000, 0.575, 0.08625, verdict.Pass,
			[]string{"115000 tokens in total, above 100000", "115000 tokens over 50 messages (2300 per message, above 1000)"}},
		// A small budget: 12000 tokens are (12000−3000)/(15000−3000)·0.5 = 0.375 of 30000, against
		// (12000−10000)/40000·0.5 = 0.025 at the default; 1000 makes them excessive.
		{"mid default", 12000, 50, 0, 0.025, 0.00375, verdict.Pass, []string{"12000 tokens in total, above 10000"}},
		{"mid 30000", 12000, 50, 30000, 0.375, 0.056249999999999994, verdict.Pass, []string{"12000 tokens in total, above 3000"}},
		{"mid 1000", 12000, 50, 1000, 1, 0.15, verdict.Warn, []string{"12000 tokens in total, above 1000"}},
		{"mid 200000", 12000, 50, 200000, 0, 0, verdict.Pass, nil},
		// An odd budget rounds its tiers down: 15 is 1, 7 and 15, and 10 tokens are
		// 0.5 + 0.5·(10−7)/(15−7) = 0.6875.
		{"tiny 15", 10, 4, 15, 0.6875, 0.103125, verdict.Pass, []string{"10 tokens in total, above 7"}},
		{"tiny default", 10, 4, 0, 0, 0, verdict.Pass, nil},
		// The smallest budget: tiers 0, 0 and 1, and no division is by 0: 1 token is
		// 0.5 + 0.5·(1−0)/(1−0) = 1.
		{"one token of 1", 1, 4, 1, 1, 0.15, verdict.Warn, []string{"1 tokens in total, above 0"}},
		{"two tokens of 1", 2, 4, 1, 1, 0.15, verdict.Warn, []string{"2 tokens in total, above 1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ev := Evaluator{Profile: profile.Default, TokenBudget: c.budget}
			r := ev.Evaluate(budgetTrace(c.total, c.messages))
			want := Signals{Cost: c.cost}
			if r.Signals != want || r.Score != c.score || r.Verdict != c.verdict {
				t.Errorf("signals %+v, score %v, verdict %s; want cost %v, score %v, verdict %s", r.Signals, r.Score, r.Verdict, c.cost, c.score, c.verdict)
			}
			var texts []string
			for _, e := range r.Evidence {
				if e.Signal != SignalCost {
					t.Errorf("evidence of %s: %s", e.Signal, e.Text)
				}
				texts = append(texts, e.Text)
			}
			if !slices.Equal(texts, c.evidence) {
				t.Errorf("evidence\n got %q\nwant %q", texts, c.evidence)
			}
		})
	}
}

// An Evaluator reused across budgets scores each trace by its own budget, and the package's
// Evaluate (the RS-1 drop-in's) keeps RS-1's.
func TestCostTokenBudgetReuse(t *testing.T) {
	tr := budgetTrace(115000, 50)
	ev := Evaluator{TokenBudget: 200000}
	if r := ev.Evaluate(tr); r.Signals.Cost != 0.575 {
		t.Errorf("200000: cost %v, want 0.575", r.Signals.Cost)
	}
	ev.TokenBudget = 0
	if r := ev.Evaluate(tr); r.Signals.Cost != 1 {
		t.Errorf("after 200000, the default: cost %v, want 1", r.Signals.Cost)
	}
	for _, p := range []profile.Profile{profile.Default, profile.Reference} {
		if r := Evaluate(tr, p); r.Signals.Cost != 1 || r.Verdict != verdict.Warn {
			t.Errorf("Evaluate under %s: cost %v, verdict %s, want 1 and WARN", p, r.Signals.Cost, r.Verdict)
		}
	}
}
