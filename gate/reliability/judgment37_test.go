package reliability

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/trace"
	"github.com/agentgate/agentgate/gate/verdict"
)

// Issue 37: signals that earn their place in the calibration table. The trajectories are
// shaped as the harnesses write them: tau2-bench results files (simulations with flat tool
// calls {id, name, arguments} and tool messages {"role": "tool", "id", "content", "error"},
// src/tau2/data_model/message.py of sierra-research/tau2-bench), tau-bench records
// ({task_id, reward, info, traj, trial}, tool failures written as "Error: ..." content), and
// OpenAI-shaped multi-agent transcripts.

// tau2Msg and friends write tau2-bench messages as its results files hold them.
func tau2Assistant(text string, calls ...string) string {
	content := "null"
	if text != "" {
		content = js(text)
	}
	tc := "null"
	if len(calls) > 0 {
		tc = "[" + strings.Join(calls, ",") + "]"
	}
	return `{"role":"assistant","content":` + content + `,"tool_calls":` + tc + `,"turn_idx":null}`
}
func tau2User(text string) string {
	return `{"role":"user","content":` + js(text) + `,"tool_calls":null,"turn_idx":null}`
}
func tau2Call(id, name, args string) string {
	return `{"id":` + js(id) + `,"name":` + js(name) + `,"arguments":` + args + `,"requestor":"assistant"}`
}
func tau2Tool(id, content string, isError bool) string {
	return fmt.Sprintf(`{"role":"tool","id":%s,"content":%s,"requestor":"assistant","error":%v,"turn_idx":null}`, js(id), js(content), isError)
}

// tau2Results is a results file of one simulation of these messages, with its reward.
func tau2Results(reward float64, msgs ...string) string {
	return fmt.Sprintf(`{"timestamp":"2026-04-05T00:54:54","info":{"environment_info":{"domain_name":"ecommerce_calle"}},"tasks":[],"simulations":[{"id":"sim-1","task_id":"0","trial":0,"termination_reason":"user_stop","reward_info":{"reward":%v},"messages":[%s]}]}`,
		reward, strings.Join(msgs, ","))
}

// Item 1. The tool worked and said no; the agent told the user. In the custom tau2-bench
// domains of oscaralvaro/tau2-bench (commit 9377bab3, data/simulations on its branches) the
// right answer of such tasks is the refusal, and 29 of the 32 runs tool_misuse flagged had
// succeeded. The answer relayed is information: tool_misuse 0, PASS. RS-1 still counts the
// failed result (1 of 2: min(1, 1.5·0.5) = 0.75, WARN).
func TestJudgmentToolAnsweredNo(t *testing.T) {
	run := func(answer string, after ...string) *trace.Trace {
		msgs := []string{
			tau2Assistant("Hi! How can I help you today?"),
			tau2User("Hi there. I'd like to cancel an order, please. It's order number ORD2."),
			tau2Assistant("", tau2Call("call_1", "get_order_details", `{"order_id":"ORD2"}`)),
			tau2Tool("call_1", `{"order_id": "ORD2", "status": "entregado"}`, false),
			tau2Assistant("", tau2Call("call_2", "cancel_order", `{"order_id":"ORD2"}`)),
			tau2Tool("call_2", answer, true),
		}
		return readFileRuns(t, "results.json", tau2Results(1, append(msgs, after...)...))[0]
	}
	relay := tau2Assistant("Lo siento, no puedo cancelar el pedido ORD2 porque está en estado \"entregado\".")
	stop := tau2User("Okay, I understand. ###STOP###")

	for _, answer := range []string{
		"Error: No se puede cancelar un pedido en estado: entregado",
		"Error: Customer 'CUST-005' is not allowed to place orders",
		"Error: Usuario U-INVALID no existe",
	} {
		ref, def := both(t, run(answer, relay, stop))
		if !near(ref.Signals[ToolMisuse], 0.75) || ref.Verdict != verdict.Warn {
			t.Errorf("reference on %q: %s tool_misuse %v; RS-1 gives WARN 0.75", answer, ref.Verdict, ref.Signals[ToolMisuse])
		}
		if def.Signals[ToolMisuse] != 0 || def.Verdict != verdict.Pass {
			t.Errorf("default on %q relayed: %s tool_misuse %v; want PASS 0%s", answer, def.Verdict, def.Signals[ToolMisuse], evidenceTexts(def))
		}
	}

	// Failures still: the same call sent again, the run ending on it, success claimed over
	// it, silence and more calls, and a fault of the tool's code relayed all the same.
	const no = "Error: No se puede cancelar un pedido en estado: entregado"
	for _, c := range []struct {
		name   string
		tr     *trace.Trace
		misuse float64
		v      verdict.Verdict
	}{
		// a blind retry: the first failure counts, 1 of 3 (1.5·1/3 = 0.5), and the loop signal
		// sees the repetition; the second, relayed, is the answer
		{"the same call again at once", run(no, tau2Assistant("", tau2Call("call_3", "cancel_order", `{"order_id":"ORD2"}`)),
			tau2Tool("call_3", no, true), relay, stop), 0.5, verdict.Pass},
		// relayed, the user insists, relayed again (enosa_09 of the custom domains): answers
		{"relayed twice", run(no, relay, tau2User("Please check ORD2 again."), tau2Assistant("", tau2Call("call_3", "cancel_order", `{"order_id":"ORD2"}`)),
			tau2Tool("call_3", no, true), relay, stop), 0, verdict.Pass},
		// the run ends on it: no word from the agent after it, RS-1's 1.5·1/2 = 0.75 stands
		{"the run ends on it", run(no), 0.75, verdict.Warn},
		// one failure the agent spoke after is one event, not a rate: at most 0.5 (issue 46,
		// TestJudgmentOneFailureIsNotARate); the false claim of success WARNs on its own
		{"success claimed", run(no, tau2Assistant("Your order ORD2 has been cancelled."), stop), 0.5, verdict.Warn},
		// 1 of 3 failed: 1.5·1/3 = 0.5, and 33% of the calls stays below item 2's 40%
		{"silence and more calls", run(no, tau2Assistant("", tau2Call("call_3", "get_order_details", `{"order_id":"ORD3"}`)),
			tau2Tool("call_3", `{"order_id": "ORD3"}`, false), relay, stop), 0.5, verdict.Pass},
		// a fault is a failure still, but one of two is 0.5 (issue 46), under the WARN line
		{"a fault relayed", run("Error: 'NoneType' object has no attribute 'strip'", relay, stop), 0.5, verdict.Pass},
		{"an unknown tool relayed", run("Error: Tool 'cancel_order' not found.", relay, stop), 0.5, verdict.Pass},
	} {
		_, def := both(t, c.tr)
		if !near(def.Signals[ToolMisuse], c.misuse) || def.Verdict != c.v {
			t.Errorf("default, %s: %s tool_misuse %v; want %s %v%s", c.name, def.Verdict, def.Signals[ToolMisuse], c.v, c.misuse, evidenceTexts(def))
		}
	}

	// Acting on the answer: "Customer not found", so the agent registers the customer (as in
	// the fuel-station domain's run a35ebfa5).
	msgs := []string{
		tau2User("Hello, I'd like to register my company as a new customer. Our RUC is 20601234567."),
		tau2Assistant("", tau2Call("call_1", "search_client_by_ruc", `{"ruc":"20601234567"}`)),
		tau2Tool("call_1", "Error: Customer not found", true),
		tau2Assistant("Okay, the system doesn't recognize that RUC. Let's register you.", tau2Call("call_2", "register_client", `{"ruc":"20601234567"}`)),
		tau2Tool("call_2", `{"id_cliente": "cliente_0001"}`, false),
		tau2Assistant("Your company is registered with ID cliente_0001."),
	}
	tr := readFileRuns(t, "results.json", tau2Results(1, msgs...))[0]
	if _, def := both(t, tr); def.Signals[ToolMisuse] != 0 || def.Verdict != verdict.Pass {
		t.Errorf("default on an answer acted on: %s tool_misuse %v; want PASS 0%s", def.Verdict, def.Signals[ToolMisuse], evidenceTexts(def))
	}
}

// Item 2. Real tau-bench runs with tool errors injected and the agent's text left as it was:
// 3 of 7 calls fail at the end and nothing recovers them. The failure rate 3/7 gives
// tool_misuse min(1, 1.5·3/7) = 0.643, below WARN's 0.7: the run PASSed. Unrecovered failures
// with no later success of their tool that make up 40% of the calls now make it WARN on their
// own; 2 of 6 (33%) do not.
func TestJudgmentUnrecoveredShare(t *testing.T) {
	run := func(calls, failing int) *trace.Trace {
		msgs := []string{oaUser("I want to exchange the keyboard in order #W2378156.")}
		tools := []string{"find_user_id_by_name_zip", "get_user_details", "get_order_details", "get_product_details",
			"calculate", "exchange_delivered_order_items", "think"}
		for i := 0; i < calls; i++ {
			id := fmt.Sprintf("call_%d", i)
			result := `{"ok": true}`
			if i >= calls-failing {
				result = "Error: Internal Server Error"
			}
			msgs = append(msgs, oaAssistant("", oaCall(id, tools[i%len(tools)], fmt.Sprintf(`{"n":%d}`, i))), oaTool(id, tools[i%len(tools)], result))
		}
		msgs = append(msgs, oaAssistant("The exchange is requested; you'll get an email with the return instructions."))
		return decodeRun(t, tauRecord(7, msgs...))
	}
	ref, def := both(t, run(7, 3))
	if !near(ref.Signals[ToolMisuse], 1.5*3/7) || ref.Verdict != verdict.Pass {
		t.Errorf("reference: %s tool_misuse %v; RS-1 gives PASS %v", ref.Verdict, ref.Signals[ToolMisuse], 1.5*3/7)
	}
	if !near(def.Signals[ToolMisuse], 1.5*3/7) || def.Verdict != verdict.Warn {
		t.Errorf("default: %s tool_misuse %v; want WARN %v%s", def.Verdict, def.Signals[ToolMisuse], 1.5*3/7, evidenceTexts(def))
	}
	full := Evaluate(run(7, 3), profile.Default)
	if !strings.Contains(full.Detail.Reasoning, "Tool failures never recovered make up 40% or more of the calls (at least WARN).") {
		t.Errorf("reasoning %q does not say why", full.Detail.Reasoning)
	}
	if s, _, ev := Decisive(&full); s != SignalToolMisuse || ev == nil {
		t.Errorf("decisive: %s %v; want tool_misuse with its evidence", s, ev)
	}
	for _, c := range []struct{ calls, failing int }{{5, 2}, {9, 4}} {
		if _, def := both(t, run(c.calls, c.failing)); def.Verdict != verdict.Warn {
			t.Errorf("default, %d of %d failing: %s; want WARN", c.failing, c.calls, def.Verdict)
		}
	}
	if _, def := both(t, run(6, 2)); def.Verdict != verdict.Pass || !near(def.Signals[ToolMisuse], 0.5) {
		t.Errorf("default, 2 of 6 failing: %s tool_misuse %v; want PASS 0.5", def.Verdict, def.Signals[ToolMisuse])
	}
}

// Item 3. A multi-agent run (Magentic-One on autogen_core, as the Who&When dataset holds it)
// whose last message is the runtime's own report: "Error processing publish message" and a
// traceback, written as the last agent's message, after its text or alone. A crash, whoever
// wrote it: WARN. RS-1 has no such rule: PASS.
func TestJudgmentRuntimeCrashWhoeverWrote(t *testing.T) {
	const report = "Error processing publish message\nTraceback (most recent call last):\n" +
		"  File \"/usr/local/lib/python3.11/site-packages/autogen_core/_single_threaded_agent_runtime.py\", line 410, in _process_publish\n" +
		"    await asyncio.gather(*responses)\n" +
		"autogen_core._agent_runtime.UndeliverableException: message could not be delivered"
	const want = `the run ends in a crash: message 3 holds "autogen_core._agent_runtime.UndeliverableException: message could not be delivered"`
	for _, last := range []string{
		`{"role":"assistant","name":"FileSurfer","content":` + js(report) + `}`,
		`{"role":"assistant","name":"Orchestrator","content":` + js("The file is downloaded; next I will read it.\n"+report) + `}`,
		`{"role":"user","name":"Orchestrator","content":` + js(report) + `}`,
	} {
		tr := decodeRun(t, openAIRecord("magentic",
			oaUser("What is the average rating of the three gyms nearest Tompkins Square Park?"),
			`{"role":"assistant","name":"Orchestrator","content":"Please download the ratings file."}`,
			`{"role":"assistant","name":"WebSurfer","content":"I typed 'gyms near Tompkins Square Park' into the browser search bar."}`,
			last))
		ref, def := both(t, tr)
		if ref.Verdict != verdict.Pass {
			t.Errorf("reference: %s; RS-1 gives PASS", ref.Verdict)
		}
		if def.Verdict != verdict.Warn || !hasEvidence(def, SignalTrace, want) {
			t.Errorf("default on %s: %s; want WARN with %q%s", last[:40], def.Verdict, want, evidenceTexts(def))
		}
	}
	// A user who quotes a traceback after words of their own ends no run in a crash.
	tr := decodeRun(t, openAIRecord("quote",
		oaUser("Why does this fail?"),
		oaAssistant("Because the key is missing."),
		oaUser("I see, I got this earlier:\nTraceback (most recent call last):\n  File \"a.py\", line 1\nKeyError: 'x'")))
	if _, def := both(t, tr); def.Verdict != verdict.Pass {
		t.Errorf("default on a user's quote: %s; want PASS%s", def.Verdict, evidenceTexts(def))
	}
}

// Item 4. Claims of external actions in any voice, in a run with no browsing or phone tool
// (AssistantBench's gym task as a multi-agent run answered it): WARN. The same sentences
// after a browsing call, and advice rather than claims, PASS.
func TestJudgmentExternalClaimsAnyVoice(t *testing.T) {
	for _, c := range []struct{ text, phrase string }{
		{"After visiting the Blink Fitness website, it was found that the gym offers classes before 7am.", "after visiting"},
		{"Contacting the East Side Athletic Club directly, they confirmed a 6am class on weekdays.", "contacting"},
		{"The schedule was found on the website of CrossFit Tompkins: classes start at 6:30am.", "was found on"},
		{"The front desk was contacted and confirmed the early classes.", "was contacted"},
		{"Upon visiting their homepage, the 6am spin class is listed.", "upon visiting"},
	} {
		tr := decodeRun(t, openAIRecord("gyms",
			oaUser("Which gyms near Tompkins Square Park have fitness classes before 7am?"),
			oaAssistant("", oaCall("c1", "get_neighbourhood", `{"place":"Tompkins Square Park"}`)),
			oaTool("c1", "get_neighbourhood", "East Village"),
			oaAssistant(c.text)))
		_, def := both(t, tr)
		if def.Verdict != verdict.Warn || !hasEvidence(def, SignalHallucination, fmt.Sprintf("claims an external action (%q)", c.phrase)) {
			t.Errorf("default on %q: %s; want WARN naming %q%s", c.text, def.Verdict, c.phrase, evidenceTexts(def))
		}
		// after a browsing call, the same sentence reports work the run did
		tr.Messages[1].Calls[0].Tool, tr.Messages[2].Results[0].CallID = "web_browser_visit", "c1"
		tr.Messages[1].Calls[0].Tool = "browser_visit_and_call"
		if _, def := both(t, tr); def.Verdict != verdict.Pass {
			t.Errorf("default on %q after browsing and calling tools: %s; want PASS%s", c.text, def.Verdict, evidenceTexts(def))
		}
	}
	for _, text := range []string{
		"I recommend contacting the East Side Athletic Club directly to confirm.",
		"Contacting the club directly is the fastest way to confirm the schedule.",
		"Visiting their website, would you like me to check anything else?",
		"You can find the schedule on their website.",
	} {
		tr := decodeRun(t, openAIRecord("advice", oaUser("Which gyms open early?"), oaAssistant(text)))
		if _, def := both(t, tr); def.Verdict != verdict.Pass {
			t.Errorf("default on advice %q: %s; want PASS%s", text, def.Verdict, evidenceTexts(def))
		}
	}
}
