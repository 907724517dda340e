package coherence

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/pystr"
)

// The harness's default weights of the three KL terms, used when a task does not set its own.
const (
	DefaultAlpha = 1.0 // weight of KL(I‖U): did the understanding capture the intent?
	DefaultBeta  = 0.5 // weight of KL(U‖A): did the action follow the understanding?
	DefaultGamma = 0.5 // weight of KL(A‖I): does the action still serve the intent?
)

// klFloor is the harness's numeric floor for p and q inside KL (its eps).
const klFloor = 1e-12

// maxInterned bounds the token dictionary a Scorer keeps between tasks: past it the dictionary
// is dropped before the next task, so memory stays bounded on any input while a realistic
// suite (whose vocabulary is far smaller) never allocates again once its words are known.
// (A variable only so that tests can lower it.)
var maxInterned = 1 << 20

// Weights returns the task's α, β and γ, with the harness's defaults for those it leaves unset.
func (t Task) Weights() (alpha, beta, gamma float64) {
	alpha, beta, gamma = DefaultAlpha, DefaultBeta, DefaultGamma
	if t.Alpha != nil {
		alpha = *t.Alpha
	}
	if t.Beta != nil {
		beta = *t.Beta
	}
	if t.Gamma != nil {
		gamma = *t.Gamma
	}
	return alpha, beta, gamma
}

// A Scorer scores tasks. It keeps its buffers and a dictionary of the tokens it has seen from
// one task to the next, so that once a suite's words are known scoring allocates nothing. The
// zero value is ready to use. A Scorer is not safe for concurrent use; its results do not
// depend on what it scored before.
type Scorer struct {
	buf    []byte           // lower-cased text
	ids    map[string]int32 // every token seen so far → its global id
	slots  []vocabSlot      // per global id: where it is in the current task's vocabulary
	gen    uint32           // the current task
	counts [][3]int32       // per vocabulary entry, in order of first appearance: counts in I, U, A
	n      [3]int           // number of tokens in I, U, A
}

// vocabSlot places a known token in the current task's vocabulary.
type vocabSlot struct {
	gen   uint32 // the task that last used the token; its index is stale unless gen is current
	index int32  // its index in counts
}

var scorers = sync.Pool{New: func() any { return new(Scorer) }}

// Score scores one task under profile p (anything but profile.Reference means the default
// profile). It borrows a pooled Scorer; use a Scorer directly to control its memory.
func Score(t Task, p profile.Profile) TaskResult {
	s := scorers.Get().(*Scorer)
	defer scorers.Put(s)
	return s.Score(t, p)
}

// Score scores one task under profile p (anything but profile.Reference means the default
// profile).
//
// Energy is α·KL(I‖U) + β·KL(U‖A) + γ·KL(A‖I) and RCS is 1 − min(1, Energy), except that a
// weight that is negative or not finite (the readers reject those; a Task built in code may
// carry one), or an energy that overflows, gives RCS 0 with Energy math.MaxFloat64 so that the
// report stays valid JSON; and that under the default profile an empty understanding or action
// (or one without a single word) gives RCS 0 whatever the energy, with a Note saying which.
func (s *Scorer) Score(t Task, p profile.Profile) TaskResult {
	ref := p == profile.Reference
	res := TaskResult{ID: t.ID, File: t.File, Line: t.Line}
	s.begin()
	s.addText(t.Intent, ref, 0)
	s.addText(t.Understanding, ref, 1)
	s.addText(t.Action, ref, 2)
	klIU, klUA, klAI := s.divergences()

	alpha, beta, gamma := t.Weights()
	if name, w, ok := badWeight(alpha, beta, gamma); !ok {
		res.Energy = math.MaxFloat64
		res.Note = fmt.Sprintf("weight %s = %s is not a finite number >= 0: scored as incoherent",
			name, strconv.FormatFloat(w, 'g', -1, 64))
		return res
	}
	e := alpha*klIU + beta*klUA + gamma*klAI
	if math.IsInf(e, 0) || math.IsNaN(e) {
		e = math.MaxFloat64
	}
	res.Energy = e
	res.RCS = 1 - math.Min(1, e)

	if !ref {
		// A text with no words says nothing, whether it is empty, white space, or only
		// punctuation and symbols ("👍", "..."): the harness scores all of those as coherent.
		silentU, silentA := s.n[1] == 0, s.n[2] == 0
		switch {
		case silentU && silentA:
			res.Note = "the understanding and the action " + silence(t.Understanding, t.Action) + ": scored as incoherent"
		case silentU:
			res.Note = "the understanding " + silence(t.Understanding) + ": scored as incoherent"
		case silentA:
			res.Note = "the action " + silence(t.Action) + ": scored as incoherent"
		}
		if silentU || silentA {
			res.RCS = 0
		}
	}
	return res
}

// silence says how texts without words are silent: "are empty" / "is empty" when every one is
// empty after trimming, else "have no words" / "has no words".
func silence(texts ...string) string {
	empty := true
	for _, t := range texts {
		if pystr.Strip(t) != "" {
			empty = false
		}
	}
	switch {
	case empty && len(texts) > 1:
		return "are empty"
	case empty:
		return "is empty"
	case len(texts) > 1:
		return "have no words"
	}
	return "has no words"
}

// badWeight returns the first weight that is negative or not finite, and false; or true.
func badWeight(alpha, beta, gamma float64) (string, float64, bool) {
	for i, w := range [3]float64{alpha, beta, gamma} {
		if !(w >= 0) || math.IsInf(w, 1) {
			return [3]string{"alpha", "beta", "gamma"}[i], w, false
		}
	}
	return "", 0, true
}

// divergences returns KL(I‖U), KL(U‖A) and KL(A‖I) over the current task's vocabulary, summed
// in the vocabulary's order of first appearance as the harness sums them.
func (s *Scorer) divergences() (klIU, klUA, klAI float64) {
	v := len(s.counts)
	if v == 0 {
		return 0, 0, 0 // every distribution is empty
	}
	totI := float64(s.n[0]) + float64(v)
	totU := float64(s.n[1]) + float64(v)
	totA := float64(s.n[2]) + float64(v)
	for _, c := range s.counts {
		pi := max((float64(c[0])+1)/totI, klFloor)
		pu := max((float64(c[1])+1)/totU, klFloor)
		pa := max((float64(c[2])+1)/totA, klFloor)
		klIU += pi * math.Log(pi/pu)
		klUA += pu * math.Log(pu/pa)
		klAI += pa * math.Log(pa/pi)
	}
	return max(0, klIU), max(0, klUA), max(0, klAI)
}

// begin starts a new task: an empty vocabulary and no tokens.
func (s *Scorer) begin() {
	if s.ids == nil || len(s.ids) > maxInterned {
		s.ids = make(map[string]int32)
		s.slots = s.slots[:0]
	}
	s.gen++
	if s.gen == 0 { // wrapped: marks from 2³² tasks ago would look current
		clear(s.slots)
		s.gen = 1
	}
	s.counts = s.counts[:0]
	s.n = [3]int{}
}

// addText counts the tokens of text into slot 0 (intent), 1 (understanding) or 2 (action).
//
// Most text is ASCII or nearly so, and the work is done on the text as it is: ASCII
// punctuation and spaces separate tokens in both profiles and lower-case to themselves, so the
// text splits at them into chunks that are tokenized one by one. A chunk of ASCII letters and
// digits is one token, lower-cased if need be (most are lower case already and are looked up
// in place); a chunk holding other characters is lower-cased with Python's rules and tokenized
// by the profile's own rules. Lower-casing chunk by chunk is the same as lower-casing the whole
// text, except for Σ, whose lower case depends on the letters around it: a text holding a Σ is
// lower-cased whole.
func (s *Scorer) addText(text string, ref bool, slot int) {
	if strings.Contains(text, "Σ") {
		s.addGeneral(text, ref, slot)
		return
	}
	for i := 0; i < len(text); {
		for i < len(text) && asciiClass[text[i]] == 0 {
			i++
		}
		start := i
		var seen uint8
		for i < len(text) {
			c := asciiClass[text[i]]
			if c == 0 {
				break
			}
			seen |= c
			i++
		}
		switch {
		case start == i:
			return
		case seen&otherByte != 0:
			s.addGeneral(text[start:i], ref, slot)
		case seen&upperByte != 0:
			s.buf = append(s.buf[:0], text[start:i]...)
			for j, c := range s.buf {
				s.buf[j] = lowerASCII[c]
			}
			s.count(s.idOfBytes(s.buf), slot)
		default:
			s.count(s.idOfString(text[start:i]), slot)
		}
	}
}

// addGeneral counts the tokens of text, lower-cased as Python does, by the profile's rules.
func (s *Scorer) addGeneral(text string, ref bool, slot int) {
	s.buf = pystr.AppendLower(s.buf[:0], text)
	b := s.buf
	next := nextDefault
	if ref {
		next = nextReference
	}
	for i := 0; ; {
		start, end := next(b, i)
		if start < 0 {
			return
		}
		s.count(s.idOfBytes(b[start:end]), slot)
		i = end
	}
}

// idOfBytes returns the global id of a token, interning it if it is new.
func (s *Scorer) idOfBytes(tok []byte) int32 {
	if id, ok := s.ids[string(tok)]; ok { // no allocation: the compiler sees a lookup
		return id
	}
	return s.intern(string(tok))
}

// idOfString returns the global id of a token, interning it if it is new.
func (s *Scorer) idOfString(tok string) int32 {
	if id, ok := s.ids[tok]; ok {
		return id
	}
	return s.intern(strings.Clone(tok)) // do not keep the caller's text alive
}

func (s *Scorer) intern(tok string) int32 {
	id := int32(len(s.ids))
	s.ids[tok] = id
	s.slots = append(s.slots, vocabSlot{})
	return id
}

// count counts one occurrence of the token with global id id.
func (s *Scorer) count(id int32, slot int) {
	v := &s.slots[id]
	if v.gen != s.gen {
		v.gen = s.gen
		v.index = int32(len(s.counts))
		s.counts = append(s.counts, [3]int32{})
	}
	s.counts[v.index][slot]++
	s.n[slot]++
}

// Byte classes of lower-cased text.
const (
	sep     = iota // not part of a token
	tokByte        // an ASCII letter or digit
	lead2          // 0xC4 or 0xC5: may start ı (C4 B1) or ſ (C5 BF)
)

// Byte classes of text that is not lower-cased yet (0: an ASCII separator).
const (
	lowerByte = 1 << iota // a–z or 0–9
	upperByte             // A–Z
	otherByte             // part of a multi-byte character (or invalid UTF-8)
)

var (
	lowerASCII [256]byte
	class      [256]uint8 // of lower-cased text
	asciiClass [256]uint8 // of text before lower-casing
)

func init() {
	for c := 0; c < 256; c++ {
		lowerASCII[c] = byte(c)
		switch {
		case 'A' <= c && c <= 'Z':
			lowerASCII[c] = byte(c + 'a' - 'A')
			asciiClass[c] = upperByte
		case ('a' <= c && c <= 'z') || ('0' <= c && c <= '9'):
			class[c] = tokByte
			asciiClass[c] = lowerByte
		case c >= utf8.RuneSelf:
			asciiClass[c] = otherByte
		}
	}
	class[0xc4] = lead2
	class[0xc5] = lead2
}

// refWidth returns the length of the reference token character at b[i] (1 for a–z or 0–9, 2 for
// ı or ſ), or 0.
func refWidth(b []byte, i int) int {
	switch class[b[i]] {
	case tokByte:
		return 1
	case lead2:
		if i+1 < len(b) && ((b[i] == 0xc4 && b[i+1] == 0xb1) || (b[i] == 0xc5 && b[i+1] == 0xbf)) {
			return 2
		}
	}
	return 0
}

// nextReference returns the bounds of the first reference token in b at or after i, or -1, -1:
// a maximal run of a–z, 0–9, ı and ſ, what re.findall(r"[a-z0-9]+", text, re.IGNORECASE)
// returns on lower-cased text.
func nextReference(b []byte, i int) (start, end int) {
	for i < len(b) && refWidth(b, i) == 0 {
		i++
	}
	if i == len(b) {
		return -1, -1
	}
	start = i
	for i < len(b) {
		w := refWidth(b, i)
		if w == 0 {
			break
		}
		i += w
	}
	return start, i
}

// ownToken holds the scripts whose letters are each a token of their own under the default
// profile: they do not put spaces between words, so a run of them is a whole phrase.
var ownToken = []*unicode.RangeTable{unicode.Han, unicode.Hiragana, unicode.Katakana,
	unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar}

// nextDefault returns the bounds of the first default-profile token in b at or after i, or
// -1, -1: a maximal run of Unicode letters and digits and the combining marks after them, except
// that a letter of a script in ownToken is a token by itself (with the marks after it).
func nextDefault(b []byte, i int) (start, end int) {
	start = -1
	for i < len(b) {
		c := b[i]
		if c < utf8.RuneSelf {
			if class[c] == tokByte {
				if start < 0 {
					start = i
				}
			} else if start >= 0 {
				return start, i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size == 1: // invalid UTF-8: a separator
			if start >= 0 {
				return start, i
			}
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if unicode.In(r, ownToken...) {
				if start >= 0 {
					return start, i
				}
				return i, skipMarks(b, i+size)
			}
			if start < 0 {
				start = i
			}
		case unicode.IsMark(r):
			// A mark continues the token before it and is a separator elsewhere.
		default:
			if start >= 0 {
				return start, i
			}
		}
		i += size
	}
	if start >= 0 {
		return start, i
	}
	return -1, -1
}

// skipMarks returns the offset of the first rune at or after i that is not a combining mark.
func skipMarks(b []byte, i int) int {
	for i < len(b) && b[i] >= utf8.RuneSelf {
		r, size := utf8.DecodeRune(b[i:])
		if !unicode.IsMark(r) {
			break
		}
		i += size
	}
	return i
}

// Tokens returns the tokens profile p sees in text, in order: a window on the tokenizer for
// tests, documentation and debugging. Scoring does not call it.
func Tokens(text string, p profile.Profile) []string {
	b := pystr.AppendLower(nil, text)
	next := nextDefault
	if p == profile.Reference {
		next = nextReference
	}
	var out []string
	for i := 0; ; {
		start, end := next(b, i)
		if start < 0 {
			return out
		}
		out = append(out, string(b[start:end]))
		i = end
	}
}
