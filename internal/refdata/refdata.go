// Package refdata finds the reference data that tests compare against: the folder
// .reference-data in the clone, which `make reference-data` builds from the public sources,
// else ../shared/reference-data beside the clone (docs/design.md#layout). A developer's clone may have
// neither, and a test that needs it then skips; under CI (CI=true) the data must be there, so
// a missing folder fails the test instead of letting the suite pass without it.
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

// The two places of the reference data, relative to the repository's root: the folder
// `make reference-data` builds, looked in first, and the one beside the clone.
const (
	builtDir  = ".reference-data"
	sharedDir = "../shared/reference-data"
)

// Find returns the path of rel (slash-separated, "" for the folder itself) inside the
// reference data, relative to the working directory as the tests have always written it
// (../../shared/reference-data/... from a package two levels down), or an error saying what
// is missing. The built folder is used when it exists, else the shared one.
func Find(rel string) (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	root, err := Root()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, builtDir)
	if _, err := os.Stat(dir); err != nil {
		dir = filepath.Join(root, filepath.FromSlash(sharedDir))
	}
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if r, err := filepath.Rel(wd, p); err == nil {
		p = r
	}
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("reference data %s not found (run `make reference-data`, or place the folder beside the clone, as in CI): %w", p, err)
	}
	return p, nil
}

// Root returns the repository's root: the nearest folder above the working directory that
// holds go.mod.
func Root() (string, error) {
	root, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			return root, nil
		}
		parent := filepath.Dir(root)
		if parent == root {
			return "", errors.New("no go.mod above the working directory")
		}
		root = parent
	}
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
