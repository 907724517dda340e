// Package reliability is the RS-1 Reliability Sentinel evaluator (docs/design.md#evaluators-and-profiles): per trace, four
// risk scores in [0, 1] (hallucination, loop, tool_misuse, cost), their weighted overall score
// and a PASS/WARN/FAIL verdict, each non-zero score explained by evidence that names tools and
// message indices.
//
// The reference profile reproduces RS-1 1.0.0 to 1e-9, Python semantics included (str.lower,
// str.strip, str(dict), sets of code points). The default profile keeps RS-1's weights,
// thresholds and verdict rules but makes the detectors sound; every difference is listed in
// docs/reference.md and shown by a test in this package. The signals are the rows of one table
// (SignalTable, signals.go: name, weight, threshold, what a critical score does); each rule
// lives in its own file (hallucination.go, loop.go, misuse.go, cost.go); the pairing of results with calls is in
// pair.go; the default profile's readings of text are in claims.go, external.go (claims of
// external actions), exitstatus.go (failures written as text) and crash.go (a run that ends
// in a traceback).
package reliability

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/pystr"
	"github.com/agentgate/agentgate/gate/trace"
	"github.com/agentgate/agentgate/gate/verdict"
)

// Verdict thresholds of RS-1's policy on the overall score, shared by both profiles; each
// signal's own is its row of SignalTable.
const (
	failOverall = 0.7
	warnOverall = 0.4
)

// noMessages is the default profile's evidence for a trace without messages.
const noMessages = "the trace has no messages: nothing was evaluated"

// Evaluate scores one trace under profile p (profile.Reference for RS-1 1.0.0's exact numbers,
// anything else for the default profile) and explains every non-zero signal. It never panics
// and reads t without changing it.
//
// A trace with no messages scores 0 on every signal under both profiles; the reference calls
// it PASS as RS-1 does, the default calls it WARN because nothing was evaluated.
//
// The result's Detail holds RS-1's details sentence for each signal (Notes; under the default
// profile it is followed by that signal's evidence), its Reasoning and its report metadata.
func Evaluate(t *trace.Trace, p profile.Profile) Result {
	var ev Evaluator
	return ev.evaluate(t, p, false)
}

// Evaluator evaluates traces one after another, as Evaluate does, reusing its working memory
// from trace to trace. The zero value is ready to use. An Evaluator is not safe for concurrent
// use: give each goroutine its own.
type Evaluator struct {
	// Profile is the profile to score under; "" means the default.
	Profile profile.Profile
	// Brief leaves out what only the RS-1 drop-in report shows (Result.Detail is nil), which
	// the gate report does not keep.
	Brief bool
	// TokenBudget is the tokens a run may spend before its cost reads 1, the budget B (see
	// cost; the reference profile's thresholds are B/10, B/2 and B); 0 or less means
	// DefaultTokenBudget, RS-1's. The gate refuses any other budget under the reference profile.
	TokenBudget int64

	e    eval
	slab []SuiteCost // see suiteCost
}

// Evaluate scores one trace as the package's Evaluate does (with no Detail when ev.Brief).
// The result shares no memory with t or with other results.
func (ev *Evaluator) Evaluate(t *trace.Trace) Result {
	return ev.evaluate(t, ev.Profile, ev.Brief)
}

func (ev *Evaluator) evaluate(t *trace.Trace, p profile.Profile, brief bool) Result {
	if t == nil {
		t = &trace.Trace{}
	}
	e := &ev.e
	e.reset(t, p == profile.Reference)
	e.budget = Budget(ev.TokenBudget)
	var scores Signals
	var evs [NumSignals][]Evidence
	for i := range SignalTable {
		scores[i], evs[i] = SignalTable[i].rule(e)
	}

	r := Result{
		ID:       t.ID,
		File:     t.File,
		Line:     t.Line,
		Signals:  scores,
		Evidence: []Evidence{},
		Run:      trace.RunOf(t.Outcome, t.Usage),
	}
	r.Messages, r.ToolCalls = counts(t)
	r.Attempt = attemptOf(t)
	var d *Detail
	if !brief {
		d = &Detail{Meta: Metadata{
			TotalMessages:  len(t.Messages),
			TotalToolCalls: len(e.calls),
			TotalTokens:    t.Usage.Total,
		}}
		r.Detail = d
	}
	r.Score = overall(scores)
	r.Verdict = policy(r.Score, scores)
	if e.costTokens > 0 {
		r.SuiteCost = ev.suiteCost(e.costTokens)
	}
	empty := !e.ref && len(t.Messages) == 0
	if empty && t.Crash == "" { // a crash recorded by the harness is the finding instead (crash)
		r.Verdict = verdict.Worst(r.Verdict, verdict.Warn)
		r.Evidence = append(r.Evidence, Evidence{Signal: SignalTrace, Text: noMessages, Messages: []int{}})
	}
	if e.floor || e.misuseFloor {
		r.Verdict = verdict.Worst(r.Verdict, verdict.Warn)
	}
	crashed := false
	if !e.ref {
		if ev, ok := e.crash(); ok {
			crashed = true
			r.Verdict = verdict.Worst(r.Verdict, verdict.Warn)
			r.Evidence = append(r.Evidence, ev)
		}
	}
	for i := range evs {
		r.Evidence = append(r.Evidence, evs[i]...)
	}
	if !brief {
		d.Notes = notes(scores, &evs, t.Usage.Total, e.ref)
		d.Reasoning = reasoning(r.Verdict, r.Score, scores, empty, e.floor, e.misuseFloor, crashed)
	}
	return r
}

// attemptOf is the task, trial and agent of t, and its trace context when it was read from
// OTLP spans (Phoenix's included); nil when t has none of them.
func attemptOf(t *trace.Trace) *Attempt {
	var a *Attempt
	if t.Suite != "" || t.Task != "" || t.HasTrial || t.Agent != "" {
		a = &Attempt{Suite: t.Suite, Task: t.Task, Agent: t.Agent, Crashed: t.Crash != "" && !t.HasAgentTurn()}
		if t.HasTrial {
			trial := t.Trial
			a.Trial = &trial
		}
	}
	if t.Shape == trace.ShapeOTLP || t.Shape == trace.ShapePhoenix { // Phoenix's spans are OTLP's, ids and all
		if a == nil {
			a = &Attempt{}
		}
		a.OTLP = &SpanContext{TraceID: t.ID, SpanID: t.SpanID}
	}
	return a
}

// notes are RS-1's details sentence for each signal's score in a run of tokens tokens, each
// followed under the default profile by the signal's evidence.
func notes(scores Signals, evs *[NumSignals][]Evidence, tokens int64, ref bool) [NumSignals]string {
	var out [NumSignals]string
	for i, ev := range evs {
		out[i] = SignalTable[i].detailsOf(scores[i], tokens)
		if !ref && len(ev) > 0 {
			texts := make([]string, len(ev))
			for j := range ev {
				texts[j] = ev[j].Text
			}
			out[i] += ": " + strings.Join(texts, "; ")
		}
	}
	return out
}

// overall is RS-1's linear aggregation: the weighted sum divided by the sum of the weights,
// clamped to [0, 1], with the additions in Python's order.
func overall(scores Signals) float64 {
	sum, total := 0.0, 0.0
	for i, s := range scores {
		w := SignalTable[i].Weight
		sum += float64(s * w) // the conversion forbids a fused multiply-add
		total += w
	}
	if total <= 0 {
		return 0
	}
	return clamp(sum / total)
}

// critical lists the signals at or above their critical thresholds (SignalTable's Limit) and
// whether one of them forces FAIL (a row that Fails: hallucination, loop) or WARN (tool_misuse,
// cost).
func critical(scores Signals) (names []string, fail, warn bool) {
	for i, s := range scores {
		if r := &SignalTable[i]; s >= r.Limit {
			names = append(names, r.Name)
			if r.Fails {
				fail = true
			} else {
				warn = true
			}
		}
	}
	return names, fail, warn
}

// policy is RS-1's verdict rule: FAIL on a critical hallucination or loop score or an overall
// score of 0.7; else WARN on a critical tool_misuse or cost score or an overall score of 0.4.
func policy(score float64, scores Signals) verdict.Verdict {
	_, fail, warn := critical(scores)
	switch {
	case fail || score >= failOverall:
		return verdict.Fail
	case warn || score >= warnOverall:
		return verdict.Warn
	}
	return verdict.Pass
}

// level is RS-1's word for a score in the reasoning's signal breakdown.
func level(score float64) string {
	switch {
	case score >= 0.8:
		return "critical"
	case score >= 0.6:
		return "high"
	case score >= 0.4:
		return "moderate"
	case score >= 0.2:
		return "low"
	}
	return "minimal"
}

// reasoning is RS-1's explanation of the verdict; the default profile adds a sentence when the
// trace had no messages, one when an unsupported claim makes the run at least WARN, one when
// unrecovered failures do, and one when the run ends in a crash.
func reasoning(v verdict.Verdict, score float64, scores Signals, empty, claim, failures, crashed bool) string {
	b := make([]byte, 0, 320)
	b = append(b, "Overall reliability score: "...)
	b = strconv.AppendFloat(b, score, 'f', 2, 64) // Python's {:.2f}: both round the exact binary value
	b = append(b, " (0.0=good, 1.0=bad)."...)
	if names, _, _ := critical(scores); len(names) > 0 {
		b = append(b, " Critical issues detected: "...)
		b = append(b, strings.Join(names, ", ")...)
		b = append(b, '.')
	}
	b = append(b, " Signal breakdown: "...)
	for i, s := range scores {
		if i > 0 {
			b = append(b, "; "...)
		}
		b = append(b, SignalTable[i].Name...)
		b = append(b, ": "...)
		b = strconv.AppendFloat(b, s, 'f', 2, 64)
		b = append(b, " ("...)
		b = append(b, level(s)...)
		b = append(b, ')')
	}
	b = append(b, '.')
	if empty {
		b = append(b, " The trace has no messages: nothing was evaluated."...)
	}
	if claim {
		b = append(b, " An assistant message claims tool use or success that no tool result supports (at least WARN)."...)
	}
	if failures {
		b = append(b, " Tool failures never recovered make up 40% or more of the calls (at least WARN)."...)
	}
	if crashed {
		b = append(b, " The run ends in a traceback or an unhandled error (at least WARN)."...)
	}
	switch v {
	case verdict.Fail:
		b = append(b, " This execution shows significant reliability issues and should not be trusted."...)
	case verdict.Warn:
		b = append(b, " This execution shows some concerning patterns that warrant review."...)
	default:
		b = append(b, " This execution appears reliable with no major concerns."...)
	}
	return string(b)
}

// clamp limits a score to [0, 1] as RS-1's min(1.0, max(0.0, x)) does.
func clamp(x float64) float64 {
	if x > 1 {
		return 1
	}
	if x > 0 {
		return x
	}
	return 0
}

// callRef is one tool call with its place in the trace and its arguments decoded as Python's
// json.loads would (raw text that is not JSON is the Python str of that text).
type callRef struct {
	msg  int
	call *trace.Call
	args pystr.Value
	// noArgs is true when the record gave no arguments at all (absent or null in RS-1 and
	// Anthropic input, which the reader folds together; RS-1 reads an absent value as {}).
	noArgs bool
	// plain is true when the arguments are UTF-8 text (see plainArgs)
	plain bool
	// default profile only: pyLiteral is true when the arguments were not JSON but a Python
	// dict literal (str(dict), as some harnesses write them), read into args; notJSON is true
	// when they were neither, nor empty
	pyLiteral, notJSON bool
}

// resultRef is one tool result with its place in the trace.
type resultRef struct {
	msg int
	res *trace.Result
}

// eval holds what several signals read: flattened calls and results, and their pairing.
type eval struct {
	t           *trace.Trace
	ref         bool
	budget      int64 // the token budget of the cost signal (Evaluator.TokenBudget)
	floor       bool  // the default profile found a claim that makes the run at least WARN
	costTokens  int64 // default profile: the tokens the cost signal counted, when usage was recorded
	calls       []callRef
	results     []resultRef
	assistant   []int // indices of assistant messages
	pairs       pairing
	pairScratch pairScratch
	resFailed   []bool // per result: whether it failed (see failed)
	byStatus    []bool // default profile, per result: failed by the exit status in its text
	scratch     []byte
	lowered     []byte    // reference profile: the lower-cased copy of scratch, see suspicious
	texts       []msgText // per assistant message, see texts.go
	similar     []int
	similarMsgs []int    // the messages of the similar pairs, see similarEvidence
	callIDs     []string // reference profile: RS-1's id sets, see idSets
	resultIDs   []string
	members     []pystr.Member // of the calls' arguments, see args.go

	// groups of identical calls, see loop.go
	keys        []byte
	keyEnds     []int
	long        longStrings // the keys' long strings, numbered (see appendKey)
	keyHashes   []keyHash
	candidates  []int
	callGroups  []callGroup
	groupCalls  []int
	grouped     bool    // callGroups is computed for this trace
	nextSame    []int32 // per call: the next identical call, or -1
	okLater     []bool  // per call: a later identical call succeeded, see succeedsLater
	okLaterDone bool
	moved       []bool  // per call: a later identical call got a different answer, see movesOn
	nextAnswer  []int32 // per call: the next identical call that got a result, or -1
	movedDone   bool
	turnKeys    []byte  // the arguments of two calls compared by turnsInARow
	lastUser    []int32 // per message: the latest user message at or before it, or -1, see askedAgain
	lastUserOK  bool

	// default profile: the message of the first call of a tool fitting each externalClass
	// (bit b), -1 for none, see fittingCallBefore
	firstFit [4]int
	fitDone  bool

	// tools: the distinct tool names in order of first call, the tool of each call, and
	// per-tool scratch of the signals
	tools                  []string
	toolOf                 []int32
	toolIndex              map[string]int32 // for traces with many tools
	takesArgs              []bool
	toolCounts, toolFailed []int
	toolSlot               []int
	unrecovered            []bool // per result, see unrecoveredFailures
	noLaterOK              []bool // per result: failed, and no later call of its tool succeeded
	toolEntry              []int
	answer                 []bool // per result: a failed result read as the tool's answer, see answers
	answersDone            bool
	answerTaint            []int       // per tool, see answers
	answerUnused           []bool      // per result, see answers
	answerTools            []int32     // see answers
	answerReads            int         // next messages read by answers (the tests count them)
	misuseFloor            bool        // unrecovered failures make up 40% of the calls, see misuse
	stems                  []stems     // per tool id, its name's words indexed, see stemsOf
	recent                 recentTools // see hallucination
	stemWork               int         // look-ups in stems so far (issue 34's tests count them)

	// misuse's lists
	factors         []float64
	items, badItems []toolItem
	argText         []byte // unescaped strings of the calls' arguments, see args.go
}

// newEval returns the evaluation state of trace t.
func newEval(t *trace.Trace, ref bool) *eval {
	e := &eval{budget: DefaultTokenBudget}
	e.reset(t, ref)
	return e
}

// reset prepares e for trace t, keeping the memory of the trace before.
func (e *eval) reset(t *trace.Trace, ref bool) {
	e.t, e.ref, e.floor, e.costTokens = t, ref, false, 0
	clear(e.calls) // drop the pointers into the trace before
	clear(e.results)
	clear(e.callIDs)
	clear(e.resultIDs)
	clear(e.members)
	e.members, e.argText = e.members[:0], e.argText[:0]
	clear(e.tools)
	e.tools, e.toolOf = e.tools[:0], e.toolOf[:0]
	for i := range e.stems { // kept with their memory, for the tool ids of the next trace
		e.stems[i].built = false
	}
	e.stemWork = 0
	clear(e.toolIndex)
	e.calls, e.results, e.assistant = e.calls[:0], e.results[:0], e.assistant[:0]
	e.presize(t)
	for i := range t.Messages {
		m := &t.Messages[i]
		if m.Role == "assistant" {
			e.assistant = append(e.assistant, i)
		}
		for j := range m.Calls {
			e.calls = append(e.calls, e.decodeCall(i, &m.Calls[j]))
			e.toolOf = append(e.toolOf, e.toolID(m.Calls[j].Tool))
		}
		for j := range m.Results {
			e.results = append(e.results, resultRef{msg: i, res: &m.Results[j]})
		}
	}
	e.pairs = pair(e.calls, e.results, e.pairs, &e.pairScratch)
	e.resetTexts(len(e.assistant))
	e.grouped, e.okLaterDone, e.movedDone, e.fitDone, e.lastUserOK = false, false, false, false, false
	e.answersDone, e.misuseFloor, e.answerReads = false, false, 0
	e.resFailed, e.byStatus = grow(e.resFailed, len(e.results)), grow(e.byStatus, len(e.results))
	for k := range e.results {
		r := e.results[k].res
		switch {
		case !r.Success:
			e.resFailed[k] = true
		case !ref && exitStatus(r.Content) != "":
			e.resFailed[k], e.byStatus[k] = true, true
		}
	}
}

// presize gives e's per-call, per-result and per-message lists the room trace t needs, so that
// a large trace fills them in place rather than growing them by doubling, which would leave
// the copies before as garbage (issue 26: a 120 MB trace of 300,000 messages).
func (e *eval) presize(t *trace.Trace) {
	calls, results, assistant := 0, 0, 0
	for i := range t.Messages {
		m := &t.Messages[i]
		calls, results = calls+len(m.Calls), results+len(m.Results)
		if m.Role == "assistant" {
			assistant++
		}
	}
	e.calls = slices.Grow(e.calls, calls)
	e.toolOf = slices.Grow(e.toolOf, calls)
	e.results = slices.Grow(e.results, results)
	e.assistant = slices.Grow(e.assistant, assistant)
}

// toolID numbers tool names in order of their first call: by a linear search while there are
// few, through a map beyond.
func (e *eval) toolID(name string) int32 {
	if len(e.tools) < 16 {
		for i, t := range e.tools {
			if t == name {
				return int32(i)
			}
		}
		e.tools = append(e.tools, name)
		return int32(len(e.tools) - 1)
	}
	if e.toolIndex == nil {
		e.toolIndex = make(map[string]int32)
	}
	if len(e.toolIndex) == 0 {
		for i, t := range e.tools {
			e.toolIndex[t] = int32(i)
		}
	}
	if i, ok := e.toolIndex[name]; ok {
		return i
	}
	e.tools = append(e.tools, name)
	e.toolIndex[name] = int32(len(e.tools) - 1)
	return int32(len(e.tools) - 1)
}

// failed reports whether result k failed: its format says so, or (default profile) its text
// reports a non-zero exit status (exitstatus.go).
func (e *eval) failed(k int) bool { return e.resFailed[k] }

// resultTool names the tool of result k through the pairing, or "" for an orphan.
func (e *eval) resultTool(k int) string {
	if c := e.pairs.callOf[k]; c >= 0 {
		return e.calls[c].call.Tool
	}
	return ""
}

// Decisive returns the finding that decided r's verdict, which is what a report should name
// first: for a FAIL or WARN that RS-1's policy gives, the signal past its critical threshold
// (the highest of them; the first of equals in Signals order) or, when the overall score
// decided, the highest signal; for a verdict the default profile raised to WARN (a crash, no
// messages, a claim no call supports), that finding; for a PASS, the highest signal. ev is the
// evidence for it (nil when there is none) and score the signal's score (0 for a "trace"
// finding).
func Decisive(r *Result) (signal string, score float64, ev *Evidence) {
	scores := r.Signals
	// best is the highest signal (the first of equals) among those that fails selects and,
	// when critical, at their limit; -1 for none.
	best := func(critical bool, fails func(*SignalRule) bool) int {
		k := -1
		for i := range SignalTable {
			row := &SignalTable[i]
			if fails(row) && (!critical || scores[i] >= row.Limit) && (k < 0 || scores[i] > scores[k]) {
				k = i
			}
		}
		return k
	}
	k := best(false, func(*SignalRule) bool { return true }) // the highest signal
	switch policy(r.Score, scores) {
	case verdict.Fail:
		if c := best(true, func(row *SignalRule) bool { return row.Fails }); c >= 0 {
			k = c
		}
	case verdict.Warn:
		if c := best(true, func(row *SignalRule) bool { return !row.Fails }); c >= 0 {
			k = c
		}
	default:
		if r.Verdict == verdict.Warn || r.Verdict == verdict.Fail {
			// raised by the default profile: a "trace" finding, else a claim
			for i := range r.Evidence {
				if e := &r.Evidence[i]; e.Signal == SignalTrace {
					return SignalTrace, 0, e
				}
			}
			for i := range r.Evidence {
				if e := &r.Evidence[i]; e.Signal == SignalHallucination && e.Floor {
					return SignalHallucination, r.Signals[Hallucination], e
				}
			}
		}
	}
	signal, score = SignalTable[k].Name, scores[k]
	for i := range r.Evidence {
		if r.Evidence[i].Signal == signal {
			return signal, score, &r.Evidence[i]
		}
	}
	return signal, score, nil
}

// counts are what the reader found in t (docs/design.md#harness-folders): its messages and its tool calls, each
// at most the largest int32.
func counts(t *trace.Trace) (messages, calls int32) {
	clamp := func(n int) int32 { return int32(min(n, math.MaxInt32)) }
	return clamp(len(t.Messages)), clamp(t.NumCalls())
}
