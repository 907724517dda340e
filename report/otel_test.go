package report

import (
	"bufio"
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/verdict"
)

// otelEvent is one decoded log record: its severity, event name and attributes as text.
type otelEvent struct {
	severity string
	event    string
	attrs    map[string]string
	ids      string // "traceId/spanId" in hex, "/" when neither is set
}

// readOTel decodes every line of doc with the collector's own OTLP/JSON unmarshaler and checks
// the resource and scope of each; it returns the records in order and the number of lines.
func readOTel(t *testing.T, doc []byte, version string) ([]otelEvent, int) {
	t.Helper()
	var out []otelEvent
	lines := 0
	sc := bufio.NewScanner(bytes.NewReader(doc))
	sc.Buffer(nil, 4<<20)
	var u plog.JSONUnmarshaler
	for sc.Scan() {
		lines++
		if len(sc.Bytes()) > otelLineBytes+1024 {
			t.Errorf("line %d is %d bytes", lines, len(sc.Bytes()))
		}
		logs, err := u.UnmarshalLogs(sc.Bytes())
		if err != nil {
			t.Fatalf("line %d: plog: %v", lines, err)
		}
		if logs.ResourceLogs().Len() != 1 {
			t.Fatalf("line %d: %d resources", lines, logs.ResourceLogs().Len())
		}
		rl := logs.ResourceLogs().At(0)
		res := attrText(rl.Resource().Attributes())
		wantRes := map[string]string{"service.name": "Str:agentgate"}
		if version != "" {
			wantRes["service.version"] = "Str:" + version
		}
		if fmt.Sprint(res) != fmt.Sprint(wantRes) || rl.SchemaUrl() != OTelSchemaURL {
			t.Errorf("line %d: resource %v schema %q", lines, res, rl.SchemaUrl())
		}
		sl := rl.ScopeLogs().At(0)
		if sl.Scope().Name() != "agentgate" || sl.Scope().Version() != version || sl.SchemaUrl() != OTelSchemaURL {
			t.Errorf("line %d: scope %q %q schema %q", lines, sl.Scope().Name(), sl.Scope().Version(), sl.SchemaUrl())
		}
		for i := 0; i < sl.LogRecords().Len(); i++ {
			lr := sl.LogRecords().At(i)
			if lr.Timestamp() != 0 || lr.ObservedTimestamp() != 0 {
				t.Errorf("record %d: time %v, observed %v", len(out), lr.Timestamp(), lr.ObservedTimestamp())
			}
			ids := "/"
			if !lr.TraceID().IsEmpty() {
				ids = lr.TraceID().String() + "/"
			}
			if !lr.SpanID().IsEmpty() {
				ids += lr.SpanID().String()
			}
			out = append(out, otelEvent{
				severity: fmt.Sprintf("%d %s", lr.SeverityNumber(), lr.SeverityText()),
				event:    lr.EventName(),
				attrs:    attrText(lr.Attributes()),
				ids:      ids,
			})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out, lines
}

// attrText is a map's attributes as "type:value" text (Str, Double, Int).
func attrText(m pcommon.Map) map[string]string {
	out := map[string]string{}
	for k, v := range m.All() {
		out[k] = v.Type().String() + ":" + v.AsString()
	}
	return out
}

func otelOf(t *testing.T, r *gate.Result) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := OTel(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestOTelFailing(t *testing.T) {
	r := failingResult()
	r.Source.Version = "1.4.0"
	doc := otelOf(t, r)
	events, lines := readOTel(t, doc, "1.4.0")
	if lines != 1 || len(events) != 12+12 {
		t.Fatalf("%d lines, %d events; want 1 line, 24 events (12 traces, 12 tasks)", lines, len(events))
	}
	for _, e := range events {
		if e.event != "gen_ai.evaluation.result" {
			t.Errorf("event name %q", e.event)
		}
	}
	want := []struct {
		i        int
		severity string
		attrs    map[string]string
	}{
		{0, "17 ERROR", map[string]string{
			"gen_ai.evaluation.name":        "Str:agentgate.reliability",
			"gen_ai.evaluation.score.value": "Double:0.6925",
			"gen_ai.evaluation.score.label": "Str:fail",
			"gen_ai.evaluation.explanation": "Str:loop 1.0000: `search_orders` called 12 times with identical arguments at messages 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26",
			"agentgate.trace.id":            "Str:refund-017",
			"agentgate.record.file":         "Str:evals/refund.jsonl",
			"agentgate.record.line":         "Int:17",
		}},
		{2, "17 ERROR", map[string]string{
			"gen_ai.evaluation.name":        "Str:agentgate.reliability",
			"gen_ai.evaluation.score.value": "Double:0.8125",
			"gen_ai.evaluation.score.label": "Str:fail",
			"gen_ai.evaluation.explanation": "Str:hallucination 1.0000: result for call `x|y` (id <b>z</b>) matches no call; cc @octocat, see #12",
			"agentgate.trace.id":            "Str:a|b`<img src=x>@octocat next",
			"agentgate.record.file":         "Str:evals/<script>alert(1)</script>.jsonl",
			"agentgate.record.line":         "Int:9",
		}},
		{3, "13 WARN", map[string]string{
			"gen_ai.evaluation.name":        "Str:agentgate.reliability",
			"gen_ai.evaluation.score.value": "Double:0.4175",
			"gen_ai.evaluation.score.label": "Str:warn",
			"gen_ai.evaluation.explanation": "Str:cost 0.9500: 148,000 tokens over 40 messages (3,700 per message)",
			"agentgate.trace.id":            "Str:search-044",
			"agentgate.record.file":         "Str:evals/search.jsonl",
			"agentgate.record.line":         "Int:44",
		}},
		{5, "9 INFO", map[string]string{
			"gen_ai.evaluation.name":        "Str:agentgate.reliability",
			"gen_ai.evaluation.score.value": "Double:0.05",
			"gen_ai.evaluation.score.label": "Str:pass",
			"gen_ai.evaluation.explanation": "Str:cost 0.3333: 12,400 tokens over 9 messages",
			"agentgate.trace.id":            "Str:checkout-000",
			"agentgate.record.file":         "Str:evals/checkout.jsonl",
			"agentgate.record.line":         "Int:1",
		}},
		{15, "9 INFO", map[string]string{
			"gen_ai.evaluation.name":        "Str:agentgate.coherence",
			"gen_ai.evaluation.score.value": "Double:0",
			"gen_ai.evaluation.explanation": "Str:the action is empty: scored as incoherent",
			"agentgate.task.id":             "Str:task-04",
			"agentgate.record.file":         "Str:evals/tasks.jsonl",
			"agentgate.record.line":         "Int:4",
		}},
	}
	for _, w := range want {
		e := events[w.i]
		if e.severity != w.severity || fmt.Sprint(e.attrs) != fmt.Sprint(w.attrs) {
			t.Errorf("event %d: %s %v\nwant %s %v", w.i, e.severity, e.attrs, w.severity, w.attrs)
		}
	}
	if !bytes.Equal(otelOf(t, r), doc) {
		t.Error("two runs over the same result gave different bytes")
	}
	// The file holds no raw control character and no HTML-escaped text: encoding/json escapes
	// what JSON needs, and the text was flattened before.
	if bytes.ContainsAny(doc[:len(doc)-1], "\n\r\x00") || bytes.Contains(doc, []byte(`\u003c`)) {
		t.Errorf("unexpected bytes in %q", doc)
	}
}

// Trials name their task and trial; lines are cut at 512 KiB and every one is a whole request.
func TestOTelTrialsAndLines(t *testing.T) {
	r := bigResult(6000)
	for i := range r.Reliability.Traces {
		trial := i % 3
		r.Reliability.Traces[i].Attempt = &reliability.Attempt{Task: fmt.Sprintf("task-%d", i/3), Trial: &trial}
	}
	events, lines := readOTel(t, otelOf(t, r), "")
	if len(events) != 6000 {
		t.Fatalf("%d events, want 6000", len(events))
	}
	if lines < 3 {
		t.Errorf("%d lines: 6,000 events of ~600 bytes should need at least 3 lines of 512 KiB", lines)
	}
	e := events[4]
	if e.attrs["agentgate.task.id"] != "Str:task-1" || e.attrs["agentgate.trial"] != "Int:1" || e.attrs["agentgate.trace.id"] != "Str:suite/run-00004|trial-1" {
		t.Errorf("event 4: %v", e.attrs)
	}
	var ids []string
	for _, e := range events {
		ids = append(ids, e.attrs["agentgate.trace.id"])
	}
	if !slices.IsSorted(ids) || len(slices.Compact(ids)) != 6000 {
		t.Error("events are not one per trace in report order")
	}
}

// Control characters, invalid UTF-8, bidirectional controls and long text in hostile input.
func TestOTelHostileText(t *testing.T) {
	r := &gate.Result{Reliability: &reliability.Summary{}}
	r.Reliability.Add(reliability.Result{ID: "a\x00b\n\"c\"\xff\u202e", File: "f.jsonl", Line: 1, Verdict: verdict.Fail, Score: 0.9,
		Signals: reliability.Signals{reliability.Loop: 1}, Evidence: []reliability.Evidence{{Signal: "loop", Text: strings.Repeat("x", 5000)}}})
	r.Decide(gate.DefaultThresholds(), gate.FailOnFail)
	events, _ := readOTel(t, otelOf(t, r), "")
	if got := events[0].attrs["agentgate.trace.id"]; got != "Str:a b \"c\"\uFFFD" {
		t.Errorf("id %q", got)
	}
	if got := []rune(events[0].attrs["gen_ai.evaluation.explanation"]); len(got) != len("Str:")+otelTextRunes || got[len(got)-1] != '…' {
		t.Errorf("explanation of %d characters, want %d ending in …", len(got)-4, otelTextRunes)
	}
	if err := OTel(&bytes.Buffer{}, nil); err == nil {
		t.Error("OTel(nil) gave no error")
	}
	var empty bytes.Buffer
	if err := OTel(&empty, &gate.Result{}); err != nil || empty.Len() != 0 {
		t.Errorf("a result without traces or tasks wrote %q, %v", empty.String(), err)
	}
}

// A trace read from OTLP carries its traceId and root spanId onto its event, in lower-case hex;
// ids that OTLP/JSON cannot hold (wrong length, not hex, all zeros) are left out rather than
// making the file unreadable.
func TestOTelTraceContext(t *testing.T) {
	r := &gate.Result{Reliability: &reliability.Summary{}}
	for _, c := range [][2]string{
		{"5B8EFFF798038103D269B633813FC60C", "A000000000000001"},
		{"6c0000000000000000000000000000aa", ""},
		{"6c0000000000000000000000000000ab", "b00000000000000"},
		{"00000000000000000000000000000000", "a000000000000001"},
		{"6c0000000000000000000000000000zz", "a000000000000001"},
		{"trace-1", "a000000000000001"},
	} {
		r.Reliability.Add(reliability.Result{ID: c[0], File: "spans.json", Line: 1, Verdict: verdict.Pass,
			Attempt: &reliability.Attempt{OTLP: &reliability.SpanContext{TraceID: c[0], SpanID: c[1]}}})
	}
	r.Reliability.Add(reliability.Result{ID: "plain", File: "t.jsonl", Line: 1, Verdict: verdict.Pass})
	events, _ := readOTel(t, otelOf(t, r), "")
	var got []string
	for _, e := range events {
		got = append(got, e.ids)
	}
	want := []string{"5b8efff798038103d269b633813fc60c/a000000000000001", "6c0000000000000000000000000000aa/",
		"6c0000000000000000000000000000ab/", "/", "/", "/", "/"}
	if !slices.Equal(got, want) {
		t.Errorf("ids %q\nwant %q", got, want)
	}
}
