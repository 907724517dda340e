package jsonscan

import (
	"strings"
	"testing"
)

// benchText is a trace-like JSON value of about 1 MB: objects of short keys and longer ASCII
// strings, some with escapes and non-ASCII text.
func benchText() []byte {
	var b strings.Builder
	b.WriteString(`{"trace_id": "t-1", "messages": [`)
	for i := 0; b.Len() < 1<<20; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(`{"role": "assistant", "content": "Let me look up the order status for you, then I will \"check\" the refund.\nDone — café", "tool_calls": [{"name": "get_order", "arguments": {"order_id": 12345, "verbose": true, "ratio": 0.25}}]}`)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// BenchmarkSkip measures checking and skipping a whole value.
func BenchmarkSkip(b *testing.B) {
	data := benchText()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Skip(data, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkString measures the string scanner on a long string of ASCII text.
func BenchmarkString(b *testing.B) {
	data := []byte(`"` + strings.Repeat("The quick brown fox jumps over the lazy dog. ", 1<<14) + `"`)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, _, err := String(data, 0); err != nil {
			b.Fatal(err)
		}
	}
}
