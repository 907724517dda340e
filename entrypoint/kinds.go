package entrypoint

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agentgate/agentgate/gate/input"
)

// explainKind finishes the hint of an input error whose record looks like another kind of
// input (a pairs file given as traces): under Actions it names the action input rather than
// the flag, and when the file came from a folder given to a setting, it says that a folder
// means every JSON file under it. It sets the error's Hint and returns err, which still says
// where the record is; other errors are returned as they are.
func explainKind(err error, cfg *gateConfig, underActions bool) error {
	var ie *input.Error
	if !errors.As(err, &ie) || ie.LooksLike == "" {
		return err
	}
	ie.Hint = input.Hint(ie.LooksLike, !underActions)
	for _, in := range []struct {
		key, files string
		patterns   []string
	}{
		{"traces", "trace files", cfg.inputs.Traces}, {"tasks", "task files", cfg.inputs.Tasks},
		{"pairs", "pairs files", cfg.inputs.Pairs}, {"scholar", "label files", cfg.inputs.Scholar},
		{"auditor", "label files", cfg.inputs.Auditor},
	} {
		for _, p := range in.patterns {
			if st, serr := os.Stat(p); serr != nil || !st.IsDir() {
				continue
			}
			rel, rerr := filepath.Rel(p, ie.File)
			if rerr != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				continue
			}
			setting := "--" + in.key
			if underActions {
				setting = "the " + in.key + " input"
			}
			ie.Hint += " (" + setting + " names the folder " + p + ", which means every JSON file under it: name the " + in.files + " with a pattern instead)"
			return err
		}
	}
	return err
}

// flagBefore is the flag that came before arg in args (the one whose pattern the shell
// expanded), or "" when none did (a file named without its flag).
func flagBefore(args []string, arg string) string {
	i := slices.Index(args, arg)
	for j := i - 1; j >= 0; j-- {
		if strings.HasPrefix(args[j], "-") {
			name, _, _ := strings.Cut(strings.TrimLeft(args[j], "-"), "=")
			return "--" + name
		}
	}
	return ""
}

// expandedGlob reports whether a stray argument looks like what a shell leaves of an
// unquoted pattern: an existing file, or a name with an input file's extension.
func expandedGlob(arg string) bool {
	if strings.HasPrefix(arg, "-") {
		return false
	}
	if st, err := os.Stat(arg); err == nil && !st.IsDir() {
		return true
	}
	return input.Supported(arg)
}

// boolValue returns the flag (as "--comment") when arg follows a bool flag that stands alone
// and is one of the words the flag would take as its value (`--comment false`), the mistake
// of giving a bool flag its value as the next argument; "" otherwise.
func boolValue(fs *flag.FlagSet, args []string, arg string) string {
	i := slices.Index(args, arg)
	if i < 1 || !strings.HasPrefix(args[i-1], "-") || strings.Contains(args[i-1], "=") {
		return ""
	}
	if _, err := strconv.ParseBool(arg); err != nil {
		return ""
	}
	name := strings.TrimLeft(args[i-1], "-")
	f := fs.Lookup(name)
	if f == nil {
		return ""
	}
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok || !b.IsBoolFlag() {
		return ""
	}
	return "--" + name
}
