package input

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// tree creates the files (content "{}\n") and directories named, relative to a new temporary
// directory, and changes into it for the test, so that patterns and results are relative.
func tree(t *testing.T, files ...string) {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	for _, f := range files {
		if strings.HasSuffix(f, "/") {
			if err := os.MkdirAll(f, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func symlink(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

func expandOK(t *testing.T, patterns ...string) string {
	t.Helper()
	files, err := Expand(patterns)
	if err != nil {
		t.Fatalf("Expand(%q): %v", patterns, err)
	}
	return strings.Join(files, " ")
}

func expandErr(t *testing.T, patterns ...string) string {
	t.Helper()
	files, err := Expand(patterns)
	if err == nil {
		t.Fatalf("Expand(%q) = %q, want an error", patterns, files)
	}
	if !IsInputError(err) {
		t.Errorf("error %T is not an input error", err)
	}
	return err.Error()
}

// TestExpandDoubleStar: `**` matches any number of directories, none included, as GitHub's
// glob does. Before, filepath.Glob read it as `*`: d/**/*.jsonl found 1 file of 3 and the gate
// said PASS on it (issue 12 item 7).
func TestExpandDoubleStar(t *testing.T) {
	tree(t, "d/a.jsonl", "d/x/b.jsonl", "d/x/y/c.jsonl", "d/x/y/c.txt", "e/z.jsonl")
	cases := []struct{ pattern, want string }{
		{"d/**/*.jsonl", "d/a.jsonl d/x/b.jsonl d/x/y/c.jsonl"},
		{"./d/**/*.jsonl", "d/a.jsonl d/x/b.jsonl d/x/y/c.jsonl"},
		{"**/*.jsonl", "d/a.jsonl d/x/b.jsonl d/x/y/c.jsonl e/z.jsonl"},
		{"d/*/*.jsonl", "d/x/b.jsonl"},
		{"d/x/**", "d/x/b.jsonl d/x/y/c.jsonl d/x/y/c.txt"},
		{"{d,e}/*.jsonl", "d/a.jsonl e/z.jsonl"},
		{"d/**/c.*", "d/x/y/c.jsonl d/x/y/c.txt"},
	}
	for _, c := range cases {
		if got := expandOK(t, c.pattern); got != c.want {
			t.Errorf("Expand(%q)\n got %s\nwant %s", c.pattern, got, c.want)
		}
	}
	// several patterns: deduplicated and sorted
	if got, want := expandOK(t, "e/*.jsonl", "d/**/*.jsonl", "d/a.jsonl"), "d/a.jsonl d/x/b.jsonl d/x/y/c.jsonl e/z.jsonl"; got != want {
		t.Errorf("several patterns\n got %s\nwant %s", got, want)
	}
}

// TestExpandDirectory: a directory, named or matched, stands for every supported file under
// it, recursively and in sorted order; other files are left out.
func TestExpandDirectory(t *testing.T) {
	tree(t, "runs/a.json", "runs/b.JSONL", "runs/c.ndjson", "runs/d.eval", "runs/e.jsonl.gz",
		"runs/sub/f.json.gz", "runs/sub/deeper/g.jsonl", "runs/notes.txt", "runs/h.csv", "runs/i.gz", "other/j.jsonl")
	want := "runs/a.json runs/b.JSONL runs/c.ndjson runs/d.eval runs/e.jsonl.gz runs/sub/deeper/g.jsonl runs/sub/f.json.gz"
	for _, p := range []string{"runs", "runs/", "./runs"} {
		if got := expandOK(t, p); got != want {
			t.Errorf("Expand(%q)\n got %s\nwant %s", p, got, want)
		}
	}
	// a pattern matching a directory: the same
	if got := expandOK(t, "r*"); got != want {
		t.Errorf("Expand(r*)\n got %s\nwant %s", got, want)
	}
	// a linked directory is followed
	symlink(t, "../other", "runs/link")
	if got := expandOK(t, "runs/link"); got != "runs/link/j.jsonl" {
		t.Errorf("linked directory: %s", got)
	}
	if got := expandOK(t, "runs/**/j.jsonl"); got != "runs/link/j.jsonl" {
		t.Errorf("** through a linked directory: %s", got)
	}
	// a directory holding no supported file matches nothing
	tree(t, "empty/readme.txt")
	if got, want := expandErr(t, "empty"), "empty: no files match this pattern"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestExpandBrokenLinks: a dangling link or a link loop that a pattern matches is an error
// naming it and the pattern; before, it was skipped without a word (issue 12 item 7).
func TestExpandBrokenLinks(t *testing.T) {
	tree(t, "d/a.jsonl", "e/")
	symlink(t, "gone.jsonl", "d/b.jsonl")
	symlink(t, "self.jsonl", "e/self.jsonl")
	cases := []struct{ pattern, want string }{
		{"d/*.jsonl", `d/b.jsonl: dangling symbolic link: its target does not exist (matched by "d/*.jsonl")`},
		{"d/b.jsonl", `d/b.jsonl: dangling symbolic link: its target does not exist (matched by "d/b.jsonl")`},
		{"d", `d/b.jsonl: dangling symbolic link: its target does not exist (matched by "d")`},
		{"e/*", `e/self.jsonl: symbolic link loop (matched by "e/*")`},
		{"nothing/*.jsonl", "nothing/*.jsonl: no files match this pattern"},
		{"d/*.nothing", "d/*.nothing: no files match this pattern"},
		{"d/[", "d/[: bad glob pattern"},
	}
	for _, c := range cases {
		if got := expandErr(t, c.pattern); got != c.want {
			t.Errorf("Expand(%q)\n got %q\nwant %q", c.pattern, got, c.want)
		}
	}
	// a link that a pattern does not match does not matter
	if got := expandOK(t, "d/a*"); got != "d/a.jsonl" {
		t.Errorf("Expand(d/a*) = %s", got)
	}
}

// TestExpandLinkLoop: a directory link leading back to a directory that holds it is an error
// when a pattern would walk into it, instead of a walk without end; where the pattern cannot
// reach it, it does not matter.
func TestExpandLinkLoop(t *testing.T) {
	tree(t, "d/a.jsonl", "d/x/b.jsonl")
	symlink(t, "..", "d/x/up")
	want := `d/x/up: symbolic link loop: it leads back to a directory that holds it (while expanding "d/**/*.jsonl")`
	if got := expandErr(t, "d/**/*.jsonl"); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if got := expandErr(t, "d"); !strings.HasPrefix(got, "d/x/up: symbolic link loop") {
		t.Errorf("directory input: %q", got)
	}
	if got := expandOK(t, "d/*/*.jsonl"); got != "d/x/b.jsonl" {
		t.Errorf("Expand(d/*/*.jsonl) = %s", got)
	}
}

// TestExpandListsFIFO: a FIFO a pattern matches is listed, not skipped: Open refuses it.
func TestExpandListsFIFO(t *testing.T) {
	tree(t, "d/a.jsonl")
	if err := syscall.Mkfifo("d/b.jsonl", 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	if got := expandOK(t, "d/*.jsonl"); got != "d/a.jsonl d/b.jsonl" {
		t.Errorf("got %s", got)
	}
}

// TestExpandListing: a folder stands for its trace files, .traj included (docs/design.md#harness-folders), and
// lists its other files as side files; a file named itself is not under a folder, even when
// a folder given holds it too.
func TestExpandListing(t *testing.T) {
	tree(t, "run/a.traj", "run/b.traj.gz", "run/args.yaml", "run/patches/a.patch", "run/all_preds.jsonl", "x.json")
	l, err := ExpandListing([]string{"run", "run/all_preds.jsonl", "x.json"})
	if err != nil {
		t.Fatal(err)
	}
	var files, other []string
	for _, e := range l.Files {
		files = append(files, e.Path+"@"+e.Folder)
	}
	for _, e := range l.Other {
		other = append(other, e.Path+"@"+e.Folder)
	}
	if got, want := strings.Join(files, " "), "run/a.traj@run run/all_preds.jsonl@ run/b.traj.gz@run x.json@"; got != want {
		t.Errorf("files\n got %s\nwant %s", got, want)
	}
	if got, want := strings.Join(other, " "), "run/args.yaml@run run/patches/a.patch@run"; got != want {
		t.Errorf("other\n got %s\nwant %s", got, want)
	}
}

// TestExpandFolderLinks: a folder's walk does not follow a link to a directory outside the
// folder (it lists it), and follows one inside it.
func TestExpandFolderLinks(t *testing.T) {
	tree(t, "run/a.json", "run/sub/b.json", "outside/secret.json")
	symlink(t, "../outside", "run/out")
	symlink(t, "sub", "run/in")
	l, err := ExpandListing([]string{"run"})
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range l.Files {
		files = append(files, e.Path)
	}
	if got, want := strings.Join(files, " "), "run/a.json run/in/b.json run/sub/b.json"; got != want {
		t.Errorf("files\n got %s\nwant %s", got, want)
	}
	if got := strings.Join(l.Links, " "); got != "run/out" {
		t.Errorf("links %q", got)
	}
	// a link to a file outside is listed, not read; one to a file inside is read
	symlink(t, "../../outside/secret.json", "run/sub/leak.json")
	symlink(t, "../outside/notes.txt", "run/notes.txt")
	symlink(t, "sub/b.json", "run/alias.json")
	if err := os.WriteFile("outside/notes.txt", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if l, err = ExpandListing([]string{"run"}); err != nil {
		t.Fatal(err)
	}
	files = files[:0]
	for _, e := range l.Files {
		files = append(files, e.Path)
	}
	if got, want := strings.Join(files, " "), "run/a.json run/alias.json run/in/b.json run/sub/b.json"; got != want {
		t.Errorf("files with file links\n got %s\nwant %s", got, want)
	}
	var links []string
	for _, e := range l.FileLinks {
		links = append(links, e.Path+"@"+e.Folder)
	}
	if got, want := strings.Join(links, " "), "run/in/leak.json@run run/notes.txt@run run/sub/leak.json@run"; got != want {
		t.Errorf("file links\n got %s\nwant %s", got, want)
	}
	if len(l.Other) != 0 {
		t.Errorf("other %v", l.Other)
	}
	// named itself, a linked directory is followed, as GitHub's glob does
	if got := expandOK(t, "run/out"); got != "run/out/secret.json" {
		t.Errorf("named link: %s", got)
	}
}

// TestExpandFolderDepth: a folder's walk stops, with an error, past MaxFolderDepth levels,
// and counts its entries: linear in the files it holds.
func TestExpandFolderDepth(t *testing.T) {
	deep := "d" + strings.Repeat("/x", MaxFolderDepth+1) + "/a.json"
	tree(t, deep)
	if got := expandErr(t, "d"); !strings.Contains(got, "more than 64 directories deep") {
		t.Errorf("got %q", got)
	}
	tree(t, "e/a.json", "e/b/c.json")
	n := 0
	w, err := expandOne("e", &n)
	if err != nil || len(w.out) != 2 || n != 3 { // a.json, b, b/c.json
		t.Errorf("err %v, %d files, %d entries", err, len(w.out), n)
	}
}
