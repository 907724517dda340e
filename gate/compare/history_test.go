package compare

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/verdict"
)

// pt is a point of commit i on ref.
func pt(i int, ref string) Point {
	return Point{SHA: fmt.Sprintf("%07x", 0xabc0000+i), Ref: ref, Runs: i, PassK: []float64{}, FlakyTasks: []string{}}
}

// ExtendHistory keeps the newest MaxHistory points, oldest first, the run last; a run of the
// last point's commit and ref replaces it (so a report compared with itself keeps its
// history); another ref, or no commit, adds a point; prev is never changed.
func TestExtendHistory(t *testing.T) {
	var h []Point
	for i := range 35 {
		h = ExtendHistory(h, pt(i, "main"))
		if len(h) != min(i+1, MaxHistory) || h[len(h)-1].Runs != i || h[0].Runs != max(0, i+1-MaxHistory) {
			t.Fatalf("after %d runs: %d points, first %d, last %d", i+1, len(h), h[0].Runs, h[len(h)-1].Runs)
		}
	}
	again := pt(34, "main")
	again.Fail = 1
	prev := append([]Point(nil), h...)
	re := ExtendHistory(h, again)
	if len(re) != MaxHistory || re[29].Fail != 1 || re[0].Runs != 5 || !reflect.DeepEqual(h, prev) {
		t.Errorf("re-run: %d points, last %+v, first %d", len(re), re[29], re[0].Runs)
	}
	if pr := ExtendHistory(h, pt(34, "refs/pull/1/merge")); len(pr) != MaxHistory || pr[0].Runs != 6 || pr[28].Ref != "main" || pr[29].Ref != "refs/pull/1/merge" {
		t.Errorf("same commit, another ref: %+v", pr[28:])
	}
	local := Point{Runs: 99}
	if l := ExtendHistory([]Point{{Runs: 1}}, local); len(l) != 2 {
		t.Errorf("no commit on either side: %d points", len(l))
	}
}

// BaselineHistory copies the baseline's points of its own ref; a baseline without a history
// gives its own run as the one point.
func TestBaselineHistory(t *testing.T) {
	b := &Baseline{Run: Run{Source: Source{SHA: "abc0001", Ref: "main"}}, History: []Point{pt(0, "main"), pt(1, "refs/pull/2/merge"), pt(2, "main")}}
	if got := BaselineHistory(b); len(got) != 2 || got[0].Runs != 0 || got[1].Runs != 2 {
		t.Errorf("copied %+v", got)
	}
	old := &Baseline{Run: Run{Profile: profile.Default, Source: Source{SHA: "abc0001", Ref: "main"},
		Reliability: withOutcomes(traces("PPF", constant(0.1)), "SSF", 10),
		Trials:      []Trial{{Task: "a", Trial: "0", Verdict: verdict.Pass, HasOutcome: true, Succeeded: true}, {Task: "a", Trial: "1", Verdict: verdict.Fail, HasOutcome: true}}}}
	got := BaselineHistory(old)
	if len(got) != 1 {
		t.Fatalf("%+v", got)
	}
	p := got[0]
	// 2 of 3 succeeded; 3 runs × 10 tokens over 2 successes; task a: 1 of 2 trials (pass^1 0.5,
	// pass^2 0), flaky.
	if p.SHA != "abc0001" || p.Ref != "main" || p.Runs != 3 || p.Fail != 1 || p.Known != 3 || *p.SuccessRate != 2.0/3 || *p.TokensPerSuccess != 15 ||
		!reflect.DeepEqual(p.PassK, []float64{0.5, 0}) || p.TrialTasks != 1 || p.Flaky != 1 || !reflect.DeepEqual(p.FlakyTasks, []string{"a"}) {
		t.Errorf("the baseline's own point %+v", p)
	}
	if BaselineHistory(nil) != nil {
		t.Error("a history from no baseline")
	}
}

// FlakyOver counts each task over the points that ran trials, most often first; the order of
// the points changes nothing.
func TestFlakyOver(t *testing.T) {
	h := []Point{
		{TrialTasks: 3, FlakyTasks: []string{"a", "b"}},
		{TrialTasks: 3, FlakyTasks: []string{"b"}},
		{TrialTasks: 0},
		{TrialTasks: 3, FlakyTasks: []string{"a", "b", "c"}},
		{TrialTasks: 3, FlakyTasks: []string{"c", "d"}},
	}
	want := []FlakyTask{{Task: "b", Runs: 3, Of: 4}, {Task: "a", Runs: 2, Of: 4}, {Task: "c", Runs: 2, Of: 4}}
	if got := FlakyOver(h); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v", got)
	}
	rev := []Point{h[4], h[3], h[2], h[1], h[0]}
	if got := FlakyOver(rev); !reflect.DeepEqual(got, want) {
		t.Errorf("reversed: %+v", got)
	}
	if got := FlakyOver(nil); got != nil {
		t.Errorf("none: %+v", got)
	}
}
