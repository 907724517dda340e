package refdata

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeTB records what Path and Optional do with a test, without stopping this one: the first
// of Fatalf and Skipf, which would end a real test.
type fakeTB struct {
	testing.TB
	skipped, failed string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Skipf(format string, args ...any) {
	if f.failed == "" {
		f.skipped = format
	}
}
func (f *fakeTB) Fatalf(format string, args ...any) { f.failed = format }

func TestMissing(t *testing.T) {
	for _, ci := range []string{"", "false", "true", "TRUE"} {
		t.Setenv("CI", ci)
		f := &fakeTB{TB: t}
		Path(f, "no/such/file")
		wantFail := strings.EqualFold(ci, "true")
		if (f.failed != "") != wantFail || (f.skipped != "") == wantFail {
			t.Errorf("CI=%q, Path: failed %q, skipped %q", ci, f.failed, f.skipped)
		}
		f = &fakeTB{TB: t}
		if p, ok := Optional(f, "no/such/file"); ok || p != "" || (f.failed != "") != wantFail || f.skipped != "" {
			t.Errorf("CI=%q, Optional: %q %v, failed %q, skipped %q", ci, p, ok, f.failed, f.skipped)
		}
	}
}

func TestFindRelative(t *testing.T) {
	want := filepath.Join("..", "..", "..", "shared", "reference-data", "README.md")
	p, err := Find("README.md")
	if _, statErr := os.Stat(want); statErr != nil {
		if err == nil {
			t.Fatalf("Find found %s, but %s is missing", p, want)
		}
		Path(t, "README.md") // skips, or fails under CI
	}
	if err != nil || p != want {
		t.Fatalf("Find = %q, %v; want %q", p, err, want)
	}
}
