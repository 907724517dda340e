package report

import (
	"bytes"
	"encoding/xml"
	"testing"

	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/verdict"
)

// FuzzExports writes a trace whose id, file, task, evidence and trace context come from the
// fuzzer: the SARIF must stay valid against its schema with every bracket of the text escaped,
// the OTLP/JSON must decode with the collector's unmarshaler, and the JUnit XML must parse.
func FuzzExports(f *testing.F) {
	f.Add("refund-017", "evals/refund.jsonl", "task-1", "`search` called 5 times", "5b8efff798038103d269b633813fc60c", "a000000000000001")
	f.Add("a|b`<img>@x\n", "C:\\a b%#?.jsonl", "", "see [here](0) \\[x\x00\xff\u202e", "zz", "")
	f.Add("]]>", "a:b/c", "t", "</failure>&amp;", "", "0000000000000000")
	f.Fuzz(func(t *testing.T, id, file, task, text, traceID, spanID string) {
		r := &gate.Result{Reliability: &reliability.Summary{}}
		trial := 0
		r.Reliability.Add(reliability.Result{ID: id, File: file, Line: 3, Verdict: verdict.Fail, Score: 0.9,
			Signals:  reliability.Signals{reliability.Loop: 1},
			Evidence: []reliability.Evidence{{Signal: "loop", Text: text, Messages: []int{1}}},
			Attempt:  &reliability.Attempt{Task: task, Trial: &trial, OTLP: &reliability.SpanContext{TraceID: traceID, SpanID: spanID}}})
		r.Reliability.Add(reliability.Result{ID: id + "#2", File: file, Line: 4, Verdict: verdict.Pass,
			Attempt: &reliability.Attempt{Task: task, Trial: new(int)}})
		r.Decide(gate.DefaultThresholds(), gate.FailOnFail)

		d := validSARIF(t, sarifOf(t, r, nil))
		for _, res := range d.Runs[0].Results {
			m := res.Message.Text
			for i := 0; i < len(m); i++ {
				if (m[i] == '[' || m[i] == ']') && backslashesBefore(m, i)%2 == 0 {
					t.Fatalf("unescaped bracket at %d in %q", i, m)
				}
			}
		}
		var o bytes.Buffer
		if err := OTel(&o, r); err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(bytes.TrimSuffix(o.Bytes(), []byte("\n")), []byte("\n")) {
			if _, err := (&plog.JSONUnmarshaler{}).UnmarshalLogs(line); err != nil {
				t.Fatalf("OTLP/JSON: %v\n%s", err, line)
			}
		}
		var j bytes.Buffer
		if err := JUnit(&j, r); err != nil {
			t.Fatal(err)
		}
		dec := xml.NewDecoder(&j)
		dec.Strict = true
		var doc jSuites
		if err := dec.Decode(&doc); err != nil {
			t.Fatalf("JUnit XML: %v\n%s", err, j.String())
		}
	})
}

// backslashesBefore counts the backslashes right before s[i].
func backslashesBefore(s string, i int) int {
	n := 0
	for i > 0 && s[i-1] == '\\' {
		n++
		i--
	}
	return n
}
