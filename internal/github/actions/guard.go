package actions

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Guard keeps untrusted text from starting a workflow command. The runner
// reads a step's stdout and stderr line by line (a line ends at "\n", "\r"
// or "\r\n") and acts on a line that, after leading white space, starts with
// "::" (`::add-mask::x`, `::stop-commands::t`), and on the legacy form
// "##[cmd]" anywhere in a line. Trace ids, tool names, JSON keys and file
// names reach both streams, so everything written through a Guard is
// neutralised line by line: a zero-width space (U+200B) goes between the
// two colons of a leading "::" and between "##" and "[". Nothing else
// changes, and the text reads the same in the log.
//
// The workflow commands agentgate means to issue go through Commands, which
// writes them unchanged; only go-githubactions writes there, and it escapes
// the line breaks of every message and property, so a command stays one
// line. (A line that parses as a `::cmd::` command is never also read as a
// legacy `##[` one, so untrusted text inside an escaped message is inert.)
//
// Guard buffers a partial line until its end arrives or Flush is called; it
// is safe for concurrent use.
type Guard struct {
	mu      sync.Mutex
	w       io.Writer
	pending []byte // the start of a line whose end has not been written yet
	midLine bool   // the last byte written to w did not end a line
}

// NewGuard returns a Guard writing to w.
func NewGuard(w io.Writer) *Guard { return &Guard{w: w} }

// Write neutralises and writes every complete line of p, keeping a trailing
// partial line for the next Write or Flush. It reports len(p) on success.
func (g *Guard) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexAny(p, "\r\n")
		if i < 0 {
			g.pending = append(g.pending, p...)
			break
		}
		line := p[:i+1]
		p = p[i+1:]
		if len(g.pending) > 0 {
			line = append(g.pending, line...)
			g.pending = g.pending[:0]
		}
		if err := g.emit(line, false); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// Flush writes a pending partial line, neutralised. Text written after it
// continues the same line: its leading "::" is no threat any more.
func (g *Guard) Flush() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.flushLocked()
}

func (g *Guard) flushLocked() error {
	if len(g.pending) == 0 {
		return nil
	}
	line := g.pending
	g.pending = nil
	return g.emit(line, true)
}

// emit writes one line (ending in its terminator unless partial).
func (g *Guard) emit(line []byte, partial bool) error {
	out := Neutralize(string(line), g.midLine)
	if _, err := io.WriteString(g.w, out); err != nil {
		return err
	}
	g.midLine = partial || !strings.HasSuffix(out, "\n") && !strings.HasSuffix(out, "\r")
	return nil
}

// Commands returns the writer for agentgate's own workflow commands (give
// it to go-githubactions with WithWriter). Each write first flushes a
// pending partial line and ends it, so that the command starts a line, then
// goes out unchanged.
func (g *Guard) Commands() io.Writer { return commandWriter{g} }

type commandWriter struct{ g *Guard }

func (c commandWriter) Write(p []byte) (int, error) {
	g := c.g
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.flushLocked(); err != nil {
		return 0, err
	}
	if g.midLine {
		if _, err := io.WriteString(g.w, "\n"); err != nil {
			return 0, err
		}
	}
	n, err := g.w.Write(p)
	if n > 0 {
		g.midLine = p[n-1] != '\n' && p[n-1] != '\r'
	}
	return n, err
}

// zwsp is the zero-width space Neutralize inserts.
const zwsp = "\u200b"

// Neutralize returns text with no workflow command in it: every "##[" gets
// a zero-width space before its "[", and every line (from the start of text,
// unless continued is true, and after each "\r" or "\n") whose first
// characters other than white space, control and format characters are
// "::" gets one between those colons. The runner trims the same white space
// (and no more) before it looks for "::", so what it sees no longer parses.
func Neutralize(text string, continued bool) string {
	if !strings.Contains(text, "::") && !strings.Contains(text, "##[") {
		return text
	}
	text = strings.ReplaceAll(text, "##[", "##"+zwsp+"[")
	var b strings.Builder
	b.Grow(len(text) + 8)
	lineStart := !continued
	for i := 0; i < len(text); {
		c := text[i]
		if c == '\n' || c == '\r' {
			b.WriteByte(c)
			i++
			lineStart = true
			continue
		}
		if !lineStart {
			b.WriteByte(c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if r != utf8.RuneError && (unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r)) {
			b.WriteString(text[i : i+size])
			i += size
			continue
		}
		lineStart = false
		if strings.HasPrefix(text[i:], "::") {
			b.WriteString(":" + zwsp)
			i++
		}
	}
	return b.String()
}
