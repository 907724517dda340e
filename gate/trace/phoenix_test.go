package trace

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// readPhoenixData reads Phoenix span JSON, by trace id.
func readPhoenixData(t *testing.T, file string, data []byte) map[string]*Trace {
	t.Helper()
	out := map[string]*Trace{}
	if err := eachPhoenix(context.Background(), file, data, Options{}, func(tr *Trace) error {
		out[tr.ID] = tr
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// phoenixRuns are the two runs of testdata/formats/phoenix, in every form there (README.md
// there counts them): their turns, and their LLM spans' token counts.
var phoenixRuns = map[string]struct {
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

// TestPhoenix reads the spans client.spans.get_spans returns (dumped as an array), the REST
// API's page of the same spans, and the spans dataframe written with to_json(orient="records")
// (lines, and an array with ISO dates): each run's turns, its tool call (failed in the second,
// by the span's exception event) and the LLM spans' token counts, as
// testdata/formats/phoenix/README.md counts them.
func TestPhoenix(t *testing.T) {
	for _, name := range []string{"spans.json", "api-page.json", "dataframe.jsonl", "dataframe.json", "download.jsonl"} {
		t.Run(name, func(t *testing.T) {
			path, data := formatFile(t, "phoenix/"+name, FormatPhoenix)
			checkPhoenixRuns(t, readPhoenixData(t, path, data), ShapePhoenix)
		})
	}
}

// formatFile reads testdata/formats/name (a path with slashes), which must be recognised as
// format.
func formatFile(t *testing.T, name string, format Format) (string, []byte) {
	t.Helper()
	path := filepath.Join("testdata", "formats", filepath.FromSlash(name))
	if f, err := Sniff(path); err != nil || f != format {
		t.Fatalf("recognised as %v, %v", f, err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, data
}

// checkPhoenixRuns checks that got holds phoenixRuns, of shape.
func checkPhoenixRuns(t *testing.T, got map[string]*Trace, shape Shape) {
	t.Helper()
	if len(got) != len(phoenixRuns) {
		t.Fatalf("%d runs", len(got))
	}
	for id, w := range phoenixRuns {
		tr := got[id]
		if tr == nil {
			t.Fatalf("no run %s", id)
		}
		if summary(tr.Messages) != w.summary || tr.Usage != w.usage || tr.Shape != shape {
			t.Errorf("%s: %s %+v\n%s\nwant\n%s", id, tr.Shape, tr.Usage, summary(tr.Messages), w.summary)
		}
	}
}

// TestPhoenixOTLP reads the spans of Phoenix's REST API in OTLP form (GET
// /v1/projects/{project}/spans/otlpv1: snake_case keys, every member present, null when
// unset) and the UI's "OTLP JSON" download of the same spans ({"resource_spans": …}): the
// same runs as Phoenix's own span JSON, read by the OTLP reader.
func TestPhoenixOTLP(t *testing.T) {
	for _, name := range []string{"otlpv1-page.json", "download-otlp.json"} {
		t.Run(name, func(t *testing.T) {
			path, data := formatFile(t, "phoenix/"+name, FormatOTLP)
			traces, err := ReadOTLP(path, data)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]*Trace{}
			for _, tr := range traces {
				got[tr.ID] = tr
			}
			checkPhoenixRuns(t, got, ShapeOTLP)
		})
	}
}

// TestPhoenixDownloadAnnotations: the UI's downloads carry the trace's annotations on its root
// span (trace.annotations.<i>.annotation.*): the one outcome-scorer names is the run's outcome,
// a score as a number (correctness 1 and 0), in the span JSON and the OTLP download alike;
// without outcome-scorer none, and a note names them; a name a trace lacks is an error listing
// its annotations; the files without annotations have no outcome.
func TestPhoenixDownloadAnnotations(t *testing.T) {
	read := func(name, scorer string) (map[string]*Trace, error) {
		path := filepath.Join("testdata", "formats", "phoenix", name)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]*Trace{}
		keep := func(tr *Trace) error { got[tr.ID] = tr; return nil }
		if name == "download-otlp.json" {
			traces, err := readOTLP(path, data, Options{OutcomeScorer: scorer})
			for _, tr := range traces {
				_ = keep(tr)
			}
			return got, err
		}
		return got, eachPhoenix(context.Background(), path, data, Options{OutcomeScorer: scorer}, keep)
	}
	const lyon, nice = "0af7651916cd43dd8448eb211c80319c", "1bf7651916cd43dd8448eb211c80319d"
	for _, name := range []string{"download.jsonl", "download-otlp.json"} {
		got, err := read(name, "correctness")
		if err != nil {
			t.Fatal(err)
		}
		for id, v := range map[string]float64{lyon: 1, nice: 0} {
			if want := (Outcome{Known: true, Value: v, Source: "annotations.correctness"}); got[id].Outcome != want {
				t.Errorf("%s %s: outcome %+v, want %+v", name, id, got[id].Outcome, want)
			}
		}
		got, err = read(name, "")
		if err != nil || got[nice].Outcome.Known || got[nice].Outcome.Note != `Phoenix annotations "correctness", "tone" not read as an outcome: name one with outcome-scorer` {
			t.Errorf("%s without outcome-scorer: %v, %+v", name, err, got[nice].Outcome)
		}
		if _, err = read(name, "tone"); err == nil || !strings.Contains(err.Error(), `trace "`+lyon+`" has no Phoenix annotation "tone" (outcome-scorer); its annotations are "correctness"`) {
			t.Errorf("%s tone: %v", name, err)
		}
	}
	got, err := read("spans.json", "correctness")
	if err != nil || got[lyon].Outcome != (Outcome{}) {
		t.Errorf("no annotations: %v %+v", err, got[lyon].Outcome)
	}
}

// A page of OTLP spans is told by its first span's trace_id and span_id, or, where the head of
// the file ends inside the span's attributes (Phoenix's OtlpSpan writes them first), by their
// {"key", "value"} elements; Phoenix's own span JSON, whose attributes are an object, is not one.
func TestPhoenixOTLPPage(t *testing.T) {
	long := `[{"attributes":[{"key":"llm.input_messages.0.message.content","value":{"array_value":null,"string_value":"` + strings.Repeat("x", 70<<10)
	for _, c := range []struct {
		v    string
		want bool
	}{
		{long, true},
		{`[{"trace_id":"t","span_id":"s"}]`, true},
		{`[{"attributes":{"llm.model_name":"m"},"context":{"trace_id":"t"}}]`, false},
		{`[{"id":"U3Bh","name":"n","context":{"trace_id":"t","span_id":"s"},"span_kind":"LLM"}]`, false},
		{`[{"attributes":[1]}]`, false},
		{`{"attributes":[{"key":"a"}]}`, false},
		{`[`, false},
	} {
		if got := phoenixOTLPPage([]byte(c.v)); got != c.want {
			t.Errorf("phoenixOTLPPage(%.60s) = %v, want %v", c.v, got, c.want)
		}
	}
}

// A dataframe's times are read in the unit to_json wrote them in, told by size; ISO times as
// the API, to_json(date_format="iso") and str() of a Timestamp write them.
func TestPhoenixTime(t *testing.T) {
	const want = 1793696411300000000 // 2026-11-03T09:00:11.3Z
	for _, raw := range []string{`1793696411.3`, `1793696411300`, `1793696411300000`, `1793696411300000000`,
		`"2026-11-03T09:00:11.300000+00:00"`, `"2026-11-03T09:00:11.300Z"`, `"2026-11-03 09:00:11.300000+00:00"`} {
		got, err := phoenixTime(json.RawMessage(raw))
		if err != nil || got/1000 != want/1000 {
			t.Errorf("phoenixTime(%s) = %d, %v; want %d", raw, got, err, want)
		}
	}
	for _, raw := range []string{`-1`, `"noon"`, `[1]`} {
		if _, err := phoenixTime(json.RawMessage(raw)); err == nil {
			t.Errorf("phoenixTime(%s): no error", raw)
		}
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
		{"an annotation given as a span", `[{"id": "a", "name": "correctness", "annotator_kind": "LLM", "result": {"score": 1}, "span_id": "s"}]`,
			`f.json:1:2: a Phoenix annotation, not a span: give the annotations as outcomes (with outcome-scorer naming the annotation), and the spans as traces`},
		{"a dataframe row's time", `{"span_kind": "LLM", "context.trace_id": "t", "start_time": true}`, `f.json:1:61: field "start_time": expected an ISO 8601 time or a number of milliseconds, found true`},
		{"a dataframe column nested too deep", `{"span_kind": "LLM", "context.trace_id": "t", "attributes.x": ` + strings.Repeat(`{"a":`, 70) + `1` + strings.Repeat(`}`, 70) + `}`,
			`f.json:1:63: field "attributes.x": values nested deeper than 64 levels`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := eachPhoenix(context.Background(), "f.json", []byte(tc.data), Options{}, func(*Trace) error { return nil })
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
	// a row of the spans dataframe, as to_json(orient="records", lines=True) writes it
	f.Add([]byte(`{"name":"c","span_kind":"LLM","parent_id":null,"start_time":1793696411300,"status_code":"OK","events":[],"context.span_id":"a","context.trace_id":"t","attributes.llm.token_count.prompt":150.0,"attributes.llm.input_messages":[{"message.role":"user","message.content":"q"},{"message.tool_calls":[{"tool_call.function.name":"f","tool_call.id":"c1"}],"message.role":"assistant"}],"attributes.llm.tools":[{"tool.json_schema":"{\"name\":\"f\",\"parameters\":{}}"}],"attributes.tool.name":null}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		err := eachPhoenix(context.Background(), "f.json", data, Options{}, func(tr *Trace) error {
			if tr.ID == "" || tr.Shape != ShapePhoenix {
				t.Fatalf("trace %+v", tr)
			}
			return nil
		})
		checkFormatError(t, err, "f.json")
	})
}
