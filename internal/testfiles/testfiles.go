// Package testfiles holds what the tests of several packages do alike with files: one helper
// each, rather than a copy in every package's tests.
package testfiles

import (
	"os"
	"path/filepath"
	"testing"
)

// Copy copies file src to dst, making dst's folder, and returns dst; a failure fails the test.
func Copy(tb testing.TB, src, dst string) string {
	tb.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		tb.Fatal(err)
	}
	return dst
}
