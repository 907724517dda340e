package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/internal/cputime"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/internal/refdata"
	"github.com/agentgate/agentgate/test/gensuite"
)

// writeRS1Suite writes n RS-1 traces, one per line, to a .jsonl file: 20 messages each with
// contents of about 130 bytes (every other one holding an escaped newline), a tool call in
// every other message answered by a tool result in the next. It is deterministic.
func writeRS1Suite(tb testing.TB, n int) (path string, size int64) {
	tb.Helper()
	path = filepath.Join(tb.TempDir(), "suite.jsonl")
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	seed := uint32(1)
	next := func() uint32 { seed = seed*1664525 + 1013904223; return seed >> 8 }
	words := strings.Fields("the agent searched flights for the user and found several options with prices dates seats baggage policy refund rules in the airline database")
	text := func(i int) string {
		var b strings.Builder
		for b.Len() < 125 {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[next()%uint32(len(words))])
		}
		if i%2 == 0 {
			return b.String()[:60] + "\n" + b.String()[61:]
		}
		return b.String()
	}
	type call struct {
		ToolName  string         `json:"tool_name"`
		Arguments map[string]any `json:"arguments"`
		CallID    string         `json:"call_id"`
		Timestamp string         `json:"timestamp"`
	}
	type result struct {
		CallID    string `json:"call_id"`
		Success   bool   `json:"success"`
		Result    any    `json:"result"`
		Error     any    `json:"error"`
		Timestamp string `json:"timestamp"`
	}
	type message struct {
		Role        string   `json:"role"`
		Content     string   `json:"content"`
		ToolCalls   []call   `json:"tool_calls"`
		ToolResults []result `json:"tool_results"`
		Timestamp   string   `json:"timestamp"`
	}
	for r := 0; r < n; r++ {
		msgs := make([]message, 20)
		for i := range msgs {
			m := message{Role: "user", Content: text(i), ToolCalls: []call{}, ToolResults: []result{}, Timestamp: "2026-01-03T10:00:00Z"}
			switch {
			case i%2 == 1:
				m.Role = "assistant"
				m.ToolCalls = []call{{ToolName: "search", Arguments: map[string]any{"query": words[next()%uint32(len(words))], "limit": int(next() % 50)},
					CallID: fmt.Sprintf("call-%d", i), Timestamp: "2026-01-03T10:00:01Z"}}
			case i > 0:
				m.Role = "tool"
				m.ToolResults = []result{{CallID: fmt.Sprintf("call-%d", i-1), Success: next()%4 != 0, Result: map[string]any{"count": int(next() % 9)}, Timestamp: "2026-01-03T10:00:02Z"}}
			}
			msgs[i] = m
		}
		rec := map[string]any{"trace_id": fmt.Sprintf("bench-%05d", r), "messages": msgs,
			"token_usage": map[string]int{"prompt_tokens": 1000 + r, "completion_tokens": 200, "total_tokens": 1200 + r}, "metadata": map[string]string{"agent": "bench"}}
		if err := enc.Encode(rec); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	return path, st.Size()
}

// BenchmarkEachRS1 reads a generated suite of 2,000 RS-1 traces (13.7 MB, 6.8 KB a trace).
func BenchmarkEachRS1(b *testing.B) {
	const records = 2000
	path, size := writeRS1Suite(b, records)
	b.SetBytes(size)
	b.ReportAllocs()
	iters := 0
	cpu0, cpuOK := cputime.Process()
	for b.Loop() {
		iters++
		n, calls := 0, 0
		if err := Each(path, func(t *Trace) error { n++; calls += t.NumCalls(); return nil }); err != nil {
			b.Fatal(err)
		}
		if n != records || calls != records*10 {
			b.Fatalf("%d traces, %d calls", n, calls)
		}
	}
	b.ReportMetric(float64(records)*float64(iters)/b.Elapsed().Seconds(), "records/s")
	// Throughput per CPU second (all threads, the garbage collector's included): steadier
	// than MB/s on a shared machine, where the wall clock also counts other processes.
	if cpu1, ok := cputime.Process(); ok && cpuOK && cpu1 > cpu0 {
		b.ReportMetric(float64(size)*float64(iters)/1e6/(cpu1-cpu0).Seconds(), "MB/cpu-s")
	}
}

// TestGeneratedSuite checks the benchmark's input reads as generated.
func TestGeneratedSuite(t *testing.T) {
	path, _ := writeRS1Suite(t, 3)
	var got []counts
	if err := Each(path, func(tr *Trace) error { got = append(got, countTrace(tr)); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[2] != (counts{"bench-00002", 20, 10, 9, got[2].fails}) {
		t.Errorf("%+v", got)
	}
}

// BenchmarkEachTauBench reads the real tau-bench transcripts (OpenAI shape, 326 KB).
func BenchmarkEachTauBench(b *testing.B) {
	p := refdata.Path(b, "transcripts/tau-bench-airline-sample.json")
	st, err := os.Stat(p)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	for b.Loop() {
		if err := Each(p, func(*Trace) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecoder decodes generated RS-1 traces (test/gensuite: 20 messages and about 7.8 KB
// each) held in memory, in one goroutine: the one-shot Decode, a Decoder that keeps its
// scratch space, and one that also reuses the trace (as the gate's workers do).
func BenchmarkDecoder(b *testing.B) {
	g := gensuite.NewTraces(1)
	var recs []input.Record
	size := 0
	for i := range 2000 {
		data := bytes.TrimSuffix(g.Append(nil), []byte("\n"))
		size += len(data) + 1
		recs = append(recs, input.Record{File: "suite.jsonl", Line: i + 1, Col: 1, Data: data})
	}
	for _, c := range []struct {
		name string
		dec  func() func(input.Record) (*Trace, error)
	}{
		{"Decode", func() func(input.Record) (*Trace, error) { return Decode }},
		{"Decoder", func() func(input.Record) (*Trace, error) { d := &Decoder{}; return d.Decode }},
		{"Decoder-reuse", func() func(input.Record) (*Trace, error) {
			d := &Decoder{Reuse: true}
			return d.Decode
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			dec := c.dec()
			b.SetBytes(int64(size / len(recs)))
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := dec(recs[i%len(recs)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "records/s")
		})
	}
}
