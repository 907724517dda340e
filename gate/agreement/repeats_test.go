package agreement

import (
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestFirstRepeat checks the search for a repeated qid against a plain map of Python's
// values: 7 and 7.0 are one qid, the number 7 and the string "7" are not.
func TestFirstRepeat(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 200; trial++ {
		n := 1 + r.IntN(3000)
		qids := make([]string, n)
		nums := make([]bool, n)
		for i := range qids {
			switch r.IntN(4) {
			case 0: // a number, sometimes written as a float
				qids[i], nums[i] = strconv.Itoa(r.IntN(4*n)), true
				if r.IntN(2) == 0 {
					qids[i] += ".0"
				}
			case 1: // a string that reads as a number
				qids[i] = strconv.Itoa(r.IntN(4 * n))
			default:
				qids[i] = "q" + strconv.Itoa(r.IntN(8*n))
			}
		}
		seen := map[string]int{}
		want := "<nil>"
		for i := range qids {
			k := "s" + qids[i]
			if nums[i] {
				v, _ := strconv.ParseFloat(qids[i], 64)
				k = "n" + strconv.FormatFloat(v, 'g', -1, 64)
			}
			if j, ok := seen[k]; ok {
				want = fmt.Sprintf("f:%d:1: qid %s is repeated: it is first at f:%d", i+1, quoteQID(qids[i], nums[i]), j+1)
				break
			}
			seen[k] = i
		}
		rep := newRepeats(0)
		got := "<nil>"
		for i := range qids {
			if err := rep.add([]byte(qids[i]), nums[i], "f", i+1, 1); err != nil {
				got = err.Error()
				break
			}
		}
		if got != want {
			t.Fatalf("trial %d: got %s, want %s", trial, got, want)
		}
	}
}

// TestRepeatAcrossFiles: the error names the file the qid was first read in, and the column
// of the repeat.
func TestRepeatAcrossFiles(t *testing.T) {
	rep := newRepeats(0)
	for _, c := range []struct {
		qid       string
		num       bool
		file      string
		line, col int
		want      string
	}{
		{"a", false, "x.jsonl", 1, 1, "<nil>"},
		{"7", true, "x.jsonl", 2, 1, "<nil>"},
		{"7", false, "y.json", 1, 2, "<nil>"},
		{"b", false, "y.json", 1, 40, "<nil>"},
		{"7e0", true, "y.json", 2, 2, "y.json:2:2: qid 7e0 is repeated: it is first at x.jsonl:2"},
		{"b", false, "z.jsonl", 3, 1, `z.jsonl:3:1: qid "b" is repeated: it is first at y.json:1`},
	} {
		got := fmt.Sprint(rep.add([]byte(c.qid), c.num, c.file, c.line, c.col))
		if got != c.want {
			t.Errorf("%s %v at %s:%d:%d: got %s, want %s", c.qid, c.num, c.file, c.line, c.col, got, c.want)
		}
	}
	var none *repeats // the reference profile keeps repeats
	if err := none.add([]byte("a"), false, "f", 1, 1); err != nil {
		t.Error(err)
	}
}

// TestRepeatHashCollision: a qid whose hash an earlier, different qid has is not taken for a
// repeat, and is found when it repeats itself. (The collision is made by hand: with 64-bit
// hashes it is as good as never met.)
func TestRepeatHashCollision(t *testing.T) {
	rep := newRepeats(0)
	if err := rep.add([]byte("a"), false, "f", 1, 1); err != nil {
		t.Fatal(err)
	}
	// "b" now hashes where "a" is.
	rep.first[maphash.Bytes(rep.seed, []byte("b"))] = rep.first[maphash.Bytes(rep.seed, []byte("a"))]
	for _, c := range []struct {
		qid  string
		line int
		want string
	}{
		{"b", 2, "<nil>"},
		{"a", 3, `f:3:1: qid "a" is repeated: it is first at f:1`},
		{"b", 4, `f:4:1: qid "b" is repeated: it is first at f:2`},
	} {
		if got := fmt.Sprint(rep.add([]byte(c.qid), false, "f", c.line, 1)); got != c.want {
			t.Errorf("%s at line %d: got %s, want %s", c.qid, c.line, got, c.want)
		}
	}
}
