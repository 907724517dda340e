package entrypoint

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDifferencesNameRealTests keeps the "Differences from the reference" table of
// docs/reference.md honest: every test a row names is a test function of the repository.
func TestDifferencesNameRealTests(t *testing.T) {
	doc, err := os.ReadFile("../docs/reference.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	i := strings.Index(text, "### Differences from the reference\n")
	if i < 0 {
		t.Fatal("docs/reference.md has no section Differences from the reference")
	}
	table := text[i:]
	if j := strings.Index(table, "\n\n|"); j >= 0 {
		table = table[j+2:]
	}
	if j := strings.Index(table, "\n\n"); j >= 0 {
		table = table[:j]
	}
	named := regexp.MustCompile("`(Test[A-Za-z0-9_]+)`").FindAllStringSubmatch(table, -1)
	if len(named) < 30 {
		t.Fatalf("the table names %d tests, want at least 30 (is it still there?)", len(named))
	}

	defined := map[string]bool{}
	funcs := regexp.MustCompile(`(?m)^func (Test[A-Za-z0-9_]+)\(`)
	err = filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") && p != "..") {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		for _, m := range funcs.FindAllSubmatch(b, -1) {
			defined[string(m[1])] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range named {
		if !defined[m[1]] {
			t.Errorf("docs/reference.md's Differences table names %s, which no _test.go file defines", m[1])
		}
	}
}
