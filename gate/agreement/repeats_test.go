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
			if i%7 == 0 && i > 0 {
				h = keys[i-1] // equal hash bits, a later index
			}
			keys[i] = h&^idxMask | uint64(i)
		}
		want := slices.Clone(keys)
		slices.SortStableFunc(want, func(a, b uint64) int {
			switch {
			case a&^idxMask < b&^idxMask:
				return -1
			case a&^idxMask > b&^idxMask:
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
