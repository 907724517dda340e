package input

import (
	"bytes"
	"testing"

	"github.com/agentgate/agentgate/test/gensuite"
)

// benchLines returns about 20 MB of generated RS-1 traces (test/gensuite), one per line, and
// their number.
func benchLines(b *testing.B) ([]byte, int) {
	b.Helper()
	var buf bytes.Buffer
	n, _, err := gensuite.WriteTraces(&buf, 1, 20e6)
	if err != nil {
		b.Fatal(err)
	}
	return buf.Bytes(), n
}

// BenchmarkEach measures the readers alone (no decoding): JSON Lines (chunks of whole lines,
// each line checked for UTF-8) and a JSON array of the same records (encoding/json's
// streaming decoder with line tracking).
func BenchmarkEach(b *testing.B) {
	lines, n := benchLines(b)
	array := append([]byte("[\n"), bytes.ReplaceAll(bytes.TrimSuffix(lines, []byte("\n")), []byte("\n"), []byte(",\n"))...)
	array = append(array, "\n]\n"...)
	for _, c := range []struct {
		name, file string
		data       []byte
	}{{"jsonl", "suite.jsonl", lines}, {"json-array", "suite.json", array}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.data)))
			b.ReportAllocs()
			records := 0
			for b.Loop() {
				err := EachReader(c.file, bytes.NewReader(c.data), func(Record) error { records++; return nil })
				if err != nil {
					b.Fatal(err)
				}
			}
			if records != n*b.N {
				b.Fatalf("%d records, want %d", records, n*b.N)
			}
			b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
		})
	}
}

// BenchmarkChunks measures cutting JSON Lines into chunks, as the gate's reading goroutine
// does, without looking at the records.
func BenchmarkChunks(b *testing.B) {
	lines, _ := benchLines(b)
	b.SetBytes(int64(len(lines)))
	b.ReportAllocs()
	buf := make([]byte, 0, 512<<10)
	for b.Loop() {
		cr := NewChunkReader("suite.jsonl", bytes.NewReader(lines))
		for {
			c, err := cr.Next(buf)
			if err != nil {
				break
			}
			buf = c.Data[:0]
		}
	}
}
