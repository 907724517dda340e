package trace

import (
	"bytes"
	"slices"
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
//
// A long text the trace holds many times over, shared (an Inspect attachment that is the
// content of many messages), is redacted once and stays shared; the attachments that calls'
// arguments name are redacted once, where they are held (docs/security.md, "Attachments").
func (t *Trace) Redact(given []string, with string) {
	var done map[string]string // long texts redacted, each to its redacted form
	s := func(p *string) {
		long := len(*p) >= minShared
		if long {
			if r, ok := done[*p]; ok {
				*p = r
				return
			}
		}
		in := *p
		for _, sec := range given {
			if sec != "" && strings.Contains(*p, sec) {
				*p = strings.ReplaceAll(*p, sec, with)
			}
		}
		*p = secrets.Redact(*p, with)
		if long {
			if done == nil {
				done = map[string]string{}
			}
			done[in] = *p
		}
	}
	b := func(p *[]byte) {
		for _, sec := range given {
			if sec != "" && bytes.Contains(*p, []byte(sec)) {
				*p = bytes.ReplaceAll(*p, []byte(sec), []byte(with))
			}
		}
		*p = secrets.RedactBytes(*p, with)
	}
	var redacted []*Attachments // a run's calls share theirs
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
			if a := c.Attachments; a != nil && !slices.Contains(redacted, a) {
				redacted = append(redacted, a)
				for key, text := range a.text {
					s(&text)
					a.text[key] = text
				}
			}
		}
		for j := range m.Results {
			r := &m.Results[j]
			s(&r.CallID)
			s(&r.Content)
			s(&r.Error)
		}
	}
}

// minShared is the length from which Redact redacts a text once however often the trace holds
// it: shorter texts are not worth a map entry.
const minShared = 4096
