package testfiles

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCopy: the copy holds the source's bytes, in a folder made for it, at the path returned.
func TestCopy(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "a.json")
	want := []byte("{\"a\": 1}\n\x00\xff")
	if err := os.WriteFile(src, want, 0o644); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "x", "y", "b.json")
	if got := Copy(t, src, dst); got != dst {
		t.Errorf("Copy returned %q, want %q", got, dst)
	}
	if got, err := os.ReadFile(dst); err != nil || string(got) != string(want) {
		t.Errorf("copy holds %q (%v), want %q", got, err, want)
	}
}
