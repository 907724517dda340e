package reliability

import (
	"math/bits"
	"slices"
	"unicode/utf8"

	"github.com/agentgate/agentgate/gate/pystr"
)

// msgText is what the signals read of one assistant message's text, each part computed once
// per trace and only when a signal asks for it. Its buffers are kept from trace to trace.
type msgText struct {
	// default profile: word hashes in order, the sorted set of word 3-shingles, the sorted
	// set of words
	words, shingles, set       []uint64
	hasWords, hasShingles, has bool
	// sketch has bit h%128 set for every shingle hash h; nShingles counts the shingles
	// with repeats; sorted says shingles is a sorted set yet
	sketch    [2]uint64
	nShingles int
	sorted    bool

	// reference profile: whether the text was empty, the text Python-lower-cased and
	// stripped, and its set of code points: those below 128 as bits, the others as a sorted
	// set of runes
	empty    bool
	low, buf []byte // low is the stripped part of buf
	charBits [2]uint64
	runes    []rune
	hasChars bool
}

// resetTexts prepares the texts of n assistant messages, keeping the buffers of the last trace.
func (e *eval) resetTexts(n int) {
	if cap(e.texts) < n {
		e.texts = append(e.texts[:cap(e.texts)], make([]msgText, n-cap(e.texts))...)
	}
	e.texts = e.texts[:n]
	for i := range e.texts {
		t := &e.texts[i]
		t.hasWords, t.hasShingles, t.has, t.hasChars = false, false, false, false
	}
}

// text returns assistant message k (an index into e.assistant).
func (e *eval) text(k int) string { return e.t.Messages[e.assistant[k]].Content }

// wordsOf returns the word hashes of assistant message k, in order.
func (e *eval) wordsOf(k int) *msgText {
	t := &e.texts[k]
	if !t.hasWords {
		t.words, e.scratch = appendWordsBuf(t.words[:0], e.scratch, e.text(k))
		t.hasWords = true
	}
	return t
}

// shinglesOf returns assistant message k with its word 3-shingles and their sketch.
func (e *eval) shinglesOf(k int) *msgText {
	t := e.wordsOf(k)
	if !t.hasShingles {
		t.shingles = appendShingles(t.shingles[:0], t.words)
		t.nShingles, t.sorted, t.sketch = len(t.shingles), false, [2]uint64{}
		for _, h := range t.shingles {
			t.sketch[h>>6&1] |= 1 << (h & 63)
		}
		t.hasShingles = true
	}
	return t
}

// shingleSet returns t's shingles as a sorted set.
func (t *msgText) shingleSet() []uint64 {
	if !t.sorted {
		t.shingles, t.sorted = sortedSet(t.shingles), true
	}
	return t.shingles
}

// mayBeAlike reports whether the Jaccard index of the shingle sets of a and b can exceed 0.7,
// from their sketches alone. A bit set in one sketch and not the other is a shingle of one
// text that the other lacks, so the sets differ in at least x = popcount(a ^ b) shingles, and
// their union has at most u = a.nShingles + b.nShingles: the index is at most 1 − x/u.
func mayBeAlike(a, b *msgText) bool {
	x := bits.OnesCount64(a.sketch[0]^b.sketch[0]) + bits.OnesCount64(a.sketch[1]^b.sketch[1])
	u := a.nShingles + b.nShingles
	return 10*(u-x) > 7*u // 1 − x/u > 0.7
}

// wordSet returns the sorted set of t's words.
func (t *msgText) wordSet() []uint64 {
	if !t.has {
		t.set = sortedSet(append(t.set[:0], t.words...))
		t.has = true
	}
	return t.set
}

// wordSimilarity is 0 if either text has no words, 1 if the word sequences are equal, else the
// Jaccard index of the word 3-shingles (of the word sets when a text has fewer than three
// words), so that only near-repeats count. Only whether it exceeds 0.7 matters: when the
// index is sure to be at most 0.7 it returns 0 without computing it.
func (e *eval) wordSimilarity(i, j int) float64 {
	a, b := e.wordsOf(i), e.wordsOf(j)
	if len(a.words) == 0 || len(b.words) == 0 {
		return 0
	}
	if slices.Equal(a.words, b.words) {
		return 1
	}
	if len(a.words) >= 3 && len(b.words) >= 3 {
		a, b = e.shinglesOf(i), e.shinglesOf(j)
		if !mayBeAlike(a, b) {
			return 0 // at most 0.7: not alike, which is all the caller asks
		}
		return jaccard(a.shingleSet(), b.shingleSet())
	}
	return jaccard(a.wordSet(), b.wordSet())
}

// charsOf returns assistant message k as the reference compares it.
func (e *eval) charsOf(k int) *msgText {
	t := &e.texts[k]
	if t.hasChars {
		return t
	}
	text := e.text(k)
	t.empty = text == ""
	t.hasChars = true
	t.runes = t.runes[:0]
	if isASCII(text) {
		// Python's lower-casing and white space, for ASCII: A–Z, and \t \n \v \f \r, the
		// separators U+001C–U+001F and the space
		low := append(t.buf[:0], text...)
		for i, c := range low {
			if c-'A' < 26 {
				low[i] = c + 'a' - 'A'
			}
		}
		t.buf = low
		start, end := 0, len(low)
		for start < end && asciiSpace(low[start]) {
			start++
		}
		for end > start && asciiSpace(low[end-1]) {
			end--
		}
		t.low = low[start:end]
		t.charBits = asciiSet(t.low)
		return t
	}
	t.buf = pystr.AppendLower(t.buf[:0], text)
	t.low = stripBytes(t.buf)
	t.charBits = asciiSet(t.low)
	for i := 0; i < len(t.low); {
		if t.low[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(t.low[i:])
		t.runes = append(t.runes, r)
		i += size
	}
	t.runes = sortedSet(t.runes)
	return t
}

// asciiSet returns the set of the ASCII characters in b as bits: character c is bit c%64 of
// word c/64. Bytes beyond ASCII (those of longer UTF-8 sequences) are left out. The two words
// are locals, not an array indexed by c, so that they stay in registers: the loop carries no
// dependency through memory, and no branch on the text.
func asciiSet(b []byte) [2]uint64 {
	var lo, hi uint64
	for _, c := range b {
		bit := uint64(1) << (c & 63)
		lo |= bit & loMask[c>>6]
		hi |= bit & hiMask[c>>6]
	}
	return [2]uint64{lo, hi}
}

// loMask and hiMask select, by c/64, the word of asciiSet that character c goes in.
var (
	loMask = [4]uint64{^uint64(0), 0, 0, 0}
	hiMask = [4]uint64{0, ^uint64(0), 0, 0}
)

// refSimilarity is RS-1's _simple_similarity: 0 if either text is empty, 1 if the lower-cased
// stripped texts are equal, else the Jaccard index of their sets of code points, counted as
// bits below 128 and as sorted runes above.
func (e *eval) refSimilarity(i, j int) float64 {
	a, b := e.charsOf(i), e.charsOf(j)
	if a.empty || b.empty {
		return 0
	}
	if string(a.low) == string(b.low) {
		return 1
	}
	if len(a.low) == 0 || len(b.low) == 0 {
		return 0 // an empty set of code points
	}
	inter := bits.OnesCount64(a.charBits[0]&b.charBits[0]) + bits.OnesCount64(a.charBits[1]&b.charBits[1])
	union := bits.OnesCount64(a.charBits[0]|b.charBits[0]) + bits.OnesCount64(a.charBits[1]|b.charBits[1])
	if len(a.runes) > 0 || len(b.runes) > 0 {
		common := 0
		for x, y := 0, 0; x < len(a.runes) && y < len(b.runes); {
			switch {
			case a.runes[x] < b.runes[y]:
				x++
			case a.runes[x] > b.runes[y]:
				y++
			default:
				common++
				x++
				y++
			}
		}
		inter += common
		union += len(a.runes) + len(b.runes) - common
	}
	return float64(inter) / float64(union)
}

func asciiSpace(c byte) bool {
	switch c {
	case '\t', '\n', '\v', '\f', '\r', 0x1c, 0x1d, 0x1e, 0x1f, ' ':
		return true
	}
	return false
}

// isASCII reports whether s is all ASCII, eight bytes at a time.
func isASCII(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if x&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
