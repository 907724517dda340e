package gensuite

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestTraces checks that the generator is deterministic, writes valid JSON records of the
// advertised shape, and covers every scenario.
func TestTraces(t *testing.T) {
	a, b, c := NewTraces(1), NewTraces(1), NewTraces(2)
	var bufA, bufB, bufC []byte
	for range 300 {
		bufA, bufB, bufC = a.Append(bufA), b.Append(bufB), c.Append(bufC)
	}
	if !bytes.Equal(bufA, bufB) {
		t.Fatal("the same seed gave different traces")
	}
	if bytes.Equal(bufA, bufC) {
		t.Fatal("different seeds gave the same traces")
	}
	lines := bytes.Split(bytes.TrimSuffix(bufA, []byte("\n")), []byte("\n"))
	if len(lines) != 300 {
		t.Fatalf("%d lines", len(lines))
	}
	var size, messages, contents, claims, fails int
	for _, l := range lines {
		var rec struct {
			TraceID  string `json:"trace_id"`
			Messages []struct {
				Role        string            `json:"role"`
				Content     string            `json:"content"`
				ToolCalls   []json.RawMessage `json:"tool_calls"`
				ToolResults []struct {
					Success bool `json:"success"`
				} `json:"tool_results"`
			} `json:"messages"`
			TokenUsage struct{ TotalTokens int } `json:"token_usage"`
		}
		if err := json.Unmarshal(l, &rec); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		size += len(l) + 1
		messages += len(rec.Messages)
		for _, m := range rec.Messages {
			contents += len(m.Content)
			if bytes.Contains([]byte(m.Content), []byte("I called")) {
				claims++
			}
			for _, r := range m.ToolResults {
				if !r.Success {
					fails++
				}
			}
		}
	}
	if messages != 20*300 || claims == 0 || fails == 0 {
		t.Errorf("%d messages, %d claims, %d failed results", messages, claims, fails)
	}
	if avg := contents / messages; avg < 110 || avg > 160 {
		t.Errorf("contents of %d bytes on average", avg)
	}
	if avg := size / 300; avg < 6000 || avg > 9000 {
		t.Errorf("records of %d bytes on average", avg)
	}
}

// TestWrite checks a whole suite: sizes, files, and that every record is valid JSON.
func TestWrite(t *testing.T) {
	s, err := Write(t.TempDir(), Config{Seed: 3, TraceBytes: 300e3, TraceFiles: 2, Tasks: 50, Pairs: 70})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Traces) != 2 || s.TraceBytes < 300e3 || s.TraceRecords == 0 {
		t.Fatalf("%+v", s)
	}
	count := func(path string) int {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		n := 0
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if !json.Valid(sc.Bytes()) {
				t.Fatalf("%s: invalid JSON %s", path, sc.Bytes())
			}
			n++
		}
		return n
	}
	if n := count(s.Traces[0]) + count(s.Traces[1]); n != s.TraceRecords {
		t.Errorf("%d trace records, the suite says %d", n, s.TraceRecords)
	}
	if count(s.Tasks) != 50 || count(s.Pairs) != 70 || filepath.Base(s.Pairs) != "pairs.jsonl" {
		t.Errorf("tasks or pairs: %+v", s)
	}
}

// TestWriteRuns: TraceRecords writes that many traces, spread over the files as evenly as
// they divide, and the same traces as writing them into one file; four and five messages
// (one round of a call and its result) are short runs too.
func TestWriteRuns(t *testing.T) {
	for _, messages := range []int{3, 4, 5} {
		one, err := Write(t.TempDir(), Config{Seed: 5, TraceRecords: 10, Messages: messages})
		if err != nil {
			t.Fatal(err)
		}
		three, err := Write(t.TempDir(), Config{Seed: 5, TraceRecords: 10, TraceFiles: 3, Messages: messages})
		if err != nil {
			t.Fatal(err)
		}
		var joined []byte
		var lines []int
		for _, f := range three.Traces {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			joined = append(joined, b...)
			lines = append(lines, bytes.Count(b, []byte("\n")))
		}
		whole, err := os.ReadFile(one.Traces[0])
		if err != nil {
			t.Fatal(err)
		}
		if one.TraceRecords != 10 || three.TraceRecords != 10 || len(lines) != 3 || lines[0] != 4 || lines[1] != 3 || lines[2] != 3 ||
			!bytes.Equal(joined, whole) || three.TraceBytes != int64(len(whole)) {
			t.Errorf("%d messages: %d and %d records, lines %v, same bytes %v", messages, one.TraceRecords, three.TraceRecords, lines, bytes.Equal(joined, whole))
		}
		var rec struct{ Messages []json.RawMessage }
		if err := json.Unmarshal(whole[:bytes.IndexByte(whole, '\n')], &rec); err != nil || len(rec.Messages) != messages {
			t.Errorf("%d messages: the first trace has %d (%v)", messages, len(rec.Messages), err)
		}
	}
}
