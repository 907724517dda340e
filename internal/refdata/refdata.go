// Package refdata finds the shared reference data that tests compare against: the folder
// ../shared/reference-data beside the clone (SPEC §1). A developer's clone may lack it, and a
// test that needs it then skips; under CI (CI=true) the data must be there, so a missing
// folder fails the test instead of letting the suite pass without it.
package refdata

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CI reports whether the tests run under CI (CI=true), where missing data is a failure.
func CI() bool { return strings.EqualFold(os.Getenv("CI"), "true") }

// Find returns the path of rel (slash-separated, "" for the folder itself) inside the
// reference data, relative to the working directory as the tests have always written it
// (../../shared/reference-data/... from a package two levels down), or an error saying what
// is missing.
func Find(rel string) (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	root := wd
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(root)
		if parent == root {
			return "", errors.New("no go.mod above the working directory")
		}
		root = parent
	}
	p := filepath.Join(root, "..", "shared", "reference-data", filepath.FromSlash(rel))
	if r, err := filepath.Rel(wd, p); err == nil {
		p = r
	}
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("reference data %s not found (it sits beside the clone, as in CI): %w", p, err)
	}
	return p, nil
}

// Path returns Find's path of rel for a test that needs it. Where it is missing the test is
// skipped, or under CI fails.
func Path(tb testing.TB, rel string) string {
	tb.Helper()
	p, err := Find(rel)
	if err != nil {
		if CI() {
			tb.Fatalf("CI=true but %v", err)
		}
		tb.Skipf("skipping: %v", err)
	}
	return p
}

// Optional returns Find's path of rel for a test that also runs without it (it adds the
// reference data to its own inputs): ok is false where it is missing, except under CI, where
// the test fails.
func Optional(tb testing.TB, rel string) (path string, ok bool) {
	tb.Helper()
	p, err := Find(rel)
	if err != nil {
		if CI() {
			tb.Fatalf("CI=true but %v", err)
		}
		return "", false
	}
	return p, true
}
