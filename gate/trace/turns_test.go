package trace

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/input"
)

// Turns are recognised by their shape wherever a message list is found (docs/trace-formats.md,
// "Turns by shape"): these tests read one conversation written under the keys and in the
// dialects the harnesses' forks use, and check every reading gives the same turns.

// dojoFixture is a generated AgentDojo result (testdata/formats/agentdojo/README.md): two tool
// calls, FunctionCall {"function": name, "args"}, text blocks {"type": "text", "content"}.
const dojoFixture = "testdata/formats/agentdojo/runs/gpt-4o-2024-05-13/banking/user_task_0/none/none.json"

// rewrite writes the members of the JSON object in file src, changed by edit, to a new file.
func rewrite(t *testing.T, src, name string, edit func(map[string]json.RawMessage)) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// turnsOf is what the evaluators read of a trace's turns: roles, text, calls and results.
func turnsOf(tr *Trace) []Message {
	out := make([]Message, len(tr.Messages))
	for i, m := range tr.Messages {
		out[i] = Message{Role: m.Role, Content: m.Content}
		for _, c := range m.Calls {
			c.Args = compactJSON(c.Args)
			out[i].Calls = append(out[i].Calls, c)
		}
		out[i].Results = append(out[i].Results, m.Results...)
	}
	return out
}

func compactJSON(b []byte) []byte {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return b
	}
	out, _ := json.Marshal(v)
	return out
}

// TestAgentDojoConversations: an AgentDojo result whose writer keeps the turns under
// "conversations" reads the same turns as AgentDojo's own "messages"; before, all of them
// read as no messages at all.
func TestAgentDojoConversations(t *testing.T) {
	want := readWith(t, dojoFixture, Options{})
	path := rewrite(t, dojoFixture, "none.json", func(m map[string]json.RawMessage) {
		m["conversations"] = m["messages"]
		delete(m, "messages")
	})
	got := readWith(t, path, Options{})
	if len(got) != 1 || len(want) != 1 {
		t.Fatalf("%d and %d traces", len(got), len(want))
	}
	if got[0].Shape != ShapeAgentDojo || len(got[0].Messages) != 7 || got[0].NumCalls() != 2 {
		t.Fatalf("shape %s, %d messages, %d calls; want agentdojo, 7, 2", got[0].Shape, len(got[0].Messages), got[0].NumCalls())
	}
	if !reflect.DeepEqual(turnsOf(got[0]), turnsOf(want[0])) {
		t.Errorf("turns under conversations differ from messages:\n%+v\n%+v", turnsOf(got[0]), turnsOf(want[0]))
	}
}

// TestAgentDojoDialectInRecords: a fork that keeps AgentDojo's messages under other top-level
// keys (task_id, evaluation.utility) is read as records, its FunctionCall {"function": name,
// "args"} and text blocks {"type": "text", "content"} in AgentDojo's dialect: the same turns
// as AgentDojo's reader gives. Before, it stopped at messages[2].tool_calls[0].function:
// expected an object. It holds for the key "conversations" too.
func TestAgentDojoDialectInRecords(t *testing.T) {
	want := turnsOf(readWith(t, dojoFixture, Options{})[0])
	for _, key := range []string{"messages", "conversations"} {
		path := rewrite(t, dojoFixture, "fork.json", func(m map[string]json.RawMessage) {
			msgs := m["messages"]
			for k := range m {
				delete(m, k)
			}
			m["task_id"] = json.RawMessage(`"banking/user_task_0"`)
			m[key] = msgs
			m["evaluation"] = json.RawMessage(`{"utility": true, "security": true}`)
		})
		if f, err := Sniff(path); err != nil || f != FormatRecords {
			t.Fatalf("%s: Sniff = %v, %v; want records", key, f, err)
		}
		got := readWith(t, path, Options{})
		if len(got) != 1 {
			t.Fatalf("%s: %d traces", key, len(got))
		}
		if got := turnsOf(got[0]); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: records read the AgentDojo dialect as\n%+v\nwant\n%+v", key, got, want)
		}
		if got[0].Task != "banking/user_task_0" {
			t.Errorf("%s: task %q", key, got[0].Task)
		}
	}
}

// TestTau2Ticks: a full-duplex tau2 simulation (tau2's dir format, generated from its writer:
// testdata/formats/README.md) holds ticks, not messages; they are flattened as tau2's
// get_messages does: per tick the agent's chunk and calls, its results, the user's chunk, in
// timestamp order. Before, the folder was "no trace file".
func TestTau2Ticks(t *testing.T) {
	dir := filepath.Join("testdata", "formats", "tau2-voice")
	l, err := input.ExpandListing([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	var got []*Trace
	for _, e := range l.Files {
		f, side, err := RecogniseFile(e.Path, e.Folder)
		if err != nil {
			t.Fatal(err)
		}
		if side != "" {
			if filepath.Base(e.Path) != "results.json" {
				t.Errorf("%s: a side file: %s", e.Path, side)
			}
			continue
		}
		got = append(got, readWith(t, f.Path, Options{})...)
	}
	if len(got) != 1 {
		t.Fatalf("%d traces, want 1", len(got))
	}
	tr := got[0]
	var roles []string
	for _, m := range tr.Messages {
		roles = append(roles, m.Role)
	}
	// tick 3's user chunk (09:00:00.630) comes before its agent's result (00.660): sorted by
	// timestamp, as tau2 sorts them
	want := "user assistant assistant tool assistant user tool assistant user"
	if strings.Join(roles, " ") != want {
		t.Errorf("roles %s\nwant  %s", strings.Join(roles, " "), want)
	}
	if tr.NumCalls() != 2 || tr.Messages[2].Calls[0].Tool != "get_customer_by_phone" || tr.Messages[4].Calls[0].Tool != "get_data_usage" {
		t.Errorf("calls: %+v", tr.Messages)
	}
	if r := tr.Messages[6].Results; len(r) != 1 || r[0].Success || r[0].CallID != "call_2" {
		t.Errorf("message 6 results %+v, want call_2 failed", r)
	}
	if tr.Messages[7].Content != "You have used 3.1 GB of 5 GB." || !tr.Outcome.Known || tr.Outcome.Value != 1 {
		t.Errorf("message 7 %q, outcome %+v", tr.Messages[7].Content, tr.Outcome)
	}
}

// TestTau2TicksBad: a tick that is not an object is an error placed at it.
func TestTau2TicksBad(t *testing.T) {
	rec := input.Record{File: "s.json", Line: 1, Col: 1, Data: []byte(`{"id": "s", "task_id": "1", "messages": null,` + "\n" + `"ticks": [{"tick_id": 0, "timestamp": "t"}, 7]}`)}
	_, err := Decode(rec)
	if err == nil || err.Error() != `s.json:2:45: field "ticks[1]": expected a tick (an object), found a number` {
		t.Errorf("err = %v", err)
	}
}

// TestCrashText: a run with no turn of the agent's and an error its harness recorded is a crash
// with that error's words: tau-bench's info.error, else the exception a traceback ends with,
// else a top-level error (AgentDojo's, OpenHands'), also when the messages hold the system
// prompt and the task (an AgentDojo fork's run whose model answered 503: 5 of
// Liu-Ruotian/agentdojo-luna-trajectories' 215, on main "no assistant message"); a run the agent
// took a turn in, or with no error, is none.
func TestCrashText(t *testing.T) {
	for _, c := range []struct{ name, rec, want string }{
		{"tau-bench info.error", `{"task_id": 1, "traj": [], "info": {"error": "boom", "traceback": "Traceback (most recent call last):\n  x\nValueError: boom"}}`, "boom"},
		{"traceback only", `{"task_id": 1, "traj": [], "info": {"traceback": "Traceback (most recent call last):\n  File \"a.py\"\nKeyError: 'x'\n"}}`, "KeyError: 'x'"},
		{"top-level error", `{"trace_id": "a", "messages": [], "error": "the model timed out"}`, "the model timed out"},
		{"turns taken", `{"task_id": 1, "traj": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}], "info": {"error": "boom"}}`, ""},
		{"the task alone", `{"task_id": "t03", "suite_name": "saas_suite", "messages": [{"role": "system", "content": [{"type": "text", "content": "You are a tool-using assistant."}]}, {"role": "user", "content": [{"type": "text", "content": "Help."}]}], "error": "InternalServerError(\"Error code: 503\")"}`, `InternalServerError("Error code: 503")`},
		{"no error", `{"task_id": 1, "traj": [], "info": {"error": null}}`, ""},
	} {
		tr, err := Decode(input.Record{File: "r.json", Line: 1, Col: 1, Data: []byte(c.rec)})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if tr.Crash != c.want {
			t.Errorf("%s: crash %q, want %q", c.name, tr.Crash, c.want)
		}
	}
	runs := readWith(t, "testdata/formats/tau-bench-crashes.json", Options{})
	var got []string
	for _, r := range runs {
		got = append(got, r.ID+": "+r.Crash)
	}
	want := "0#0: |1#0: litellm.RateLimitError: OpenAIException - Rate limit reached for gpt-4o|2#0: litellm.RateLimitError: OpenAIException - Rate limit reached for gpt-4o"
	if strings.Join(got, "|") != want {
		t.Errorf("crashes %q", got)
	}
}

// TestSWEAgentModelStats: SWE-agent's own counters of a run, info.model_stats (tokens_sent,
// tokens_received; sweagent/agent/models.py InstanceStats), are its usage; counters at zero (a
// replay, a demonstration) recorded no usage. The figures are those of SWE-agent's own test
// trajectory pydicom__pydicom-1458.traj (SWE-agent 3ea751c0, tests/test_data/trajectories).
func TestSWEAgentModelStats(t *testing.T) {
	rec := func(stats string) input.Record {
		return input.Record{File: "pydicom__pydicom-1458.traj", Line: 1, Col: 1, Data: []byte(`{"environment": "swe_main", "trajectory": [], "history": [` +
			`{"role": "system", "content": "SETTING", "agent": "primary"}, {"role": "assistant", "content": "ok", "agent": "primary"}], ` +
			`"info": {"exit_status": "submitted", "submission": "diff", "model_stats": ` + stats + `}}`)}
	}
	for _, c := range []struct {
		stats string
		want  Usage
	}{
		{`{"total_cost": 1.26719, "instance_cost": 1.26719, "tokens_sent": 122612, "tokens_received": 1369, "api_calls": 12}`, Usage{Prompt: 122612, Completion: 1369, Total: 123981, Recorded: true}},
		{`{"total_cost": 0, "instance_cost": 0, "tokens_sent": 0, "tokens_received": 0, "api_calls": 0}`, Usage{}},
	} {
		tr, err := Decode(rec(c.stats))
		if err != nil {
			t.Fatal(err)
		}
		if tr.Usage != c.want {
			t.Errorf("%s: usage %+v, want %+v", c.stats, tr.Usage, c.want)
		}
	}
	_, err := Decode(rec(`{"tokens_sent": -3}`))
	if err == nil || !strings.Contains(err.Error(), `info.model_stats.tokens_sent must be a non-negative integer, got -3`) {
		t.Errorf("err = %v", err)
	}
}

// FuzzTicks: a full-duplex tau2 simulation's ticks decode without panic, every error placed in
// the record; when they decode, there are as many messages as tau2's Tick.get_all_messages
// makes: one per side that spoke or called, one per result.
func FuzzTicks(f *testing.F) {
	data, err := os.ReadFile("testdata/formats/tau2-voice/simulations/5f0c9a2e-3b1d-4e8a-9c7f-2d6e1a4b8c30.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(`{"id": "s", "task_id": "1", "messages": null, "ticks": [{"tick_id": 0, "timestamp": "b", "agent_chunk": {"role": "assistant", "content": "hi", "timestamp": "a"}, "agent_tool_calls": [{"id": "c", "name": "f", "arguments": {}}], "agent_tool_results": [{"id": "c", "role": "tool", "content": "ok", "timestamp": "c"}]}]}`))
	f.Add([]byte(`{"id": "s", "ticks": [{}, {"user_chunk": null, "user_tool_calls": []}, 3]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Decode(input.Record{File: "s.json", Line: 2, Col: 1, Data: data})
		if err != nil {
			var ie *input.Error
			if !errors.As(err, &ie) || ie.File != "s.json" || ie.Line < 2 || ie.Col < 1 {
				t.Fatalf("error without a position: %v", err)
			}
			return
		}
		var sim struct {
			Messages json.RawMessage `json:"messages"`
			Ticks    []map[string]json.RawMessage
		}
		if json.Unmarshal(data, &sim) != nil || sim.Ticks == nil || (len(sim.Messages) > 0 && string(sim.Messages) != "null") {
			return
		}
		want := 0
		for _, tk := range sim.Ticks {
			for _, side := range [...][3]string{{"agent_chunk", "agent_tool_calls", "agent_tool_results"}, {"user_chunk", "user_tool_calls", "user_tool_results"}} {
				var calls, results []json.RawMessage
				_ = json.Unmarshal(tk[side[1]], &calls)
				_ = json.Unmarshal(tk[side[2]], &results)
				if c := tk[side[0]]; (len(c) > 0 && string(c) != "null") || len(calls) > 0 {
					want++
				}
				want += len(results)
			}
		}
		if len(tr.Messages) != want {
			t.Fatalf("%d messages, tau2 makes %d", len(tr.Messages), want)
		}
	})
}

// TestInspectUsage: a sample's usage is its eval's own model's, input + output tokens: a
// grader's or monitor's model beside it is not counted, nor are the cache tokens Inspect's
// total_tokens adds; a sample of several models none of which is the eval's records none.
func TestInspectUsage(t *testing.T) {
	for _, c := range []struct {
		name, model, usage string
		want               Usage
	}{
		{"the eval's model, cache not counted", "anthropic/claude-sonnet-4", `{"anthropic/claude-sonnet-4": {"input_tokens": 40, "output_tokens": 60, "total_tokens": 800, "input_tokens_cache_write": 300, "input_tokens_cache_read": 400}, "openai/gpt-4o-mini": {"input_tokens": 1000, "output_tokens": 9}}`, Usage{40, 60, 100, true}},
		{"one model, not named", "", `{"openai/gpt-4o": {"input_tokens": 7, "output_tokens": 3}}`, Usage{7, 3, 10, true}},
		{"total alone", "m", `{"m": {"total_tokens": 12}}`, Usage{0, 0, 12, true}},
		{"several, none the eval's", "x", `{"a": {"input_tokens": 1}, "b": {"input_tokens": 2}}`, Usage{}},
	} {
		s := inspectSample{model: c.model}
		if err := json.Unmarshal([]byte(c.usage), &s.ModelUsage); err != nil {
			t.Fatal(err)
		}
		got, err := s.usage()
		if err != nil || got != c.want {
			t.Errorf("%s: %+v, %v; want %+v", c.name, got, err, c.want)
		}
	}
}
