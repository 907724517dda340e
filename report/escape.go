package report

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxCellRunes is how many characters of untrusted text a table cell keeps; longer text is
// cut and ends in "…".
const MaxCellRunes = 200

// maxProseRunes bounds untrusted text written outside tables (warnings, gate notes).
const maxProseRunes = 600

// zwsp is the zero-width space put after "@" (and after "#" before a digit) so that GitHub
// neither pings a user or team nor links an issue from text taken out of input files.
const zwsp = "\u200b"

// EscapeCell makes untrusted text (ids, reasons, evidence, file names taken from input files)
// safe to place in a markdown table cell of a GitHub comment or job summary:
//
//   - invalid UTF-8 becomes U+FFFD; control characters, tabs and line breaks (including
//     U+2028/U+2029) become spaces, runs of white space collapse to one space and the ends are
//     trimmed, so a cell never spills into extra table rows; bidirectional-override characters
//     are dropped, so an id cannot render reversed;
//   - text longer than MaxCellRunes characters is cut and ends in "…";
//   - `\`, `|`, “`”, `[` and `]` are backslash-escaped, so the text can neither end the cell,
//     open a code span nor form a link or image;
//   - `&`, `<` and `>` become HTML entities, so no HTML is injected;
//   - "@" is followed by a zero-width space, so "@octocat" pings nobody, and so is "#" before a
//     digit, so "#12" links no issue, and the "-" of "GH-12", which GitHub links too;
//   - bare URLs do not autolink: a zero-width space follows the ":" of "http://" and
//     "https://" and precedes the "." of "www.";
//   - emoji shortcodes do not render: a zero-width space follows a ":" that opens
//     ":name:" (letters, digits, "_", "+", "-").
//
// The result is also safe in a markdown paragraph when it does not start the line.
func EscapeCell(s string) string {
	return escapeMarkdown(s, MaxCellRunes)
}

// CodeCell puts an untrusted id (a trace, task, qid or run id) in a code span for a markdown
// table cell of a GitHub comment or job summary, so that a reader can copy it whole: text in
// a code span is shown as it is, and GitHub renders no @mention, issue link, autolink, emoji
// or HTML inside one. The text is flattened to one line and cut as EscapeCell's is; the fence
// is one backtick longer than the longest run of backticks inside, with a space inside each
// end when the text begins or ends with one (CommonMark strips those two spaces); "|" is
// written "\|", which GitHub's table reads as "|" even inside a code span. The one change a
// copy sees is in an id holding "##[", the start of a workflow command anywhere on a runner's
// log line: a zero-width space follows its "##". An empty id stays empty.
func CodeCell(s string) string {
	return strings.ReplaceAll(codeID(s, MaxCellRunes), "|", `\|`)
}

// CellWithCode is EscapeCell for text whose backticks mark code, as the evaluators write their
// evidence ("`book_reservation` failed 3 of 3 times"): each pair of backticks becomes a code
// span of what it holds (made as CodeCell makes one, so nothing inside renders and "|" cannot
// end the cell), the rest is escaped as EscapeCell escapes it, and a backtick left without a
// partner is escaped, as is all of a text that holds "“". Escaping every backtick instead
// showed them, and the backslashes, as written.
func CellWithCode(s string) string {
	s = truncate(flatten(s), MaxCellRunes)
	if strings.Contains(s, "``") {
		return escapeText(s) // no evaluator writes "``": spans side by side would run together
	}
	parts := strings.Split(s, "`")
	var b strings.Builder
	for i, p := range parts {
		switch {
		case i%2 == 0:
			b.WriteString(escapeText(p))
		case i == len(parts)-1:
			b.WriteString("\\`" + escapeText(p)) // no closing backtick
		case strings.TrimSpace(p) == "":
			b.WriteString("\\`" + escapeText(p) + "\\`") // nothing to show in a span: "` `"
		default:
			b.WriteString(CodeCell(p))
		}
	}
	return b.String()
}

// codeText is CodeCell for an id outside a table (in a list of ids in a paragraph), where "|"
// needs no escape, cut at maxInlineIDRunes characters.
func codeText(s string) string {
	return codeID(s, maxInlineIDRunes)
}

// codeID is the code span of CodeCell and codeText, without the table's escape.
func codeID(s string, limit int) string {
	s = truncate(flatten(s), limit)
	if s == "" {
		return ""
	}
	return codeSpan(strings.ReplaceAll(s, "##[", "##"+zwsp+"["))
}

// escapeMarkdown is EscapeCell with a chosen length limit (in characters, before escaping).
func escapeMarkdown(s string, limit int) string {
	return escapeText(truncate(flatten(s), limit))
}

// escapeText is escapeMarkdown's escaping alone, for text already flattened and cut.
func escapeText(s string) string {
	if !strings.ContainsAny(s, "\\|`[]&<>@#:-.") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	for i, r := range s {
		switch r {
		case '\\', '|', '`', '[', ']':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '@':
			b.WriteString("@" + zwsp)
		case '#':
			b.WriteByte('#')
			if i+1 < len(s) && isDigit(s[i+1]) {
				b.WriteString(zwsp)
			}
		case '-':
			b.WriteByte('-')
			if i+1 < len(s) && isDigit(s[i+1]) && wordBefore(s, i, "gh") {
				b.WriteString(zwsp)
			}
		case ':':
			b.WriteByte(':')
			if strings.HasPrefix(s[i+1:], "//") && (wordBefore(s, i, "http") || wordBefore(s, i, "https")) || isShortcode(s[i+1:]) {
				b.WriteString(zwsp)
			}
		case '.':
			if wordBefore(s, i, "www") {
				b.WriteString(zwsp)
			}
			b.WriteByte('.')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isWordByte reports an ASCII letter, digit or "_".
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) || c == '_'
}

// wordBefore reports whether s[:i] ends in word (ASCII, any case) standing on its own: not
// preceded by a letter, digit or "_", as GitHub's autolinks require.
func wordBefore(s string, i int, word string) bool {
	start := i - len(word)
	if start < 0 || !strings.EqualFold(s[start:i], word) {
		return false
	}
	return start == 0 || !isWordByte(s[start-1])
}

// isShortcode reports whether rest (the text after a ":") is "name:…", an emoji shortcode's
// name and closing colon.
func isShortcode(rest string) bool {
	n := 0
	for n < len(rest) && (isWordByte(rest[n]) || rest[n] == '+' || rest[n] == '-') {
		n++
	}
	return n > 0 && n < len(rest) && rest[n] == ':'
}

// plain makes untrusted text safe for a terminal or an annotation: one line, no control
// characters (so no ANSI escape sequences), at most limit characters. It adds no markdown
// escaping.
func plain(s string, limit int) string {
	return truncate(flatten(s), limit)
}

// flatten replaces invalid UTF-8 with U+FFFD, turns control characters and every kind of
// white space into single spaces, drops bidirectional controls and trims the ends.
func flatten(s string) string {
	if isFlat(s) {
		return s
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case isBidiControl(r):
			continue
		case unicode.IsSpace(r) || unicode.IsControl(r):
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// isFlat reports whether s is printable ASCII with single inner spaces: what flatten returns
// unchanged, and what most ids and evidence are.
func isFlat(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ' ' {
			if i == 0 || i == len(s)-1 || s[i+1] == ' ' {
				return false
			}
			continue
		}
		if c < 0x21 || c > 0x7e {
			return false
		}
	}
	return true
}

// isBidiControl reports the embedding, override and isolate characters that can make text
// render in a different order than it is stored.
func isBidiControl(r rune) bool {
	return (r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069')
}

// truncate cuts s to at most limit characters, the last of which is "…" when it cut.
func truncate(s string, limit int) string {
	if limit <= 0 || utf8.RuneCountInString(s) <= limit {
		return s
	}
	n := 0
	for i := range s {
		if n == limit-1 {
			return strings.TrimRight(s[:i], " ") + "…"
		}
		n++
	}
	return s
}
