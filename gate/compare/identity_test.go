package compare

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/trace"
	"github.com/agentgate/agentgate/gate/verdict"
)

// runs makes traces of identities from data, three bytes a run: its task (one of four), its
// suite (one of three, or none) and its trial (one of five, or none); what the rest of the
// bytes hold is what the run recorded (its messages and outcome), and its id is its place.
func runs(data []byte) []reliability.Result {
	var out []reliability.Result
	for i := 0; i+2 < len(data) && len(out) < 64; i += 3 {
		a := &reliability.Attempt{Task: string('a' + data[i]%4)}
		if data[i+1]%2 == 0 {
			a.Suite = "s" + fmt.Sprint(data[i+1]%3)
		}
		if data[i+2]%4 != 0 {
			n := int(data[i+2] % 5)
			a.Trial = &n
		}
		out = append(out, reliability.Result{ID: fmt.Sprint(len(out)), Attempt: a, Messages: int32(data[i] / 4 % 3),
			Run: trace.Run{Known: data[i+1]/2%2 == 0, Value: float64(data[i+2] / 5 % 2)}})
	}
	return out
}

// cloneRuns copies traces with attempts of their own.
func cloneRuns(traces []reliability.Result) []reliability.Result {
	out := slices.Clone(traces)
	for i := range out {
		if a := out[i].Attempt; a != nil {
			c := *a
			out[i].Attempt = &c
		}
	}
	return out
}

// FuzzRenumber: after Renumber no two runs share an identity; of the runs that shared one
// with a trial, the one whose content (then id) sorts first keeps it and the others do not;
// the runs in reverse order get the same trials (which run keeps an identity follows the
// runs, not their order: docs/comparison-and-statistics.md, "Which run is which: identity");
// a second Renumber changes nothing.
func FuzzRenumber(f *testing.F) {
	f.Add([]byte{0, 0, 1, 0, 0, 1, 1, 1, 0, 1, 1, 0})
	f.Add([]byte{3, 2, 0, 3, 2, 0, 3, 2, 4})
	f.Add([]byte{0, 0, 1, 4, 2, 6, 8, 0, 11, 0, 2, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		traces := runs(data)
		reversed := cloneRuns(traces)
		slices.Reverse(reversed)
		before := make([]string, len(traces))
		least := map[string]int{} // the run of each identity whose content, then id, sorts first
		for i := range traces {
			before[i] = (matchKey{identity: true, suite: true}).of(&traces[i])
			if j, ok := least[before[i]]; !ok || traces[i].ContentKey()+"\x00"+traces[i].ID < traces[j].ContentKey()+"\x00"+traces[j].ID {
				least[before[i]] = i
			}
		}
		Renumber(traces)
		Renumber(reversed)
		seen := map[string]bool{}
		for i := range traces {
			k := (matchKey{identity: true, suite: true}).of(&traces[i])
			if seen[k] {
				t.Fatalf("run %d shares its identity %q after Renumber", i, k)
			}
			seen[k] = true
			if !wasTrialless(before[i]) && (k == before[i]) != (least[before[i]] == i) {
				t.Errorf("run %d of %q is %q: kept %v, the run that sorts first %v", i, before[i], k, k == before[i], least[before[i]] == i)
			}
			if r := (matchKey{identity: true, suite: true}).of(&reversed[len(traces)-1-i]); r != k {
				t.Errorf("run %d is %q, and %q read in reverse order", i, k, r)
			}
		}
		if Renumber(traces) {
			t.Error("a second Renumber changed runs")
		}
	})
}

// wasTrialless reports whether a key was of a run with no trial (its key ends with the task's
// closing quote).
func wasTrialless(k string) bool { return k[len(k)-1] == '"' }

// TestRenumber: two files' trials 0 and 1 of one task become 0, 1, 2, 3 in order; a task's
// runs without a trial are numbered from 0; a task's one run without a trial keeps none; the
// same task in another suite is another task.
func TestRenumber(t *testing.T) {
	trial := func(n int) *int { return &n }
	at := func(suite, task string, n *int) reliability.Result {
		return reliability.Result{Attempt: &reliability.Attempt{Suite: suite, Task: task, Trial: n}}
	}
	traces := []reliability.Result{at("x", "1", trial(0)), at("x", "1", trial(1)), at("y", "1", trial(0)),
		at("x", "1", trial(0)), at("x", "1", trial(1)), at("", "swe", nil), at("", "swe", nil), at("", "one", nil), {ID: "no task"}}
	if !Renumber(traces) {
		t.Fatal("nothing renumbered")
	}
	var got []string
	for _, tr := range traces {
		s := "-"
		if a := tr.Attempt; a != nil {
			s = a.Suite + "/" + a.Task + "/"
			if a.Trial != nil {
				s += fmt.Sprint(*a.Trial)
			}
		}
		got = append(got, s)
	}
	if want := "[x/1/0 x/1/1 y/1/0 x/1/2 x/1/3 /swe/0 /swe/1 /one/ -]"; fmt.Sprint(got) != want {
		t.Errorf("got %v, want %s", got, want)
	}
}

// sideOf makes a side's runs from data: unique identities (task i of suite i%2, trial i%3),
// ids that do not sort as the runs do, and a verdict and an outcome from each byte.
func sideOf(data []byte, prefix string) []reliability.Result {
	var out []reliability.Result
	for i, b := range data {
		if i == 40 {
			break
		}
		trial := i % 3
		v := []verdict.Verdict{verdict.Pass, verdict.Warn, verdict.Fail}[b%3]
		out = append(out, reliability.Result{ID: fmt.Sprintf("%s-%d", prefix, 97-i), Verdict: v, Score: float64(b%7) / 7,
			Attempt: &reliability.Attempt{Suite: fmt.Sprint(i % 2), Task: fmt.Sprint(i / 3), Trial: &trial},
			Run:     trace.Run{Known: b%5 != 0, Success: b%2 == 0, Value: float64(b % 2), Tokens: int64(b)}})
	}
	return out
}

// comparisonFigures are the figures of a comparison that the order of the runs may not change.
func comparisonFigures(c *Comparison) string {
	c.Reliability.NewFailureTraces, c.Reliability.FixedTraces = nil, nil // listed in match order
	data, _ := json.Marshal(c)
	return string(data)
}

// FuzzComparePermuted: two sides of runs with identities, their ids other on each side (as
// tau2's uuids are), compared in any order of either side give the same figures, and the
// same runs as their own baseline change nothing.
func FuzzComparePermuted(f *testing.F) {
	f.Add([]byte("abcdefghijklmnopqrstuvwxyz"), []byte("zyxwvutsrqponmlkjihgfedcba"), uint64(1))
	f.Add([]byte{0, 1, 2, 3, 4, 5}, []byte{5, 4, 3, 2, 1, 0, 9}, uint64(7))
	f.Fuzz(func(t *testing.T, b, h []byte, seed uint64) {
		base, head := sideOf(b, "base"), sideOf(h, "head")
		if len(base) == 0 || len(head) == 0 {
			return
		}
		run := func(rs []reliability.Result) *Run {
			s := &reliability.Summary{}
			for _, r := range rs {
				s.Add(r)
			}
			return &Run{Profile: profile.Default, Reliability: s, Trials: TrialsOf(rs)}
		}
		c, err := Compare(&Baseline{Run: *run(base)}, run(head), DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		want := comparisonFigures(c)
		rng := rand.New(rand.NewPCG(seed, seed>>1))
		pb, ph := slices.Clone(base), slices.Clone(head)
		rng.Shuffle(len(pb), func(i, j int) { pb[i], pb[j] = pb[j], pb[i] })
		rng.Shuffle(len(ph), func(i, j int) { ph[i], ph[j] = ph[j], ph[i] })
		c2, err := Compare(&Baseline{Run: *run(pb)}, run(ph), DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if got := comparisonFigures(c2); got != want {
			t.Fatalf("shuffled:\n%s\nwant\n%s", got, want)
		}
		self, err := Compare(&Baseline{Run: *run(pb)}, run(base), DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if r := self.Reliability; r.NewFailures != 0 || r.Fixed != 0 || r.Matched != len(base) || self.Matching.Matched != len(base) {
			t.Fatalf("self-comparison: %+v", self.Matching)
		}
		for _, m := range self.Metrics() {
			if m.Test.P != 1 || m.Test.Direction != Same {
				t.Fatalf("self-comparison: %s p %v direction %s", m.Name, m.Test.P, m.Test.Direction)
			}
		}
	})
}

// TestRenumberByReadTrial: the later runs of a task are numbered in the order of the trials
// they were read with, so that shuffling a file's records changes no run's number: a second
// file of trials 3, 0, 2 of task 1 (largest 3) gives them 6, 4, 5 in any order.
func TestRenumberByReadTrial(t *testing.T) {
	trial := func(n int) *int { return &n }
	for _, order := range [][]int{{3, 0, 2}, {0, 2, 3}, {2, 3, 0}} {
		traces := []reliability.Result{}
		for _, n := range append([]int{0, 2, 3}, order...) {
			traces = append(traces, reliability.Result{ID: fmt.Sprint(n), Attempt: &reliability.Attempt{Task: "1", Trial: trial(n)}})
		}
		Renumber(traces)
		got := map[string]int{}
		for _, tr := range traces[3:] {
			got[tr.ID] = *tr.Attempt.Trial
		}
		if want := map[string]int{"0": 4, "2": 5, "3": 6}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("order %v: %v, want %v", order, got, want)
		}
	}
}

// TestDomainsUnknownWarning: runs of numbered tasks with no suite on either side that share
// tasks but not trials: the warning says the domains are unknown, as tau-bench's airline and
// retail runs (both numbered from 0) would be.
func TestDomainsUnknownWarning(t *testing.T) {
	side := func(trial int, task string) []reliability.Result {
		var out []reliability.Result
		for i := range 4 {
			n := trial
			out = append(out, reliability.Result{ID: fmt.Sprint(i), Attempt: &reliability.Attempt{Task: fmt.Sprint(task, i), Trial: &n}})
		}
		return out
	}
	on, _ := matchOn(side(0, ""), side(5, ""))
	if got, want := cause(on, side(0, ""), side(5, "")), "the two reports share tasks but not their trials; "+domainsUnknown; got != want {
		t.Errorf("numbered: %q, want %q", got, want)
	}
	on, _ = matchOn(side(0, "x"), side(5, "x"))
	if got, want := cause(on, side(0, "x"), side(5, "x")), "the two reports share tasks but not their trials"; got != want {
		t.Errorf("named: %q, want %q", got, want)
	}
}
