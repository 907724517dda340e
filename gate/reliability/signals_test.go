package reliability

import (
	"flag"
	"fmt"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/trace"
	"github.com/agentgate/agentgate/internal/docblock"
)

var updateSignals = flag.Bool("update-signals", false, "rewrite the signal table in docs/reference.md")

const (
	signalDocStart = "<!-- signal table: from gate/reliability's SignalTable; go test ./gate/reliability -run TestSignalTableDoc -update-signals -->\n"
	signalDocEnd   = "<!-- end of the signal table -->\n"
)

// signalDoc is docs/reference.md's signal section as SignalTable says it: a table of the rows,
// then a section per signal at its anchor.
func signalDoc() string {
	var b strings.Builder
	b.WriteString("| signal | weight | critical at | a critical score | what it flags |\n|---|---|---|---|---|\n")
	for _, r := range SignalTable {
		does := "makes the trace WARN"
		if r.Fails {
			does = "fails the trace"
		}
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s | %s | %s |\n", r.Name, r.Doc,
			strconv.FormatFloat(r.Weight, 'f', -1, 64), strconv.FormatFloat(r.Limit, 'f', -1, 64), does, r.Short)
	}
	for _, r := range SignalTable {
		fmt.Fprintf(&b, "\n### %s\n\n%s\n", r.Doc, r.Help)
	}
	b.WriteString("\n")
	return b.String()
}

// TestSignalTableDoc: docs/reference.md's signal section is written from SignalTable, so a
// row added, or a weight or threshold changed, shows there.
func TestSignalTableDoc(t *testing.T) {
	docblock.Check(t, filepath.Join("..", "..", "docs", "reference.md"), signalDocStart, signalDocEnd, signalDoc(), *updateSignals,
		"go test ./gate/reliability -run TestSignalTableDoc -update-signals")
}

// TestSignalTable: the rows are what RS-1 1.0.0's policy says (weights summing to 1; FAIL at
// 0.8 on hallucination and loop, WARN at 0.7 on tool_misuse and at 0.9 on cost), every row
// has its rule and its words, and Signals has one field per row, in its order, named in JSON
// as the row, which Values and signalsOf read.
func TestSignalTable(t *testing.T) {
	want := []struct {
		name          string
		weight, limit float64
		fails         bool
	}{
		{"hallucination", 0.35, 0.8, true}, {"loop", 0.25, 0.8, true}, {"tool_misuse", 0.25, 0.7, false}, {"cost", 0.15, 0.9, false},
	}
	if len(SignalTable) != len(want) {
		t.Fatalf("%d rows; RS-1 has %d signals", len(SignalTable), len(want))
	}
	sum := 0.0
	for i, w := range want {
		r := SignalTable[i]
		if r.Name != w.name || r.Weight != w.weight || r.Limit != w.limit || r.Fails != w.fails {
			t.Errorf("row %d: %s weight %v limit %v fails %v; want %+v", i, r.Name, r.Weight, r.Limit, r.Fails, w)
		}
		if _, _, ok := newEval(&trace.Trace{}, false).score(i); !ok {
			t.Errorf("row %s has no rule in score", r.Name)
		}
		if r.Doc == "" || r.Title == "" || r.Short == "" || r.Help == "" || r.details[3] == "" {
			t.Errorf("row %s: a rule or its words are missing", r.Name)
		}
		sum += r.Weight
		if SignalIndex(r.Name) != i {
			t.Errorf("SignalIndex(%q) = %d, want %d", r.Name, SignalIndex(r.Name), i)
		}
	}
	if sum != 1 {
		t.Errorf("the weights sum to %v, not 1", sum)
	}
	if SignalIndex(SignalTrace) != -1 {
		t.Errorf("SignalIndex(%q) = %d, want -1", SignalTrace, SignalIndex(SignalTrace))
	}
	st := reflect.TypeOf(Signals{})
	if st.NumField() != NumSignals {
		t.Fatalf("Signals has %d fields for %d rows", st.NumField(), NumSignals)
	}
	var v [NumSignals]float64
	for i := range v {
		v[i] = float64(i + 1)
		if tag := st.Field(i).Tag.Get("json"); tag != SignalTable[i].Name {
			t.Errorf("Signals field %d is %q in JSON; its row is %q", i, tag, SignalTable[i].Name)
		}
	}
	s := signalsOf(v)
	for i := range v {
		if got := reflect.ValueOf(s).Field(i).Float(); got != v[i] {
			t.Errorf("signalsOf puts %v in field %d, want %v", got, i, v[i])
		}
	}
	if s.Values() != v {
		t.Errorf("Values() = %v, want %v", s.Values(), v)
	}
}
