package main

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
	if exists(path + ".tmp") {
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
