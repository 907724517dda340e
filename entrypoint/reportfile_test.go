package entrypoint

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteReportFile checks what writeReportFile promises now that it streams: the report
// replaces the file only when it is complete, a report that fails before its first byte
// creates nothing (not even the directory), one that fails later leaves no temporary file,
// and an empty report is still written.
func TestWriteReportFile(t *testing.T) {
	dir := t.TempDir()
	bad := errors.New("cannot encode")
	exists := func(p string) bool {
		_, err := os.Stat(p)
		return err == nil
	}
	read := func(p string) string {
		t.Helper()
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	path := filepath.Join(dir, "out", "report.json")
	if err := writeReportFile(path, func(io.Writer) error { return bad }); !errors.Is(err, bad) {
		t.Fatalf("failing before writing: error %v, want %v", err, bad)
	}
	if exists(filepath.Dir(path)) {
		t.Errorf("a report that failed before writing created its directory")
	}

	write := func(s string) func(io.Writer) error {
		return func(w io.Writer) error {
			for i := 0; i < len(s); i += 3 { // several writes, as the streaming reports do
				if _, err := io.WriteString(w, s[i:min(i+3, len(s))]); err != nil {
					return err
				}
			}
			return nil
		}
	}
	if err := writeReportFile(path, write("{\"a\": 1}\n")); err != nil {
		t.Fatal(err)
	}
	if got := read(path); got != "{\"a\": 1}\n" {
		t.Errorf("report %q", got)
	}

	err := writeReportFile(path, func(w io.Writer) error {
		io.WriteString(w, "{\"half")
		return bad
	})
	if !errors.Is(err, bad) {
		t.Fatalf("failing after writing: error %v, want %v", err, bad)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("a report that failed after writing left its temporary file")
	}
	if got := read(path); got != "{\"a\": 1}\n" {
		t.Errorf("a failed report changed the previous one: %q", got)
	}

	if err := writeReportFile(path, write("")); err != nil {
		t.Fatal(err)
	}
	if got := read(path); got != "" {
		t.Errorf("empty report: file holds %q", got)
	}
}

// TestWriteReportFileIgnoresPlantedLinks: a symlink planted where the temporary file used to
// go (<path>.tmp) or at another name one could guess is not followed: the files the links
// point at keep their content, the links stay links, and the report lands at path. A symlink
// at path itself is replaced, not written through. (Issue 12 item 8, docs/design.md#trust-boundaries "Files".)
func TestWriteReportFileIgnoresPlantedLinks(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	path := filepath.Join(dir, "report.json")
	victims := map[string]string{}
	for _, name := range []string{"report.json.tmp", ".report.json.tmp", "report.json~", ".report.json"} {
		victim := filepath.Join(outside, name+".victim")
		if err := os.WriteFile(victim, []byte("precious "+name), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(victim, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
		victims[name] = victim
	}
	final := filepath.Join(outside, "final.victim")
	if err := os.WriteFile(final, []byte("precious final"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(final, path); err != nil {
		t.Fatal(err)
	}

	if err := writeReportFile(path, func(w io.Writer) error { _, err := io.WriteString(w, "REPORT\n"); return err }); err != nil {
		t.Fatal(err)
	}
	for name, victim := range victims {
		b, err := os.ReadFile(victim)
		if err != nil || string(b) != "precious "+name {
			t.Errorf("the target of the link %s now holds %q (err %v), want it untouched", name, b, err)
		}
		if st, err := os.Lstat(filepath.Join(dir, name)); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Errorf("the planted link %s was replaced or removed (err %v)", name, err)
		}
	}
	if b, _ := os.ReadFile(final); string(b) != "precious final" {
		t.Errorf("the link at the report's own path was written through: its target holds %q", b)
	}
	st, err := os.Lstat(path)
	if err != nil || !st.Mode().IsRegular() || st.Mode().Perm() != 0o644 {
		t.Fatalf("report path: %v, %v; want a regular file with mode 0644", st.Mode(), err)
	}
	if b, _ := os.ReadFile(path); string(b) != "REPORT\n" {
		t.Errorf("report holds %q", b)
	}
	// nothing else is left in the folder: the links planted and the report
	entries, _ := os.ReadDir(dir)
	if len(entries) != len(victims)+1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("folder holds %q, want the %d links and the report", names, len(victims))
	}
}
