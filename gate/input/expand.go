package input

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"

	"github.com/bmatcuk/doublestar/v4"
)

// Expand resolves the inputs a user gave (glob patterns, file names, directory names) into a
// sorted list of distinct files, as docs/design.md#file-layouts-and-formats says:
//
//   - A pattern is a glob with GitHub's syntax: `*`, `?`, `[...]`, `{a,b}`, and `**` matching
//     any number of directories (bmatcuk/doublestar does the matching). Symbolic links to
//     directories are followed, as GitHub's glob does.
//   - A directory, named or matched, means every supported file under it, recursively:
//     .json, .jsonl, .ndjson, .eval and .traj, and the same with .gz (see Supported);
//     ExpandListing also says which folder each file came from, and lists the folders'
//     other files (docs/design.md#harness-folders).
//   - A pattern that matches nothing is an error: a gate that silently evaluates nothing would
//     pass everything. So is a dangling symbolic link or a link loop that a pattern matches (or
//     that a directory holds under a supported name): skipping it would change the verdict
//     without a word.
//
// Files that are not regular (a FIFO, a device) are listed: Open refuses them with an error
// that names them, rather than their being skipped here.
func Expand(patterns []string) ([]string, error) {
	l, err := ExpandListing(patterns)
	if err != nil {
		return nil, err
	}
	files := make([]string, len(l.Files))
	for i, f := range l.Files {
		files[i] = f.Path
	}
	return files, nil
}

// NoMatch is the message of the error for a pattern that matches no file.
const NoMatch = "no files match this pattern"

// Entry is one file an input stands for.
type Entry struct {
	Path string
	// Folder is the directory, named or matched, under which the file was found (docs/design.md#harness-folders);
	// "" for a file named or matched itself, which is read strictly: a reader that cannot
	// read it says why. A file under a folder may be a side file a harness writes beside
	// its traces, which the trace reader skips with a note.
	Folder string
}

// Listing is what a list of inputs stands for: the files, and the other files found under
// the folders, which are not of a supported type (a config, a log, a patch): side files,
// listed so that a reader can say it skipped them (docs/design.md#harness-folders).
type Listing struct {
	Files []Entry // sorted by path, distinct
	Other []Entry // sorted by path, distinct, none of them in Files
	// Links are the symbolic links to directories outside the folder holding them, which a
	// folder's walk does not follow (a hostile link cannot take it out of the tree), and
	// FileLinks those to files outside it, which it neither reads nor lists as side files: a
	// pull request can commit a link to any file of the runner (docs/security.md, "Files").
	Links     []string
	FileLinks []Entry // sorted by path, distinct
}

// Limits on a folder's walk: it stays linear in the files it holds, and bounded.
const (
	// MaxFolderDepth is how many directories deep a folder's walk goes.
	MaxFolderDepth = 64
	// MaxFolderEntries is how many entries (files and directories) the folders of one
	// expansion may hold in all.
	MaxFolderEntries = 1 << 20
)

// ExpandListing is Expand with where each file came from, and the side files of the
// folders.
func ExpandListing(patterns []string) (*Listing, error) {
	l := &Listing{}
	at := map[string]int{}       // index in l.Files
	other := map[string]string{} // path → folder
	entries := 0
	for _, p := range patterns {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		w, err := expandOne(p, &entries)
		if err != nil {
			return nil, err
		}
		if len(w.out) == 0 {
			return nil, &Error{File: p, Msg: NoMatch}
		}
		for _, m := range w.out {
			i, seen := at[m.Path]
			switch {
			case !seen:
				at[m.Path] = len(l.Files)
				l.Files = append(l.Files, m)
			case m.Folder == "":
				l.Files[i].Folder = "" // named itself: read strictly
			}
		}
		for _, o := range w.other {
			other[o.Path] = o.Folder
		}
		l.Links = append(l.Links, w.links...)
		l.FileLinks = append(l.FileLinks, w.fileLinks...)
	}
	sort.Slice(l.Files, func(i, j int) bool { return l.Files[i].Path < l.Files[j].Path })
	for o, folder := range other {
		if _, ok := at[o]; !ok {
			l.Other = append(l.Other, Entry{Path: o, Folder: folder})
		}
	}
	sort.Slice(l.Other, func(i, j int) bool { return l.Other[i].Path < l.Other[j].Path })
	sort.Strings(l.Links)
	l.Links = slices.Compact(l.Links)
	slices.SortFunc(l.FileLinks, func(a, b Entry) int { return strings.Compare(a.Path, b.Path) })
	l.FileLinks = slices.CompactFunc(l.FileLinks, func(a, b Entry) bool { return a.Path == b.Path })
	return l, nil
}

// Supported reports whether a file called name is one a directory given as input stands
// for: its name ends .json, .jsonl, .ndjson, .eval or .traj (SWE-agent's trajectories),
// optionally followed by .gz, in any case.
func Supported(name string) bool {
	n := strings.ToLower(name)
	n = strings.TrimSuffix(n, ".gz")
	for _, ext := range []string{".json", ".jsonl", ".ndjson", ".eval", ".traj"} {
		if strings.HasSuffix(n, ext) {
			return true
		}
	}
	return false
}

// expandOne returns the walker that found the files one pattern stands for, in no
// particular order; entries counts the entries of folders walked so far.
func expandOne(p string, entries *int) (*walker, error) {
	slash := filepath.ToSlash(p)
	if !doublestar.ValidatePattern(slash) {
		return nil, &Error{File: p, Msg: "bad glob pattern"}
	}
	w := &walker{pattern: p, entries: entries}
	if !hasMeta(slash) {
		// a plain name: a file, or a directory standing for its supported files
		name := filepath.FromSlash(unescape(slash))
		st, err := os.Stat(name)
		if err != nil {
			if lst, lerr := os.Lstat(name); lerr == nil && lst.Mode()&os.ModeSymlink != 0 {
				return nil, w.linkError(name, err)
			}
			if errors.Is(err, os.ErrNotExist) {
				return w, nil
			}
			return nil, &Error{File: name, Msg: fmt.Sprintf("cannot read: %v", unwrapPathError(err))}
		}
		if !st.IsDir() {
			w.out = append(w.out, Entry{Path: name})
			return w, nil
		}
		if err := w.walk(name, "", name, []os.FileInfo{st}); err != nil {
			return nil, err
		}
		return w, nil
	}
	base, rest := doublestar.SplitPattern(path.Clean(slash))
	w.rest = rest
	w.prefix, w.deep = splitPrefix(rest)
	base = filepath.FromSlash(base)
	st, err := os.Stat(base)
	if err != nil || !st.IsDir() {
		return w, nil // the part before the wildcards names no directory: nothing matches
	}
	if err := w.walk(base, "", "", []os.FileInfo{st}); err != nil {
		return nil, err
	}
	return w, nil
}

// walker collects the files under a directory that a pattern matches.
type walker struct {
	pattern string   // as the user wrote it, for errors
	rest    string   // the pattern relative to the directory walked ("" for a directory input)
	prefix  []string // the segments of rest before the first "**"
	deep    bool     // rest holds "**" (or something too complex to prune on)
	out     []Entry
	other   []Entry  // files under a folder that are not of a supported type
	links   []string // links to directories outside their folder, not followed
	// links to files outside their folder, not read
	fileLinks []Entry
	entries   *int // entries of folders walked, for all patterns
}

// splitPrefix returns the segments of a pattern before its first "**", and whether the
// pattern may match below them at any depth. A pattern with braces (whose alternatives may
// hold a slash) is not pruned at all.
func splitPrefix(rest string) ([]string, bool) {
	if strings.Contains(rest, "{") {
		return nil, true
	}
	segs := strings.Split(rest, "/")
	for i, s := range segs {
		if strings.Contains(s, "**") {
			return segs[:i], true
		}
	}
	return segs, false
}

// match reports whether the path rel (slash-separated, relative to the walked directory)
// matches the pattern.
func (w *walker) match(rel string) bool {
	return w.rest != "" && doublestar.MatchUnvalidated(w.rest, rel)
}

// mayMatchBelow reports whether the pattern may match something inside the directory rel,
// which is depth segments deep.
func (w *walker) mayMatchBelow(rel string, depth int) bool {
	if w.rest == "" {
		return false
	}
	if depth < len(w.prefix) {
		return doublestar.MatchUnvalidated(strings.Join(w.prefix[:depth], "/"), rel)
	}
	return w.deep
}

// walk visits the directory dir (rel from the walk's start). Under a directory that was
// named or matched (folder, "" when none), every supported file counts; elsewhere, what the
// pattern matches. ancestors are the directories being walked, dir included, to stop at a link
// loop (compared with os.SameFile: device and inode on Unix).
func (w *walker) walk(dir, rel, folder string, ancestors []os.FileInfo) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return &Error{File: dir, Msg: fmt.Sprintf("cannot read directory: %v", unwrapPathError(err))}
	}
	depth := 1
	if rel != "" {
		depth = strings.Count(rel, "/") + 2
	}
	if folder != "" {
		if *w.entries += len(entries); *w.entries > MaxFolderEntries {
			return &Error{File: folder, Msg: fmt.Sprintf("the folders given hold more than %d files and directories: name the trace files with a pattern instead", MaxFolderEntries)}
		}
	}
	for _, e := range entries { // sorted by name
		name := filepath.Join(dir, e.Name())
		r := e.Name()
		if rel != "" {
			r = rel + "/" + e.Name()
		}
		matched := w.match(r)
		under := folder != ""
		st, err := os.Stat(name) // follows links
		if err != nil {
			if matched || (under && Supported(e.Name())) {
				return w.linkError(name, err)
			}
			continue // a broken entry no one asked for
		}
		if !st.IsDir() {
			if under && e.Type()&os.ModeSymlink != 0 && !within(name, folder) {
				w.fileLinks = append(w.fileLinks, Entry{Path: name, Folder: folder})
				continue
			}
			switch {
			case matched || (under && Supported(e.Name())):
				w.out = append(w.out, Entry{Path: name, Folder: folder})
			case under && st.Mode().IsRegular():
				w.other = append(w.other, Entry{Path: name, Folder: folder})
			}
			continue
		}
		if !under && !matched && !w.mayMatchBelow(r, depth) {
			continue
		}
		for _, a := range ancestors {
			if os.SameFile(a, st) {
				return &Error{File: name, Msg: fmt.Sprintf("symbolic link loop: it leads back to a directory that holds it (while expanding %q)", w.pattern)}
			}
		}
		sub := folder
		if !under && matched {
			sub = name
		}
		if under && e.Type()&os.ModeSymlink != 0 && !within(name, folder) {
			w.links = append(w.links, name)
			continue
		}
		if sub != "" && len(ancestors) > MaxFolderDepth {
			return &Error{File: name, Msg: fmt.Sprintf("more than %d directories deep (while expanding %q): name the trace files with a pattern instead", MaxFolderDepth, w.pattern)}
		}
		if err := w.walk(name, r, sub, append(ancestors[:len(ancestors):len(ancestors)], st)); err != nil {
			return err
		}
	}
	return nil
}

// within reports whether the file or directory the link at name leads to lies inside folder,
// both with every link resolved. It reads no file's content.
func within(name, folder string) bool {
	target, err := filepath.EvalSymlinks(name)
	if err != nil {
		return false
	}
	root, err := filepath.EvalSymlinks(folder)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(root, target)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// linkError is the error for an entry that was asked for but cannot be read: a dangling
// link, a link loop, or a permission problem.
func (w *walker) linkError(name string, err error) *Error {
	switch {
	case errors.Is(err, syscall.ELOOP):
		return &Error{File: name, Msg: fmt.Sprintf("symbolic link loop (matched by %q)", w.pattern)}
	case errors.Is(err, os.ErrNotExist):
		return &Error{File: name, Msg: fmt.Sprintf("dangling symbolic link: its target does not exist (matched by %q)", w.pattern)}
	}
	return &Error{File: name, Msg: fmt.Sprintf("cannot read: %v (matched by %q)", unwrapPathError(err), w.pattern)}
}

// hasMeta reports whether a slash-separated pattern holds a wildcard not escaped by a
// backslash.
func hasMeta(p string) bool {
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '*', '?', '[', '{':
			return true
		}
	}
	return false
}

// unescape removes the backslashes that escape characters in a pattern without wildcards.
func unescape(p string) string {
	if !strings.Contains(p, `\`) {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' && i+1 < len(p) {
			i++
		}
		b.WriteByte(p[i])
	}
	return b.String()
}
