package reliability

import (
	"bytes"
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
// Default: the signal is the largest factor, not their mean, so that finding one more
// problem never lowers it (a mean dilutes 9 failed calls of 9 with a minor finding). (d)
// counts a call only when one of its argument values is itself error-like (see errorLike),
// never for a key or a word inside a sentence. (b) does not count an empty string or a null
// (an optional field left empty, "address2": "", or null, "date": null) unless no member holds
// a value; where the run recorded the tool's schema (trace.Trace.RequiredParams), only its
// required parameters count (missingRequired) and members it does not require are not read.
// (b) reads Python dict literals as values, and
// reports arguments that are neither JSON nor such a literal on their own, as not valid JSON.
// (a) counts only failures the run never recovered from (unrecoveredFailures: a failure is
// recovered when a later call of the same tool succeeds, after any number of corrected
// retries, unless the failed call was sent again, identical, to fail alike; a lookup that
// fails on two wrong zip codes and succeeds once the user corrects them is the agent doing
// its job), and also takes the failure rate of each tool with three or more results, so that
// a tool that keeps failing is not hidden behind calls that cannot fail (tau-bench's think
// and calculate): when more than half of one tool's results are unrecovered failures, the
// factor is min(1, 1.5·that share) if larger. (c) needs two tools or more: an agent with one
// tool (mini-swe-agent's bash) cannot favour it. A result also fails when its text reports a
// non-zero exit status (exitstatus.go).
func (e *eval) misuse() (float64, []Evidence) {
	if len(e.t.Messages) == 0 || len(e.calls) == 0 {
		return 0, nil
	}
	m := misuseFactors{factors: e.factors[:0]}
	defer func() { e.factors = m.factors[:0] }()
	if len(e.results) > 0 {
		e.failedResults(&m) // (a)
	}
	e.emptyArgs(&m)     // (b)
	e.oneTool(&m)       // (c)
	e.errorLikeArgs(&m) // (d)
	if len(m.factors) == 0 {
		return 0, nil
	}
	if !e.ref {
		return clamp(slices.Max(m.factors)), m.rk.evidence()
	}
	sum := 0.0
	for _, f := range m.factors {
		sum += f
	}
	return clamp(sum / float64(len(m.factors))), m.rk.evidence()
}

// misuseFactors are the factors of the tool_misuse signal that fire, and the evidence of each
// filed under the score it explains.
type misuseFactors struct {
	factors []float64
	rk      ranked
}

// failedResults is factor (a): the share of results that failed (under the default profile,
// that the run never recovered from), or a tool that keeps failing. It also sets the default
// profile's floor of unrecovered failures (misuseFloor).
func (e *eval) failedResults(m *misuseFactors) {
	failed := e.items[:0]
	defer func() { e.items = failed[:0] }()
	var unrecovered, answer []bool
	if !e.ref {
		unrecovered, answer = e.unrecoveredFailures(), e.answers()
	}
	recovered, answers, abandoned := 0, 0, 0
	for k := range e.results {
		switch {
		case !e.failed(k):
		case answer != nil && answer[k]:
			answers++
		case unrecovered != nil && !unrecovered[k]:
			recovered++
		default:
			failed = append(failed, toolItem{tool: e.resultTool(k), msg: e.results[k].msg})
			if answer != nil && e.noLaterSuccess(k) {
				abandoned++
			}
		}
	}
	// unrecovered failures, with no later success of their tool, that make up 40% of the
	// calls: the run did not do what it set out to do (issue 37); one failure is one
	// event, not a share (see minFailures)
	if abandoned >= minFailures && 5*abandoned >= 2*len(e.calls) {
		e.misuseFloor = true
	}
	rate := float64(len(failed)) / float64(len(e.results))
	f, fired := 0.0, false
	if rate > 0.3 {
		f, fired = math.Min(1, rate*1.5), true
		if !e.ref && len(failed) < minFailures && e.spokeAfter(failed[0].msg) {
			f = math.Min(f, oneFailure)
		}
		list, msgs := byTool(failed)
		text := fmt.Sprintf("%d of %d tool results failed: %s", len(failed), len(e.results), list)
		if !e.ref {
			text = fmt.Sprintf("%d of %d tool results failed and were never recovered: %s", len(failed), len(e.results), list)
			if n := e.statusFailures(); n > 0 {
				text += fmt.Sprintf(" (%d of the trace's failures read from a non-zero exit status in the result text)", n)
			}
			if recovered > 0 {
				text += fmt.Sprintf(" (%d more failed and were recovered)", recovered)
			}
			if answers > 0 {
				text += fmt.Sprintf(" (%d more were the tool's answer, relayed or acted on)", answers)
			}
		}
		m.rk.add(f, Evidence{Signal: SignalToolMisuse, Text: text, Messages: keep(msgs)})
	}
	if !e.ref {
		for _, t := range e.failingTools(unrecovered) {
			tf := math.Min(1, float64(len(t.failedAt))/float64(t.results)*1.5)
			if !fired || tf > f {
				f = tf
			}
			fired = true
			how := ""
			if t.byStatus > 0 {
				how = fmt.Sprintf(" (%d by a non-zero exit status in the result text)", t.byStatus)
			}
			m.rk.add(tf, Evidence{Signal: SignalToolMisuse,
				Text: fmt.Sprintf("`%s` failed %d of %d times%s, %d of them never recovered (no later success of the tool, or the same call sent again to fail alike): %s",
					t.tool, t.failed, t.results, how, len(t.failedAt), messages(t.failedAt)),
				Messages: keep(t.failedAt)})
		}
	}
	if fired {
		m.factors = append(m.factors, f)
	}
}

// emptyArgs is factor (b): calls with empty, missing or null arguments, or (default profile)
// arguments that are not valid JSON.
func (e *eval) emptyArgs(m *misuseFactors) {
	bad := e.badItems[:0]
	defer func() { e.badItems = bad[:0] }()
	var notJSON []toolItem // default profile: neither JSON nor a Python literal
	takesArgs := e.toolsTakingArgs()
	bySchema := 0 // of bad: judged by the tool's recorded schema
	for i := range e.calls {
		c := &e.calls[i]
		req, described := e.requiredParams(c.call.Tool)
		if !described && !e.ref && isEmptyObject(c.args) && !takesArgs[e.toolOf[i]] {
			continue // a tool without parameters is called with {}: nothing is missing
		}
		switch {
		case c.notJSON:
			notJSON = append(notJSON, toolItem{tool: c.call.Tool, msg: c.msg})
		case described:
			if missingRequired(c.args, req) {
				bad = append(bad, toolItem{tool: c.call.Tool, msg: c.msg})
				bySchema++
			}
		case e.badArgs(c):
			bad = append(bad, toolItem{tool: c.call.Tool, msg: c.msg})
		}
	}
	if share := float64(len(notJSON)) / float64(len(e.calls)); len(notJSON) > 0 && share > 0.2 {
		m.factors = append(m.factors, share)
		list, msgs := byTool(notJSON)
		m.rk.add(share, Evidence{Signal: SignalToolMisuse,
			Text:     fmt.Sprintf("%d of %d calls have arguments that are not valid JSON: %s", len(notJSON), len(e.calls), list),
			Messages: keep(msgs)})
	}
	if share := float64(len(bad)) / float64(len(e.calls)); len(bad) > 0 && share > 0.2 {
		m.factors = append(m.factors, share)
		list, msgs := byTool(bad)
		text := fmt.Sprintf("%d of %d calls have empty, missing or null arguments: %s", len(bad), len(e.calls), list)
		if bySchema > 0 {
			text += fmt.Sprintf(" (%d of them leave out, or send empty or null, a parameter the run's tool schema requires)", bySchema)
		}
		m.rk.add(share, Evidence{Signal: SignalToolMisuse, Text: text, Messages: keep(msgs)})
	}
}

// oneTool is factor (c): one tool with more than 5 calls and more than 70% of all calls.
func (e *eval) oneTool(m *misuseFactors) {
	if tool, calls := e.busiestTool(5); len(calls) > 5 && (e.ref || len(e.tools) > 1) {
		share := float64(len(calls)) / float64(len(e.calls))
		if share > 0.7 {
			bf := float64(math.Min(1, (share-0.5)*2) * 0.5)
			m.factors = append(m.factors, bf)
			m.rk.add(bf, Evidence{Signal: SignalToolMisuse,
				Text: fmt.Sprintf("`%s` made %d of %d calls (%.0f%%): %s", tool, len(calls), len(e.calls),
					share*100, messages(calls)),
				Messages: keep(calls)})
		}
	}
}

// errorLikeArgs is factor (d): calls whose arguments look like errors (suspicious).
func (e *eval) errorLikeArgs(m *misuseFactors) {
	nodd := 0
	for i := range e.calls {
		if e.suspicious(&e.calls[i]) {
			nodd++
		}
	}
	var odd []string
	var oddAt []int
	if share := float64(nodd) / float64(len(e.calls)); nodd > 0 && share > 0.3 {
		for i := range e.calls {
			c := &e.calls[i]
			if e.suspicious(c) {
				odd = append(odd, fmt.Sprintf("`%s` %s at message %d", c.call.Tool, shortArgs(c.call), c.msg))
				oddAt = append(oddAt, c.msg)
			}
		}
	}
	if share := float64(len(odd)) / float64(len(e.calls)); len(odd) > 0 && share > 0.3 {
		m.factors = append(m.factors, share*0.7)
		what := "arguments that mention error, failed, undefined, null or none"
		if !e.ref {
			what = "error-like argument values"
		}
		listed := odd
		if len(listed) > maxItems {
			listed = append(listed[:maxItems:maxItems], fmt.Sprintf("… (%d more)", len(odd)-maxItems))
		}
		m.rk.add(share*0.7, Evidence{Signal: SignalToolMisuse,
			Text:     fmt.Sprintf("%d of %d calls have %s: %s", len(odd), len(e.calls), what, strings.Join(listed, "; ")),
			Messages: keep(oddAt)})
	}
}

// Under the default profile one unrecovered failure is one event, not a rate: RS-1's
// 1.5·rate reads one failed result of two as 0.75 (WARN), so that a short run with one
// timeout, or one call of a tool its domain lacks, WARNs although its scorer marked it
// correct. Alone, with the agent speaking after it, it scores at most oneFailure, a finding
// under the WARN line (as one failure of three scores); a failure the run ends on, with no
// word from the agent after it, keeps RS-1's score. The 40% floor of unrecovered failures needs minFailures of them
// (docs/reference.md, "Differences from the reference").
const (
	minFailures = 2
	oneFailure  = 0.5
)

// spokeAfter reports whether an assistant message follows message msg.
func (e *eval) spokeAfter(msg int) bool {
	return len(e.assistant) > 0 && e.assistant[len(e.assistant)-1] > msg
}

// badArgs is RS-1's check (b): arguments that are falsy, or a dict holding None or a string
// that strips to "", "null", "undefined" or "None". Arguments that are not a dict (raw text
// that is not JSON, or a JSON list or scalar) crash RS-1; docs/design.md#input-files makes them bad arguments.
// The default profile does not count a string that strips to "" or a null: an optional field
// left empty or written null (AgentDojo writes `{"query": "yoga", "date": null}`) is not a
// missing argument; arguments none of whose members holds a value (all null or empty) are.
func (e *eval) badArgs(c *callRef) bool {
	v := c.args
	if !v.Truthy() || v.Kind != pystr.KindDict {
		return true
	}
	given := false // default profile: some member holds a value
	for i := range v.Dict {
		switch m := v.Dict[i].Value; m.Kind {
		case pystr.KindNone:
			if e.ref {
				return true
			}
		case pystr.KindStr:
			switch strip(m.Text) {
			case "":
				if e.ref {
					return true
				}
			case "null", "undefined", "None":
				return true
			default:
				given = true
			}
		default:
			given = true
		}
	}
	return !e.ref && !given
}

// requiredParams are, under the default profile, the parameters tool requires as the run's
// recorded schema of it says (trace.Trace.RequiredParams), and whether the run described the
// tool at all.
func (e *eval) requiredParams(tool string) (required []string, described bool) {
	if e.ref || e.t.RequiredParams == nil {
		return nil, false
	}
	required, described = e.t.RequiredParams[tool]
	return required, described
}

// missingRequired is check (b) for a call of a tool whose schema the run recorded: only a
// required parameter counts, when it is absent, null, or a string that strips to "", "null",
// "undefined" or "None"; arguments that are not an object miss every required parameter. An
// optional parameter left out, null or empty is the schema's own default.
func missingRequired(v pystr.Value, required []string) bool {
	if len(required) == 0 {
		return false
	}
	if v.Kind != pystr.KindDict {
		return true
	}
	for _, name := range required {
		k := slices.IndexFunc(v.Dict, func(m pystr.Member) bool { return m.Key == name })
		if k < 0 {
			return true
		}
		switch m := v.Dict[k].Value; m.Kind {
		case pystr.KindNone:
			return true
		case pystr.KindStr:
			switch strip(m.Text) {
			case "", "null", "undefined", "None":
				return true
			}
		}
	}
	return false
}

// isEmptyObject reports whether v is {}.
func isEmptyObject(v pystr.Value) bool { return v.Kind == pystr.KindDict && len(v.Dict) == 0 }

// toolsTakingArgs returns, by tool (see toolOf), whether this trace calls the tool at least
// once with a non-empty object of arguments. The default profile uses it to tell a
// parameterless tool called with {} (OpenAI and SWE-agent write that for a tool such as
// submit) from a call that dropped its arguments.
func (e *eval) toolsTakingArgs() []bool {
	out := grow(e.takesArgs, len(e.tools))
	for i := range e.calls {
		if v := e.calls[i].args; v.Kind == pystr.KindDict && len(v.Dict) > 0 {
			out[e.toolOf[i]] = true
		}
	}
	e.takesArgs = out
	return out
}

// grow returns s with length n, all zero, reusing its memory.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// suspicious is check (d) for one call.
func (e *eval) suspicious(c *callRef) bool {
	if e.ref {
		if found, ok := suspiciousTokens(c.args); found || ok {
			return found
		}
		// str(arguments).lower(), in two buffers kept from call to call
		e.scratch = c.args.AppendStr(e.scratch[:0])
		e.lowered = pystr.AppendLower(e.lowered[:0], bytesString(e.scratch))
		for _, w := range suspiciousWords {
			if bytes.Contains(e.lowered, []byte(w)) {
				return true
			}
		}
		return false
	}
	return hasErrorLikeValue(c.args)
}

// suspiciousTokens is RS-1's check (one of suspiciousWords in str(v).lower()) without writing
// str(v), for arguments whose strings (keys included) are all printable ASCII: str() then
// adds only quotes, backslashes, separators and brackets, none of them letters, around the
// strings and the None, True, False and number tokens, so a word lies within one token. It
// returns ok false, unless it found a word, when some string holds other characters: repr's
// escapes (\n, \x0e) and lower-casing beyond ASCII can make letters.
func suspiciousTokens(v pystr.Value) (found, ok bool) {
	switch v.Kind {
	case pystr.KindNone:
		return true, true // "none"
	case pystr.KindBool, pystr.KindInt, pystr.KindFloat:
		return false, true // true, false, digits, inf, nan, e
	case pystr.KindStr:
		return suspiciousText(v.Text)
	case pystr.KindList:
		ok = true
		for i := range v.List {
			f, o := suspiciousTokens(v.List[i])
			if f {
				return true, true
			}
			ok = ok && o
		}
		return false, ok
	case pystr.KindDict:
		ok = true
		for i := range v.Dict {
			fk, ok1 := suspiciousText(v.Dict[i].Key)
			fv, ok2 := suspiciousTokens(v.Dict[i].Value)
			if fk || fv {
				return true, true
			}
			ok = ok && ok1 && ok2
		}
		return false, ok
	}
	return false, false
}

// suspiciousText is suspiciousTokens for one string.
func suspiciousText(s string) (found, ok bool) {
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] > '~' {
			return false, false
		}
	}
	for _, w := range suspiciousWords {
		for i := 0; i+len(w) <= len(s); i++ {
			if lowerIs(s[i:i+len(w)], w) {
				return true, true
			}
		}
	}
	return false, true
}

// hasErrorLikeValue reports whether some string value in v, at any depth, is error-like.
// Keys are names, not values, and never count.
func hasErrorLikeValue(v pystr.Value) bool {
	switch v.Kind {
	case pystr.KindStr:
		return errorLikeText(v.Text)
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

// errorLikeText reports whether text, stripped and lower-cased as Python does, is one of
// errorLike or begins "error:", without a copy. Those are ASCII, and no character outside
// ASCII lower-cases to one of their letters but the Kelvin sign (to k, which none has) and
// İ (to i and a combining dot): so only ASCII text can match, and its lower-casing is A–Z.
func errorLikeText(text string) bool {
	t := strip(text)
	if len(t) >= 6 && lowerIs(t[:6], "error:") {
		return true
	}
	if len(t) > len("undefined") {
		return false
	}
	for _, w := range errorLike {
		if lowerIs(t, w) {
			return true
		}
	}
	return false
}

// lowerIs reports whether s lower-cased is w, for w lower-case ASCII: s must be ASCII.
func lowerIs(s, w string) bool {
	if len(s) != len(w) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c-'A' < 26 {
			c += 'a' - 'A'
		}
		if c != w[i] {
			return false
		}
	}
	return true
}

// busiestTool returns the tool with the most calls (the first to appear among equals) and,
// when it has more than atLeast calls, the messages of its calls.
func (e *eval) busiestTool(atLeast int) (string, []int) {
	counts := grow(e.toolCounts, len(e.tools))
	e.toolCounts = counts
	for _, t := range e.toolOf {
		counts[t]++
	}
	best := -1
	for t, n := range counts { // tools are numbered in order of appearance
		if best < 0 || n > counts[best] {
			best = t
		}
	}
	if best < 0 || counts[best] <= atLeast {
		return "", nil
	}
	msgs := make([]int, 0, counts[best])
	for i, t := range e.toolOf {
		if int(t) == best {
			msgs = append(msgs, e.calls[i].msg)
		}
	}
	return e.tools[best], msgs
}

// noLaterSuccess reports whether failed result k answers no call, or no later call of the
// same tool succeeded (unrecoveredFailures finds it).
func (e *eval) noLaterSuccess(k int) bool { return e.noLaterOK[k] }

// statusFailures counts the results failed by a non-zero exit status in their text.
func (e *eval) statusFailures() int {
	n := 0
	for _, b := range e.byStatus {
		if b {
			n++
		}
	}
	return n
}

// toolFailures is the failure count of one tool's paired results.
type toolFailures struct {
	tool            string
	results, failed int
	byStatus        int   // failures read from an exit status in the result text
	failedAt        []int // messages of the failed results the run never recovered from
}

// unrecoveredFailures returns, per result, whether it is a failure the run never recovered
// from (default profile): one that answers no call, or after which no call of the same tool
// succeeded, or whose call was sent again, identical, to fail with the same result. Corrected
// retries that fail before a success are recovered, however many.
func (e *eval) unrecoveredFailures() []bool {
	out := grow(e.unrecovered, len(e.results))
	e.unrecovered = out
	e.noLaterOK = grow(e.noLaterOK, len(e.results))
	lastOK := grow(e.toolSlot, len(e.tools)) // 1 + index of the tool's last success, 0 if none
	e.toolSlot = lastOK
	for k := len(e.results) - 1; k >= 0; k-- {
		c := e.pairs.callOf[k]
		switch {
		case !e.failed(k):
			if c >= 0 && lastOK[e.toolOf[c]] == 0 {
				lastOK[e.toolOf[c]] = k + 1
			}
		case c < 0 || lastOK[e.toolOf[c]] == 0:
			e.noLaterOK[k] = true
			out[k] = !e.answers()[k]
		case e.answers()[k]: // the tool's answer, not a failure
		default:
			e.groups()
			n := e.nextSame[c]
			out[k] = n >= 0 && e.pairs.resultOf[n] >= 0 && e.failed(int(e.pairs.resultOf[n])) && e.sameResult(int(c), int(n))
		}
	}
	return out
}

// failingTools returns the tools with at least three paired results of which more than half
// are failures never recovered from (unrecovered, per result), in order of their first result.
func (e *eval) failingTools(unrecovered []bool) []toolFailures {
	results, failed := grow(e.toolCounts, len(e.tools)), grow(e.toolFailed, len(e.tools))
	e.toolCounts, e.toolFailed = results, failed
	nu := grow(e.toolSlot, len(e.tools)) // unrecovered failures by tool
	e.toolSlot = nu
	any := false
	for k := range e.results {
		if c := e.pairs.callOf[k]; c >= 0 {
			t := e.toolOf[c]
			results[t]++
			if e.failed(k) && !e.answers()[k] {
				failed[t]++
			}
			if unrecovered[k] {
				nu[t]++
				any = true
			}
		}
	}
	if !any {
		return nil
	}
	// One pass in result order: a tool's entry is made at its first result, so the tools
	// come in order of their first result.
	var out []toolFailures
	slot := grow(e.toolEntry, len(e.tools)) // 1 + index of the tool's entry in out, 0 if none
	e.toolEntry = slot
	for k := range e.results {
		c := e.pairs.callOf[k]
		if c < 0 {
			continue
		}
		t := e.toolOf[c]
		if results[t] < 3 || 2*nu[t] <= results[t] {
			continue
		}
		if slot[t] == 0 {
			out = append(out, toolFailures{tool: e.tools[t], results: results[t], failed: failed[t]})
			slot[t] = len(out)
		}
		if e.byStatus[k] {
			out[slot[t]-1].byStatus++
		}
		if unrecovered[k] {
			o := &out[slot[t]-1]
			o.failedAt = append(o.failedAt, e.results[k].msg)
		}
	}
	return out
}
