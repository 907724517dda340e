package reliability

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
)

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
	// rule scores a trace on this signal and explains the score (one file per signal:
	// hallucination.go, …).
	rule func(*eval) (float64, []Evidence)
}

// Signal names in the order of SignalTable: what evidence names its signal by.
const (
	SignalHallucination = "hallucination"
	SignalLoop          = "loop"
	SignalToolMisuse    = "tool_misuse"
	SignalCost          = "cost"
	// SignalTrace labels evidence about the trace as a whole rather than one signal (the
	// default profile's "no messages" finding).
	SignalTrace = "trace"
)

// The rows of SignalTable, in RS-1's order, which index Signals: s[Loop] is a run's loop score.
const (
	Hallucination = iota
	Loop
	ToolMisuse
	Cost
)

// SignalTable lists the signals in RS-1's order, which is the order of Signals, of the RS-1
// report's signal_scores and of a trace's evidence. Each row is keyed by its index constant.
//
// The weights are variables so that the overall score sums them in float64 in Python's order
// (it comes to exactly 1.0) rather than folded as exact constants.
var SignalTable = [...]SignalRule{
	Hallucination: {
		Name: SignalHallucination, Weight: 0.35, Limit: 0.8, Fails: true, Doc: "hallucination",
		rule:  (*eval).hallucination,
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
	Loop: {
		Name: SignalLoop, Weight: 0.25, Limit: 0.8, Fails: true, Doc: "loop",
		rule:  (*eval).loop,
		Title: "Looping",
		Short: "The run repeats itself: the same call over and over, near-identical replies, or a run far longer than needed.",
		Help: "loop (RS-1): the same tool called three or more times with the same arguments, consecutive assistant " +
			"messages that are near-identical, or more than 50 messages. The score is in [0, 1]; 0.8 or more fails the " +
			"trace. The evidence names the tool, its arguments and the 0-based indices of the repeated messages: read " +
			"them in the record at the reported line to see what the agent kept retrying.",
		details: [4]string{"Strong evidence of looping or repetitive behavior", "Moderate repetition patterns detected",
			"Minor repetition observed", "No concerning repetition detected"},
	},
	ToolMisuse: {
		Name: SignalToolMisuse, Weight: 0.25, Limit: 0.7, Doc: "tool_misuse",
		rule:  (*eval).misuse,
		Title: "Tool misuse",
		Short: "Tool calls fail or are malformed: many error results, empty or placeholder arguments, one tool crowding out the rest.",
		Help: "tool_misuse (RS-1): more than 30% of tool results are errors, more than 20% of calls have empty, null or " +
			"placeholder arguments (\"\", \"null\", \"undefined\", \"None\"), or one tool makes most of the calls. The score is " +
			"in [0, 1]; 0.7 or more makes the trace WARN. The evidence names the tools, the failing results and the " +
			"0-based indices of their messages in the record at the reported line.",
		details: [4]string{"Severe tool misuse patterns detected", "Moderate tool usage issues found",
			"Minor tool usage concerns", "Tool usage appears appropriate"},
	},
	Cost: {
		Name: SignalCost, Weight: 0.15, Limit: 0.9, Doc: "cost",
		rule:  (*eval).cost,
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

// NumSignals is the number of signals, the rows of SignalTable.
const NumSignals = len(SignalTable)

// Signals holds a run's risk scores, each in [0, 1] (higher is riskier): one for each row of
// SignalTable, at the row's index (s[Loop]). In JSON it is an object with one member for each
// row, named as the row, in the table's order (MarshalJSON).
type Signals [NumSignals]float64

// MarshalJSON writes s as an object with one member for each row of SignalTable, in its order:
// {"hallucination":0.35,"loop":0,"tool_misuse":0,"cost":0.1}.
func (s Signals) MarshalJSON() ([]byte, error) {
	return s.AppendJSON(nil, false)
}

// AppendJSON appends s to b as MarshalJSON writes it, its numbers as encoding/json writes a
// float64; with omitZero, the members whose score is 0 are left out (the JSON report's runs,
// docs/reference.md#the-json-report). A score JSON cannot hold (NaN, an infinity) is an error.
func (s *Signals) AppendJSON(b []byte, omitZero bool) ([]byte, error) {
	b = append(b, '{')
	first := true
	for i, v := range s {
		if omitZero && v == 0 {
			continue
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return b, &json.UnsupportedValueError{Value: reflect.ValueOf(v), Str: strconv.FormatFloat(v, 'g', -1, 64)}
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, '"')
		b = append(b, SignalTable[i].Name...)
		b = append(b, '"', ':')
		b = appendFloat(b, v)
	}
	return append(b, '}'), nil
}

// appendFloat appends f as encoding/json writes a float64: the shortest decimal that reads
// back as f, with an exponent (e-7, e+21) only below 1e-6 or from 1e21 on.
func appendFloat(b []byte, f float64) []byte {
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1] // e-07 is written e-7
		b = b[:n-1]
	}
	return b
}

// UnmarshalJSON reads s as encoding/json reads the struct of one float64 field a row of
// SignalTable, named in JSON as the row (signalsStruct): a key matches a row's name under case
// folding, a member that names no row is ignored, null and absent members leave their scores
// as they are, and a member that is not a number is a type error naming it.
func (s *Signals) UnmarshalJSON(data []byte) error {
	v := reflect.New(signalsStruct)
	for i := range s {
		v.Elem().Field(i).SetFloat(s[i])
	}
	if err := json.Unmarshal(data, v.Interface()); err != nil {
		return err
	}
	for i := range s {
		s[i] = v.Elem().Field(i).Float()
	}
	return nil
}

// signalsStruct is struct{ S0 float64 `json:"hallucination"`; … }, a field for each row of
// SignalTable in its order, named in JSON as the row: what encoding/json reads Signals as.
var signalsStruct = func() reflect.Type {
	fields := make([]reflect.StructField, NumSignals)
	for i := range SignalTable {
		fields[i] = reflect.StructField{Name: "S" + strconv.Itoa(i), Type: reflect.TypeFor[float64](),
			Tag: reflect.StructTag(`json:"` + SignalTable[i].Name + `"`)}
	}
	return reflect.StructOf(fields)
}()

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
