package trace

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// Attachments are the texts an Inspect sample names by reference, attachment:// and the
// text's key (docs/security.md, "Attachments"): held once for the run, whatever number of its
// calls name them. A call whose arguments name one keeps its arguments as the log wrote them,
// references and all, and points here (Call.Attachments); the evaluator reads each reference
// as the text it stands for, sharing it, and evidence quotes it expanded (Call.ExpandedArgs).
// Trace.Redact redacts them once.
type Attachments struct {
	text map[string]string // key → text
}

// Text returns the attachment s names when s is a reference to one of a's: attachment:// and
// its key.
func (a *Attachments) Text(s string) (string, bool) {
	if a == nil {
		return "", false
	}
	key, ok := strings.CutPrefix(s, attachmentPrefix)
	if !ok {
		return "", false
	}
	text, ok := a.text[key]
	return text, ok
}

// Attachment returns the text a string value of c's arguments stands for when it is a
// reference to one of the run's attachments: the attachment, shared, not copied.
func (c *Call) Attachment(s string) (string, bool) {
	return c.Attachments.Text(s)
}

// ExpandedArgs returns c's arguments with every string value that names one of its attachments
// replaced by the attachment written as a JSON string, as the agent sent them: at most limit
// bytes of it (limit < 0: all of it). It makes what it returns, which the caller may keep or
// let go; c.Args itself when they name none. Arguments that do not scan (redacted into
// something else) are returned as they are.
func (c *Call) ExpandedArgs(limit int) []byte {
	if c.Attachments == nil {
		return c.Args
	}
	out, err := appendExpanded(nil, c.Args, limit, func(key string, _ []byte, room int) ([]byte, error) {
		text, ok := c.Attachments.text[key]
		if !ok {
			return nil, nil
		}
		return quoteText(text, room), nil
	})
	if err != nil {
		return c.Args
	}
	return out
}

// quoteText is text written as a JSON string, as encoding/json writes one, or, when room is
// not negative, at least room bytes of it (a prefix of the whole, its closing quote missing
// when cut short): a call's arguments quoted in evidence need only their first characters, not
// a copy of a 1 MiB attachment.
func quoteText(text string, room int) []byte {
	cut := text
	if room >= 0 && len(text) > room {
		n := room
		for n < len(text) && !utf8.RuneStart(text[n]) {
			n++ // whole characters: a cut one would be quoted as U+FFFD
		}
		cut = text[:n]
	}
	q, _ := json.Marshal(cut) // a string always marshals
	if len(cut) < len(text) {
		q = q[:len(q)-1] // more follows
	}
	return q
}

// quotedLen is len(quoteText(text, -1)), counted without writing it: encoding/json writes `"`
// and `\` and the control characters \b, \f, \n, \r and \t in two bytes, the other control
// characters, <, > and &, U+2028 and U+2029 in six, a byte that is not UTF-8 as U+FFFD
// (badByteLen), and the rest as it is.
func quotedLen(text string) int {
	n := 2
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
				n += 2
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && size == 1 {
			n += badByteLen
		} else if r == '\u2028' || r == '\u2029' {
			n += 6
		} else {
			n += size
		}
		i += size
	}
	return n
}

// badByteLen is how many bytes encoding/json writes for a byte that is not UTF-8: "\ufffd" in
// six, or, built with GOEXPERIMENT=jsonv2, U+FFFD in three. Text read from JSON holds none.
var badByteLen = func() int {
	q, _ := json.Marshal("\xff")
	return len(q) - 2
}()

// appendExpanded appends to dst the JSON text compact with every string value that is an
// attachment reference (the literal lit) replaced by quote(key, lit, room), where room is how many bytes more are
// wanted (limit less those appended so far; -1 for no limit); a nil quote leaves the
// reference as it is. What it appends is cut to limit bytes.
func appendExpanded(dst, compact []byte, limit int, quote func(key string, lit []byte, room int) ([]byte, error)) ([]byte, error) {
	start := len(dst)
	done := 0 // compact[:done] is in dst
	err := eachReference(compact, func(from, to int, key string) error {
		dst = append(dst, compact[done:from]...)
		room := -1
		if limit >= 0 {
			room = max(0, limit-(len(dst)-start))
		}
		q, err := quote(key, compact[from:to], room)
		if err != nil {
			return err
		}
		if q == nil {
			q = compact[from:to]
		}
		dst, done = append(dst, q...), to
		return nil
	})
	if err != nil {
		return nil, err
	}
	dst = append(dst, compact[done:]...)
	if limit >= 0 && len(dst)-start > limit {
		dst = dst[:start+limit]
	}
	return dst, nil
}

// eachReference calls fn, in order, for every string value of the JSON text compact that is
// an attachment reference (attachment:// and a key, escapes and all: "attachment:\/\/k" is
// one), with the span of its literal, quotes included, and the key it names. An object's keys
// are never references. Text that is not JSON is scanned as far as it goes: an unclosed
// string ends it.
func eachReference(compact []byte, fn func(from, to int, key string) error) error {
	for i := 0; i < len(compact); i++ {
		if compact[i] != '"' {
			continue
		}
		end := i + 1
		for end < len(compact) && compact[end] != '"' {
			if compact[end] == '\\' {
				end++
			}
			end++
		}
		if end >= len(compact) {
			return nil // an unclosed string (json.Compact checked the JSON as read; Redact may change it)
		}
		end++ // past the closing quote
		lit := compact[i:end]
		isKey := end < len(compact) && compact[end] == ':'
		from := i
		i = end - 1
		if isKey || !(bytes.HasPrefix(lit, []byte(`"`+attachmentPrefix)) || bytes.IndexByte(lit, '\\') >= 0) {
			continue
		}
		var key string
		if body := lit[1 : len(lit)-1]; bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
			key = string(body[len(attachmentPrefix):]) // as written: nothing to decode (encoding/json on each of a million references allocated 184 MB)
		} else {
			var str string
			if err := json.Unmarshal(lit, &str); err != nil {
				return err
			}
			var ok bool
			if key, ok = strings.CutPrefix(str, attachmentPrefix); !ok {
				continue
			}
		}
		if err := fn(from, end, key); err != nil {
			return err
		}
	}
	return nil
}
