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

// rank orders verdicts from best to worst.
func (v Verdict) rank() int {
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
	if b.rank() > a.rank() {
		return b
	}
	return a
}
