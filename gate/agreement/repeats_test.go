package agreement

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// TestRadixSortHigh: the radix sort orders keys by their hash bits and keeps keys with equal
// hash bits in their original order, as a stable comparison sort does.
func TestRadixSortHigh(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 100, 5000} {
		keys := make([]uint64, n)
		for i := range keys {
			h := r.Uint64()
			switch {
			case i%7 == 0 && i > 0:
				h = keys[i-1] // equal hash bits, a later index
			case i%11 == 0 && i > 0:
				h = keys[i-1]>>sortShift<<sortShift | h&(1<<sortShift-1) // equal sorted bits only
			}
			keys[i] = h&^idxMask | uint64(i)
		}
		want := slices.Clone(keys)
		slices.SortStableFunc(want, func(a, b uint64) int {
			switch {
			case a>>sortShift < b>>sortShift:
				return -1
			case a>>sortShift > b>>sortShift:
				return 1
			}
			return 0
		})
		got := radixSortHigh(slices.Clone(keys), make([]uint64, n))
		if !slices.Equal(got, want) {
			t.Errorf("n = %d: radix sort differs from a stable sort", n)
		}
	}
}

// TestFirstRepeat checks the hash-and-sort search for a repeated qid against a plain map.
func TestFirstRepeat(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 200; trial++ {
		n := 1 + r.IntN(3000)
		pairs := make([]Pair, n)
		nums := make([]bool, n)
		for i := range pairs {
			switch r.IntN(4) {
			case 0: // a number, sometimes written as a float
				v := r.IntN(4 * n)
				pairs[i].QID, nums[i] = strconv.Itoa(v), true
				if r.IntN(2) == 0 {
					pairs[i].QID += ".0"
				}
			default:
				pairs[i].QID = "q" + strconv.Itoa(r.IntN(8*n))
			}
		}
		h := newQIDHashes(n)
		for i := range pairs {
			h.add(i, pairs[i].QID, nums[i])
		}
		qid := func(i int) string { return pairs[i].QID }
		second, first, found := h.firstRepeat(qid)
		// The oracle: 7 and 7.0 are one qid, the number 7 and the string "7" are not.
		seen := map[string]int{}
		ws, wf, wfound := 0, 0, false
		for i, p := range pairs {
			k := "s" + p.QID
			if nums[i] {
				v, _ := strconv.ParseFloat(p.QID, 64)
				k = "n" + strconv.FormatFloat(v, 'g', -1, 64)
			}
			if j, ok := seen[k]; ok {
				ws, wf, wfound = i, j, true
				break
			}
			seen[k] = i
		}
		if found != wfound || found && (second != ws || first != wf) {
			t.Fatalf("trial %d: got %d %d %v, want %d %d %v", trial, second, first, found, ws, wf, wfound)
		}
		if s2, f2, ok2 := firstRepeatMap(len(pairs), qid, h); ok2 != wfound || ok2 && (s2 != ws || f2 != wf) {
			t.Fatalf("trial %d: map fallback got %d %d %v", trial, s2, f2, ok2)
		}
	}
}

// TestFirstRepeatCollisions: keys that agree in the bits sorted by but not in the rest of
// the hash, and equal hashes of different qids, are not repeats; the first repeat is found
// whichever half of the keys holds it, with one goroutine and with two.
func TestFirstRepeatCollisions(t *testing.T) {
	// key returns a key for pair i in group g: groups of four share their sorted bits, and
	// within a group, pairs 2k and 2k+1 share the rest of the hash too. The top bit, which
	// picks the half, alternates between groups.
	key := func(g, k int) uint64 {
		return uint64(g)<<sortShift | uint64(g&1)<<63 | uint64(k/2+1)<<idxBits
	}
	for _, n := range []int{12, 1 << 16} { // one goroutine, then two
		qids := make([]string, n)
		h := &qidHashes{}
		for i := range n {
			qids[i] = "q" + strconv.Itoa(i)
			h.addHash(i, key(i/4, i%4), false)
		}
		qid := func(i int) string { return qids[i] }
		if s, f, found := h.firstRepeat(qid); found {
			t.Fatalf("n = %d: no qid repeats, found %d %d", n, s, f)
		}
		// Pairs 9 and 11 (group 2, top bit clear) and 6 and 7 (group 1, top bit set)
		// repeat a qid, as do 1 and 3 later in a group of their own: 7 comes first.
		qids[11], qids[7] = qids[9], qids[6]
		h = &qidHashes{}
		for i := range n {
			x := key(i/4, i%4)
			switch i {
			case 11:
				x = key(2, 1) // pair 9's hash
			case 1, 3:
				x = key(n, 0)
			}
			h.addHash(i, x, false)
		}
		qids[3] = qids[1]
		if s, f, found := h.firstRepeat(qid); !found || s != 3 || f != 1 {
			t.Errorf("n = %d: got %d %d %v, want 3 1 true", n, s, f, found)
		}
		qids[3] = "other"
		if s, f, found := h.firstRepeat(qid); !found || s != 7 || f != 6 {
			t.Errorf("n = %d: got %d %d %v, want 7 6 true", n, s, f, found)
		}
	}
}

// TestLineRuns: lines kept as runs come back as they went in, for records on consecutive
// lines, after blank lines, in a new file, and several on one line.
func TestLineRuns(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 100; trial++ {
		var lines []int
		line := 1 + r.IntN(3)
		for range 1 + r.IntN(300) {
			lines = append(lines, line)
			switch r.IntN(10) {
			case 0: // a new file
				line = 1
			case 1: // blank lines
				line += 2 + r.IntN(3)
			case 2: // another record on the same line
			default:
				line++
			}
		}
		// as workers add them, in batches, then the merger
		var all lineRuns
		for base := 0; base < len(lines); {
			n := min(1+r.IntN(40), len(lines)-base)
			var batch lineRuns
			for i := range n {
				batch.add(i, lines[base+i])
			}
			all.addAll(base, batch)
			base += n
		}
		for i, want := range lines {
			if got := all.at(i); got != want {
				t.Fatalf("trial %d: record %d on line %d, want %d (runs %v)", trial, i, got, want, all)
			}
		}
		if len(all) > len(lines) {
			t.Fatalf("%d runs for %d records", len(all), len(lines))
		}
	}
	var one lineRuns
	for i := range 1000 {
		one.add(i, 7+i)
	}
	if len(one) != 1 {
		t.Errorf("consecutive lines took %d runs", len(one))
	}
}
