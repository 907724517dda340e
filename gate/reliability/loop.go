package reliability

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentgate/agentgate/gate/pystr"
)

// loop is RS-1's loop signal, the largest of the factors found:
//
//	(a) with 3 or more calls, identical calls (same tool, same arguments) repeated k ≥ 3
//	    times: (k−2)/8;
//	(b) with 3 or more assistant messages, when more than half of the consecutive pairs are
//	    more than 70% alike: that share;
//	(c) more than 50 messages: (n−50)/100.
//
// Reference: arguments are the same when Python's str(sorted(arguments.items())) is (nested
// objects keep their key order), and two messages are alike by the Jaccard index of their
// sets of characters, which puts most pairs of English sentences above 0.7.
// Default: arguments are compared as JSON values (key order and 1 versus 1.0 do not matter);
// messages are alike by the Jaccard index of their word 3-shingles (word sets for texts of
// fewer than three words); (a) counts a repeated call only while its results repeat too
// (a call whose result changed since its last repetition, or that an identical call later
// turns into a success, is iteration: see repeatedCalls; a repeat of a successful call that
// follows a new question of the user's answers it, see askedAgain), and also counts identical calls
// that keep failing alike: f ≥ 2 such failures give min(1, (f−1)/3), so an agent that repeats
// the same failing call four times is a loop, as in tau-bench airline task 9 trial 2. Two
// more factors of 1 count runs of repeats whatever share of the trace they are: three or more
// identical calls in a row (no other call between) that all failed with the same result, and
// three or more identical assistant turns in a row (same text, same calls, same results). Length alone (c) is capped
// at 0.5: a long run that makes progress (a 150-step SWE-agent fix) is worth a look, not a
// FAIL; a long run that really loops is caught by (a) or (b).
func (e *eval) loop() (float64, []Evidence) {
	n := len(e.t.Messages)
	if n == 0 {
		return 0, nil
	}
	var rk ranked
	score, found := 0.0, false
	factor := func(f float64, ev ...Evidence) {
		if !found || f > score {
			score = f
		}
		found = true
		rk.add(f, ev...)
	}

	if f, items := e.repeatedCalls(); len(items) > 0 {
		factor(f, items...)
	}
	if !e.ref {
		if items := e.failingInARow(); len(items) > 0 {
			factor(1, items...)
		}
		if items := e.turnsInARow(); len(items) > 0 {
			factor(1, items...)
		}
	}
	if len(e.assistant) >= 3 {
		similar, pairs := e.similarPairs()
		if ratio := float64(len(similar)) / float64(pairs); ratio > 0.5 {
			factor(ratio, e.similarEvidence(similar, pairs))
		}
	}
	if n > 50 {
		f := math.Min(1, float64(n-50)/100.0)
		if !e.ref {
			f = math.Min(lengthCap, f)
		}
		factor(f, Evidence{Signal: SignalLoop,
			Text: fmt.Sprintf("%d messages, more than 50", n), Messages: []int{}})
	}
	if !found {
		return 0, nil
	}
	return clamp(score), rk.evidence()
}

// lengthCap bounds the default profile's length factor (c), so length alone cannot reach the
// FAIL threshold of 0.8.
const lengthCap = 0.5

// callGroup is a set of identical calls, in trace order.
type callGroup struct {
	calls []int
}

// groups returns the groups of identical calls with more than one member, ordered by their
// first call, computed once per trace; e.nextSame then links each call to the next identical
// one. Calls are identical when their keys are (the tool's name, then the arguments as the
// profile compares them); keys are compared through their hashes, and exactly where two
// hashes are equal.
func (e *eval) groups() []callGroup {
	if !e.grouped {
		e.callGroups, e.grouped = e.findGroups(), true
		next := grow(e.nextSame, len(e.calls))
		for i := range next {
			next[i] = -1
		}
		for _, g := range e.callGroups {
			for j := 1; j < len(g.calls); j++ {
				next[g.calls[j-1]] = int32(g.calls[j])
			}
		}
		e.nextSame = next
	}
	return e.callGroups
}

// findGroups finds the groups of identical calls (see groups): the calls of a tool called more
// than once are the candidates, each gets a key of its tool and arguments, and the candidates
// whose keys are equal form a group.
func (e *eval) findGroups() []callGroup {
	cand, plain := e.repeatedTools()
	if len(cand) < 2 {
		return e.callGroups[:0]
	}
	e.writeKeys(cand, plain)
	return e.groupKeys(cand)
}

// repeatedTools lists the calls of a tool called more than once, the only calls that can be
// alike, and whether all their arguments are UTF-8 (see appendKey).
func (e *eval) repeatedTools() (cand []int, plain bool) {
	counts := grow(e.toolCounts, len(e.tools))
	e.toolCounts = counts
	for _, t := range e.toolOf {
		counts[t]++
	}
	cand, plain = e.candidates[:0], true
	for i, t := range e.toolOf {
		if counts[t] > 1 {
			cand = append(cand, i)
			plain = plain && plainArgs(&e.calls[i])
		}
	}
	e.candidates = cand
	return cand, plain
}

// writeKeys writes every candidate's key into one buffer, e.keys; e.keyEnds[k] is where
// candidate k's key stops (see candidateKey).
func (e *eval) writeKeys(cand []int, plain bool) {
	buf, ends := e.keys[:0], e.keyEnds[:0]
	for _, i := range cand {
		c := &e.calls[i]
		buf = binary.AppendUvarint(buf, uint64(len(c.call.Tool)))
		buf = append(buf, c.call.Tool...)
		if e.long == nil {
			e.long = longStrings{}
		}
		switch {
		case e.ref:
			buf = appendRefSignature(buf, c.args, e.long)
		case plain:
			buf = appendKey(buf, c, e.long)
		default:
			// Some argument is not UTF-8: write every key the long way, which compares
			// strings as Python would have read them.
			buf = appendCanonical(buf, c)
		}
		ends = append(ends, len(buf))
	}
	e.keys, e.keyEnds = buf, ends
	clear(e.long) // it holds the trace's strings: let them go with it
}

// candidateKey is candidate k's key, written by writeKeys.
func (e *eval) candidateKey(k int) []byte {
	if k == 0 {
		return e.keys[:e.keyEnds[0]]
	}
	return e.keys[e.keyEnds[k-1]:e.keyEnds[k]]
}

// groupKeys groups the candidates whose keys are equal, each group in trace order and the
// groups in the order of their first calls: the keys are sorted by hash, and the keys of one
// hash compared byte for byte.
func (e *eval) groupKeys(cand []int) []callGroup {
	hs := e.keyHashes[:0]
	for k := range cand {
		hs = append(hs, keyHash{maphash.Bytes(keySeed, e.candidateKey(k)), int32(k)})
	}
	slices.SortFunc(hs, func(a, b keyHash) int {
		if a.h != b.h {
			return cmp.Compare(a.h, b.h)
		}
		return cmp.Compare(a.i, b.i)
	})
	e.keyHashes = hs
	out, members := e.callGroups[:0], e.groupCalls[:0]
	for i := 0; i < len(hs); {
		j := i + 1
		for j < len(hs) && hs[j].h == hs[i].h {
			j++
		}
		// hs[i:j] share a hash: split them by key, keeping trace order
		for a := i; a < j; a++ {
			if hs[a].i < 0 {
				continue // already in a group
			}
			start := len(members)
			members = append(members, cand[hs[a].i])
			for b := a + 1; b < j; b++ {
				if hs[b].i >= 0 && bytes.Equal(e.candidateKey(int(hs[b].i)), e.candidateKey(int(hs[a].i))) {
					members = append(members, cand[hs[b].i])
					hs[b].i = -1
				}
			}
			if len(members)-start > 1 {
				out = append(out, callGroup{calls: members[start:len(members):len(members)]})
			} else {
				members = members[:start]
			}
		}
		i = j
	}
	slices.SortFunc(out, func(a, b callGroup) int { return a.calls[0] - b.calls[0] })
	e.callGroups, e.groupCalls = out, members
	return out
}

// keyHash is the hash of candidate i's key.
type keyHash struct {
	h uint64
	i int32
}

var keySeed = maphash.MakeSeed()

// repeatedCalls is factor (a) with its evidence.
//
// Default profile: a repeated call is a loop only while its results repeat too. Each group of
// identical calls is cut where a call's result differs from the result of the call it repeats
// (a call without a result continues the stretch: nothing shows it changed); a stretch of
// successes so cut (polling a job until it is done) and a stretch of failures that a later
// identical call turns into a success are iteration too. The factor is
// that of the group's worst stretch of k calls (f of them failed): (k−2)/8, or (f−1)/3 when
// larger.
func (e *eval) repeatedCalls() (float64, []Evidence) {
	if len(e.calls) < 2 || (e.ref && len(e.calls) < 3) {
		return 0, nil
	}
	score := 0.0
	var ev []Evidence
	for _, g := range e.groups() {
		k, failed := len(g.calls), 0
		run := g.calls
		if !e.ref {
			run, failed = e.worstStretch(g.calls)
		}
		f := stretchFactor(len(run), failed, len(e.calls))
		if f == 0 {
			continue
		}
		score = math.Max(score, f)
		msgs := make([]int, len(run))
		for j, i := range run {
			msgs[j] = e.calls[i].msg
		}
		c := e.calls[g.calls[0]].call
		var text string
		if len(run) == k {
			text = fmt.Sprintf("`%s` called %d times with identical arguments %s at %s", c.Tool, k, shortArgs(c), messages(msgs))
		} else {
			text = fmt.Sprintf("`%s` called %d times with identical arguments %s; %d of these calls in succession got the same result, at %s",
				c.Tool, k, shortArgs(c), len(run), messages(msgs))
		}
		if failed >= 2 {
			text += fmt.Sprintf(", failing %d times", failed)
		}
		ev = append(ev, Evidence{Signal: SignalLoop, Text: text, Messages: keep(msgs)})
	}
	return score, itemised(SignalLoop, ev, "groups of identical calls")
}

// stretchFactor is factor (a) for a stretch of k identical calls of which failed failed, in a
// trace of n calls: (k−2)/8 for k ≥ 3 (with n ≥ 3), or (failed−1)/3 when larger.
func stretchFactor(k, failed, n int) float64 {
	f := 0.0
	if k >= 3 && n >= 3 {
		f = math.Min(1, float64(k-2)/8.0)
	}
	if failed >= 2 {
		f = math.Max(f, math.Min(1, float64(failed-1)/3))
	}
	return f
}

// worstStretch returns the stretch of the group's calls (in trace order) whose results repeat
// that scores highest (the first of equals), and how many of them failed; nil when every
// stretch is iteration. See repeatedCalls. A stretch of successes followed by one whose
// answer differs is polling (a job "running" three times, then "done"), and counts only when
// it is the group's last: answers that never change again.
func (e *eval) worstStretch(calls []int) (best []int, bestFailed int) {
	okLater := e.succeedsLater()
	bestF := 0.0
	consider := func(run []int, last bool) { // last: no stretch follows
		failed := 0
		for _, i := range run {
			if r := e.pairs.resultOf[i]; r >= 0 && e.failed(int(r)) {
				failed++
			}
		}
		if failed > 0 && okLater[run[len(run)-1]] {
			return // failures that an identical call later turned into a success: iteration
		}
		if failed == 0 && !last {
			return // answers that the next identical call saw change: polling, not a loop
		}
		if failed == 0 && !e.ref && e.askedAgain(run) {
			return // each look-up answers a new question of the user's
		}
		if f := stretchFactor(len(run), failed, len(e.calls)); f > bestF {
			best, bestFailed, bestF = run, failed, f
		}
	}
	start, known := 0, -1 // known: the last call of the stretch with a result
	for j, i := range calls {
		if e.pairs.resultOf[i] < 0 {
			continue
		}
		if known >= 0 && !e.sameResult(calls[known], i) {
			consider(calls[start:j], false)
			start = j
		}
		known = j
	}
	consider(calls[start:], true)
	return best, bestFailed
}

// askedAgain reports whether every repeat of the identical calls run (in trace order) follows
// a new user message: one after the call it repeats, whose text is unlike that of the latest
// user message before that call. An agent that looks the hotel's check-in time up again
// because the user asks for it again, or searches a waiting list once more each time the
// user adds a detail, answers the conversation; it is not stuck (oscaralvaro/tau2-bench's
// hotel and health domains, reward 1: loop 0.125 before). The same words asked again, or no
// user message between two calls, is a conversation that stopped moving, as in turnsInARow.
func (e *eval) askedAgain(run []int) bool {
	last := e.lastUserAt()
	for j := 1; j < len(run); j++ {
		p, q := e.calls[run[j-1]].msg, e.calls[run[j]].msg
		u, before := last[q], last[p]
		if u <= int32(p) || before >= 0 && strip(e.t.Messages[u].Content) == strip(e.t.Messages[before].Content) {
			return false
		}
	}
	return true
}

// lastUserAt returns, per message, the index of the latest user message at or before it, or
// -1; computed once per trace. A user message counts when it holds words and no tool result:
// Anthropic's tool_result blocks and SWE-agent's and mini-swe-agent's observations are
// written as user messages, and they are the tools' answers, not the user's.
func (e *eval) lastUserAt() []int32 {
	if e.lastUserOK {
		return e.lastUser
	}
	last := grow(e.lastUser, len(e.t.Messages))
	u := int32(-1)
	for i := range e.t.Messages {
		if m := &e.t.Messages[i]; m.Role == "user" && len(m.Results) == 0 && strip(m.Content) != "" {
			u = int32(i)
		}
		last[i] = u
	}
	e.lastUser, e.lastUserOK = last, true
	return last
}

// sameResult reports whether calls i and j, both answered, got the same result: both failed
// or neither, with the same text and error.
func (e *eval) sameResult(i, j int) bool {
	a, b := int(e.pairs.resultOf[i]), int(e.pairs.resultOf[j])
	ra, rb := e.results[a].res, e.results[b].res
	return e.failed(a) == e.failed(b) && ra.Content == rb.Content && ra.Error == rb.Error
}

// succeedsLater returns, per call, whether a later identical call (see groups) succeeded.
func (e *eval) succeedsLater() []bool {
	if e.okLaterDone {
		return e.okLater
	}
	e.groups()
	ok := grow(e.okLater, len(e.calls))
	for i := len(e.calls) - 1; i >= 0; i-- {
		if n := e.nextSame[i]; n >= 0 {
			r := e.pairs.resultOf[n]
			ok[i] = ok[n] || (r >= 0 && !e.failed(int(r)))
		}
	}
	e.okLater, e.okLaterDone = ok, true
	return ok
}

// similarPairs compares consecutive assistant messages and returns the pairs (by the index
// of the first message in e.assistant) that are more than 70% alike, and the number of pairs.
// The default profile also asks that the two turns make the same calls with the same results
// (see sameTurnActions): a stock sentence ("Let me run the next command.") over different
// actions is progress, and turns without calls are compared by their text alone.
// It stops as soon as too few pairs are left for more than half of them to be alike: the
// factor cannot fire then, and what it returns says so (at most half the pairs).
//
// It goes from the last pair to the first: the last assistant message is often the answer,
// which makes no call and whose words the hallucination signal has read already.
func (e *eval) similarPairs() ([]int, int) {
	pairs := len(e.assistant) - 1
	similar := e.similar[:0]
	unlike := 0
	for k := len(e.assistant) - 1; k > 0; k-- {
		var sim float64
		if e.ref {
			sim = e.refSimilarity(k-1, k)
		} else {
			sim = e.wordSimilarity(k-1, k)
		}
		if sim > 0.7 && (e.ref || e.sameTurnActions(k-1, k)) {
			similar = append(similar, k-1)
		} else if unlike++; 2*(pairs-unlike) <= pairs {
			break
		}
	}
	slices.Reverse(similar)
	e.similar = similar
	return similar, pairs
}

func (e *eval) similarEvidence(similar []int, pairs int) Evidence {
	how := "by word 3-shingles"
	if e.ref {
		how = "by their sets of characters"
	}
	// written with strconv, not fmt: the reference finds this on most traces
	b := make([]byte, 0, 128+12*min(len(similar), maxListed+1))
	b = strconv.AppendInt(b, int64(len(similar)), 10)
	b = append(b, " of "...)
	b = strconv.AppendInt(b, int64(pairs), 10)
	b = append(b, " consecutive assistant message pairs are more than 70% alike ("...)
	b = append(b, how...)
	b = append(b, "): messages "...)
	msgs := e.similarMsgs[:0]
	for j, k := range similar {
		a, c := e.assistant[k], e.assistant[k+1]
		msgs = append(msgs, a, c)
		switch {
		case j < maxListed:
			if j > 0 {
				b = append(b, ", "...)
			}
			b = strconv.AppendInt(b, int64(a), 10)
			b = append(b, " and "...)
			b = strconv.AppendInt(b, int64(c), 10)
		case j == maxListed:
			b = append(b, ", … ("...)
			b = strconv.AppendInt(b, int64(len(similar)-maxListed), 10)
			b = append(b, " more)"...)
		}
	}
	e.similarMsgs = msgs
	return Evidence{Signal: SignalLoop, Text: string(b), Messages: keep(msgs)}
}

// stripBytes is pystr.Strip on bytes: it trims what Python's str.strip() trims.
func stripBytes(b []byte) []byte {
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if !pystr.IsSpace(r) {
			break
		}
		b = b[size:]
	}
	for len(b) > 0 {
		r, size := utf8.DecodeLastRune(b)
		if !pystr.IsSpace(r) {
			break
		}
		b = b[:len(b)-size]
	}
	return b
}

// appendRefSignature writes RS-1's call signature: "" for falsy arguments, Python's
// str(sorted(arguments.items())) for a dict, and (where RS-1 would crash) the repr of any
// other value, which cannot collide with a dict's signature. A string longer than minLong is
// written as a zero byte, which no repr holds, and its number in long (appendRefQuote), as
// appendKey writes one: two signatures are still equal exactly when RS-1's are, and they hold
// each long string once however many calls repeat it (240 calls naming one 1 MiB attachment
// of an Inspect log each put it in the signatures: 1.5 GB allocated as they grew).
func appendRefSignature(dst []byte, v pystr.Value, long longStrings) []byte {
	if !v.Truthy() {
		return dst
	}
	if v.Kind != pystr.KindDict {
		return appendRefRepr(dst, v, long)
	}
	var small [16]int
	dst = append(dst, '[')
	for n, i := range sortedKeys(v.Dict, small[:0]) {
		if n > 0 {
			dst = append(dst, ", "...)
		}
		dst = append(dst, '(')
		dst = appendRefQuote(dst, v.Dict[i].Key, long)
		dst = append(dst, ", "...)
		dst = appendRefRepr(dst, v.Dict[i].Value, long)
		dst = append(dst, ')')
	}
	return append(dst, ']')
}

// appendRefRepr is v.AppendRepr with its strings, keys included, written by appendRefQuote.
func appendRefRepr(dst []byte, v pystr.Value, long longStrings) []byte {
	switch v.Kind {
	case pystr.KindStr:
		return appendRefQuote(dst, v.Text, long)
	case pystr.KindList:
		dst = append(dst, '[')
		for i := range v.List {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendRefRepr(dst, v.List[i], long)
		}
		return append(dst, ']')
	case pystr.KindDict:
		dst = append(dst, '{')
		for i := range v.Dict {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendRefQuote(dst, v.Dict[i].Key, long)
			dst = append(dst, ": "...)
			dst = appendRefRepr(dst, v.Dict[i].Value, long)
		}
		return append(dst, '}')
	}
	return v.AppendRepr(dst)
}

// appendRefQuote writes repr(s), or, for s longer than minLong, a zero byte and its number in
// long.
func appendRefQuote(dst []byte, s string, long longStrings) []byte {
	if len(s) <= minLong {
		return pystr.AppendQuote(dst, s)
	}
	return binary.AppendUvarint(append(dst, 0), uint64(long.number(s)))
}

// appendKey writes a call's arguments so that two calls get the same bytes exactly when
// appendCanonical writes the same text for them, but faster: strings are written as they are
// after their length, not quoted, and numbers as appendCanonical writes them. That holds for
// calls whose arguments are plain (plainArgs). A string longer than minLong is written as its
// number in long, the same for equal strings: keys hold each long string once however many
// calls repeat it (240 calls naming one 1 MiB attachment of an Inspect log each put it in the
// keys, 1.3 GB allocated), and stay exact.
func appendKey(dst []byte, c *callRef, long longStrings) []byte {
	if c.noArgs || (c.args.Kind == pystr.KindStr && !c.call.ArgsValid && strip(c.args.Text) == "") {
		return append(dst, 'D', 0) // {}
	}
	return appendKeyValue(dst, c.args, long)
}

// longStrings numbers the distinct long strings of the keys of one trace: a map of the strings
// themselves, which share the arguments' memory.
type longStrings map[string]uint32

// minLong is the length from which appendKeyString writes a string's number, not its bytes.
const minLong = 64

// plainArgs reports whether the call's arguments are UTF-8 text. Every string decoded from
// them is then UTF-8, but for lone surrogates written as \udXXX escapes, which pystr keeps in
// their three-byte form: Python's quoting tells all such strings apart, so appendKey may write
// them as they are. Other text (only a trace built by hand can hold it: package input lets no
// such record through) is read by Python with U+FFFD for its bad bytes, and needs
// appendCanonical.
func plainArgs(c *callRef) bool { return c.plain }

func appendKeyValue(dst []byte, v pystr.Value, long longStrings) []byte {
	switch v.Kind {
	case pystr.KindNone:
		return append(dst, 'n')
	case pystr.KindBool:
		if v.Bool {
			return append(dst, 't')
		}
		return append(dst, 'f')
	case pystr.KindInt, pystr.KindFloat:
		dst = append(dst, 'N')
		dst = appendValue(dst, v)
		return append(dst, ';')
	case pystr.KindStr:
		dst = append(dst, 'S')
		return appendKeyString(dst, v.Text, long)
	case pystr.KindList:
		dst = append(dst, 'L')
		dst = binary.AppendUvarint(dst, uint64(len(v.List)))
		for i := range v.List {
			dst = appendKeyValue(dst, v.List[i], long)
		}
		return dst
	}
	var small [16]int
	dst = append(dst, 'D')
	dst = binary.AppendUvarint(dst, uint64(len(v.Dict)))
	for _, i := range sortedKeys(v.Dict, small[:0]) {
		dst = appendKeyString(dst, v.Dict[i].Key, long)
		dst = appendKeyValue(dst, v.Dict[i].Value, long)
	}
	return dst
}

// appendKeyString writes s after its length: its bytes, or, when it is longer than minLong,
// its number in long (equal lengths and numbers: equal strings).
func appendKeyString(dst []byte, s string, long longStrings) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	if len(s) <= minLong {
		return append(dst, s...)
	}
	return binary.AppendUvarint(dst, uint64(long.number(s)))
}

// number is s's number among the long strings numbered so far: a new one for a string not
// seen before.
func (long longStrings) number(s string) uint32 {
	n, ok := long[s]
	if !ok {
		n = uint32(len(long))
		long[s] = n
	}
	return n
}

// appendCanonical writes a call's arguments as a canonical JSON value: object keys sorted at
// every level, numbers by value. No arguments, an empty object and empty raw text are all "{}".
func appendCanonical(dst []byte, c *callRef) []byte {
	if c.noArgs || (c.args.Kind == pystr.KindStr && !c.call.ArgsValid && strip(c.args.Text) == "") {
		return append(dst, "{}"...)
	}
	return appendValue(dst, c.args)
}

func appendValue(dst []byte, v pystr.Value) []byte {
	switch v.Kind {
	case pystr.KindNone:
		return append(dst, "null"...)
	case pystr.KindBool:
		return strconv.AppendBool(dst, v.Bool)
	case pystr.KindInt:
		return append(dst, v.Text...)
	case pystr.KindFloat:
		if f := v.Float; f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return strconv.AppendInt(dst, int64(f), 10)
		}
		return pystr.AppendFloat(dst, v.Float)
	case pystr.KindStr:
		return pystr.AppendQuote(dst, v.Text)
	case pystr.KindList:
		dst = append(dst, '[')
		for i := range v.List {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendValue(dst, v.List[i])
		}
		return append(dst, ']')
	}
	var small [16]int
	dst = append(dst, '{')
	for n, i := range sortedKeys(v.Dict, small[:0]) {
		if n > 0 {
			dst = append(dst, ',')
		}
		dst = pystr.AppendQuote(dst, v.Dict[i].Key)
		dst = append(dst, ':')
		dst = appendValue(dst, v.Dict[i].Value)
	}
	return append(dst, '}')
}

// sortedKeys appends to idx the positions of d's members in order of their keys (Python
// compares str by code point, which is the byte order of UTF-8). A dict's keys are distinct,
// so any sort gives the same order: small objects (nearly all arguments) by insertion, which
// needs no closure that would escape, larger ones by slices.SortFunc in O(n log n).
func sortedKeys(d []pystr.Member, idx []int) []int {
	start := len(idx)
	for i := range d {
		idx = append(idx, i)
	}
	s := idx[start:]
	if len(s) > 16 {
		slices.SortFunc(s, func(a, b int) int { return strings.Compare(d[a].Key, d[b].Key) })
		return idx
	}
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && d[s[j]].Key < d[s[j-1]].Key; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return idx
}

// inARow is how many repeats in a row make a loop whatever share of the run they are.
const inARow = 3

// failingInARow finds runs of at least inARow identical calls, one after another with no
// other call between, that all failed with the same result: an agent sending the same wrong
// answer again and again ("Wrong flag!" four times) learns nothing from the failures. A run
// that an identical call later turns into a success is iteration, not a loop.
func (e *eval) failingInARow() []Evidence {
	var ev []Evidence
	e.groups()
	start := 0
	flush := func(end int) { // calls start…end−1 are one run
		if end-start < inARow || e.succeedsLater()[end-1] {
			return
		}
		msgs := make([]int, 0, end-start)
		for i := start; i < end; i++ {
			msgs = append(msgs, e.calls[i].msg)
		}
		c := e.calls[start].call
		ev = append(ev, Evidence{Signal: SignalLoop,
			Text: fmt.Sprintf("`%s` sent %d times in a row with identical arguments %s, failing every time with the same result: %s",
				c.Tool, end-start, shortArgs(c), messages(msgs)),
			Messages: keep(msgs)})
	}
	failedCall := func(i int) bool {
		r := e.pairs.resultOf[i]
		return r >= 0 && e.failed(int(r))
	}
	for i := range e.calls {
		if !failedCall(i) {
			flush(i)
			start = i + 1
			continue
		}
		if i == start || e.nextSame[i-1] != int32(i) || !e.sameResult(i-1, i) {
			flush(i)
			start = i
		}
	}
	flush(len(e.calls))
	return itemised(SignalLoop, ev, "runs of identical failing calls")
}

// turnsInARow finds runs of at least inARow consecutive assistant turns that are the same:
// the same text (not empty), the same calls, and the same results for them. Turns are
// compared by their text first, and by their calls only where the texts are equal (rare).
// A run whose call a later identical call answers differently (a job "running" three times,
// then "done") is polling, not a loop: the agent waited for the world to move, and it did.
// A run in which every repeat answers a new user message (text unlike the one the turn
// before it answered) is no loop either: the same refusal given to a user who keeps pushing
// with new words is the agent holding its ground, as tau2-bench's airline tasks ask (the
// fine-tuned gpt-4.1's airline task 6, reward 1). One repeat that answers the same words
// again, or no user message at all, is a conversation that stopped moving.
func (e *eval) turnsInARow() []Evidence {
	var ev []Evidence
	start := 0
	var prevCalls [2]int     // calls prevCalls[0]…prevCalls[1]−1 are the previous turn's
	stuck := false           // a repeat of the run answered what its turn before answered
	flush := func(end int) { // assistant turns start…end−1 are one run; prevCalls, the last's
		if end-start < inARow || !stuck || e.turnMovesOn(prevCalls[0], prevCalls[1]) {
			return
		}
		msgs := slices.Clone(e.assistant[start:end])
		ev = append(ev, Evidence{Signal: SignalLoop,
			Text:     fmt.Sprintf("%d identical assistant turns in a row (same text, calls and results): %s", end-start, messages(msgs)),
			Messages: keep(msgs)})
	}
	k := 0 // first call of the turn
	prevText := ""
	lastUser := "" // the text of the latest user message before assistant turn j
	for j, i := range e.assistant {
		for k < len(e.calls) && e.calls[k].msg < i {
			k++
		}
		asked, lo := lastUser, 0
		if j > 0 {
			lo = e.assistant[j-1] + 1
		}
		for m := lo; m < i; m++ {
			if e.t.Messages[m].Role == "user" {
				lastUser = strip(e.t.Messages[m].Content)
			}
		}
		newQuestion := lastUser != asked
		end := k
		for end < len(e.calls) && e.calls[end].msg == i {
			end++
		}
		text := strip(e.t.Messages[i].Content)
		if text == "" {
			flush(j)
			start = j + 1
			continue
		}
		if j == start || text != prevText || !e.sameTurnCalls(prevCalls[0], prevCalls[1], k, end) {
			flush(j)
			start, stuck = j, false
		} else if !newQuestion {
			stuck = true
		}
		prevText, prevCalls = text, [2]int{k, end}
	}
	flush(len(e.assistant))
	return itemised(SignalLoop, ev, "runs of identical assistant turns")
}

// sameTurnCalls reports whether calls a…aEnd−1 and b…bEnd−1 are the same calls, in order,
// with the same results: same tool, arguments equal as values, both unanswered or both
// answered alike (see sameResult).
func (e *eval) sameTurnCalls(a, aEnd, b, bEnd int) bool {
	if aEnd-a != bEnd-b {
		return false
	}
	for ; a < aEnd; a, b = a+1, b+1 {
		if e.toolOf[a] != e.toolOf[b] {
			return false
		}
		e.turnKeys = appendCanonical(e.turnKeys[:0], &e.calls[a])
		n := len(e.turnKeys)
		e.turnKeys = appendCanonical(e.turnKeys, &e.calls[b])
		if !bytes.Equal(e.turnKeys[:n], e.turnKeys[n:]) {
			return false
		}
		ra, rb := e.pairs.resultOf[a], e.pairs.resultOf[b]
		if (ra < 0) != (rb < 0) || ra >= 0 && !e.sameResult(a, b) {
			return false
		}
	}
	return true
}

// turnMovesOn reports whether one of calls a…end−1 (a turn's) is answered and a later identical
// call got a different answer (see movesOn).
func (e *eval) turnMovesOn(a, end int) bool {
	if a == end {
		return false
	}
	moved := e.movesOn()
	for c := a; c < end; c++ {
		if moved[c] {
			return true
		}
	}
	return false
}

// movesOn returns, per answered call, whether the world was seen to move on after it: a later
// identical call got a different answer (for a failed call: succeeded, as succeedsLater). A
// repetition that ends so is polling or iteration, not a loop. An unanswered call shows
// nothing: false.
func (e *eval) movesOn() []bool {
	if e.movedDone {
		return e.moved
	}
	ok := e.succeedsLater() // computes the groups, e.nextSame
	moved, next := grow(e.moved, len(e.calls)), grow(e.nextAnswer, len(e.calls))
	answered := func(i int) bool { return e.pairs.resultOf[i] >= 0 }
	for i := len(e.calls) - 1; i >= 0; i-- {
		next[i], moved[i] = -1, false
		if n := e.nextSame[i]; n >= 0 {
			if answered(int(n)) {
				next[i] = n
			} else {
				next[i] = next[n]
			}
		}
		switch m := next[i]; {
		case !answered(i):
		case e.failed(int(e.pairs.resultOf[i])):
			moved[i] = ok[i]
		case m >= 0:
			moved[i] = !e.sameResult(i, int(m)) || moved[m]
		}
	}
	e.moved, e.nextAnswer, e.movedDone = moved, next, true
	return moved
}

// sameTurnActions reports whether assistant turns j and k (indices into e.assistant) make the
// same calls, in order, with the same results (see sameTurnCalls); two turns without calls do.
func (e *eval) sameTurnActions(j, k int) bool {
	a, aEnd := e.turnCalls(e.assistant[j])
	b, bEnd := e.turnCalls(e.assistant[k])
	return e.sameTurnCalls(a, aEnd, b, bEnd)
}

// turnCalls returns the calls of message i as the range a…end−1 of e.calls, which are in
// message order.
func (e *eval) turnCalls(i int) (a, end int) {
	a, _ = slices.BinarySearchFunc(e.calls, i, func(c callRef, i int) int { return cmp.Compare(c.msg, i) })
	end = a
	for end < len(e.calls) && e.calls[end].msg == i {
		end++
	}
	return a, end
}
