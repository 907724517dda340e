package reliability

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/trace"
	"github.com/agentgate/agentgate/gate/verdict"
)

// Issue 46: signals that never cry wolf on a new suite. Each test holds one rule against the
// reference, which gets the case wrong, as docs/reference.md's differences table lists it.

// Item 1. An agent hands in its answer with a terminal tool and the harness stops: no result
// ever answers the call. Inspect's agents end on `submit` (24 of 73 real runs flagged, 13 of
// the 19 successful ones); smolagents on `final_answer`. RS-1 counts the call unanswered: of
// 2 calls, 1 without a result, over 3 checks (calls, results, claims) gives 0.5/3. A terminal
// call the agent went on from still needs its result.
func TestJudgmentTerminalToolNeedsNoResult(t *testing.T) {
	for _, tool := range []string{"submit", "final_answer", "Submit", "task_complete", "done", "finish", "attempt_completion"} {
		tr := decodeRun(t, openAIRecord("ends",
			oaUser("What is 17 * 23? Use the shell."),
			oaAssistant("", oaCall("c1", "bash", `{"cmd":"echo $((17*23))"}`)),
			oaTool("c1", "bash", "391"),
			oaAssistant("", oaCall("c2", tool, `{"answer":"391"}`))))
		ref, def := both(t, tr)
		if !near(ref.Signals[Hallucination], 0.5/3) {
			t.Errorf("reference, %s: hallucination %v; RS-1 gives 0.5/3", tool, ref.Signals[Hallucination])
		}
		if def.Signals[Hallucination] != 0 || def.Verdict != verdict.Pass {
			t.Errorf("default, %s the run ends on: %s hallucination %v; want PASS 0%s", tool, def.Verdict, def.Signals[Hallucination], evidenceTexts(def))
		}
	}
	// submit, then more calls: the harness did not stop, and the submission went unanswered
	tr := decodeRun(t, openAIRecord("goes on",
		oaUser("What is 17 * 23? Use the shell."),
		oaAssistant("", oaCall("c1", "submit", `{"answer":"400"}`)),
		oaAssistant("", oaCall("c2", "bash", `{"cmd":"echo $((17*23))"}`)),
		oaTool("c2", "bash", "391")))
	if _, def := both(t, tr); !near(def.Signals[Hallucination], 0.5/3) || !hasEvidence(def, SignalHallucination, "call `submit` (id c1) at message 1 never got a result") {
		t.Errorf("default, submit then more calls: hallucination %v; want 0.5/3 naming submit%s", def.Signals[Hallucination], evidenceTexts(def))
	}
	// any other tool the run ends on still needs its result
	tr = decodeRun(t, openAIRecord("unanswered",
		oaUser("Book it."),
		oaAssistant("", oaCall("c1", "search", `{"q":"flights"}`)),
		oaTool("c1", "search", "HAT001"),
		oaAssistant("", oaCall("c2", "book_flight", `{"flight":"HAT001"}`))))
	if _, def := both(t, tr); !near(def.Signals[Hallucination], 0.5/3) {
		t.Errorf("default, book_flight the run ends on: hallucination %v; want 0.5/3%s", def.Signals[Hallucination], evidenceTexts(def))
	}
}

// Item 2. An optional argument written null is an argument left out, not a missing one:
// AgentDojo writes `search_calendar_events {"query": "yoga", "date": null}`, and the check of
// empty or null arguments fired on 21 successful and 17 failed real runs. RS-1 counts the
// call in (b) (1 of 2, 0.5) and, printing the null as None, in (d) (0.7·0.5), and averages
// them: 0.425. Arguments with no value at all are still missing.
func TestJudgmentNullOptionalArgument(t *testing.T) {
	run := func(args string) Result {
		tr := decodeRun(t, openAIRecord("yoga",
			oaUser("When is my yoga class this week?"),
			oaAssistant("", oaCall("c1", "search_calendar_events", args)),
			oaTool("c1", "search_calendar_events", `[{"title": "Yoga Class", "start_time": "2024-05-21 18:00"}]`),
			oaAssistant("", oaCall("c2", "get_day_calendar_events", `{"day":"2024-05-21"}`)),
			oaTool("c2", "get_day_calendar_events", `[{"title": "Yoga Class"}]`),
			oaAssistant("Your yoga class is on Tuesday, May 21 at 18:00.")))
		ref, def := both(t, tr)
		if args == `{"query":"yoga","date":null}` && !near(ref.Signals[ToolMisuse], 0.425) {
			t.Errorf("reference on %s: tool_misuse %v; RS-1 gives 0.425", args, ref.Signals[ToolMisuse])
		}
		return def
	}
	for _, args := range []string{`{"query":"yoga","date":null}`, `{"query":"yoga","date":null,"location":""}`, `{'query': 'yoga', 'date': None}`} {
		if def := run(args); def.Signals[ToolMisuse] != 0 || def.Verdict != verdict.Pass {
			t.Errorf("default on %s: %s tool_misuse %v; want PASS 0%s", args, def.Verdict, def.Signals[ToolMisuse], evidenceTexts(def))
		}
	}
	for _, args := range []string{`{"query":null,"date":null}`, `{"query":"","date":null}`} {
		if def := run(args); def.Signals[ToolMisuse] != 0.5 || !hasEvidence(def, SignalToolMisuse, "1 of 2 calls have empty, missing or null arguments: `search_calendar_events` at message 1") {
			t.Errorf("default on %s: tool_misuse %v; want 0.5 naming the call%s", args, def.Signals[ToolMisuse], evidenceTexts(def))
		}
	}
}

// Item 3. The cost of a run against its suite: 69 of 73 real Inspect runs and 368 of 371
// successful mini-swe-agent runs crossed RS-1's absolute thresholds, suites whose runs all
// spend alike. The default compares a run's tokens with the median of its suite's runs that
// recorded usage (five or more): from 3 times the median the cost rises, (T/M − 3)/7, to 1 at
// 10 times; the verdict follows (cost 0.9 is WARN). Suites are compared apart; the reference
// keeps RS-1's thresholds; comparing twice changes nothing.
func TestRelateCost(t *testing.T) {
	run := func(id, suite string, total int64) Result {
		tr := budgetTrace(total, 4)
		tr.ID, tr.Suite = id, suite
		var ev Evaluator
		return ev.Evaluate(tr)
	}
	var s Summary
	// suite "a": 20000, 21000, 22000, 23000, 24000, 70000, 95000: median 23000
	for i, n := range []int64{20000, 21000, 22000, 23000, 24000, 70000, 95000} {
		s.Add(run(fmt.Sprintf("a%d", i), "a", n))
	}
	// suite "b": four runs, too few to compare: 95000 stays 0
	for i, n := range []int64{1000, 1000, 1000, 95000} {
		s.Add(run(fmt.Sprintf("b%d", i), "b", n))
	}
	s.RelateCost(profile.Default)
	want := map[string]float64{"a5": (70000.0/23000 - 3) / 7, "a6": (95000.0/23000 - 3) / 7}
	for _, r := range s.Traces {
		if !near(r.Signals[Cost], want[r.ID]) {
			t.Errorf("%s: cost %v, want %v%s", r.ID, r.Signals[Cost], want[r.ID], evidenceTexts(r))
		}
	}
	a6 := s.Traces[6]
	if text := "95,000 tokens, 4.13 times the median of its suite (23,000 tokens over 7 runs; the cost reads from 3 times the median)"; !hasEvidence(a6, SignalCost, text) ||
		!near(a6.Score, 0.15*want["a6"]) || a6.Verdict != verdict.Pass || a6.SuiteCost.Alone != 0 || a6.SuiteCost.AloneVerdict != verdict.Pass {
		t.Errorf("a6: %s score %v, suite %+v; want PASS with %q%s", a6.Verdict, a6.Score, *a6.SuiteCost, text, evidenceTexts(a6))
	}
	if s.Pass != 11 || s.Warn != 0 {
		t.Errorf("counts: %d PASS %d WARN", s.Pass, s.Warn)
	}
	// again: the same
	before, _ := json.Marshal(s)
	s.RelateCost(profile.Default)
	if after, _ := json.Marshal(s); string(after) != string(before) {
		t.Errorf("a second comparison changed the runs:\n%s\nwant\n%s", after, before)
	}
	// ten times the median and more: cost 1, WARN
	var w Summary
	for i, n := range []int64{5000, 5000, 5000, 5000, 5000, 60000} {
		w.Add(run(fmt.Sprintf("w%d", i), "", n))
	}
	w.RelateCost(profile.Default)
	if r := w.Traces[5]; r.Signals[Cost] != 1 || r.Verdict != verdict.Warn || w.Warn != 1 {
		t.Errorf("60000 against a median of 5000: cost %v %s, %d WARN; want 1 WARN", r.Signals[Cost], r.Verdict, w.Warn)
	}
	// the reference profile: no comparison
	var ref Summary
	for i, n := range []int64{9000, 9500, 10000, 10500, 11000, 99000} {
		tr := budgetTrace(n, 4)
		tr.ID = fmt.Sprint(i)
		ref.Add(Evaluate(tr, profile.Reference))
	}
	c := ref.Traces[5].Signals[Cost]
	ref.RelateCost(profile.Reference)
	if ref.Traces[5].Signals[Cost] != c || ref.Traces[5].SuiteCost != nil {
		t.Errorf("reference: cost %v → %v, suite %+v", c, ref.Traces[5].Signals[Cost], ref.Traces[5].SuiteCost)
	}
}

// Item 1, per harness: a tool the trace's own harness names as ending its runs (the format
// registry's row, trace.Trace.TerminalTools) needs no result either, whatever its name; the
// same name in a trace of another harness still does.
func TestJudgmentHarnessTerminalTool(t *testing.T) {
	tr := decodeRun(t, openAIRecord("harness",
		oaUser("Which file defines main?"),
		oaAssistant("", oaCall("c1", "grep", `{"pattern":"func main"}`)),
		oaTool("c1", "grep", "cmd/app/main.go"),
		oaAssistant("", oaCall("c2", "hand_in", `{"answer":"cmd/app/main.go"}`))))
	tr.TerminalTools = nil
	if _, def := both(t, tr); !near(def.Signals[Hallucination], 0.5/3) {
		t.Errorf("default, hand_in of no harness: hallucination %v; want 0.5/3%s", def.Signals[Hallucination], evidenceTexts(def))
	}
	tr.TerminalTools = []string{"hand_in"}
	if _, def := both(t, tr); def.Signals[Hallucination] != 0 || def.Verdict != verdict.Pass {
		t.Errorf("default, hand_in the harness ends on: %s hallucination %v; want PASS 0%s", def.Verdict, def.Signals[Hallucination], evidenceTexts(def))
	}
}

// Item 4. A claimed check of a web site, in any voice, with no tool that could have made it:
// "having checked the website" and "I checked their website" claim browsing as "after
// visiting" does (Who&When ww-AG-105's gym task, answered with no browsing tool: WARN). A
// check of something else ("I checked your order") is not a web claim, and after a browsing
// call the same sentence reports work the run did.
func TestJudgmentCheckedTheWebsite(t *testing.T) {
	run := func(text string, tool string) Result {
		tr := decodeRun(t, openAIRecord("gyms",
			oaUser("Which gyms near Tompkins Square Park have fitness classes before 7am?"),
			oaAssistant("", oaCall("c1", tool, `{"place":"Tompkins Square Park"}`)),
			oaTool("c1", tool, "East Village"),
			oaAssistant(text)))
		_, def := both(t, tr)
		return def
	}
	for _, c := range []struct{ text, phrase string }{
		{"Having checked the website of Blink Fitness, its first class starts at 7:30am.", "having checked"},
		{"After checking their official homepage, TMPL opens at 6am.", "after checking"},
		{"I checked the gym's official website: CrossFit East River has a 6am class.", "checked"},
	} {
		if def := run(c.text, "get_neighbourhood"); def.Verdict != verdict.Warn || !hasEvidence(def, SignalHallucination, fmt.Sprintf("claims an external action (%q)", c.phrase)) {
			t.Errorf("default on %q: %s; want WARN naming %q%s", c.text, def.Verdict, c.phrase, evidenceTexts(def))
		}
		if def := run(c.text, "web_browser"); def.Verdict != verdict.Pass {
			t.Errorf("default on %q after browsing: %s; want PASS%s", c.text, def.Verdict, evidenceTexts(def))
		}
	}
	for _, text := range []string{
		"I checked your order: it ships tomorrow.",
		"Having checked the schedule you sent, the 6am class fits.",
		"You can check their website for the schedule.",
	} {
		if def := run(text, "get_neighbourhood"); def.Verdict != verdict.Pass {
			t.Errorf("default on %q: %s; want PASS%s", text, def.Verdict, evidenceTexts(def))
		}
	}
}

// Item 5. A success claimed after a failure may report an earlier call that succeeded:
// tau-bench airline runs change the flights (the card is charged), then fail to add a bag,
// and the agent says the difference "has been charged". RS-1 sees no claim; the default
// before took it for a claim over the failed baggage call (at least WARN). The claim's
// sentence names the flights, which the succeeded call changed and the failed one does not:
// it reports the success. A claim that names the failed call's own work still counts.
func TestJudgmentClaimOfAnEarlierSuccess(t *testing.T) {
	run := func(claim string) Result {
		tr := decodeRun(t, tauRecord(72,
			oaUser("Please move my reservation ZFA04Y to the May 24 business flights and add one checked bag."),
			oaAssistant("", oaCall("call_a", "get_user_details", `{"user_id":"omar_davis_3817"}`)),
			oaTool("call_a", "get_user_details", `{"payment_methods": {"credit_card_9448": {}}}`),
			oaAssistant("", oaCall("call_b", "get_reservation_details", `{"reservation_id":"ZFA04Y"}`)),
			oaTool("call_b", "get_reservation_details", `{"reservation_id": "ZFA04Y", "cabin": "economy"}`),
			oaAssistant("", oaCall("call_1", "update_reservation_flights", `{"reservation_id":"ZFA04Y","cabin":"business","flights":[{"flight_number":"HAT131","date":"2024-05-24"}],"payment_id":"credit_card_9448"}`)),
			oaTool("call_1", "update_reservation_flights", `{"reservation_id": "ZFA04Y", "cabin": "business", "payment_history": [{"payment_id": "credit_card_9448", "amount": 495}]}`),
			oaAssistant("", oaCall("call_2", "update_reservation_baggages", `{"reservation_id":"ZFA04Y","total_baggages":2,"nonfree_baggages":1,"payment_id":"gift_card_1"}`)),
			oaTool("call_2", "update_reservation_baggages", "Error: payment method not found"),
			oaAssistant(claim)))
		_, def := both(t, tr)
		return def
	}
	if def := run("Your reservation is updated to the new flights: the difference of $495 has been charged to your credit card ending in 9448."); def.Signals[Hallucination] != 0 || def.Verdict != verdict.Pass {
		t.Errorf("default, the flights' charge reported: %s hallucination %v; want PASS 0%s", def.Verdict, def.Signals[Hallucination], evidenceTexts(def))
	}
	const want = "claims success (\"been updated\") after the call of `update_reservation_baggages` at message 7 failed (message 8), with no success since"
	if def := run("Your reservation's baggages have been updated: 2 bags in total."); def.Verdict != verdict.Warn || !hasEvidence(def, SignalHallucination, want) {
		t.Errorf("default, the failed baggage claimed: %s; want WARN with %q%s", def.Verdict, want, evidenceTexts(def))
	}
}

// Item 2, second half. Where the run records its tools' schemas (trace.RequiredParams), only a
// required parameter counts as missing: absent, null, or a string that strips to "", "null",
// "undefined" or "None". An optional one left out or null is no finding, even where no member
// of the call holds a value (which counts where no schema was recorded); a required one left
// empty is one, even beside another member that holds a value (which does not count where no
// schema was recorded). A tool the schemas do not describe, and the reference profile, keep
// the rule without a schema.
func TestJudgmentRequiredParametersBySchema(t *testing.T) {
	schemas := map[string][]string{"search_calendar_events": {"query"}, "list_files": {}, "get_day_calendar_events": {"day"}}
	run := func(tool, args string, required map[string][]string) (ref, def Result) {
		tr := &trace.Trace{ID: "r", RequiredParams: required, Messages: []trace.Message{
			msg("user", "When is my yoga class this week?"),
			withCalls(msg("assistant", ""), call("c1", tool, args)),
			withResults(msg("tool", "[]"), ok("c1")),
			withCalls(msg("assistant", ""), call("c2", "get_day_calendar_events", `{"day":"2024-05-21"}`)),
			withResults(msg("tool", `[{"title": "Yoga Class"}]`), ok("c2")),
			msg("assistant", "Your yoga class is on Tuesday, May 21 at 18:00."),
		}}
		return Evaluate(tr, profile.Reference), Evaluate(tr, profile.Default)
	}
	const flagged = "1 of 2 calls have empty, missing or null arguments: `%s` at message 1"
	for _, c := range []struct {
		tool, args        string
		bySchema, without bool // a finding with the schemas, and without them
	}{
		{"list_files", `{"directory":null}`, false, true},
		{"list_files", `{}`, false, false}, // a tool without parameters in this trace
		{"list_files", `null`, false, true},
		{"search_calendar_events", `{"date":null}`, true, true},
		{"search_calendar_events", `{"query":"","date":"2024-05-21"}`, true, false},
		{"search_calendar_events", `{"query":null,"date":"2024-05-21"}`, true, false},
		{"search_calendar_events", `{"date":"2024-05-21"}`, true, false},
		{"search_calendar_events", `{"query":" None ","date":"2024-05-21"}`, true, true},
		{"search_calendar_events", `{"query":"yoga","date":null}`, false, false},
		{"search_calendar_events", `{"query":"yoga","date":"null"}`, false, true}, // an optional one spelled "null"
		{"search_calendar_events", `["yoga"]`, true, true},
		{"search_calendar_events", `{'query': '', 'date': None}`, true, true},
		{"undescribed_tool", `{"a":null}`, true, true},
	} {
		for _, withSchemas := range []bool{true, false} {
			var required map[string][]string
			want := c.without
			if withSchemas {
				required, want = schemas, c.bySchema
			}
			ref, def := run(c.tool, c.args, required)
			refWithout, _ := run(c.tool, c.args, nil)
			if ref.Signals != refWithout.Signals || ref.Verdict != refWithout.Verdict {
				t.Errorf("%s %s: the reference reads the schemas: %+v, without them %+v", c.tool, c.args, ref.Signals, refWithout.Signals)
			}
			got := hasEvidence(def, SignalToolMisuse, fmt.Sprintf(flagged, c.tool))
			if got != want || want != (def.Signals[ToolMisuse] == 0.5) {
				t.Errorf("%s %s (schemas %v): tool_misuse %v, finding %v; want %v%s", c.tool, c.args, withSchemas, def.Signals[ToolMisuse], got, want, evidenceTexts(def))
			}
			bySchema := hasEvidence(def, SignalToolMisuse, "(1 of them leave out, or send empty or null, a parameter the run's tool schema requires)")
			if bySchema != (withSchemas && want && c.tool != "undescribed_tool") {
				t.Errorf("%s %s (schemas %v): the evidence says it was judged by the schema: %v%s", c.tool, c.args, withSchemas, bySchema, evidenceTexts(def))
			}
		}
	}
}

// One unrecovered failure is one event, not a rate. RS-1 reads 1 failed result of 2 as
// min(1, 1.5·1/2) = 0.75, WARN on its own: an Inspect run whose `python` call times out and
// whose scorer marks it correct, and a tau2-bench run that calls a tool its domain lacks,
// apologises and hands the user on (oscaralvaro/tau2-bench fishtrader, reward 1), WARNed.
// The default keeps the failure as a finding under the WARN line, 0.5 (as 1 of 3 scores),
// when the agent spoke after it, and the 40% floor of unrecovered failures needs two of
// them. Two failures of three, and one failure the run ends on, still WARN.
func TestJudgmentOneFailureIsNotARate(t *testing.T) {
	timeout := `{"id":"m5","role":"tool","content":"","tool_call_id":"call_test","function":"python","error":{"type":"timeout","message":"Command timed out before completing."}}`
	inspect := readFileRuns(t, "log.json", inspectLog(
		`{"id":"m2","role":"user","source":"input","content":"Find the file and run the tests."}`,
		inspectAssistant("m3", "Listing.", inspectCall("call_ls", "bash", `{"cmd":"ls"}`), inspectCall("call_test", "python", `{"code":"import main; main.test()"}`)),
		inspectTool("m4", "call_ls", "bash", "main.py\ntests/"),
		timeout,
		inspectAssistant("m6", "Done.")))[0]
	notFound := func(after ...string) *trace.Trace {
		msgs := append([]string{
			tau2Assistant("Hi! How can I help you today?"),
			tau2User("Hello, I'd like to cancel order ORD-002."),
			tau2Assistant("", tau2Call("call_1", "get_order_status", `{"order_id":"ORD-002"}`)),
			tau2Tool("call_1", `{"order": {"order_id": "ORD-002", "status": "ready_to_ship"}}`, false),
			tau2Assistant("The order is ready to ship, so I cannot cancel it. I'll transfer you.",
				tau2Call("call_2", "transfer_to_agent", `{"reason":"Cancellation of a ready_to_ship order"}`)),
			tau2Tool("call_2", "Error: Tool 'transfer_to_agent' not found.", true),
		}, after...)
		return readFileRuns(t, "results.json", tau2Results(1, msgs...))[0]
	}
	relayed := notFound(tau2Assistant("My apologies, I cannot transfer you. Please call our support line and quote ORD-002."),
		tau2User("Okay, thank you. ###STOP###"))
	for name, tr := range map[string]*trace.Trace{"Inspect, a timeout of 2 calls": inspect, "tau2-bench, an unknown tool relayed": relayed} {
		ref, def := both(t, tr)
		if !near(ref.Signals[ToolMisuse], 0.75) || ref.Verdict != verdict.Warn {
			t.Errorf("reference, %s: %s tool_misuse %v; RS-1 gives WARN 0.75", name, ref.Verdict, ref.Signals[ToolMisuse])
		}
		if !near(def.Signals[ToolMisuse], 0.5) || def.Verdict != verdict.Pass || !hasEvidence(def, SignalToolMisuse, "1 of 2 tool results failed and were never recovered") {
			t.Errorf("default, %s: %s tool_misuse %v; want PASS 0.5 naming the failure%s", name, def.Verdict, def.Signals[ToolMisuse], evidenceTexts(def))
		}
	}
	// the run ends on the failure, the agent silent after it: RS-1's score stands
	if _, def := both(t, notFound()); !near(def.Signals[ToolMisuse], 0.75) || def.Verdict != verdict.Warn {
		t.Errorf("default, the run ends on the failure: %s tool_misuse %v; want WARN 0.75%s", def.Verdict, def.Signals[ToolMisuse], evidenceTexts(def))
	}
	// two unrecovered failures of three calls are a rate: min(1, 1.5·2/3) = 1, WARN
	two := notFound(tau2Assistant("Let me try again.", tau2Call("call_3", "transfer_to_human", `{"reason":"Cancellation"}`)),
		tau2Tool("call_3", "Error: Tool 'transfer_to_human' not found.", true),
		tau2Assistant("My apologies, I cannot transfer you. Please call our support line."),
		tau2User("Okay. ###STOP###"))
	if _, def := both(t, two); def.Signals[ToolMisuse] != 1 || def.Verdict != verdict.Warn {
		t.Errorf("default, 2 of 3 failing: %s tool_misuse %v; want WARN 1%s", def.Verdict, def.Signals[ToolMisuse], evidenceTexts(def))
	}
}

// A look-up repeated because the user asks again is the conversation moving, not a loop. In
// oscaralvaro/tau2-bench's hotel domain (reward 1) the user asks for the check-in time and the
// breakfast again, and the agent calls `get_hotel_info {}` once for each question: three
// identical calls with the same answer, RS-1's (k−2)/8 = 0.125. Each repeat that follows a new
// user message (words unlike those before the call it repeats) is not counted. The same
// look-up with no user message between (an Anthropic tool_result, written as a user message
// with the harness's note of the steps left, is the tool's answer, not the user's words), or
// the user's same words again, still is.
func TestJudgmentLookupAskedAgain(t *testing.T) {
	info := `{"hotel_name": "Hotel Calle", "check_in_time": "15:00", "check_out_time": "12:00", "breakfast_included": "True"}`
	tau2 := func(questions ...string) *trace.Trace {
		var msgs []string
		for i, q := range questions {
			id := fmt.Sprintf("call_%d", i)
			msgs = append(msgs, tau2User(q), tau2Assistant("", tau2Call(id, "get_hotel_info", `{}`)), tau2Tool(id, info, false),
				tau2Assistant("Check-in is at 15:00, check-out at 12:00, and breakfast is included."))
		}
		return readFileRuns(t, "results.json", tau2Results(1, append(msgs, tau2User("Thanks. ###STOP###"))...))[0]
	}
	asked := tau2("Is breakfast included? What are the check-in and check-out times?",
		"Before I confirm anything, could you clarify the check-in and check-out times?",
		"One last question - is breakfast included with the room rate?")
	ref, def := both(t, asked)
	if !near(ref.Signals[Loop], 0.125) {
		t.Errorf("reference, asked three times: loop %v; RS-1 gives 0.125", ref.Signals[Loop])
	}
	if def.Signals[Loop] != 0 || def.Verdict != verdict.Pass {
		t.Errorf("default, asked three times: %s loop %v; want PASS 0%s", def.Verdict, def.Signals[Loop], evidenceTexts(def))
	}
	same := "What are the check-in and check-out times?"
	if _, def := both(t, tau2(same, same, same)); !near(def.Signals[Loop], 0.125) {
		t.Errorf("default, the same words asked three times: loop %v; want 0.125%s", def.Signals[Loop], evidenceTexts(def))
	}
	var an []string
	for i := range 3 {
		id := fmt.Sprintf("t%d", i)
		// the harness's step budget beside the result, as agents' loops write it
		an = append(an, anAssistant("", anUse(id, "get_hotel_info", `{}`)),
			fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":%s,"content":%s,"is_error":false},{"type":"text","text":"%d steps left."}]}`,
				js(id), js(info), 9-i))
	}
	unasked := decodeRun(t, anthropicRecord("unasked", append(append([]string{anUser("What are the check-in times?")}, an...),
		anAssistant("Check-in is at 15:00."))...))
	if _, def := both(t, unasked); !near(def.Signals[Loop], 0.125) {
		t.Errorf("default, three look-ups in a row: loop %v; want 0.125%s", def.Signals[Loop], evidenceTexts(def))
	}
}
