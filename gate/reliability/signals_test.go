package reliability

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

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
// has its rule and its words.
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
		if r.rule == nil {
			t.Errorf("row %s has no rule", r.Name)
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
}

// oracleStruct is the struct encoding/json would write for Signals if it were written out by
// hand, one float64 field for each row of SignalTable, named in JSON as the row (with
// omitempty when omit): the oracle for Signals' own writer.
func oracleStruct(omit bool) reflect.Type {
	fields := make([]reflect.StructField, NumSignals)
	for i, r := range SignalTable {
		tag := r.Name
		if omit {
			tag += ",omitempty"
		}
		fields[i] = reflect.StructField{Name: fmt.Sprintf("S%d", i), Type: reflect.TypeFor[float64](), Tag: reflect.StructTag(`json:"` + tag + `"`)}
	}
	return reflect.StructOf(fields)
}

// checkSignalsJSON holds Signals' writer to encoding/json's for oracleStruct: s is written as
// the struct with the same fields is, with and without its zero members, or refused where
// encoding/json refuses it; and what it writes reads back as s.
func checkSignalsJSON(t *testing.T, s Signals) {
	t.Helper()
	for _, omit := range []bool{false, true} {
		v := reflect.New(oracleStruct(omit)).Elem()
		for i := range s {
			v.Field(i).SetFloat(s[i])
		}
		want, werr := json.Marshal(v.Interface())
		got, gerr := s.AppendJSON(nil, omit)
		if (gerr != nil) != (werr != nil) || (werr == nil && string(got) != string(want)) {
			t.Errorf("%v omitting zeros %v: %s (%v), encoding/json writes %s (%v)", s, omit, got, gerr, want, werr)
		}
		var back Signals
		if err := json.Unmarshal(got, &back); werr == nil && (err != nil || back != s) {
			t.Errorf("%s reads back as %v (%v), want %v", got, back, err, s)
		}
	}
}

// TestSignalsJSON: Signals is written as the struct of one float64 field a row, named as the
// row, would be by encoding/json: members in the table's order, numbers as encoding/json writes
// them (exponents below 1e-6 and from 1e21, -0), zeros left out on request. It is read as that
// struct is: keys matched under case folding, unknown members and nulls ignored, the last of
// two members winning, anything but a number refused with a type error that names the member.
func TestSignalsJSON(t *testing.T) {
	negZero := math.Copysign(0, -1)
	for _, s := range []Signals{
		{}, {0.35, 0, 0.1 + 0.2, 1}, {1e-7, 1e21, 123456789e-20, 5e-324}, {negZero, 0.3333333333333333, 1e20, 0.5},
		{2e-6, 9.99e-7, 1e-6, 999999999999999999999}, {math.NaN(), 0, 0, 0}, {0, 0, 0, math.Inf(1)},
	} {
		checkSignalsJSON(t, s)
	}
	if got, _ := (Signals{0.35, 0, 0.25, 1e-7}).MarshalJSON(); string(got) != `{"hallucination":0.35,"loop":0,"tool_misuse":0.25,"cost":1e-7}` {
		t.Errorf("MarshalJSON = %s", got)
	}
	for _, c := range []struct {
		data  string
		want  Signals
		field string // of the type error
	}{
		{data: `{"hallucination":0.5,"loop":1,"tool_misuse":0.25,"cost":1e-7}`, want: Signals{0.5, 1, 0.25, 1e-7}},
		{data: `{"LOOP":1,"Cost":2}`, want: Signals{0.1, 1, 0, 2}},
		{data: `{"lo\u006fp":1}`, want: Signals{0.1, 1}},
		{data: `{"loop":null,"other":[1,{"a":"\u00e9"}],"cost":3}`, want: Signals{0.1, 0, 0, 3}},
		{data: `{"loop":1,"loop":2}`, want: Signals{0.1, 2}},
		{data: `null`, want: Signals{0.1}},
		{data: "{\"\xae\":{},\"cost\":1}", want: Signals{0.1, 0, 0, 1}},
		{data: `{"loop":"1"}`, field: "loop"},
		{data: `{"cost":true}`, field: "cost"},
		{data: `{"tool_misuse":{}}`, field: "tool_misuse"},
		{data: `[]`},
	} {
		got := Signals{0.1} // what a member absent or null leaves as it is
		err := json.Unmarshal([]byte(c.data), &got)
		var te *json.UnmarshalTypeError
		switch {
		case c.field == "" && c.want == (Signals{}):
			if err == nil {
				t.Errorf("%s: read as %v, want an error", c.data, got)
			}
		case c.field != "":
			if !errors.As(err, &te) || !strings.HasSuffix(te.Field, c.field) {
				t.Errorf("%s: error %v, want a type error about %s", c.data, err, c.field)
			}
		case err != nil || got != c.want:
			t.Errorf("%s: read as %v (%v), want %v", c.data, got, err, c.want)
		}
	}
}

// FuzzSignalsJSON holds Signals' writer to encoding/json's for any scores.
func FuzzSignalsJSON(f *testing.F) {
	f.Add(0.1, 1e-7, math.Copysign(0, -1), 1e21)
	f.Fuzz(func(t *testing.T, a, b, c, d float64) {
		checkSignalsJSON(t, Signals{a, b, c, d})
	})
}
