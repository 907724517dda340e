package reliability

import (
	"errors"
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
	if v, ok := e.parseFlatObject(args); ok {
		return v, nil
	}
	return pystr.Parse(args)
}

// errNotFlat stops the walk of an object that parseFlatObject leaves to pystr.Parse.
var errNotFlat = errors.New("not a flat object")

// parseFlatObject decodes args when it is an object whose values are all strings, integers,
// booleans or null, with at most 16 keys; ok is false for anything else.
func (e *eval) parseFlatObject(args []byte) (v pystr.Value, ok bool) {
	start, text := len(e.members), len(e.argText)
	end, err := jsonscan.EachMember(args, 0, func(key []byte, vs, ve int) error {
		m, ok := e.scalar(args[vs:ve])
		if !ok {
			return errNotFlat
		}
		k := e.argString(key)
		// a repeated key keeps its first place and takes the new value, as a dict does
		for j := start; j < len(e.members); j++ {
			if e.members[j].Key == k {
				e.members[j].Value = m
				return nil
			}
		}
		if len(e.members)-start == 16 {
			return errNotFlat // pystr indexes large objects; leave them to it
		}
		e.members = append(e.members, pystr.Member{Key: k, Value: m})
		return nil
	})
	if err != nil || jsonscan.SkipSpace(args, end) != len(args) {
		clear(e.members[start:])
		e.members, e.argText = e.members[:start], e.argText[:text]
		return pystr.Value{}, false
	}
	v.Kind = pystr.KindDict
	if n := len(e.members); n > start { // {} keeps Dict nil, as pystr.Parse leaves it
		v.Dict = e.members[start:n:n]
	}
	return v, true
}

// scalar decodes raw, a whole JSON value that jsonscan has checked, when it is a string, an
// integer, a boolean or null. A float is left to pystr.Parse, which knows Python's way with
// those.
func (e *eval) scalar(raw []byte) (pystr.Value, bool) {
	switch raw[0] {
	case '"':
		return pystr.Value{Kind: pystr.KindStr, Text: e.argString(raw)}, true
	case 'n':
		return pystr.Value{Kind: pystr.KindNone}, true
	case 't':
		return pystr.Value{Kind: pystr.KindBool, Bool: true}, true
	case 'f':
		return pystr.Value{Kind: pystr.KindBool}, true
	case '{', '[':
		return pystr.Value{}, false
	}
	if _, integer, _ := jsonscan.Number(raw, 0); !integer {
		return pystr.Value{}, false
	}
	text := bytesString(raw)
	if text == "-0" {
		text = "0" // Python's int has no negative zero
	}
	return pystr.Value{Kind: pystr.KindInt, Text: text}, true
}

// argString returns the text of raw, a whole JSON string that jsonscan has checked, as
// pystr.Parse decodes it (a lone surrogate kept): a substring of the arguments when it holds no
// escape, else text appended to e.argText.
func (e *eval) argString(raw []byte) string {
	body := raw[1 : len(raw)-1]
	for _, c := range body {
		if c == '\\' {
			start := len(e.argText)
			e.argText = jsonscan.AppendUnescaped(e.argText, body, jsonscan.Keep)
			return bytesString(e.argText[start:])
		}
	}
	return bytesString(body)
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
	r := callRef{msg: msg, call: c, plain: utf8.Valid(c.Args)}
	switch {
	case c.Args == nil:
		r.noArgs = true
		r.args = pystr.Value{Kind: pystr.KindDict}
	case c.ArgsValid:
		v, err := e.parseArgs(c.Args)
		if err == nil {
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
	return r
}
