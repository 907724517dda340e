package trace

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// Messages for the conversation tests: text, a call, a result.
func sys(text string) Message  { return Message{Role: "system", Content: text} }
func user(text string) Message { return Message{Role: "user", Content: text} }
func say(text string) Message  { return Message{Role: "assistant", Content: text} }
func calls(ids ...string) Message {
	m := Message{Role: "assistant"}
	for _, id := range ids {
		tool, id, _ := strings.Cut(id, ":")
		m.Calls = append(m.Calls, Call{ID: id, HasID: id != "", Tool: tool, Args: []byte(`{}`), ArgsValid: true})
	}
	return m
}
func answer(id, text string) Message {
	return Message{Role: "tool", Content: text, Results: []Result{{CallID: id, HasID: id != "", Success: true, Content: text}}}
}
func msgs(ms ...Message) []Message { return ms }

// summary writes messages one a line: role, calls (tool:id), results (->id), text.
func summary(ms []Message) string {
	var b strings.Builder
	for _, m := range ms {
		b.WriteString(m.Role)
		for _, c := range m.Calls {
			fmt.Fprintf(&b, " %s:%s", c.Tool, c.ID)
		}
		for _, r := range m.Results {
			fmt.Fprintf(&b, " ->%s", r.CallID)
			if !r.Success {
				b.WriteString(" failed(" + r.Error + ")")
			}
		}
		if m.Content != "" {
			b.WriteString(" " + m.Content)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// step is one model call or tool event fed to Conversations.
type step struct {
	in, out []Message
	tool    *ToolEvent
}

func toolEvent(tool, id, result string) *ToolEvent {
	return &ToolEvent{Call: Call{ID: id, HasID: id != "", Tool: tool, Args: []byte(`{}`), ArgsValid: true}, Result: result}
}

// conversationCases are runs whose messages are known: want is the run, message by
// message; calls the number of tool calls.
var conversationCases = []struct {
	name  string
	steps []step
	want  string
	calls int
}{{
	name: "one agent, three calls: each re-sends the conversation",
	steps: []step{
		{in: msgs(sys("S"), user("u")), out: msgs(calls("read:c1"))},
		{in: msgs(sys("S"), user("u"), calls("read:c1"), answer("c1", "r1")), out: msgs(calls("read:c2"))},
		{in: msgs(sys("S"), user("u"), calls("read:c1"), answer("c1", "r1"), calls("read:c2"), answer("c2", "r2")), out: msgs(say("done"))},
	},
	want:  "system S\nuser u\nassistant read:c1\ntool ->c1 r1\nassistant read:c2\ntool ->c2 r2\nassistant done\n",
	calls: 2,
}, {
	// Two agents start with the same system prompt and take turns: lined up by position,
	// agent B's messages were added again at each of its calls (13 messages, 3 calls).
	name: "two agents with the same system prompt are two conversations",
	steps: []step{
		{in: msgs(sys("S"), user("task A")), out: msgs(calls("search:a1"))},
		{in: msgs(sys("S"), user("task B")), out: msgs(calls("lookup:b1"))},
		{tool: toolEvent("search", "a1", "found A")},
		{tool: toolEvent("lookup", "b1", "found B")},
		{in: msgs(sys("S"), user("task A"), calls("search:a1"), answer("a1", "found A")), out: msgs(say("A done"))},
		{in: msgs(sys("S"), user("task B"), calls("lookup:b1"), answer("b1", "found B")), out: msgs(say("B done"))},
	},
	want: "system S\nuser task A\nassistant search:a1\ntool ->a1 found A\nassistant A done\n" +
		"system S\nuser task B\nassistant lookup:b1\ntool ->b1 found B\nassistant B done\n",
	calls: 2,
}, {
	// Langfuse-style: the model's first output records no message, so the tool's own
	// observation makes the call; the next call re-sends that call and result with the
	// call's id. Lined up by position they were added twice (7 messages, 2 calls).
	name: "a tool observation before the call that re-sends its result",
	steps: []step{
		{in: msgs(sys("S"), user("weather?")), out: msgs()},
		{tool: toolEvent("get_weather", "", "sunny")},
		{in: msgs(sys("S"), user("weather?"), calls("get_weather:call_9"), answer("call_9", "sunny")), out: msgs(say("It is sunny"))},
	},
	want:  "system S\nuser weather?\nassistant get_weather:call_9\ntool ->call_9 sunny\nassistant It is sunny\n",
	calls: 1,
}, {
	// Parallel calls whose tool spans end in another order than the next call re-sends
	// their results: by position both results were added again (8 messages).
	name: "tool results re-sent in another order",
	steps: []step{
		{in: msgs(user("u")), out: msgs(calls("a:c1", "b:c2"))},
		{tool: toolEvent("b", "c2", "rb")},
		{tool: toolEvent("a", "c1", "ra")},
		{in: msgs(user("u"), calls("a:c1", "b:c2"), answer("c1", "ra"), answer("c2", "rb")), out: msgs(say("ok"))},
	},
	want:  "user u\nassistant a:c1 b:c2\ntool ->c2 rb\ntool ->c1 ra\nassistant ok\n",
	calls: 2,
}, {
	name: "a tool event without an id answers the model's last open call of its tool, and its failure stays",
	steps: []step{
		{in: msgs(user("u")), out: msgs(calls("run:c1"))},
		{tool: &ToolEvent{Call: Call{Tool: "run"}, Result: "boom", Failed: true, Error: "exit 1"}},
		{in: msgs(user("u"), calls("run:c1"), answer("c1", "boom")), out: msgs(say("it failed"))},
	},
	want:  "user u\nassistant run:c1\ntool ->c1 failed(exit 1) boom\nassistant it failed\n",
	calls: 1,
}, {
	// Two parallel calls of one tool in one model message, and two tool events without
	// ids: each answers its own call, in the calls' order, the failure the second's. Before,
	// each answered the last unanswered call, so the two swapped their results.
	name: "tool events without ids answer parallel calls of one tool in their order",
	steps: []step{
		{in: msgs(user("u")), out: msgs(calls("get:c1", "get:c2"))},
		{tool: toolEvent("get", "", "one")},
		{tool: &ToolEvent{Call: Call{Tool: "get"}, Result: "two", Failed: true, Error: "boom"}},
		{in: msgs(user("u"), calls("get:c1", "get:c2"), answer("c1", "one"), answer("c2", "two")), out: msgs(say("ok"))},
	},
	want:  "user u\nassistant get:c1 get:c2\ntool ->c1 one\ntool ->c2 failed(boom) two\nassistant ok\n",
	calls: 2,
}, {
	// A later model message's calls win over an older one's left unanswered; once they
	// are answered, the older message's are answered in their order.
	name: "a later message's open calls are answered before an older message's",
	steps: []step{
		{in: msgs(user("u")), out: msgs(calls("get:a1", "get:a2"))},
		{in: msgs(sys("sub"), user("v")), out: msgs(calls("get:b1", "get:b2"))},
		{tool: toolEvent("get", "", "rb1")},
		{tool: toolEvent("get", "", "rb2")},
		{tool: toolEvent("get", "", "ra1")},
		{tool: toolEvent("get", "", "ra2")},
		{tool: toolEvent("get", "", "extra")},
	},
	want: "user u\nassistant get:a1 get:a2\ntool ->a1 ra1\ntool ->a2 ra2\n" +
		"system sub\nuser v\nassistant get:b1 get:b2\ntool ->b1 rb1\ntool ->b2 rb2\nassistant get:\ntool -> extra\n",
	calls: 5,
}, {
	// A tracer that records each block of the model's answer as a model call of its own
	// (the Claude Agent SDK's, in Langfuse) splits two parallel calls into two messages,
	// one after the other: they are one batch, answered in their order.
	name: "parallel calls split into consecutive messages are answered in their order",
	steps: []step{
		{in: msgs(user("u")), out: msgs(say("checking"))},
		{out: msgs(calls("get:c1"))},
		{out: msgs(calls("get:c2"))},
		{tool: toolEvent("get", "", "one")},
		{tool: &ToolEvent{Call: Call{Tool: "get"}, Result: "two", Failed: true, Error: "boom"}},
	},
	want:  "user u\nassistant checking\nassistant get:c1\nassistant get:c2\ntool ->c1 one\ntool ->c2 failed(boom) two\n",
	calls: 2,
}, {
	// A message between two messages with calls ends a batch: the later call, which the
	// user's message asked for, is answered first.
	name: "a message between two calls makes two batches",
	steps: []step{
		{in: msgs(user("u")), out: msgs(calls("get:a1"))},
		{in: msgs(user("u"), calls("get:a1"), user("more")), out: msgs(calls("get:b1"))},
		{tool: toolEvent("get", "", "rb")},
		{tool: toolEvent("get", "", "ra")},
	},
	want:  "user u\nassistant get:a1\nuser more\nassistant get:b1\ntool ->b1 rb\ntool ->a1 ra\n",
	calls: 2,
}, {
	name: "a tool event after the input holds the result marks it failed",
	steps: []step{
		{in: msgs(user("u")), out: msgs(calls("run:c1"))},
		{in: msgs(user("u"), calls("run:c1"), answer("c1", "boom")), out: msgs(say("hm"))},
		{tool: &ToolEvent{Call: Call{ID: "c1", HasID: true, Tool: "run"}, Failed: true}},
	},
	want:  "user u\nassistant run:c1\ntool ->c1 failed(the tool's own record says it failed) boom\nassistant hm\n",
	calls: 1,
}, {
	name: "tool events alone, then a call that re-sends them without ids",
	steps: []step{
		{tool: toolEvent("ls", "", "a b")},
		{tool: toolEvent("cat", "", "text")},
		{in: msgs(user("u"), calls("ls:"), answer("", "a b"), calls("cat:"), answer("", "text")), out: msgs(say("read"))},
	},
	want:  "assistant ls:\ntool -> a b\nassistant cat:\ntool -> text\nuser u\nassistant read\n",
	calls: 2,
}, {
	// A sub-agent's call (a prompt of its own) between two calls of the main agent is a
	// conversation of its own; the main one continues after it.
	name: "a sub-agent's call between two calls of the main agent",
	steps: []step{
		{in: msgs(sys("main"), user("u")), out: msgs(calls("delegate:d1"))},
		{in: msgs(sys("sub"), user("sub task")), out: msgs(say("sub result"))},
		{tool: toolEvent("delegate", "d1", "sub result")},
		{in: msgs(sys("main"), user("u"), calls("delegate:d1"), answer("d1", "sub result")), out: msgs(say("done"))},
	},
	want: "system main\nuser u\nassistant delegate:d1\ntool ->d1 sub result\nassistant done\n" +
		"system sub\nuser sub task\nassistant sub result\n",
	calls: 1,
}, {
	// A handoff: the second agent, with a system prompt of its own, is sent the
	// conversation so far, the handoff's call and result included. It is a conversation of
	// its own; the calls the run holds are not added again, and the handoff's result goes
	// to the conversation of its call, so that it answers a call made before it.
	name: "a handoff re-sends the first agent's calls to a second agent",
	steps: []step{
		{in: msgs(sys("triage"), user("weather in Paris?")), out: msgs(calls("transfer_to_weather:h1"))},
		{in: msgs(sys("weather"), user("weather in Paris?"), calls("transfer_to_weather:h1"), answer("h1", "{}")), out: msgs(calls("get_weather:w1"))},
		{tool: toolEvent("get_weather", "", "sunny")},
		{in: msgs(sys("weather"), user("weather in Paris?"), calls("transfer_to_weather:h1"), answer("h1", "{}"), calls("get_weather:w1"), answer("w1", "sunny")), out: msgs(say("sunny"))},
	},
	want: "system triage\nuser weather in Paris?\nassistant transfer_to_weather:h1\ntool ->h1 {}\n" +
		"system weather\nuser weather in Paris?\nassistant get_weather:w1\ntool ->w1 sunny\nassistant sunny\n",
	calls: 2,
}, {
	name: "the text the model wrote with a call a tool event made goes to that call's message",
	steps: []step{
		{in: msgs(user("u")), out: msgs()},
		{tool: toolEvent("ls", "c1", "a b")},
		{in: msgs(user("u"), Message{Role: "assistant", Content: "let me look", Calls: calls("ls:c1").Calls}, answer("c1", "a b")), out: msgs(say("two files"))},
	},
	want:  "user u\nassistant ls:c1 let me look\ntool ->c1 a b\nassistant two files\n",
	calls: 1,
}, {
	name: "a call with no input continues the conversation continued last",
	steps: []step{
		{in: msgs(user("u")), out: msgs(say("a"))},
		{in: msgs(), out: msgs(say("b"))},
		{in: msgs(user("u"), say("a"), say("b"), user("v")), out: msgs(say("c"))},
	},
	want:  "user u\nassistant a\nassistant b\nuser v\nassistant c\n",
	calls: 0,
}, {
	// The Claude Agent SDK's trace: one call a model message, a message between them, then
	// the tool's two records without call ids, in the order the calls were made. Before, each
	// answered the newest batch's call: Berlin's weather went to New York's call and back.
	name: "a tool event without an id answers the call with its arguments",
	steps: []step{
		{in: msgs(user("weather?")), out: msgs(callWith("get_weather:c1", `{"city": "Berlin", "units": "C"}`))},
		{in: msgs(), out: msgs(say("and"), callWith("get_weather:c2", `{"city":"New York","units":"C"}`))},
		{tool: eventWith("get_weather", `{"units":"C","city":"Berlin"}`, "cloudy")},
		{tool: eventWith("get_weather", `{ "units" : "C", "city" : "New York" }`, "sunny")},
	},
	want:  "user weather?\nassistant get_weather:c1\nassistant and\nassistant get_weather:c2\ntool ->c1 cloudy\ntool ->c2 sunny\n",
	calls: 2,
}, {
	name: "parallel calls' records in another order answer by their arguments",
	steps: []step{
		{in: msgs(user("weather?")), out: msgs(Message{Role: "assistant", Calls: []Call{
			callWith("get_weather:c1", `{"city":"Berlin"}`).Calls[0], callWith("get_weather:c2", `{"city":"New York"}`).Calls[0]}})},
		{tool: eventWith("get_weather", `{"city":"New York"}`, "sunny")},
		{tool: eventWith("get_weather", `{"city":"Berlin"}`, "cloudy")},
	},
	want:  "user weather?\nassistant get_weather:c1 get_weather:c2\ntool ->c2 sunny\ntool ->c1 cloudy\n",
	calls: 2,
}, {
	name: "a tool event whose arguments match no call answers by the order rule",
	steps: []step{
		{in: msgs(user("weather?")), out: msgs(callWith("get_weather:c1", `{"city":"Berlin"}`))},
		{in: msgs(), out: msgs(say("and"), callWith("get_weather:c2", `{"city":"New York"}`))},
		{tool: eventWith("get_weather", `{"city":"Paris"}`, "rain")},
		{tool: eventWith("get_weather", `{"city":"Berlin"}`, "cloudy")},
	},
	want:  "user weather?\nassistant get_weather:c1\nassistant and\nassistant get_weather:c2\ntool ->c2 rain\ntool ->c1 cloudy\n",
	calls: 2,
}, {
	// Google ADK records execute_tool's output as {}; the next model call re-sends the call's
	// real function_response. Before, both were results of the call.
	name: "an input that re-sends the result a tool event gave is that result",
	steps: []step{
		{in: msgs(user("hi")), out: msgs(calls("say_hello:"))},
		{tool: toolEvent("say_hello", "", "{}")},
		{in: msgs(user("hi"), calls("say_hello:"), answer("", `{"greeting":"Hello"}`)), out: msgs(say("Hello!"))},
	},
	want:  "user hi\nassistant say_hello:\ntool -> {\"greeting\":\"Hello\"}\nassistant Hello!\n",
	calls: 1,
}, {
	name: "two sequential calls of one tool, each answered by an event and re-sent",
	steps: []step{
		{in: msgs(user("orders?")), out: msgs(calls("status:"))},
		{tool: toolEvent("status", "", "{}")},
		{in: msgs(user("orders?"), calls("status:"), answer("", "shipped")), out: msgs(calls("status:"))},
		{tool: toolEvent("status", "", "{}")},
		{in: msgs(user("orders?"), calls("status:"), answer("", "shipped"), calls("status:"), answer("", "packing")), out: msgs(say("done"))},
	},
	want:  "user orders?\nassistant status:\ntool -> shipped\nassistant status:\ntool -> packing\nassistant done\n",
	calls: 2,
}, {
	// The second call has no tool event: its re-sent result is new, not the first call's.
	name: "a second call's result the input alone carries is added",
	steps: []step{
		{in: msgs(user("orders?")), out: msgs(calls("status:"))},
		{tool: toolEvent("status", "", "shipped")},
		{in: msgs(user("orders?"), calls("status:"), answer("", "shipped")), out: msgs(calls("status:"))},
		{in: msgs(user("orders?"), calls("status:"), answer("", "shipped"), calls("status:"), answer("", "packing")), out: msgs(say("done"))},
	},
	want:  "user orders?\nassistant status:\ntool -> shipped\nassistant status:\ntool -> packing\nassistant done\n",
	calls: 2,
}, {
	// The first call's event said nothing and the next input did not re-send it; the second
	// call (no event) and its result, re-sent after it, are the second call's.
	name: "a result re-sent after a newer call is not an older call's",
	steps: []step{
		{in: msgs(user("orders?")), out: msgs(calls("status:"))},
		{tool: toolEvent("status", "", "{}")},
		{in: msgs(user("orders?"), calls("status:")), out: msgs(calls("status:"))},
		{in: msgs(user("orders?"), calls("status:"), calls("status:"), answer("", "packing")), out: msgs(say("done"))},
	},
	want:  "user orders?\nassistant status:\ntool -> {}\nassistant status:\ntool -> packing\nassistant done\n",
	calls: 2,
}, {
	name: "a failed tool event keeps its failure and takes the re-sent text",
	steps: []step{
		{in: msgs(user("hi")), out: msgs(calls("say_hello:"))},
		{tool: &ToolEvent{Call: Call{Tool: "say_hello", Args: []byte(`{}`), ArgsValid: true}, Result: "", Failed: true, Error: "timeout"}},
		{in: msgs(user("hi"), calls("say_hello:"), answer("", "partial greeting")), out: msgs(say("sorry"))},
	},
	want:  "user hi\nassistant say_hello:\ntool -> failed(timeout) partial greeting\nassistant sorry\n",
	calls: 1,
}}

// callWith is a model message with one call (tool:id) of the given arguments.
func callWith(call, args string) Message {
	m := calls(call)
	m.Calls[0].Args = []byte(args)
	return m
}

// eventWith is a tool event without a call id with the given arguments.
func eventWith(tool, args, result string) *ToolEvent {
	e := toolEvent(tool, "", result)
	e.Call.Args = []byte(args)
	return e
}

func TestConversations(t *testing.T) {
	for _, tc := range conversationCases {
		t.Run(tc.name, func(t *testing.T) {
			c := NewConversations()
			for _, s := range tc.steps {
				if s.tool != nil {
					c.Tool(*s.tool)
				} else {
					c.Model(s.in, s.out)
				}
			}
			got := c.Messages()
			if s := summary(got); s != tc.want {
				t.Errorf("messages:\n%s\nwant:\n%s", s, tc.want)
			}
			tr := Trace{Messages: got}
			if n := tr.NumCalls(); n != tc.calls {
				t.Errorf("%d calls, want %d", n, tc.calls)
			}
		})
	}
}

// TestConversationsOTLP reads the two runs as OTLP spans (GenAI messages, tool spans):
// lined up by position, the first read 13 messages and 3 calls, the second 7 and 2.
func TestConversationsOTLP(t *testing.T) {
	type span struct {
		in, out string // gen_ai.input.messages / gen_ai.output.messages
		tool    string // an execute_tool span's tool; id and result follow
		id, res string
	}
	text := func(role, s string) string {
		return fmt.Sprintf(`{"role":%q,"parts":[{"type":"text","content":%q}]}`, role, s)
	}
	call := func(tool, id string) string {
		return fmt.Sprintf(`{"role":"assistant","parts":[{"type":"tool_call","id":%q,"name":%q,"arguments":{}}]}`, id, tool)
	}
	result := func(id, s string) string {
		return fmt.Sprintf(`{"role":"tool","parts":[{"type":"tool_call_response","id":%q,"response":%q}]}`, id, s)
	}
	list := func(ms ...string) string { return "[" + strings.Join(ms, ",") + "]" }
	for _, tc := range []struct {
		name             string
		spans            []span
		messages, ncalls int
		results          int
	}{{
		name: "two agents with the same system prompt",
		spans: []span{
			{in: list(text("system", "S"), text("user", "task A")), out: list(call("search", "a1"))},
			{in: list(text("system", "S"), text("user", "task B")), out: list(call("lookup", "b1"))},
			{tool: "search", id: "a1", res: "found A"},
			{tool: "lookup", id: "b1", res: "found B"},
			{in: list(text("system", "S"), text("user", "task A"), call("search", "a1"), result("a1", "found A")), out: list(text("assistant", "A done"))},
			{in: list(text("system", "S"), text("user", "task B"), call("lookup", "b1"), result("b1", "found B")), out: list(text("assistant", "B done"))},
		},
		messages: 10, ncalls: 2, results: 2,
	}, {
		name: "a tool span before the call that re-sends its result",
		spans: []span{
			{in: list(text("system", "S"), text("user", "weather?")), out: list()},
			{tool: "get_weather", res: "sunny"},
			{in: list(text("system", "S"), text("user", "weather?"), call("get_weather", "call_9"), result("call_9", "sunny")), out: list(text("assistant", "It is sunny"))},
		},
		messages: 5, ncalls: 1, results: 1,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			data := otlpSpans(len(tc.spans), func(i int) string {
				s := tc.spans[i]
				var attrs []string
				attr := func(k, v string) {
					q, _ := json.Marshal(v)
					attrs = append(attrs, fmt.Sprintf(`{"key":%q,"value":{"stringValue":%s}}`, k, q))
				}
				if s.tool != "" {
					attr("gen_ai.operation.name", "execute_tool")
					attr("gen_ai.tool.name", s.tool)
					if s.id != "" {
						attr("gen_ai.tool.call.id", s.id)
					}
					attr("gen_ai.tool.call.result", s.res)
				} else {
					attr("gen_ai.operation.name", "chat")
					attr("gen_ai.input.messages", s.in)
					attr("gen_ai.output.messages", s.out)
				}
				return fmt.Sprintf(`{"traceId":"t","spanId":"s%d","startTimeUnixNano":"%d","attributes":[%s]}`, i, i+1, strings.Join(attrs, ","))
			})
			traces, err := ReadOTLP("spans.json", data)
			if err != nil || len(traces) != 1 {
				t.Fatalf("%d traces, %v", len(traces), err)
			}
			tr := traces[0]
			results := 0
			for _, m := range tr.Messages {
				results += len(m.Results)
			}
			if len(tr.Messages) != tc.messages || tr.NumCalls() != tc.ncalls || results != tc.results {
				t.Errorf("%d messages, %d calls, %d results; want %d, %d, %d:\n%s", len(tr.Messages), tr.NumCalls(), results,
					tc.messages, tc.ncalls, tc.results, summary(tr.Messages))
			}
		})
	}
}

// TestOpenCallLinear: tool events without ids cost work linear in the run's calls, however
// the calls fall into messages: one message of 10,000 parallel calls of one tool, 10,000
// messages of one call each, and 100 messages of 100 calls each answered once the last is
// made. openCall looks at each call at most twice (once to pass it when answered, once to
// return it), so the calls it looked at are at most 2n; answering each message's first
// unanswered call by scanning from its first call would look at n²/2 in the first run.
func TestOpenCallLinear(t *testing.T) {
	const n = 10000
	for _, tc := range []struct {
		name    string
		perMsg  int
		interim bool // answer each message's calls before the next message is made
	}{
		{"one message of n calls", n, false},
		{"n messages of one call, answered as made", 1, true},
		{"n/100 messages of 100 calls, answered at the end", 100, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// each message is the output of a model call of its own (a sub-agent's), so that
			// the model calls themselves cost linear time too
			c := NewConversations()
			made, answered := 0, 0
			answerAll := func() {
				for ; answered < made; answered++ {
					c.Tool(*toolEvent("get", "", fmt.Sprint("r", answered)))
				}
			}
			for made < n {
				ids := make([]string, tc.perMsg)
				for i := range ids {
					ids[i] = fmt.Sprintf("get:c%d", made+i)
				}
				c.Model(msgs(user(fmt.Sprint("u", made))), msgs(calls(ids...)))
				made += tc.perMsg
				if tc.interim {
					answerAll()
				}
			}
			answerAll()
			got := c.Messages()
			if answered != n || len(got) != 2*(n/tc.perMsg)+n {
				t.Fatalf("%d events, %d messages", answered, len(got))
			}
			if c.scanned > 2*n {
				t.Errorf("openCall looked at %d calls for %d events, want at most %d", c.scanned, n, 2*n)
			}
			// every call has its own result: the event that answers call i of message j is
			// the i-th of that message's, the newest message's events first where they wait
			// for the end
			seen := map[string]bool{}
			for _, m := range got {
				for _, r := range m.Results {
					var call int
					fmt.Sscanf(r.CallID, "c%d", &call)
					j, i, event := call/tc.perMsg, call%tc.perMsg, call
					if !tc.interim {
						event = (n/tc.perMsg-1-j)*tc.perMsg + i
					}
					if seen[r.CallID] || r.Content != fmt.Sprint("r", event) {
						t.Fatalf("call %s answered by %q (again: %v), want r%d", r.CallID, r.Content, seen[r.CallID], event)
					}
					seen[r.CallID] = true
				}
			}
			if len(seen) != n {
				t.Errorf("%d calls answered, want %d", len(seen), n)
			}
			t.Logf("openCall looked at %d calls", c.scanned)

		})
	}
}

// TestOpenCallByArgsLinear: tool events without ids answered by their arguments cost work
// linear in the run's calls too. n messages of one call each, all answered at the end: by
// their arguments, in the order made (the order rule alone would answer the newest first),
// or every other event with arguments no call has (answered by the order rule, newest
// first). Each call is in two lists (by tool, by tool and arguments), and each list's calls
// are looked at most twice, so openCall looks at most at 4n calls.
func TestOpenCallByArgsLinear(t *testing.T) {
	const n = 10000
	for _, mixed := range []bool{false, true} {
		t.Run(fmt.Sprint("mixed ", mixed), func(t *testing.T) {
			c := NewConversations()
			for i := range n {
				c.Model(msgs(user(fmt.Sprint("u", i))), msgs(callWith(fmt.Sprintf("get:c%d", i), fmt.Sprintf(`{"n": %d}`, i))))
			}
			byArgs := 0 // the next call the arguments of the events name
			want := map[string]string{}
			for i := range n {
				if mixed && i%2 == 1 {
					c.Tool(*eventWith("get", `{"n": -1}`, fmt.Sprint("r", i)))
					continue
				}
				want[fmt.Sprint("c", byArgs)] = fmt.Sprint("r", i)
				c.Tool(*eventWith("get", fmt.Sprintf(`{"n":%d}`, byArgs), fmt.Sprint("r", i)))
				byArgs++
			}
			seen := map[string]bool{}
			for _, m := range c.Messages() {
				for _, r := range m.Results {
					if seen[r.CallID] || (want[r.CallID] != "" && r.Content != want[r.CallID]) {
						t.Fatalf("call %s answered by %q (again: %v), want %q", r.CallID, r.Content, seen[r.CallID], want[r.CallID])
					}
					seen[r.CallID] = true
				}
			}
			if len(seen) != n {
				t.Errorf("%d calls answered, want %d", len(seen), n)
			}
			if c.scanned > 4*n {
				t.Errorf("openCall looked at %d calls for %d events, want at most %d", c.scanned, n, 4*n)
			}
			t.Logf("openCall looked at %d calls", c.scanned)
		})
	}
}

// TestParallelCallsOfOneTool: a model call that makes two parallel calls of one tool, and
// the tool's two records without a call id (Langfuse TOOL observations, Agents SDK function
// spans), one failed: each result goes to its own call, the failure to the second
// (Atlantis), as each file holds them. Before, each record answered the last open call, so
// Paris's result went to Atlantis's call and Atlantis's failure to Paris's.
func TestParallelCallsOfOneTool(t *testing.T) {
	const sys = "system You are a weather assistant. Use get_weather.\nuser Weather in Paris and Atlantis?\n"
	lf := readWith(t, langfuseFile("parallel-tools.json"), Options{})
	if len(lf) != 1 {
		t.Fatalf("%d Langfuse runs", len(lf))
	}
	want := sys + "assistant get_weather:call_p1 get_weather:call_p2\ntool ->call_p1 21C, sunny\n" +
		"tool ->call_p2 failed(ValueError: unknown city Atlantis)\nassistant Paris: 21C, sunny. Atlantis: no such city.\n"
	if got := summary(lf[0].Messages); got != want {
		t.Errorf("Langfuse:\n%s\nwant\n%s", got, want)
	}
	if u := (Usage{Prompt: 131 + 214, Completion: 44 + 15, Total: 175 + 229, Recorded: true}); lf[0].Usage != u {
		t.Errorf("Langfuse usage %+v, want %+v", lf[0].Usage, u)
	}
	path, data := formatFile(t, "openai-agents/parallel.jsonl", FormatOpenAIAgents)
	ag := readAgents(t, path, data)["trace_9d4f2e1a0b3c45d6e7f8a9b0c1d2e3f4"]
	if ag == nil {
		t.Fatal("no Agents SDK run")
	}
	want = "system You are a weather agent. Use get_weather for any city the user names.\nuser Weather in Paris and Atlantis?\n" +
		"assistant get_weather:call_Pa7r1sChat1 get_weather:call_At1antChat2 Checking both cities.\ntool ->call_Pa7r1sChat1 Sunny, 21 C\n" +
		"tool ->call_At1antChat2 failed(Error running tool (non-fatal): city not found: Atlantis) An error occurred while running the tool. Please try again. Error: city not found: Atlantis\n" +
		"assistant Paris is sunny, 21 C; I could not find Atlantis.\n"
	if got := summary(ag.Messages); got != want {
		t.Errorf("Agents SDK:\n%s\nwant\n%s", got, want)
	}
	if u := (Usage{Prompt: 219 + 305, Completion: 43 + 15, Total: 262 + 320, Recorded: true}); ag.Usage != u || ag.Task != "weather-two-chat" {
		t.Errorf("Agents SDK usage %+v task %q", ag.Usage, ag.Task)
	}
}

// TestConversationsModelAfter: a call sent only the messages its conversation has not seen
// (a server-kept conversation) continues the conversation it names, however its input
// begins; a later call that sends the whole conversation continues it too.
func TestConversationsModelAfter(t *testing.T) {
	c := NewConversations()
	a := c.Model(msgs(sys("S"), user("u")), msgs(calls("get:c1")))
	b := c.Model(msgs(sys("T"), user("v")), msgs(say("other")))
	c.Tool(*toolEvent("get", "", "r1"))
	if got := c.ModelAfter(a, msgs(answer("c1", "r1"), user("more")), msgs(say("done"))); got != a || a == b {
		t.Fatalf("conversations %d, %d, %d", a, b, got)
	}
	if got := c.Model(msgs(sys("S"), user("u"), calls("get:c1"), answer("c1", "r1"), user("more"), say("done"), user("again")), msgs(say("end"))); got != a {
		t.Errorf("the whole conversation re-sent continued %d, want %d", got, a)
	}
	want := "system S\nuser u\nassistant get:c1\ntool ->c1 r1\nuser more\nassistant done\nuser again\nassistant end\nsystem T\nuser v\nassistant other\n"
	if s := summary(c.Messages()); s != want {
		t.Errorf("messages:\n%s\nwant\n%s", s, want)
	}
	if got := c.ModelAfter(99, msgs(user("w")), msgs(say("x"))); got != 2 {
		t.Errorf("ModelAfter of no conversation started %d, want 2", got)
	}
}

// TestConversationsServerKeptLinear: a run of calls that each send only what is new (and
// calls with no input at all) costs bytes and time linear in its calls (checkLinear: 4n
// calls allocate at most 6 times what n do). Copying the conversation so far at each call,
// as the view once was, allocates 16 times as much.
func TestConversationsServerKeptLinear(t *testing.T) {
	run := func(n int) {
		c := NewConversations()
		ci := c.Model(msgs(sys("S"), user("u")), msgs(calls("get:c0")))
		for i := 1; i < n; i++ {
			id := fmt.Sprint("c", i)
			if i%2 == 0 {
				c.Model(nil, msgs(say("thinking")))
			}
			c.ModelAfter(ci, msgs(answer(fmt.Sprint("c", i-1), "r")), msgs(calls("get:"+id)))
		}
		if m := len(c.Messages()); m != 2*n+n/2 {
			t.Fatalf("%d messages, want %d", m, 2*n+n/2)
		}
	}
	checkLinear(t, "calls that send only what is new", run)
}
