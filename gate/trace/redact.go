package trace

import (
	"bytes"
	"strings"

	"github.com/agentgate/agentgate/internal/secrets"
)

// Redact replaces by with every secret in the trace's text (ids, suite, task, message
// content, tool names, arguments, results, errors, the outcome's source and note) before
// anything reads it: the secrets given (the github-token and its encoded forms), tried longest
// first as given, and every credential of a known shape (internal/secrets: GitHub, OpenAI,
// Anthropic, AWS, Slack and Google keys, private-key blocks). A token the agent printed is
// then *** in whatever evidence quotes it, cut or not: evidence cut at 60 characters before
// the redaction would keep a token's first 59 (docs/security.md, "The token").
func (t *Trace) Redact(given []string, with string) {
	s := func(p *string) {
		for _, sec := range given {
			if sec != "" && strings.Contains(*p, sec) {
				*p = strings.ReplaceAll(*p, sec, with)
			}
		}
		*p = secrets.Redact(*p, with)
	}
	b := func(p *[]byte) {
		for _, sec := range given {
			if sec != "" && bytes.Contains(*p, []byte(sec)) {
				*p = bytes.ReplaceAll(*p, []byte(sec), []byte(with))
			}
		}
		*p = secrets.RedactBytes(*p, with)
	}
	s(&t.ID)
	s(&t.Suite)
	s(&t.Task)
	s(&t.Outcome.Source)
	s(&t.Outcome.Note)
	s(&t.Note)
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
