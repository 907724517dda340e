package report

import (
	"bufio"
	"io"
	"strings"

	"github.com/agentgate/agentgate/gate/agreement"
)

// DisagreementsTSV writes the items whose two labels differ, in the given order, as the seed
// scorer's disagreements TSV: the header "qid\tscholar\tauditor\tfinal\twhy", then one line
// per item. Tabs, line breaks and other control characters inside a field become spaces, so
// every line has exactly five fields; a field that a spreadsheet would take for a formula gets a
// leading "'" (see tsvField). The header is written even when no item disagrees.
func DisagreementsTSV(w io.Writer, items []agreement.Item) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("qid\tscholar\tauditor\tfinal\twhy\n")
	for _, it := range items {
		if it.Scholar == it.Auditor {
			continue
		}
		for i, f := range []string{it.QID, it.Scholar, it.Auditor, it.Final, it.Why} {
			if i > 0 {
				bw.WriteByte('\t')
			}
			bw.WriteString(tsvField(f))
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// tsvField replaces control characters (tabs and line breaks among them) with spaces. Unlike
// the report's other text it is neither trimmed nor shortened: the TSV is data. A field that
// starts with "=", "+", "-", "@", a tab or a carriage return, which a spreadsheet opening the
// file would run as a formula, is prefixed with a single quote, as OWASP recommends against
// CSV injection: ids and reasons come from the validators' files.
func tsvField(s string) string {
	if s != "" && strings.IndexByte("=+-@\t\r", s[0]) >= 0 {
		s = "'" + s
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '\u0085' || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
}
