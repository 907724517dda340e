package reliability

import (
	"strconv"
	"strings"
)

// A run that ends in a crash is at least WARN in the default profile, whatever its signals:
// its last message from the agent's side (the assistant's, or one carrying tool results) holds
// a Python traceback or an unhandled error ("Error processing …" at the start of a line), so
// the run stopped rather than finished. Only that one message is read: a traceback printed
// midway, by a script the agent runs to reproduce a bug, is the agent at work. An assistant
// message that quotes a traceback after words of its own ("The earlier error was: …"), when
// the last tool result before it neither failed nor crashed, is the agent reporting, not a
// crash; one that opens with it is the harness writing the error in the agent's place.

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
		what, line, at := crashIn(m.Content)
		if what != "" && len(m.Results) == 0 && strings.TrimSpace(m.Content[:at]) != "" && !e.endedBadlyBefore(i) {
			what = "" // the agent quoting an old traceback after the run recovered
		}
		for j := 0; what == "" && j < len(m.Results); j++ {
			if what, line, _ = crashIn(m.Results[j].Content); what == "" {
				what, line, _ = crashIn(m.Results[j].Error)
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

// endedBadlyBefore reports whether the last tool result before message i failed or holds a
// traceback or an unhandled error; false when there is none.
func (e *eval) endedBadlyBefore(i int) bool {
	for k := len(e.results) - 1; k >= 0; k-- {
		r := e.results[k]
		if r.msg >= i {
			continue
		}
		if e.failed(k) {
			return true
		}
		what, _, _ := crashIn(r.res.Content)
		return what != ""
	}
	return false
}

// crashIn finds a traceback or an unhandled error in text. It returns what it found ("a
// crash", "an unhandled error"), the line that names the error (the exception line that ends
// a traceback, the first line after it that is not indented, or the "Error processing" line)
// and where in text the traceback or that line begins.
func crashIn(text string) (what, line string, at int) {
	if i := strings.Index(text, tracebackMark); i >= 0 {
		rest := text[i+len(tracebackMark):]
		for rest != "" {
			l, after, _ := strings.Cut(rest, "\n")
			rest = after
			if l = strings.TrimRight(l, "\r"); l != "" && l[0] != ' ' && l[0] != '\t' {
				return "a crash", l, i
			}
		}
		return "a crash", tracebackMark, i
	}
	if !strings.Contains(text, errorMark) {
		return "", "", 0
	}
	for start, rest := 0, text; rest != ""; {
		l, after, _ := strings.Cut(rest, "\n")
		if l = strings.TrimLeft(l, " \t"); strings.HasPrefix(l, errorMark) {
			return "an unhandled error", strings.TrimRight(l, "\r"), start
		}
		start += len(rest) - len(after)
		rest = after
	}
	return "", "", 0
}
