package trace

import (
	"bytes"
	"strings"
)

// Redact replaces every secret in the trace's text (ids, task, message content, tool names,
// arguments, results, errors, the outcome's source) by with, before anything reads it: a
// token the agent printed is then *** in whatever evidence quotes it, cut or not. Evidence
// cut at 60 characters before the redaction would keep a token's first 59 (SPEC §13).
// Secrets are tried longest first, as given; empty ones are skipped.
func (t *Trace) Redact(secrets []string, with string) {
	if len(secrets) == 0 {
		return
	}
	s := func(p *string) {
		for _, sec := range secrets {
			if sec != "" && strings.Contains(*p, sec) {
				*p = strings.ReplaceAll(*p, sec, with)
			}
		}
	}
	b := func(p *[]byte) {
		for _, sec := range secrets {
			if sec != "" && bytes.Contains(*p, []byte(sec)) {
				*p = bytes.ReplaceAll(*p, []byte(sec), []byte(with))
			}
		}
	}
	s(&t.ID)
	s(&t.Task)
	s(&t.Outcome.Source)
	for i := range t.Messages {
		m := &t.Messages[i]
		s(&m.Role)
		s(&m.Content)
		for j := range m.Calls {
			c := &m.Calls[j]
			s(&c.ID)
			s(&c.Tool)
			b(&c.Args)
		}
		for j := range m.Results {
			r := &m.Results[j]
			s(&r.CallID)
			s(&r.Content)
			s(&r.Error)
		}
	}
}
