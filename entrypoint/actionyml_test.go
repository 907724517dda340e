package entrypoint

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/agentgate/agentgate/gate"
)

// The settings and outputs are declared once, in settingTable and outputTable; action.yml's
// inputs and outputs and the README's tables are generated from them. This flag rewrites them.
var updateSettings = flag.Bool("update-settings", false, "rewrite action.yml's inputs and outputs and the README's tables from settingTable")

const regenerate = "go test ./entrypoint -run 'TestActionYML|TestREADMETables' -update-settings"

// actionSections is action.yml's inputs and outputs sections as the tables make them.
func actionSections() (inputs, outputs string) {
	var b strings.Builder
	for _, d := range settingTable {
		if d.where&asInput == 0 {
			continue
		}
		fmt.Fprintf(&b, "  %s:\n    description: >-\n%s    required: false\n", d.name, folded(d.inputDescription(), "      "))
		if d.actionDefault != "" {
			fmt.Fprintf(&b, "    default: %q\n", d.actionDefault)
		}
	}
	inputs = b.String()
	b.Reset()
	for _, o := range outputTable {
		fmt.Fprintf(&b, "  %s:\n    description: >-\n%s", o.name, folded(o.help, "      "))
	}
	return inputs, b.String()
}

// folded writes text as the lines of a YAML folded block (>-), at most 100 columns wide.
func folded(text, indent string) string {
	var b, line strings.Builder
	for _, w := range strings.Fields(text) {
		if line.Len() > 0 && len(indent)+line.Len()+1+len(w) > 100 {
			b.WriteString(indent + line.String() + "\n")
			line.Reset()
		}
		if line.Len() > 0 {
			line.WriteByte(' ')
		}
		line.WriteString(w)
	}
	b.WriteString(indent + line.String() + "\n")
	return b.String()
}

// replaceBetween replaces what lies between begin and end in text (both kept); ok is false
// when they are not there once each, in that order.
func replaceBetween(text, begin, end, with string) (string, bool) {
	i := strings.Index(text, begin)
	if i < 0 || strings.Count(text, begin) != 1 {
		return text, false
	}
	j := strings.Index(text[i+len(begin):], end)
	if j < 0 {
		return text, false
	}
	j += i + len(begin)
	return text[:i+len(begin)] + with + text[j:], true
}

// TestActionYMLFromTheTable: action.yml's inputs and outputs are exactly what the tables make,
// and read back as YAML they say what the tables say.
func TestActionYMLFromTheTable(t *testing.T) {
	b, err := os.ReadFile("../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	inputSection, outputSection := actionSections()
	want, ok := replaceBetween(string(b), "\ninputs:\n", "\noutputs:\n", inputSection)
	if ok {
		want, ok = replaceBetween(want, "\noutputs:\n", "\nruns:\n", outputSection)
	}
	if !ok {
		t.Fatal("action.yml has no inputs:, outputs: and runs: sections in that order")
	}
	if want != string(b) {
		if *updateSettings {
			if err := os.WriteFile("../action.yml", []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
		} else {
			t.Errorf("action.yml's inputs or outputs differ from settingTable and outputTable; run %s", regenerate)
		}
	}

	var doc struct {
		Inputs  yaml.Node
		Outputs yaml.Node
	}
	if err := yaml.Unmarshal([]byte(want), &doc); err != nil {
		t.Fatal(err)
	}
	type input struct {
		Description string
		Required    bool
		Default     *string
	}
	var names []string
	for i := 0; i+1 < len(doc.Inputs.Content); i += 2 {
		name := doc.Inputs.Content[i].Value
		names = append(names, name)
		var in input
		if err := doc.Inputs.Content[i+1].Decode(&in); err != nil {
			t.Fatal(err)
		}
		d := settingTable[slices.IndexFunc(settingTable, func(d settingDef) bool { return d.name == name })]
		if in.Description != d.inputDescription() || in.Required || (in.Default == nil) != (d.actionDefault == "") || in.Default != nil && *in.Default != d.actionDefault {
			t.Errorf("input %s reads back as %+v", name, in)
		}
	}
	var wantNames []string
	for _, d := range settingTable {
		if d.where&asInput != 0 {
			wantNames = append(wantNames, d.name)
		}
	}
	if !slices.Equal(names, wantNames) {
		t.Errorf("action.yml inputs %v\nwant %v", names, wantNames)
	}
	var declared []string
	for i := 0; i+1 < len(doc.Outputs.Content); i += 2 {
		declared = append(declared, doc.Outputs.Content[i].Value)
		var o struct{ Description string }
		if err := doc.Outputs.Content[i+1].Decode(&o); err != nil {
			t.Fatal(err)
		}
		if o.Description != outputTable[i/2].help {
			t.Errorf("output %s reads back as %q", declared[len(declared)-1], o.Description)
		}
	}
	// the outputs the action writes are the declared ones, in the same order
	var written []string
	for _, kv := range outputs(&gate.Result{}, "", "") {
		written = append(written, kv[0])
	}
	if !slices.Equal(declared, written) {
		t.Errorf("action.yml outputs %v\nwritten %v", declared, written)
	}
}

// The README's inputs and outputs tables are generated from the tables too; they may move to
// docs/, where they are looked for as well.
func TestREADMETables(t *testing.T) {
	files, _ := filepath.Glob("../docs/*.md")
	files = append([]string{"../README.md"}, files...)
	for _, table := range []struct{ name, text string }{{"inputs", readmeInputs()}, {"outputs", readmeOutputs()}} {
		begin := fmt.Sprintf("<!-- %s:begin (generated from settingTable by `%s`) -->\n", table.name, regenerate)
		end := fmt.Sprintf("<!-- %s:end -->\n", table.name)
		found := 0
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), begin) {
				continue
			}
			found++
			want, ok := replaceBetween(string(b), begin, end, table.text)
			switch {
			case !ok:
				t.Errorf("%s: the %s table has no end marker %q", f, table.name, end)
			case want != string(b) && *updateSettings:
				if err := os.WriteFile(f, []byte(want), 0o644); err != nil {
					t.Fatal(err)
				}
			case want != string(b):
				t.Errorf("%s: the %s table differs from settingTable; run %s", f, table.name, regenerate)
			}
		}
		if found != 1 {
			t.Errorf("the %s table's begin marker is in %d files, want 1: %q", table.name, found, begin)
		}
	}
}
