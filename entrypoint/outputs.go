package entrypoint

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// outputFiles are the settings that name a file the gate writes, each with the name such a
// file usually has (for the hint when a folder is given). A new output joins this list, and
// its path is then checked with the others before any input is read.
var outputFiles = []struct{ key, example string }{
	{"json", "report.json"},
	{"markdown", "report.md"},
	{"junit", "report.xml"},
	{"sarif", "report.sarif"},
	{"otel", "evaluations.jsonl"},
}

// checkOutputs makes sure every output file the settings name can be written, before any
// input is read: a report of a large suite takes a while, and a run that then fails on
// "rename … file exists" has wasted it. A folder, a parent that is a file, a place where no
// file can be created and two outputs naming one file are errors naming the setting. A
// missing parent folder is fine when it can be created (the report creates it, as the action
// does for .agentgate/report.json).
func checkOutputs(s settings) error {
	seen := map[string]string{}
	for _, o := range outputFiles {
		v, ok := s[o.key]
		if !ok || v.value == "" {
			continue
		}
		name, path := settingName(o.key, v.source), v.value
		st, err := os.Stat(path)
		if err == nil && st.IsDir() || strings.HasSuffix(path, string(filepath.Separator)) || strings.HasSuffix(path, "/") {
			return fmt.Errorf("%s: %s is a directory: name the file to write, as in %s", name, path, filepath.Join(path, o.example))
		}
		clean, err := filepath.Abs(path)
		if err != nil {
			clean = filepath.Clean(path)
		}
		if other, dup := seen[clean]; dup {
			return fmt.Errorf("%s: %s is also the %s output: give each output its own file", name, path, other)
		}
		seen[clean] = o.key
		if err := creatable(path); err != nil {
			return fmt.Errorf("%s: cannot write %s: %v", name, path, err)
		}
	}
	return nil
}

// creatable reports why no file can be created at path: its nearest existing ancestor is not
// a folder, or no file can be created in it (tried with a temporary file, removed at once:
// permission bits do not tell, for root or on a read-only file system).
func creatable(path string) error {
	dir := filepath.Dir(filepath.Clean(path))
	for {
		st, err := os.Stat(dir)
		if err == nil {
			if !st.IsDir() {
				return fmt.Errorf("%s is not a directory", dir)
			}
			break
		}
		up := filepath.Dir(dir)
		if up == dir {
			return fmt.Errorf("%v", unwrapPath(err))
		}
		dir = up
	}
	f, err := os.CreateTemp(dir, ".agentgate-check-*")
	if err != nil {
		return fmt.Errorf("cannot create a file in %s (%v)", dir, unwrapPath(err))
	}
	f.Close()
	return os.Remove(f.Name())
}

// settingName names a setting as the user gave it: "--json", "input json", or
// "agentgate.yml:3: json" for a config file's line.
func settingName(key, source string) string {
	switch source {
	case "--" + key, "input " + key:
		return source
	case "":
		return key
	}
	return source + ": " + key
}
