package compare

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/trace"
	"github.com/agentgate/agentgate/gate/verdict"
)

// outcomeRun is a run of suite "s", task task, trial 0, whose outcome is success and whose
// verdict is FAIL exactly when it failed, so that both paired metrics count the same runs.
func accountedRun(id, task string, success bool) reliability.Result {
	zero := 0
	v := verdict.Pass
	if !success {
		v = verdict.Fail
	}
	return reliability.Result{ID: id, Verdict: v, Attempt: &reliability.Attempt{Suite: "s", Task: task, Trial: &zero},
		Run: trace.Run{Known: true, Success: success, Value: map[bool]float64{true: 1}[success]}}
}

// sideRun is a Run of rs for a comparison.
func sideRun(rs []reliability.Result) *Run {
	s := &reliability.Summary{}
	for _, r := range rs {
		s.Add(r)
	}
	return &Run{Profile: profile.Default, Reliability: s}
}

// TestMissingRunsCounted: the baseline's runs missing from head count as head's failures in
// both paired tests, unless allowed. Each case is a count of runs of each kind; b and c are
// the discordant counts McNemar's test is on, and the p-values are scipy's:
//
//	from scipy.stats import binomtest
//	binomtest(min(b, c), b + c, 0.5).pvalue
//
// (24, 0) 1.1920928955078125e-07; (14, 3) 0.012725830078125; (5, 3) 0.7265625; (2, 4) 0.6875;
// (55, 12) 1.0273195443541004e-07; (30, 12) 0.007915897334896727; (80, 0)
// 1.6543612251060553e-24.
func TestMissingRunsCounted(t *testing.T) {
	type kinds struct{ newFail, fixed, bothSucc, bothFail, missingSucc, missingFail, added int }
	for _, c := range []struct {
		name              string
		k                 kinds
		b, c              int // counted
		p                 float64
		allowB, allowC    int // allow-missing-runs
		allowP            float64
		allowInconclusive bool
	}{
		{"24 successes dropped", kinds{bothSucc: 56, missingSucc: 24}, 24, 0, 1.1920928955078125e-07, 0, 0, 1, false},
		{"some of each", kinds{newFail: 5, fixed: 3, bothSucc: 50, bothFail: 5, missingSucc: 9, missingFail: 3, added: 4},
			14, 3, 0.012725830078125, 5, 3, 0.7265625, false},
		{"missing failures change nothing", kinds{newFail: 2, fixed: 4, bothSucc: 28, missingFail: 6}, 2, 4, 0.6875, 2, 4, 0.6875, false},
		{"a large suite", kinds{newFail: 30, fixed: 12, bothSucc: 900, bothFail: 33, missingSucc: 25}, 55, 12, 1.0273195443541004e-07, 30, 12, 0.007915897334896727, false},
		{"the suite renamed", kinds{missingSucc: 80, added: 80}, 80, 0, 1.6543612251060553e-24, 0, 0, 1, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var base, head []reliability.Result
			n := 0
			add := func(count int, inBase, inHead *bool) {
				for range count {
					task := fmt.Sprintf("t%04d", n)
					n++
					if inBase != nil {
						base = append(base, accountedRun("b"+task, task, *inBase))
					}
					if inHead != nil {
						head = append(head, accountedRun("h"+task, task, *inHead))
					}
				}
			}
			yes, no := true, false
			add(c.k.newFail, &yes, &no)
			add(c.k.fixed, &no, &yes)
			add(c.k.bothSucc, &yes, &yes)
			add(c.k.bothFail, &no, &no)
			add(c.k.missingSucc, &yes, nil)
			add(c.k.missingFail, &no, nil)
			add(c.k.added, nil, &yes)
			matched := c.k.newFail + c.k.fixed + c.k.bothSucc + c.k.bothFail
			missing := c.k.missingSucc + c.k.missingFail
			baseSucc := c.k.bothSucc + c.k.newFail + c.k.missingSucc
			headSucc := c.k.bothSucc + c.k.fixed + c.k.added

			for _, allow := range []bool{false, true} {
				o := DefaultOptions()
				o.AllowMissingRuns = allow
				cmp, err := Compare(&Baseline{Run: *sideRun(base)}, sideRun(head), o)
				if err != nil {
					t.Fatal(err)
				}
				b, cc, p, compared, inconclusive := c.b, c.c, c.p, matched+missing, false
				if allow {
					b, cc, p, compared, inconclusive = c.allowB, c.allowC, c.allowP, matched, c.allowInconclusive
				}
				s, r := cmp.Success, cmp.Reliability
				if s == nil {
					t.Fatal("success not compared")
				}
				for _, tt := range []struct {
					name        string
					test        *Test
					newF, missF int
					fixed       int
				}{{"success", &s.Test, s.NewFailures, s.MissingNewFailures, s.Fixed}, {"reliability", &r.Test, r.NewFailures, r.MissingNewFailures, r.Fixed}} {
					wantMiss := 0
					if !allow {
						wantMiss = c.k.missingSucc
					}
					if tt.newF != b || tt.fixed != cc || tt.missF != wantMiss || tt.test.Matched != matched || tt.test.Compared != compared ||
						tt.test.Removed.Count != missing || tt.test.Added.Count != c.k.added || !near(tt.test.P, p, 1e-12*p) {
						t.Errorf("allow %v, %s: new %d (missing %d) fixed %d matched %d compared %d removed %d added %d p %.17g; want %d (%d) %d %d %d %d %d %.17g",
							allow, tt.name, tt.newF, tt.missF, tt.fixed, tt.test.Matched, tt.test.Compared, tt.test.Removed.Count, tt.test.Added.Count, tt.test.P,
							b, wantMiss, cc, matched, compared, missing, c.k.added, p)
					}
					if (tt.test.Outcome == Inconclusive) != inconclusive {
						t.Errorf("allow %v, %s: outcome %s", allow, tt.name, tt.test.Outcome)
					}
				}
				// The base side's rate is over the runs compared; head's over those and its added
				// runs, a missing run counted as failed.
				wantBase := baseSucc
				if allow {
					wantBase = baseSucc - c.k.missingSucc
				}
				if s.BaseSuccesses != wantBase || s.HeadSuccesses != headSucc || s.HeadRuns != compared+c.k.added {
					t.Errorf("allow %v: successes %d of %d, %d of %d; want %d, %d of %d", allow, s.BaseSuccesses, s.Compared, s.HeadSuccesses, s.HeadRuns,
						wantBase, headSucc, compared+c.k.added)
				}
				if r.BaseFail != compared-wantBase || r.HeadFail != s.HeadRuns-headSucc || r.HeadRuns != s.HeadRuns {
					t.Errorf("allow %v: FAIL %d of %d, %d of %d", allow, r.BaseFail, r.Compared, r.HeadFail, r.HeadRuns)
				}
				if cmp.AllowMissingRuns != allow || cmp.Matching.Missing != missing || cmp.Matching.Added != c.k.added {
					t.Errorf("allow %v: comparison %v, matching %+v", allow, cmp.AllowMissingRuns, cmp.Matching)
				}
			}
		})
	}
}

// TestNormPart: zero-width and bidi controls go, then NFC, then the surrounding space; a
// letter of another script stays another letter.
func TestNormPart(t *testing.T) {
	for in, want := range map[string]string{
		"task-7":               "task-7",
		"task-7\u200b":         "task-7",
		" task-7":              "task-7",
		"\u00a0task-7\t":       "task-7",
		"\u200b task-7 \ufeff": "task-7",
		"ta\u200dsk-7":         "task-7",
		"\u202etask-7\u202c":   "task-7",
		"\u2066task-7\u2069":   "task-7",
		"caf\u0065\u0301":      "caf\u00e9",
		"cafe\u200b\u0301":     "caf\u00e9", // the control between letter and accent goes first
		"\u0430irline":         "\u0430irline",
		"":                     "",
		" ":                    "",
		"a b":                  "a b",
	} {
		if got := normPart(in); got != want {
			t.Errorf("normPart(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestNormalisedMatch: runs whose task ids differ only by what normPart removes are matched,
// and the matching names them.
func TestNormalisedMatch(t *testing.T) {
	base := []reliability.Result{accountedRun("b1", "t1", true), accountedRun("b2", "t2", true), accountedRun("b3", "caf\u00e9", true)}
	head := []reliability.Result{accountedRun("h1", "t1\u200b", false), accountedRun("h2", " t2", true), accountedRun("h3", "cafe\u0301", true)}
	c := mustCompare(t, &Baseline{Run: *sideRun(base)}, sideRun(head))
	if m := c.Matching; m.Matched != 3 || m.Missing != 0 || m.Added != 0 || m.Normalised.Count != 3 ||
		!reflect.DeepEqual(m.Normalised.First, []string{"s/cafe\u0301#0", "s/t1\u200b#0", "s/ t2#0"}) {
		t.Errorf("matching %+v", m)
	}
	if s := c.Success; s.NewFailures != 1 || s.Compared != 3 {
		t.Errorf("success %+v", s.Test)
	}
	// As written on both sides: nothing to note.
	if m := mustCompare(t, &Baseline{Run: *sideRun(head)}, sideRun(head)).Matching; m.Normalised.Count != 0 || m.Matched != 3 {
		t.Errorf("self: %+v", m)
	}
}

// TestDuplicates: runs of one side that share an identity (after normalising) are compared by
// their worse verdict and outcome, and named when they disagree; a second record of a trial
// that Renumber moved to a trial the baseline lacks is such a duplicate.
func TestDuplicates(t *testing.T) {
	base := []reliability.Result{accountedRun("b1", "t1", true), accountedRun("b2", "t2", true), accountedRun("b3", "t3", true)}
	head := []reliability.Result{
		accountedRun("h1", "t1", true), accountedRun("h1x", "t1\u200b", false), // disagree: the failure is compared
		accountedRun("h2", "t2", true), accountedRun("h2x", "t2", true), // agree: not named
		accountedRun("h3", "t3", true),
	}
	c := mustCompare(t, &Baseline{Run: *sideRun(base)}, sideRun(head))
	if s := c.Success; s.NewFailures != 1 || s.Matched != 3 || s.Added.Count != 0 || s.HeadSuccesses != 2 || !reflect.DeepEqual(s.NewFailureIDs, []string{"h1x"}) {
		t.Errorf("success %+v", s)
	}
	if r := c.Reliability; r.NewFailures != 1 || len(r.NewFailureTraces) != 1 || r.NewFailureTraces[0].Head.ID != "h1x" {
		t.Errorf("reliability %+v", r)
	}
	if m := c.Matching; m.HeadDuplicates.Count != 1 || !reflect.DeepEqual(m.HeadDuplicates.First, []string{"s/t1\u200b#0"}) || m.BaseDuplicates.Count != 0 {
		t.Errorf("matching %+v", m)
	}

	// The failure as a second record of t1's trial 0: Renumber gives one of the two trial 1
	// (the one whose content sorts last), which the baseline lacks, so it is compared as trial
	// 0's second record.
	head = []reliability.Result{accountedRun("h1", "t1", true), accountedRun("h2", "t2", true), accountedRun("h3", "t3", true), accountedRun("h1x", "t1", false)}
	moved, kept := &head[3], &head[0]
	if head[0].ContentKey() > head[3].ContentKey() {
		moved, kept = kept, moved
	}
	if !Renumber(head) || *moved.Trial != 1 || *moved.WrittenTrial != 0 || *kept.Trial != 0 || kept.WrittenTrial != nil {
		t.Fatalf("renumbered %+v and %+v", moved.Attempt, kept.Attempt)
	}
	c = mustCompare(t, &Baseline{Run: *sideRun(base)}, sideRun(head))
	if s := c.Success; s.NewFailures != 1 || s.Added.Count != 0 || s.Matched != 3 {
		t.Errorf("second record: success %+v", s.Test)
	}
	if m := c.Matching; !reflect.DeepEqual(m.HeadDuplicates.First, []string{"s/t1#0"}) {
		t.Errorf("second record: matching %+v", m)
	}
	// When the baseline has that trial too (two results files on both sides), it is a trial.
	base2 := append(slices.Clone(base), accountedRun("b1x", "t1", true))
	base2[3].Attempt = &reliability.Attempt{Suite: "s", Task: "t1", Trial: new(int)}
	*base2[3].Trial = 1
	c = mustCompare(t, &Baseline{Run: *sideRun(base2)}, sideRun(head))
	if s := c.Success; s.NewFailures != 1 || s.Matched != 4 || c.Matching.HeadDuplicates.Count != 0 {
		t.Errorf("a further trial: success %+v, matching %+v", s.Test, c.Matching)
	}
}

// FuzzCompareAccounted: whatever the two sides hold (identities with stray spaces and
// zero-width characters, duplicates, runs without outcomes), every baseline identity is
// matched or missing, a missing one counted unless allowed; the order of either side's runs
// changes no figure; a side compared with itself changes nothing; and flipping k matched runs'
// outcomes from success to failure (or verdicts to FAIL) in head gives exactly k more new
// failures.
func FuzzCompareAccounted(f *testing.F) {
	f.Add([]byte("abcdefghijklmnopqrstuvwxyz"), []byte("zyxwvutsrqponmlkjihgfedcba"), uint64(1), uint8(3))
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, []byte{9, 8, 7, 7, 0, 0, 12}, uint64(7), uint8(2))
	f.Fuzz(func(t *testing.T, b, h []byte, seed uint64, k uint8) {
		side := func(data []byte, prefix string) []reliability.Result {
			var out []reliability.Result
			for i, x := range data {
				if i == 48 {
					break
				}
				task := fmt.Sprint(x % 11)
				switch x % 7 {
				case 1:
					task = " " + task
				case 2:
					task += "\u200b"
				}
				trial := int(x/11) % 2
				v := []verdict.Verdict{verdict.Pass, verdict.Warn, verdict.Fail}[(x/3)%3]
				out = append(out, reliability.Result{ID: fmt.Sprintf("%s-%d", prefix, 97-i), Verdict: v, Score: float64(x%5) / 5,
					Attempt: &reliability.Attempt{Suite: "s", Task: task, Trial: &trial},
					Run:     trace.Run{Known: x%13 != 0, Success: x%2 == 0, Value: float64(x % 2)}})
			}
			return out
		}
		base, head := side(b, "base"), side(h, "head")
		if len(base) == 0 || len(head) == 0 {
			return
		}
		compare := func(bs, hs []reliability.Result, allow bool) *Comparison {
			o := DefaultOptions()
			o.AllowMissingRuns = allow
			c, err := Compare(&Baseline{Run: *sideRun(bs)}, sideRun(hs), o)
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
		identities := func(rs []reliability.Result) int {
			seen := map[string]bool{}
			for i := range rs {
				seen[matchKey{identity: true, suite: true}.of(&rs[i])] = true
			}
			return len(seen)
		}
		for _, allow := range []bool{false, true} {
			c := compare(base, head, allow)
			r := c.Reliability
			if r.Matched+r.Removed.Count != identities(base) || r.Matched+r.Added.Count != identities(head) {
				t.Fatalf("allow %v: %d matched, %d missing of %d baseline identities; %d added of %d head's", allow, r.Matched, r.Removed.Count,
					identities(base), r.Added.Count, identities(head))
			}
			if want := r.Matched + map[bool]int{false: r.Removed.Count}[allow]; r.Compared != want {
				t.Fatalf("allow %v: compared %d, want %d", allow, r.Compared, want)
			}
			want := comparisonFigures(c)
			rng := rand.New(rand.NewPCG(seed, seed>>1))
			pb, ph := slices.Clone(base), slices.Clone(head)
			rng.Shuffle(len(pb), func(i, j int) { pb[i], pb[j] = pb[j], pb[i] })
			rng.Shuffle(len(ph), func(i, j int) { ph[i], ph[j] = ph[j], ph[i] })
			if got := comparisonFigures(compare(pb, ph, allow)); got != want {
				t.Fatalf("allow %v, shuffled:\n%s\nwant\n%s", allow, got, want)
			}
		}
		self := compare(base, slices.Clone(base), false)
		for _, m := range self.Metrics() {
			if m.Test.P != 1 || m.Test.Direction != Same || m.Test.Removed.Count != 0 || m.Test.Added.Count != 0 {
				t.Fatalf("self-comparison: %s %+v", m.Name, *m.Test)
			}
		}
		if s := self.Success; s != nil && (s.NewFailures != 0 || s.Fixed != 0) {
			t.Fatalf("self-comparison: success %+v", s.Test)
		}
		// Flip k identities that succeeded on both sides (every run of the identity in head).
		c := compare(base, head, false)
		if c.Success == nil {
			return
		}
		flipped := slices.Clone(head)
		m := matchRuns(base, head, matchKey{identity: true, suite: true})
		done := 0
		for _, u := range m.units {
			if done == int(k%8) || u.base.n == 0 || u.head.n == 0 {
				continue
			}
			bk, bs := m.base.outcome(u.base)
			hk, hs := m.head.outcome(u.head)
			if !bk || !hk || !bs || !hs {
				continue
			}
			for _, j := range m.head.of(u.head) {
				flipped[j].Run.Success = false
			}
			done++
		}
		if got := compare(base, flipped, false).Success.NewFailures; got != c.Success.NewFailures+done {
			t.Fatalf("flipped %d: %d new failures, want %d + %d", done, got, c.Success.NewFailures, done)
		}
		// The same for verdicts: k identities not FAIL on either side made FAIL in head.
		flipped = slices.Clone(head)
		done = 0
		for _, u := range m.units {
			if done == int(k%8) || u.base.n == 0 || u.head.n == 0 ||
				m.base.worst(u.base).Verdict == verdict.Fail || m.head.worst(u.head).Verdict == verdict.Fail {
				continue
			}
			flipped[m.head.of(u.head)[0]].Verdict = verdict.Fail
			done++
		}
		if got := compare(base, flipped, false).Reliability.NewFailures; got != c.Reliability.NewFailures+done {
			t.Fatalf("flipped %d verdicts: %d new failures, want %d + %d", done, got, c.Reliability.NewFailures, done)
		}
	})
}
