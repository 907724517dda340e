package report

import (
	"fmt"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// column is one table column: its header (trusted text) and alignment.
type column struct {
	head  string
	align tw.Align
}

// writeTable renders a GitHub-flavoured markdown table with tablewriter's markdown renderer.
// Every cell must already be escaped (EscapeCell or trusted text without "|" or line breaks):
// tablewriter escapes nothing and splits cells on newlines.
//
// The options pin what changed between tablewriter releases or would alter the text: header
// auto-format off (else "task_id" becomes "TASK ID"), no wrapping, explicit alignment per
// column. The table ends with a newline.
func writeTable(b *strings.Builder, cols []column, rows [][]string) {
	heads := make([]string, len(cols))
	aligns := make(tw.Alignment, len(cols))
	for i, c := range cols {
		heads[i], aligns[i] = c.head, c.align
	}
	out, err := renderTable(heads, aligns, rows)
	if err != nil {
		// tablewriter fails only on inputs we never give it (a non-slice to Bulk, rendering
		// twice); write the same table by hand rather than lose the report.
		out = writeTableByHand(heads, aligns, rows)
	}
	b.WriteString(out)
}

// renderTable runs tablewriter, turning a panic inside it into an error: the report must be
// written whatever the third-party code does.
func renderTable(heads []string, aligns tw.Alignment, rows [][]string) (s string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("tablewriter panicked: %v", p)
		}
	}()
	var out strings.Builder
	t := tablewriter.NewTable(&out,
		tablewriter.WithRenderer(renderer.NewMarkdown()),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAutoFormat(tw.Off),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithAlignment(aligns),
	)
	t.Header(heads)
	if err := t.Bulk(rows); err != nil {
		return "", err
	}
	if err := t.Render(); err != nil {
		return "", err
	}
	return out.String(), nil
}

// writeTableByHand returns an unpadded markdown table; the fallback of writeTable.
func writeTableByHand(heads []string, aligns tw.Alignment, rows [][]string) string {
	var b strings.Builder
	line := func(cells []string) {
		b.WriteString("|")
		for i := range heads {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			b.WriteString(" " + c + " |")
		}
		b.WriteString("\n")
	}
	line(heads)
	seps := make([]string, len(heads))
	for i, a := range aligns {
		switch a {
		case tw.AlignRight:
			seps[i] = "--:"
		case tw.AlignCenter:
			seps[i] = ":-:"
		default:
			seps[i] = ":--"
		}
	}
	line(seps)
	for _, r := range rows {
		line(r)
	}
	return b.String()
}

// tableSize predicts how many bytes writeTable writes for rows, given the display width of
// every header and row cell (as twwidth.Width, which tablewriter uses, measures them). It
// follows tablewriter v1.1.5's markdown layout: each column is as wide as its widest cell plus
// one space each side, at least 3; each line is "|" + cells padded with spaces to the column
// width, each followed by "|", + "\n"; the separator line has the same widths.
func tableSize(heads []string, headWidths []int, rows [][]string, widths [][]int) int {
	colWidth := make([]int, len(heads))
	for c := range heads {
		colWidth[c] = headWidths[c]
		for _, w := range widths {
			colWidth[c] = max(colWidth[c], w[c])
		}
		colWidth[c] = max(colWidth[c]+2, 3)
	}
	line := 2 // "|" and "\n"
	for _, w := range colWidth {
		line += w + 1
	}
	size := line * (len(rows) + 2)
	// Cells whose bytes outnumber their display width (non-ASCII) add the difference.
	for c, h := range heads {
		size += len(h) - headWidths[c]
	}
	for i, row := range rows {
		for c := range heads {
			if c < len(row) {
				size += len(row[c]) - widths[i][c]
			}
		}
	}
	return size
}
