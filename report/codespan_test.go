package report

import (
	"strings"
	"testing"
)

// outsideCodeSpans is md without its code spans, read as CommonMark reads them: a run of n
// backticks opens a span that the next run of exactly n closes; a backslash outside a span
// escapes the next character. What is left is the text GitHub renders as markdown (mentions,
// links, HTML); what was removed it shows as it is.
func outsideCodeSpans(md string) string {
	var b strings.Builder
	run := func(i int) int {
		n := 0
		for i+n < len(md) && md[i+n] == '`' {
			n++
		}
		return n
	}
	for i := 0; i < len(md); {
		switch {
		case md[i] == '\\' && i+1 < len(md):
			b.WriteString(md[i : i+2])
			i += 2
			continue
		case md[i] != '`':
			b.WriteByte(md[i])
			i++
			continue
		}
		n, closed := run(i), -1
		for j := i + n; j < len(md) && md[j] != '\n'; {
			if m := run(j); m > 0 {
				if m == n {
					closed = j
					break
				}
				j += m
				continue
			}
			j++
		}
		if closed < 0 {
			b.WriteString(md[i : i+n])
			i += n
			continue
		}
		b.WriteString("<code/>")
		i = closed + n
	}
	return strings.ReplaceAll(b.String(), "<code/>", "")
}

// codeContent is the text a code span shows, as CommonMark reads it (one space stripped from
// each end when both ends have one), with a table cell's "\|" read as "|" when cell is set.
func codeContent(span string, cell bool) string {
	n := strings.IndexFunc(span, func(r rune) bool { return r != '`' })
	if n <= 0 || len(span) < 2*n || strings.Trim(span[len(span)-n:], "`") != "" {
		return "not a code span: " + span
	}
	s := span[n : len(span)-n]
	if len(s) >= 2 && s[0] == ' ' && s[len(s)-1] == ' ' && strings.Trim(s, " ") != "" {
		s = s[1 : len(s)-1]
	}
	if cell {
		s = strings.ReplaceAll(s, `\|`, "|")
	}
	return s
}

// Ids go into code spans that show them whole, so a copy finds them: hostile ids included,
// and none of them renders as a mention, link, autolink, HTML or starts a workflow command.
func TestCodeCellKeepsIDsWhole(t *testing.T) {
	for _, id := range []string{
		"9#2", "airline-02", "@org/team", "https://x", "www.example.com", "<img src=x onerror=alert(1)>",
		"a`b", "`lead", "trail`", "``", "a``b```c", "x|y", `back\slash\`, `\|`, "::error::boom",
		":smile:", "GH-12", "a & b", "[link](https://x)", "#12", "retail|<b>4</b>",
	} {
		for _, c := range []struct {
			span string
			cell bool
		}{{CodeCell(id), true}, {codeText(id), false}} {
			if got := codeContent(c.span, c.cell); got != id {
				t.Errorf("%q: span %q shows %q", id, c.span, got)
			}
			if rest := outsideCodeSpans(c.span); rest != "" {
				t.Errorf("%q: %q leaves %q outside the span", id, c.span, rest)
			}
			if c.cell && strings.Count(strings.ReplaceAll(c.span, `\|`, ""), "|") != 0 {
				t.Errorf("%q: %q has a bare | that ends a table cell", id, c.span)
			}
			if strings.HasPrefix(c.span, "::") || strings.ContainsAny(c.span, "\n\r") {
				t.Errorf("%q: %q", id, c.span)
			}
		}
	}
	// Line breaks and control characters become spaces; a workflow command's "##[" is
	// broken, the one change a copy sees; empty stays empty.
	for in, want := range map[string]string{
		"a\nb\r\nc": "`a b c`", "\t x \t": "`x`", "##[error]boom": "`##\u200b[error]boom`", "": "", " \n ": "",
	} {
		if got := CodeCell(in); got != want {
			t.Errorf("CodeCell(%q) = %q, want %q", in, got, want)
		}
	}
	if got := CodeCell(strings.Repeat("x", 300)); got != "`"+strings.Repeat("x", MaxCellRunes-1)+"…`" {
		t.Errorf("long id: %q", got)
	}
}
