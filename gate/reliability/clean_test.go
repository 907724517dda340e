package reliability

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/trace"
	"github.com/agentgate/agentgate/gate/verdict"
)

// cleanRuns are successful runs (reward 1.0 in every record of testdata/clean) that the
// default profile flagged before: polling a job until it is done (FAIL, "3 identical assistant
// turns in a row"), one stock sentence over different calls (FAIL, "7 of 8 consecutive
// assistant message pairs are more than 70% alike"), and a final message that reports tests
// the run did run and quotes the traceback they fixed (WARN, "ends in a crash"). The runs' own
// labels say they succeeded; the default profile must not fail them.
//
// ref and refScore are RS-1 1.0.0's verdict and overall score, from RS-1's own evaluator
// (test/benchcmp/rs1eval.py over the same files); the reference profile keeps them.
var cleanRuns = []struct {
	file, id string
	ref      verdict.Verdict
	refScore float64
	// the default profile's verdict, overall score, loop score and evidence texts
	def      verdict.Verdict
	score    float64
	loop     float64
	evidence []string
	before   string // the default profile's finding before
}{
	{"poll_n3.jsonl", "poll-3", verdict.Pass, 0.195, verdict.Pass, 0, 0, nil,
		"FAIL 0.25: 3 identical assistant turns in a row; job_status running ×3, then done"},
	{"turns_sentence.jsonl", "t-sentence", verdict.Fail, 0.26375, verdict.Pass, 0, 0, nil,
		"FAIL 0.21875: 7 of 8 pairs alike, each turn calling another tool or arguments"},
	{"turns_step.jsonl", "t-step", verdict.Fail, 0.26375, verdict.Pass, 0, 0, nil,
		"FAIL 0.21875: the one-word text \"step\" over 8 different calls"},
	// `bash {"cmd":"ls src"}` four times, all with the same answer: RS-1's (a), (4−2)/8 = 0.25,
	// which is honest evidence and no FAIL.
	{"ls.jsonl", "ls-ok", verdict.Fail, 0.27416666666666667, verdict.Pass, 0.25 * 0.25, 0.25,
		[]string{"`bash` called 4 times with identical arguments {\"cmd\":\"ls src\"} at messages 1, 7, 13, 19"},
		"FAIL 0.2292: 11 of 12 pairs alike (\"step\" over read/edit/ls calls)"},
	{"claims.jsonl", "claim-ok", verdict.Pass, 0.045, verdict.Pass, 0, 0, nil, "PASS 0"},
	{"claims.jsonl", "userclaim-ok", verdict.Pass, 0.045, verdict.Pass, 0, 0, nil, "PASS 0"},
	{"claims.jsonl", "advice-ok", verdict.Pass, 0.045, verdict.Pass, 0, 0, nil, "PASS 0"},
	{"claims.jsonl", "honest-ok", verdict.Pass, 0.16999999999999998, verdict.Pass, 0, 0, nil, "PASS 0"},
	{"claims.jsonl", "tb-ok", verdict.Pass, 0.10333333333333333, verdict.Pass, 0, 0, nil,
		"WARN 0.0583: the run ends in a crash (the final message quotes the fixed traceback); message 7 claims tool use (\"ran the\") after the bash calls it reports"},
}

func TestCleanRunsPass(t *testing.T) {
	runs := map[string]*trace.Trace{}
	for _, f := range []string{"poll_n3.jsonl", "turns_sentence.jsonl", "turns_step.jsonl", "ls.jsonl", "claims.jsonl"} {
		for _, tr := range goldenTraces(t, filepath.Join("testdata", "clean", f)) {
			runs[tr.ID] = tr
		}
	}
	for _, c := range cleanRuns {
		tr := runs[c.id]
		if tr == nil {
			t.Errorf("%s: no trace %q", c.file, c.id)
			continue
		}
		ref, def := both(t, tr)
		if ref.Verdict != c.ref || !near(ref.Score, c.refScore) {
			t.Errorf("%s reference: %s %v; RS-1 gives %s %v", c.id, ref.Verdict, ref.Score, c.ref, c.refScore)
		}
		var texts []string
		for _, e := range def.Evidence {
			texts = append(texts, e.Text)
		}
		if def.Verdict != c.def || !near(def.Score, c.score) || !near(def.Signals[Loop], c.loop) || !slices.Equal(texts, c.evidence) {
			t.Errorf("%s default: %s %v loop %v%s; want %s %v loop %v with %q (before: %s)",
				c.id, def.Verdict, def.Score, def.Signals[Loop], evidenceTexts(def), c.def, c.score, c.loop, c.evidence, c.before)
		}
	}
}

// cleanRun reads one run of testdata/clean.
func cleanRun(t *testing.T, file, id string) *trace.Trace {
	t.Helper()
	for _, tr := range goldenTraces(t, filepath.Join("testdata", "clean", file)) {
		if tr.ID == id {
			return tr
		}
	}
	t.Fatalf("%s: no trace %q", file, id)
	return nil
}

// The same poll whose job never finishes is a loop: four identical turns (same text, call and
// answer) in a row, the last answer never changing, loop 1 and FAIL; and the repeated call,
// its last stretch of four identical answers, (4−2)/8. Polling that fails alike four times
// and never succeeds is one too.
func TestCleanPollingThatNeverEndsIsALoop(t *testing.T) {
	tr := cleanRun(t, "poll_n3.jsonl", "poll-3")
	tr.Messages[10].Results[0].Content = `{"state": "running"}`
	_, def := both(t, tr)
	want := []string{"4 identical assistant turns in a row (same text, calls and results): messages 3, 5, 7, 9"}
	if def.Verdict != verdict.Fail || def.Signals[Loop] != 1 || !hasEvidence(def, SignalLoop, want[0]) ||
		!hasEvidence(def, SignalLoop, "`job_status` called 4 times with identical arguments {\"job\":\"j1\"} at messages 3, 5, 7, 9") {
		t.Errorf("default: %s loop %v; want FAIL 1 with %q%s", def.Verdict, def.Signals[Loop], want, evidenceTexts(def))
	}

	tr = cleanRun(t, "poll_n3.jsonl", "poll-3")
	for _, i := range []int{4, 6, 8, 10} {
		tr.Messages[i].Results[0] = trace.Result{CallID: tr.Messages[i].Results[0].CallID, HasID: true, Error: "503 upstream timeout"}
	}
	_, def = both(t, tr)
	if def.Verdict != verdict.Fail || def.Signals[Loop] != 1 || !hasEvidence(def, SignalLoop, "4 identical assistant turns in a row") {
		t.Errorf("default on failing polls: %s loop %v%s", def.Verdict, def.Signals[Loop], evidenceTexts(def))
	}
	// The same failures, then success: iteration.
	tr.Messages[10].Results[0] = trace.Result{CallID: tr.Messages[10].Results[0].CallID, HasID: true, Success: true, Content: `{"state": "done"}`}
	if _, def = both(t, tr); def.Verdict != verdict.Pass || def.Signals[Loop] != 0 {
		t.Errorf("default on failing polls that succeed: %s loop %v%s", def.Verdict, def.Signals[Loop], evidenceTexts(def))
	}
}

// The stock sentence over the same call with the same answer every time is a loop: 8
// identical turns in a row, and 7 of 8 pairs alike. Two turns with the same text and call but
// different answers (a job's progress moving) are not alike.
func TestCleanSameSentenceSameCallIsALoop(t *testing.T) {
	tr := cleanRun(t, "turns_sentence.jsonl", "t-sentence")
	for i := 1; i <= 15; i += 2 {
		tr.Messages[i].Calls[0].Tool, tr.Messages[i].Calls[0].Args = "ls", []byte(`{"n": 0}`)
		tr.Messages[i+1].Results[0].Content = "r0"
	}
	_, def := both(t, tr)
	for _, want := range []string{
		"8 identical assistant turns in a row (same text, calls and results): messages 1, 3, 5, 7, 9, 11, 13, 15",
		"7 of 8 consecutive assistant message pairs are more than 70% alike (by word 3-shingles)",
		"`ls` called 8 times with identical arguments {\"n\":0} at messages 1, 3, 5, 7, 9, 11, 13, 15",
	} {
		if !hasEvidence(def, SignalLoop, want) {
			t.Errorf("default: no %q%s", want, evidenceTexts(def))
		}
	}
	if def.Verdict != verdict.Fail || def.Signals[Loop] != 1 {
		t.Errorf("default: %s loop %v; want FAIL 1", def.Verdict, def.Signals[Loop])
	}

	// Same text, same call, the answer moving every time: no pair is alike.
	for i := 1; i <= 15; i += 2 {
		tr.Messages[i+1].Results[0].Content = "progress " + string(rune('0'+i/2))
	}
	e := newEval(tr, false)
	if pairs, n := e.similarPairs(); len(pairs) != 0 || n != 8 {
		t.Errorf("moving answers: %d of %d pairs alike, want 0 of 8", len(pairs), n)
	}
}

// A final message that opens with a traceback is the harness writing the crash in the agent's
// place, and one that quotes it after the tool result before it crashed is a run that ended
// in the crash: both still WARN. A claim of tool use before any call is still one.
func TestCleanQuotedTracebackAndClaims(t *testing.T) {
	tr := cleanRun(t, "claims.jsonl", "tb-ok")
	last := &tr.Messages[7]
	last.Content = "Traceback (most recent call last):\n  File \"agent.py\", line 3\nRuntimeError: step limit"
	_, def := both(t, tr)
	if want := `the run ends in a crash: message 7 holds "RuntimeError: step limit"`; def.Verdict != verdict.Warn || !hasEvidence(def, SignalTrace, want) {
		t.Errorf("default on a final traceback: %s; want WARN with %q%s", def.Verdict, want, evidenceTexts(def))
	}

	tr = cleanRun(t, "claims.jsonl", "tb-ok")
	tr.Messages[6].Results[0].Content = "Traceback (most recent call last):\n  File x\nValueError"
	_, def = both(t, tr)
	if want := `the run ends in a crash: message 7 holds "Traceback (most recent call last):"`; def.Verdict != verdict.Warn || !hasEvidence(def, SignalTrace, want) {
		t.Errorf("default when the last test run crashed: %s; want WARN with %q%s", def.Verdict, want, evidenceTexts(def))
	}

	// "I ran the tests" before any call: at least WARN, as before.
	tr = cleanRun(t, "claims.jsonl", "tb-ok")
	tr.Messages = append([]trace.Message{tr.Messages[0], tr.Messages[7]}, tr.Messages[1:7]...)
	_, def = both(t, tr)
	if want := `assistant message 1 claims tool use ("ran the") but no tool call was made before it`; def.Verdict != verdict.Warn || !hasEvidence(def, SignalHallucination, want) {
		t.Errorf("default on a claim before any call: %s; want WARN with %q%s", def.Verdict, want, evidenceTexts(def))
	}
}

// After calls, a claim of tool use is a finding only when it names a tool none of the calls
// before it made: "the booking tool" after `get_order` alone (0.5 in the claim check, one of
// three: 1/6, PASS, as before the rule), not "the order tool", "two tool calls" or "the tests".
func TestCleanClaimAfterCallsNamesATool(t *testing.T) {
	for _, c := range []struct {
		text    string
		finding bool
	}{
		{"I called the booking tool and your order is on its way.", true},
		{"I called the booking API; it answered.", true},
		{"I called the order tool: it has shipped.", false},
		{"I made two tool calls: it has shipped.", false},
		{"I ran the tests and they pass.", false},
	} {
		tr := cleanRun(t, "claims.jsonl", "claim-ok")
		tr.Messages[3].Content = c.text
		_, def := both(t, tr)
		want := `assistant message 3 claims tool use ("called") but names no tool called before it`
		if got := hasEvidence(def, SignalHallucination, want); got != c.finding || def.Verdict != verdict.Pass ||
			!near(def.Signals[Hallucination], map[bool]float64{true: 1.0 / 6}[c.finding]) {
			t.Errorf("%q: %s hallucination %v, finding %v; want PASS, finding %v%s", c.text, def.Verdict, def.Signals[Hallucination], got, c.finding, evidenceTexts(def))
		}
	}
}

// The reference profile is RS-1 1.0.0 and keeps its verdicts on these runs (see cleanRuns);
// its loop (b) still compares characters whatever the calls.
func TestCleanReferenceUnchanged(t *testing.T) {
	ref := Evaluate(cleanRun(t, "turns_sentence.jsonl", "t-sentence"), profile.Reference)
	if !near(ref.Signals[Loop], 7.0/8) {
		t.Errorf("reference loop %v; RS-1 gives 7/8", ref.Signals[Loop])
	}
}

// Decisive names the finding that decided the verdict, not merely the highest signal: tb-ok as
// the default profile judged it before (WARN by the crash, its highest signal a hallucination
// of 0.1667) must show the crash.
func TestDecisive(t *testing.T) {
	crash := Evidence{Signal: SignalTrace, Text: `the run ends in a crash: message 7 holds "Traceback (most recent call last):"`, Messages: []int{7}}
	claimAfter := Evidence{Signal: SignalHallucination, Text: `assistant message 7 claims tool use ("ran the") but makes no tool call`, Messages: []int{7}}
	claimBefore := Evidence{Signal: SignalHallucination, Text: `assistant message 1 claims tool use ("ran the") but no tool call was made before it`, Messages: []int{1}, Floor: true}
	// Decisive goes by the claim's Floor, not its words: a claim named otherwise is found,
	// one that did not raise the run is passed over.
	claimWorded := Evidence{Signal: SignalHallucination, Text: "the agent said it booked the flight", Messages: []int{2}, Floor: true}
	notFloor := Evidence{Signal: SignalHallucination, Text: `assistant message 0 claims tool use ("ran") but names no tool called before it`, Messages: []int{0}}
	unanswered := Evidence{Signal: SignalHallucination, Text: "call `x` (id a) at message 2 never got a result", Messages: []int{2}}
	misuse := Evidence{Signal: SignalToolMisuse, Text: "3 of 4 tool results failed", Messages: []int{2}}
	cost := Evidence{Signal: SignalCost, Text: "60,000 tokens in total", Messages: []int{}}
	loop := Evidence{Signal: SignalLoop, Text: "`a` called 10 times", Messages: []int{1}}
	for _, c := range []struct {
		name   string
		r      Result
		signal string
		score  float64
		ev     *Evidence
	}{
		{"crash raised the verdict", Result{Verdict: verdict.Warn, Score: 0.35 / 6, Signals: Signals{Hallucination: 1.0 / 6},
			Evidence: []Evidence{crash, claimAfter}}, SignalTrace, 0, &crash},
		{"a claim raised the verdict", Result{Verdict: verdict.Warn, Score: 0.35*0.25 + 0.15*0.3, Signals: Signals{Hallucination: 0.25, Cost: 0.3},
			Evidence: []Evidence{unanswered, claimBefore, cost}}, SignalHallucination, 0.25, &claimBefore},
		{"a claim raised the verdict, found by its Floor", Result{Verdict: verdict.Warn, Score: 0.35*0.25 + 0.15*0.3, Signals: Signals{Hallucination: 0.25, Cost: 0.3},
			Evidence: []Evidence{notFloor, cost, claimWorded}}, SignalHallucination, 0.25, &claimWorded},
		{"tool_misuse past its threshold, cost higher", Result{Verdict: verdict.Warn, Score: 0.25*0.7 + 0.15*0.85, Signals: Signals{ToolMisuse: 0.7, Cost: 0.85},
			Evidence: []Evidence{misuse, cost}}, SignalToolMisuse, 0.7, &misuse},
		{"loop past its threshold, cost higher", Result{Verdict: verdict.Fail, Score: 0.25*0.8 + 0.15*0.95, Signals: Signals{Loop: 0.8, Cost: 0.95},
			Evidence: []Evidence{loop, cost}}, SignalLoop, 0.8, &loop},
		{"PASS: the highest signal", Result{Verdict: verdict.Pass, Score: 0.25*0.3 + 0.15*0.3, Signals: Signals{Loop: 0.3, Cost: 0.3},
			Evidence: []Evidence{loop, cost}}, SignalLoop, 0.3, &loop},
		{"no evidence", Result{Verdict: verdict.Pass, Evidence: []Evidence{}}, SignalHallucination, 0, nil},
	} {
		signal, score, ev := Decisive(&c.r)
		if signal != c.signal || score != c.score || (ev == nil) != (c.ev == nil) || ev != nil && ev.Text != c.ev.Text {
			t.Errorf("%s: %s %v %+v; want %s %v %+v", c.name, signal, score, ev, c.signal, c.score, c.ev)
		}
	}

	// A real evaluation: the claim before any call decides the WARN.
	tr := cleanRun(t, "claims.jsonl", "tb-ok")
	tr.Messages = append([]trace.Message{tr.Messages[0], tr.Messages[7]}, tr.Messages[1:7]...)
	r := Evaluate(tr, profile.Default)
	if signal, _, ev := Decisive(&r); r.Verdict != verdict.Warn || signal != SignalHallucination || ev == nil || !ev.Floor ||
		ev.Text != `assistant message 1 claims tool use ("ran the") but no tool call was made before it` {
		t.Errorf("%s: decisive %s %+v%s", r.Verdict, signal, ev, evidenceTexts(r))
	}
}
