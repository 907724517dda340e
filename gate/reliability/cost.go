package reliability

import (
	"math"
	"strconv"
	"strings"

	"github.com/agentgate/agentgate/internal/numfmt"
)

// DefaultTokenBudget is the tokens a run may spend before its cost reads 1: RS-1's excessive
// threshold, whose 10% and 50% are RS-1's normal and high ones.
const DefaultTokenBudget = 100000

// Budget is the token budget b stands for: b itself, or DefaultTokenBudget when b is 0 or
// less (not given, as an Evaluator's zero value or a report that records no budget).
func Budget(b int64) int64 {
	if b <= 0 {
		return DefaultTokenBudget
	}
	return b
}

// tokenTiers are the thresholds of the cost signal's factor (a) under budget B: B/10 (RS-1's
// normal), B/2 (high) and B (excessive), rounded down; 10000, 50000 and 100000 at the default.
func tokenTiers(budget int64) (normal, high, excessive int64) {
	return budget / 10, budget / 2, budget
}

// cost is RS-1's cost signal, the largest of the factors found, with T the total tokens and
// B the token budget (DefaultTokenBudget, 100000, unless the Evaluator says otherwise):
//
//	(a) T > B/10: 1 above B, 0.5 + 0.5·(T−B/2)/(B−B/2) above B/2, else 0.5·(T−B/10)/(B/2−B/10);
//	(b) T per message above 1000: 0.7·min(1, (T/messages − 1000)/2000);
//	(c) completion/prompt above 2: 0.5·min(1, (ratio − 2)/3);
//	(d) T = 0 with messages: 0.3.
//
// Reference: (d) fires whenever the total is 0, which is every transcript that does not
// record usage (all of tau-bench's), as RS-1 reads missing usage as zero.
// Default: (a) keeps only its top, T above the budget B (cost 1, WARN on its own), and (b) is
// dropped: absolute thresholds below the budget flagged 69 of 73 real Inspect runs and 368 of
// 371 successful mini-swe-agent runs, suites whose runs all spend alike. In their place the
// suite's own runs are the measure: RelateCost compares T with the median of the suite
// (suitecost.go; docs/reference.md, "The token budget").
// Default: (d) fires only when usage was recorded and says 0; a transcript without usage is
// not a run that used no tokens. Where the record gives usage per model call (per message, per
// span), every call's prompt re-sends the conversation so far, and their sum counts the same
// context again at each call (forty messages of a clean rebooking sum to ten times the tokens
// that were new): T counts the context once, as the largest prompt of one call plus all
// completion tokens. A record-level usage is taken as it is.
//
// The evidence is written with strconv, not fmt: cost evidence is common on passing traces.
func (e *eval) cost() (float64, []Evidence) {
	n := len(e.t.Messages)
	if n == 0 {
		return 0, nil
	}
	u := e.t.Usage
	total := u.Total
	pc := e.t.PerCall
	once := !e.ref && pc.Calls >= 2 && pc.MaxPrompt > 0 && pc.MaxPrompt < u.Prompt
	if once {
		total = min(total, satAdd(pc.MaxPrompt, u.Completion))
	}
	var rk ranked
	score, found := 0.0, false
	factor := func(f float64, text []byte) {
		if !found || f > score {
			score = f
		}
		found = true
		rk.add(f, Evidence{Signal: SignalCost, Text: string(text), Messages: []int{}})
	}
	var b []byte
	tokens := func() { // "N tokens" and how they were counted
		b = numfmt.AppendCount(b[:0], total)
		if !once {
			b = append(b, " tokens"...)
			return
		}
		b = append(b, " tokens counting the context once (the largest prompt of "...)
		b = strconv.AppendInt(b, int64(pc.Calls), 10)
		b = append(b, " calls, "...)
		b = numfmt.AppendCount(b, pc.MaxPrompt)
		b = append(b, ", plus "...)
		b = numfmt.AppendCount(b, u.Completion)
		b = append(b, " completion tokens; "...)
		b = numfmt.AppendCount(b, u.Total)
		b = append(b, " with every call's prompt summed)"...)
	}

	if !e.ref && u.Recorded && total > 0 {
		e.costTokens = total
	}
	// Each branch divides by a positive number for any budget of 1 or more: B−B/2 ≥ 1, and
	// B/10 < T ≤ B/2 makes B/2−B/10 ≥ 1. The default profile keeps only the budget itself:
	// below it, the suite's own runs are the measure (RelateCost).
	if normalTokens, highTokens, excessiveTokens := tokenTiers(e.budget); total > normalTokens && (e.ref || total > excessiveTokens) {
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
		tokens()
		if !once {
			b = append(b, " in total"...)
		}
		b = append(b, ", above "...)
		b = numfmt.AppendCount(b, tier)
		factor(math.Min(1, f), b)
	}
	if perMessage := float64(total) / float64(n); e.ref && perMessage > 1000 {
		tokens()
		b = append(b, " over "...)
		b = numfmt.AppendCount(b, int64(n))
		b = append(b, plural(n, " message (", " messages (")...)
		b = append(b, number(perMessage)...)
		b = append(b, " per message, above 1,000)"...)
		factor(float64(math.Min(1, (perMessage-1000)/2000)*0.7), b)
	}
	if u.Prompt > 0 {
		if ratio := float64(u.Completion) / float64(u.Prompt); ratio > 2 {
			b = numfmt.AppendCount(b[:0], u.Completion)
			b = append(b, " completion tokens for "...)
			b = numfmt.AppendCount(b, u.Prompt)
			b = append(b, " prompt tokens (ratio "...)
			b = append(b, number(ratio)...)
			b = append(b, ", above 2)"...)
			factor(float64(math.Min(1, (ratio-2)/3)*0.5), b)
		}
	}
	if total == 0 && (e.ref || u.Recorded) {
		b = b[:0]
		if u.Recorded {
			b = append(b, "usage records 0 tokens for "...)
		} else {
			b = append(b, "no token usage recorded for "...)
		}
		b = numfmt.AppendCount(b, int64(n))
		b = append(b, plural(n, " message", " messages")...)
		if !u.Recorded {
			b = append(b, " (RS-1 reads that as 0 tokens)"...)
		}
		factor(0.3, b)
	}
	if !found {
		return 0, nil
	}
	return clamp(score), rk.evidence()
}

// satAdd is a + b for non-negative counts, saturating at the largest int64.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// number formats a figure for evidence: an integer as such, anything else to 2 decimals, with
// thousands separators (44,500.50).
func number(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return numfmt.Count(int64(x))
	}
	s := strconv.FormatFloat(x, 'f', 2, 64)
	if math.Abs(x) < 1000 || math.Abs(x) >= 1e15 {
		return s
	}
	whole, frac, _ := strings.Cut(s, ".")
	n, _ := strconv.ParseInt(whole, 10, 64)
	return numfmt.Count(n) + "." + frac
}
