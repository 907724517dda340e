package reliability

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agentgate/agentgate/gate/pystr"
)

// The default profile's reading of what assistant messages claim (hallucination.go):
//
//   - a claim of tool use: "I called the refund tool", "we ran the tests", "using the tool",
//     "the tool call". The verbs called, executed, ran the and invoked are a claim only after
//     "I" or "we" (with at most three of have, 've, just, already... between), so that
//     naming is not claiming: "a setting called X", "a new file called reproduce.py", "when
//     executed". Likewise "tool call" and "tool calls" are a claim only when they point at
//     a call of this run: after the, this, that, these, those, my or our (with at most one
//     of last, first, previous, failed... between), or within three words of "I" or "we":
//     "the tool call returned", "my last tool call", "I made two tool calls"; not "a failed
//     tool call" or "prompts, tool calls, responses", which talk about tool calls in general.
//   - a claim of success: "successfully", or "has been updated", "was booked", "I've
//     cancelled" (a form of be or have, then a participle of a completed action), in a
//     message that does not also speak of trouble (error, issue, unable, unfortunately,
//     not...).

// claimVerbs need a first-person subject before them; claimNouns (but "using the tool") a
// pointing word.
var (
	claimVerbs = [][]uint64{appendWords(nil, "called"), appendWords(nil, "executed"),
		appendWords(nil, "ran the"), appendWords(nil, "invoked")}
	claimVerbNames = []string{"called", "executed", "ran the", "invoked"}
	claimNouns     = [][]uint64{appendWords(nil, "using the tool"), appendWords(nil, "tool call"),
		appendWords(nil, "tool calls")}
	claimNounNames = []string{"using the tool", "tool call", "tool calls"}
	// pointing words before a noun of tool use, and the words that may stand between
	pointing      = hashSet("the", "this", "that", "these", "those", "my", "our")
	callQualifier = hashSet("last", "first", "previous", "earlier", "same", "above", "failed",
		"successful", "second", "final", "latest", "initial", "next")
	subjects = hashSet("i", "we")
	// between a subject and its verb: "I have just called", "we've also run"
	auxiliaries = hashSet("have", "ve", "had", "d", "just", "already", "also", "then", "now",
		"successfully", "first", "again", "actually", "indeed", "previously", "earlier")
)

func hashSet(words ...string) []uint64 {
	var out []uint64
	for _, w := range words {
		out = append(out, appendWords(nil, w)...)
	}
	return sortedSet(out)
}

func inSet(set []uint64, h uint64) bool {
	_, ok := slices.BinarySearch(set, h)
	return ok
}

// toolUseClaim returns the claim of tool use in words (a message's word hashes), or "".
func toolUseClaim(words []uint64) string {
	for i := range words {
		for k, p := range claimNouns {
			if hasRunAt(words, i, p) && (k == 0 || pointed(words, i)) {
				return claimNounNames[k]
			}
		}
		for k, p := range claimVerbs {
			if hasRunAt(words, i, p) && firstPerson(words, i) {
				return claimVerbNames[k]
			}
		}
	}
	return ""
}

func hasRunAt(words []uint64, i int, phrase []uint64) bool {
	return i+len(phrase) <= len(words) && slices.Equal(words[i:i+len(phrase)], phrase)
}

// pointed reports whether the noun at words[i] follows a pointing word, with at most one
// qualifier between ("the tool call", "my last tool call"), or has "I" or "we" among the
// three words before it ("I made two tool calls").
func pointed(words []uint64, i int) bool {
	if i >= 1 && inSet(pointing, words[i-1]) ||
		i >= 2 && inSet(callQualifier, words[i-1]) && inSet(pointing, words[i-2]) {
		return true
	}
	for j := i - 1; j >= 0 && j >= i-3; j-- {
		if inSet(subjects, words[j]) {
			return true
		}
	}
	return false
}

// firstPerson reports whether the verb at words[i] has "I" or "we" for subject, with at most
// three auxiliaries or adverbs between them.
func firstPerson(words []uint64, i int) bool {
	for j := i - 1; j >= 0 && j >= i-4; j-- {
		if inSet(subjects, words[j]) {
			return true
		}
		if !inSet(auxiliaries, words[j]) {
			return false
		}
	}
	return false
}

// Words of success claims, compared as word hashes (the lists are lower-cased words).
var (
	beHave       = hashSet("has", "have", "had", "was", "were", "is", "are", "been", "ve")
	doneVerbs    = hashSet("updated", "changed", "modified", "cancelled", "canceled", "booked", "processed", "issued", "refunded", "completed", "placed", "exchanged", "returned", "created", "saved", "applied", "added", "removed", "sent", "submitted", "confirmed", "reset", "fixed", "resolved", "deleted", "transferred", "scheduled", "reserved", "upgraded", "downgraded", "rebooked", "paid", "charged", "approved")
	troubleWords = hashSet("error", "errors", "issue", "issues", "unable", "unfortunately", "failed", "fail", "fails", "failure", "couldn", "cannot", "can", "not", "didn", "wasn", "isn", "unsuccessful", "problem", "problems", "sorry", "apologize", "apologies", "however", "yet")
	// may stand between a form of be or have and a done verb: "has now been", "was just sent"
	wordSuccessfully = appendWords(nil, "successfully")[0]
	successAdverbs   = hashSet("successfully", "now", "also", "just")
	// toolStopWords say nothing about what a tool does.
	toolStopWords = []string{"get", "find", "search", "list", "by", "id", "ids", "the", "a", "an", "of", "for", "to", "and", "or", "details", "detail", "info", "tool", "user", "do", "run", "call", "api", "pending", "new", "with", "from", "on", "in"}
)

// textWords splits text into lower-cased words (runs of letters and digits): the words whose
// hashes appendWords gives, in the same order.
func textWords(text string) []string {
	low := pystr.Lower(text)
	var out []string
	start := -1
	for i := 0; i <= len(low); {
		r, size := rune(' '), 1
		if i < len(low) {
			r, size = utf8.DecodeRuneInString(low[i:])
		}
		if i < len(low) && isWordRune(r) {
			if start < 0 {
				start = i
			}
		} else if start >= 0 {
			out = append(out, low[start:i])
			start = -1
		}
		i += size
	}
	return out
}

// successClaim finds a success claim in words (a message's word hashes): "successfully
// updated", "has been booked". It returns the claim's words as words[from:to], or ok false
// when there is none or the message speaks of trouble.
func successClaim(words []uint64) (from, to int, ok bool) {
	for i, w := range words {
		if inSet(troubleWords, w) {
			return 0, 0, false
		}
		if ok {
			continue
		}
		switch {
		case w == wordSuccessfully:
			from, to, ok = i, i+1, true
			if i+1 < len(words) && inSet(doneVerbs, words[i+1]) {
				to++
			} else if i > 0 && inSet(doneVerbs, words[i-1]) {
				from--
			}
		case inSet(doneVerbs, w) && i > 0:
			j := i - 1
			if inSet(successAdverbs, words[j]) {
				j--
			}
			if j >= 0 && inSet(beHave, words[j]) {
				from, to, ok = j, i+1, true
			}
		}
	}
	return from, to, ok
}

// toolWords returns the words of a tool's name that say what it does: its nameWords of three
// letters or more, without toolStopWords.
func toolWords(name string) []string {
	var out []string
	for _, w := range nameWords(name) {
		if len(w) >= 3 && !slices.Contains(toolStopWords, w) {
			out = append(out, w)
		}
	}
	return out
}

// related reports whether two words share a stem: a common prefix of at least four letters
// (all of the shorter word when it is shorter) that leaves at most three letters of the
// shorter word (book/booked, modify/modified, reservation/reserved, update/updated). It is
// the rule that stems answers in one look-up per letter; the tests hold the two together.
func related(a, b string) bool {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	short := min(len(a), len(b))
	return n >= min(4, short) && n >= short-3
}

// stemPrefix is the common prefix related asks of two words whose shorter one has n bytes:
// all of it up to four, then four, then all but three.
func stemPrefix(n int) int { return max(min(4, n), n-3) }

// stems indexes the words of one tool's name (toolWords) so that whether a word shares a
// stem with one of them (related) takes one look-up per byte of the word, whatever the length
// of the name (issue 34: comparing each word with each word of a 40,000-word name was
// quadratic). Both lists are sorted, so nothing depends on a map's order.
type stems struct {
	built bool // for the trace being evaluated (the lists are memory kept from trace to trace)
	// for a tool word at least as long as the word asked about: each prefix t[:k] of a tool
	// word t that related can ask for (k up to stemPrefix(len(t))), with the length of the
	// longest tool word that has it
	prefixes []stemKey
	// for a tool word shorter than the word asked about: the prefix t[:stemPrefix(len(t))]
	// of each tool word t, with len(t)
	keys []stemKey
}

// stemKey is a prefix's FNV-1a hash and a length.
type stemKey struct {
	h uint64
	n int
}

func cmpStemKey(a, b stemKey) int {
	if c := cmp.Compare(a.h, b.h); c != 0 {
		return c
	}
	return cmp.Compare(a.n, b.n)
}

// build indexes the words of tool's name, reusing s's memory.
func (s *stems) build(tool string) {
	s.built, s.prefixes, s.keys = true, s.prefixes[:0], s.keys[:0]
	for _, t := range toolWords(tool) {
		h, last := uint64(fnvOffset), stemPrefix(len(t))
		for k := 1; k <= len(t); k++ {
			h = (h ^ uint64(t[k-1])) * fnvPrime
			if k <= last {
				s.prefixes = append(s.prefixes, stemKey{h, len(t)})
			}
			if k == last {
				s.keys = append(s.keys, stemKey{h, len(t)})
			}
		}
	}
	// keep the longest tool word of each prefix: the last of each hash once sorted
	slices.SortFunc(s.prefixes, cmpStemKey)
	out := s.prefixes[:0]
	for i, p := range s.prefixes {
		if i+1 < len(s.prefixes) && s.prefixes[i+1].h == p.h {
			continue
		}
		out = append(out, p)
	}
	s.prefixes = out
	slices.SortFunc(s.keys, cmpStemKey)
	s.keys = slices.Compact(s.keys)
}

// related reports whether w shares a stem with a word of the tool's name, as related(w, t)
// for some of its words t would. work counts the look-ups (for the tests of issue 34).
func (s *stems) related(w string, work *int) bool {
	if len(w) == 0 || len(s.prefixes) == 0 {
		return false
	}
	// a tool word at least as long as w: it begins with w[:stemPrefix(len(w))]
	need := stemPrefix(len(w))
	h := uint64(fnvOffset)
	for k := 1; k <= len(w); k++ {
		h = (h ^ uint64(w[k-1])) * fnvPrime
		if k == need {
			*work++
			i, _ := slices.BinarySearchFunc(s.prefixes, h, func(p stemKey, h uint64) int { return cmp.Compare(p.h, h) })
			if i < len(s.prefixes) && s.prefixes[i].h == h && s.prefixes[i].n >= len(w) {
				return true
			}
			break
		}
	}
	// a tool word t shorter than w: w begins with t[:stemPrefix(len(t))]; for each length n
	// below len(w), stemPrefix(n) is at most n, so the prefix hashes of w come in order
	h, k := uint64(fnvOffset), 0
	for n := 1; n < len(w); n++ {
		for ; k < stemPrefix(n); k++ {
			h = (h ^ uint64(w[k])) * fnvPrime
		}
		*work++
		if _, ok := slices.BinarySearchFunc(s.keys, stemKey{h, n}, cmpStemKey); ok {
			return true
		}
	}
	return false
}

// stemsOf returns the index of tool id t's name words, built at its first use in a trace.
func (e *eval) stemsOf(t int32) *stems {
	if n := len(e.tools); len(e.stems) < n {
		e.stems = append(e.stems, make([]stems, n-len(e.stems))...)
	}
	s := &e.stems[t]
	if !s.built {
		s.build(e.tools[t])
	}
	return s
}

// mentionsTool reports whether some word of the message shares a stem with a word of tool
// id t's name.
func (e *eval) mentionsTool(words []string, t int32) bool {
	s := e.stemsOf(t)
	for _, w := range words {
		if s.related(w, &e.stemWork) {
			return true
		}
	}
	return false
}

// maxPending bounds the failures a claim is compared with (the latest failure of each of the
// last tools to fail), so that a hostile trace cannot make the search quadratic.
const maxPending = 32

// pendingFailure is a failed call of one tool that no success has followed yet.
type pendingFailure struct {
	tool        int32 // tool id
	callMsg, at int   // the call's message and the failed result's message
}

// falseSuccess finds success claimed after a failure: an assistant message (without calls)
// claiming success, speaking of no trouble and naming what a tool whose last call failed
// does, when no call has succeeded since that failure. A success with an empty result (a
// think or note tool) only settles the failures of its own tool: it shows nothing was done.
func (e *eval) falseSuccess() []Evidence {
	var pending []pendingFailure
	var succeeded []int32 // the tools whose calls succeeded, latest last (at most maxPending)
	var out []Evidence
	k, a := 0, 0 // next result, assistant messages so far
	for i := range e.t.Messages {
		m := &e.t.Messages[i]
		if m.Role == "assistant" {
			a++
		}
		if m.Role == "assistant" && len(m.Calls) == 0 && len(pending) > 0 && strings.TrimSpace(m.Content) != "" {
			// the hashes tell whether there is a claim; the words themselves are needed
			// only to quote it and to compare it with tool names
			if from, to, ok := successClaim(e.wordsOf(a - 1).words); ok {
				words := textWords(m.Content)
				claim := strings.Join(words[from:to], " ")
				sentence := claimSentence(m.Content, words[from:to])
				for j := len(pending) - 1; j >= 0; j-- {
					p := pending[j]
					if e.mentionsTool(words, p.tool) && !e.refersToSuccess(sentence, p.tool, succeeded) {
						out = append(out, Evidence{Signal: SignalHallucination,
							Text: fmt.Sprintf("assistant message %d claims success (%q) after the call of `%s` at message %d failed (message %d), with no success since",
								i, claim, e.tools[p.tool], p.callMsg, p.at),
							Messages: keep([]int{i, p.callMsg, p.at})})
						break
					}
				}
			}
		}
		for range m.Results {
			r, c, failed := e.results[k], e.pairs.callOf[k], e.failed(k)
			k++
			switch {
			case failed && c >= 0:
				tool := e.toolOf[c]
				pending = slices.DeleteFunc(pending, func(p pendingFailure) bool { return p.tool == tool })
				if len(pending) == maxPending {
					pending = append(pending[:0], pending[1:]...)
				}
				pending = append(pending, pendingFailure{tool: tool, callMsg: e.calls[c].msg, at: i})
			case !failed && strings.TrimSpace(r.res.Content) != "":
				pending = pending[:0]
			case !failed && c >= 0:
				tool := e.toolOf[c]
				pending = slices.DeleteFunc(pending, func(p pendingFailure) bool { return p.tool == tool })
			}
			if !failed && c >= 0 {
				tool := e.toolOf[c]
				succeeded = slices.DeleteFunc(succeeded, func(t int32) bool { return t == tool })
				if len(succeeded) == maxPending {
					succeeded = append(succeeded[:0], succeeded[1:]...)
				}
				succeeded = append(succeeded, tool)
			}
		}
	}
	return out
}

// claimSentence returns the words of the sentence of text that holds the claim (the words
// of the claim, as textWords gives them), or the claim's words alone when no sentence does.
func claimSentence(text string, claim []string) []string {
	for rest := text; rest != ""; {
		sentence := rest
		if end := strings.IndexAny(rest, ".!?\n"); end >= 0 {
			sentence, rest = rest[:end], rest[end+1:]
		} else {
			rest = ""
		}
		words := textWords(sentence)
		for i := 0; i+len(claim) <= len(words); i++ {
			if slices.Equal(words[i:i+len(claim)], claim) {
				return words
			}
		}
	}
	return claim
}

// refersToSuccess reports whether a success claimed in sentence (its words) is about a call
// that succeeded rather than the failed call of tool failed: the sentence names what one of
// the succeeded tools does by a word that the failed tool's name does not share ("the $495
// for the new flights has been charged", after update_reservation_flights succeeded and
// update_reservation_baggages failed), and names nothing of the failed tool's that the
// succeeded one does not.
func (e *eval) refersToSuccess(sentence []string, failed int32, succeeded []int32) bool {
	for _, t := range succeeded {
		if t == failed {
			continue
		}
		ts, fs := e.stemsOf(t), e.stemsOf(failed)
		toSuccess, toFailure := false, false
		for _, w := range sentence {
			inS, inF := ts.related(w, &e.stemWork), fs.related(w, &e.stemWork)
			toSuccess = toSuccess || inS && !inF
			toFailure = toFailure || inF && !inS
		}
		if toSuccess && !toFailure {
			return true
		}
	}
	return false
}
