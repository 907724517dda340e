package trace

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// readPhoenixData reads Phoenix span JSON, by trace id.
func readPhoenixData(t *testing.T, file string, data []byte) map[string]*Trace {
	t.Helper()
	out := map[string]*Trace{}
	if err := eachPhoenix(context.Background(), file, data, func(tr *Trace) error {
		out[tr.ID] = tr
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPhoenix reads the spans client.spans.get_spans returns (dumped as an array) and the
// REST API's page of the same spans: each run's turns, its tool call (failed in the second,
// by the span's exception event) and the LLM spans' token counts, as
// testdata/formats/phoenix/README.md counts them.
func TestPhoenix(t *testing.T) {
	want := map[string]struct {
		summary string
		usage   Usage
	}{
		"0af7651916cd43dd8448eb211c80319c": {
			"system You book restaurant tables.\nuser A table for two in Lyon tonight?\nassistant find_table:call_pX1\n" +
				"tool ->call_pX1 Le Bouchon, 20:30\nassistant Le Bouchon has a table at 20:30.\n",
			Usage{Prompt: 120 + 160, Completion: 25 + 14, Total: 145 + 174, Recorded: true},
		},
		"1bf7651916cd43dd8448eb211c80319d": {
			"system You book restaurant tables.\nuser And in Nice?\nassistant find_table:call_pX2\n" +
				"tool ->call_pX2 failed(ConnectionError: booking service unavailable)\nassistant Booking in Nice is unavailable right now.\n",
			Usage{Prompt: 110 + 150, Completion: 22 + 12, Total: 132 + 162, Recorded: true},
		},
	}
	for _, name := range []string{"spans.json", "api-page.json"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", "formats", "phoenix", name)
			if f, err := Sniff(path); err != nil || f != FormatPhoenix {
				t.Fatalf("recognised as %v, %v", f, err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			got := readPhoenixData(t, path, data)
			if len(got) != len(want) {
				t.Fatalf("%d runs", len(got))
			}
			for id, w := range want {
				tr := got[id]
				if tr == nil || summary(tr.Messages) != w.summary || tr.Usage != w.usage || tr.Shape != ShapePhoenix {
					t.Errorf("%s: %+v\n%s\nwant\n%s", id, tr.Usage, summary(tr.Messages), w.summary)
				}
			}
		})
	}
}

// TestPhoenixOrder: the spans in reverse order read the same runs.
func TestPhoenixOrder(t *testing.T) {
	path := filepath.Join("testdata", "formats", "phoenix", "spans.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var spans []json.RawMessage
	if err := json.Unmarshal(data, &spans); err != nil {
		t.Fatal(err)
	}
	slices.Reverse(spans)
	rev, _ := json.Marshal(spans)
	a, b := readPhoenixData(t, path, data), readPhoenixData(t, "reversed.json", rev)
	for id, ta := range a {
		if tb := b[id]; tb == nil || summary(ta.Messages) != summary(tb.Messages) || ta.Usage != tb.Usage {
			t.Errorf("%s: reversed spans read differently", id)
		}
	}
}

// TestPhoenixErrors: what is wrong is said with the file, line and column.
func TestPhoenixErrors(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"no trace id", `[{"context": {"span_id": "s"}, "span_kind": "LLM"}]`, `f.json:1:14: field "context.trace_id": a span without a trace id`},
		{"a bad time", `[{"context": {"trace_id": "t"}, "span_kind": "LLM", "start_time": "noon"}]`, `f.json:1:67: field "start_time": expected an ISO 8601 time, found "noon"`},
		{"attributes not an object", `[{"context": {"trace_id": "t"}, "span_kind": "LLM", "attributes": [1]}]`, `f.json:1:67: field "attributes": expected an object, found an array`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := eachPhoenix(context.Background(), "f.json", []byte(tc.data), func(*Trace) error { return nil })
			if err == nil || err.Error() != tc.want {
				t.Errorf("error %v\nwant  %s", err, tc.want)
			}
		})
	}
}

// FuzzPhoenix feeds arbitrary bytes to the reader of Phoenix span JSON: runs with ids, or an
// *input.Error naming the file, never a panic.
func FuzzPhoenix(f *testing.F) {
	f.Add([]byte(`{"data":[{"context":{"trace_id":"t","span_id":"a"},"span_kind":"LLM","start_time":"2026-01-01T00:00:00Z","attributes":{"llm":{"input_messages":[{"message":{"role":"user","content":"q"}}]},"llm.output_messages.0.message.role":"assistant","llm.token_count.prompt":3}},` +
		`{"context":{"trace_id":"t","span_id":"b"},"parent_id":"a","span_kind":"TOOL","status_code":"ERROR","attributes":{"tool.name":"f"},"events":[{"name":"exception","attributes":{"exception.message":"x"}}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		err := eachPhoenix(context.Background(), "f.json", data, func(tr *Trace) error {
			if tr.ID == "" || tr.Shape != ShapePhoenix {
				t.Fatalf("trace %+v", tr)
			}
			return nil
		})
		checkFormatError(t, err, "f.json")
	})
}
