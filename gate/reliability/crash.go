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
//
// The run's very last message is read first, whoever wrote it (issue 37: a multi-agent
// runtime writes its own failure as the last agent's message, or under a role of its own):
// when it opens with a traceback or an unhandled error, or holds the runtime's own error
// report ("Error processing publish message" at the start of a line, before a traceback or
// alone), the run crashed. The runtime's report is never a quote: an agent quoting an error
// quotes the exception, not the runtime's log line.

const (
	tracebackMark = "Traceback (most recent call last):"
	errorMark     = "Error processing"
	runtimeMark   = "Error processing publish message"
)

// crash returns the evidence of a crash at the end of the run, or false.
func (e *eval) crash() (Evidence, bool) {
	if e.t.Crash != "" {
		// the harness recorded the crash itself (docs/trace-formats.md, "Blind reads and
		// crashes"): after the agent's turns when the run has some, else before its first
		if e.t.HasAgentTurn() {
			return Evidence{Signal: SignalTrace, Text: "the run ended on an error: the harness recorded " + strconv.Quote(shorten(e.t.Crash, 200)), Messages: []int{}}, true
		}
		return Evidence{Signal: SignalTrace, Text: "the run crashed before the agent's first turn: the harness recorded " + strconv.Quote(shorten(e.t.Crash, 200)), Messages: []int{}}, true
	}
	msgs := e.t.Messages
	if n := len(msgs) - 1; n >= 0 && len(msgs[n].Results) == 0 {
		if what, line, at := crashIn(msgs[n].Content); what != "" &&
			(strings.TrimSpace(msgs[n].Content[:at]) == "" || runtimeReport(msgs[n].Content)) {
			return crashEvidence(what, line, n), true
		}
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		m := &msgs[i]
		if m.Role != "assistant" && m.Role != "tool" && len(m.Results) == 0 {
			continue
		}
		what, line, at := crashIn(m.Content)
		if what != "" && len(m.Results) == 0 && strings.TrimSpace(m.Content[:at]) != "" && !runtimeReport(m.Content) && !e.endedBadlyBefore(i) {
			what = "" // the agent quoting an old traceback after the run recovered
		}
		for j := 0; what == "" && j < len(m.Results); j++ {
			if what, line, _ = crashIn(m.Results[j].Content); what == "" {
				what, line, _ = crashIn(m.Results[j].Error)
			}
		}
		if what != "" {
			return crashEvidence(what, line, i), true
		}
		return Evidence{}, false
	}
	return Evidence{}, false
}

func crashEvidence(what, line string, i int) Evidence {
	return Evidence{Signal: SignalTrace,
		Text:     "the run ends in " + what + ": message " + strconv.Itoa(i) + " holds " + strconv.Quote(shorten(line, 200)),
		Messages: []int{i}}
}

// runtimeReport reports whether text holds the agent runtime's own report of an unhandled
// error: a line that begins "Error processing publish message" (autogen_core logs it, then
// the traceback, when an agent's message handler raises).
func runtimeReport(text string) bool {
	line, _, ok := errorLine(text)
	return ok && strings.HasPrefix(line, runtimeMark)
}

// errorLine finds the first line of text that begins (after spaces) with errorMark: the line,
// where it begins, and whether there is one.
func errorLine(text string) (line string, at int, ok bool) {
	if !strings.Contains(text, errorMark) {
		return "", 0, false
	}
	for start, rest := 0, text; rest != ""; {
		l, after, _ := strings.Cut(rest, "\n")
		if t := strings.TrimLeft(l, " \t"); strings.HasPrefix(t, errorMark) {
			return strings.TrimRight(t, "\r"), start, true
		}
		start += len(rest) - len(after)
		rest = after
	}
	return "", 0, false
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
// and where in text the crash begins: the traceback or the error line, whichever comes first
// (the runtime logs "Error processing …" and then the traceback).
func crashIn(text string) (what, line string, at int) {
	eline, eat, eok := errorLine(text)
	if i := strings.Index(text, tracebackMark); i >= 0 {
		if eok && eat < i {
			at = eat
		} else {
			at = i
		}
		rest := text[i+len(tracebackMark):]
		for rest != "" {
			l, after, _ := strings.Cut(rest, "\n")
			rest = after
			if l = strings.TrimRight(l, "\r"); l != "" && l[0] != ' ' && l[0] != '\t' {
				return "a crash", l, at
			}
		}
		return "a crash", tracebackMark, at
	}
	if eok {
		return "an unhandled error", eline, eat
	}
	return "", "", 0
}
