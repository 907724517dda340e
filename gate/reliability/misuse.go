package reliability

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/gate/pystr"
)

// suspiciousWords are what RS-1 looks for in str(arguments).lower().
var suspiciousWords = []string{"error", "failed", "undefined", "null", "none"}

// errorLike are the argument values the default profile takes for an error or a missing value
// written where a real value belongs (after trimming and lower-casing); a value that begins
// "error:" counts too.
var errorLike = []string{"error", "failed", "undefined", "null", "none", "nan"}

// misuse is RS-1's tool_misuse signal, the mean of the factors found (0 without calls):
//
//	(a) results whose success is false: if more than 30% failed, min(1, 1.5·rate);
//	(b) calls with empty arguments or a null, "", "null", "undefined" or "None" value: if
//	    more than 20%, that share;
//	(c) one tool with more than 5 calls and more than 70% of all calls: 0.5·min(1, 2·(share−0.5));
//	(d) calls whose arguments look like errors: if more than 30%, 0.7·share.
//
// Reference: (d) is a substring search of Python's str(arguments).lower(), so a search for
// "error handling", a key named "none_of" or a null value (printed None) counts.
// Default: (d) counts a call only when one of its argument values is itself error-like (see
// errorLike), never for a key or a word inside a sentence; and (a) also takes the failure
// rate of each tool with three or more results, so that a tool that keeps failing is not
// hidden behind calls that cannot fail (tau-bench's think and calculate): when one tool's
// calls mostly fail (more than half), the factor is min(1, 1.5·that tool's rate) if larger.
func (e *eval) misuse() (float64, []Evidence) {
	if len(e.t.Messages) == 0 || len(e.calls) == 0 {
		return 0, nil
	}
	var factors []float64
	var ev []Evidence

	if len(e.results) > 0 {
		var failed []toolItem
		for k := range e.results {
			if e.failed(k) {
				failed = append(failed, toolItem{tool: e.resultTool(k), msg: e.results[k].msg})
			}
		}
		rate := float64(len(failed)) / float64(len(e.results))
		f, fired := 0.0, false
		if rate > 0.3 {
			f, fired = math.Min(1, rate*1.5), true
			list, msgs := byTool(failed)
			ev = append(ev, Evidence{Signal: SignalToolMisuse,
				Text:     fmt.Sprintf("%d of %d tool results failed: %s", len(failed), len(e.results), list),
				Messages: keep(msgs)})
		}
		if !e.ref {
			for _, t := range e.failingTools() {
				tf := math.Min(1, float64(t.failed)/float64(t.results)*1.5)
				if !fired || tf > f {
					f = tf
				}
				fired = true
				ev = append(ev, Evidence{Signal: SignalToolMisuse,
					Text: fmt.Sprintf("`%s` failed %d of %d times: %s", t.tool, t.failed, t.results,
						messages(t.failedAt)),
					Messages: keep(t.failedAt)})
			}
		}
		if fired {
			factors = append(factors, f)
		}
	}

	var bad []toolItem
	takesArgs := e.toolsTakingArgs()
	for i := range e.calls {
		c := &e.calls[i]
		if !e.ref && isEmptyObject(c.args) && !takesArgs[c.call.Tool] {
			continue // a tool without parameters is called with {}: nothing is missing
		}
		if badArgs(c) {
			bad = append(bad, toolItem{tool: e.calls[i].call.Tool, msg: e.calls[i].msg})
		}
	}
	if share := float64(len(bad)) / float64(len(e.calls)); len(bad) > 0 && share > 0.2 {
		factors = append(factors, share)
		list, msgs := byTool(bad)
		ev = append(ev, Evidence{Signal: SignalToolMisuse,
			Text:     fmt.Sprintf("%d of %d calls have empty, missing or null arguments: %s", len(bad), len(e.calls), list),
			Messages: keep(msgs)})
	}

	if tool, calls := e.busiestTool(); len(calls) > 5 {
		share := float64(len(calls)) / float64(len(e.calls))
		if share > 0.7 {
			factors = append(factors, float64(math.Min(1, (share-0.5)*2)*0.5))
			ev = append(ev, Evidence{Signal: SignalToolMisuse,
				Text: fmt.Sprintf("`%s` made %d of %d calls (%.0f%%): %s", tool, len(calls), len(e.calls),
					share*100, messages(calls)),
				Messages: keep(calls)})
		}
	}

	var odd []string
	var oddAt []int
	for i := range e.calls {
		c := &e.calls[i]
		if e.suspicious(c) {
			odd = append(odd, fmt.Sprintf("`%s` %s at message %d", c.call.Tool, shortArgs(c.call), c.msg))
			oddAt = append(oddAt, c.msg)
		}
	}
	if share := float64(len(odd)) / float64(len(e.calls)); len(odd) > 0 && share > 0.3 {
		factors = append(factors, share*0.7)
		what := "arguments that mention error, failed, undefined, null or none"
		if !e.ref {
			what = "error-like argument values"
		}
		listed := odd
		if len(listed) > maxItems {
			listed = append(listed[:maxItems:maxItems], fmt.Sprintf("… (%d more)", len(odd)-maxItems))
		}
		ev = append(ev, Evidence{Signal: SignalToolMisuse,
			Text:     fmt.Sprintf("%d of %d calls have %s: %s", len(odd), len(e.calls), what, strings.Join(listed, "; ")),
			Messages: keep(oddAt)})
	}

	if len(factors) == 0 {
		return 0, nil
	}
	sum := 0.0
	for _, f := range factors {
		sum += f
	}
	sortEvidence(ev)
	return clamp(sum / float64(len(factors))), ev
}

// badArgs is RS-1's check (b): arguments that are falsy, or a dict holding None or a string
// that strips to "", "null", "undefined" or "None". Arguments that are not a dict (raw text
// that is not JSON, or a JSON list or scalar) crash RS-1; SPEC §2.1 makes them bad arguments.
func badArgs(c *callRef) bool {
	v := c.args
	if !v.Truthy() || v.Kind != pystr.KindDict {
		return true
	}
	for i := range v.Dict {
		switch m := v.Dict[i].Value; m.Kind {
		case pystr.KindNone:
			return true
		case pystr.KindStr:
			switch pystr.Strip(m.Text) {
			case "", "null", "undefined", "None":
				return true
			}
		}
	}
	return false
}

// isEmptyObject reports whether v is {}.
func isEmptyObject(v pystr.Value) bool { return v.Kind == pystr.KindDict && len(v.Dict) == 0 }

// toolsTakingArgs returns the tools that this trace calls at least once with a non-empty
// object of arguments. The default profile uses it to tell a parameterless tool called with
// {} (OpenAI and SWE-agent write that for a tool such as submit) from a call that dropped its
// arguments.
func (e *eval) toolsTakingArgs() map[string]bool {
	out := map[string]bool{}
	for i := range e.calls {
		if v := e.calls[i].args; v.Kind == pystr.KindDict && len(v.Dict) > 0 {
			out[e.calls[i].call.Tool] = true
		}
	}
	return out
}

// suspicious is check (d) for one call.
func (e *eval) suspicious(c *callRef) bool {
	if e.ref {
		e.scratch = c.args.AppendStr(e.scratch[:0])
		low := pystr.Lower(string(e.scratch))
		for _, w := range suspiciousWords {
			if strings.Contains(low, w) {
				return true
			}
		}
		return false
	}
	return hasErrorLikeValue(c.args)
}

// hasErrorLikeValue reports whether some string value in v, at any depth, is error-like.
// Keys are names, not values, and never count.
func hasErrorLikeValue(v pystr.Value) bool {
	switch v.Kind {
	case pystr.KindStr:
		s := pystr.Lower(pystr.Strip(v.Text))
		return slices.Contains(errorLike, s) || strings.HasPrefix(s, "error:")
	case pystr.KindList:
		for i := range v.List {
			if hasErrorLikeValue(v.List[i]) {
				return true
			}
		}
	case pystr.KindDict:
		for i := range v.Dict {
			if hasErrorLikeValue(v.Dict[i].Value) {
				return true
			}
		}
	}
	return false
}

// busiestTool returns the tool with the most calls (the first to appear among equals) and the
// messages of its calls.
func (e *eval) busiestTool() (string, []int) {
	idx := make([]int, len(e.calls))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return strings.Compare(e.calls[a].call.Tool, e.calls[b].call.Tool) })
	best, bestFirst, bestStart, bestEnd := 0, 0, 0, 0
	for i := 0; i < len(idx); {
		j := i + 1
		for j < len(idx) && e.calls[idx[j]].call.Tool == e.calls[idx[i]].call.Tool {
			j++
		}
		if n := j - i; n > best || (n == best && idx[i] < bestFirst) {
			best, bestFirst, bestStart, bestEnd = n, idx[i], i, j
		}
		i = j
	}
	if best == 0 {
		return "", nil
	}
	msgs := make([]int, 0, best)
	for _, i := range idx[bestStart:bestEnd] {
		msgs = append(msgs, e.calls[i].msg)
	}
	return e.calls[idx[bestStart]].call.Tool, msgs
}

// toolFailures is the failure count of one tool's paired results.
type toolFailures struct {
	tool            string
	first           int // index of the tool's first result
	results, failed int
	failedAt        []int // messages of the failed results
}

// failingTools returns the tools with at least three paired results of which more than half
// failed, in order of their first result.
func (e *eval) failingTools() []toolFailures {
	var idx []int
	for k := range e.results {
		if e.pairs.callOf[k] >= 0 {
			idx = append(idx, k)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int { return strings.Compare(e.resultTool(a), e.resultTool(b)) })
	var out []toolFailures
	for i := 0; i < len(idx); {
		tool := e.resultTool(idx[i])
		j := i + 1
		for j < len(idx) && e.resultTool(idx[j]) == tool {
			j++
		}
		t := toolFailures{tool: tool, first: idx[i], results: j - i}
		for _, k := range idx[i:j] {
			if e.failed(k) {
				t.failed++
				t.failedAt = append(t.failedAt, e.results[k].msg)
			}
		}
		if t.results >= 3 && 2*t.failed > t.results {
			out = append(out, t)
		}
		i = j
	}
	slices.SortFunc(out, func(a, b toolFailures) int { return a.first - b.first })
	return out
}
