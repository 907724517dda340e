package jsonreport

import (
	"github.com/agentgate/agentgate/gate/outcome"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/verdict"
)

// runJSON is a run's record in reliability.traces since schema 3 (docs/reference.md, "The
// JSON report"): reliability.Result's members in their order and with their names, written on
// one line without spaces, and with what is zero left out: a signal of 0, an empty evidence
// list, an evidence entry's empty message list. A million runs then take about 200 bytes each
// instead of 480 (docs/performance.md, "A million runs"), and every reader of the report,
// agentgate's own included, reads an absent member as zero.
//
// TestRunJSONHasResultsMembers holds it to reliability.Result's members.
type runJSON struct {
	ID        string          `json:"id"`
	File      string          `json:"file"`
	Line      int             `json:"line"`
	Verdict   verdict.Verdict `json:"verdict"`
	Score     float64         `json:"score"`
	Signals   *signalsJSON    `json:"signals,omitempty"`
	Evidence  []evidenceJSON  `json:"evidence,omitempty"`
	Messages  int32           `json:"messages"`
	ToolCalls int32           `json:"tool_calls"`
	*reliability.Attempt
	SuiteCost *reliability.SuiteCost `json:"suite_cost,omitempty"`
	Outcome   *outcome.JSON          `json:"outcome,omitempty"`
}

// signalsJSON is reliability.Signals without its zero members; nil when all four are zero.
type signalsJSON struct {
	Hallucination float64 `json:"hallucination,omitempty"`
	Loop          float64 `json:"loop,omitempty"`
	ToolMisuse    float64 `json:"tool_misuse,omitempty"`
	Cost          float64 `json:"cost,omitempty"`
}

// evidenceJSON is reliability.Evidence without an empty message list.
type evidenceJSON struct {
	Signal   string `json:"signal"`
	Text     string `json:"text"`
	Messages []int  `json:"messages,omitempty"`
	Floor    bool   `json:"floor,omitempty"`
	Relative bool   `json:"relative,omitempty"`
}

// runOf is trace t's record; ev is reused for its evidence.
func runOf(t *reliability.Result, ev []evidenceJSON) runJSON {
	r := runJSON{ID: t.ID, File: t.File, Line: t.Line, Verdict: t.Verdict, Score: t.Score,
		Messages: t.Messages, ToolCalls: t.ToolCalls, Attempt: t.Attempt, SuiteCost: t.SuiteCost, Outcome: t.Run.JSON()}
	if s := t.Signals; s != (reliability.Signals{}) {
		r.Signals = &signalsJSON{s.Hallucination, s.Loop, s.ToolMisuse, s.Cost}
	}
	if len(t.Evidence) > 0 {
		ev = ev[:0]
		for _, e := range t.Evidence {
			ev = append(ev, evidenceJSON{e.Signal, e.Text, e.Messages, e.Floor, e.Relative})
		}
		r.Evidence = ev
	}
	return r
}
