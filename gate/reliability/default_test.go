package reliability

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/trace"
	"github.com/agentgate/agentgate/gate/verdict"
)

// Each test here is one row of the "Differences from the reference" table of
// docs/reference.md: it shows the reference profile (RS-1 1.0.0) getting a case wrong and the
// default getting it right.

// both evaluates t under the two profiles.
func both(t *testing.T, tr *trace.Trace) (ref, def Result) {
	t.Helper()
	ref, def = Evaluate(tr, profile.Reference), Evaluate(tr, profile.Default)
	checkEvidence(t, ref)
	checkEvidence(t, def)
	return ref, def
}

func assistantTurns(texts ...string) *trace.Trace {
	tr := &trace.Trace{ID: "chat", Usage: trace.Usage{Prompt: 400, Completion: 100, Total: 500, Recorded: true}}
	tr.Messages = append(tr.Messages, msg("user", "Hi"))
	for _, s := range texts {
		tr.Messages = append(tr.Messages, msg("assistant", s))
	}
	return tr
}

// Four unrelated sentences share most of their letters: RS-1's character-set Jaccard puts
// every consecutive pair above 0.7 (0.870, 0.808, 0.778 by CPython), so an ordinary
// conversation FAILs as a loop (loop 1.0, overall 0.25 by the Python port of RS-1). Their word
// 3-shingles have nothing in common, so the default sees no loop.
func TestDefaultLoopComparesWordsNotCharacters(t *testing.T) {
	ref, def := both(t, assistantTurns(
		"I found your reservation and the flight leaves at noon from gate twelve.",
		"The weather in Denver is sunny today, with a light breeze from the west.",
		"Please confirm whether you would like to add travel insurance to this booking.",
		"Your refund of 120 dollars will go back to the original card within a week."))
	if ref.Verdict != verdict.Fail || !near(ref.Signals[Loop], 1) || !near(ref.Score, 0.25) {
		t.Errorf("reference: %s loop %v overall %v; RS-1 gives FAIL 1.0 0.25", ref.Verdict, ref.Signals[Loop], ref.Score)
	}
	if def.Verdict != verdict.Pass || def.Signals[Loop] != 0 {
		t.Errorf("default: %s loop %v; want PASS 0", def.Verdict, def.Signals[Loop])
	}

	// Near-repeats still count: the word 3-shingle Jaccard of each consecutive pair is 10/11
	// (worked out by hand: 10 shared shingles, 11 in all), so both pairs are alike: loop 2/2.
	_, def = both(t, assistantTurns(
		"I could not find the file, let me search the repository again.",
		"I could not find the file, let me search the repository again now.",
		"I could not find the file; let me search the repository again."))
	if def.Verdict != verdict.Fail || !near(def.Signals[Loop], 1) {
		t.Errorf("default on near-repeats: %s loop %v; want FAIL 1.0", def.Verdict, def.Signals[Loop])
	}
}

// Short texts fall back to word sets: "turn 1" and "turn 3" share one word of three (1/3),
// where RS-1 sees the character sets {t,u,r,n,space,1} and {t,u,r,n,space,3}, 5/7 > 0.7, and
// FAILs ten short turns as a loop (testdata/costly.json: loop 1.0, by the Python port).
func TestDefaultShortTurnsAreNotALoop(t *testing.T) {
	ref, def := both(t, readRS1(t, filepath.Join("testdata", "costly.json")))
	if ref.Verdict != verdict.Fail || !near(ref.Signals[Loop], 1) {
		t.Errorf("reference: %s loop %v; RS-1 gives FAIL 1.0", ref.Verdict, ref.Signals[Loop])
	}
	// Default: loop 0; cost 0.5, factor (c) (the default drops (b), 6000 tokens per message:
	// the suite is the measure); overall 0.15·0.5 = 0.075.
	if def.Verdict != verdict.Pass || def.Signals[Loop] != 0 || !near(def.Score, 0.075) {
		t.Errorf("default: %s loop %v overall %v; want PASS 0 0.075", def.Verdict, def.Signals[Loop], def.Score)
	}
}

// "recalled" contains "called": RS-1 takes a message recalling a preference for a claim of a
// tool call never made (hallucination 0.5/1 = 0.5: the claim check is the only check that
// applies). The default matches whole words and still catches a real claim.
func TestDefaultClaimsAreWholeWords(t *testing.T) {
	ref, def := both(t, assistantTurns("I recalled your seat preference from last time."))
	if !near(ref.Signals[Hallucination], 0.5) {
		t.Errorf("reference hallucination %v; RS-1 gives 0.5", ref.Signals[Hallucination])
	}
	if def.Signals[Hallucination] != 0 {
		t.Errorf("default hallucination %v; want 0", def.Signals[Hallucination])
	}
	for _, claim := range []string{"I called the booking API for you.", "I made two tool calls.", "I ran  the\nquery."} {
		_, def := both(t, assistantTurns(claim))
		if !near(def.Signals[Hallucination], 0.5) {
			t.Errorf("default hallucination %v for %q; want 0.5", def.Signals[Hallucination], claim)
		}
	}
}

// Searching for "error handling", "none of these" and "null safety" is ordinary use; RS-1's
// substring search of str(arguments).lower() flags all three calls (share 1 > 0.3, factor
// 0.7·1 = 0.7 = tool_misuse, which is critical: WARN). The default flags only values that are
// themselves error-like.
func TestDefaultSuspiciousArgumentsAreValues(t *testing.T) {
	tr := &trace.Trace{ID: "search", Usage: trace.Usage{Prompt: 300, Completion: 100, Total: 400, Recorded: true}, Messages: []trace.Message{
		msg("user", "find docs"),
		withCalls(msg("assistant", ""), call("a", "search", `{"q":"error handling in Go"}`),
			call("b", "search", `{"q":"none of these"}`), call("c", "search", `{"q":"null safety","lang":"kotlin"}`)),
		withResults(msg("tool", "results"), ok("a"), ok("b"), ok("c")),
		msg("assistant", "Here are the docs."),
	}}
	ref, def := both(t, tr)
	if ref.Verdict != verdict.Warn || !near(ref.Signals[ToolMisuse], 0.7) {
		t.Errorf("reference: %s tool_misuse %v; RS-1 gives WARN 0.7", ref.Verdict, ref.Signals[ToolMisuse])
	}
	if def.Verdict != verdict.Pass || def.Signals[ToolMisuse] != 0 {
		t.Errorf("default: %s tool_misuse %v; want PASS 0", def.Verdict, def.Signals[ToolMisuse])
	}

	// Error-like values, at any depth, do count: 2 of 3 calls, share 2/3 > 0.3, factor
	// 0.7·2/3 = 0.4666…; no other factor fires, so tool_misuse is that.
	tr.Messages[1] = withCalls(msg("assistant", ""), call("a", "lookup", `{"user":{"id":" Undefined "}}`),
		call("b", "search", `{"q":"Error: not found"}`), call("c", "search", `{"q":"error handling"}`))
	_, def = both(t, tr)
	if !near(def.Signals[ToolMisuse], 0.7*2/3.0) {
		t.Errorf("default tool_misuse %v; want 0.4666…", def.Signals[ToolMisuse])
	}
}

// Ids repeat and results can come before the call they name. RS-1 compares sets of ids and
// sees nothing wrong (all zero, by the Python port). The default's pairing finds the result
// that precedes its call (x9, an orphan), that call unanswered, and the second call x1
// unanswered: hallucination (2/3 + 1.5·1/2)/3 = 0.47222…, worked out by hand.
func TestDefaultPairsRepeatedAndEarlyIDs(t *testing.T) {
	ref, def := both(t, readRS1(t, filepath.Join("testdata", "ids_out_of_order.json")))
	if ref.Signals[Hallucination] != 0 {
		t.Errorf("reference hallucination %v; RS-1 gives 0", ref.Signals[Hallucination])
	}
	if want := (2.0/3 + 1.5*1/2) / 3; !near(def.Signals[Hallucination], want) {
		t.Errorf("default hallucination %v; want %v", def.Signals[Hallucination], want)
	}
	var texts []string
	for _, e := range def.Evidence {
		texts = append(texts, e.Text)
	}
	want := []string{
		"result for id x9 at message 1 answers no earlier call",
		"call `lookup` (id x9) at message 2 never got a result",
		"call `lookup` (id x1) at message 3 never got a result",
	}
	if strings.Join(texts, "\n") != strings.Join(want, "\n") {
		t.Errorf("evidence\n%s\nwant\n%s", strings.Join(texts, "\n"), strings.Join(want, "\n"))
	}
}

// A transcript that does not record usage is not a run that used no tokens: RS-1 gives it
// cost 0.3 (every tau-bench trajectory, for instance). The default gives 0.3 only when usage
// was recorded as 0.
func TestDefaultCostNeedsRecordedUsage(t *testing.T) {
	tr := assistantTurns("Done.")
	tr.Usage = trace.Usage{}
	ref, def := both(t, tr)
	if !near(ref.Signals[Cost], 0.3) || def.Signals[Cost] != 0 {
		t.Errorf("unrecorded usage: reference cost %v (RS-1: 0.3), default %v (want 0)", ref.Signals[Cost], def.Signals[Cost])
	}
	tr.Usage.Recorded = true
	_, def = both(t, tr)
	if !near(def.Signals[Cost], 0.3) {
		t.Errorf("usage recorded as 0: default cost %v; want 0.3", def.Signals[Cost])
	}
}

// RS-1 scores a trace without messages 0 on every signal and lets it PASS; the default
// reports that nothing was evaluated and WARNs.
func TestDefaultEmptyTraceWarns(t *testing.T) {
	for _, tr := range []*trace.Trace{{ID: "empty"}, nil} {
		ref, def := both(t, tr)
		if ref.Verdict != verdict.Pass || ref.Score != 0 || len(ref.Evidence) != 0 {
			t.Errorf("reference: %s %v %v; RS-1 gives PASS 0 with nothing to explain", ref.Verdict, ref.Score, ref.Evidence)
		}
		if def.Verdict != verdict.Warn || def.Score != 0 || len(def.Evidence) != 1 || def.Evidence[0].Text != noMessages {
			t.Errorf("default: %s %v %+v; want WARN 0 with the no-messages evidence", def.Verdict, def.Score, def.Evidence)
		}
		if !strings.Contains(def.Detail.Reasoning, "The trace has no messages") {
			t.Errorf("default reasoning does not say the trace is empty: %q", def.Detail.Reasoning)
		}
	}
}

// RS-1 compares str(sorted(arguments.items())), so {"a":{"x":1,"y":2}} and {"a":{"y":2,"x":1}}
// differ (nested key order) and so do 1 and 1.0: of four equal calls it groups three
// (loop (3−2)/8 = 0.125, by the Python port). The default compares JSON values: four
// identical calls, loop (4−2)/8 = 0.25.
func TestDefaultComparesArgumentsAsValues(t *testing.T) {
	ref, def := both(t, readRS1(t, filepath.Join("testdata", "nested_arguments.json")))
	if !near(ref.Signals[Loop], 0.125) || !near(def.Signals[Loop], 0.25) {
		t.Errorf("loop: reference %v (RS-1: 0.125), default %v (want 0.25)", ref.Signals[Loop], def.Signals[Loop])
	}
}

// failingCalls makes an agent that repeats one call, identical each time, which fails n times,
// with a `think` call between attempts (as tau-bench agents do).
func failingCalls(n int) *trace.Trace {
	tr := &trace.Trace{ID: "stuck", Messages: []trace.Message{msg("user", "book it")}}
	for i := 0; i < n; i++ {
		id := string(rune('a' + i))
		tr.Messages = append(tr.Messages,
			withCalls(msg("assistant", ""), call("b"+id, "book", `{"flight":"HAT023","pay":833}`)),
			withResults(msg("tool", "Error: payment amount does not add up"), fail("b"+id)),
			withCalls(msg("assistant", ""), call("t"+id, "think", `{"thought":"adjust the payment `+id+`"}`)),
			withResults(msg("tool", ""), ok("t"+id)))
	}
	return tr
}

// An agent that sends the identical failing call four times is stuck (tau-bench airline task
// 9 trial 2 does it). RS-1 sees 4 identical calls (loop (4−2)/8 = 0.25) and an error rate of
// 4/8 = 0.5 (tool_misuse min(1, 0.75) = 0.75, the only factor, critical): overall
// 0.25·0.25 + 0.25·0.75 + 0.15·0.3 (no usage) = 0.295, WARN but no loop. The default counts
// the repeated failures (loop min(1, (4−1)/3) = 1: FAIL).
func TestDefaultRepeatedFailingCallIsALoop(t *testing.T) {
	ref, def := both(t, failingCalls(4))
	if ref.Verdict != verdict.Warn || !near(ref.Signals[Loop], 0.25) || !near(ref.Score, 0.295) {
		t.Errorf("reference: %s loop %v overall %v; RS-1 gives WARN 0.25 0.295", ref.Verdict, ref.Signals[Loop], ref.Score)
	}
	if def.Verdict != verdict.Fail || !near(def.Signals[Loop], 1) {
		t.Errorf("default: %s loop %v; want FAIL 1", def.Verdict, def.Signals[Loop])
	}
	// Two identical failures are one blind retry: loop (2−1)/3 = 1/3, no FAIL.
	_, def = both(t, failingCalls(2))
	if !near(def.Signals[Loop], 1.0/3) || def.Verdict == verdict.Fail {
		t.Errorf("default on one retry: %s loop %v; want loop 1/3 and no FAIL", def.Verdict, def.Signals[Loop])
	}
}

// A tool whose calls keep failing hides behind calls that cannot fail: 3 failed `book` calls
// among 10 results is an error rate of 0.3, not above RS-1's 0.3, so RS-1 sees no misuse
// (and, the arguments differing, no loop): PASS with cost 0.3 only. The default also takes each
// tool's own failure rate: `book` failed 3 of 3, factor min(1, 1.5) = 1: WARN.
func TestDefaultPerToolFailureRate(t *testing.T) {
	tr := &trace.Trace{ID: "hidden", Messages: []trace.Message{msg("user", "book it")}}
	for i := 0; i < 10; i++ {
		id := string(rune('a' + i))
		switch {
		case i < 3:
			tr.Messages = append(tr.Messages,
				withCalls(msg("assistant", ""), call(id, "book", `{"attempt":`+string(rune('0'+i))+`}`)),
				withResults(msg("tool", "Error: card declined"), fail(id)))
		default:
			tr.Messages = append(tr.Messages,
				withCalls(msg("assistant", ""), call(id, "calculate", `{"expression":"`+id+`"}`)),
				withResults(msg("tool", "1.0"), ok(id)))
		}
	}
	ref, def := both(t, tr)
	if ref.Verdict != verdict.Pass || ref.Signals[ToolMisuse] != 0 {
		t.Errorf("reference: %s tool_misuse %v; RS-1 gives PASS 0", ref.Verdict, ref.Signals[ToolMisuse])
	}
	if def.Verdict != verdict.Warn || !near(def.Signals[ToolMisuse], 1) {
		t.Errorf("default: %s tool_misuse %v; want WARN 1", def.Verdict, def.Signals[ToolMisuse])
	}
}

// defaultCases are the default profile's figures for testdata/, worked out by hand from the
// rules in the signal files (the reference figures for the same files are in referenceCases).
var defaultCases = []struct {
	name    string
	verdict verdict.Verdict
	overall float64
	signals [4]float64
}{
	// Same as the reference: tool_misuse (c) only, 0.5·min(1, 2·(7/8−0.5)) = 0.375.
	{"concentrated", "PASS", 0.25 * 0.375, [4]float64{0, 0, 0.375, 0}},
	// Loop 0 ("turn 1"/"turn 3" share one word of three); cost 0.5, factor (c), completion
	// 5 times the prompt: 0.5·min(1, (5−2)/3) (the reference's 0.7 is (b), 6000 tokens a
	// message, which the default leaves to the suite's comparison; 60000 is within the budget).
	{"costly", "PASS", 0.15 * 0.5, [4]float64{0, 0, 0, 0.5}},
	// See TestDefaultPairsRepeatedAndEarlyIDs.
	{"ids_out_of_order", "PASS", 0.35 * (2.0/3 + 0.75) / 3, [4]float64{(2.0/3 + 0.75) / 3, 0, 0, 0}},
	// Loop (c) only: (60−50)/100; no usage recorded, so no cost.
	{"long_chat", "PASS", 0.25 * 0.1, [4]float64{0, 0.1, 0, 0}},
	// Four calls equal as values: (4−2)/8.
	{"nested_arguments", "PASS", 0.25 * 0.25, [4]float64{0, 0.25, 0, 0}},
	// Hallucination 0: "I ran the commands" follows the calls it reports (it was 0.5/3 before
	// a claim after calls stopped counting; TestDefaultClaimsAreWholeWords keeps the phrase
	// check without calls). Loop: three identical raw calls, a
	// and b failed alike, but c, identical, succeeds after them: iteration, 0 (issue 23).
	// Misuse: a's failure is never recovered (b repeats it identically and fails alike), b's
	// is (c succeeds after it), and the failed result with a null id answers no call, so
	// cannot be recovered: 2 of 5 unrecovered, min(1, 1.5·0.4) = 0.6 (RS-1 counts all 3 of 5
	// failures: 0.9); the three `run` arguments are not valid JSON, 3 of 5 = 0.6 (`list` is
	// never given arguments, so it is a parameterless tool and its two argument-less calls
	// are not bad); the largest factor is 0.6. Cost: ratio 250/100 = 2.5 → 0.5·(0.5/3) = 1/12.
	{"raw_and_missing_arguments", "PASS", 0.25*0.6 + 0.15/12, [4]float64{0, 0, 0.6, 1.0 / 12}},
	// Only (b), {"q": null}: 1/4.
	{"suspicious_arguments", "PASS", 0.25 * 0.25, [4]float64{0, 0, 0.25, 0}},
	// "οδος" and "οδοσ" are different words; "i̇nvoked" is not "invoked".
	{"unicode_text", "PASS", 0, [4]float64{0, 0, 0, 0}},
}

func TestDefaultOnTestdata(t *testing.T) {
	for _, c := range defaultCases {
		t.Run(c.name, func(t *testing.T) {
			r := Evaluate(readRS1(t, filepath.Join("testdata", c.name+".json")), profile.Default)
			if r.Verdict != c.verdict || !near(r.Score, c.overall) {
				t.Errorf("verdict %s, overall %v; want %s, %v", r.Verdict, r.Score, c.verdict, c.overall)
			}
			got := scores(r)
			for i := range got {
				if !near(got[i], c.signals[i]) {
					t.Errorf("%s = %v; want %v", SignalTable[i].Name, got[i], c.signals[i])
				}
			}
			checkEvidence(t, r)
		})
	}
}

// A long run that makes progress is not a loop: RS-1's length factor (c) alone gives 1.0 at 150
// messages and FAILs it; default caps (c) at 0.5.
func TestDefaultLengthAloneIsNotAFail(t *testing.T) {
	tr := &trace.Trace{ID: "long-fix"}
	for i := 0; i < 150; i++ {
		// Distinct work at every step: no repeated calls, no repeated sentences.
		tr.Messages = append(tr.Messages, msg("assistant", fmt.Sprintf("step %d: editing file_%d.py to fix case %d", i, i, i*7)))
	}
	ref := Evaluate(tr, profile.Reference)
	if ref.Signals[Loop] != 1 || ref.Verdict != verdict.Fail {
		t.Fatalf("reference: loop %v verdict %s; RS-1 gives (150−50)/100 = 1 and FAIL", ref.Signals[Loop], ref.Verdict)
	}
	def := Evaluate(tr, profile.Default)
	if def.Signals[Loop] != 0.5 || def.Verdict != verdict.Pass {
		t.Fatalf("default: loop %v verdict %s; want the capped 0.5 and PASS (overall 0.25·0.5)", def.Signals[Loop], def.Verdict)
	}
	if len(def.Evidence) == 0 || def.Evidence[0].Text != "150 messages, more than 50" {
		t.Fatalf("default evidence = %+v; want the length finding", def.Evidence)
	}
}

// A tool without parameters is called with {} (SWE-agent's submit, any OpenAI tool with no
// properties). RS-1 counts {} as empty arguments; default counts it only for a tool that takes
// arguments elsewhere in the same trace.
func TestDefaultParameterlessToolIsNotMisuse(t *testing.T) {
	tr := &trace.Trace{ID: "submit", Messages: []trace.Message{
		msg("user", "fix the bug"),
		withCalls(msg("assistant", ""), call("1", "edit", `{"path": "a.py"}`)),
		withResults(msg("tool", "ok"), ok("1")),
		withCalls(msg("assistant", ""), call("2", "submit", `{}`)),
		withResults(msg("tool", "ok"), ok("2")),
	}}
	// Reference (b): 1 of 2 calls has empty arguments, share 0.5 > 0.2 → misuse 0.5.
	if got := Evaluate(tr, profile.Reference).Signals[ToolMisuse]; got != 0.5 {
		t.Fatalf("reference misuse = %v, want 0.5", got)
	}
	if got := Evaluate(tr, profile.Default).Signals[ToolMisuse]; got != 0 {
		t.Fatalf("default misuse = %v, want 0: submit never takes arguments", got)
	}
	// The same {} for a tool that does take arguments is still a dropped argument list.
	tr.Messages[3] = withCalls(msg("assistant", ""), call("2", "edit", `{}`))
	if got := Evaluate(tr, profile.Default).Signals[ToolMisuse]; got != 0.5 {
		t.Fatalf("default misuse with edit({}) = %v, want 0.5", got)
	}
}

// TestSimilarPairsEvidence checks the loop evidence of many alike pairs: ten listed, the rest
// counted, every message kept.
func TestSimilarPairsEvidence(t *testing.T) {
	texts := make([]string, 13)
	for i := range texts {
		texts[i] = "Let me check the order status once more for you."
	}
	ref, def := both(t, assistantTurns(texts...))
	const listed = "12 of 12 consecutive assistant message pairs are more than 70% alike (HOW): messages " +
		"1 and 2, 2 and 3, 3 and 4, 4 and 5, 5 and 6, 6 and 7, 7 and 8, 8 and 9, 9 and 10, 10 and 11, … (2 more)"
	for _, c := range []struct {
		r   Result
		how string
	}{{ref, "by their sets of characters"}, {def, "by word 3-shingles"}} {
		want := strings.Replace(listed, "HOW", c.how, 1)
		found := false
		for _, ev := range c.r.Evidence {
			if ev.Text == want {
				found = true
				if !slices.Equal(ev.Messages, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}) {
					t.Errorf("%s: messages %v, want 1 to 13", c.how, ev.Messages)
				}
			}
		}
		if !found {
			t.Errorf("%s: no evidence %q in %+v", c.how, want, c.r.Evidence)
		}
	}
}
