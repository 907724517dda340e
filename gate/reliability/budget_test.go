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

// The token budget B is the tokens one run may spend: above it the default profile's cost
// reads 1 and the run is WARN on its own. Below it the default has no absolute threshold (RS-1's
// B/10 and B/2 ramp and its tokens per message flagged whole suites whose runs all spend alike):
// a run is compared with its suite's (RelateCost, TestRelateCost). The other three signals are 0
// on these runs, so the overall score is 0.15·cost.
func TestCostTokenBudget(t *testing.T) {
	over := func(total, budget string) []string {
		return []string{total + " tokens in total, above " + budget}
	}
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
		{"big-ok default", 115000, 4, 0, 1, 0.15, verdict.Warn, over("115,000", "100,000")},
		{"big-ok 100000", 115000, 4, 100000, 1, 0.15, verdict.Warn, over("115,000", "100,000")},
		// within a budget of 200000: no cost, however many tokens a message (RS-1's (b))
		{"big-ok 200000", 115000, 4, 200000, 0, 0, verdict.Pass, nil},
		{"long default", 115000, 50, 0, 1, 0.15, verdict.Warn, over("115,000", "100,000")},
		{"long 200000", 115000, 50, 200000, 0, 0, verdict.Pass, nil},
		// RS-1's ramp from 10000 is gone: 12000 tokens cost nothing, unless the budget is below
		{"mid default", 12000, 50, 0, 0, 0, verdict.Pass, nil},
		{"mid 30000", 12000, 50, 30000, 0, 0, verdict.Pass, nil},
		{"mid 1000", 12000, 50, 1000, 1, 0.15, verdict.Warn, over("12,000", "1,000")},
		{"mid 200000", 12000, 50, 200000, 0, 0, verdict.Pass, nil},
		{"tiny 15", 10, 4, 15, 0, 0, verdict.Pass, nil},
		{"tiny default", 10, 4, 0, 0, 0, verdict.Pass, nil},
		// The smallest budget: 1 token is within it, 2 are above.
		{"one token of 1", 1, 4, 1, 0, 0, verdict.Pass, nil},
		{"two tokens of 1", 2, 4, 1, 1, 0.15, verdict.Warn, over("2", "1")},
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
	if r := ev.Evaluate(tr); r.Signals[Cost] != 0 {
		t.Errorf("200000: cost %v, want 0", r.Signals[Cost])
	}
	ev.TokenBudget = 0
	if r := ev.Evaluate(tr); r.Signals[Cost] != 1 {
		t.Errorf("after 200000, the default: cost %v, want 1", r.Signals[Cost])
	}
	for _, p := range []profile.Profile{profile.Default, profile.Reference} {
		if r := Evaluate(tr, p); r.Signals[Cost] != 1 || r.Verdict != verdict.Warn {
			t.Errorf("Evaluate under %s: cost %v, verdict %s, want 1 and WARN", p, r.Signals[Cost], r.Verdict)
		}
	}
}
