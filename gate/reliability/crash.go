package reliability

import (
	"strconv"
	"strings"
)

// A run that ends in a crash is at least WARN in the default profile, whatever its signals:
// its last message from the agent's side (the assistant's, or one carrying tool results) holds
// a Python traceback or an unhandled error ("Error processing …" at the start of a line), so
// the run stopped rather than finished. Only that one message is read: a traceback printed
// midway, by a script the agent runs to reproduce a bug, is the agent at work.

const (
	tracebackMark = "Traceback (most recent call last):"
	errorMark     = "Error processing"
)

// crash returns the evidence of a crash at the end of the run, or false.
func (e *eval) crash() (Evidence, bool) {
	msgs := e.t.Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		m := &msgs[i]
		if m.Role != "assistant" && m.Role != "tool" && len(m.Results) == 0 {
			continue
		}
		what, line := crashIn(m.Content)
		for j := 0; what == "" && j < len(m.Results); j++ {
			if what, line = crashIn(m.Results[j].Content); what == "" {
				what, line = crashIn(m.Results[j].Error)
			}
		}
		if what != "" {
			return Evidence{Signal: SignalTrace,
				Text:     "the run ends in " + what + ": message " + strconv.Itoa(i) + " holds " + strconv.Quote(shorten(line, 200)),
				Messages: []int{i}}, true
		}
		return Evidence{}, false
	}
	return Evidence{}, false
}

// crashIn finds a traceback or an unhandled error in text. It returns what it found ("a
// crash", "an unhandled error") and the line that names the error: the exception line that
// ends a traceback (the first line after it that is not indented), or the "Error processing"
// line.
func crashIn(text string) (what, line string) {
	if i := strings.Index(text, tracebackMark); i >= 0 {
		rest := text[i+len(tracebackMark):]
		for rest != "" {
			l, after, _ := strings.Cut(rest, "\n")
			rest = after
			if l = strings.TrimRight(l, "\r"); l != "" && l[0] != ' ' && l[0] != '\t' {
				return "a crash", l
			}
		}
		return "a crash", tracebackMark
	}
	if !strings.Contains(text, errorMark) {
		return "", ""
	}
	for rest := text; rest != ""; {
		var l string
		l, rest, _ = strings.Cut(rest, "\n")
		if l = strings.TrimLeft(l, " \t"); strings.HasPrefix(l, errorMark) {
			return "an unhandled error", strings.TrimRight(l, "\r")
		}
	}
	return "", ""
}
