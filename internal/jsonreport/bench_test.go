package jsonreport

import (
	"bytes"
	"fmt"
	"testing"
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
