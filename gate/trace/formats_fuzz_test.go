package trace

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/input"
)

// seedFile adds a test data file to the fuzzer's corpus.
func seedFile(f *testing.F, name string) {
	data, err := os.ReadFile(filepath.Join("testdata", "formats", name))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
}

// checkFormatError fails unless err is nil or an *input.Error naming file.
func checkFormatError(t *testing.T, err error, file string) {
	t.Helper()
	var ie *input.Error
	if err != nil && (!errors.As(err, &ie) || ie.File == "" || ie.File[:len(file)] != file) {
		t.Fatalf("error %T %v: want an *input.Error naming %s", err, err, file)
	}
}

// FuzzOTLP feeds arbitrary bytes to the OTLP reader: it must return traces with ids, or an
// *input.Error, and never panic.
func FuzzOTLP(f *testing.F) {
	for _, name := range []string{"otlp-genai.json", "otlp-openinference.jsonl", "otlp-openllmetry.json", "otlp-genai-events.jsonl"} {
		seedFile(f, name)
	}
	// Phoenix's snake_case spellings: its REST API's page and its UI's download, with a tool
	// definition
	f.Add([]byte(`{"data":[{"attributes":[{"key":"gen_ai.tool.definitions","value":{"array_value":null,"int_value":null,"string_value":"[{\"name\":\"f\",\"parameters\":{\"required\":[\"a\"]}}]"}},{"key":"llm.token_count.prompt","value":{"int_value":3,"string_value":null}}],"events":null,"parent_span_id":null,"span_id":"s","start_time_unix_nano":1,"status":{"code":2,"message":null},"trace_id":"t"}],"next_cursor":null}`))
	f.Add([]byte(`{"resource_spans":[{"scope_spans":[{"spans":[{"span_id":"s","trace_id":"t","attributes":[{"key":"llm.tools.0.tool.json_schema","value":{"string_value":"{\"name\":\"g\",\"parameters\":{}}"}},{"key":"trace.annotations.0.annotation.score","value":{"double_value":1}}]}]}]}]}`))
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"t","attributes":[{"key":"gen_ai.input.messages","value":{"stringValue":"[{\"role\":\"user\",\"parts\":[{\"type\":\"tool_call\"}]}]"}}]}]}]}]}`))
	// evaluation results (small seeds: the fuzzer minimizes what it finds, which takes long on
	// large ones)
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"t","spanId":"s","events":[{"name":"gen_ai.evaluation.result","attributes":[{"key":"gen_ai.evaluation.name","value":{"stringValue":"c"}},{"key":"gen_ai.evaluation.score.value","value":{"doubleValue":0.5}}]}]}]}]}]}
{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"traceId":"t","eventName":"gen_ai.evaluation.result","attributes":[{"key":"gen_ai.evaluation.score.label","value":{"stringValue":"pass"}}]}]}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		traces, err := ReadOTLP("f.json", data)
		checkFormatError(t, err, "f.json")
		for _, tr := range traces {
			if tr.ID == "" || tr.Shape != ShapeOTLP {
				t.Fatalf("trace %+v", tr)
			}
		}
	})
}

// FuzzInspectJSON feeds arbitrary bytes to the reader of Inspect logs written as JSON.
func FuzzInspectJSON(f *testing.F) {
	seedFile(f, "inspect-tools.json")
	f.Add([]byte(`{"version":2,"eval":{},"samples":[{"id":1,"epoch":1,"messages":[],"events":[{"event":"model","tools":[{"name":"a","parameters":{"required":["x"]}},{"name":"b","parameters":[]}]},{"event":"model","tools":{}}]}]}`))
	f.Add([]byte(`{"version":2,"eval":{},"samples":[{"id":1,"epoch":1,"messages":[],"scores":{"a":{"value":{"x":1}},"b":{"value":"P"}}},{"id":1,"epoch":2,"messages":[],"scores":{"a":{"value":"1e3"}}}]}`))
	f.Add([]byte(`{"version":2,"eval":{},"samples":[{"id":1,"epoch":1,"messages":[{"role":"tool","content":[{"type":"text","text":"attachment://a"}]}],"attachments":{"a":"x"}}]}`))
	f.Add([]byte(`{"samples":[{"id":1,"messages":[{"role":"assistant","tool_calls":[{"function":"f","arguments":{"a":"attachment://a","b":["attachment:\/\/a"],"attachment://a":1}}]}],"attachments":{"a":"x\"y"}}]}`))
	// arguments that embed references among their own values, nested, escaped, in a call with
	// a parse_error (expanded as read), and an attachment holding a credential
	f.Add([]byte(`{"samples":[{"id":1,"messages":[{"role":"assistant","tool_calls":[{"function":"f","arguments":{"code":"attachment://a","n":1}},{"function":"f","arguments":{"code":"attachment://a","n":2,"l":[{"x":"attachment://b"}]}}]}],"attachments":{"a":"print(\"<hi>\")\n\u2028","b":"export K=ghp_1a2B3c4D5e6F7g8H9i0JkLmNoPqRsTuVwXyZ"}}]}`))
	f.Add([]byte(`{"samples":[{"id":1,"messages":[{"role":"assistant","tool_calls":[{"function":"f","arguments":{"code":"attachment://a"},"parse_error":"bad"},{"function":"f","arguments":["attachment://a",{"attachment://a":"attachment://a"}]}]}],"attachments":{"a":"\u00e9\ud83d\ude00\\"}}]}`))
	// many references, nested in arguments (lists of objects of lists), in content of several
	// parts, in an attachment's own text (not expanded: Inspect resolves one level), and in
	// arguments with a parse_error, equal and distinct
	f.Add(inspectLog(referenceSample("s", 200, func(k int) string {
		return fmt.Sprintf(`{"a":[{"b":["attachment://a",["attachment://b",{"c":"attachment://a"}]]},"attachment:\/\/b"],"k":%d}`, k%3)
	}, false, map[string]string{"a": "x attachment://b \"q\"\n", "b": "attachment://a"})))
	f.Add(inspectLog(referenceSample("s", 50, func(k int) string { return fmt.Sprintf(`{"x":["attachment://a","attachment://a"],"i":%d}`, k%5) }, true,
		map[string]string{"a": strings.Repeat("<&>\"", 64)})))
	f.Add([]byte(`{"samples":[{"id":1,"messages":[{"role":"user","content":[{"type":"text","text":"attachment://a"},{"type":"text","text":"attachment://a"},{"type":"image"},{"type":"text","text":"attachment://b"}]},{"role":"tool","content":"attachment://b"}],"attachments":{"a":"attachment://b","b":"\u2028"}},{"id":2,"messages":[{"role":"user","content":"attachment://a"}],"attachments":{"a":""}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		err := eachInspectJSON(context.Background(), "f.json", data, Options{}, func(tr *Trace) error {
			if tr.ID == "" || tr.Task == "" {
				t.Fatalf("trace %+v", tr)
			}
			for _, m := range tr.Messages {
				for i := range m.Calls {
					checkExpanded(t, &m.Calls[i])
				}
			}
			tr.Redact([]string{"K="}, "***")
			for _, m := range tr.Messages {
				for i := range m.Calls {
					m.Calls[i].ExpandedArgs(-1)
				}
			}
			return nil
		})
		checkFormatError(t, err, "f.json")
	})
}

// checkExpanded checks a call whose arguments name attachments: they expand to the JSON value
// the arguments stand for (every string value that is a reference its text, keys as they are),
// and cut, to a start of it.
func checkExpanded(t *testing.T, c *Call) {
	t.Helper()
	if c.Attachments == nil {
		return
	}
	var raw, expanded any
	whole := c.ExpandedArgs(-1)
	if json.Unmarshal(c.Args, &raw) != nil || json.Unmarshal(whole, &expanded) != nil {
		t.Fatalf("arguments %s expand to %s: not JSON", c.Args, whole)
	}
	var resolve func(v any) any
	resolve = func(v any) any {
		switch v := v.(type) {
		case string:
			if text, ok := c.Attachment(v); ok {
				return text
			}
		case []any:
			for i := range v {
				v[i] = resolve(v[i])
			}
		case map[string]any:
			for k := range v {
				v[k] = resolve(v[k])
			}
		}
		return v
	}
	if want := resolve(raw); !reflect.DeepEqual(want, expanded) {
		t.Fatalf("arguments %s expand to %s, want %v", c.Args, whole, want)
	}
	for _, n := range []int{0, 1, 7, 60, 244, len(whole) - 1} {
		if n >= 0 && !bytes.Equal(c.ExpandedArgs(n), whole[:min(n, len(whole))]) {
			t.Fatalf("ExpandedArgs(%d) of %s is not its start", n, c.Args)
		}
	}
}

// FuzzInspectEval feeds arbitrary bytes to the reader of .eval archives.
func FuzzInspectEval(f *testing.F) {
	seedFile(f, "inspect-tools.eval")
	// a 1.5 KB archive naming a 1 MiB attachment 500 times (issue 34): 500 MiB once expanded
	f.Add(attachmentEval(attachmentSample(500, false)))
	// 10,000 references nested in lists, and 50 copies of arguments with a parse_error
	f.Add(attachmentEval(referenceSample("s", 100, func(int) string {
		return `{"a":[` + strings.TrimSuffix(strings.Repeat(`["attachment://h",{"b":"attachment://h"}],`, 50), ",") + `]}`
	}, false, map[string]string{"h": strings.Repeat("A", 1<<10)})))
	f.Add(attachmentEval(referenceSample("s", 50, func(k int) string { return fmt.Sprintf(`{"x":"attachment://h","i":%d}`, k) }, true,
		map[string]string{"h": strings.Repeat("B", 64<<10)})))
	f.Fuzz(func(t *testing.T, data []byte) {
		err := eachEval(context.Background(), "f.eval", bytes.NewReader(data), int64(len(data)), Options{}, func(tr *Trace) error {
			if tr.ID == "" {
				t.Fatalf("trace %+v", tr)
			}
			return nil
		})
		checkFormatError(t, err, "f.eval")
	})
}

// FuzzTau2 feeds arbitrary bytes to the reader of tau2-bench results files: it must return
// traces with ids and known or absent outcomes of finite value, or an *input.Error, and never
// panic.
func FuzzTau2(f *testing.F) {
	f.Add([]byte(`{"timestamp": "t", "info": {}, "tasks": [], "simulation_index": [{"id": "s"}]}`))
	f.Add([]byte(`{"info": {"environment_info": {"tool_defs": {"n": {"name": "n", "params": {"required": ["a"]}}, "m": {"name": "m", "params": null}}}}, "simulations": [{"id": "s", "messages": []}]}`))
	f.Add([]byte(`{"simulations": [{"id": "s", "task_id": "t", "trial": 0, "reward_info": {"reward": 0.5}, "messages": [{"role": "assistant", "tool_calls": [{"id": "c", "name": "n", "arguments": {}, "requestor": "user"}]}, {"role": "tool", "id": "c", "content": "x", "error": true}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		err := eachTau2(context.Background(), "f.json", data, func(tr *Trace) error {
			if tr.ID == "" || tr.Line < 1 || (tr.Outcome.Known && (math.IsNaN(tr.Outcome.Value) || math.IsInf(tr.Outcome.Value, 0))) ||
				(!tr.Outcome.Known && tr.Outcome != Outcome{}) {
				t.Fatalf("trace %+v", tr)
			}
			return nil
		})
		checkFormatError(t, err, "f.json")
	})
}

// FuzzMiniSWE feeds arbitrary records to the decoder with mini-swe-agent trajectories as
// seeds: every text action it finds is a bash call answered at most once.
func FuzzMiniSWE(f *testing.F) {
	// small seeds of the three kinds of trajectories of testdata/formats/minisweagent
	f.Add([]byte("{\"trajectory_format\": \"mini-swe-agent-1\", \"instance_id\": \"a__b-1\", \"messages\": [{\"role\": \"assistant\", \"content\": \"T\\n```bash\\nls\\n```\", \"extra\": {\"response\": {\"usage\": {\"prompt_tokens\": 3, \"completion_tokens\": 1}}}}, {\"role\": \"user\", \"content\": \"<returncode>2</returncode>\\n<output>\\nx</output>\"}]}"))
	f.Add([]byte("{\"trajectory_format\": \"mini-swe-agent-1.1\", \"messages\": [{\"role\": \"assistant\", \"content\": \"```mswea_bash_command\\necho x\\n```\", \"tool_calls\": null, \"extra\": {\"actions\": [{\"command\": \"echo x\"}]}}, {\"role\": \"exit\", \"content\": \"diff\"}]}"))
	f.Add([]byte(`{"trajectory_format": "mini-swe-agent-1.1", "messages": [{"role": "assistant", "content": "", "tool_calls": [{"id": "t1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"ls\"}"}}]}, {"role": "tool", "tool_call_id": "t1", "content": "<returncode>1</returncode>"}, {"role": "assistant", "tool_calls": [{"id": "t2", "function": {"name": "bash", "arguments": "{}"}}]}, {"role": "exit", "content": ""}]}`))
	f.Add([]byte("{\"trajectory_format\": \"mini-swe-agent-1\", \"messages\": [{\"role\": \"assistant\", \"content\": \"```bash\\nls\\n```\"}, {\"role\": \"exit\", \"content\": \"<exception>x</exception>\"}]}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Decode(input.Record{File: "i.traj.json", Line: 1, Col: 1, Data: data})
		checkFormatError(t, err, "i.traj.json")
		if err != nil {
			return
		}
		answered := map[string]int{}
		for _, m := range tr.Messages {
			for _, r := range m.Results {
				if strings.HasPrefix(r.CallID, "action-") {
					answered[r.CallID]++
				}
			}
			for _, c := range m.Calls {
				if c.Tool == "" || (strings.HasPrefix(c.ID, "action-") && !c.ArgsValid) {
					t.Fatalf("call %+v", c)
				}
			}
		}
		for id, n := range answered {
			if n > 1 {
				t.Fatalf("%s answered %d times", id, n)
			}
		}
	})
}
