package reliability

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/agentgate/agentgate/gate/trace"
	"github.com/agentgate/agentgate/internal/refdata"
)

// The unit tests build traces themselves, so that they test this package and not the readers
// of gate/trace (which the golden and real-run tests do use). readRS1 understands just enough
// of an RS-1 ExecutionTrace: arguments that are a JSON string are JSON text when they parse
// (else raw text), as the readers treat them.
func readRS1(t testing.TB, path string) *trace.Trace {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		TraceID  string `json:"trace_id"`
		Messages []struct {
			Role      string  `json:"role"`
			Content   *string `json:"content"`
			ToolCalls []struct {
				ToolName  string          `json:"tool_name"`
				Arguments json.RawMessage `json:"arguments"`
				CallID    *string         `json:"call_id"`
			} `json:"tool_calls"`
			ToolResults []struct {
				CallID  *string `json:"call_id"`
				Success bool    `json:"success"`
			} `json:"tool_results"`
		} `json:"messages"`
		TokenUsage *struct {
			Prompt     int64 `json:"prompt_tokens"`
			Completion int64 `json:"completion_tokens"`
			Total      int64 `json:"total_tokens"`
		} `json:"token_usage"`
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	tr := &trace.Trace{ID: rec.TraceID, File: path, Line: 1, Shape: trace.ShapeRS1}
	for _, m := range rec.Messages {
		msg := trace.Message{Role: m.Role}
		if m.Content != nil {
			msg.Content = *m.Content
		}
		for _, c := range m.ToolCalls {
			call := trace.Call{Tool: c.ToolName, ArgsValid: true}
			if c.CallID != nil {
				call.ID, call.HasID = *c.CallID, true
			}
			switch {
			case len(c.Arguments) == 0 || string(c.Arguments) == "null":
			case c.Arguments[0] == '"':
				var s string
				_ = json.Unmarshal(c.Arguments, &s)
				call.Args, call.ArgsValid = []byte(s), json.Valid([]byte(s))
			default:
				call.Args = c.Arguments
			}
			msg.Calls = append(msg.Calls, call)
		}
		for _, r := range m.ToolResults {
			res := trace.Result{Success: r.Success}
			if r.CallID != nil {
				res.CallID, res.HasID = *r.CallID, true
			}
			msg.Results = append(msg.Results, res)
		}
		tr.Messages = append(tr.Messages, msg)
	}
	if u := rec.TokenUsage; u != nil {
		tr.Usage = trace.Usage{Prompt: u.Prompt, Completion: u.Completion, Total: u.Total, Recorded: true}
	}
	return tr
}

// sharedData returns the shared reference-data folder beside the clone, or skips the test.
func sharedData(t testing.TB, sub string) string {
	t.Helper()
	return refdata.Path(t, sub)
}

// near reports whether a and b agree to 1e-9, the contract for the reference profile.
func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9 }

// scores returns the four signals in order.
func scores(r Result) [4]float64 {
	return [4]float64{r.Signals[Hallucination], r.Signals[Loop], r.Signals[ToolMisuse], r.Signals[Cost]}
}

// Builders for hand-made traces.

func msg(role, content string) trace.Message { return trace.Message{Role: role, Content: content} }

func withCalls(m trace.Message, calls ...trace.Call) trace.Message {
	m.Calls = append(m.Calls, calls...)
	return m
}

func withResults(m trace.Message, results ...trace.Result) trace.Message {
	m.Results = append(m.Results, results...)
	return m
}

func call(id, tool, args string) trace.Call {
	c := trace.Call{ID: id, HasID: id != "", Tool: tool, ArgsValid: true}
	if args != "" {
		c.Args = []byte(args)
		c.ArgsValid = json.Valid(c.Args)
	}
	return c
}

func ok(id string) trace.Result { return trace.Result{CallID: id, HasID: id != "", Success: true} }
func fail(id string) trace.Result {
	return trace.Result{CallID: id, HasID: id != "", Error: "Error: failed"}
}

// goldenTraces reads a file of reference data with the gate/trace readers.
func goldenTraces(t testing.TB, path string) []*trace.Trace {
	t.Helper()
	var out []*trace.Trace
	if err := trace.Each(path, func(tr *trace.Trace) error {
		out = append(out, tr)
		return nil
	}); err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	if len(out) == 0 {
		t.Fatalf("%s holds no traces", path)
	}
	return out
}

// problematicTrace has the structure of RS-1's sample_trace_problematic.json: a claim of a call
// never made, five identical `process` calls with empty arguments of which two fail and three
// are never answered, a phantom result, and 8000 tokens over 5 messages.
func problematicTrace() *trace.Trace {
	return &trace.Trace{ID: "problematic", Messages: []trace.Message{
		msg("user", "Please fetch some data"),
		msg("assistant", "I called the fetch_data tool and got the results"),
		withCalls(msg("assistant", "Let me process the data"),
			call("call-1", "process", "{}"), call("call-2", "process", "{}"),
			call("call-3", "process", "{}"), call("call-4", "process", "{}")),
		withResults(msg("tool", "Results"), fail("call-1"), fail("call-2"), ok("call-99")),
		withCalls(msg("assistant", "Processing the data again"), call("call-5", "process", "{}")),
	}, Usage: trace.Usage{Prompt: 5000, Completion: 3000, Total: 8000, Recorded: true}}
}
