// Package verdict defines PASS, WARN and FAIL and how they combine, so that every evaluator
// and the overall gate speak the same three words.
package verdict

// Verdict is the outcome of one trace or of the whole gate.
type Verdict string

const (
	Pass Verdict = "PASS"
	Warn Verdict = "WARN"
	Fail Verdict = "FAIL"
)

// All lists the verdicts from best to worst: the order of a verdict's Rank.
var All = [...]Verdict{Pass, Warn, Fail}

// Rank is v's place in All (0 for PASS, 2 for FAIL); anything else ranks as PASS.
func (v Verdict) Rank() int {
	switch v {
	case Fail:
		return 2
	case Warn:
		return 1
	}
	return 0
}

// Worst returns the more severe of a and b.
func Worst(a, b Verdict) Verdict {
	if b.Rank() > a.Rank() {
		return b
	}
	return a
}
