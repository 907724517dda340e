package docblock

import (
	"os"
	"path/filepath"
	"testing"
)

// fakeT records what Check reports instead of failing the test.
type fakeT struct {
	testing.TB
	failed bool
}

func (f *fakeT) Helper()               {}
func (f *fakeT) Errorf(string, ...any) { f.failed = true }
func (f *fakeT) Fatalf(string, ...any) { f.failed = true }
func (f *fakeT) Fatal(...any)          { f.failed = true }

// Check passes on a block that reads as wanted, fails on one that does not or on missing
// markers, and with update rewrites the block alone.
func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "doc.md")
	const start, end = "<!-- a -->\n", "<!-- /a -->\n"
	if err := os.WriteFile(path, []byte("head\n"+start+"old\n"+end+"tail\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		want   string
		update bool
		fails  bool
		after  string
	}{
		{"old\n", false, false, "head\n" + start + "old\n" + end + "tail\n"},
		{"new\n", false, true, "head\n" + start + "old\n" + end + "tail\n"},
		{"new\n", true, false, "head\n" + start + "new\n" + end + "tail\n"},
		{"new\n", false, false, "head\n" + start + "new\n" + end + "tail\n"},
	} {
		f := &fakeT{}
		Check(f, path, start, end, c.want, c.update, "how")
		data, _ := os.ReadFile(path)
		if f.failed != c.fails || string(data) != c.after {
			t.Errorf("Check(%q, update %v): failed %v, file %q; want %v, %q", c.want, c.update, f.failed, data, c.fails, c.after)
		}
	}
	f := &fakeT{}
	Check(f, path, "<!-- b -->\n", end, "", false, "how")
	if !f.failed {
		t.Error("no failure on a missing start marker")
	}
}
