package report

import (
	"fmt"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/agreement"
	"github.com/agentgate/agentgate/gate/coherence"
	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/verdict"
)

// evilID is an id that tries everything at once: end the cell, open a code span, inject HTML,
// ping a user and start a new table row.
const evilID = "a|b`<img src=x>@octocat\nnext"

// passTrace returns a clean trace.
func passTrace(i int) reliability.Result {
	return reliability.Result{
		ID: fmt.Sprintf("checkout-%03d", i), File: "evals/checkout.jsonl", Line: i + 1,
		Verdict: verdict.Pass, Score: 0.05, Signals: reliability.Signals{reliability.Cost: 0.3333333333333333},
		Evidence: []reliability.Evidence{{Signal: "cost", Text: "12,400 tokens over 9 messages", Messages: nil}},
	}
}

// failingResult is a run that breaks three gates: FAIL and WARN traces with evidence (one with
// a hostile id and evidence), low-coherence tasks with a note, validators whose κ is low
// although their percent agreement is high (the kappa paradox), disagreements and unmatched
// qids.
func failingResult() *gate.Result {
	r := &gate.Result{Profile: profile.Default}

	rel := &reliability.Summary{}
	rel.Add(reliability.Result{
		ID: "refund-017", File: "evals/refund.jsonl", Line: 17, Verdict: verdict.Fail, Score: 0.6925,
		Signals: reliability.Signals{reliability.Hallucination: 0.25, reliability.Loop: 1, reliability.ToolMisuse: 0.5, reliability.Cost: 0.7},
		Evidence: []reliability.Evidence{
			{Signal: "loop", Text: "`search_orders` called 12 times with identical arguments at messages 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26", Messages: []int{4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26}},
			{Signal: "tool_misuse", Text: "6 of 12 results of `search_orders` failed (50%)", Messages: []int{5, 7, 9}},
			{Signal: "cost", Text: "61,200 tokens over 27 messages", Messages: nil},
		},
	})
	rel.Add(reliability.Result{
		ID: "refund-003", File: "evals/refund.jsonl", Line: 3, Verdict: verdict.Fail, Score: 0.3325,
		Signals: reliability.Signals{reliability.Hallucination: 0.95},
		Evidence: []reliability.Evidence{
			{Signal: "hallucination", Text: "message 5 says \"I called the refund API\" but no tool call was made; call `issue_refund` (id call_9) has no result", Messages: []int{5}},
		},
	})
	rel.Add(reliability.Result{
		ID: evilID, File: "evals/<script>alert(1)</script>.jsonl", Line: 9, Verdict: verdict.Fail, Score: 0.8125,
		Signals: reliability.Signals{reliability.Hallucination: 1, reliability.Loop: 0.9, reliability.ToolMisuse: 0.8, reliability.Cost: 0.2},
		Evidence: []reliability.Evidence{
			{Signal: "hallucination", Text: "result for call `x|y` (id <b>z</b>) matches no call; cc @octocat, see #12", Messages: []int{2}},
		},
	})
	rel.Add(reliability.Result{
		ID: "search-044", File: "evals/search.jsonl", Line: 44, Verdict: verdict.Warn, Score: 0.4175,
		Signals: reliability.Signals{reliability.ToolMisuse: 0.75, reliability.Cost: 0.95},
		Evidence: []reliability.Evidence{
			{Signal: "cost", Text: "148,000 tokens over 40 messages (3,700 per message)", Messages: nil},
			{Signal: "tool_misuse", Text: "5 of 8 calls to `web_search` have an empty query at messages 2, 4, 6, 8, 10", Messages: []int{2, 4, 6, 8, 10}},
		},
	})
	rel.Add(reliability.Result{
		ID: "search-012", File: "evals/search.jsonl", Line: 12, Verdict: verdict.Warn, Score: 0.4175,
		Signals: reliability.Signals{reliability.ToolMisuse: 0.75, reliability.Cost: 0.95},
		Evidence: []reliability.Evidence{
			{Signal: "tool_misuse", Text: "`web_search` got 4 of 5 calls (80%)", Messages: []int{1, 3, 5, 7}},
		},
	})
	for i := range 7 {
		rel.Add(passTrace(i))
	}
	r.Reliability = rel

	coh := &coherence.Summary{}
	rcs := []float64{0.91, 0.12, 0.55, 0, 0.33, 0.871, 0.2, 0.64, 0.05, 0.48, 0.77, 0.29}
	sum := 0.0
	for i, v := range rcs {
		t := coherence.TaskResult{ID: fmt.Sprintf("task-%02d", i+1), File: "evals/tasks.jsonl", Line: i + 1, RCS: v, Energy: 1 - v}
		if v == 0 {
			t.Energy = 2.75
			t.Note = "the action is empty: scored as incoherent"
		}
		coh.Tasks = append(coh.Tasks, t)
		sum += v
	}
	coh.Total, coh.Mean = len(rcs), sum/float64(len(rcs))
	r.Coherence = coh

	agr := &agreement.Summary{
		N: 100, PercentAgreement: 0.92, Kappa: 0.45652173913043476, KappaDefined: true,
		KappaSE: 0.16, KappaCI: [2]float64{0.14292173913043476, 0.7701217391304348}, KappaMax: 1,
		PABAK: 0.88, AC1: 0.9136442141623489, AC1SE: 0.0312, AbstainRate: 0.01, Band: "moderate",
		Unmatched: []agreement.Unmatched{
			{QID: "q-201", OnlyIn: "scholar", File: "evals/scholar.jsonl", Line: 101},
			{QID: "q-202", OnlyIn: "auditor", File: "evals/auditor.jsonl", Line: 99},
		},
		Confusion: [4][4]int{{87, 0, 4, 0}, {0, 0, 0, 0}, {4, 0, 4, 0}, {1, 0, 0, 0}},
		Warnings:  []string{"kappa paradox: percent agreement 0.9200 is high but κ 0.4565 is low because 92% of the labels are VALID (chance agreement 0.8528); read AC1 0.9136 and PABAK 0.8800 alongside κ"},
	}
	agr.Items = agreement.ItemsOf([]agreement.Item{
		{QID: "q-001", Scholar: "VALID", Auditor: "VALID", Final: "VALID", Why: "auditor_ok"},
		{QID: "q-007", Scholar: "VALID", Auditor: "REJECT", Final: "REJECT", Why: "auditor_veto"},
		{QID: "q-013", Scholar: "REJECT", Auditor: "VALID", Final: "REJECT", Why: "incoherent_pair"},
		{QID: "q-021", Scholar: "VALID", Auditor: "REJECT", Final: "REJECT", Why: "hard_flag"},
		{QID: "q-022", Scholar: "REJECT", Auditor: "REJECT", Final: "REJECT", Why: "auditor_veto"},
		{QID: "q-027", Scholar: "VALID", Auditor: "VALID", Final: "REJECT", Why: "hard_flag"},
		{QID: "q-029", Scholar: "VALID", Auditor: "VALID", Final: "REJECT", Why: "citation_out_of_scope"},
		{QID: "q-034", Scholar: "REJECT", Auditor: "VALID", Final: "REJECT", Why: "citation_out_of_scope"},
		{QID: "q-041", Scholar: "VALID", Auditor: "REJECT", Final: "REJECT", Why: "auditor_veto"},
		{QID: "q-058", Scholar: "REJECT", Auditor: "VALID", Final: "REJECT", Why: "incoherent_pair"},
		{QID: "q-066", Scholar: "VALID", Auditor: "REJECT", Final: "REJECT", Why: "auditor_veto"},
		{QID: "q-090", Scholar: "REJECT", Auditor: "VALID", Final: "REJECT", Why: "incoherent_pair"},
		{QID: "q-093", Scholar: "ABSTAIN", Auditor: "VALID", Final: "REJECT", Why: "incoherent_pair"},
	})
	r.Agreement = agr

	r.Decide(gate.DefaultThresholds(), gate.FailOnFail)
	return r
}

// passingResult is a clean run: every gate holds, every trace passes.
func passingResult() *gate.Result {
	r := &gate.Result{Profile: profile.Default}
	rel := &reliability.Summary{}
	for i := range 40 {
		rel.Add(passTrace(i))
	}
	r.Reliability = rel
	r.Coherence = &coherence.Summary{Total: 3, Mean: 0.8433333333333334, Tasks: []coherence.TaskResult{
		{ID: "task-01", File: "evals/tasks.jsonl", Line: 1, RCS: 0.91, Energy: 0.09},
		{ID: "task-02", File: "evals/tasks.jsonl", Line: 2, RCS: 0.78, Energy: 0.22},
		{ID: "task-03", File: "evals/tasks.jsonl", Line: 3, RCS: 0.84, Energy: 0.16},
	}}
	r.Agreement = &agreement.Summary{
		N: 50, PercentAgreement: 0.96, Kappa: 0.9183673469387755, KappaDefined: true,
		KappaSE: 0.0471, KappaCI: [2]float64{0.8260513469387755, 1}, KappaMax: 0.9591836734693877,
		PABAK: 0.94, AC1: 0.9402, AC1SE: 0.0351, AbstainRate: 0, Band: "almost perfect",
		Confusion: [4][4]int{{30, 1, 0, 0}, {0, 8, 0, 0}, {1, 0, 10, 0}, {0, 0, 0, 0}},
		Items: agreement.ItemsOf([]agreement.Item{
			{QID: "q-01", Scholar: "VALID", Auditor: "VALID", Final: "VALID", Why: "auditor_ok"},
			{QID: "q-02", Scholar: "VALID", Auditor: "NOT_IN_CONTEXT", Final: "REJECT", Why: "auditor_veto"},
			{QID: "q-03", Scholar: "REJECT", Auditor: "VALID", Final: "REJECT", Why: "incoherent_pair"},
		}),
	}
	r.Decide(gate.DefaultThresholds(), gate.FailOnFail)
	return r
}

// warnResult is a run whose gates hold (κ undefined, so its gate is skipped) but whose traces
// include WARNs, with fail-on set to warn so the check is red.
func warnResult() *gate.Result {
	r := &gate.Result{Profile: profile.Reference}
	rel := &reliability.Summary{}
	rel.Add(reliability.Result{
		ID: "chat-2", File: "runs/chat.json", Line: 1, Verdict: verdict.Warn, Score: 0.4,
		Signals: reliability.Signals{reliability.Loop: 0.6, reliability.ToolMisuse: 0.6},
		Evidence: []reliability.Evidence{
			{Signal: "loop", Text: "3 of 4 consecutive assistant turns have similar character sets (reference profile)", Messages: []int{1, 3, 5, 7}},
			{Signal: "tool_misuse", Text: "2 of 3 `lookup` results failed (67%)", Messages: []int{2, 4}},
		},
	})
	for i := range 3 {
		rel.Add(passTrace(i))
	}
	r.Reliability = rel
	r.Agreement = &agreement.Summary{
		N: 12, PercentAgreement: 1, KappaDefined: false, PABAK: 1, AC1: 1, Band: "",
		Confusion: [4][4]int{{12, 0, 0, 0}},
		Items:     agreement.ItemsOf([]agreement.Item{{QID: "q-1", Scholar: "VALID", Auditor: "VALID", Final: "VALID", Why: "auditor_ok"}}),
	}
	r.Decide(gate.DefaultThresholds(), gate.FailOnWarn)
	return r
}

// bigResult has n non-PASS traces with long evidence, for the size limits.
func bigResult(n int) *gate.Result {
	r := &gate.Result{Profile: profile.Default}
	rel := &reliability.Summary{}
	for i := range n {
		v, score := verdict.Warn, 0.4+float64(i%300)/1000
		if i%3 == 0 {
			v, score = verdict.Fail, 0.7+float64(i%250)/1000
		}
		rel.Add(reliability.Result{
			ID: fmt.Sprintf("suite/run-%05d|trial-1", i), File: "evals/big.jsonl", Line: i + 1, Verdict: v, Score: score,
			Signals:  reliability.Signals{reliability.Loop: score},
			Evidence: []reliability.Evidence{{Signal: "loop", Text: fmt.Sprintf("`search` called %d times with identical arguments at messages 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24 <and more>", 5+i%40)}},
		})
	}
	r.Reliability = rel
	r.Agreement = &agreement.Summary{N: n, PercentAgreement: 0.5, Kappa: 0.1, KappaDefined: true, Band: "slight"}
	var items []agreement.Item
	for i := range n / 4 {
		items = append(items, agreement.Item{QID: fmt.Sprintf("q-%05d", i), Scholar: "VALID", Auditor: "REJECT", Final: "REJECT", Why: "auditor_veto"})
	}
	r.Agreement.Items = agreement.ItemsOf(items)
	r.Decide(gate.DefaultThresholds(), gate.FailOnFail)
	return r
}
