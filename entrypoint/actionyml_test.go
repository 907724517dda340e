package entrypoint

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate"
)

// actionKeys returns the names declared under a top-level section of action.yml (two-space
// indented keys), in file order.
func actionKeys(t *testing.T, section string) []string {
	t.Helper()
	b, err := os.ReadFile("../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	key := regexp.MustCompile(`^  ([a-z][a-z0-9-]*):`)
	var out []string
	in := false
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, " ") && strings.HasSuffix(line, ":") {
			in = line == section+":"
			continue
		}
		if m := key.FindStringSubmatch(line); in && m != nil {
			out = append(out, m[1])
		}
	}
	return out
}

// Every setting is an input of action.yml and every input a setting, so that a flag, an input
// and a config key are always the same word; the outputs action.yml declares are the ones the
// action writes.
func TestActionYMLMatchesTheBinary(t *testing.T) {
	inputs := actionKeys(t, "inputs")
	want := slices.DeleteFunc(slices.Clone(settingKeys), func(k string) bool { return k == "json" || k == "markdown" })
	slices.Sort(inputs)
	slices.Sort(want)
	if !slices.Equal(inputs, want) {
		t.Errorf("action.yml inputs %v\nsettings (but json, markdown) %v", inputs, want)
	}
	var written []string
	for _, kv := range outputs(&gate.Result{}, "", "") {
		written = append(written, kv[0])
	}
	if declared := actionKeys(t, "outputs"); !slices.Equal(declared, written) {
		t.Errorf("action.yml outputs %v\nwritten %v", declared, written)
	}
}
