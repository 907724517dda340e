package reliability

import (
	"context"
	"fmt"
	"github.com/agentgate/agentgate/internal/cputime"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/trace"
	"github.com/agentgate/agentgate/gate/verdict"
)

// Issue 23: failures the evaluators could not see, and false alarms, found by reading runs
// labelled by their benchmarks. Each test writes a run in the shape a real harness writes it
// (tau-bench's OpenAI messages, a SWE-agent .traj, an Inspect log, Anthropic Messages, RS-1,
// SWE-agent text actions), reads it with the gate/trace readers, and shows what the
// reference profile (and the default before the rule) made of it and what the default does.

// SWE-agent .traj history messages with function calling (tool_call_ids, as in
// reference-data/transcripts/swe-agent-function_calling_simple.traj).
func sweAction(thought, id, tool, args string) string {
	return fmt.Sprintf(`{"role":"assistant","content":%s,"thought":%s,"action":%s,"agent":"primary","tool_calls":[{"function":{"arguments":%s,"name":%s},"id":%s,"type":"function"}],"message_type":"action"}`,
		js(thought), js(thought), js(tool), js(args), js(tool), js(id))
}
func sweObservation(id, content string) string {
	return fmt.Sprintf(`{"role":"tool","content":%s,"agent":"primary","message_type":"observation","tool_call_ids":[%s]}`, js(content), js(id))
}
func sweTraj(msgs ...string) string {
	return `{"environment":"swe_main","history":[{"role":"system","content":"SETTING: You are an autonomous programmer.","agent":"primary","message_type":"system_prompt"},` +
		`{"role":"user","content":"We're currently solving the following issue within our repository.","agent":"primary","message_type":"observation"},` +
		strings.Join(msgs, ",") + `],"info":{"exit_status":"submitted"}}`
}

// readFileRuns reads the runs of a file written to a temporary directory (an Inspect log).
func readFileRuns(t *testing.T, name, content string) []*trace.Trace {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	var out []*trace.Trace
	if err := trace.EachFile(context.Background(), path, func(tr *trace.Trace) error { out = append(out, tr); return nil }); err != nil {
		t.Fatalf("reading %s: %v", name, err)
	}
	return out
}

// inspectLog is an Inspect eval log (the .json form) with one sample of these messages.
func inspectLog(msgs ...string) string {
	return `{"version":2,"status":"success","eval":{"task":"fix","task_id":"T1","run_id":"R1","created":"2026-01-01T00:00:00+00:00","model":"openai/gpt-4o","dataset":{"samples":1},"config":{}},` +
		`"plan":{},"results":{},"stats":{},"samples":[{"id":"s1","epoch":1,"input":"Fix the failing test.","target":"ok","messages":[` +
		strings.Join(msgs, ",") + `],"output":{"model":"gpt-4o","choices":[]},"scores":{},"metadata":{},"store":{},"events":[]}]}`
}
func inspectAssistant(id, text string, calls ...string) string {
	if len(calls) == 0 {
		return fmt.Sprintf(`{"id":%s,"role":"assistant","source":"generate","content":%s,"model":"gpt-4o"}`, js(id), js(text))
	}
	return fmt.Sprintf(`{"id":%s,"role":"assistant","source":"generate","content":%s,"tool_calls":[%s],"model":"gpt-4o"}`, js(id), js(text), strings.Join(calls, ","))
}
func inspectCall(id, fn, args string) string {
	return fmt.Sprintf(`{"id":%s,"function":%s,"arguments":%s,"type":"function"}`, js(id), js(fn), args)
}
func inspectTool(id, callID, fn, content string) string {
	return fmt.Sprintf(`{"id":%s,"role":"tool","content":%s,"tool_call_id":%s,"function":%s}`, js(id), js(content), js(callID), js(fn))
}

// The forms of a non-zero exit status that harnesses write, and text that is not one.
func TestExitStatus(t *testing.T) {
	long := strings.Repeat("collected 12 items; all lines of this listing are plain output\n", 10)
	for _, c := range []struct {
		text, want string
	}{
		{"exitcode: 1 (execution failed)\nCode output: Traceback (most recent call last):", "exitcode: 1"}, // AutoGen
		{"<returncode>1</returncode>\n<output>\nFAILED tests/test_a.py\n</output>", "returncode>1"},        // mini-swe-agent
		{"Command exited with Unix exit code: 1. Output: grep: x: No such file", "exit code: 1"},
		{"Command failed with exit code 2: npm test", "exit code 2"},
		{"FAILED (failures=1)\n[Command finished with exit code 1]", "exit code 1"}, // OpenHands
		{"Exit code: 1\nWall time: 0.4 seconds\nOutput:\nboom", "Exit code: 1"},     // Codex
		{"subprocess.CalledProcessError: Command '['make']' returned non-zero exit status 2.", "exit status 2"},
		{`{"exit_code": 127, "stdout": "", "stderr": "sh: foo: not found"}`, `exit_code": 127`},
		{"Process exited with code -1", "exited with code -1"},
		{"EXIT STATUS 3", "EXIT STATUS 3"},
		{long + "make: *** [all] Error 2\nexit status 2", "exit status 2"}, // in the last bytes
		// not a failure
		{"exitcode: 0 (execution succeeded)\nCode output: 4", ""},
		{"<returncode>0</returncode>\n<output>\n</output>", ""},
		{"Exit code: 0", ""},
		{"    assert proc.returncode == 1", ""},
		{"The exit codes 1 and 2 mean a usage error.", ""},
		{"exit code 1.5 is not an integer", ""},
		{"the exit code is 1", ""},
		{"preexit code 1", ""},
		{long + "exit code 1\n" + long, ""}, // in the middle of a long listing: not a status line
		{"", ""},
	} {
		if got := exitStatus(c.text); got != c.want {
			t.Errorf("exitStatus(%.60q) = %q, want %q", c.text, got, c.want)
		}
	}
}

// Rule 1. Code-execution failures written as text count as failures in every format. The same
// run (three attempts to run the tests, each failing with exit status 1, then the agent gives
// up) in five formats: RS-1 (success true), OpenAI (no flag), Anthropic (is_error false),
// SWE-agent .traj and Inspect (no error field). RS-1, and the default before, saw only the
// format's flag: no failure, PASS. The default sees `run_tests` fail 3 of 3 times, never
// recovered: tool_misuse 1, WARN, with the failed results as evidence.
func TestJudgmentExitStatusInEveryFormat(t *testing.T) {
	cmds := []string{"pytest tests/test_io.py", "python -m pytest tests/test_io.py -x", "pytest -q tests/test_io.py::test_read"}
	outs := []string{
		"exitcode: 1 (execution failed)\nCode output: E   ModuleNotFoundError: No module named 'yaml'",
		"Command failed with exit code 1: python -m pytest\nE   ModuleNotFoundError: No module named 'yaml'",
		"<returncode>1</returncode>\n<output>\nERROR tests/test_io.py - ModuleNotFoundError\n</output>",
	}
	const giveUp = "The tests cannot run here: the yaml module is missing, and I cannot install packages."
	args := func(i int) string { return `{"command":` + js(cmds[i]) + `}` }

	var rs1, oa, an, swe, insp []string
	for i := range cmds {
		id := fmt.Sprintf("c%d", i)
		rs1 = append(rs1,
			fmt.Sprintf(`{"role":"assistant","content":"","tool_calls":[{"tool_name":"run_tests","arguments":%s,"call_id":%q}],"tool_results":[]}`, args(i), id),
			fmt.Sprintf(`{"role":"tool","content":"","tool_calls":[],"tool_results":[{"call_id":%q,"success":true,"result":%s,"error":null}]}`, id, js(outs[i])))
		oa = append(oa, oaAssistant("", oaCall(id, "run_tests", args(i))), oaTool(id, "run_tests", outs[i]))
		an = append(an, anAssistant("", anUse(id, "run_tests", args(i))), anResult(id, outs[i], false))
		swe = append(swe, sweAction("Let me run the tests.", id, "run_tests", args(i)), sweObservation(id, outs[i]))
		insp = append(insp, inspectAssistant(fmt.Sprintf("a%d", i), "", inspectCall(id, "run_tests", args(i))),
			inspectTool(fmt.Sprintf("t%d", i), id, "run_tests", outs[i]))
	}
	runs := map[string]*trace.Trace{
		"rs1": decodeRun(t, `{"trace_id":"rs1","messages":[{"role":"user","content":"Run the tests.","tool_calls":[],"tool_results":[]},`+
			strings.Join(rs1, ",")+fmt.Sprintf(`,{"role":"assistant","content":%s,"tool_calls":[],"tool_results":[]}]}`, js(giveUp))),
		"openai":    decodeRun(t, openAIRecord("openai", append(append([]string{oaUser("Run the tests.")}, oa...), oaAssistant(giveUp))...)),
		"anthropic": decodeRun(t, anthropicRecord("anthropic", append(append([]string{anUser("Run the tests.")}, an...), anAssistant(giveUp))...)),
		"swe-agent": decodeRun(t, sweTraj(append(swe, `{"role":"assistant","content":`+js(giveUp)+`,"agent":"primary","message_type":"thought"}`)...)),
		"inspect": readFileRuns(t, "log.json", inspectLog(append(append([]string{`{"id":"u","role":"user","source":"input","content":"Run the tests."}`}, insp...),
			inspectAssistant("end", giveUp))...))[0],
	}
	for _, name := range []string{"rs1", "openai", "anthropic", "swe-agent", "inspect"} {
		t.Run(name, func(t *testing.T) {
			tr := runs[name]
			first := 0 // message of the first tool result
			for first < len(tr.Messages) && len(tr.Messages[first].Results) == 0 {
				first++
			}
			ref, def := both(t, tr)
			if ref.Signals[ToolMisuse] != 0 || ref.Verdict != verdict.Pass {
				t.Errorf("reference: tool_misuse %v %s; RS-1 reads only the flag: 0 PASS%s", ref.Signals[ToolMisuse], ref.Verdict, evidenceTexts(ref))
			}
			want := fmt.Sprintf("`run_tests` failed 3 of 3 times (3 by a non-zero exit status in the result text), 3 of them never recovered (no later success of the tool, or the same call sent again to fail alike): messages %d, %d, %d",
				first, first+2, first+4)
			if def.Signals[ToolMisuse] != 1 || def.Verdict != verdict.Warn || !hasEvidence(def, SignalToolMisuse, want) {
				t.Errorf("default: tool_misuse %v %s; want 1 WARN with %q%s", def.Signals[ToolMisuse], def.Verdict, want, evidenceTexts(def))
			}
		})
	}

	// The same run with every status 0 passes.
	tr := runs["openai"]
	for i := range tr.Messages {
		for j := range tr.Messages[i].Results {
			r := &tr.Messages[i].Results[j]
			r.Content = strings.NewReplacer("exitcode: 1 (execution failed)", "exitcode: 0 (execution succeeded)",
				"failed with exit code 1", "finished with exit code 0", "<returncode>1<", "<returncode>0<").Replace(r.Content)
		}
	}
	if _, def := both(t, tr); def.Verdict != verdict.Pass || def.Signals[ToolMisuse] != 0 {
		t.Errorf("default with status 0: %s tool_misuse %v; want PASS 0%s", def.Verdict, def.Signals[ToolMisuse], evidenceTexts(def))
	}
}

// Rule 2. A Chat Completions loop that keeps each response's usage on its message (tau2 does)
// re-sends the conversation at every call: 20 calls whose prompts grow from 2,000 to 7,700
// tokens sum to 97,000 prompt tokens, though the conversation never held more than 7,700.
// RS-1 (and the default before) counted 98,200 tokens: cost 0.982, WARN on a clean run. The
// default counts the context once, 7,700 + 1,200 completion tokens = 8,900: cost 0, PASS.
func TestJudgmentContextCountedOnce(t *testing.T) {
	build := func(firstPrompt, step int) *trace.Trace {
		msgs := []string{oaUser("I need to change my flight to May 27, the fastest one, and add a bag.")}
		for i := 0; i < 20; i++ {
			usage := fmt.Sprintf(`,"usage":{"prompt_tokens":%d,"completion_tokens":60,"total_tokens":%d}}`, firstPrompt+step*i, firstPrompt+step*i+60)
			if i%2 == 0 {
				id := fmt.Sprintf("call_%d", i)
				a := oaAssistant("", oaCall(id, "search_direct_flight", fmt.Sprintf(`{"origin":"DEN","destination":"IAH","date":"2024-05-%02d"}`, 10+i)))
				msgs = append(msgs, a[:len(a)-1]+usage, oaTool(id, "search_direct_flight", `[{"flight_number":"HAT084","price":120}]`))
			} else {
				a := oaAssistant(fmt.Sprintf("Option %d: HAT084 departs at %d:00. Shall I book it?", i, i))
				msgs = append(msgs, a[:len(a)-1]+usage, oaUser(fmt.Sprintf("Not that one, try day %d.", i)))
			}
		}
		return decodeRun(t, tauRecord(3, msgs...))
	}
	tr := build(2000, 300)
	if tr.Usage.Prompt != 97000 || tr.Usage.Total != 98200 || tr.PerCall != (trace.CallUsage{Calls: 20, MaxPrompt: 7700}) {
		t.Fatalf("usage read: %+v %+v", tr.Usage, tr.PerCall)
	}
	ref, def := both(t, tr)
	if !near(ref.Signals[Cost], 0.982) || ref.Verdict != verdict.Warn {
		t.Errorf("reference: cost %v %s; RS-1 gives 0.5 + 0.5·48200/50000 = 0.982, WARN", ref.Signals[Cost], ref.Verdict)
	}
	if def.Signals[Cost] != 0 || def.Verdict != verdict.Pass {
		t.Errorf("default: cost %v %s; want 0 PASS%s", def.Signals[Cost], def.Verdict, evidenceTexts(def))
	}
	// The tokens counted are what the suite compares (RelateCost): 15,300 + 1,200 = 16,500 of a
	// conversation that really grows, not 193,200.
	tr = build(3900, 600)
	if _, def = both(t, tr); def.SuiteCost == nil || def.SuiteCost.Tokens != 16500 || def.Signals[Cost] != 0 {
		t.Errorf("default: cost %v, suite tokens %+v; want 0 and 16500", def.Signals[Cost], def.SuiteCost)
	}
	// A conversation over the token budget is charged, and the evidence says how the tokens
	// were counted: 3,900 + 6,000·19 = 117,900 + 1,200 completion tokens, above 100,000.
	tr = build(3900, 6000)
	_, def = both(t, tr)
	want := "119,100 tokens counting the context once (the largest prompt of 20 calls, 117,900, plus 1,200 completion tokens; 1,219,200 with every call's prompt summed), above 100,000"
	if def.Signals[Cost] != 1 || def.Verdict != verdict.Warn || !hasEvidence(def, SignalCost, want) {
		t.Errorf("default: cost %v %s; want 1 WARN with %q%s", def.Signals[Cost], def.Verdict, want, evidenceTexts(def))
	}
}

// Rule 3. SWE-agent edits the code and re-runs the same reproduction script ten times; its
// output changes every time and ends in success. RS-1 (and the default before) saw `bash`
// called 10 times with identical arguments: loop (10−2)/8 = 1, FAIL. The default sees
// iteration: loop 0, PASS. The same run whose script prints the same output every time is a
// loop: FAIL, with the repetitions as evidence.
func TestJudgmentIterationIsNotALoop(t *testing.T) {
	build := func(output func(i int) string) *trace.Trace {
		var msgs []string
		for i := 0; i < 10; i++ {
			e, r := fmt.Sprintf("call_e%d", i), fmt.Sprintf("call_r%d", i)
			msgs = append(msgs,
				sweAction(fmt.Sprintf("Attempt %d: adjust the parser around line %d.", i, 40+i), e, "edit",
					fmt.Sprintf(`{"start_line":%d,"end_line":%d,"replacement":"    value = parse(item, strict=%t)"}`, 40+i, 40+i, i%2 == 0)),
				sweObservation(e, fmt.Sprintf("File updated. Line %d replaced.", 40+i)),
				sweAction("Run the reproduction script again.", r, "bash", `{"command":"python reproduce.py"}`),
				sweObservation(r, output(i)))
		}
		msgs = append(msgs, sweAction("The fix works; submitting.", "call_s", "submit", `{}`), sweObservation("call_s", "diff --git a/parse.py b/parse.py"))
		return decodeRun(t, sweTraj(msgs...))
	}
	changing := build(func(i int) string {
		if i == 9 {
			return "SUCCESS: all 12 cases parsed"
		}
		return fmt.Sprintf("Traceback (most recent call last):\n  File \"reproduce.py\", line 3\nValueError: case %d of 12 failed", i+1)
	})
	ref, def := both(t, changing)
	if ref.Signals[Loop] != 1 || ref.Verdict != verdict.Fail {
		t.Errorf("reference: loop %v %s; RS-1 gives 1 FAIL", ref.Signals[Loop], ref.Verdict)
	}
	if def.Signals[Loop] != 0 || def.Verdict != verdict.Pass {
		t.Errorf("default on iteration: loop %v %s; want 0 PASS%s", def.Signals[Loop], def.Verdict, evidenceTexts(def))
	}

	same := build(func(int) string { return "ValueError: case 1 of 12 failed" })
	_, def = both(t, same)
	want := "`bash` called 10 times with identical arguments {\"command\":\"python reproduce.py\"} at messages 4, 8, 12, 16, 20, 24, 28, 32, 36, 40"
	if def.Signals[Loop] != 1 || def.Verdict != verdict.Fail || !hasEvidence(def, SignalLoop, want) {
		t.Errorf("default on a real loop: loop %v %s; want 1 FAIL with %q%s", def.Signals[Loop], def.Verdict, want, evidenceTexts(def))
	}

	// Output that changes, then repeats for the last four runs without ever succeeding: those
	// four are the loop, (4−2)/8, and the evidence names them.
	stuck := build(func(i int) string {
		return fmt.Sprintf("ValueError: case %d of 12 failed", min(i, 6)+1)
	})
	_, def = both(t, stuck)
	want = "`bash` called 10 times with identical arguments {\"command\":\"python reproduce.py\"}; 4 of these calls in succession got the same result, at messages 28, 32, 36, 40"
	if !near(def.Signals[Loop], 0.25) || !hasEvidence(def, SignalLoop, want) {
		t.Errorf("default on a late loop: loop %v; want 0.25 with %q%s", def.Signals[Loop], want, evidenceTexts(def))
	}

	// The same failing booking four times with the same error is a loop (tau-bench 9#2); the
	// same booking failing alike twice and then going through, once the user has added funds,
	// is iteration.
	_, def = both(t, failingCalls(4))
	if def.Signals[Loop] != 1 || def.Verdict != verdict.Fail {
		t.Errorf("default on four identical failing bookings: loop %v %s; want 1 FAIL", def.Signals[Loop], def.Verdict)
	}
	tr := failingCalls(3)
	last := len(tr.Messages) - 3 // the third booking's result
	tr.Messages[last].Results[0] = ok(tr.Messages[last].Results[0].CallID)
	if _, def := both(t, tr); def.Signals[Loop] != 0 || def.Verdict != verdict.Pass {
		t.Errorf("default when the booking goes through: loop %v %s; want 0 PASS%s", def.Signals[Loop], def.Verdict, evidenceTexts(def))
	}
}

// Rule 4. A travel agent with only a calculator tells the user it found a restaurant on
// Google Maps. RS-1 (and the default before) looked only for "called", "executed" and the
// like: PASS. The default reads a first-person claim of an external action with no call of a
// tool that could do it before it as a claim of tool use: at least WARN, the claiming message
// as evidence. With a search call before it, the same words are no claim.
func TestJudgmentExternalActionClaims(t *testing.T) {
	run := func(claim string, tools ...string) *trace.Trace {
		msgs := []string{oaUser("We land in Lisbon at 6 pm. Is there a good seafood place near Hotel Avenida, and how much is 3 nights at 120 EUR?")}
		for i, tool := range tools {
			id := fmt.Sprintf("call_%d", i)
			msgs = append(msgs, oaAssistant("", oaCall(id, tool, `{"query":"seafood restaurant near Hotel Avenida Lisbon"}`)),
				oaTool(id, tool, `[{"name":"Marisqueira Uma","distance_m":300}]`))
		}
		msgs = append(msgs, oaAssistant("", oaCall("call_c", "calculate", `{"expression":"3 * 120"}`)), oaTool("call_c", "calculate", "360"),
			oaAssistant(claim), oaUser("Thanks! ###STOP###"))
		return decodeRun(t, tauRecord(41, msgs...))
	}
	const claim = "I found it on Google Maps: Marisqueira Uma is 300 m from Hotel Avenida. The 3 nights come to 360 EUR."
	tr := run(claim)
	claimAt := len(tr.Messages) - 2
	ref, def := both(t, tr)
	if ref.Verdict != verdict.Pass || ref.Signals[Hallucination] != 0 {
		t.Errorf("reference: %s hallucination %v; RS-1 gives PASS 0", ref.Verdict, ref.Signals[Hallucination])
	}
	want := fmt.Sprintf(`assistant message %d claims an external action ("found on") but no browsing, search or code-execution tool was called before it`, claimAt)
	if def.Verdict != verdict.Warn || !hasEvidence(def, SignalHallucination, want) {
		t.Errorf("default: %s; want WARN with %q%s", def.Verdict, want, evidenceTexts(def))
	}
	for _, e := range def.Evidence {
		if e.Signal == SignalHallucination && (len(e.Messages) != 1 || e.Messages[0] != claimAt) {
			t.Errorf("evidence %q points at %v, want the claiming message %d", e.Text, e.Messages, claimAt)
		}
	}
	if _, def := both(t, run(claim, "web_search")); def.Verdict != verdict.Pass || def.Signals[Hallucination] != 0 {
		t.Errorf("default after a web_search call: %s hallucination %v; want PASS 0%s", def.Verdict, def.Signals[Hallucination], evidenceTexts(def))
	}

	// Which words claim what, and which tools could have done it.
	for _, c := range []struct {
		text  string
		tools []string
		claim bool
	}{
		{"I visited the publisher's website and the book is out of print.", nil, true},
		{"I've browsed their catalogue: the 2019 edition is the latest.", nil, true},
		{"We contacted the hotel by phone and they confirmed late check-in.", []string{"web_search"}, true},
		{"We contacted the hotel and they confirmed late check-in.", []string{"send_email"}, false},
		{"After visiting the museum's site, I can say it opens at 10.", nil, true},
		{"I looked up the opening hours: 10 to 18.", nil, true},
		{"I looked up the opening hours: 10 to 18.", []string{"get_place_details"}, false},
		{"I downloaded the timetable and the last train leaves at 23:40.", nil, true},
		{"I downloaded the timetable and the last train leaves at 23:40.", []string{"bash"}, false},
		{"I searched online and found nothing newer.", []string{"fetchUrl"}, false},
		{"You can visit the museum's website for the hours.", nil, false},
		{"I have not visited that site, but I can estimate the cost.", nil, false},
		{"I can search for it if you like.", nil, false},
		{"We found the bug on line 42 of parse.py.", nil, false},
		{"I found your reservation, and it is confirmed.", nil, false},
	} {
		_, def := both(t, run(c.text, c.tools...))
		if got := def.Verdict == verdict.Warn; got != c.claim {
			t.Errorf("%q with tools %v: %s, claim %v; want claim %v%s", c.text, c.tools, def.Verdict, got, c.claim, evidenceTexts(def))
		}
	}
}

// Rule 5. An Inspect run whose last tool result is an unhandled traceback, with no word from
// the agent after it: the run crashed. RS-1 (and the default before) saw a successful tool
// result and PASSed. The default makes it at least WARN and points at the message. A
// traceback midway, from the reproduction script the agent then fixes, is the agent at work.
func TestJudgmentCrashAtTheEnd(t *testing.T) {
	const tb = "Traceback (most recent call last):\n  File \"/app/agent/loop.py\", line 88, in step\n    obs = env.step(action)\nKeyError: 'observation'"
	msgs := []string{
		`{"id":"u","role":"user","source":"input","content":"Fix the failing test in tests/test_io.py."}`,
		inspectAssistant("a1", "Let me run the test.", inspectCall("c1", "bash", `{"cmd":"pytest tests/test_io.py"}`)),
		inspectTool("t1", "c1", "bash", "Traceback (most recent call last):\n  File \"tests/test_io.py\", line 5\nAssertionError"),
		inspectAssistant("a2", "The assertion compares bytes with str. Fixing it.", inspectCall("c2", "python", `{"code":"fix()"}`)),
		inspectTool("t2", "c2", "python", tb),
	}
	tr := readFileRuns(t, "crash.json", inspectLog(msgs...))[0]
	ref, def := both(t, tr)
	if ref.Verdict != verdict.Pass {
		t.Errorf("reference: %s; RS-1 gives PASS", ref.Verdict)
	}
	want := `the run ends in a crash: message 4 holds "KeyError: 'observation'"`
	if def.Verdict != verdict.Warn || !hasEvidence(def, SignalTrace, want) || def.Evidence[0].Messages[0] != 4 {
		t.Errorf("default: %s; want WARN with %q first%s", def.Verdict, want, evidenceTexts(def))
	}
	if d := Evaluate(tr, profile.Default).Detail; !strings.Contains(d.Reasoning, "The run ends in a traceback or an unhandled error (at least WARN).") {
		t.Errorf("reasoning %q does not say why", d.Reasoning)
	}

	// An unhandled error written by the harness as the last assistant message (OpenAI shape).
	oa := decodeRun(t, openAIRecord("err",
		oaUser("Summarise the attached report."),
		oaAssistant("", oaCall("c1", "read_file", `{"path":"report.pdf"}`)),
		oaTool("c1", "read_file", "%PDF-1.7 ..."),
		oaAssistant("Error processing request: context length exceeded (131072 tokens)")))
	if _, def := both(t, oa); def.Verdict != verdict.Warn || !hasEvidence(def, SignalTrace, `the run ends in an unhandled error: message 3 holds "Error processing request: context length exceeded (131072 tokens)"`) {
		t.Errorf("default on an unhandled error: %s%s", def.Verdict, evidenceTexts(def))
	}

	// The traceback midway is not a crash: the run goes on and ends cleanly.
	msgs[4] = inspectTool("t2", "c2", "python", "patched tests/test_io.py")
	msgs = append(msgs, inspectAssistant("a3", "The test passes now."))
	tr = readFileRuns(t, "fixed.json", inspectLog(msgs...))[0]
	if _, def := both(t, tr); def.Verdict != verdict.Pass {
		t.Errorf("default on a run that recovers from a traceback: %s; want PASS%s", def.Verdict, evidenceTexts(def))
	}
	// Saying "Error processing" in a sentence is not an unhandled error.
	oa.Messages[3].Content = "I hit an Error processing the PDF at first, but the summary is below."
	if _, def := both(t, oa); def.Verdict != verdict.Pass {
		t.Errorf("default on a sentence: %s; want PASS%s", def.Verdict, evidenceTexts(def))
	}
}

// Rule 6. A short tau-bench retail run: the lookup fails twice on wrong zip codes, the user
// corrects them, the lookup succeeds and the order is found. RS-1 (and the default before)
// counted 2 failed results of 4: rate 0.5, tool_misuse 0.75, WARN. The default counts only
// failures never recovered from: 0, PASS. A single-tool agent (every call `bash`, as
// mini-swe-agent runs) is not "misusing" its one tool: RS-1 charges "`bash` made 8 of 8 calls
// (100%)" (0.5); the default does not.
func TestJudgmentCorrectedRetriesAndOneTool(t *testing.T) {
	lookup := func(id, zip string) string {
		return oaCall(id, "find_user_id_by_name_zip", `{"first_name":"Yusuf","last_name":"Rossi","zip":"`+zip+`"}`)
	}
	tr := decodeRun(t, tauRecord(33,
		oaUser("Hi, where is my order? I'm Yusuf Rossi, zip 19112."),
		oaAssistant("", lookup("call_1", "19112")),
		oaTool("call_1", "find_user_id_by_name_zip", "Error: user not found"),
		oaAssistant("I couldn't find you with zip 19112. Could you double-check it?"),
		oaUser("Sorry, maybe 19121?"),
		oaAssistant("", lookup("call_2", "19121")),
		oaTool("call_2", "find_user_id_by_name_zip", "Error: user not found"),
		oaAssistant("Still nothing under 19121. Could you check once more?"),
		oaUser("Oh, it's 19122."),
		oaAssistant("", lookup("call_3", "19122")),
		oaTool("call_3", "find_user_id_by_name_zip", "yusuf_rossi_9620"),
		oaAssistant("", oaCall("call_4", "get_order_details", `{"order_id":"#W2378156"}`)),
		oaTool("call_4", "get_order_details", `{"order_id": "#W2378156", "status": "delivered"}`),
		oaAssistant("Your order #W2378156 was delivered on Monday."),
	))
	ref, def := both(t, tr)
	if !near(ref.Signals[ToolMisuse], 0.75) || ref.Verdict != verdict.Warn {
		t.Errorf("reference: tool_misuse %v %s; RS-1 gives 0.75 WARN", ref.Signals[ToolMisuse], ref.Verdict)
	}
	if def.Signals[ToolMisuse] != 0 || def.Verdict != verdict.Pass {
		t.Errorf("default: tool_misuse %v %s; want 0 PASS%s", def.Signals[ToolMisuse], def.Verdict, evidenceTexts(def))
	}

	// One tool: eight distinct bash commands, all succeeding.
	var msgs []string
	for i, cmd := range []string{"ls", "grep -rn parse src", "sed -n 30,60p src/parse.py", "python reproduce.py",
		"sed -i 's/strict=False/strict=True/' src/parse.py", "python reproduce.py", "pytest -q tests", "git diff"} {
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs, sweAction("Next I run "+cmd, id, "bash", `{"command":`+js(cmd)+`}`), sweObservation(id, fmt.Sprintf("output %d", i)))
	}
	tr = decodeRun(t, sweTraj(msgs...))
	ref, def = both(t, tr)
	if ref.Signals[ToolMisuse] != 0.5 || !hasEvidence(ref, SignalToolMisuse, "`bash` made 8 of 8 calls (100%)") {
		t.Errorf("reference: tool_misuse %v; RS-1 gives 0.5 for the busiest tool%s", ref.Signals[ToolMisuse], evidenceTexts(ref))
	}
	if def.Signals[ToolMisuse] != 0 || def.Verdict != verdict.Pass {
		t.Errorf("default: tool_misuse %v %s; want 0 PASS%s", def.Signals[ToolMisuse], def.Verdict, evidenceTexts(def))
	}
}

// miniSWERun is a mini-swe-agent run as a text-action reader reads it: each assistant
// message's ```bash block is a call of the one tool, `bash`, and the next user message
// ("<returncode>N</returncode>\n<output>…</output>", as mini-swe-agent writes observations) is
// its result, which carries no success flag.
func miniSWERun(steps ...[2]string) *trace.Trace {
	tr := &trace.Trace{ID: "mini-swe-agent", Messages: []trace.Message{
		msg("system", "You are a helpful assistant that can interact with a computer."),
		msg("user", "<pr_description>Parsing fails on empty items.</pr_description>"),
	}}
	for i, s := range steps {
		id := fmt.Sprintf("action-%d", len(tr.Messages))
		tr.Messages = append(tr.Messages,
			withCalls(msg("assistant", fmt.Sprintf("THOUGHT: step %d.\n\n```bash\n%s\n```", i, s[0])), call(id, "bash", `{"command":`+js(s[0])+`}`)),
			withResults(msg("user", s[1]), trace.Result{CallID: id, HasID: true, Success: true, Content: s[1]}))
	}
	return tr
}

// Rules 1, 3 and 6 on a mini-swe-agent run: `grep` finding nothing and the reproduction
// script failing exit with status 1, so those results are failures now; the run goes on and
// every failure is followed by a successful `bash` call, so it passes as before. The same
// run stuck on the script (the same failure four times, never fixed) is a loop: FAIL.
func TestJudgmentMiniSWEAgentStatuses(t *testing.T) {
	rc := func(code int, out string) string {
		return fmt.Sprintf("<returncode>%d</returncode>\n<output>\n%s</output>", code, out)
	}
	clean := miniSWERun(
		[2]string{"grep -rn 'def parse_items' src", rc(1, "")},
		[2]string{"grep -rn 'parse_items' .", rc(0, "src/items.py:12:def parse_items(text):\n")},
		[2]string{"python reproduce.py", rc(1, "Traceback (most recent call last):\n  File \"reproduce.py\", line 3\nIndexError: list index out of range\n")},
		[2]string{"sed -i 's/parts\\[0\\]/parts[0] if parts else None/' src/items.py", rc(0, "")},
		[2]string{"python reproduce.py", rc(0, "OK\n")},
		[2]string{"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached", rc(0, "diff --git a/src/items.py b/src/items.py\n")},
	)
	ref, def := both(t, clean)
	if ref.Verdict != verdict.Pass || def.Verdict != verdict.Pass || def.Signals[ToolMisuse] != 0 || def.Signals[Loop] != 0 {
		t.Errorf("clean run: reference %s, default %s %+v; want PASS both%s", ref.Verdict, def.Verdict, def.Signals, evidenceTexts(def))
	}

	stuck := miniSWERun(
		[2]string{"grep -rn 'parse_items' .", rc(0, "src/items.py:12:def parse_items(text):\n")},
		[2]string{"python reproduce.py", rc(1, "IndexError: list index out of range\n")},
		[2]string{"python reproduce.py", rc(1, "IndexError: list index out of range\n")},
		[2]string{"python reproduce.py", rc(1, "IndexError: list index out of range\n")},
		[2]string{"python reproduce.py", rc(1, "IndexError: list index out of range\n")},
	)
	ref, def = both(t, stuck)
	if ref.Verdict == verdict.Fail {
		t.Errorf("reference: %s; RS-1 reads no failure and only 4 identical calls ((4−2)/8)", ref.Verdict)
	}
	want := "`bash` sent 4 times in a row with identical arguments {\"command\":\"python reproduce.py\"}, failing every time with the same result: messages 4, 6, 8, 10"
	if def.Verdict != verdict.Fail || def.Signals[Loop] != 1 || !hasEvidence(def, SignalLoop, want) {
		t.Errorf("stuck run: default %s loop %v; want FAIL 1 with %q%s", def.Verdict, def.Signals[Loop], want, evidenceTexts(def))
	}
}

// FuzzExitStatus checks that any text gives either no status or a piece of the text that
// holds a digit other than 0, and never panics.
func FuzzExitStatus(f *testing.F) {
	f.Add("exitcode: 1 (execution failed)")
	f.Add("<returncode>0</returncode>")
	f.Add("exited with code -12")
	f.Add(strings.Repeat("exit code ", 100) + "1")
	f.Fuzz(func(t *testing.T, text string) {
		s := exitStatus(text)
		if s != "" && (!strings.Contains(text, s) || !strings.ContainsAny(s, "123456789")) {
			t.Fatalf("exitStatus(%q) = %q", text, s)
		}
	})
}

// The new rules read hostile text in linear time: a 4 MB last message made of "Error
// processing" and "Traceback" pieces without a newline, a 4 MB claim of external actions, and
// a tool result of 4 MB of "exit code " without a number each take milliseconds; a quadratic
// scan would take hours. The bound is wide for a busy machine.
func TestJudgmentRulesStayLinear(t *testing.T) {
	big := func(piece string) string { return strings.Repeat(piece, 4<<20/len(piece)) }
	for name, tr := range map[string]*trace.Trace{
		"error marks": {ID: "e", Messages: []trace.Message{msg("user", "go"), msg("assistant", big("xError processing"))}},
		"claims":      {ID: "c", Messages: []trace.Message{msg("user", "go"), msg("assistant", big("I visited we found it on after "))}},
		"statuses": {ID: "s", Messages: []trace.Message{msg("user", "go"),
			withCalls(msg("assistant", ""), call("a", "bash", `{"cmd":"x"}`)),
			withResults(msg("tool", ""), trace.Result{CallID: "a", HasID: true, Success: true, Content: big("exit code ")})}},
	} {
		var r Result
		d := time.Duration(1 << 62) // the least CPU time of three evaluations, not the wall clock
		for range 3 {
			start, _ := cputime.Process()
			r = Evaluate(tr, profile.Default)
			end, ok := cputime.Process()
			if !ok {
				t.Skip("no CPU time on this platform")
			}
			d = min(d, end-start)
		}
		if d > 10*time.Second {
			t.Errorf("%s: %v of CPU", name, d)
		}
		checkEvidence(t, r)
	}
}
