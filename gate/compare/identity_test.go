package compare

import (
	"fmt"
	"testing"

	"github.com/agentgate/agentgate/gate/reliability"
)

// runs makes traces of identities from data, three bytes a run: its task (one of four), its
// suite (one of three, or none) and its trial (one of five, or none).
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
		out = append(out, reliability.Result{ID: fmt.Sprint(len(out)), Attempt: a})
	}
	return out
}

// FuzzRenumber: after Renumber no two runs share an identity; the first run of an identity
// with a trial keeps it; a second Renumber changes nothing.
func FuzzRenumber(f *testing.F) {
	f.Add([]byte{0, 0, 1, 0, 0, 1, 1, 1, 0, 1, 1, 0})
	f.Add([]byte{3, 2, 0, 3, 2, 0, 3, 2, 4})
	f.Fuzz(func(t *testing.T, data []byte) {
		traces := runs(data)
		before := make([]string, len(traces))
		count := map[string]int{}
		for i := range traces {
			before[i] = (matchKey{identity: true, suite: true}).of(&traces[i])
			count[before[i]]++
		}
		Renumber(traces)
		seen := map[string]bool{}
		first := map[string]bool{}
		for i := range traces {
			k := (matchKey{identity: true, suite: true}).of(&traces[i])
			if seen[k] {
				t.Fatalf("run %d shares its identity %q after Renumber", i, k)
			}
			seen[k] = true
			// a run with a trial keeps it when no earlier run had its identity
			if !wasTrialless(before[i]) && !first[before[i]] && k != before[i] {
				t.Errorf("run %d, the first of %q, was renumbered to %q", i, before[i], k)
			}
			first[before[i]] = true
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
