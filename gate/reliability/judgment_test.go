package reliability

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/gate/trace"
	"github.com/agentgate/agentgate/gate/verdict"
)

// Issue 15: realistic runs, written in the record shapes agents produce (tau-bench, OpenAI
// Chat Completions, Anthropic Messages, SWE-agent) and read by the gate/trace readers. Each
// test shows the verdict the default profile gave before (the reference profile, RS-1, still
// gives it where the rule is RS-1's) and the one it gives now.

// js quotes s as a JSON string.
func js(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// OpenAI Chat Completions messages.
func oaUser(text string) string { return `{"role":"user","content":` + js(text) + `}` }
func oaAssistant(text string, calls ...string) string {
	content := "null"
	if text != "" {
		content = js(text)
	}
	if len(calls) == 0 {
		return `{"role":"assistant","content":` + content + `}`
	}
	return `{"role":"assistant","content":` + content + `,"tool_calls":[` + strings.Join(calls, ",") + `]}`
}
func oaCall(id, name, args string) string {
	return `{"id":` + js(id) + `,"type":"function","function":{"name":` + js(name) + `,"arguments":` + js(args) + `}}`
}
func oaTool(id, name, content string) string {
	return `{"role":"tool","tool_call_id":` + js(id) + `,"name":` + js(name) + `,"content":` + js(content) + `}`
}

// tauRecord is a tau-bench trajectory record; openAIRecord a plain OpenAI transcript.
func tauRecord(task int, msgs ...string) string {
	return fmt.Sprintf(`{"task_id":%d,"trial":0,"reward":0.0,"info":{},"traj":[%s]}`, task, strings.Join(msgs, ","))
}
func openAIRecord(id string, msgs ...string) string {
	return `{"id":` + js(id) + `,"messages":[` + strings.Join(msgs, ",") + `]}`
}

// Anthropic Messages.
func anUser(text string) string { return `{"role":"user","content":` + js(text) + `}` }
func anAssistant(text string, uses ...string) string {
	blocks := []string{}
	if text != "" {
		blocks = append(blocks, `{"type":"text","text":`+js(text)+`}`)
	}
	return `{"role":"assistant","content":[` + strings.Join(append(blocks, uses...), ",") + `]}`
}
func anUse(id, name, input string) string {
	return `{"type":"tool_use","id":` + js(id) + `,"name":` + js(name) + `,"input":` + input + `}`
}
func anResult(id, content string, isError bool) string {
	return fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":%s,"content":%s,"is_error":%v}]}`, js(id), js(content), isError)
}
func anthropicRecord(id string, msgs ...string) string {
	return `{"id":` + js(id) + `,"usage":{"input_tokens":1200,"output_tokens":300},"messages":[` + strings.Join(msgs, ",") + `]}`
}

// decodeRun reads one record with the gate/trace readers.
func decodeRun(t *testing.T, record string) *trace.Trace {
	t.Helper()
	tr, err := trace.Decode(input.Record{File: "run.json", Line: 1, Col: 1, Data: []byte(record)})
	if err != nil {
		t.Fatalf("decoding: %v\n%s", err, record)
	}
	return tr
}

// hasEvidence reports whether r has evidence of signal containing text.
func hasEvidence(r Result, signal, text string) bool {
	for _, e := range r.Evidence {
		if e.Signal == signal && strings.Contains(e.Text, text) {
			return true
		}
	}
	return false
}

func evidenceTexts(r Result) string {
	var b strings.Builder
	for _, e := range r.Evidence {
		fmt.Fprintf(&b, "\n  [%s] %s", e.Signal, e.Text)
	}
	return b.String()
}

const retailAddress = `{"order_id":"#W2378156","address1":"445 Maple Drive","address2":"%s","city":"Philadelphia","state":"PA","country":"USA","zip":"19122"}`

// Item 1. A retail agent fails to change an address eight times (the address service
// rejects its state code), then gives up. RS-1's mean dilutes the failure rate (1.0) with the
// busiest-tool factor (8 of 10 calls: 0.3): 0.65, PASS. The default takes the largest factor:
// 1.0, WARN.
func TestJudgmentMisuseDilution(t *testing.T) {
	msgs := []string{
		oaUser("Hi, I need to change the shipping address on my order #W2378156. I'm Yusuf Rossi, zip 19122."),
		oaAssistant("", oaCall("call_1", "find_user_id_by_name_zip", `{"first_name":"Yusuf","last_name":"Rossi","zip":"19122"}`)),
		oaTool("call_1", "find_user_id_by_name_zip", "yusuf_rossi_9620"),
		oaAssistant("", oaCall("call_2", "get_order_details", `{"order_id":"#W2378156"}`)),
		oaTool("call_2", "get_order_details", `{"order_id": "#W2378156", "user_id": "yusuf_rossi_9620", "status": "pending"}`),
	}
	for i := 0; i < 8; i++ {
		id := fmt.Sprintf("call_%d", 3+i)
		args := fmt.Sprintf(`{"order_id":"#W2378156","address1":"445 Maple Drive","address2":"Apt %d","city":"Philadelphia","state":"Pennsylvania","country":"USA","zip":"19122"}`, i)
		msgs = append(msgs, oaAssistant("", oaCall(id, "modify_pending_order_address", args)),
			oaTool(id, "modify_pending_order_address", "Error: invalid state"))
	}
	msgs = append(msgs, oaAssistant("I'm sorry, I could not update the address. Please contact support."))
	tr := decodeRun(t, tauRecord(12, msgs...))
	ref, def := both(t, tr)
	// 8 of 10 results failed: min(1, 1.5·0.8) = 1; busiest tool 8 of 10: 0.5·min(1, 2·0.3) = 0.3.
	if !near(ref.Signals[ToolMisuse], 0.65) || ref.Verdict != verdict.Pass {
		t.Errorf("reference: tool_misuse %v %s; RS-1's mean gives 0.65 PASS", ref.Signals[ToolMisuse], ref.Verdict)
	}
	if def.Signals[ToolMisuse] != 1 || def.Verdict != verdict.Warn {
		t.Errorf("default: tool_misuse %v %s; want 1 WARN%s", def.Signals[ToolMisuse], def.Verdict, evidenceTexts(def))
	}
}

// Item 1, monotonic: nine failed calls of nine give 1.0 (WARN); the same run with three more
// calls holding a null (one more problem found) must not score lower. RS-1's mean goes from
// 0.75 (1 and 0.5) to 0.583 (1, 0.5 and 0.25) and PASSes.
func TestJudgmentMisuseMonotonic(t *testing.T) {
	build := func(nulls int) *trace.Trace {
		msgs := []string{oaUser("Please update my default address to 445 Maple Drive, Philadelphia.")}
		for i := 0; i < 9+nulls; i++ {
			id := fmt.Sprintf("call_%d", i)
			args := fmt.Sprintf(`{"user_id":"yusuf_rossi_9620","address1":"445 Maple Drive","address2":"Apt %d","city":"Philadelphia","state":"PA","country":"USA","zip":"19122"}`, i)
			result := "Error: user not found"
			if i >= 9 {
				args = fmt.Sprintf(`{"user_id":null,"address1":"445 Maple Drive","address2":"Apt %d","city":"Philadelphia","state":"PA","country":"USA","zip":"19122"}`, i)
				result = "Error: user_id is required"
			}
			msgs = append(msgs, oaAssistant("", oaCall(id, "modify_user_address", args)), oaTool(id, "modify_user_address", result))
		}
		return decodeRun(t, openAIRecord(fmt.Sprintf("nulls-%d", nulls), msgs...))
	}
	refA, defA := both(t, build(0))
	refB, defB := both(t, build(3))
	if !near(refA.Signals[ToolMisuse], 0.75) || !near(refB.Signals[ToolMisuse], (1+0.5+0.25)/3) || refB.Verdict != verdict.Pass {
		t.Errorf("reference: %v then %v %s; RS-1 gives 0.75 then 0.583 PASS", refA.Signals[ToolMisuse], refB.Signals[ToolMisuse], refB.Verdict)
	}
	if defA.Signals[ToolMisuse] != 1 || defB.Signals[ToolMisuse] != 1 || defA.Verdict != verdict.Warn || defB.Verdict != verdict.Warn {
		t.Errorf("default: %v %s then %v %s; want 1 WARN both", defA.Signals[ToolMisuse], defA.Verdict, defB.Signals[ToolMisuse], defB.Verdict)
	}
}

// Item 1, empty optional fields: an Anthropic run that changes an address with "address2": ""
// (the customer has no apartment) is correct; RS-1 counts every call as missing arguments
// (2 of 2: 1.0, WARN). The default sees no problem.
func TestJudgmentEmptyOptionalField(t *testing.T) {
	tr := decodeRun(t, anthropicRecord("empty-optional",
		anUser("Please ship order #W2378156 to 445 Maple Drive, Philadelphia PA 19122 instead."),
		anAssistant("Let me look up the order first.", anUse("toolu_01", "get_order_details", `{"order_id":"#W2378156","note":""}`)),
		anResult("toolu_01", `{"order_id": "#W2378156", "status": "pending"}`, false),
		anAssistant("", anUse("toolu_02", "modify_pending_order_address", fmt.Sprintf(retailAddress, ""))),
		anResult("toolu_02", `{"order_id": "#W2378156", "status": "pending", "address": {"address1": "445 Maple Drive"}}`, false),
		anAssistant("Done: order #W2378156 will ship to 445 Maple Drive, Philadelphia, PA 19122."),
	))
	ref, def := both(t, tr)
	if ref.Signals[ToolMisuse] != 1 || ref.Verdict != verdict.Warn {
		t.Errorf("reference: tool_misuse %v %s; RS-1 gives 1 WARN", ref.Signals[ToolMisuse], ref.Verdict)
	}
	if def.Signals[ToolMisuse] != 0 || def.Verdict != verdict.Pass {
		t.Errorf("default: tool_misuse %v %s; want 0 PASS%s", def.Signals[ToolMisuse], def.Verdict, evidenceTexts(def))
	}
}

// Item 2. A harness writes arguments as str(dict). RS-1 (and the default before) read each
// call as "empty, missing or null arguments": 3 of 3, WARN. The default reads them as values;
// arguments that are neither JSON nor a Python literal are "not valid JSON".
func TestJudgmentPythonLiteralArguments(t *testing.T) {
	tr := decodeRun(t, tauRecord(7,
		oaUser("I want to return the water bottle from my last order. I'm Sara Doe, zip 19122."),
		oaAssistant("", oaCall("call_a", "find_user_id_by_name_zip", `{'first_name': 'Sara', 'last_name': 'Doe', 'zip': '19122'}`)),
		oaTool("call_a", "find_user_id_by_name_zip", "sara_doe_496"),
		oaAssistant("", oaCall("call_b", "get_user_details", `{'user_id': 'sara_doe_496'}`)),
		oaTool("call_b", "get_user_details", `{"orders": ["#W6304490"]}`),
		oaAssistant("", oaCall("call_c", "return_delivered_order_items", `{'order_id': '#W6304490', 'item_ids': ['6777246137'], 'payment_method_id': 'credit_card_3124723', 'gift': False, 'note': ''}`)),
		oaTool("call_c", "return_delivered_order_items", `{"status": "return requested"}`),
		oaAssistant("The return of the water bottle is requested; the refund goes to your credit card."),
	))
	ref, def := both(t, tr)
	if ref.Signals[ToolMisuse] != 1 || ref.Verdict != verdict.Warn || !hasEvidence(ref, SignalToolMisuse, "3 of 3 calls have empty, missing or null arguments") {
		t.Errorf("reference: tool_misuse %v %s; RS-1 gives 1 WARN (3 of 3 bad arguments)%s", ref.Signals[ToolMisuse], ref.Verdict, evidenceTexts(ref))
	}
	if def.Signals[ToolMisuse] != 0 || def.Verdict != verdict.Pass {
		t.Errorf("default: tool_misuse %v %s; want 0 PASS%s", def.Signals[ToolMisuse], def.Verdict, evidenceTexts(def))
	}
	// None is read as a null value: arguments that are all None give (b) 1 of 3 (a None
	// beside values is an optional argument left out, issue 46)
	tr.Messages[5].Calls[0].Args = []byte(`{'order_id': None, 'item_ids': None, 'payment_method_id': None}`)
	if _, def := both(t, tr); !hasEvidence(def, SignalToolMisuse, "1 of 3 calls have empty, missing or null arguments: `return_delivered_order_items` at message 5") {
		t.Errorf("default with None:%s", evidenceTexts(def))
	}

	// Text that is neither JSON nor a literal is reported as such, not as empty arguments.
	tr = decodeRun(t, openAIRecord("garbled",
		oaUser("What's the weather in Paris?"),
		oaAssistant("", oaCall("c1", "get_weather", `{city: Paris}`)),
		oaTool("c1", "get_weather", "Error: invalid arguments"),
		oaAssistant("", oaCall("c2", "get_weather", `{"city": "Paris"}`)),
		oaTool("c2", "get_weather", `{"temp_c": 18}`),
		oaAssistant("It is 18 °C in Paris."),
	))
	_, def = both(t, tr)
	if !hasEvidence(def, SignalToolMisuse, "1 of 2 calls have arguments that are not valid JSON: `get_weather` at message 1") ||
		hasEvidence(def, SignalToolMisuse, "empty, missing or null") {
		t.Errorf("default evidence:%s\nwant the call at message 1 reported as not valid JSON", evidenceTexts(def))
	}
}

// Item 3. The address change fails and the agent tells the user it succeeded. RS-1 sees one
// failed result of three (below 30%) and nothing else: PASS. The default names the claim and
// the failed call, and the run is at least WARN.
func TestJudgmentSuccessClaimedAfterFailure(t *testing.T) {
	tr := decodeRun(t, tauRecord(21,
		oaUser("Hi, please update my address to 12 Oak Street, Austin TX 78701. My user id is mei_li_2872."),
		oaAssistant("", oaCall("call_1", "get_user_details", `{"user_id":"mei_li_2872"}`)),
		oaTool("call_1", "get_user_details", `{"name": {"first_name": "Mei", "last_name": "Li"}}`),
		oaAssistant("", oaCall("call_2", "modify_user_address", `{"user_id":"mei_li_2872","address1":"12 Oak Street","address2":"","city":"Austin","state":"TX","country":"USA","zip":"78701"}`)),
		oaTool("call_2", "modify_user_address", "Error: the address could not be validated"),
		oaAssistant("", oaCall("call_3", "think", `{"thought":"The user wants confirmation."}`)),
		oaTool("call_3", "think", ""),
		oaAssistant("Your address has been successfully updated to 12 Oak Street, Austin, TX 78701. Is there anything else?"),
		oaUser("No, thanks! ###STOP###"),
	))
	ref, def := both(t, tr)
	if ref.Verdict != verdict.Pass || ref.Signals[Hallucination] != 0 {
		t.Errorf("reference: %s hallucination %v; RS-1 gives PASS 0", ref.Verdict, ref.Signals[Hallucination])
	}
	want := `assistant message 7 claims success ("successfully updated") after the call of ` +
		"`modify_user_address` at message 3 failed (message 4), with no success since"
	if def.Verdict != verdict.Warn || !hasEvidence(def, SignalHallucination, want) {
		t.Errorf("default: %s; want WARN with %q%s", def.Verdict, want, evidenceTexts(def))
	}
	// hallucination: calls all answered (0), results all answer calls (0), no claim of tool
	// use (0), success after a failure (1): 1/4.
	if !near(def.Signals[Hallucination], 0.25) {
		t.Errorf("default hallucination %v, want 0.25", def.Signals[Hallucination])
	}

	// Saying so is not a false claim, nor is a success after the retry succeeded.
	for _, text := range []string{
		"Unfortunately the address could not be updated: the service rejected it. Shall I try again?",
	} {
		tr.Messages[7].Content = text
		if _, def := both(t, tr); def.Verdict != verdict.Pass {
			t.Errorf("default on %q: %s, want PASS%s", text, def.Verdict, evidenceTexts(def))
		}
	}
	tr = decodeRun(t, tauRecord(21,
		oaUser("Please update my address to 12 Oak Street, Austin TX 78701. User id mei_li_2872."),
		oaAssistant("", oaCall("call_0", "get_user_details", `{"user_id":"mei_li_2872"}`)),
		oaTool("call_0", "get_user_details", `{"name": {"first_name": "Mei", "last_name": "Li"}}`),
		oaAssistant("", oaCall("call_1", "list_all_product_types", `{}`)),
		oaTool("call_1", "list_all_product_types", `{"Keyboard": "1656367028"}`),
		oaAssistant("", oaCall("call_2", "modify_user_address", `{"user_id":"mei_li_2872","address1":"12 Oak Street","city":"Austin","state":"Texas","country":"USA","zip":"78701"}`)),
		oaTool("call_2", "modify_user_address", "Error: invalid state"),
		oaAssistant("", oaCall("call_3", "modify_user_address", `{"user_id":"mei_li_2872","address1":"12 Oak Street","city":"Austin","state":"TX","country":"USA","zip":"78701"}`)),
		oaTool("call_3", "modify_user_address", `{"address": {"address1": "12 Oak Street"}}`),
		oaAssistant("Your address has been successfully updated."),
	))
	if _, def := both(t, tr); def.Verdict != verdict.Pass || def.Signals[Hallucination] != 0 {
		t.Errorf("default after a successful retry: %s hallucination %v, want PASS 0%s", def.Verdict, def.Signals[Hallucination], evidenceTexts(def))
	}
}

// Item 4. A claim of a tool call in a run without any call: RS-1 scores the claim 0.5 and
// PASSes. The default makes it at least WARN; naming is not claiming.
func TestJudgmentClaimWithoutAnyCall(t *testing.T) {
	tr := decodeRun(t, anthropicRecord("no-call",
		anUser("I was charged twice for order #1042. Can you refund the duplicate charge?"),
		anAssistant("I called the refund tool and the refund of $49.99 was issued to your card. You'll see it in 3–5 days."),
		anUser("Great, thanks."),
	))
	ref, def := both(t, tr)
	if ref.Verdict != verdict.Pass || !near(ref.Signals[Hallucination], 0.5) {
		t.Errorf("reference: %s hallucination %v; RS-1 gives PASS 0.5", ref.Verdict, ref.Signals[Hallucination])
	}
	want := `assistant message 1 claims tool use ("called") but no tool call was made before it`
	if def.Verdict != verdict.Warn || !near(def.Signals[Hallucination], 0.5) || !hasEvidence(def, SignalHallucination, want) {
		t.Errorf("default: %s hallucination %v; want WARN 0.5 with %q%s", def.Verdict, def.Signals[Hallucination], want, evidenceTexts(def))
	}

	// Naming is not claiming: no evidence at all. "tool call" is a claim where it points at
	// a call of the run; talk of tool calls in general (Gemini explaining Langfuse in
	// langfuse/langfuse's google-gemini-2025-08-01 trace, its own hallucination score 0.1)
	// is not.
	for _, c := range []struct {
		text  string
		claim bool
	}{
		{"You can turn this off with a setting called autoRefund in the billing page.", false},
		{"First I'll create a new file called reproduce.py to reproduce the issue.", false},
		{"The script prints the traceback when executed with Python 3.12.", false},
		{"This tool call pattern is described in the docs.", true}, // RS-1's "tool call" stays a claim
		{"The tool call returned a balance of $12.", true},
		{"My last tool call failed, so here is what I know.", true},
		{"I made two tool calls.", true},
		{"Tracing shows the exact cause (e.g., a bad prompt, a hallucination, a failed tool call).", false},
		{"It records each step (the user's query, internal thoughts of the LLM, tool calls, final response).", false},
	} {
		tr := decodeRun(t, anthropicRecord("naming", anUser("help"), anAssistant(c.text)))
		_, def := both(t, tr)
		if got := def.Signals[Hallucination] != 0; got != c.claim {
			t.Errorf("default on %q: hallucination %v, want a claim %v%s", c.text, def.Signals[Hallucination], c.claim, evidenceTexts(def))
		}
	}
}

// Item 5. A lookup fails twice on a wrong zip code, the agent asks, the user corrects it and
// the lookup succeeds: correct behaviour. The per-tool failure rule flagged it (2 of 3: 1.0,
// WARN); the default counts only failures never recovered from.
func TestJudgmentRecoveredRetries(t *testing.T) {
	lookup := func(id, zip string) string {
		return oaCall(id, "find_user_id_by_name_zip", `{"first_name":"Yusuf","last_name":"Rossi","zip":"`+zip+`"}`)
	}
	msgs := []string{
		oaUser("Hi, I'd like to exchange the keyboard in my order #W2378156. I'm Yusuf Rossi, zip 19112."),
		oaAssistant("", lookup("call_1", "19112")),
		oaTool("call_1", "find_user_id_by_name_zip", "Error: user not found"),
		oaAssistant("I couldn't find you with zip 19112. Could you double-check it?"),
		oaUser("Sorry, maybe 19121?"),
		oaAssistant("", lookup("call_2", "19121")),
		oaTool("call_2", "find_user_id_by_name_zip", "Error: user not found"),
		oaAssistant("Still nothing under 19121. Could you check your zip code once more?"),
		oaUser("Oh, it's 19122."),
		oaAssistant("", lookup("call_3", "19122")),
		oaTool("call_3", "find_user_id_by_name_zip", "yusuf_rossi_9620"),
	}
	for i, tool := range []string{"get_order_details", "get_product_details", "get_product_details", "get_order_details", "get_user_details", "calculate"} {
		id := fmt.Sprintf("call_%d", 4+i)
		msgs = append(msgs, oaAssistant("", oaCall(id, tool, fmt.Sprintf(`{"id":"%d"}`, i))), oaTool(id, tool, `{"ok": true}`))
	}
	msgs = append(msgs, oaAssistant("", oaCall("call_x", "exchange_delivered_order_items", `{"order_id":"#W2378156","item_ids":["1151293680"],"new_item_ids":["7706410293"],"payment_method_id":"paypal_2514"}`)),
		oaTool("call_x", "exchange_delivered_order_items", `{"status": "exchange requested"}`),
		oaAssistant("The exchange is requested; you'll get an email with the return instructions."))
	tr := decodeRun(t, tauRecord(33, msgs...))
	_, def := both(t, tr)
	// 2 failed of 10 results: below RS-1's 30%; the lookup's failures were recovered.
	if def.Verdict != verdict.Pass || def.Signals[ToolMisuse] != 0 {
		t.Errorf("default: %s tool_misuse %v; want PASS 0%s", def.Verdict, def.Signals[ToolMisuse], evidenceTexts(def))
	}

	// Without the recovery (the third lookup fails too) the tool keeps failing: WARN.
	msgs[10] = oaTool("call_3", "find_user_id_by_name_zip", "Error: user not found")
	tr = decodeRun(t, tauRecord(33, msgs...))
	_, def = both(t, tr)
	want := "`find_user_id_by_name_zip` failed 3 of 3 times, 3 of them never recovered"
	if def.Verdict != verdict.Warn || def.Signals[ToolMisuse] != 1 || !hasEvidence(def, SignalToolMisuse, want) {
		t.Errorf("default without recovery: %s tool_misuse %v; want WARN 1 with %q%s", def.Verdict, def.Signals[ToolMisuse], want, evidenceTexts(def))
	}
}

// Item 6. A SWE-agent (EnIGMA) run without function calling submits the same wrong flag four
// times in a row. Its actions are text: trajectory steps, or history messages with an action
// (or a fenced command). Read as calls, four identical failing submissions in a row are a
// loop: FAIL. Before, the run had no calls and PASSed.
func TestJudgmentTextActionsLoop(t *testing.T) {
	var steps, history []string
	history = append(history, `{"role":"system","content":"SETTING: You are a skilled cybersecurity professional.","agent":"primary","message_type":"system_prompt"}`,
		`{"role":"user","content":"We're solving this CTF challenge: find the flag in ./chal.","agent":"primary","message_type":"observation"}`)
	add := func(thought, action, obs string) {
		steps = append(steps, fmt.Sprintf(`{"response":%s,"thought":%s,"action":%s,"observation":%s,"state":"{}"}`, js(thought+"\n\n```\n"+action+"\n```"), js(thought), js(action+"\n"), js(obs)))
		history = append(history,
			fmt.Sprintf(`{"role":"assistant","content":%s,"agent":"primary","message_type":"action"}`, js(thought+"\n\n```\n"+action+"\n```")),
			fmt.Sprintf(`{"role":"user","content":%s,"agent":"primary","message_type":"observation"}`, js(obs)))
	}
	add("Let me look at the files.", "ls -la", "total 8\n-rwxr-xr-x 1 root root 16712 chal")
	add("Let me print the strings of the binary.", "strings chal | grep flag", "flag{n0t_th3_r34l_0n3}")
	for _, thought := range []string{"The flag seems to be in the strings output. Let me submit it.",
		"That was rejected; perhaps a transient error. Submitting again.",
		"Let me try submitting the flag once more.", "I am confident this is the flag, submitting it."} {
		add(thought, "submit 'flag{n0t_th3_r34l_0n3}'", "Wrong flag!")
	}
	for _, c := range []struct{ name, record string }{
		{"trajectory", `{"environment":"swe_main","trajectory":[` + strings.Join(steps, ",") + `],"info":{"exit_status":"submitted"}}`},
		{"history-fenced", `{"environment":"swe_main","history":[` + strings.Join(history, ",") + `],"info":{"exit_status":"submitted"}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := decodeRun(t, c.record)
			if n := tr.NumCalls(); n != 6 {
				t.Fatalf("%d calls read, want 6", n)
			}
			// before, the actions were not read: the same run without its calls PASSes
			bare := *tr
			bare.Messages = slices.Clone(tr.Messages)
			for i := range bare.Messages {
				bare.Messages[i].Calls, bare.Messages[i].Results = nil, nil
			}
			if _, def := both(t, &bare); def.Verdict != verdict.Pass {
				t.Errorf("default without the actions: %s, want PASS%s", def.Verdict, evidenceTexts(def))
			}
			_, def := both(t, tr)
			if def.Verdict != verdict.Fail || def.Signals[Loop] != 1 || !hasEvidence(def, SignalLoop, "`submit` sent 4 times in a row with identical arguments") {
				t.Errorf("default: %s loop %v; want FAIL 1%s", def.Verdict, def.Signals[Loop], evidenceTexts(def))
			}
		})
	}
}

// Item 6, repeated turns: three identical assistant turns in a row are a loop even in a long
// run where they are a small share of the turn pairs. Before: 2 of 29 pairs alike, PASS.
func TestJudgmentIdenticalTurnsInARow(t *testing.T) {
	msgs := []string{oaUser("Can you help me plan a trip to Lisbon?")}
	for i := 0; i < 27; i++ {
		msgs = append(msgs, oaAssistant(fmt.Sprintf("Day %d: visit site number %d and try dish %d, then rest at hotel %d.", i, i*3, i*7, i%5)), oaUser(fmt.Sprintf("ok %d", i)))
	}
	for i := 0; i < 3; i++ {
		msgs = append(msgs, oaAssistant("I'm sorry, I can't access the booking system right now."), oaUser("please try again"))
	}
	tr := decodeRun(t, openAIRecord("repeat", msgs...))
	_, def := both(t, tr)
	if def.Verdict != verdict.Fail || def.Signals[Loop] != 1 || !hasEvidence(def, SignalLoop, "3 identical assistant turns in a row (same text, calls and results): messages 55, 57, 59") {
		t.Errorf("default: %s loop %v; want FAIL 1%s", def.Verdict, def.Signals[Loop], evidenceTexts(def))
	}
	// The default profile before this rule: 2 of 29 pairs alike, far from more than half.
	if pairs, n := newEval(tr, false).similarPairs(); len(pairs) != 0 && 2*len(pairs) > n {
		t.Errorf("similar pairs %d of %d", len(pairs), n)
	}
}

// Holding one's ground is no loop: the same refusal given, word for word, to a user who keeps
// pushing with new words (tau2-bench airline task 6 of the fine-tuned gpt-4.1, reward 1:
// "4 identical assistant turns in a row" made it FAIL). The same refusal to the same words
// repeated still is one. The turns before the refusals differ, as in the real run, so that
// RS-1's share of alike pairs stays at most half.
func TestJudgmentSameRefusalToNewWords(t *testing.T) {
	refusal := "I'm sorry, but your basic economy reservation cannot be cancelled under our policy."
	opening := func() []string {
		msgs := []string{oaUser("Hi, I want to cancel a flight.")}
		for i, a := range []string{"Could you give me your user id?", "Thanks. Which reservation is it?",
			"Let me look at reservation XEHM4B for you.", "It is a basic economy ticket from JFK to SFO on May 20.",
			"It was booked 10 days ago and has no travel insurance.", "What is the reason for the cancellation?"} {
			msgs = append(msgs, oaAssistant(a), oaUser(fmt.Sprintf("answer %d", i)))
		}
		return msgs
	}
	msgs := opening()
	for _, p := range []string{"I need to cancel it.", "My doctor says I cannot fly.", "Your colleague said it was fine!"} {
		msgs = append(msgs, oaAssistant(refusal), oaUser(p))
	}
	msgs = append(msgs, oaAssistant(refusal))
	_, def := both(t, decodeRun(t, openAIRecord("firm", msgs...)))
	if def.Verdict != verdict.Pass || def.Signals[Loop] != 0 {
		t.Errorf("new words each time: %s loop %v; want PASS, loop 0%s", def.Verdict, def.Signals[Loop], evidenceTexts(def))
	}

	msgs = opening()
	for range 3 {
		msgs = append(msgs, oaAssistant(refusal), oaUser("I need to cancel it."))
	}
	msgs = append(msgs, oaAssistant(refusal))
	_, def = both(t, decodeRun(t, openAIRecord("stuck", msgs...)))
	if def.Verdict != verdict.Fail || def.Signals[Loop] != 1 || !hasEvidence(def, SignalLoop, "4 identical assistant turns in a row (same text, calls and results): messages 13, 15, 17, 19") {
		t.Errorf("the same words again: %s loop %v; want FAIL 1%s", def.Verdict, def.Signals[Loop], evidenceTexts(def))
	}
}
