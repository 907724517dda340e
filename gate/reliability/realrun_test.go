package reliability

import (
	"path/filepath"
	"testing"

	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/verdict"
)

// realRuns are the real trajectories in reference-data/transcripts, read by hand. want is the
// default verdict that reading calls for; refOverall is RS-1 1.0.0's overall score from the
// Python port of RS-1 (every run is a PASS there, which is the reference's misjudgement for
// 0#3, 3#0, 8#1 and 9#2). The tau-bench rewards are all 0 (the task's database did not end
// in the expected state); that is not what reliability measures.
//
// signals are the default profile's four scores (hallucination, loop, tool_misuse, cost).
// Issue 23 changed one of them and no verdict: 0#3's tool_misuse was 0.4615 (4 failed
// results of 13, every one followed by a successful booking) and is 0, as failures recovered
// from no longer count towards the failure rate. No result of these runs reports an exit
// status, no message claims an external action, none ends in a crash, their usage is not
// recorded, and no repeated call of theirs changed its result, so the other rules find nothing.
var realRuns = []struct {
	file       string
	index      int // record number in the file
	id         string
	want       verdict.Verdict
	signals    [4]float64
	refOverall float64
	why        string
}{
	{"tau-bench-airline-sample.json", 0, "0#0", verdict.Pass, [4]float64{}, 0.045,
		"books JFK–SEA: one payment-total error, recomputes with the user, books"},
	{"tau-bench-airline-sample.json", 1, "0#2", verdict.Pass, [4]float64{}, 0.045,
		"same task: one payment-total error, corrected, booked"},
	// 0#3 and 3#0 were WARN until failures the run recovered from stopped counting as misuse
	// (issue 15): every failed booking or update is followed by a successful one, after the
	// user chose another payment; the one identical retry (0#3, messages 24 and 38) was asked
	// for by the user. What goes wrong in 0#3 (a reservation never cancelled, so the user ends
	// with two) is the task's outcome, which the reward measures, not reliability.
	{"tau-bench-airline-sample.json", 2, "0#3", verdict.Pass, [4]float64{0, 1.0 / 3, 0, 0}, 0.1603846153846154,
		"4 of 7 book_reservation calls fail (amount, certificates not found); each is followed by a successful booking, with the user choosing the payment"},
	{"tau-bench-airline-sample.json", 3, "3#0", verdict.Pass, [4]float64{0, 0.12, 0, 0}, 0.075,
		"update_reservation_flights fails 5 of 6 times (no seats, gift card balance ×3, certificate), the user picking each new payment, until a credit card works"},
	{"tau-bench-airline-sample.json", 4, "3#1", verdict.Pass, [4]float64{}, 0.045,
		"one no-seats error, searches again, updates"},
	{"tau-bench-airline-sample.json", 5, "3#2", verdict.Pass, [4]float64{}, 0.045,
		"one gift-card error, pays with the other card"},
	{"tau-bench-airline-sample.json", 6, "3#3", verdict.Pass, [4]float64{}, 0.045,
		"one gift-card error, then the update succeeds"},
	{"tau-bench-airline-sample.json", 7, "4#2", verdict.Pass, [4]float64{}, 0.045,
		"one balance error, the user adds a card, booked and bags added"},
	{"tau-bench-airline-sample.json", 8, "8#1", verdict.Warn, [4]float64{0, 2.0 / 3, 1, 0}, 0.07625,
		"the identical book_reservation fails 3 times with the same price error, then the agent hands over to a human"},
	{"tau-bench-airline-sample.json", 9, "9#2", verdict.Fail, [4]float64{0, 1, 1, 0}, 0.1075,
		"stuck: the identical book_reservation fails 4 times in a row (5 failed bookings), the same think in between, never recovers"},
	{"swe-agent-function_calling_simple.traj", 0, "", verdict.Pass, [4]float64{}, 0.23249999999999998,
		"finds the file, adds the missing colon, runs the script, submits (RS-1's character sets call its turns 75% a loop)"},
}

func TestRealRuns(t *testing.T) {
	dir := sharedData(t, "transcripts")
	byFile := map[string][]Result{}
	for _, r := range realRuns {
		if _, done := byFile[r.file]; done {
			continue
		}
		var results []Result
		for _, tr := range goldenTraces(t, filepath.Join(dir, r.file)) {
			ref, def := Evaluate(tr, profile.Reference), Evaluate(tr, profile.Default)
			checkEvidence(t, ref)
			checkEvidence(t, def)
			results = append(results, ref, def)
		}
		byFile[r.file] = results
	}
	for _, r := range realRuns {
		results := byFile[r.file]
		if 2*r.index+1 >= len(results) {
			t.Errorf("%s has no record %d", r.file, r.index)
			continue
		}
		ref, def := results[2*r.index], results[2*r.index+1]
		if r.id != "" && def.ID != r.id {
			t.Errorf("%s record %d: id %q, want %q", r.file, r.index, def.ID, r.id)
		}
		if def.Verdict != r.want {
			t.Errorf("%s %s: default %s (score %.3f, %+v); want %s: %s", r.file, def.ID, def.Verdict, def.Score, def.Signals, r.want, r.why)
		}
		for i, got := range scores(def) {
			if !near(got, r.signals[i]) {
				t.Errorf("%s %s: default %s = %v, want %v%s", r.file, def.ID, SignalTable[i].Name, got, r.signals[i], evidenceTexts(def))
			}
		}
		if ref.Verdict != verdict.Pass || !near(ref.Score, r.refOverall) {
			t.Errorf("%s %s: reference %s %v; RS-1 gives PASS %v", r.file, ref.ID, ref.Verdict, ref.Score, r.refOverall)
		}
	}
}
