package jsonreport

import (
	"encoding/json"

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
	Signals   json.RawMessage `json:"signals,omitempty"`
	Evidence  []evidenceJSON  `json:"evidence,omitempty"`
	Messages  int32           `json:"messages"`
	ToolCalls int32           `json:"tool_calls"`
	*reliability.Attempt
	SuiteCost *reliability.SuiteCost `json:"suite_cost,omitempty"`
	Outcome   *outcome.JSON          `json:"outcome,omitempty"`
}

// evidenceJSON is reliability.Evidence without an empty message list.
type evidenceJSON struct {
	Signal   string `json:"signal"`
	Text     string `json:"text"`
	Messages []int  `json:"messages,omitempty"`
	Floor    bool   `json:"floor,omitempty"`
	Relative bool   `json:"relative,omitempty"`
}

// runScratch is the memory runOf reuses from one run's record to the next.
type runScratch struct {
	signals []byte
	ev      []evidenceJSON
}

// runOf is trace t's record, which holds memory of sc until the next call. Its signals are
// reliability.Signals without their zero members, absent when all are zero.
func runOf(t *reliability.Result, sc *runScratch) (runJSON, error) {
	r := runJSON{ID: t.ID, File: t.File, Line: t.Line, Verdict: t.Verdict, Score: t.Score,
		Messages: t.Messages, ToolCalls: t.ToolCalls, Attempt: t.Attempt, SuiteCost: t.SuiteCost, Outcome: t.Run.JSON()}
	if t.Signals != (reliability.Signals{}) {
		var err error
		if sc.signals, err = t.Signals.AppendJSON(sc.signals[:0], true); err != nil {
			return r, err
		}
		r.Signals = sc.signals
	}
	if len(t.Evidence) > 0 {
		sc.ev = sc.ev[:0]
		for _, e := range t.Evidence {
			sc.ev = append(sc.ev, evidenceJSON{e.Signal, e.Text, e.Messages, e.Floor, e.Relative})
		}
		r.Evidence = sc.ev
	}
	return r, nil
}
