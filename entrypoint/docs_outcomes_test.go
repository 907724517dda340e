package entrypoint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocOutcomes keeps the tau-bench run of docs/comparison-and-statistics.md true: the log
// lines and the outcomes section it shows are what the gate prints and renders for the real
// sample today.
func TestDocOutcomes(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(refData(t, "transcripts/tau-bench-airline-sample.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tau-bench-airline-sample.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, log, stderr := runIn(t, dir, "gate", "--traces", "tau-bench-airline-sample.json", "--markdown", "report.md")
	if code != 2 {
		t.Fatalf("exit %d, want 2 (a FAIL trace): %s", code, stderr)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../docs/comparison-and-statistics.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	report := string(md)
	// the outcomes section comes first and ends where the next section starts
	i := strings.Index(report, "### Outcomes")
	j := i + 1 + strings.Index(report[i+1:], "\n### ")
	if i < 0 || j <= i {
		t.Fatalf("the report has no outcomes section:\n%s", report)
	}
	section := strings.TrimRight(report[i:j], "\n") + "\n````"
	if !strings.Contains(text, "````markdown\n"+section) {
		t.Errorf("docs/comparison-and-statistics.md's tau-bench outcomes section is stale; the report's is:\n%s", section)
	}
	for _, l := range strings.Split(log, "\n") {
		if strings.HasPrefix(l, "Outcomes:") || strings.HasPrefix(l, "  10 failed runs") || strings.HasPrefix(l, "Repeated trials") {
			if !strings.Contains(text, "\n"+l+"\n") {
				t.Errorf("docs/comparison-and-statistics.md lacks the log line %q", l)
			}
		}
	}
	if !strings.Contains(text, "agentgate gate --traces tau-bench-airline-sample.json --markdown report.md") {
		t.Error("docs/comparison-and-statistics.md lacks the command")
	}
}
