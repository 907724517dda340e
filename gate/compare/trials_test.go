package compare

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/agentgate/agentgate/gate/verdict"
)

// trialsOf makes, for each task, n trials of which the first c pass (WARN or PASS) and the
// rest FAIL, interleaving tasks so that grouping is needed.
func trialsOf(spec map[string][2]int, order []string) []Trial {
	var out []Trial
	for i := 0; ; i++ {
		added := false
		for _, task := range order {
			n, c := spec[task][0], spec[task][1]
			if i >= n {
				continue
			}
			v := verdict.Fail
			if i < c {
				v = []verdict.Verdict{verdict.Pass, verdict.Warn}[i%2]
			}
			out = append(out, Trial{Task: task, Trial: fmt.Sprint(i), Verdict: v})
			added = true
		}
		if !added {
			return out
		}
	}
}

// TestPassK checks pass^k against exact fractions from Python:
//
//	tasks = {'t1': (4, 4), 't2': (4, 2), 't3': (5, 1), 't4': (4, 0), 't5': (6, 5)}  # (n, c)
//	vals = [Fraction(comb(c, k), comb(n, k)) for n, c in tasks.values() if n >= k]
//	sum(vals) / len(vals)  # k=1: 38/75, 2: 11/30, 3: 3/10, 4: 4/15, 5: 1/12 (2 tasks), 6: 0 (1 task)
func TestPassK(t *testing.T) {
	spec := map[string][2]int{"t1": {4, 4}, "t2": {4, 2}, "t3": {5, 1}, "t4": {4, 0}, "t5": {6, 5}}
	p := PassKOf(trialsOf(spec, []string{"t5", "t3", "t1", "t4", "t2"}))
	if p.Tasks != 5 || p.Trials != 23 || p.MinTrials != 4 {
		t.Errorf("tasks %d trials %d min %d", p.Tasks, p.Trials, p.MinTrials)
	}
	want := []float64{38.0 / 75, 11.0 / 30, 3.0 / 10, 4.0 / 15}
	for k, w := range want {
		if !near(p.Values[k], w, 1e-14) {
			t.Errorf("pass^%d = %.17g, want %.17g", k+1, p.Values[k], w)
		}
	}
	if len(p.Values) != 4 {
		t.Errorf("%d values, want 4", len(p.Values))
	}
	if !reflect.DeepEqual(p.Flaky, []string{"t2", "t3", "t5"}) {
		t.Errorf("flaky %v", p.Flaky)
	}
	for _, c := range []struct {
		k, tasks int
		want     float64
		ok       bool
	}{{1, 5, 38.0 / 75, true}, {4, 5, 4.0 / 15, true}, {5, 2, 1.0 / 12, true}, {6, 1, 0, true}, {7, 0, 0, false}, {0, 0, 0, false}} {
		v, n, ok := p.At(c.k)
		if !near(v, c.want, 1e-14) || n != c.tasks || ok != c.ok {
			t.Errorf("At(%d) = %v, %d, %v; want %v, %d, %v", c.k, v, n, ok, c.want, c.tasks, c.ok)
		}
	}
	if got := p.String(); got != "pass^1 0.5067, pass^2 0.3667, pass^3 0.3, pass^4 0.2667 over 5 tasks" {
		t.Errorf("String() = %q", got)
	}
}

func TestPassKEdges(t *testing.T) {
	if p := PassKOf(nil); p != nil {
		t.Errorf("no trials: %+v", p)
	}
	// One trial per task: pass^1 only, nothing flaky.
	p := PassKOf([]Trial{{Task: "a", Trial: "0", Verdict: verdict.Pass}, {Task: "b", Trial: "0", Verdict: verdict.Fail}, {Task: "c", Trial: "0", Verdict: verdict.Warn}})
	if p.MinTrials != 1 || !reflect.DeepEqual(p.Values, []float64{2.0 / 3}) || len(p.Flaky) != 0 {
		t.Errorf("n=1: %+v", p)
	}
	if _, _, ok := p.At(2); ok {
		t.Error("At(2) with one trial per task")
	}
	var nilP *PassK
	if nilP.String() != "no trials" {
		t.Error("nil String")
	}
}

func TestComparePassK(t *testing.T) {
	base := trialsOf(map[string][2]int{"a": {3, 3}, "b": {3, 1}}, []string{"a", "b"})
	head := trialsOf(map[string][2]int{"a": {2, 1}, "b": {2, 2}}, []string{"a", "b"})
	c := ComparePassK(base, head)
	want := []PassKRow{
		{K: 1, Base: (1 + 1.0/3) / 2, HasBase: true, Head: 0.75, HasHead: true},
		{K: 2, Base: 0.5, HasBase: true, Head: 0.5, HasHead: true},
		{K: 3, Base: 0.5, HasBase: true},
	}
	if len(c.Rows) != len(want) {
		t.Fatalf("rows %+v", c.Rows)
	}
	for i := range want {
		if g := c.Rows[i]; g.K != want[i].K || !near(g.Base, want[i].Base, 1e-15) || g.HasBase != want[i].HasBase ||
			!near(g.Head, want[i].Head, 1e-15) || g.HasHead != want[i].HasHead {
			t.Errorf("row %d = %+v, want %+v", i, g, want[i])
		}
	}
	if c := ComparePassK(nil, head); c.Base != nil || len(c.Rows) != 2 || c.Rows[0].HasBase {
		t.Errorf("no base trials: %+v", c)
	}
}

// TestPassKOnOutcomes: when every trial has an outcome a trial passes when it succeeded,
// whatever its verdict (docs/design.md#outcomes); one trial without an outcome puts every trial back on
// verdicts.
func TestPassKOnOutcomes(t *testing.T) {
	trials := []Trial{
		{Task: "a", Trial: "0", Verdict: verdict.Fail, HasOutcome: true, Succeeded: true},
		{Task: "a", Trial: "1", Verdict: verdict.Pass, HasOutcome: true, Succeeded: false},
		{Task: "b", Trial: "0", Verdict: verdict.Pass, HasOutcome: true, Succeeded: true},
		{Task: "b", Trial: "1", Verdict: verdict.Fail, HasOutcome: true, Succeeded: true},
	}
	p := PassKOf(trials)
	// a: 1 of 2 succeeded, b: 2 of 2. pass^1 = (1/2 + 1)/2, pass^2 = (0 + 1)/2.
	if !p.OnOutcomes || p.Basis != BasisOutcome || p.WithoutOutcome != 0 || p.VerdictNote() != "" || p.Values[0] != 0.75 || p.Values[1] != 0.5 {
		t.Errorf("on outcomes: %+v", p)
	}
	trials[3].HasOutcome = false
	p = PassKOf(trials)
	// verdicts: a 1 of 2 not FAIL, b 1 of 2. pass^1 = 1/2, pass^2 = 0.
	if p.OnOutcomes || p.Basis != BasisVerdict || p.WithoutOutcome != 1 || p.Values[0] != 0.5 || p.Values[1] != 0 || len(p.Flaky) != 2 {
		t.Errorf("on verdicts: %+v", p)
	}
	if got, want := p.VerdictNote(), "by verdict: 1 of 4 trials has no outcome"; got != want {
		t.Errorf("verdict note %q, want %q", got, want)
	}
	if g := PassKGate(p, 2, 0.1); g.Passed || g.Note != "pass^2 over 2 tasks, by verdict: 1 of 4 trials has no outcome" {
		t.Errorf("pass-k-min by verdict: %+v", g)
	}
	trials[1].HasOutcome = false
	if got, want := PassKOf(trials).VerdictNote(), "by verdict: 2 of 4 trials have no outcome"; got != want {
		t.Errorf("verdict note %q, want %q", got, want)
	}
	// No trial with an outcome: a verdict is the only pass there is, and nothing needs saying.
	for i := range trials {
		trials[i].HasOutcome = false
	}
	if p := PassKOf(trials); p.Basis != BasisVerdict || p.WithoutOutcome != 4 || p.VerdictNote() != "" {
		t.Errorf("no outcomes: %+v, note %q", p, p.VerdictNote())
	}
}
