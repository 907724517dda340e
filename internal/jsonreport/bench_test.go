package jsonreport

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/verdict"
)

func BenchmarkReadBaseline(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		var doc bytes.Buffer
		doc.WriteString(`{"schema": 2, "profile": "default", "reliability": {"traces": [`)
		for i := range n {
			if i > 0 {
				doc.WriteByte(',')
			}
			fmt.Fprintf(&doc, "\n{\"id\": \"trace-%08d\", \"file\": \"a.jsonl\", \"line\": %d, \"verdict\": \"PASS\", \"score\": 0.1, \"signals\": {\"hallucination\": 0, \"loop\": 0, \"tool_misuse\": 0, \"cost\": 0.1}, \"evidence\": [{\"signal\": \"cost\", \"text\": \"1,200 tokens\", \"messages\": []}]}", n-i, i+1)
		}
		doc.WriteString("]}}")
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.SetBytes(int64(doc.Len()))
			for b.Loop() {
				if _, err := ReadBaseline(bytes.NewReader(doc.Bytes()), "b.json"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkWriteMillionRuns writes the JSON report of a million runs (a third with a cost
// finding, all with their suite cost), and reads it back as a baseline, reporting the bytes
// a run takes (docs/performance.md, "A million runs").
func BenchmarkWriteMillionRuns(b *testing.B) {
	const n = 1_000_000
	sum := &reliability.Summary{Traces: make([]reliability.Result, 0, n)}
	for i := range n {
		t := reliability.Result{ID: fmt.Sprintf("run-%07d", i), File: fmt.Sprintf("evals/traces-%03d.jsonl", i/10_000), Line: 1 + i%10_000,
			Verdict: verdict.Pass, Messages: 3, SuiteCost: &reliability.SuiteCost{Tokens: int64(1000 + i%4000)}}
		if i%3 == 0 {
			t.Score, t.Signals[reliability.Cost] = 0.0207375, 0.13825
			t.Evidence = []reliability.Evidence{{Signal: "cost", Text: fmt.Sprintf("%d tokens over 3 messages (1395 per message, above 1000)", 4000+i%1000)}}
		}
		sum.Add(t)
	}
	res := &gate.Result{Profile: "default", Verdict: verdict.Pass, Reliability: sum}
	var doc bytes.Buffer
	b.Run("write", func(b *testing.B) {
		for b.Loop() {
			doc.Reset()
			if err := Write(&doc, res); err != nil {
				b.Fatal(err)
			}
		}
		b.SetBytes(int64(doc.Len()))
		b.ReportMetric(float64(doc.Len())/n, "bytes/run")
	})
	b.Run("read-baseline", func(b *testing.B) {
		b.SetBytes(int64(doc.Len()))
		for b.Loop() {
			if _, err := ReadBaselineBytes(doc.Bytes(), "b.json"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
