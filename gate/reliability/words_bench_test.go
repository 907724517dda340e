package reliability

import "testing"

// BenchmarkWords reads the words of varied prose (the assistant messages of generated traces,
// so that word boundaries fall where a branch predictor cannot learn them).
func BenchmarkWords(b *testing.B) {
	traces, _ := suiteTraces(b, 200)
	var texts []string
	size := 0
	for _, t := range traces {
		for _, m := range t.Messages {
			if m.Role == "assistant" {
				texts = append(texts, m.Content)
				size += len(m.Content)
			}
		}
	}
	var dst []uint64
	var scratch []byte
	b.SetBytes(int64(size / len(texts)))
	i := 0
	for b.Loop() {
		dst, scratch = appendWordsBuf(dst[:0], scratch, texts[i%len(texts)])
		i++
	}
}
