package entrypoint

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/agentgate/agentgate/internal/github/actions"
	"github.com/agentgate/agentgate/internal/github/checks"
)

// The README's workflow example shows the check run and a success gate with the permission
// they need, and every `with:` of an agentgate step in the README and docs/ is an input.
func TestWorkflowExamplesUseRealInputs(t *testing.T) {
	readme := readDoc(t, "../README.md")
	first := regexp.MustCompile("(?s)## Use it in a workflow\n.*?```yaml\n(.*?)```").FindStringSubmatch(readme)
	if first == nil {
		t.Fatal("README.md: no workflow example under \"Use it in a workflow\"")
	}
	var ex struct {
		Permissions map[string]string
		Steps       []struct {
			Uses string
			With map[string]string
		}
	}
	if err := yaml.Unmarshal([]byte(first[1]), &ex); err != nil {
		t.Fatalf("README.md's workflow example: %v", err)
	}
	if ex.Permissions["checks"] != "write" || ex.Permissions["pull-requests"] != "write" {
		t.Errorf("README example permissions %v: want checks: write and pull-requests: write", ex.Permissions)
	}
	i := slices.IndexFunc(ex.Steps, func(s struct {
		Uses string
		With map[string]string
	}) bool {
		return strings.HasPrefix(s.Uses, "agentgate/agentgate@")
	})
	if i < 0 || ex.Steps[i].With["check-name"] == "" || ex.Steps[i].With["success-rate-min"] == "" || ex.Steps[i].With["outcomes"] == "" {
		t.Errorf("README example step %+v: want check-name, success-rate-min and outcomes", ex.Steps)
	}

	inputs := map[string]bool{}
	for _, d := range settingTable {
		if d.where&asInput != 0 {
			inputs[d.name] = true
		}
	}
	docs := []string{"../README.md", "../docs/reference.md", "../docs/comparison-and-statistics.md"}
	withKey := regexp.MustCompile(`^(\s+)with:\s*$`)
	key := regexp.MustCompile(`^\s+([a-z][a-z0-9-]*):`)
	n := 0
	for _, f := range docs {
		lines := strings.Split(readDoc(t, f), "\n")
		for j, l := range lines {
			if !strings.Contains(l, "uses: agentgate/agentgate@") || j+1 >= len(lines) {
				continue
			}
			m := withKey.FindStringSubmatch(lines[j+1])
			if m == nil {
				continue
			}
			for _, kl := range lines[j+2:] {
				if len(kl)-len(strings.TrimLeft(kl, " ")) <= len(m[1]) {
					break
				}
				if k := key.FindStringSubmatch(kl); k != nil {
					n++
					if !inputs[k[1]] {
						t.Errorf("%s: an agentgate step's `with:` names %q, which is no input", f, k[1])
					}
				}
			}
		}
	}
	if n < 10 {
		t.Errorf("only %d inputs found in the docs' agentgate steps: the scan is broken", n)
	}
}

// The Branch protection section exists, the README links to it, and the figures it gives are
// the code's.
func TestBranchProtectionDocs(t *testing.T) {
	readme, ref, yml := readDoc(t, "../README.md"), readDoc(t, "../docs/reference.md"), readDoc(t, "../action.yml")
	if !strings.Contains(readme, "(docs/reference.md#branch-protection)") || !strings.Contains(readme, "**Branch protection**") {
		t.Error("README.md does not link to docs/reference.md#branch-protection")
	}
	_, sec, ok := strings.Cut(ref, "\n## Branch protection\n")
	if !ok {
		t.Fatal("docs/reference.md has no Branch protection section")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	for _, s := range []string{
		"`check-name`", "`checks: write`", "Resource not accessible by integration", "from forks",
		"read-only token", "job's own", "`neutral`", "Linux runners only", "65,535 characters",
		"at most " + strconv.Itoa(checks.AnnotationsPerRequest) + " annotations per request",
		"50, 50 and 20", "up to 1,000 per check run", "at most " + strconv.Itoa(actions.MaxAnnotations) + ",",
		"10\n  errors, 10 warnings and 10 notices per step",
	} {
		if !strings.Contains(sec, s) {
			t.Errorf("the Branch protection section does not say %q", s)
		}
	}
	if checks.MaxAnnotations != 1000 || checks.AnnotationsPerRequest != 50 || actions.MaxAnnotations != 10 {
		t.Error("the caps changed: update docs/reference.md's Branch protection and this test")
	}
	if !strings.Contains(yml, "`checks: write` for the check run of `check-name`") {
		t.Error("action.yml's permissions comment does not name checks: write")
	}
}

func readDoc(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
