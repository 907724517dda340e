package agreement

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/profile"
)

// BenchmarkNumericQID evaluates a merged pairs file whose two qids are integers of n digits,
// equal in their first n-1 digits (so binary64 cannot tell them apart), at n and 10n: the time
// must grow linearly (issue 12: 2,000,000 digits took 8.3 s through big.Int).
func BenchmarkNumericQID(b *testing.B) {
	for _, n := range []int{200_000, 2_000_000} {
		b.Run(fmt.Sprintf("digits=%d", n), func(b *testing.B) {
			body := "9" + strings.Repeat("1", n-2)
			text := fmt.Sprintf(`{"qid": %s1, %s}`+"\n"+`{"qid": %s2, %s}`+"\n", body, vv, body, vv)
			path := filepath.Join(b.TempDir(), "pairs.jsonl")
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(text)))
			for i := 0; i < b.N; i++ {
				s, err := EvaluateMerged(context.Background(), []string{path}, profile.Default, 1)
				if err != nil {
					b.Fatal(err)
				}
				if s.N != 2 {
					b.Fatalf("n = %d", s.N)
				}
			}
		})
	}
}

// BenchmarkNumericQIDJoined is the same two qids in separate Scholar and Auditor files, which
// join and sort them by value.
func BenchmarkNumericQIDJoined(b *testing.B) {
	for _, n := range []int{200_000, 2_000_000} {
		b.Run(fmt.Sprintf("digits=%d", n), func(b *testing.B) {
			body := "9" + strings.Repeat("1", n-2)
			text := fmt.Sprintf(`{"qid": %s1, "label": "VALID"}`+"\n"+`{"qid": %s2, "label": "VALID"}`+"\n", body, body)
			dir := b.TempDir()
			s, a := filepath.Join(dir, "s.jsonl"), filepath.Join(dir, "a.jsonl")
			for _, p := range []string{s, a} {
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(2 * len(text)))
			for i := 0; i < b.N; i++ {
				pairs, _, err := LoadJoined([]string{s}, []string{a}, profile.Default)
				if err != nil {
					b.Fatal(err)
				}
				if len(pairs) != 2 || !strings.HasSuffix(pairs[0].QID, "1") {
					b.Fatalf("pairs = %d", len(pairs))
				}
			}
		})
	}
}
