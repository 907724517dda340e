package trace

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/internal/jsonscan"
)

// OutcomeKeys are the members a record's own outcome is read from, top level first, then
// under metadata, in this order (docs/design.md#outcomes): tau-bench writes reward, other harnesses score,
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

// fieldPath splits an outcome-field setting into its steps: "metadata.correct" is
// ["metadata", "correct"]. Empty: none.
func fieldPath(field string) []string {
	field = strings.TrimSpace(field)
	if field == "" {
		return nil
	}
	return strings.Split(field, ".")
}

// CheckOutcomeField says what is wrong with an outcome-field setting, "" when nothing is: a
// dotted path of non-empty member names.
func CheckOutcomeField(field string) string {
	for _, s := range fieldPath(field) {
		if s == "" {
			return fmt.Sprintf("%s is not a dotted path of member names, as metadata.correct", input.Quote(field))
		}
	}
	return ""
}

// fieldOutcome reads the record's outcome from the member outcome-field names (docs/design.md#harness-folders): a
// boolean or a finite number, as the other outcome members. A record without that member has
// none from it; an array on the way is indexed by a step of digits.
func (d *decoder) fieldOutcome() (Outcome, error) {
	if len(d.outcomePath) == 0 {
		return Outcome{}, nil
	}
	data := d.rec.Data
	at := jsonscan.SkipSpace(data, 0)
	path := make(jsonscan.Path, 0, len(d.outcomePath))
	for _, step := range d.outcomePath {
		next := -1
		switch jsonscan.KindOfValue(data[at:]) {
		case jsonscan.KindObject:
			_, _ = jsonscan.EachMember(data, at, func(key []byte, start, _ int) error {
				if jsonscan.KeyIs(key, step) {
					next = start
				}
				return nil
			})
			path = append(path, jsonscan.Step{Key: step})
		case jsonscan.KindArray:
			i, err := strconv.Atoi(step)
			if err != nil || i < 0 {
				return Outcome{}, nil
			}
			n := 0
			_, _ = jsonscan.EachElement(data, at, func(start, _ int) error {
				if n == i {
					next = start
				}
				n++
				return nil
			})
			path = append(path, jsonscan.Step{Index: i, IsIndex: true})
		}
		if next < 0 {
			return Outcome{}, nil
		}
		at = next
	}
	end, err := jsonscan.Skip(data, at)
	if err != nil {
		return Outcome{}, nil
	}
	o, _, problem := ParseOutcome(data[at:end], d.outcomeField)
	if problem != "" {
		return Outcome{}, d.fieldErr(path, problem+" (outcome-field)")
	}
	return o, nil
}
