package reliability

import (
	"bytes"
	"fmt"
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
// fewer than three words); and (a) also counts identical calls that keep failing: an identical
// call that failed f ≥ 2 times gives min(1, (f−1)/3), so an agent that repeats the same failing
// call four times is a loop, as in tau-bench airline task 9 trial 2. Length alone (c) is capped
// at 0.5: a long run that makes progress (a 150-step SWE-agent fix) is worth a look, not a
// FAIL; a long run that really loops is caught by (a) or (b).
func (e *eval) loop() (float64, []Evidence) {
	n := len(e.t.Messages)
	if n == 0 {
		return 0, nil
	}
	var ev []Evidence
	score, found := 0.0, false
	factor := func(f float64) {
		if !found || f > score {
			score = f
		}
		found = true
	}

	if f, items := e.repeatedCalls(); len(items) > 0 {
		factor(f)
		ev = append(ev, items...)
	}
	if len(e.assistant) >= 3 {
		similar, pairs := e.similarPairs()
		if ratio := float64(len(similar)) / float64(pairs); ratio > 0.5 {
			factor(ratio)
			ev = append(ev, e.similarEvidence(similar, pairs))
		}
	}
	if n > 50 {
		f := math.Min(1, float64(n-50)/100.0)
		if !e.ref {
			f = math.Min(lengthCap, f)
		}
		factor(f)
		ev = append(ev, Evidence{Signal: SignalLoop,
			Text: fmt.Sprintf("%d messages, more than 50", n), Messages: []int{}})
	}
	if !found {
		return 0, nil
	}
	sortEvidence(ev)
	return clamp(score), ev
}

// lengthCap bounds the default profile's length factor (c), so length alone cannot reach the
// FAIL threshold of 0.8.
const lengthCap = 0.5

// callGroup is a set of identical calls, in trace order.
type callGroup struct {
	calls []int
}

// groups returns the groups of identical calls with more than one member, ordered by their
// first call.
func (e *eval) groups() []callGroup {
	// Every call's key goes into one buffer; ends[i] is where call i's key stops.
	var buf []byte
	ends := make([]int, len(e.calls))
	for i := range e.calls {
		c := &e.calls[i]
		buf = append(buf, c.call.Tool...)
		buf = append(buf, 0)
		if e.ref {
			buf = appendRefSignature(buf, c.args)
		} else {
			buf = appendCanonical(buf, c)
		}
		ends[i] = len(buf)
	}
	key := func(i int) []byte {
		if i == 0 {
			return buf[:ends[0]]
		}
		return buf[ends[i-1]:ends[i]]
	}
	idx := make([]int, len(e.calls))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return bytes.Compare(key(a), key(b)) })
	var out []callGroup
	for i := 0; i < len(idx); {
		j := i + 1
		for j < len(idx) && bytes.Equal(key(idx[j]), key(idx[i])) {
			j++
		}
		if j-i > 1 {
			out = append(out, callGroup{calls: idx[i:j:j]})
		}
		i = j
	}
	slices.SortFunc(out, func(a, b callGroup) int { return a.calls[0] - b.calls[0] })
	return out
}

// repeatedCalls is factor (a) with its evidence.
func (e *eval) repeatedCalls() (float64, []Evidence) {
	if len(e.calls) < 2 || (e.ref && len(e.calls) < 3) {
		return 0, nil
	}
	score := 0.0
	var ev []Evidence
	for _, g := range e.groups() {
		k := len(g.calls)
		f := 0.0
		if k >= 3 && len(e.calls) >= 3 {
			f = math.Min(1, float64(k-2)/8.0)
		}
		failed := 0
		if !e.ref {
			for _, i := range g.calls {
				if r := e.pairs.resultOf[i]; r >= 0 && e.failed(int(r)) {
					failed++
				}
			}
			if failed >= 2 {
				f = math.Max(f, math.Min(1, float64(failed-1)/3))
			}
		}
		if f == 0 {
			continue
		}
		score = math.Max(score, f)
		msgs := make([]int, len(g.calls))
		for j, i := range g.calls {
			msgs[j] = e.calls[i].msg
		}
		c := e.calls[g.calls[0]].call
		text := fmt.Sprintf("`%s` called %d times with identical arguments %s at %s", c.Tool, k, shortArgs(c), messages(msgs))
		if failed >= 2 {
			text += fmt.Sprintf(", failing %d times", failed)
		}
		ev = append(ev, Evidence{Signal: SignalLoop, Text: text, Messages: keep(msgs)})
	}
	return score, itemised(SignalLoop, ev, "groups of identical calls")
}

// similarPairs compares consecutive assistant messages and returns the pairs (by the index
// of the first message in e.assistant) that are more than 70% alike, and the number of pairs.
func (e *eval) similarPairs() ([]int, int) {
	var similar []int
	if e.ref {
		var prev, cur charText
		for k, i := range e.assistant {
			cur.read(e.t.Messages[i].Content)
			if k > 0 && refSimilarity(&prev, &cur) > 0.7 {
				similar = append(similar, k-1)
			}
			prev, cur = cur, prev
		}
	} else {
		var prev, cur wordText
		for k, i := range e.assistant {
			cur.read(e.t.Messages[i].Content)
			if k > 0 && wordSimilarity(&prev, &cur) > 0.7 {
				similar = append(similar, k-1)
			}
			prev, cur = cur, prev
		}
	}
	return similar, len(e.assistant) - 1
}

func (e *eval) similarEvidence(similar []int, pairs int) Evidence {
	how := "by word 3-shingles"
	if e.ref {
		how = "by their sets of characters"
	}
	var b strings.Builder
	var msgs []int
	for j, k := range similar {
		a, c := e.assistant[k], e.assistant[k+1]
		msgs = append(msgs, a, c)
		if j == maxListed {
			fmt.Fprintf(&b, ", … (%d more)", len(similar)-maxListed)
			continue
		}
		if j > maxListed {
			continue
		}
		if j > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d and %d", a, c)
	}
	return Evidence{Signal: SignalLoop,
		Text: fmt.Sprintf("%d of %d consecutive assistant message pairs are more than 70%% alike (%s): messages %s",
			len(similar), pairs, how, b.String()),
		Messages: keep(msgs)}
}

// charText is one assistant message as the reference compares it: the text, Python-lower-cased
// and stripped, and its set of code points.
type charText struct {
	empty bool // the raw text was empty (Python: not text)
	low   []byte
	set   []rune
}

func (c *charText) read(text string) {
	c.empty = text == ""
	c.low = stripBytes(pystr.AppendLower(c.low[:0], text))
	c.set = c.set[:0]
	for i := 0; i < len(c.low); {
		r, size := utf8.DecodeRune(c.low[i:])
		c.set = append(c.set, r)
		i += size
	}
	c.set = sortedSet(c.set)
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

// refSimilarity is RS-1's _simple_similarity: 0 if either text is empty, 1 if the lower-cased
// stripped texts are equal, else the Jaccard index of their sets of code points.
func refSimilarity(a, b *charText) float64 {
	if a.empty || b.empty {
		return 0
	}
	if bytes.Equal(a.low, b.low) {
		return 1
	}
	if len(a.set) == 0 || len(b.set) == 0 {
		return 0
	}
	return jaccard(a.set, b.set)
}

// wordText is one assistant message as the default compares it.
type wordText struct {
	words, shingles []uint64
	scratch         []byte
	set             []uint64
}

func (w *wordText) read(text string) {
	w.words, w.scratch = appendWordsBuf(w.words[:0], w.scratch, text)
	w.shingles = sortedSet(appendShingles(w.shingles[:0], w.words))
	w.set = sortedSet(append(w.set[:0], w.words...))
}

// wordSimilarity is 0 if either text has no words, 1 if the word sequences are equal, else the
// Jaccard index of the word 3-shingles (of the word sets when a text has fewer than three
// words), so that only near-repeats count.
func wordSimilarity(a, b *wordText) float64 {
	if len(a.words) == 0 || len(b.words) == 0 {
		return 0
	}
	if slices.Equal(a.words, b.words) {
		return 1
	}
	if len(a.words) >= 3 && len(b.words) >= 3 {
		return jaccard(a.shingles, b.shingles)
	}
	return jaccard(a.set, b.set)
}

// appendRefSignature writes RS-1's call signature: "" for falsy arguments, Python's
// str(sorted(arguments.items())) for a dict, and (where RS-1 would crash) the repr of any
// other value, which cannot collide with a dict's signature.
func appendRefSignature(dst []byte, v pystr.Value) []byte {
	if !v.Truthy() {
		return dst
	}
	if v.Kind != pystr.KindDict {
		return v.AppendRepr(dst)
	}
	var small [16]int
	dst = append(dst, '[')
	for n, i := range sortedKeys(v.Dict, small[:0]) {
		if n > 0 {
			dst = append(dst, ", "...)
		}
		dst = append(dst, '(')
		dst = pystr.AppendQuote(dst, v.Dict[i].Key)
		dst = append(dst, ", "...)
		dst = v.Dict[i].Value.AppendRepr(dst)
		dst = append(dst, ')')
	}
	return append(dst, ']')
}

// appendCanonical writes a call's arguments as a canonical JSON value: object keys sorted at
// every level, numbers by value. No arguments, an empty object and empty raw text are all "{}".
func appendCanonical(dst []byte, c *callRef) []byte {
	if c.noArgs || (c.args.Kind == pystr.KindStr && !c.call.ArgsValid && pystr.Strip(c.args.Text) == "") {
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
// compares str by code point, which is the byte order of UTF-8). A dict's keys are distinct.
func sortedKeys(d []pystr.Member, idx []int) []int {
	for i := range d {
		idx = append(idx, i)
	}
	// Insertion sort: argument objects are small, and it needs no closure that would escape.
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && d[idx[j]].Key < d[idx[j-1]].Key; j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
	return idx
}
