// Package realsources finds the real harness outputs of the opt-in realsources tests: runs
// other people's harnesses wrote, in public repositories at the commits
// test/realsources/sources.tsv pins, which scripts/real-sources.sh fetches into .real-sources/
// (docs/development.md#real-sources). The project may not copy them into the repository, and
// its bare-machine CI cannot fetch them, so the tests that read them are built only with
// `-tags realsources` (`make test-real-sources`). There a missing source fails the test: a
// suite asked for by name never passes without its data.
package realsources

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentgate/agentgate/internal/refdata"
)

// Dir is the folder scripts/real-sources.sh fetches into, relative to the repository's root;
// AGENTGATE_REAL_SOURCES names another.
const Dir = ".real-sources"

// Path returns the path of source name (a row of test/realsources/sources.tsv) joined with
// rel (slash-separated, the path the row names inside its repository, or below it), and
// fails the test where it is missing.
func Path(tb testing.TB, name, rel string) string {
	tb.Helper()
	dir := os.Getenv("AGENTGATE_REAL_SOURCES")
	if dir == "" {
		root, err := refdata.Root()
		if err != nil {
			tb.Fatal(err)
		}
		dir = filepath.Join(root, Dir)
	}
	p := filepath.Join(dir, name, filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("real source %s/%s is missing (make real-sources fetches it): %v", name, rel, err)
	}
	return p
}
