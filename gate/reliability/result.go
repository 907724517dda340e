package reliability

import (
	"github.com/agentgate/agentgate/gate/trace"
	"github.com/agentgate/agentgate/gate/verdict"
)

// Evidence says why a signal is non-zero, in words a reviewer can act on.
type Evidence struct {
	Signal   string `json:"signal"`   // "hallucination", "loop", "tool_misuse", "cost", or "trace" for the trace as a whole
	Text     string `json:"text"`     // e.g. "`search` called 5 times with identical arguments at messages 4, 6, 8, 10, 12"
	Messages []int  `json:"messages"` // 0-based indices into the trace's message list
	// Floor marks a claim that makes the run at least WARN on its own under the default
	// profile (a claim of tool use before any call, of an external action no fitting call
	// backs, of success after a failure): the finding Decisive names for a run it raised.
	Floor bool `json:"floor,omitempty"`
	// Relative marks the cost evidence of the run's tokens against its suite's (RelateCost),
	// which a merge of shards takes out before it compares the runs again.
	Relative bool `json:"relative,omitempty"`
}

// Result is the evaluation of one trace: what the JSON report keeps per trace.
//
// The gate keeps one Result per trace until the report is written, so it is the largest
// thing the gate holds (hundreds of thousands of them for a large suite): what only the RS-1
// drop-in CLI shows lives behind the Detail pointer, which the gate's brief evaluation leaves
// nil, rather than in every Result.
type Result struct {
	ID       string          `json:"id"`
	File     string          `json:"file"`
	Line     int             `json:"line"`
	Verdict  verdict.Verdict `json:"verdict"`
	Score    float64         `json:"score"` // the weighted overall score
	Signals  Signals         `json:"signals"`
	Evidence []Evidence      `json:"evidence"`
	// Messages and ToolCalls count the messages and the tool calls the reader found in the
	// trace (docs/design.md#harness-folders), so that a format read blind shows.
	Messages  int32 `json:"messages"`
	ToolCalls int32 `json:"tool_calls"`
	// *Attempt says which task the trace attempted and which trial it was, where the trace
	// says so (docs/design.md#repeated-trials); its members are written inline ("task", "trial"), and nil writes
	// neither. A pointer keeps Result small for the suites that have none.
	*Attempt
	// Run is the run's own outcome and cost (docs/design.md#outcomes), written as the trace's "outcome" when
	// known. It is on the run's record so that it travels with the verdict and signals through
	// every sort, merge and match: nothing pairs runs by position in two lists (docs/design.md#run-identity).
	Run trace.Run `json:"-"`
	// Suite is what the default profile's cost compares across the suite (RelateCost): the
	// tokens the run's cost counted and, when the comparison changed the run, what it was on its
	// own. Nil under the reference profile and for a run without recorded usage.
	SuiteCost *SuiteCost `json:"suite_cost,omitempty"`

	// Detail is what the RS-1 drop-in CLI reports besides the scores (not part of the gate
	// JSON); nil when the Evaluator is Brief.
	Detail *Detail `json:"-"`
}

// Attempt is the task a trace attempted and its trial index (tau-bench's task_id and trial,
// metadata.trial, Inspect's sample id and epoch): the traces of one task are its repeated
// trials, for pass^k (docs/design.md#repeated-trials).
//
// It also holds the run's own trace context when it was read from OTLP spans, so that its
// exported evaluation attaches to the run a tracing backend holds (docs/design.md#findings-elsewhere): like the task,
// something most suites' traces do not have, kept behind the one pointer.
type Attempt struct {
	// Suite is the namespace of Task (tau2's domain, Inspect's eval task) where the harness
	// records one (docs/design.md#run-identity).
	Suite string `json:"suite,omitempty"`
	Task  string `json:"task,omitempty"`
	Trial *int   `json:"trial,omitempty"`
	// Agent is the model or agent that made the run, where the harness records one.
	Agent string `json:"agent,omitempty"`
	// ReadAs is the run's id, suite and trial as the harness recorded them, when the gate
	// changed one so that no two runs are taken for one (docs/comparison-and-statistics.md,
	// "Which run is which: identity"); nil when it changed none.
	ReadAs *ReadAs      `json:"read_as,omitempty"`
	OTLP   *SpanContext `json:"otlp,omitempty"`
	// WrittenTrial is the trial as the harness wrote it when another run already had it and
	// the run was given the next free one (compare.Renumber), so that a comparison can tell a
	// second record of one trial from a further trial (docs/comparison-and-statistics.md,
	// "Every baseline run accounted for"); nil for a run kept as written.
	WrittenTrial *int `json:"-"`
	// Crashed is set for a run that crashed before the agent's first turn (the trace's Crash):
	// it names no domain of its own, and takes its file's (gate's identify).
	Crashed bool `json:"-"`
}

// ReadAs is a run's identity as its harness recorded it, before the gate gave it its own.
type ReadAs struct {
	ID    string `json:"id"`
	Suite string `json:"suite,omitempty"`
	Trial *int   `json:"trial,omitempty"`
}

// SpanContext is an OTLP run's traceId and root spanId, as the input wrote them (hex).
type SpanContext struct {
	TraceID string `json:"trace_id"`
	SpanID  string `json:"span_id,omitempty"`
}

// Detail is the part of RS-1's report that the gate does not keep.
type Detail struct {
	Notes     [NumSignals]string // per-signal details sentence, in SignalTable order
	Reasoning string
	Meta      Metadata
}

// Metadata is RS-1's report metadata.
type Metadata struct {
	TotalMessages  int   `json:"total_messages"`
	TotalToolCalls int   `json:"total_tool_calls"`
	TotalTokens    int64 `json:"total_tokens"`
}

// Summary is the reliability section of the gate report.
type Summary struct {
	Total  int      `json:"total"`
	Pass   int      `json:"pass"`
	Warn   int      `json:"warn"`
	Fail   int      `json:"fail"`
	Traces []Result `json:"traces"`
}

// Add counts r into the summary and keeps it.
func (s *Summary) Add(r Result) {
	s.Total++
	s.count(r.Verdict)
	s.Traces = append(s.Traces, r)
}

// count counts a trace of verdict v into Pass, Warn or Fail.
func (s *Summary) count(v verdict.Verdict) {
	switch v {
	case verdict.Pass:
		s.Pass++
	case verdict.Warn:
		s.Warn++
	case verdict.Fail:
		s.Fail++
	}
}
