package compare

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/trace"
	"github.com/agentgate/agentgate/gate/verdict"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/compare-*.json from what Compare gives")

// goldenSide is n generated runs of one side: ids, or identities (task and trial, with a
// suite when suites), some of them written with stray spaces, zero-width characters or a
// decomposed é, some repeated on a side (a second record of a trial, renumbered), and
// verdicts, scores and outcomes drawn from seed.
func goldenSide(n int, seed uint64, identities, suites bool) []reliability.Result {
	rng := rand.New(rand.NewPCG(seed, 7))
	out := make([]reliability.Result, 0, n)
	for i := range n {
		k := rng.IntN(n + n/5) // some of either side's keys are the other's only
		id := fmt.Sprintf("run-%05d", k)
		task := fmt.Sprintf("t%04d", k/3)
		switch rng.IntN(40) {
		case 0:
			id, task = id+"\u200b", task+"\u200b"
		case 1:
			id, task = " "+id, " "+task
		case 2:
			id, task = id+"e\u0301", task+"e\u0301"
		}
		if !identities {
			task = ""
		}
		v := []verdict.Verdict{verdict.Pass, verdict.Pass, verdict.Warn, verdict.Fail}[rng.IntN(4)]
		r := reliability.Result{ID: fmt.Sprintf("%s.%d", id, i), Verdict: v, Score: float64(rng.IntN(100)) / 100,
			Run: trace.Run{Known: rng.IntN(9) != 0, Success: rng.IntN(3) != 0, Tokens: int64(rng.IntN(5000))}}
		if !identities {
			r.ID = id
		}
		if task != "" {
			trial := k % 3
			r.Attempt = &reliability.Attempt{Task: task, Trial: &trial}
			if suites {
				r.Suite = []string{"airline", "retail"}[k%2]
			}
		}
		out = append(out, r)
	}
	if identities {
		Renumber(out)
	} else {
		seen := map[string]bool{}
		kept := out[:0]
		for _, r := range out {
			if !seen[r.ID] {
				seen[r.ID] = true
				kept = append(kept, r)
			}
		}
		out = kept
	}
	return out
}

// TestCompareGolden: the comparison of generated sides of a thousand runs, matched on
// trace ids, on task and trial, and on suite, task and trial, is the one in testdata byte for
// byte. The files were written before the matching was made compact (docs/performance.md,
// "A million runs"), so that it changes no figure, list or order.
func TestCompareGolden(t *testing.T) {
	for _, c := range []struct {
		name              string
		identities, suite bool
	}{{"ids", false, false}, {"tasks", true, false}, {"suites", true, true}} {
		t.Run(c.name, func(t *testing.T) {
			base, head := goldenSide(1000, 1, c.identities, c.suite), goldenSide(1000, 2, c.identities, c.suite)
			for _, allow := range []bool{false, true} {
				compareWith := mustCompare
				if allow {
					compareWith = mustCompareAllowing
				}
				got, err := json.MarshalIndent(compareWith(t, &Baseline{Run: *sideRun(base)}, sideRun(head)), "", " ")
				if err != nil {
					t.Fatal(err)
				}
				path := filepath.Join("testdata", fmt.Sprintf("compare-%s-allow-%v.json", c.name, allow))
				if *updateGolden {
					if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(append(got, '\n'), want) {
					t.Errorf("%s: the comparison differs from the one in testdata (%d bytes, want %d)", path, len(got)+1, len(want))
				}
			}
		})
	}
}
