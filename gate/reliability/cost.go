package reliability

import (
	"math"
	"strconv"
	"strings"

	"github.com/agentgate/agentgate/gate/trace"
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
	c := costFactors{tokens: e.tokenCount()}
	if !e.ref && c.tokens.usage.Recorded && c.tokens.total > 0 {
		e.costTokens = c.tokens.total
	}
	c.overBudget(e.budget, e.ref) // (a)
	if e.ref {
		c.perMessage(n) // (b)
	}
	c.completionRatio() // (c)
	if c.tokens.total == 0 && (e.ref || c.tokens.usage.Recorded) {
		c.noTokens(n) // (d)
	}
	if !c.found {
		return 0, nil
	}
	return clamp(c.score), c.rk.evidence()
}

// tokenCount is how cost counts a run's tokens: total is the record's usage, or (once) the
// context counted once, from the usage of each model call.
type tokenCount struct {
	total   int64
	once    bool
	usage   trace.Usage
	perCall trace.CallUsage
}

// tokenCount counts the tokens of e's trace: the default profile counts the context once where
// the record gives the usage of two calls or more (see cost).
func (e *eval) tokenCount() tokenCount {
	u, pc := e.t.Usage, e.t.PerCall
	tc := tokenCount{total: u.Total, usage: u, perCall: pc}
	if tc.once = !e.ref && pc.Calls >= 2 && pc.MaxPrompt > 0 && pc.MaxPrompt < u.Prompt; tc.once {
		tc.total = min(tc.total, satAdd(pc.MaxPrompt, u.Completion))
	}
	return tc
}

// appendTo appends "N tokens" and how they were counted to b.
func (tc *tokenCount) appendTo(b []byte) []byte {
	b = numfmt.AppendCount(b, tc.total)
	if !tc.once {
		return append(b, " tokens"...)
	}
	b = append(b, " tokens counting the context once (the largest prompt of "...)
	b = strconv.AppendInt(b, int64(tc.perCall.Calls), 10)
	b = append(b, " calls, "...)
	b = numfmt.AppendCount(b, tc.perCall.MaxPrompt)
	b = append(b, ", plus "...)
	b = numfmt.AppendCount(b, tc.usage.Completion)
	b = append(b, " completion tokens; "...)
	b = numfmt.AppendCount(b, tc.usage.Total)
	return append(b, " with every call's prompt summed)"...)
}

// costFactors gathers the factors of the cost signal that fire: the largest is the score, and
// each one's evidence is filed under it.
type costFactors struct {
	tokens tokenCount
	score  float64
	found  bool
	rk     ranked
	b      []byte // the text of the evidence being written
}

// add files factor f with the evidence c.b.
func (c *costFactors) add(f float64) {
	if !c.found || f > c.score {
		c.score = f
	}
	c.found = true
	c.rk.add(f, Evidence{Signal: SignalCost, Text: string(c.b), Messages: []int{}})
}

// overBudget is factor (a): the total above the budget's tiers, or (default profile) above
// the budget itself. Each branch divides by a positive number for any budget of 1 or more:
// B−B/2 ≥ 1, and B/10 < T ≤ B/2 makes B/2−B/10 ≥ 1. Below the budget, the default profile's
// measure is the suite's own runs (RelateCost).
func (c *costFactors) overBudget(budget int64, ref bool) {
	total := c.tokens.total
	normalTokens, highTokens, excessiveTokens := tokenTiers(budget)
	if total <= normalTokens || !ref && total <= excessiveTokens {
		return
	}
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
	c.b = c.tokens.appendTo(c.b[:0])
	if !c.tokens.once {
		c.b = append(c.b, " in total"...)
	}
	c.b = append(c.b, ", above "...)
	c.b = numfmt.AppendCount(c.b, tier)
	c.add(math.Min(1, f))
}

// perMessage is factor (b), the reference profile's: more than 1,000 tokens a message over n
// messages.
func (c *costFactors) perMessage(n int) {
	perMessage := float64(c.tokens.total) / float64(n)
	if perMessage <= 1000 {
		return
	}
	c.b = c.tokens.appendTo(c.b[:0])
	c.b = append(c.b, " over "...)
	c.b = numfmt.AppendCount(c.b, int64(n))
	c.b = append(c.b, plural(n, " message (", " messages (")...)
	c.b = append(c.b, number(perMessage)...)
	c.b = append(c.b, " per message, above 1,000)"...)
	c.add(float64(math.Min(1, (perMessage-1000)/2000) * 0.7))
}

// completionRatio is factor (c): more than twice as many completion tokens as prompt tokens.
func (c *costFactors) completionRatio() {
	u := c.tokens.usage
	if u.Prompt <= 0 {
		return
	}
	ratio := float64(u.Completion) / float64(u.Prompt)
	if ratio <= 2 {
		return
	}
	c.b = numfmt.AppendCount(c.b[:0], u.Completion)
	c.b = append(c.b, " completion tokens for "...)
	c.b = numfmt.AppendCount(c.b, u.Prompt)
	c.b = append(c.b, " prompt tokens (ratio "...)
	c.b = append(c.b, number(ratio)...)
	c.b = append(c.b, ", above 2)"...)
	c.add(float64(math.Min(1, (ratio-2)/3) * 0.5))
}

// noTokens is factor (d): a run of n messages that used no tokens, or (reference profile) that
// recorded no usage.
func (c *costFactors) noTokens(n int) {
	recorded := c.tokens.usage.Recorded
	c.b = c.b[:0]
	if recorded {
		c.b = append(c.b, "usage records 0 tokens for "...)
	} else {
		c.b = append(c.b, "no token usage recorded for "...)
	}
	c.b = numfmt.AppendCount(c.b, int64(n))
	c.b = append(c.b, plural(n, " message", " messages")...)
	if !recorded {
		c.b = append(c.b, " (RS-1 reads that as 0 tokens)"...)
	}
	c.add(0.3)
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
