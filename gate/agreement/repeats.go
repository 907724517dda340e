package agreement

import (
	"fmt"
	"hash/maphash"
	"runtime"
	"slices"
	"sync"

	"github.com/agentgate/agentgate/gate/input"
)

// Finding a repeated qid among millions of pairs with a map or a hash table costs a cache
// miss a pair; sorting the qids' hashes costs a few sequential passes. So the default profile
// hashes each qid as its pair is read and, once all are read, radix-sorts the hashes with their
// pair indexes, and compares the qids of pairs whose hashes agree. The keys are kept in two
// halves by the hash's top bit, so that two cores sort and search them at once: this search is
// what is left to do, on one goroutine, once every pair is read.

const (
	idxBits = 27 // the low bits of a key hold the pair's index
	idxMask = 1<<idxBits - 1
	maxKeys = 1 << idxBits // beyond this many pairs, fall back to a map

	// sortShift: the keys are sorted by their top 30 bits only, in three passes of ten. Keys
	// that agree there but not in the rest of their hash are told apart when compared; for n
	// keys there are about n²/2³¹ such pairs.
	sortShift = 64 - 30
)

// qidHashes collects one key per pair: the qid's hash in the high 37 bits, the index in the
// low 27.
type qidHashes struct {
	seed maphash.Seed
	keys [2][]uint64 // by the top bit of the hash, in index order
	nums []uint64    // bit i: pair i's qid was a JSON number
}

func newQIDHashes(hint int) *qidHashes {
	h := &qidHashes{seed: maphash.MakeSeed()}
	h.grow(hint)
	return h
}

// grow makes room for the keys of n pairs in all, about half in each half. (With make, not
// slices.Grow: see pipeline.Grow.)
func (h *qidHashes) grow(n int) {
	for k, keys := range h.keys {
		if want := n/2 + n/16 + 16; want > cap(keys) {
			h.keys[k] = make([]uint64, len(keys), want)
			copy(h.keys[k], keys)
		}
	}
}

// cap returns the number of keys there is room for in all before either half must grow:
// twice the room of the smaller half, as they fill about equally.
func (h *qidHashes) cap() int { return 2 * min(cap(h.keys[0]), cap(h.keys[1])) }

// len returns the number of keys.
func (h *qidHashes) len() int { return len(h.keys[0]) + len(h.keys[1]) }

// canon is the text a qid is hashed and compared by: a string itself, a number its exact
// value (so that 1 and 1.0 are one qid, as in Python).
func canon(qid string, num bool) string {
	if num {
		return makeKey(qid, true).s
	}
	return qid
}

// add records pair i's qid; num says it was a JSON number.
func (h *qidHashes) add(i int, qid string, num bool) {
	h.addHash(i, hashQID(h.seed, qid, num), num)
}

// hashQID is the hash add keeps for a qid: workers that decode pairs in parallel compute it
// themselves and hand it to addHash.
func hashQID(seed maphash.Seed, qid string, num bool) uint64 {
	x := maphash.String(seed, canon(qid, num))
	if num {
		x ^= 0x9e3779b97f4a7c15
	}
	return x
}

// addHash records pair i's qid by its hashQID.
func (h *qidHashes) addHash(i int, x uint64, num bool) {
	if num {
		for len(h.nums) <= i/64 {
			h.nums = append(h.nums, 0)
		}
		h.nums[i/64] |= 1 << (i % 64)
	}
	h.keys[x>>63] = append(h.keys[x>>63], x&^idxMask|uint64(i)&idxMask)
}

func (h *qidHashes) isNum(i int) bool { return i/64 < len(h.nums) && h.nums[i/64]&(1<<(i%64)) != 0 }

// firstRepeat returns the first pair, in file order, whose qid an earlier pair already has,
// and that earlier pair: (second, first, true), or false when every qid is distinct. qid
// returns pair i's qid as written; it may be called from two goroutines at once.
func (h *qidHashes) firstRepeat(qid func(i int) string) (second, first int, found bool) {
	n := h.len()
	if n > maxKeys {
		return firstRepeatMap(n, qid, h)
	}
	// Equal qids have equal hashes, so a repeat lies within one half.
	var found2 [2][2]int
	search := func(k int) {
		keys := h.keys[k]
		found2[k][0], found2[k][1] = h.firstRepeatIn(radixSortHigh(keys, make([]uint64, len(keys))), qid)
	}
	if n >= 1<<16 && runtime.GOMAXPROCS(0) > 1 {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			search(1)
		}()
		search(0)
		wg.Wait()
	} else {
		search(0)
		search(1)
	}
	second, first = found2[0][0], found2[0][1]
	if s1 := found2[1][0]; s1 >= 0 && (second < 0 || s1 < second) {
		second, first = s1, found2[1][1]
	}
	return second, first, second >= 0
}

// firstRepeatIn is firstRepeat over keys sorted by radixSortHigh, with second -1 for none.
func (h *qidHashes) firstRepeatIn(keys []uint64, qid func(i int) string) (second, first int) {
	second, first = -1, -1
	n := len(keys)
	for i := 0; i < n; {
		j := i + 1
		for j < n && keys[j]>>sortShift == keys[i]>>sortShift {
			j++
		}
		// keys[i:j] agree in their sorted bits; stable sorting kept them in index order.
		for a := i + 1; a < j; a++ {
			ia := int(keys[a] & idxMask)
			if second >= 0 && ia >= second {
				break
			}
			for b := i; b < a; b++ {
				if keys[b]&^idxMask != keys[a]&^idxMask {
					continue // another hash
				}
				if ib := int(keys[b] & idxMask); h.same(qid, ia, ib) {
					second, first = ia, ib
					break
				}
			}
		}
		i = j
	}
	return second, first
}

// same reports whether pairs a and b have the same qid.
func (h *qidHashes) same(qid func(int) string, a, b int) bool {
	na, nb := h.isNum(a), h.isNum(b)
	return na == nb && canon(qid(a), na) == canon(qid(b), nb)
}

// firstRepeatMap is firstRepeat for more pairs (n) than a key can index.
func firstRepeatMap(n int, qid func(int) string, h *qidHashes) (second, first int, found bool) {
	seen := make(map[qidKey]int, n)
	for i := range n {
		k := qidKey{num: h.isNum(i), s: canon(qid(i), h.isNum(i))}
		if j, ok := seen[k]; ok {
			return i, j, true
		}
		seen[k] = i
	}
	return 0, 0, false
}

// radixSortHigh sorts keys by their top 64 − sortShift bits, stably, using tmp (of the same
// length) as scratch; it returns the slice holding the result.
func radixSortHigh(keys, tmp []uint64) []uint64 {
	const digit, passes = 10, (64 - sortShift) / 10
	if len(keys) == 0 {
		return keys
	}
	var counts [passes][1 << digit]int
	for _, k := range keys {
		for p := 0; p < passes; p++ {
			counts[p][(k>>(sortShift+digit*p))&(1<<digit-1)]++
		}
	}
	src, dst := keys, tmp
	for p := 0; p < passes; p++ {
		c := &counts[p]
		if c[(src[0]>>(sortShift+digit*p))&(1<<digit-1)] == len(src) {
			continue // every key has the same digit
		}
		sum := 0
		for d := range c {
			c[d], sum = sum, sum+c[d]
		}
		shift := uint(sortShift + digit*p)
		for _, k := range src {
			d := (k >> shift) & (1<<digit - 1)
			dst[c[d]] = k
			c[d]++
		}
		src, dst = dst, src
	}
	return src
}

// lineRuns holds the lines of the records read, by record index, as runs of records on
// consecutive lines: a record of JSON Lines is nearly always on the line after the one before,
// so that a batch of them is one run, where a line each took 8 bytes a pair twice over.
type lineRuns []lineRun

// lineRun says that record i is on line, and each record after it, up to the next run, on
// the line after the one before.
type lineRun struct{ i, line int }

// add records that record i, after every record added so far, is on line.
func (r *lineRuns) add(i, line int) {
	if n := len(*r); n > 0 && (*r)[n-1].line+(i-(*r)[n-1].i) == line {
		return
	}
	*r = append(*r, lineRun{i, line})
}

// addAll adds the lines of another list whose record 0 is record base here.
func (r *lineRuns) addAll(base int, o lineRuns) {
	for _, x := range o {
		r.add(base+x.i, x.line)
	}
}

// at returns the line of record i.
func (r lineRuns) at(i int) int {
	k, found := slices.BinarySearchFunc(r, i, func(x lineRun, i int) int { return x.i - i })
	if !found {
		k--
	}
	return r[k].line + i - r[k].i
}

// columns holds the columns of the records read, by record index, for the repeated-qid
// error. Records of JSON Lines all start in column 1; only those of a JSON array that shares
// a line with another record do not, so only those are kept, in index order.
type columns []placedCol

type placedCol struct{ i, col int }

// add records that record i starts in column col.
func (c *columns) add(i, col int) {
	if col != 1 {
		*c = append(*c, placedCol{i, col})
	}
}

// addAll adds the columns of another list whose record 0 is record base here.
func (c *columns) addAll(base int, o columns) {
	for _, p := range o {
		*c = append(*c, placedCol{base + p.i, p.col})
	}
}

// at returns the column of record i.
func (c columns) at(i int) int {
	if k, found := slices.BinarySearchFunc(c, i, func(p placedCol, i int) int { return p.i - i }); found {
		return c[k].col
	}
	return 1
}

// repeatError is the error for a qid read at file:line:col that a record at firstFile:firstLine
// had already; num says the qid was a JSON number.
func repeatError(qid string, num bool, file string, line, col int, firstFile string, firstLine int) error {
	return &input.Error{File: file, Line: line, Col: col, Msg: fmt.Sprintf("qid %s is repeated: it is first at %s:%d", quoteQID(qid, num), firstFile, firstLine)}
}
