package trace

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/agentgate/agentgate/gate/input"
)

// fileCounts is what the tests count in a trace read from one of the new formats.
type fileCounts struct {
	counts
	task     string
	trial    int
	hasTrial bool
	usage    Usage
}

func readFile(t *testing.T, path string) []*Trace {
	t.Helper()
	var out []*Trace
	if err := EachFile(context.Background(), path, func(tr *Trace) error { out = append(out, tr); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func checkCounts(t *testing.T, path string, want []fileCounts) []*Trace {
	t.Helper()
	got := readFile(t, path)
	if len(got) != len(want) {
		t.Fatalf("%s: %d traces, want %d", path, len(got), len(want))
	}
	for i, tr := range got {
		c := fileCounts{countTrace(tr), tr.Task, tr.Trial, tr.HasTrial, tr.Usage}
		if c != want[i] {
			t.Errorf("%s: trace %d:\n got %+v\nwant %+v", path, i, c, want[i])
		}
	}
	return got
}

// TestOTLPDialects reads the hand-written OTLP/JSON files of testdata/formats, one per dialect
// (written by a script from the attribute names of docs/design.md#file-layouts-and-formats). Each has a run with a tool call
// that succeeds, one that fails, and usage; the expected figures follow from how the files
// were written: the input messages a model span repeats are not counted twice, and an agent
// span's usage that totals its model calls is left out.
func TestOTLPDialects(t *testing.T) {
	dir := filepath.Join("testdata", "formats")
	cases := []struct {
		file string
		want []fileCounts
	}{
		{"otlp-genai.json", []fileCounts{
			// system, user, assistant (2 calls), 2 tool results (book_flight failed), assistant
			{counts: counts{"5b8efff798038103d269b633813fc60c", 6, 2, 2, 1}, usage: Usage{300, 80, 380, true}},
			// no message content: the failing execute_tool span makes a call and its result
			{counts: counts{"6c0000000000000000000000000000aa", 2, 1, 1, 1}, usage: Usage{7, 3, 10, true}},
		}},
		{"otlp-openinference.jsonl", []fileCounts{
			{counts: counts{"0af7651916cd43dd8448eb211c80319c", 5, 2, 2, 1}, usage: Usage{130, 22, 152, true}},
			{counts: counts{"1bf7651916cd43dd8448eb211c80319d", 2, 0, 0, 0}, usage: Usage{3, 2, 5, true}},
		}},
		{"otlp-openllmetry.json", []fileCounts{
			{counts: counts{"2cf7651916cd43dd8448eb211c80319e", 6, 2, 2, 1}, usage: Usage{110, 20, 130, true}},
		}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			got := checkCounts(t, filepath.Join(dir, c.file), c.want)
			for _, tr := range got {
				if tr.Shape != ShapeOTLP || tr.HasTrial || tr.Task != "" {
					t.Errorf("%s: shape %q task %q trial %v", tr.ID, tr.Shape, tr.Task, tr.HasTrial)
				}
			}
		})
	}
}

// TestOTLPDetails checks what the counts do not show: message order, texts, arguments, the
// failure's error text and which result it marks.
func TestOTLPDetails(t *testing.T) {
	got := readFile(t, filepath.Join("testdata", "formats", "otlp-genai.json"))
	run := got[0]
	var roles []string
	for _, m := range run.Messages {
		roles = append(roles, m.Role)
	}
	if s := strings.Join(roles, ","); s != "system,user,assistant,tool,tool,assistant" {
		t.Errorf("roles %s", s)
	}
	if run.Line != 20 || run.File != filepath.Join("testdata", "formats", "otlp-genai.json") {
		t.Errorf("first span at %s:%d, want line 20", run.File, run.Line)
	}
	calls := run.Messages[2].Calls
	if string(calls[0].Args) != `{"city":"Paris"}` || !calls[0].ArgsValid || calls[0].ID != "call_1" ||
		string(calls[1].Args) != `{"flight": "AF12"}` || !calls[1].ArgsValid || calls[1].Tool != "book_flight" {
		t.Errorf("calls %+v", calls)
	}
	r1, r2 := run.Messages[3].Results[0], run.Messages[4].Results[0]
	if !r1.Success || r1.CallID != "call_1" || r1.Content != `{"temp_c": 18}` {
		t.Errorf("result 1 %+v", r1)
	}
	if r2.Success || r2.CallID != "call_2" || r2.Error != "PaymentError: payment declined" { // error.type, then what the status says
		t.Errorf("result 2 %+v", r2)
	}
	if run.Messages[5].Content != "18C in Paris; the booking failed." || run.Messages[2].Content != "Checking." {
		t.Errorf("texts %q %q", run.Messages[5].Content, run.Messages[2].Content)
	}
	r := got[1].Messages[1].Results[0]
	if r.Success || r.Error != "TimeoutError: search timed out" || got[1].Messages[0].Calls[0].Tool != "search" {
		t.Errorf("second run %+v", got[1].Messages)
	}
	oi := readFile(t, filepath.Join("testdata", "formats", "otlp-openinference.jsonl"))
	if oi[0].Line != 1 || oi[1].Line != 2 {
		t.Errorf("lines %d %d", oi[0].Line, oi[1].Line)
	}
	if m := oi[0].Messages[4]; m.Content != "Refunded; the email failed." {
		t.Errorf("content parts: %q", m.Content)
	}
	if r := oi[0].Messages[3].Results[0]; r.Success || r.CallID != "tc_2" || r.Error != "SMTPError: smtp unavailable" {
		t.Errorf("send_email %+v", r)
	}
	ol := readFile(t, filepath.Join("testdata", "formats", "otlp-openllmetry.json"))
	if r := ol[0].Messages[4].Results[0]; r.Success || r.CallID != "t_b" || r.Error != "PermissionError: not allowed" {
		t.Errorf("close_ticket %+v", r)
	}
}

// TestInspect reads the generated Inspect log, whole (.json) and as an archive whose first
// sample is deflated and second compressed with zstd (.eval). The figures were counted by
// python3 (json, zipfile, and the zstd command for method 93): messages, tool_calls, role
// "tool" messages, those with an error, and the model_usage of the eval's own model
// (openai/gpt-4o: 120 + 30; the sample's openai/gpt-4o-mini, 10 + 5, is another model's).
func TestInspect(t *testing.T) {
	s1e1 := fileCounts{counts{"s1#1", 6, 2, 2, 1}, "s1", 1, true, Usage{120, 30, 150, true}}
	s1e2 := fileCounts{counts{"s1#2", 6, 2, 2, 0}, "s1", 2, true, Usage{100, 20, 120, true}}
	s2 := fileCounts{counts{"2#1", 6, 2, 2, 1}, "2", 1, true, Usage{}}
	dir := filepath.Join("testdata", "formats")
	got := checkCounts(t, filepath.Join(dir, "inspect-tools.json"), []fileCounts{s1e1, s1e2, s2})
	ev := checkCounts(t, filepath.Join(dir, "inspect-tools.eval"), []fileCounts{s1e1, s1e2})
	for _, tr := range []*Trace{got[0], ev[0], ev[1]} {
		m := tr.Messages
		if m[0].Content != "You are a careful engineer." || m[1].Content != "Find the file and run the tests." ||
			m[2].Content != "Listing." || string(m[2].Calls[1].ExpandedArgs(-1)) != `{"code":"You are a careful engineer."}` ||
			string(m[2].Calls[1].Args) != `{"code":"attachment://3f2a9c1d0b7e4a5f8c6d2e1f0a9b8c7d"}` ||
			string(m[2].Calls[0].Args) != `{"cmd":"ls"}` || m[3].Results[0].CallID != "call_ls" {
			t.Errorf("%s: messages %+v", tr.ID, m)
		}
	}
	if r := got[0].Messages[4].Results[0]; r.Success || r.Error != "timeout: Command timed out before completing." {
		t.Errorf("error result %+v", r)
	}
	if got[0].Line != 21 || ev[1].File != filepath.Join(dir, "inspect-tools.eval")+"[samples/s1_epoch_2.json]" {
		t.Errorf("places %s:%d, %s", got[0].File, got[0].Line, ev[1].File)
	}
}

// TestInspectReference reads the real Inspect logs of the reference data. The figures were
// counted by python3 as in TestInspect: one sample, epoch 1, three messages (system, user,
// assistant) without tool calls; only the read_sample log records usage (gemma3: 66 in,
// 3 out, 69 total); the others' model_usage is absent or {}.
func TestInspectReference(t *testing.T) {
	dir := filepath.Join(referenceData(t), "formats")
	plain := fileCounts{counts{"1#1", 3, 0, 0, 0}, "1", 1, true, Usage{}}
	checkCounts(t, filepath.Join(dir, "inspect-log_formats.json"), []fileCounts{plain})
	checkCounts(t, filepath.Join(dir, "inspect-log_formats.eval"), []fileCounts{plain})
	withUsage := plain
	withUsage.usage = Usage{66, 3, 69, true}
	checkCounts(t, filepath.Join(dir, "inspect-log_read_sample.eval"), []fileCounts{withUsage})
}

// TestGenAISchemaParts checks that the message parts the GenAI JSON Schemas of the reference
// data define are the ones the reader knows: text, tool_call (id, name, arguments) and
// tool_call_response (id, response).
func TestGenAISchemaParts(t *testing.T) {
	dir := filepath.Join(referenceData(t), "formats")
	for _, f := range []string{"otel-gen-ai-input-messages.json", "otel-gen-ai-output-messages.json"} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		s := string(data)
		for _, want := range []string{`"TextPart"`, `"ToolCallRequestPart"`, `"ToolCallResponsePart"`, `"const": "tool_call"`, `"const": "tool_call_response"`, `"arguments"`, `"response"`} {
			if !strings.Contains(s, want) {
				t.Errorf("%s: no %s", f, want)
			}
		}
	}
}

// TestGzipOTLP reads an OTLP file compressed with gzip, with a BOM: the same runs.
func TestGzipOTLP(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "formats", "otlp-openinference.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(append([]byte("\xef\xbb\xbf"), data...))
	zw.Close()
	p := filepath.Join(t.TempDir(), "spans.json.gz")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if f, err := Sniff(p); f != FormatOTLP || err != nil {
		t.Fatalf("sniff %v %v", f, err)
	}
	got := readFile(t, p)
	if len(got) != 2 || got[0].NumCalls() != 2 || got[1].Line != 2 {
		t.Errorf("%d traces", len(got))
	}
}

func TestSniff(t *testing.T) {
	dir := filepath.Join("testdata", "formats")
	cases := map[string]Format{
		"otlp-genai.json":          FormatOTLP,
		"otlp-openinference.jsonl": FormatOTLP,
		"otlp-openllmetry.json":    FormatOTLP,
		"inspect-tools.json":       FormatInspectJSON,
		"inspect-tools.eval":       FormatInspectEval,
	}
	for f, want := range cases {
		if got, err := Sniff(filepath.Join(dir, f)); err != nil || got != want {
			t.Errorf("%s: %v %v, want %v", f, got, err, want)
		}
	}
	tmp := t.TempDir()
	for name, text := range map[string]string{
		"a.jsonl": `{"messages": []}` + "\n",
		"b.json":  `[{"messages": []}]`,
		"c.json":  `{"id": "x", "eval": 1, "messages": []}`, // "eval" alone is no Inspect log
		"d.json":  `{not json`,
		"e.json":  `{"messages": [{"resourceSpans": 1, "eval": {}, "samples": []}], "x": "}\"resourceSpans\""}`,
		"f.json":  `{"id": "a"} {"resourceSpans": []}`, // only the first value counts
	} {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := Sniff(p); err != nil || got != FormatRecords {
			t.Errorf("%s: %v %v, want records", name, got, err)
		}
	}
}

// writeZip writes a zip with the given members (name, method, content) to a temporary file.
func writeZip(t *testing.T, members ...zipMember) string {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	zw.RegisterCompressor(zipMethodZstd, func(w io.Writer) (io.WriteCloser, error) { return zstd.NewWriter(w) })
	for _, m := range members {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: m.name, Method: m.method})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(m.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "log.eval")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

type zipMember struct {
	name   string
	method uint16
	data   []byte
}

// TestZipBomb checks that a member larger than the limit once decompressed is an error
// naming it, deflated or zstd, however small it is compressed.
func TestZipBomb(t *testing.T) {
	defer func(old int64) { maxDocument = old }(maxDocument)
	maxDocument = 1 << 20
	zeros := make([]byte, 4<<20)
	for _, method := range []uint16{zip.Deflate, zipMethodZstd} {
		p := writeZip(t, zipMember{"samples/1_epoch_1.json", method, zeros})
		err := EachFile(context.Background(), p, func(*Trace) error { return nil })
		want := p + "[samples/1_epoch_1.json]: larger than 1 MiB after decompression: too large to read"
		if err == nil || err.Error() != want || !input.IsInputError(err) {
			t.Errorf("method %d: %v, want %s", method, err, want)
		}
	}
}

// TestFormatErrors checks that bad input of each kind is an *input.Error naming the file, the
// line and the span, sample or zip entry.
func TestFormatErrors(t *testing.T) {
	tmp := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const sp = `{"resourceSpans":[{"scopeSpans":[{"spans":[`
	const end = `]}]}]}`
	cases := []struct{ name, text, want string }{
		{"syntax.jsonl", sp + `{"traceId":"t","spanId":"s"}` + end + "\n" + sp + `{"traceId":}` + end + "\n",
			`syntax.jsonl:2:55: invalid JSON: expected a value, found '}'`},
		{"deep.json", `{"resourceSpans":` + strings.Repeat("[", 512) + strings.Repeat("]", 512) + `}`,
			`deep.json:1:529: invalid JSON: nesting deeper than 512 levels`},
		{"notrace.json", sp + `{"traceId":"t"},` + "\n" + `{"spanId":"s2"}` + end,
			`notrace.json:2:1: span 1 (spanId s2): has no traceId`},
		{"intvalue.json", sp + `{"traceId":"t","attributes":[{"key":"gen_ai.usage.input_tokens","value":{"intValue":"x"}}]}` + end,
			`intvalue.json:1:44: span 0: attribute gen_ai.usage.input_tokens: intValue must be an integer, got "x"`},
		{"tokens.json", sp + `{"traceId":"t","attributes":[{"key":"gen_ai.usage.input_tokens","value":{"intValue":"-3"}}]}` + end,
			`tokens.json:1:44: attribute gen_ai.usage.input_tokens of span 0: must be a non-negative integer, got -3`},
		{"messages.json", sp + `{"traceId":"t"},{"traceId":"t","spanId":"ab","attributes":[{"key":"gen_ai.input.messages","value":{"stringValue":"[{\"role\": \"user\",\n \"parts\": [}]"}}]}` + end,
			`messages.json:1:60: attribute gen_ai.input.messages of span 1 (spanId ab): invalid JSON at line 2, column 12 of its text: expected a value, found '}'`},
		{"msgtype.json", sp + `{"traceId":"t","spanId":"ab","attributes":[{"key":"gen_ai.input.messages","value":{"stringValue":"[{\"role\": \"user\"},\n {\"role\": [1]}]"}}]}` + end,
			`msgtype.json:1:44: attribute gen_ai.input.messages of span 0 (spanId ab): at line 2, column 11 of its text: field "[1].role": expected a string, found an array`},
		{"noname.json", sp + `{"traceId":"t","attributes":[{"key":"openinference.span.kind","value":{"stringValue":"TOOL"}}]}` + end,
			`noname.json:1:44: span 0: is a tool span without a tool name (tool.name)`},
		{"calls.json", sp + `{"traceId":"t","attributes":[{"key":"llm.output_messages.0.message.tool_calls.1.tool_call.id","value":{"stringValue":"c"}}]}` + end,
			`calls.json:1:44: attribute llm.output_messages.0.message.tool_calls.1 of span 0: a tool call without a name (tool_call.function.name)`},
		{"status.json", sp + `{"traceId":"t","startTimeUnixNano":"soon"}` + end,
			`status.json:1:44: span 0: startTimeUnixNano must be a non-negative integer, got "soon"`},
		{"empty.json", `{"resourceSpans":[]}`, `empty.json: the OTLP file holds no spans`},
		{"attach.json", `{"version":2,"eval":{},"samples":[` + "\n" + `{"id":1,"epoch":1,"messages":[{"role":"user","content":"attachment://nope"}]}]}`,
			`attach.json:2:1: samples[0]: messages[0]: attachment://nope is not among the sample's attachments`},
		{"epoch.json", `{"version":2,"eval":{},"samples":[{"id":"a","epoch":"x","messages":[]}]}`,
			`epoch.json:1:35: samples[0]: epoch must be a non-negative integer, got x`},
		{"type.json", `{"version":2,"eval":{},"samples":[{"id":"a","messages":{}}]}`,
			`type.json:1:56: field "samples[0].messages": expected an array, found an object`},
		{"nosamples.json", `{"version":2,"eval":{},"status":"started"}`,
			`nosamples.json: the Inspect log holds no samples (was it written with log_samples off?)`},
	}
	for _, c := range cases {
		err := EachFile(context.Background(), write(c.name, c.text), func(*Trace) error { return nil })
		var ie *input.Error
		if !errors.As(err, &ie) || strings.TrimPrefix(err.Error(), tmp+string(filepath.Separator)) != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.name, err, c.want)
		}
	}
	// a bad member of a .eval archive is named as file[member]:line:col
	p := writeZip(t, zipMember{"header.json", zip.Deflate, []byte(`{}`)},
		zipMember{"samples/a_epoch_1.json", zipMethodZstd, []byte("{\"id\": \"a\",\n \"epoch\": 1, \"messages\": [{\"role\": \"tool\", \"tool_calls\": 3}]}")})
	err := EachFile(context.Background(), p, func(*Trace) error { return nil })
	want := p + `[samples/a_epoch_1.json]:2:58: field "messages[0].tool_calls": expected an array, found a number`
	if err == nil || err.Error() != want {
		t.Errorf("eval member:\n got %v\nwant %s", err, want)
	}
	p = writeZip(t, zipMember{"header.json", zip.Deflate, []byte(`{}`)})
	if err := EachFile(context.Background(), p, func(*Trace) error { return nil }); err == nil || err.Error() != p+": the .eval archive holds no samples/*.json member" {
		t.Errorf("no samples: %v", err)
	}
}
