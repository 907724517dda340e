package comment

import (
	"strings"
	"unicode/utf8"
)

// DefaultMarker is the hidden HTML comment that identifies agentgate's report
// comment among all comments of a pull request. GitHub does not render it.
const DefaultMarker = "<!-- agentgate:report -->"

// MaxBodyChars is GitHub's limit on the body of an issue or pull-request
// comment; a longer body is refused with 422.
const MaxBodyChars = 65536

// truncationNote ends a body that was cut to fit MaxBodyChars.
const truncationNote = "\n\n> [!NOTE]\n> This report was cut to fit GitHub's limit of 65,536 characters per comment. " +
	"The job summary and the JSON report (`report-json` output) have it in full.\n"

// Compose returns the exact body Upsert posts: body with marker on a line of
// its own at the top (unless that is already body's first line), cut to at
// most MaxBodyChars characters. The renderer already cuts long tables at row
// boundaries; Compose is the guarantee behind it, so that no input can make
// the comment fail with 422.
func Compose(marker, body string) string {
	return Fit(withMarker(marker, body), MaxBodyChars)
}

// withMarker puts marker (default DefaultMarker) on the first line of body
// unless it is already there. The marker anywhere else (a trace that quotes
// it) does not count: only the first line says whose comment it is.
func withMarker(marker, body string) string {
	if marker == "" {
		marker = DefaultMarker
	}
	if Marked(marker, body) {
		return body
	}
	return marker + "\n" + body
}

// Marked reports whether body is marked as a report comment: its first line is
// marker, as withMarker writes it (trailing white space and a carriage return
// aside, which an edit in GitHub's web editor may leave). The marker elsewhere
// in a body, such as another bot's comment quoting the pull request's text or
// a report that quotes a trace, does not make it one.
func Marked(marker, body string) bool {
	first, _, _ := strings.Cut(body, "\n")
	return strings.TrimRight(first, " \t\r") == marker
}

// Fit returns s unchanged when it has at most limit characters. Otherwise it
// keeps the longest run of whole lines from the start that, together with a
// note saying the report was cut, fits in limit, closes a code fence left open
// by the cut, and appends the note. A first line longer than the limit is cut
// at a character boundary.
//
// Characters are counted as UTF-16 code units, the larger of the two counts
// GitHub might apply (code points or UTF-16 units; they differ only for
// characters outside the Basic Multilingual Plane such as most emoji), so a
// body Fit accepts is never too long for GitHub.
func Fit(s string, limit int) string {
	return FitWith(s, limit, truncationNote)
}

// FitWith is Fit with another note for a cut text: what it was cut to fit and where it is whole
// (a check run's summary points at the job summary).
func FitWith(s string, limit int, note string) string {
	if Chars(s) <= limit {
		return s
	}
	const fenceClose = "```\n"                            // or ~~~, same length
	budget := limit - Chars(note) - Chars(fenceClose) - 1 // 1: a newline before the fence
	if budget < 0 {
		budget = 0
	}
	cut, used := 0, 0
	for cut < len(s) {
		end := strings.IndexByte(s[cut:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += cut + 1
		}
		n := Chars(s[cut:end])
		if used+n > budget {
			break
		}
		used += n
		cut = end
	}
	if cut == 0 {
		// Not even the first line fits: cut it at a character boundary.
		for i, r := range s {
			n := runeChars(r)
			if used+n > budget {
				break
			}
			used += n
			cut = i + utf8.RuneLen(r)
			if r == utf8.RuneError {
				cut = i + 1
			}
		}
	}
	kept := s[:cut]
	if fence := openFence(kept); fence != "" {
		if !strings.HasSuffix(kept, "\n") {
			kept += "\n"
		}
		kept += fence + "\n"
	}
	return kept + note
}

// Chars counts s in UTF-16 code units (see Fit).
func Chars(s string) int {
	n := 0
	for _, r := range s {
		n += runeChars(r)
	}
	return n
}

func runeChars(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}

// openFence returns the fence (``` or ~~~) of a fenced code block that s
// ends inside, or "" when s ends outside any. Fences are lines that start,
// after at most three spaces, with three or more backticks or tildes; only
// the opening kind closes a block.
func openFence(s string) string {
	open := ""
	for line := range strings.SplitSeq(s, "\n") {
		t := strings.TrimLeft(line, " ")
		if len(line)-len(t) > 3 {
			continue
		}
		for _, f := range []string{"```", "~~~"} {
			if !strings.HasPrefix(t, f) {
				continue
			}
			switch open {
			case "":
				open = f
			case f:
				open = ""
			}
		}
	}
	return open
}
