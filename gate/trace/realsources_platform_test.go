//go:build realsources

package trace

import (
	"strings"
	"testing"

	"github.com/agentgate/agentgate/internal/realsources"
)

// The platforms teams trace on, read from real exports (docs/trace-formats.md, "Langfuse
// exports" and "Phoenix spans"; docs/development.md#real-sources). Each table's figures were
// counted with python3 on the same file, as each test's comment says; none comes from
// agentgate.

// platformTotals are a real platform export's figures: realTotals and the run's token total
// (Usage.Total, every model call's usage summed as the file records it).
type platformTotals struct {
	realTotals
	tokens int64
}

// platformTotalsOf reads path with o and sums what the reader read.
func platformTotalsOf(t *testing.T, path string, o Options) (platformTotals, []*Trace) {
	t.Helper()
	traces := readWith(t, path, o)
	return sumPlatformTotals(traces), traces
}

// sumPlatformTotals sums the reader's view of traces, their tokens too.
func sumPlatformTotals(traces []*Trace) platformTotals {
	got := platformTotals{realTotals: sumTotals(traces)}
	for _, tr := range traces {
		got.tokens += tr.Usage.Total
	}
	return got
}

// langfuseFramework is the folder of langfuse/langfuse's framework traces: each file is the
// trace view's download of one trace a framework's Langfuse integration recorded
// ({"trace": {…, "scores"}, "observations": [...]}), fetched by the folder's
// download_traces.js.
const langfuseFramework = "worker/src/__tests__/chatml/framework-traces/"

// TestRealSourceLangfuseFrameworks reads Langfuse's own downloads of framework traces. python3
// (json.load): the GENERATION observations with no GENERATION below them (a wrapper's inner
// call, as the Vercel AI SDK's ai.generateText.doGenerate) in startTime order; each one's input
// messages (a list, {"messages": [...]}, or a prompt) not yet in the conversation (a list
// continues the conversation whose messages are its prefix, by role and tool-call ids) and its
// output messages; a message holding k tool results counts k messages (a result each); calls
// are the messages' tool calls (GenAI parts of type tool_call, Vercel's toolCallId, OpenAI's
// tool_calls, the Responses API's function_call items); a TOOL observation whose result no
// message carries adds a result; failed results are TOOL observations at level ERROR; tokens
// the sum of those generations' usageDetails.total; succeeded the trace's score "correctness"
// where named.
func TestRealSourceLangfuseFrameworks(t *testing.T) {
	for _, c := range []struct {
		name, file, scorer string
		want               platformTotals
		answer             string // where set: how the last message, the agent's answer, begins
	}{
		// ai.generateText (usage 57) wraps its doGenerate (147): one call; getWeather's
		// result only in its TOOL observation
		{"langfuse-vercel-aisdk", "vercel-aisdk-2025-11-17.trace.json", "",
			platformTotals{realTotals{runs: 1, messages: 3, calls: 1, results: 1}, 147}, ""},
		// GenAI parts; the second chat call sends only the tool's result (a conversation
		// kept by the service); scores correctness 1
		{"langfuse-microsoft-agent", "microsoft-agent-2025-12-17.trace.json", "correctness",
			platformTotals{realTotals{runs: 1, messages: 4, calls: 1, results: 1, succeeded: 1}, 399}, ""},
		// two agents with their own system prompts: the joke writer (system, user, three
		// parallel calls, three results, answer, user, answer: 9) and the critic (system,
		// user, final_result: 3); the output tool final_result gets no result
		{"langfuse-pydantic-ai-tools", "pydantic-ai-tools-2025-12-04.trace.json", "",
			platformTotals{realTotals{runs: 1, messages: 12, calls: 4, results: 3}, 1524}, ""},
		// langfuse-python's CallbackHandler appends each tool definition to the input as
		// {"role": "tool", "content": <definition>}: not a message. user, user, the call,
		// its result, the answer
		{"langfuse-langgraph-python", "langgraph-python-2025-08-22.trace.json", "",
			platformTotals{realTotals{runs: 1, messages: 5, calls: 1, results: 1}, 234}, ""},
		// Gemini contents: user, model's function_call, user's function_response (the
		// result the TOOL observation, whose output is {}, did not hold), the answer
		{"langfuse-google-adk", "google-adk-2025-08-28.trace.json", "",
			platformTotals{realTotals{runs: 1, messages: 4, calls: 1, results: 1}, 76}, ""},
		// OpenInference's openai_agents: the Responses API's items in, the Response out
		// (its output items): the question, the call, its result, the answer
		{"langfuse-openai-agents", "openai-agents-2025-09-30.trace.json", "",
			platformTotals{realTotals{runs: 1, messages: 4, calls: 1, results: 1}, 184}, ""},
		// langfuse-js's LangChain handler writes the ToolMessage re-sent to the second call
		// as {"content", "additional_kwargs", "role": "get_weather"}: the call's result
		{"langfuse-langgraph-js", "langgraph-js-2025-10-30.trace.json", "",
			platformTotals{realTotals{runs: 1, messages: 4, calls: 1, results: 1}, 444}, ""},
		// Pydantic AI's deprecated GenAI events: the output is the gen_ai.choice event's
		// body ({"index", "message"}): system, user, the answer
		{"langfuse-pydantic-ai", "pydantic-ai-2025-06-06.trace.json", "",
			platformTotals{realTotals{runs: 1, messages: 3}, 127}, "Langfuse is a tool designed for observability"},
		// Microsoft.Extensions.AI (C#) with Gemini, GenAI parts: the tool call ids are the
		// tools' names; the report tool answers with its own "Error" status (the observation's
		// level is DEFAULT: not failed), and final_result's result is null
		{"langfuse-csharp-agent-gemini", "csharp-agent-with-gemini-2026-03-09.trace.json", "",
			platformTotals{realTotals{runs: 1, messages: 6, calls: 2, results: 2}, 8461}, ""},
		// CrewAI: {"messages": [system, user]} in, the ReAct text out; no tool
		{"langfuse-crewai", "crewai-2025-07-11.trace.json", "",
			platformTotals{realTotals{runs: 1, messages: 3}, 354}, "I now can give a great answer"},
		// four GENERATIONs (the SDK records each later turn's input as {"content": "role"}),
		// two calls of one tool, two TOOL observations; scores correctness 0
		{"langfuse-claude-agent", "claude-agent-2025-12-22.trace.json", "correctness",
			platformTotals{realTotals{runs: 1, messages: 10, calls: 2, results: 2}, 266}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := realsources.Path(t, c.name, langfuseFramework+c.file)
			got, traces := platformTotalsOf(t, p, Options{OutcomeScorer: c.scorer})
			if got != c.want {
				t.Errorf("read %+v, want %+v", got, c.want)
			}
			if ms := traces[0].Messages; c.answer != "" && (len(ms) == 0 || !strings.HasPrefix(ms[len(ms)-1].Content, c.answer)) {
				t.Errorf("the answer is not %q…", c.answer)
			}
		})
	}
}

// TestRealSourceLangfuseClaudeAgentPairs: the Claude Agent SDK's trace calls one MCP tool
// twice (Berlin, then New York) and records the two tool runs as TOOL observations without
// call ids, in the order the calls were made; each call's result is its own city's weather
// (python3: the TOOL observations' input.city and output text, in startTime order).
func TestRealSourceLangfuseClaudeAgentPairs(t *testing.T) {
	p := realsources.Path(t, "langfuse-claude-agent", langfuseFramework+"claude-agent-2025-12-22.trace.json")
	_, traces := platformTotalsOf(t, p, Options{})
	city := map[string]string{} // call id → the city its arguments name
	for _, m := range traces[0].Messages {
		for _, cl := range m.Calls {
			for _, c := range []string{"Berlin", "New York"} {
				if strings.Contains(string(cl.Args), c) {
					city[cl.ID] = c
				}
			}
		}
	}
	n := 0
	for _, m := range traces[0].Messages {
		for _, r := range m.Results {
			n++
			if want := "Weather in " + city[r.CallID]; city[r.CallID] == "" || !strings.Contains(r.Content, want) {
				t.Errorf("result of call %s (%s) is %q, want the text %q", r.CallID, city[r.CallID], r.Content, want)
			}
		}
	}
	if n != 2 || len(city) != 2 {
		t.Errorf("%d results of %d calls, want 2 of 2", n, len(city))
	}
}

// TestRealSourcePhoenixPXI reads Phoenix's own span JSON fixtures of its PXI agent.
// python3 (json.load): for each parent span, the last LLM span's llm.input_messages and
// llm.output_messages (its conversation so far, each turn re-sending the history); calls
// their message.tool_calls; results their role "tool" messages; failed results the TOOL
// spans with status_code ERROR (one, whose tool message starts "Error fetching GraphQL
// query"); tokens the sum of the LLM spans' llm.token_count.total.
func TestRealSourcePhoenixPXI(t *testing.T) {
	dir := "tests/unit/pxi/evals/online_evals/fixtures/"
	for _, c := range []struct {
		name, file string
		want       platformTotals
	}{
		// one conversation of 26 input messages and the final answer
		{"phoenix-pxi-turn", "pxi_turn_trace.json",
			platformTotals{realTotals{runs: 1, messages: 27, calls: 11, results: 11, fails: 1}, 312117}},
		// the turn's conversation (8 + 1) and the sub-agent's, called from call_subagent's
		// TOOL span (34 + 1); every LLM span's token counts are 1
		{"phoenix-pxi-subagent", "pxi_turn_subagent_trace.json",
			platformTotals{realTotals{runs: 1, messages: 44, calls: 19, results: 19}, 18}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, _ := platformTotalsOf(t, realsources.Path(t, c.name, dir+c.file), Options{})
			if got != c.want {
				t.Errorf("read %+v, want %+v", got, c.want)
			}
		})
	}
}
