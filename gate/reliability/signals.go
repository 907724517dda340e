package reliability

import "fmt"

// SignalRule is one row of the signal table: a risk signal of the reliability evaluator, what
// it weighs in the overall score, where it becomes critical and what a critical score does to
// the trace's verdict (docs/reference.md#the-reliability-signals). The evaluator, the reports
// (text, JUnit, SARIF, the calibration against the runs' outcomes) and the RS-1 drop-in read
// the signals from SignalTable and nowhere else: adding a signal is a row here and its rule
// (docs/development.md#adding-a-signal).
type SignalRule struct {
	// Name is the signal's name in reports, in evidence and in the JSON report's "signals".
	Name string
	// Weight is the signal's weight in the overall score (RS-1's linear aggregation).
	Weight float64
	// Limit is the critical threshold: a score at or above it makes the trace FAIL when Fails,
	// else WARN.
	Limit float64
	Fails bool
	// Doc is the anchor of the signal's section in docs/reference.md.
	Doc string
	// Title, Short and Help say what the signal means to a reader of its findings (the SARIF
	// rule's name, short description and help): what it flags and how to read its evidence.
	Title, Short, Help string

	// details are RS-1's one-sentence descriptions of a score of 0.7 or more, 0.4, 0.2 and
	// below; with tokens, each holds the run's total tokens where it says "%d".
	details [4]string
	tokens  bool
}

// SignalTable lists the signals in RS-1's order, which is the order of Signals, of the RS-1
// report's signal_scores and of a trace's evidence.
//
// The weights are variables so that the overall score sums them in float64 in Python's order
// (it comes to exactly 1.0) rather than folded as exact constants.
var SignalTable = [...]SignalRule{
	{
		Name: SignalHallucination, Weight: 0.35, Limit: 0.8, Fails: true, Doc: "hallucination",
		Title: "Hallucinated tool use",
		Short: "The run's tool calls and results do not add up, or it claims tool use that never happened.",
		Help: "hallucination (RS-1): a tool result that answers no call the agent made, a call that never got a result, " +
			"or an assistant message that claims to have run a tool or to have succeeded with no tool result to back it. " +
			"The score is in [0, 1]; 0.8 or more fails the trace. The evidence names the call or result ids and the " +
			"0-based indices of the messages where the mismatch sits: open the record at the reported line and read those " +
			"messages of its message list.",
		details: [4]string{"High risk of hallucinated outputs detected", "Moderate hallucination indicators found",
			"Some minor hallucination patterns detected", "No significant hallucination detected"},
	},
	{
		Name: SignalLoop, Weight: 0.25, Limit: 0.8, Fails: true, Doc: "loop",
		Title: "Looping",
		Short: "The run repeats itself: the same call over and over, near-identical replies, or a run far longer than needed.",
		Help: "loop (RS-1): the same tool called three or more times with the same arguments, consecutive assistant " +
			"messages that are near-identical, or more than 50 messages. The score is in [0, 1]; 0.8 or more fails the " +
			"trace. The evidence names the tool, its arguments and the 0-based indices of the repeated messages: read " +
			"them in the record at the reported line to see what the agent kept retrying.",
		details: [4]string{"Strong evidence of looping or repetitive behavior", "Moderate repetition patterns detected",
			"Minor repetition observed", "No concerning repetition detected"},
	},
	{
		Name: SignalToolMisuse, Weight: 0.25, Limit: 0.7, Doc: "tool_misuse",
		Title: "Tool misuse",
		Short: "Tool calls fail or are malformed: many error results, empty or placeholder arguments, one tool crowding out the rest.",
		Help: "tool_misuse (RS-1): more than 30% of tool results are errors, more than 20% of calls have empty, null or " +
			"placeholder arguments (\"\", \"null\", \"undefined\", \"None\"), or one tool makes most of the calls. The score is " +
			"in [0, 1]; 0.7 or more makes the trace WARN. The evidence names the tools, the failing results and the " +
			"0-based indices of their messages in the record at the reported line.",
		details: [4]string{"Severe tool misuse patterns detected", "Moderate tool usage issues found",
			"Minor tool usage concerns", "Tool usage appears appropriate"},
	},
	{
		Name: SignalCost, Weight: 0.15, Limit: 0.9, Doc: "cost",
		Title: "Token cost",
		Short: "The run used many tokens: in total, per message, or in completion against prompt.",
		Help: "cost (RS-1): more than 10,000 tokens in total (1.0 above 100,000), more than 1,000 tokens per message, " +
			"completion tokens more than twice the prompt tokens, or a recorded usage of zero. The score is in [0, 1]; " +
			"0.9 or more makes the trace WARN. The evidence gives the token counts and the threshold they crossed.",
		details: [4]string{"Excessive resource usage detected (%d tokens)", "High resource usage (%d tokens)",
			"Moderate resource usage (%d tokens)", "Resource usage within normal range (%d tokens)"},
		tokens: true,
	},
}

// score runs the rule of row k of SignalTable, which scores the trace and explains the score
// (one file per signal: hallucination.go, …); ok is false for a row without a rule. It is a
// switch rather than a function in the row because a call through a function value lets the
// evaluator's state escape to the heap: one allocation more for every Evaluate.
func (e *eval) score(k int) (s float64, evs []Evidence, ok bool) {
	switch SignalTable[k].Name {
	case SignalHallucination:
		s, evs = e.hallucination()
	case SignalLoop:
		s, evs = e.loop()
	case SignalToolMisuse:
		s, evs = e.misuse()
	case SignalCost:
		s, evs = e.cost()
	default:
		return 0, nil, false
	}
	return s, evs, true
}

// NumSignals is the number of signals, the rows of SignalTable.
const NumSignals = len(SignalTable)

// Values returns the scores in SignalTable order.
func (s Signals) Values() [NumSignals]float64 {
	return [NumSignals]float64{s.Hallucination, s.Loop, s.ToolMisuse, s.Cost}
}

// signalsOf is the Signals of scores in SignalTable order.
func signalsOf(v [NumSignals]float64) Signals {
	return Signals{Hallucination: v[0], Loop: v[1], ToolMisuse: v[2], Cost: v[3]}
}

// SignalIndex is the row of SignalTable named name, or -1 ("trace" has none).
func SignalIndex(name string) int {
	for i := range SignalTable {
		if SignalTable[i].Name == name {
			return i
		}
	}
	return -1
}

// detailsOf is RS-1's one-sentence description of the score of signal r in a run of tokens
// tokens.
func (r *SignalRule) detailsOf(score float64, tokens int64) string {
	band := 3
	switch {
	case score >= 0.7:
		band = 0
	case score >= 0.4:
		band = 1
	case score >= 0.2:
		band = 2
	}
	if r.tokens {
		return fmt.Sprintf(r.details[band], tokens)
	}
	return r.details[band]
}
