package reliability

import (
	"bytes"
	"unicode/utf8"
	"unsafe"

	"github.com/agentgate/agentgate/gate/pystr"
	"github.com/agentgate/agentgate/gate/trace"
	"github.com/agentgate/agentgate/internal/jsonscan"
)

// parseArgs decodes a call's arguments (valid JSON text) as pystr.Parse does. The arguments
// of nearly every call are a flat object of strings, integers, booleans and nulls: that case
// is decoded here without allocating, the strings pointing into args (or into e.argText when
// they hold escapes) and the members into e.members, all valid until the next trace; anything
// else, text that is not UTF-8 included (jsonscan refuses it), goes to pystr.Parse.
func (e *eval) parseArgs(args []byte) (pystr.Value, error) {
	v, _, err := e.parseArgsChecked(args)
	return v, err
}

// parseArgsChecked is parseArgs that also reports whether the fast path decoded args, which
// proves them UTF-8: jsonscan checks every string, and the rest of a flat object is ASCII.
func (e *eval) parseArgsChecked(args []byte) (v pystr.Value, flat bool, err error) {
	if v, ok := e.parseFlatObject(args); ok {
		return v, true, nil
	}
	v, err = pystr.Parse(args)
	return v, false, err
}

// parseFlatObject decodes args when it is an object whose values are all strings, integers,
// booleans or null, with at most 16 keys; ok is false for anything else. It walks the object
// with jsonscan's steps (Key, String, Number, Literal, Next) rather than EachMember, which
// would check each value whole before this decodes it: one pass, not two.
func (e *eval) parseFlatObject(args []byte) (v pystr.Value, ok bool) {
	i := jsonscan.SkipSpace(args, 0)
	if i >= len(args) || args[i] != '{' {
		return v, false
	}
	start, text := len(e.members), len(e.argText)
	fail := func() (pystr.Value, bool) {
		clear(e.members[start:])
		e.members, e.argText = e.members[:start], e.argText[:text]
		return pystr.Value{}, false
	}
	if i = jsonscan.SkipSpace(args, i+1); i < len(args) && args[i] == '}' {
		i++ // {} keeps Dict nil, as pystr.Parse leaves it
	} else {
		for closed := false; !closed; {
			i = jsonscan.SkipSpace(args, i)
			key, at, err := jsonscan.Key(args, i)
			if err != nil {
				return fail()
			}
			k := e.argString(key, bytes.IndexByte(key, '\\') >= 0)
			m := e.setMember(&start, k)
			if m == nil {
				return fail() // pystr indexes large objects; leave them to it
			}
			end, ok := e.scalar(args, at, m)
			if !ok {
				return fail()
			}
			if i, closed, err = jsonscan.Next(args, end, '}'); err != nil {
				return fail()
			}
		}
	}
	if jsonscan.SkipSpace(args, i) != len(args) {
		return fail()
	}
	v.Kind = pystr.KindDict
	if n := len(e.members); n > start {
		v.Dict = e.members[start:n:n]
	}
	return v, true
}

// memberBlock is the most members a block of e.members holds (about 400 KB).
const memberBlock = 4096

// setMember returns where the value of key k goes in the object whose members start at
// e.members[*start], as a dict keeps it: a repeated key keeps its first place and takes the
// new value. It returns nil for a 17th key. A full e.members moves to a new block (twice as
// large, up to memberBlock members) taking only the open object along, which *start then
// follows: the objects decoded before keep the old block alive, so copying them too (as
// append does) would hold the members of a large trace twice over (issue 26: 96 MB of
// members for a 120 MB trace, now about 35 MB).
func (e *eval) setMember(start *int, k string) *pystr.Value {
	for j := *start; j < len(e.members); j++ {
		if e.members[j].Key == k {
			return &e.members[j].Value
		}
	}
	if len(e.members)-*start == 16 {
		return nil
	}
	if len(e.members) == cap(e.members) {
		moved := make([]pystr.Member, len(e.members)-*start, min(max(2*cap(e.members), 16), memberBlock))
		copy(moved, e.members[*start:])
		e.members, *start = moved, 0
	}
	e.members = append(e.members, pystr.Member{Key: k})
	return &e.members[len(e.members)-1].Value
}

// scalar decodes into v the string, integer, boolean or null at args[i] and returns the
// offset just past it; ok is false for anything else, a float included (pystr.Parse knows
// Python's way with those), and for text that is not valid there.
func (e *eval) scalar(args []byte, i int, v *pystr.Value) (end int, ok bool) {
	if i >= len(args) {
		return i, false
	}
	switch args[i] {
	case '"':
		end, escaped, err := jsonscan.String(args, i)
		*v = pystr.Value{Kind: pystr.KindStr}
		if err == nil {
			v.Text = e.argString(args[i:end], escaped)
		}
		return end, err == nil
	case 't', 'f', 'n':
		end, k, err := jsonscan.Literal(args, i)
		*v = pystr.Value{Kind: pystr.KindBool, Bool: k == jsonscan.KindTrue}
		if k == jsonscan.KindNull {
			v.Kind = pystr.KindNone
		}
		return end, err == nil
	case '{', '[':
		return i, false
	}
	end, integer, err := jsonscan.Number(args, i)
	if err != nil || !integer {
		return end, false
	}
	text := bytesString(args[i:end])
	if text == "-0" {
		text = "0" // Python's int has no negative zero
	}
	*v = pystr.Value{Kind: pystr.KindInt, Text: text}
	return end, true
}

// argString returns the text of raw, a whole JSON string that jsonscan has checked, as
// pystr.Parse decodes it (a lone surrogate kept): a substring of the arguments when it holds no
// escape, else text appended to e.argText.
func (e *eval) argString(raw []byte, escaped bool) string {
	body := raw[1 : len(raw)-1]
	if !escaped {
		return bytesString(body)
	}
	start := len(e.argText)
	e.argText = jsonscan.AppendUnescaped(e.argText, body, jsonscan.Keep)
	return bytesString(e.argText[start:])
}

// bytesString returns b as a string without copying: b must not change while the string is
// in use (a trace's arguments do not, nor the bytes of e.argText before the next trace).
func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// decodeCall decodes a call's arguments. Arguments that are not JSON, or that Python's
// json.loads would reject, are taken as the Python string of their raw text; the default
// profile reads a Python dict literal among them as the dict it writes.
func (e *eval) decodeCall(msg int, c *trace.Call) callRef {
	r := callRef{msg: msg, call: c}
	checked := false // r.plain is known
	switch {
	case c.Args == nil:
		r.noArgs = true
		r.args = pystr.Value{Kind: pystr.KindDict}
	case c.ArgsValid:
		v, flat, err := e.parseArgsChecked(c.Args)
		r.plain, checked = flat, flat
		if err == nil {
			if c.Attachments != nil {
				attach(c, &v)
			}
			r.args = v
			break
		}
		r.args = pystr.Value{Kind: pystr.KindStr, Text: bytesString(c.Args)}
	default:
		r.args = pystr.Value{Kind: pystr.KindStr, Text: bytesString(c.Args)}
		if e.ref || strip(r.args.Text) == "" {
			break
		}
		if v, err := pystr.ParseLiteral(c.Args); err == nil && v.Kind == pystr.KindDict {
			r.args, r.pyLiteral = v, true
		} else {
			r.notJSON = true
		}
	}
	if !checked {
		r.plain = utf8.Valid(c.Args)
	}
	return r
}

// attach reads every string of v that names one of the call's attachments as the attachment's
// text, which it shares: the value its arguments stand for, expanded, without a copy of the
// attachment for each call that names it (docs/security.md, "Attachments"). Such text is
// valid UTF-8, as the arguments around it are.
func attach(c *trace.Call, v *pystr.Value) {
	switch v.Kind {
	case pystr.KindStr:
		if text, ok := c.Attachment(v.Text); ok {
			v.Text = text
		}
	case pystr.KindList:
		for i := range v.List {
			attach(c, &v.List[i])
		}
	case pystr.KindDict:
		for i := range v.Dict {
			attach(c, &v.Dict[i].Value)
		}
	}
}
