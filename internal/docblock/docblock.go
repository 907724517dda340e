// Package docblock keeps a block of a doc written from the code: the text between two marker
// lines of a file in docs/ is what a test generates from a table in the code (the registry of
// formats, the signal table), so the docs say what the code holds (docs/development.md).
package docblock

import (
	"os"
	"strings"
	"testing"
)

// Check fails t unless the text of the file at path between the lines start and end (each
// ending in a newline) is want. With update, it writes want there instead; how says how to
// run the update, for the failure's message.
func Check(t testing.TB, path, start, end, want string, update bool, how string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i, j := strings.Index(doc, start), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s: no block between %q and %q", path, start, end)
	}
	if doc[i+len(start):j] == want {
		return
	}
	if update {
		if err := os.WriteFile(path, []byte(doc[:i+len(start)]+want+doc[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: the block differs from the code (%s); it should read:\n%s", path, how, want)
}
