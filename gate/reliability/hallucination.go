package reliability

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/gate/pystr"
)

// claimPhrases are RS-1's words for claiming tool use. The reference looks for them as
// substrings of the lower-cased text (so "recalled" contains "called"); the default matches
// whole words and phrases (see toolUseClaim).
var claimPhrases = []string{"called", "using the tool", "tool call", "executed", "ran the", "invoked"}

// hallucination is RS-1's hallucination signal: calls that never got a result, results that
// answer no call (weighted 1.5) and assistant messages that claim tool use without making a
// call, averaged over the checks that apply.
//
// Reference: calls and results are compared as sets of ids, so a repeated id answered once
// counts as answered and a result that arrives before its call counts as paired.
// Default: the pairing of pair.go, so each call and each result is counted on its own, and a
// call of a terminal tool the run ended on needs no result (terminal.go); a
// claim of tool use needs "I" or "we" before called, executed, ran the or invoked (claims.go:
// naming is not claiming) and, after calls, counts only when it names a tool that none of the
// tools called before it is ("I ran the tests" reports work the run did; "I called the
// booking tool" after `get_order` alone does not: see namesUncalledTool); a
// first-person claim of an external action ("I visited", "we contacted", external.go) is a
// claim of tool use when no call of a tool that could do it came before it; and two findings
// make the run at least WARN (e.floor): a claim of tool use before any call was made (of an
// external action: before any fitting call), and a success claimed after a failed call with
// no success since (falseSuccess), which also counts as a check scoring 1.
func (e *eval) hallucination() (float64, []Evidence) {
	if len(e.t.Messages) == 0 {
		return 0, nil
	}
	var h meanOfChecks
	if e.ref {
		e.idSetChecks(&h)
	} else {
		e.pairingChecks(&h)
	}
	if len(e.assistant) > 0 {
		e.toolUseClaims(&h)
	}
	if !e.ref {
		// A success claimed after a failure is a check of its own, counted only when it
		// fires: a 1 added to a mean of scores in [0, 1] never lowers it.
		if ev := e.falseSuccess(); len(ev) > 0 {
			h.m++
			h.s++
			e.floor = true
			for i := range ev {
				ev[i].Floor = true
			}
			h.rk.add(1, itemised(SignalHallucination, ev, "assistant messages claim success after a failure")...)
		}
	}
	if h.m == 0 {
		return 0, nil
	}
	return clamp(h.s / float64(h.m)), h.rk.evidence()
}

// meanOfChecks is the hallucination signal as its checks add to it: the sum of their scores,
// how many applied, and the evidence filed under each score.
type meanOfChecks struct {
	s  float64
	m  int
	rk ranked
}

// idSetChecks are the reference profile's checks of the ids: calls whose id no result has, and
// results whose id no call has (RS-1's sets of ids, see idSets).
func (e *eval) idSetChecks(h *meanOfChecks) {
	calls, results := e.idSets()
	if len(calls) > 0 {
		h.m++
		if missing := difference(calls, results); len(missing) > 0 {
			f := float64(len(missing)) / float64(len(calls))
			h.s += f
			h.rk.add(f, e.unansweredEvidence(e.firstCallWithID(missing))...)
		}
	}
	if len(results) > 0 {
		h.m++
		if extra := difference(results, calls); len(extra) > 0 {
			f := float64(float64(len(extra)) / float64(len(results)) * 1.5)
			h.s += f
			h.rk.add(f, e.orphanEvidence(e.firstResultWithID(extra))...)
		}
	}
}

// pairingChecks are the default profile's checks of the pairing of calls with results: calls
// left unanswered where the run ends, and results that answer no call (pair.go).
func (e *eval) pairingChecks(h *meanOfChecks) {
	nc, nr := 0, 0
	for i := range e.calls {
		if e.calls[i].call.HasID {
			nc++
		}
	}
	for i := range e.results {
		if e.results[i].res.HasID {
			nr++
		}
	}
	if nc > 0 {
		h.m++
		if u := e.endingUnanswered(e.pairs.unanswered(e.calls)); len(u) > 0 {
			f := float64(len(u)) / float64(nc)
			h.s += f
			h.rk.add(f, e.unansweredEvidence(u)...)
		}
	}
	if nr > 0 {
		h.m++
		if o := e.pairs.orphans(e.results); len(o) > 0 {
			f := float64(float64(len(o)) / float64(nr) * 1.5)
			h.s += f
			h.rk.add(f, e.orphanEvidence(o)...)
		}
	}
}

// toolUseClaims is the check of what the assistant messages claim: tool use with no call (or,
// default profile, before any call, or naming a tool not called) and external actions no
// fitting call backs. A claim that makes the run at least WARN sets e.floor.
func (e *eval) toolUseClaims(h *meanOfChecks) {
	h.m++
	var claims []Evidence
	firstCall := len(e.t.Messages) // message of the first call
	if len(e.calls) > 0 {
		firstCall = e.calls[0].msg
	}
	recent := &e.recent // default profile: the tools called before message i
	recent.next, recent.tools = 0, recent.tools[:0]
	for k, i := range e.assistant {
		msg := &e.t.Messages[i]
		if !e.ref {
			recent.advance(e, i)
		}
		if len(msg.Calls) > 0 {
			continue
		}
		// after calls, "I ran the tests" reports work the run did: a finding only when
		// it names a tool that was not called
		if phrase := e.claim(k); phrase != "" && (e.ref || i < firstCall || recent.namesUncalledTool(e, msg.Content)) {
			text, floor := fmt.Sprintf("assistant message %d claims tool use (%q) but makes no tool call", i, phrase), false
			switch {
			case e.ref:
			case i < firstCall:
				text = fmt.Sprintf("assistant message %d claims tool use (%q) but no tool call was made before it", i, phrase)
				e.floor, floor = true, true
			default:
				text = fmt.Sprintf("assistant message %d claims tool use (%q) but names no tool called before it", i, phrase)
			}
			claims = append(claims, Evidence{Signal: SignalHallucination, Text: text, Messages: []int{i}, Floor: floor})
			continue
		}
		if e.ref {
			continue
		}
		phrase, class := externalClaim(e.wordsOf(k).words)
		if phrase == "" {
			phrase, class = openingClaim(msg.Content)
		}
		if phrase != "" && !e.fittingCallBefore(class, i) {
			e.floor = true
			claims = append(claims, Evidence{Signal: SignalHallucination,
				Text: fmt.Sprintf("assistant message %d claims an external action (%q) but %s was called before it",
					i, phrase, class.needs()),
				Messages: []int{i}, Floor: true})
		}
	}
	if len(claims) > 0 {
		h.s += 0.5
		h.rk.add(0.5, itemised(SignalHallucination, claims, "assistant messages claim tool use without a call")...)
	}
}

// claim returns the claim phrase that assistant message k contains, or "".
func (e *eval) claim(k int) string {
	if e.ref {
		e.scratch = pystr.AppendLower(e.scratch[:0], e.text(k))
		for _, p := range claimPhrases {
			if bytes.Contains(e.scratch, []byte(p)) {
				return p
			}
		}
		return ""
	}
	return toolUseClaim(e.wordsOf(k).words)
}

// idSets returns RS-1's sets: the distinct non-null ids of calls and of results, sorted.
func (e *eval) idSets() (calls, results []string) {
	calls, results = e.callIDs[:0], e.resultIDs[:0]
	for i := range e.calls {
		if c := e.calls[i].call; c.HasID {
			calls = append(calls, c.ID)
		}
	}
	for i := range e.results {
		if r := e.results[i].res; r.HasID {
			results = append(results, r.CallID)
		}
	}
	slices.Sort(calls)
	slices.Sort(results)
	e.callIDs, e.resultIDs = calls, results // their memory, for the next trace
	return slices.Compact(calls), slices.Compact(results)
}

// difference returns the members of sorted set a that are not in sorted set b.
func difference(a, b []string) []string {
	var out []string
	j := 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j == len(b) || b[j] != x {
			out = append(out, x)
		}
	}
	return out
}

// firstCallWithID returns, in trace order, the first call of each of the ids (a sorted set).
func (e *eval) firstCallWithID(ids []string) []int {
	return firstWithID(ids, len(e.calls), func(i int) (string, bool) {
		c := e.calls[i].call
		return c.ID, c.HasID
	})
}

// firstResultWithID returns, in trace order, the first result of each of the ids (a sorted
// set).
func (e *eval) firstResultWithID(ids []string) []int {
	return firstWithID(ids, len(e.results), func(i int) (string, bool) {
		r := e.results[i].res
		return r.CallID, r.HasID
	})
}

// firstWithID returns, in order, the first of items 0…n−1 whose id (given by id) is in the
// sorted set ids, one per id: one pass over the items with a binary search each, O(n log n).
func firstWithID(ids []string, n int, id func(int) (string, bool)) []int {
	seen := make([]bool, len(ids))
	var out []int
	for i := 0; i < n && len(out) < len(ids); i++ {
		s, ok := id(i)
		if !ok {
			continue
		}
		if j, found := slices.BinarySearch(ids, s); found && !seen[j] {
			seen[j] = true
			out = append(out, i)
		}
	}
	return out
}

func (e *eval) unansweredEvidence(calls []int) []Evidence {
	items := make([]Evidence, 0, len(calls))
	for _, i := range calls {
		c := e.calls[i]
		items = append(items, Evidence{Signal: SignalHallucination,
			Text:     fmt.Sprintf("call `%s` (id %s) at message %d never got a result", c.call.Tool, c.call.ID, c.msg),
			Messages: []int{c.msg}})
	}
	return itemised(SignalHallucination, items, "calls never got a result")
}

func (e *eval) orphanEvidence(results []int) []Evidence {
	items := make([]Evidence, 0, len(results))
	for _, k := range results {
		r := e.results[k]
		what := "answers no earlier call"
		if e.ref {
			what = "answers no call"
		}
		items = append(items, Evidence{Signal: SignalHallucination,
			Text:     fmt.Sprintf("result for id %s at message %d %s", strings.TrimSpace(r.res.CallID), r.msg, what),
			Messages: []int{r.msg}})
	}
	return itemised(SignalHallucination, items, "results answer no call")
}

// maxRecentTools bounds the tools a claim made after calls is compared with (the last ones
// called), so that a hostile trace of many tools and many claims cannot make it quadratic.
const maxRecentTools = 32

// recentTools follows the calls in trace order, keeping the distinct tools most recently
// called (at most maxRecentTools, latest last).
type recentTools struct {
	next  int     // the next call of e.calls to take in
	tools []int32 // tool ids
}

// advance takes in the calls made before message i.
func (r *recentTools) advance(e *eval, i int) {
	for ; r.next < len(e.calls) && e.calls[r.next].msg < i; r.next++ {
		t := e.toolOf[r.next]
		if j := slices.Index(r.tools, t); j >= 0 {
			r.tools = slices.Delete(r.tools, j, j+1)
		} else if len(r.tools) == maxRecentTools {
			r.tools = slices.Delete(r.tools, 0, 1)
		}
		r.tools = append(r.tools, t)
	}
}

// namesUncalledTool reports whether text names a tool ("the booking tool", "the refund API":
// a word of three letters or more, not a determiner or a toolStopWords word, before tool, tools,
// api or function) that shares a stem with no word of the tools called before it (see related).
func (r *recentTools) namesUncalledTool(e *eval, text string) bool {
	words := textWords(text)
	for j := 1; j < len(words); j++ {
		switch words[j] {
		case "tool", "tools", "api", "function":
		default:
			continue
		}
		name := words[j-1]
		if len(name) < 3 || slices.Contains(toolStopWords, name) || slices.Contains(determiners, name) {
			continue
		}
		called := false
		for _, t := range r.tools {
			if called = e.stemsOf(t).related(name, &e.stemWork); called {
				break
			}
		}
		if !called {
			return true
		}
	}
	return false
}

// determiners stand before a tool's name without naming it: "the same tool", "two tool calls".
var determiners = []string{"this", "that", "these", "those", "my", "our", "your", "its", "their",
	"one", "two", "three", "same", "each", "every", "any", "some", "all", "right", "correct",
	"appropriate", "available", "relevant", "necessary", "other", "another", "first", "next", "last"}
