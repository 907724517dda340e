package refdata

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
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
	dir := filepath.Join("..", "..", builtDir)
	if _, err := os.Stat(dir); err != nil {
		dir = filepath.Join("..", "..", filepath.FromSlash(sharedDir))
	}
	want := filepath.Join(dir, "README.md")
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

// TestFindOrder builds a clone with the shared folder beside it: Find takes the shared file,
// then, once `make reference-data` has built the folder in the clone, the built one, and a file
// missing from the built folder is missing (the two are not mixed).
func TestFindOrder(t *testing.T) {
	top := t.TempDir()
	write := func(rel string) {
		p := filepath.Join(top, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("repo/go.mod")
	write("repo/gate/trace/x_test.go")
	write("shared/reference-data/rs1/a.json")
	write("shared/reference-data/rs1/b.json")
	t.Chdir(filepath.Join(top, "repo", "gate", "trace"))

	check := func(rel, want string) {
		t.Helper()
		p, err := Find(rel)
		if want == "" {
			if err == nil || !strings.Contains(err.Error(), "make reference-data") {
				t.Errorf("Find(%q) = %q, %v; want an error saying how to build the data", rel, p, err)
			}
			return
		}
		if err != nil || p != filepath.FromSlash(want) {
			t.Errorf("Find(%q) = %q, %v; want %q", rel, p, err, want)
		}
	}
	check("rs1/a.json", "../../../shared/reference-data/rs1/a.json")
	check("rs1/c.json", "")
	write("repo/.reference-data/rs1/a.json")
	check("rs1/a.json", "../../.reference-data/rs1/a.json")
	check("rs1/b.json", "")
	check("", "../../.reference-data")
}

// TestBuiltMatchesShared checks `make reference-data` against the folder beside the clone:
// every file but the README byte for byte the same, none missing or extra. Both folders are
// present where a developer has built the one beside the other; CI places only the shared one
// and cannot build the other (it has no network), so there the test holds what it can without
// it: scripts/reference-data.sh names every file that the shared folder holds.
func TestBuiltMatchesShared(t *testing.T) {
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	built, shared := filepath.Join(root, builtDir), filepath.Join(root, filepath.FromSlash(sharedDir))
	if _, err := os.Stat(shared); err != nil {
		if CI() {
			t.Fatalf("CI=true but %s is missing: %v", shared, err)
		}
		t.Skipf("skipping: %s is needed (CI places it beside the clone): %v", shared, err)
	}
	if _, err := os.Stat(built); err != nil {
		script, err := os.ReadFile(filepath.Join(root, "scripts", "reference-data.sh"))
		if err != nil {
			t.Fatal(err)
		}
		for rel := range files(t, shared) {
			if !scriptBuilds(string(script), rel) {
				t.Errorf("%s is in %s but scripts/reference-data.sh does not build it", rel, shared)
			}
		}
		return
	}
	b, s := files(t, built), files(t, shared)
	if len(s) == 0 {
		t.Fatalf("%s holds no files", shared)
	}
	for rel, want := range s {
		got, ok := b[rel]
		switch {
		case !ok:
			t.Errorf("%s: missing from %s", rel, built)
		case !bytes.Equal(got, want):
			t.Errorf("%s: %s differs from %s (%d bytes, want %d)", rel, built, shared, len(got), len(want))
		}
	}
	for rel := range b {
		if _, ok := s[rel]; !ok {
			t.Errorf("%s: in %s, not in %s", rel, built, shared)
		}
	}
}

// files reads every file under dir but its README, by slash-separated path.
func files(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	m := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == "README.md" {
			return err
		}
		b, err := os.ReadFile(p)
		m[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// scriptBuilds reports whether the reference-data script names rel as a file it writes: a
// path it takes or writes, or for RS-1's files (written in a loop over the sample names) the
// sample's name in that loop.
func scriptBuilds(script, rel string) bool {
	if strings.Contains(script, " "+rel+"\n") || strings.Contains(script, "/"+rel+`"`) {
		return true
	}
	name, ok := strings.CutPrefix(rel, "rs1/")
	if !ok {
		return false
	}
	name = strings.TrimSuffix(strings.TrimSuffix(name, ".json"), ".expected")
	for _, line := range strings.Split(script, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "for name in "); ok {
			return slices.Contains(strings.Fields(strings.TrimSuffix(rest, "; do")), name)
		}
	}
	return false
}

func TestScriptBuilds(t *testing.T) {
	script := "for name in sample_trace other; do\ntake \"$X\" a/b.json rcs/x.json\npython3 - >\"$tmp/transcripts/t.json\" <<EOF\n"
	for rel, want := range map[string]bool{
		"rs1/sample_trace.json": true, "rs1/other.expected.json": true, "rs1/third.json": false,
		"rcs/x.json": true, "transcripts/t.json": true, "transcripts/u.json": false, "a/b.json": false,
	} {
		if got := scriptBuilds(script, rel); got != want {
			t.Errorf("scriptBuilds(%q) = %v, want %v", rel, got, want)
		}
	}
}
