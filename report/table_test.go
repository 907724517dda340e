package report

import (
	"strings"
	"testing"

	"github.com/olekukonko/tablewriter/tw"

	"github.com/agentgate/agentgate/gate"
)

// The size model that speeds up the cut must match tablewriter's output byte for byte; if a
// tablewriter upgrade breaks it, the cut stays correct (real renderings decide) but slow.
func TestTableSizeModel(t *testing.T) {
	results := map[string]*gate.Result{"fail": failingResult(), "pass": passingResult(), "warn": warnResult(), "big": bigResult(500)}
	for _, name := range []string{"fail", "pass", "warn", "big"} {
		d := newDoc(results[name], Options{})
		for li, l := range d.lists() {
			for _, k := range []int{0, 1, 3, 10, 11, 25, l.len()} {
				if k > l.len() {
					continue
				}
				var b strings.Builder
				d.writeList(&b, l, k)
				if got, want := l.size(k, d.fullReport), b.Len(); got != want {
					t.Errorf("%s list %d, %d rows: predicted %d bytes, tablewriter wrote %d:\n%s", name, li, k, got, want, b.String())
				}
			}
		}
	}
}

// Cells with wide, combining and emoji characters: the model still matches.
func TestTableSizeModelWideCells(t *testing.T) {
	l := rowList{noun: "rows", cols: []column{{"id", tw.AlignLeft}, {"text", tw.AlignLeft}}, rows: [][]string{
		{EscapeCell("中文任务"), EscapeCell("⚠️ ❌ ✅ e\u0301 😀👍🏽")},
		{EscapeCell("x"), ""},
		{EscapeCell("Ünïcödé"), EscapeCell(evilID)},
	}}
	for k := range len(l.rows) + 1 {
		var b strings.Builder
		(&doc{}).writeList(&b, &l, k)
		if got, want := l.size(k, ""), b.Len(); got != want {
			t.Errorf("%d rows: predicted %d bytes, tablewriter wrote %d:\n%s", k, got, want, b.String())
		}
	}
}

// tablewriter facts the report relies on, measured on v1.1.5.
func TestTablewriterFacts(t *testing.T) {
	var b strings.Builder
	writeTable(&b, []column{{"task_id", tw.AlignLeft}, {"n", tw.AlignRight}}, [][]string{{"a|b", "1"}, {"x\ny", "2"}})
	want := "| task_id | n |\n" +
		"|:--------|--:|\n" +
		"| a|b     | 1 |\n" + // "|" is not escaped: EscapeCell must do it
		"| x       | 2 |\n" + // a newline splits the cell into an extra row
		"| y       |   |\n"
	if b.String() != want {
		t.Errorf("tablewriter output changed:\n%s\nwant:\n%s", b.String(), want)
	}
}

// The hand-written fallback is a valid table too.
func TestWriteTableByHand(t *testing.T) {
	md := "\n" + writeTableByHand([]string{"a", "b", "c"}, tw.Alignment{tw.AlignLeft, tw.AlignRight, tw.AlignCenter}, [][]string{{"1", "2", "3"}, {"x\\|y"}}) + "\n"
	checkStructure(t, md)
	want := "\n| a | b | c |\n| :-- | --: | :-: |\n| 1 | 2 | 3 |\n| x\\|y |  |  |\n\n"
	if md != want {
		t.Errorf("got %q, want %q", md, want)
	}
}
