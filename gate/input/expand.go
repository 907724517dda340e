package input

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/bmatcuk/doublestar/v4"
)

// Expand resolves the inputs a user gave (glob patterns, file names, directory names) into a
// sorted list of distinct files, as SPEC §12 says:
//
//   - A pattern is a glob with GitHub's syntax: `*`, `?`, `[...]`, `{a,b}`, and `**` matching
//     any number of directories (bmatcuk/doublestar does the matching). Symbolic links to
//     directories are followed, as GitHub's glob does.
//   - A directory, named or matched, means every supported file under it, recursively:
//     .json, .jsonl, .ndjson and .eval, and the same with .gz (see Supported).
//   - A pattern that matches nothing is an error: a gate that silently evaluates nothing would
//     pass everything. So is a dangling symbolic link or a link loop that a pattern matches (or
//     that a directory holds under a supported name): skipping it would change the verdict
//     without a word.
//
// Files that are not regular (a FIFO, a device) are listed: Open refuses them with an error
// that names them, rather than their being skipped here.
func Expand(patterns []string) ([]string, error) {
	seen := map[string]bool{}
	var files []string
	for _, p := range patterns {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		matched, err := expandOne(p)
		if err != nil {
			return nil, err
		}
		if len(matched) == 0 {
			return nil, &Error{File: p, Msg: "no files match this pattern"}
		}
		for _, m := range matched {
			if !seen[m] {
				seen[m] = true
				files = append(files, m)
			}
		}
	}
	sort.Strings(files)
	return files, nil
}

// Supported reports whether a file called name is one a directory given as input stands
// for: its name ends .json, .jsonl, .ndjson or .eval, optionally followed by .gz, in any case.
func Supported(name string) bool {
	n := strings.ToLower(name)
	n = strings.TrimSuffix(n, ".gz")
	for _, ext := range []string{".json", ".jsonl", ".ndjson", ".eval"} {
		if strings.HasSuffix(n, ext) {
			return true
		}
	}
	return false
}

// expandOne returns the files one pattern stands for, in no particular order.
func expandOne(p string) ([]string, error) {
	slash := filepath.ToSlash(p)
	if !doublestar.ValidatePattern(slash) {
		return nil, &Error{File: p, Msg: "bad glob pattern"}
	}
	w := &walker{pattern: p}
	if !hasMeta(slash) {
		// a plain name: a file, or a directory standing for its supported files
		name := filepath.FromSlash(unescape(slash))
		st, err := os.Stat(name)
		if err != nil {
			if lst, lerr := os.Lstat(name); lerr == nil && lst.Mode()&os.ModeSymlink != 0 {
				return nil, w.linkError(name, err)
			}
			if errors.Is(err, os.ErrNotExist) {
				return nil, nil
			}
			return nil, &Error{File: name, Msg: fmt.Sprintf("cannot read: %v", unwrapPathError(err))}
		}
		if !st.IsDir() {
			return []string{name}, nil
		}
		if err := w.walk(name, "", true, []os.FileInfo{st}); err != nil {
			return nil, err
		}
		return w.out, nil
	}
	base, rest := doublestar.SplitPattern(path.Clean(slash))
	w.rest = rest
	w.prefix, w.deep = splitPrefix(rest)
	base = filepath.FromSlash(base)
	st, err := os.Stat(base)
	if err != nil || !st.IsDir() {
		return nil, nil // the part before the wildcards names no directory: nothing matches
	}
	if err := w.walk(base, "", false, []os.FileInfo{st}); err != nil {
		return nil, err
	}
	return w.out, nil
}

// walker collects the files under a directory that a pattern matches.
type walker struct {
	pattern string   // as the user wrote it, for errors
	rest    string   // the pattern relative to the directory walked ("" for a directory input)
	prefix  []string // the segments of rest before the first "**"
	deep    bool     // rest holds "**" (or something too complex to prune on)
	out     []string
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
// named or matched (under), every supported file counts; elsewhere, what the pattern matches.
// ancestors are the directories being walked, dir included, to stop at a link loop (compared
// with os.SameFile: device and inode on Unix).
func (w *walker) walk(dir, rel string, under bool, ancestors []os.FileInfo) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return &Error{File: dir, Msg: fmt.Sprintf("cannot read directory: %v", unwrapPathError(err))}
	}
	depth := 1
	if rel != "" {
		depth = strings.Count(rel, "/") + 2
	}
	for _, e := range entries { // sorted by name
		name := filepath.Join(dir, e.Name())
		r := e.Name()
		if rel != "" {
			r = rel + "/" + e.Name()
		}
		matched := w.match(r)
		st, err := os.Stat(name) // follows links
		if err != nil {
			if matched || (under && Supported(e.Name())) {
				return w.linkError(name, err)
			}
			continue // a broken entry no one asked for
		}
		if !st.IsDir() {
			if matched || (under && Supported(e.Name())) {
				w.out = append(w.out, name)
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
		if err := w.walk(name, r, under || matched, append(ancestors[:len(ancestors):len(ancestors)], st)); err != nil {
			return err
		}
	}
	return nil
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
