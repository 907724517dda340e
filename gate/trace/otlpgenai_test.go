package trace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOTLPGenAICurrent reads the current GenAI conventions' names as util-genai writes them
// (testdata/formats/README.md): messages on the spans with gen_ai.system_instructions and
// reasoning parts; messages only on gen_ai.client.inference.operation.details log records; a
// model call that raised (gen_ai.client.operation.exception) under a failed root, a crash;
// and the deprecated per-message log events. Counts as the files hold them.
func TestOTLPGenAICurrent(t *testing.T) {
	type want struct {
		summary string
		usage   Usage
		crash   string
	}
	for _, tc := range []struct {
		file string
		runs map[string]want
	}{{
		file: "otlp-genai-current.jsonl",
		runs: map[string]want{
			"4bf92f3577b34da6a3ce929d0e0e4736": {
				summary: "system You are a travel agent. Check the weather before you suggest a trip.\nuser Is it a good weekend for Lisbon?\n" +
					"assistant get_forecast:call_L1sb0n\ntool ->call_L1sb0n {\"sat\":\"sunny 24C\",\"sun\":\"cloudy 21C\"}\nassistant Yes: sunny on Saturday, cloudy on Sunday.\n",
				usage: Usage{Prompt: 310 + 395, Completion: 42 + 18, Total: 352 + 413, Recorded: true},
			},
			"5ce0a1b2c3d4e5f60718293a4b5c6d7e": {
				summary: "system You are a travel agent. Check the weather before you suggest a trip.\nuser And Atlantis?\n" +
					"assistant get_forecast:call_Rk7v2\ntool ->call_Rk7v2 failed(ValueError: unknown city Atlantis)\nassistant I cannot find Atlantis.\n",
				usage: Usage{Prompt: 120 + 160, Completion: 20 + 9, Total: 140 + 169, Recorded: true},
			},
			"60718293a4b5c6d7e8f90a1b2c3d4e5f": {crash: "openai.RateLimitError: Error code: 429 - rate limit reached"},
		},
	}, {
		file: "otlp-genai-events.jsonl",
		runs: map[string]want{
			"7a8b9c0d1e2f30415263748596a7b8c9": {
				summary: "system You are a travel agent.\nuser Weather in Porto?\nassistant get_forecast:call_Old1\ntool ->call_Old1 rain 15C\nassistant Rain in Porto, 15C.\n",
				usage:   Usage{Prompt: 88, Completion: 12, Total: 100, Recorded: true},
			},
		},
	}} {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "formats", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			traces, err := ReadOTLP(tc.file, data)
			if err != nil {
				t.Fatal(err)
			}
			if len(traces) != len(tc.runs) {
				t.Fatalf("%d traces, want %d", len(traces), len(tc.runs))
			}
			for _, tr := range traces {
				w, ok := tc.runs[tr.ID]
				if !ok {
					t.Fatalf("trace %s", tr.ID)
				}
				if got := summary(tr.Messages); got != w.summary {
					t.Errorf("%s:\n%s\nwant\n%s", tr.ID, got, w.summary)
				}
				if tr.Usage != w.usage || tr.Crash != w.crash {
					t.Errorf("%s: usage %+v crash %q; want %+v %q", tr.ID, tr.Usage, tr.Crash, w.usage, w.crash)
				}
			}
		})
	}
}

// TestOTLPGenAIEventErrors: a bad message in an event is an error naming the span and the
// event.
func TestOTLPGenAIEventErrors(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"a tool call without a name in a deprecated event",
			`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"t","spanId":"s","startTimeUnixNano":"1"}]}]}]}` + "\n" +
				`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"traceId":"t","spanId":"s","eventName":"gen_ai.assistant.message","body":{"kvlistValue":{"values":[{"key":"tool_calls","value":{"arrayValue":{"values":[{"kvlistValue":{"values":[{"key":"id","value":{"stringValue":"c"}}]}}]}}}]}}}]}]}]}`,
			`f.jsonl:1:44: span 0 (spanId s): log record 0 (gen_ai.assistant.message): tool_calls[0]: a tool call without a tool name ("name", or "function.name")`},
		{"system instructions that are not JSON",
			`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"t","spanId":"s","attributes":[{"key":"gen_ai.input.messages","value":{"stringValue":"[]"}},{"key":"gen_ai.system_instructions","value":{"stringValue":"[{\"type\":"}}]}]}]}]}`,
			`f.jsonl:1:44: attribute gen_ai.system_instructions of span 0 (spanId s): invalid JSON at line 1, column 10 of its text: unexpected end of input, expected a value`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadOTLP("f.jsonl", []byte(tc.data))
			if err == nil || err.Error() != tc.want {
				t.Errorf("error %v\nwant  %s", err, tc.want)
			}
		})
	}
}

// TestOTLPGenAIOnlyLogs: a file of details log records alone is read, each spanId a model
// call, and one with neither spans nor GenAI events is still refused.
func TestOTLPGenAIOnlyLogs(t *testing.T) {
	data := `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"traceId":"t","spanId":"s1","timeUnixNano":"2","eventName":"gen_ai.client.inference.operation.details","attributes":[` +
		`{"key":"gen_ai.input.messages","value":{"stringValue":"[{\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"content\":\"hi\"}]}]"}},` +
		`{"key":"gen_ai.output.messages","value":{"stringValue":"[{\"role\":\"assistant\",\"parts\":[{\"type\":\"text\",\"content\":\"hello\"}],\"finish_reason\":\"stop\"}]"}}]}]}]}]}`
	traces, err := ReadOTLP("f.jsonl", []byte(data))
	if err != nil || len(traces) != 1 || summary(traces[0].Messages) != "user hi\nassistant hello\n" {
		t.Fatalf("%v %v", traces, err)
	}
	_, err = ReadOTLP("f.jsonl", []byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"traceId":"t","eventName":"other"}]}]}]}`))
	if err == nil || !strings.Contains(err.Error(), "holds no spans") {
		t.Errorf("error %v", err)
	}
}
