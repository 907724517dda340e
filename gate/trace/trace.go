// Package trace is the one model of an agent run that every reliability signal reads, and the
// readers that turn RS-1 ExecutionTraces, OpenAI Chat Completions transcripts and Anthropic
// Messages transcripts into it (docs/design.md#input-files).
package trace

import "strings"

// Shape names the format a trace record was written in.
type Shape string

const (
	ShapeRS1       Shape = "rs1"       // RS-1 ExecutionTrace
	ShapeOpenAI    Shape = "openai"    // OpenAI Chat Completions messages
	ShapeAnthropic Shape = "anthropic" // Anthropic Messages content blocks
	ShapeOTLP      Shape = "otlp"      // OpenTelemetry spans (OTLP/JSON), docs/design.md#file-layouts-and-formats
	ShapeInspect   Shape = "inspect"   // an Inspect AI eval log sample, docs/design.md#file-layouts-and-formats
)

// Trace is one agent run. Messages[i] is element i of the record's message list, so message
// indices in evidence point straight into the input file.
type Trace struct {
	ID       string
	File     string
	Line     int
	Shape    Shape
	Messages []Message
	Usage    Usage
	// Suite is the namespace of Task where the harness records one: tau2's domain, Inspect's
	// eval task, a record's suite member (docs/design.md#run-identity).
	Suite string
	// Task is the id of the task the run attempted, where the record names one (tau-bench's
	// task_id, Inspect's sample id); runs of one task are its trials (docs/design.md#repeated-trials).
	Task string
	// Trial is the run's trial index (tau-bench's trial, metadata.trial, Inspect's epoch)
	// when HasTrial; a record without one is not a trial of a repeated task.
	Trial    int
	HasTrial bool
	// Agent is the model or agent the run was made by, where the harness records it (tau2's
	// info.agent_info.llm, Inspect's eval.model): runs of two agents in one input are two
	// suites, never trials of one task (docs/comparison-and-statistics.md, "Which run is
	// which: identity").
	Agent string
	// Outcome is the run's own success as its harness recorded it (docs/design.md#outcomes), when Known.
	Outcome Outcome
	// PerCall describes the model calls whose own usage was summed into Usage, where the
	// record gives usage per call (per message, per span) rather than for the whole run.
	PerCall CallUsage
	// SpanID is the run's root span id (hex, as OTLP/JSON writes it) when Shape is ShapeOTLP
	// or ShapePhoenix, whose ID is the run's traceId: exported evaluations attach to them
	// (docs/design.md#findings-elsewhere), and a Phoenix span annotation joins the run by it.
	SpanID string
	// TerminalTools are the tools with which the run's harness ends a run (OpenHands'
	// finish, Inspect's and SWE-agent's submit): a call of one may get no result, by design.
	// The registry's row of the trace's format gives them (docs/trace-formats.md, "The
	// registry of formats"); nil when the harness has none.
	TerminalTools []string
	// Note says, once for the run in the report's notes, what of it the format could not
	// hold (an OpenAI Agents SDK run whose model spans exported no message); "" when
	// nothing (docs/trace-formats.md, "Blind reads and crashes").
	Note string
	// RequiredParams are, where the run recorded its tools' schemas (Inspect's model events,
	// tau2's tool_defs, a record's "tools": toolschema.go), the parameters each described tool
	// requires, by tool name; nil where it recorded none. Shared by the traces of one file:
	// read it, never change it.
	RequiredParams map[string][]string
	// SideFile is the file beside the trace's that the reader read for what the trace itself
	// lacks (a SWE-agent trajectory's run config, sweagent.go), for the report's note on the
	// side files read; "" when none.
	SideFile string
	// Crash is the error the harness recorded for a run that crashed: before its agent took a
	// turn (an empty trajectory and tau-bench's info.error, a top-level error), or after (the
	// error OpenHands' resolver recorded of a run its controller stopped). The run's finding,
	// not a format read blind (docs/trace-formats.md, "Blind reads and crashes"). "" when the
	// harness recorded none.
	Crash string
}

// CallUsage describes the model calls whose usage a trace's Usage sums: how many there were
// and the largest prompt of one of them. Every call re-sends the conversation, so the sum of
// the prompts counts the context again at each call; the evaluator counts it once from these.
// The zero value means the record gave one usage for the whole run.
type CallUsage struct {
	Calls     int
	MaxPrompt int64
}

// Outcome is a run's own verdict as its harness recorded it (docs/design.md#outcomes): tau-bench's reward,
// tau2's reward_info.reward, an Inspect score, SWE-bench's resolved, an OTLP evaluation result.
// It is read, never inferred, and it never changes the evaluators' verdicts.
type Outcome struct {
	Known bool
	// Value is the number recorded (a reward or score); a boolean is 1 or 0.
	Value float64
	// IsBool is true when the harness recorded a boolean (success, passed, resolved, Inspect's
	// C/I, an OTLP pass/fail label): it succeeded when Value is 1, whatever success-threshold.
	IsBool bool
	// Source names where it was read, for the report and errors: "reward",
	// "reward_info.reward", "scores.match", "metadata.resolved", "outcomes file", …
	Source string
	// Note says, when the run recorded a score that was not read as its outcome (an Inspect
	// score whose value is a dict, with no key named), why: the report says so (docs/design.md#harness-folders).
	// Known is then false.
	Note string
}

// Succeeded reports whether the run succeeded: a boolean as given, a number when it is at least
// threshold (docs/design.md#outcomes: default 1 − 1e-6, tau-bench's is_successful).
func (o Outcome) Succeeded(threshold float64) bool {
	if o.IsBool {
		return o.Value == 1
	}
	return o.Value >= threshold
}

// Message is one turn of the conversation.
type Message struct {
	Role    string // "user", "assistant", "system" or "tool" as the input said
	Content string // the text; text blocks are joined with "\n"; null content is ""
	Calls   []Call
	Results []Result
}

// Call is one tool call the agent made.
type Call struct {
	ID    string
	HasID bool   // false when the id was null or absent
	Tool  string // tool (function) name
	// Args is the arguments as JSON text when ArgsValid, else the raw text the agent wrote
	// (OpenAI arguments are a string that may not parse).
	Args      []byte
	ArgsValid bool
	// Attachments, when not nil, are the texts that string values of Args name by reference
	// (an Inspect sample's attachment://, docs/security.md, "Attachments"): Args is then
	// valid JSON as the log wrote it, the references unexpanded, and a reference stands for
	// its text (Attachment; ExpandedArgs gives the arguments expanded). The calls of a run
	// share them.
	Attachments *Attachments
}

// Result is one tool result handed back to the agent.
type Result struct {
	CallID  string
	HasID   bool
	Success bool
	Content string // result text, or the JSON text of a structured result
	Error   string // error text where the format carries one
}

// Usage is the run's token usage. Total is total_tokens where given, else prompt+completion.
// Recorded is false when the record carried no usage at all, which is not the same as a run
// that used zero tokens.
type Usage struct {
	Prompt, Completion, Total int64
	Recorded                  bool
}

// NumCalls returns the number of tool calls in the trace.
func (t *Trace) NumCalls() int {
	n := 0
	for i := range t.Messages {
		n += len(t.Messages[i].Calls)
	}
	return n
}

// HasAgentTurn reports whether the trace holds an assistant message: a reader that found
// none did not find the agent's turns (docs/design.md#harness-folders).
func (t *Trace) HasAgentTurn() bool {
	for i := range t.Messages {
		if strings.EqualFold(t.Messages[i].Role, "assistant") {
			return true
		}
	}
	return false
}
