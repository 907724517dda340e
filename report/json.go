package report

import (
	"bufio"
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
	// Everything but the per-trace results is small: encode it whole, with an empty trace list,
	// then stream the traces one by one into that list, indented as the encoder would have
	// indented them. The bytes are the same as encoding the whole document at once, without
	// holding a second copy of a report of a million traces.
	c := withLists(r)
	var traces []reliability.Result
	if c.Reliability != nil {
		rel := *c.Reliability
		traces, rel.Traces = rel.Traces, []reliability.Result{}
		c.Reliability = &rel
	}
	var head bytes.Buffer
	enc := json.NewEncoder(&head)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		return fmt.Errorf("report: cannot write JSON: %w", err)
	}
	doc := head.Bytes()
	slot := []byte(`"traces": []`)
	at := bytes.Index(doc, slot)
	if c.Reliability == nil || len(traces) == 0 || at < 0 {
		_, err := w.Write(doc)
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(doc[:at+len(slot)-1]) // up to and including '['
	const indent = "      "        // traces sit at depth 3: top level, reliability, traces
	var one bytes.Buffer
	te := json.NewEncoder(&one)
	te.SetIndent(indent, "  ")
	te.SetEscapeHTML(false)
	for i := range traces {
		one.Reset()
		if err := te.Encode(withEvidenceLists(traces[i])); err != nil {
			return fmt.Errorf("report: cannot write JSON: %w", err)
		}
		bw.WriteString("\n" + indent)
		bw.Write(bytes.TrimSuffix(one.Bytes(), []byte("\n")))
		if i < len(traces)-1 {
			bw.WriteByte(',')
		}
	}
	bw.WriteString("\n    ]")
	bw.Write(doc[at+len(slot):])
	return bw.Flush()
}

// withEvidenceLists returns t with its nil evidence lists empty, so consumers need no null
// check.
func withEvidenceLists(t reliability.Result) reliability.Result {
	if t.Evidence == nil {
		t.Evidence = []reliability.Evidence{}
		return t
	}
	for _, e := range t.Evidence {
		if e.Messages == nil {
			ev := make([]reliability.Evidence, len(t.Evidence))
			for j, e := range t.Evidence {
				if e.Messages == nil {
					e.Messages = []int{}
				}
				ev[j] = e
			}
			t.Evidence = ev
			break
		}
	}
	return t
}

// withLists returns a copy of r whose nil lists are empty (trace evidence lists are filled in
// as the traces are written), so that consumers can iterate over
// every list without a null check. r itself is not modified.
func withLists(r *gate.Result) *gate.Result {
	c := *r
	if c.Gates == nil {
		c.Gates = []gate.GateResult{}
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
