package trace

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/internal/docblock"
)

var updateRegistry = flag.Bool("update-registry", false, "rewrite the registry table in docs/trace-formats.md")

// The registry table of docs/trace-formats.md lies between these lines.
const (
	tableStart = "<!-- registry table: from gate/trace's rows; go test ./gate/trace -run TestRegistryTable -update-registry -->\n"
	tableEnd   = "<!-- end of the registry table -->\n"
)

// registryTable is the docs' table of the registry's rows.
func registryTable() string {
	var b strings.Builder
	b.WriteString("| format | recognised by | turns under | identity | outcome | usage | terminal tools |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	cell := func(s string) string {
		if s == "" {
			return "–"
		}
		return strings.ReplaceAll(s, "|", `\|`)
	}
	for _, h := range Harnesses() {
		tools := make([]string, len(h.TerminalTools))
		for i, t := range h.TerminalTools {
			tools[i] = "`" + t + "`"
		}
		b.WriteString("| " + strings.Join([]string{cell(h.Name), cell(h.Recognised), cell(h.Turns), cell(h.Identity),
			cell(h.Outcome), cell(h.Usage), cell(strings.Join(tools, ", "))}, " | ") + " |\n")
	}
	return b.String()
}

// TestRegistryTable: the table of docs/trace-formats.md is the registry's rows, so that what the
// docs say of a harness is what its row holds.
func TestRegistryTable(t *testing.T) {
	docblock.Check(t, filepath.Join("..", "..", "docs", "trace-formats.md"), tableStart, tableEnd, registryTable(), *updateRegistry,
		"go test ./gate/trace -run TestRegistryTable -update-registry")
}

// TestRegistryRows: every row has a reader, a name and its rules; formats are distinct; only the
// last row recognises nothing; Of finds every row.
func TestRegistryRows(t *testing.T) {
	if err := checkRegistry(); err != nil {
		t.Fatal(err)
	}
	for _, h := range Harnesses() {
		if h.Name == "" || h.Recognised == "" || h.Turns == "" || h.Identity == "" || h.Outcome == "" || h.Usage == "" {
			t.Errorf("%v: a rule is not stated: %+v", h.Format, *h)
		}
		if Of(h.Format) != h {
			t.Errorf("Of(%v) is not its row", h.Format)
		}
	}
}

// TestReadDoesNotSniff: Read hands a file to the reader of the format the plan recognised, without
// looking at the file again: a file of records given as an AgentDojo result is read by
// AgentDojo's reader, which finds no user task.
func TestReadDoesNotSniff(t *testing.T) {
	f := filepath.Join(t.TempDir(), "run.json")
	if err := os.WriteFile(f, []byte(`{"trace_id": "a", "messages": [{"role": "user", "content": "hi"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := Sniff(f); err != nil || got != FormatRecords {
		t.Fatalf("Sniff = %v, %v; want records", got, err)
	}
	err := Read(context.Background(), File{Path: f, Format: FormatAgentDojo}, Options{}, func(*Trace) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "an AgentDojo result without a user task id") {
		t.Errorf("Read as AgentDojo: %v", err)
	}
}

// TestTerminalTools: a trace carries the terminal tools of its format's row (OpenHands' finish,
// Inspect's submit), which the reliability evaluator reads.
func TestTerminalTools(t *testing.T) {
	for _, c := range []struct {
		file string
		want string
	}{
		{"testdata/formats/openhands/output.jsonl", "finish"},
		{"testdata/formats/inspect-tools.json", "submit"},
		{"testdata/formats/inspect-tools.eval", "submit"},
		{"testdata/formats/tau2-telecom.json", ""},
	} {
		format, err := Sniff(c.file)
		if err != nil {
			t.Fatal(err)
		}
		err = Read(context.Background(), File{Path: c.file, Format: format}, Options{}, func(tr *Trace) error {
			if got := strings.Join(tr.TerminalTools, ","); got != c.want {
				t.Errorf("%s: %s: terminal tools %q, want %q", c.file, tr.ID, got, c.want)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
