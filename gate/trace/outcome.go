package trace

import (
	"math"
	"strconv"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/internal/jsonscan"
)

// OutcomeKeys are the members a record's own outcome is read from, top level first, then
// under metadata, in this order (SPEC §15): tau-bench writes reward, other harnesses score,
// success, passed or resolved.
var OutcomeKeys = [...]string{"reward", "score", "success", "passed", "resolved"}

// ParseOutcome reads an outcome value, raw being its JSON text: true or false, or a finite
// number. ok is false for null or no value (no outcome); problem, when not empty, says what is wrong with
// any other value, quoting it: `expected true, false or a number, found "yes"`.
func ParseOutcome(raw []byte, source string) (o Outcome, ok bool, problem string) {
	switch k := jsonscan.KindOfValue(raw); k {
	case jsonscan.KindNull, jsonscan.KindInvalid:
		return Outcome{}, false, ""
	case jsonscan.KindTrue:
		return Outcome{Known: true, Value: 1, IsBool: true, Source: source}, true, ""
	case jsonscan.KindFalse:
		return Outcome{Known: true, Value: 0, IsBool: true, Source: source}, true, ""
	case jsonscan.KindNumber:
		v, err := strconv.ParseFloat(string(raw), 64)
		if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
			return Outcome{}, false, "expected true, false or a finite number, found " + input.Cut(string(raw))
		}
		return Outcome{Known: true, Value: v, Source: source}, true, ""
	case jsonscan.KindString:
		s := jsonscan.Unquote(raw, jsonscan.Replace)
		return Outcome{}, false, "expected true, false or a number, found the string " + input.Quote(s)
	default:
		return Outcome{}, false, jsonscan.Expected("true, false or a number", k)
	}
}
