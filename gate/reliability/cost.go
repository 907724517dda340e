package reliability

import (
	"fmt"
	"math"
	"strconv"
)

// RS-1's token thresholds.
const (
	normalTokens    = 10000
	highTokens      = 50000
	excessiveTokens = 100000
)

// cost is RS-1's cost signal, the largest of the factors found, with T the total tokens:
//
//	(a) T > 10000: 1 above 100000, 0.5 + 0.5·(T−50000)/50000 above 50000, else 0.5·(T−10000)/40000;
//	(b) T per message above 1000: 0.7·min(1, (T/messages − 1000)/2000);
//	(c) completion/prompt above 2: 0.5·min(1, (ratio − 2)/3);
//	(d) T = 0 with messages: 0.3.
//
// Reference: (d) fires whenever the total is 0, which is every transcript that does not
// record usage (all of tau-bench's), as RS-1 reads missing usage as zero.
// Default: (d) fires only when usage was recorded and says 0; a transcript without usage is
// not a run that used no tokens.
func (e *eval) cost() (float64, []Evidence) {
	n := len(e.t.Messages)
	if n == 0 {
		return 0, nil
	}
	u := e.t.Usage
	total := u.Total
	var rk ranked
	score, found := 0.0, false
	factor := func(f float64, text string) {
		if !found || f > score {
			score = f
		}
		found = true
		rk.add(f, Evidence{Signal: SignalCost, Text: text, Messages: []int{}})
	}

	if total > normalTokens {
		var f float64
		tier := normalTokens // the threshold the total crossed, named in the evidence
		switch {
		case total > excessiveTokens:
			f, tier = 1, excessiveTokens
		case total > highTokens:
			f, tier = 0.5+float64(float64(total-highTokens)/float64(excessiveTokens-highTokens)*0.5), highTokens
		default:
			f = float64(total-normalTokens) / float64(highTokens-normalTokens) * 0.5
		}
		factor(math.Min(1, f), fmt.Sprintf("%d tokens in total, above %d", total, tier))
	}
	if perMessage := float64(total) / float64(n); perMessage > 1000 {
		factor(float64(math.Min(1, (perMessage-1000)/2000)*0.7),
			fmt.Sprintf("%d tokens over %d %s (%s per message, above 1000)", total, n, plural(n, "message", "messages"), number(perMessage)))
	}
	if u.Prompt > 0 {
		if ratio := float64(u.Completion) / float64(u.Prompt); ratio > 2 {
			factor(float64(math.Min(1, (ratio-2)/3)*0.5),
				fmt.Sprintf("%d completion tokens for %d prompt tokens (ratio %s, above 2)", u.Completion, u.Prompt, number(ratio)))
		}
	}
	if total == 0 && (e.ref || u.Recorded) {
		text := fmt.Sprintf("usage records 0 tokens for %d %s", n, plural(n, "message", "messages"))
		if !u.Recorded {
			text = fmt.Sprintf("no token usage recorded for %d %s (RS-1 reads that as 0 tokens)", n, plural(n, "message", "messages"))
		}
		factor(0.3, text)
	}
	if !found {
		return 0, nil
	}
	return clamp(score), rk.evidence()
}

// number formats a figure for evidence: an integer as such, anything else to 2 decimals.
func number(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return strconv.FormatInt(int64(x), 10)
	}
	return strconv.FormatFloat(x, 'f', 2, 64)
}
