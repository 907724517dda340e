package reliability

import (
	"strconv"

	"github.com/agentgate/agentgate/gate/pystr"
	"github.com/agentgate/agentgate/gate/verdict"
)

// RS1Report is RS-1's ReliabilityReport, field for field, so that `agentgate rs1` can stand in
// for the RS-1 CLI (docs/design.md#one-binary).
type RS1Report struct {
	TraceID      string          `json:"trace_id"`
	Verdict      verdict.Verdict `json:"verdict"`
	OverallScore float64         `json:"overall_score"`
	SignalScores []RS1Signal     `json:"signal_scores"`
	Reasoning    string          `json:"reasoning"`
	Metadata     Metadata        `json:"metadata"`
}

// RS1Signal is one entry of RS-1's signal_scores list.
type RS1Signal struct {
	SignalName string  `json:"signal_name"`
	Score      float64 `json:"score"`
	Details    string  `json:"details"`
}

// RS1 returns the result as RS-1's report, signals in RS-1's order (hallucination, loop,
// tool_misuse, cost). The details, reasoning and metadata come from r.Detail: they are empty
// for a brief result, which has none.
func (r Result) RS1() RS1Report {
	scores := r.Signals
	var d Detail
	if r.Detail != nil {
		d = *r.Detail
	}
	out := RS1Report{
		TraceID:      r.ID,
		Verdict:      r.Verdict,
		OverallScore: r.Score,
		SignalScores: make([]RS1Signal, len(scores)),
		Reasoning:    d.Reasoning,
		Metadata:     d.Meta,
	}
	for i, s := range scores {
		out.SignalScores[i] = RS1Signal{SignalName: SignalTable[i].Name, Score: s, Details: d.Notes[i]}
	}
	return out
}

// PythonJSON writes the report byte for byte as the RS-1 CLI does with Python's json.dump:
// ", " and ": " separators (or indent=2 when pretty), floats as Python's repr (0.0, 1.0),
// every non-ASCII character escaped as \uXXXX. No trailing newline. encoding/json cannot do
// this: it prints 0 for 0.0 and compacts the separators.
func (rep RS1Report) PythonJSON(pretty bool) []byte {
	w := pyWriter{pretty: pretty}
	w.open('{')
	w.key("trace_id")
	w.str(rep.TraceID)
	w.key("verdict")
	w.str(string(rep.Verdict))
	w.key("overall_score")
	w.float(rep.OverallScore)
	w.key("signal_scores")
	w.open('[')
	for _, s := range rep.SignalScores {
		w.item()
		w.open('{')
		w.key("signal_name")
		w.str(s.SignalName)
		w.key("score")
		w.float(s.Score)
		w.key("details")
		w.str(s.Details)
		w.close('}')
	}
	w.close(']')
	w.key("reasoning")
	w.str(rep.Reasoning)
	w.key("metadata")
	w.open('{')
	w.key("total_messages")
	w.b = strconv.AppendInt(w.b, int64(rep.Metadata.TotalMessages), 10)
	w.key("total_tool_calls")
	w.b = strconv.AppendInt(w.b, int64(rep.Metadata.TotalToolCalls), 10)
	w.key("total_tokens")
	w.b = strconv.AppendInt(w.b, rep.Metadata.TotalTokens, 10)
	w.close('}')
	w.close('}')
	return w.b
}

// pyWriter emits JSON the way Python's json module lays it out.
type pyWriter struct {
	b      []byte
	pretty bool
	depth  int
	count  []int // members written so far at each open level
}

func (w *pyWriter) open(c byte) {
	w.b = append(w.b, c)
	w.depth++
	w.count = append(w.count, 0)
}

func (w *pyWriter) close(c byte) {
	n := w.count[len(w.count)-1]
	w.count = w.count[:len(w.count)-1]
	w.depth--
	if w.pretty && n > 0 {
		w.newline()
	}
	w.b = append(w.b, c)
}

func (w *pyWriter) newline() {
	w.b = append(w.b, '\n')
	for i := 0; i < w.depth; i++ {
		w.b = append(w.b, "  "...)
	}
}

// item starts a member of the innermost container.
func (w *pyWriter) item() {
	n := &w.count[len(w.count)-1]
	if *n > 0 {
		w.b = append(w.b, ',')
		if !w.pretty {
			w.b = append(w.b, ' ')
		}
	}
	*n++
	if w.pretty {
		w.newline()
	}
}

func (w *pyWriter) key(k string) {
	w.item()
	w.str(k)
	w.b = append(w.b, ": "...)
}

func (w *pyWriter) float(f float64) { w.b = pystr.AppendJSONFloat(w.b, f) }

// str writes s as json.dumps(s) with ensure_ascii: \" \\ \n \r \t \b \f, and \uXXXX (UTF-16,
// lower-case hex) for every other character outside printable ASCII.
func (w *pyWriter) str(s string) { w.b = pystr.AppendJSONString(w.b, s, true) }
