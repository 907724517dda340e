package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/agreement"
	"github.com/agentgate/agentgate/gate/coherence"
	"github.com/agentgate/agentgate/gate/reliability"
)

// JSON writes r as the machine-readable report of SPEC §5: 2-space indent, numbers
// unrounded, fields in the order of the struct declarations, a section absent when its
// evaluator did not run. Lists are never null: an empty list is written as []. Nothing is
// written when r cannot be encoded (nil, or a NaN or infinite number, which JSON cannot hold);
// the error then names the field.
func JSON(w io.Writer, r *gate.Result) error {
	if r == nil {
		return errors.New("report: no result to write as JSON")
	}
	if err := checkFinite(r); err != nil {
		return fmt.Errorf("report: cannot write JSON: %w", err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(withLists(r)); err != nil {
		return fmt.Errorf("report: cannot write JSON: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// withLists returns a copy of r whose nil lists are empty, so that consumers can iterate over
// every list without a null check. r itself is not modified.
func withLists(r *gate.Result) *gate.Result {
	c := *r
	if c.Gates == nil {
		c.Gates = []gate.GateResult{}
	}
	if s := r.Reliability; s != nil {
		cs := *s
		cs.Traces = make([]reliability.Result, len(s.Traces))
		for i, t := range s.Traces {
			if t.Evidence == nil {
				t.Evidence = []reliability.Evidence{}
			} else {
				ev := make([]reliability.Evidence, len(t.Evidence))
				for j, e := range t.Evidence {
					if e.Messages == nil {
						e.Messages = []int{}
					}
					ev[j] = e
				}
				t.Evidence = ev
			}
			cs.Traces[i] = t
		}
		c.Reliability = &cs
	}
	if s := r.Coherence; s != nil {
		cs := *s
		if cs.Tasks == nil {
			cs.Tasks = []coherence.TaskResult{}
		}
		c.Coherence = &cs
	}
	if s := r.Agreement; s != nil {
		cs := *s
		if cs.Unmatched == nil {
			cs.Unmatched = []agreement.Unmatched{}
		}
		if cs.Items == nil {
			cs.Items = []agreement.Item{}
		}
		c.Agreement = &cs
	}
	return &c
}

// checkFinite names the first number in r that JSON cannot represent.
func checkFinite(r *gate.Result) error {
	bad := func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }
	for i, g := range r.Gates {
		if bad(g.Value) || bad(g.Threshold) {
			return fmt.Errorf("gates[%d] (%s): value %v, threshold %v", i, g.Name, g.Value, g.Threshold)
		}
	}
	if s := r.Reliability; s != nil {
		for i, t := range s.Traces {
			for j, v := range []float64{t.Score, t.Signals.Hallucination, t.Signals.Loop, t.Signals.ToolMisuse, t.Signals.Cost} {
				if bad(v) {
					field := [...]string{"score", "signals.hallucination", "signals.loop", "signals.tool_misuse", "signals.cost"}[j]
					return fmt.Errorf("reliability.traces[%d] (%q): %s is %v", i, t.ID, field, v)
				}
			}
		}
	}
	if s := r.Coherence; s != nil {
		if bad(s.Mean) {
			return fmt.Errorf("coherence.mean is %v", s.Mean)
		}
		for i, t := range s.Tasks {
			if bad(t.RCS) || bad(t.Energy) {
				return fmt.Errorf("coherence.tasks[%d] (%q): rcs %v, energy %v", i, t.ID, t.RCS, t.Energy)
			}
		}
	}
	if s := r.Agreement; s != nil {
		for _, f := range []struct {
			name string
			v    float64
		}{
			{"percent_agreement", s.PercentAgreement}, {"kappa", s.Kappa}, {"kappa_se", s.KappaSE},
			{"kappa_ci[0]", s.KappaCI[0]}, {"kappa_ci[1]", s.KappaCI[1]}, {"kappa_max", s.KappaMax},
			{"pabak", s.PABAK}, {"ac1", s.AC1}, {"ac1_se", s.AC1SE}, {"abstain_rate", s.AbstainRate},
		} {
			if bad(f.v) {
				return fmt.Errorf("agreement.%s is %v", f.name, f.v)
			}
		}
	}
	return nil
}
