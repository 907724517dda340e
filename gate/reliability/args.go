package reliability

import (
	"unicode/utf8"
	"unsafe"

	"github.com/agentgate/agentgate/gate/pystr"
	"github.com/agentgate/agentgate/gate/trace"
)

// parseArgs decodes a call's arguments (valid JSON text, and UTF-8 when valid) as
// pystr.Parse does. The arguments
// of nearly every call are a flat object of strings, integers, booleans and nulls: that case
// is decoded here without allocating, the strings pointing into args (or into e.argText when
// they hold escapes) and the members into e.members, all valid until the next trace; anything
// else goes to pystr.Parse.
func (e *eval) parseArgs(args []byte, valid bool) (pystr.Value, error) {
	if !valid {
		return pystr.Parse(args) // it knows what Python makes of such bytes
	}
	if v, ok := e.parseFlatObject(args); ok {
		return v, nil
	}
	return pystr.Parse(args)
}

// parseFlatObject decodes args, UTF-8 text, when it is an object whose values are all
// strings, integers, booleans or null; ok is false for anything else.
func (e *eval) parseFlatObject(args []byte) (v pystr.Value, ok bool) {
	i := skipSpace(args, 0)
	if i >= len(args) || args[i] != '{' {
		return v, false
	}
	v.Kind = pystr.KindDict
	start := len(e.members)
	fail := func() (pystr.Value, bool) {
		clear(e.members[start:])
		e.members = e.members[:start]
		return pystr.Value{}, false
	}
	i = skipSpace(args, i+1)
	if i < len(args) && args[i] == '}' {
		if skipSpace(args, i+1) != len(args) {
			return fail()
		}
		return v, true // Dict stays nil, as pystr.Parse leaves it
	}
	for {
		if i >= len(args) || args[i] != '"' {
			return fail()
		}
		key, next, ok := e.argString(args, i)
		if !ok {
			return fail()
		}
		i = skipSpace(args, next)
		if i >= len(args) || args[i] != ':' {
			return fail()
		}
		i = skipSpace(args, i+1)
		var m pystr.Value
		if m, i, ok = e.scalar(args, i); !ok {
			return fail()
		}
		// a repeated key keeps its first place and takes the new value, as a dict does
		dup := false
		for j := start; j < len(e.members); j++ {
			if e.members[j].Key == key {
				e.members[j].Value, dup = m, true
				break
			}
		}
		if !dup {
			if len(e.members)-start == 16 {
				return fail() // pystr indexes large objects; leave them to it
			}
			e.members = append(e.members, pystr.Member{Key: key, Value: m})
		}
		i = skipSpace(args, i)
		if i >= len(args) {
			return fail()
		}
		switch args[i] {
		case ',':
			i = skipSpace(args, i+1)
			continue
		case '}':
			if skipSpace(args, i+1) != len(args) {
				return fail()
			}
			v.Dict = e.members[start:len(e.members):len(e.members)]
			return v, true
		}
		return fail()
	}
}

// scalar decodes the string, integer, boolean or null at args[i].
func (e *eval) scalar(args []byte, i int) (v pystr.Value, next int, ok bool) {
	if i >= len(args) {
		return v, i, false
	}
	switch c := args[i]; {
	case c == '"':
		s, next, ok := e.argString(args, i)
		return pystr.Value{Kind: pystr.KindStr, Text: s}, next, ok
	case c == 'n' && hasWord(args, i, "null"):
		return pystr.Value{Kind: pystr.KindNone}, i + 4, true
	case c == 't' && hasWord(args, i, "true"):
		return pystr.Value{Kind: pystr.KindBool, Bool: true}, i + 4, true
	case c == 'f' && hasWord(args, i, "false"):
		return pystr.Value{Kind: pystr.KindBool}, i + 5, true
	case c == '-' || c-'0' < 10:
		j := i
		if c == '-' {
			j++
		}
		d := j
		for j < len(args) && args[j]-'0' < 10 {
			j++
		}
		if j == d || (args[d] == '0' && j > d+1) {
			return v, i, false
		}
		if j < len(args) && (args[j] == '.' || args[j] == 'e' || args[j] == 'E') {
			return v, i, false // a float: pystr.Parse knows Python's way with those
		}
		text := bytesString(args[i:j])
		if text == "-0" {
			text = "0"
		}
		return pystr.Value{Kind: pystr.KindInt, Text: text}, j, true
	}
	return v, i, false
}

// argString decodes the string at args[i] (UTF-8 text) as pystr.Parse does, and returns the
// offset after it: a substring of args when it holds no escape, else text stored in e.argText.
func (e *eval) argString(args []byte, i int) (s string, next int, ok bool) {
	j := i + 1
	for ; j < len(args); j++ {
		c := args[j]
		if c == '"' {
			return bytesString(args[i+1 : j]), j + 1, true
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return "", 0, false
		}
	}
	start := len(e.argText)
	buf := append(e.argText, args[i+1:j]...)
	fail := func() (string, int, bool) {
		e.argText = buf[:start]
		return "", 0, false
	}
	for j < len(args) {
		switch c := args[j]; {
		case c == '"':
			e.argText = buf
			if len(buf) == start {
				return "", j + 1, true
			}
			return unsafe.String(&buf[start], len(buf)-start), j + 1, true
		case c < 0x20:
			return fail()
		case c == '\\':
			if j+1 >= len(args) {
				return fail()
			}
			switch esc := args[j+1]; esc {
			case '"', '\\', '/':
				buf = append(buf, esc)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r, ok := hex4(args, j+2)
				if !ok {
					return fail()
				}
				j += 6
				if r >= 0xd800 && r <= 0xdbff && j+1 < len(args) && args[j] == '\\' && args[j+1] == 'u' {
					if lo, ok := hex4(args, j+2); ok && lo >= 0xdc00 && lo <= 0xdfff {
						buf = utf8.AppendRune(buf, 0x10000+(r-0xd800)<<10+(lo-0xdc00))
						j += 6
						continue
					}
				}
				if r >= 0xd800 && r <= 0xdfff {
					// a lone surrogate, kept as pystr keeps it: generalised UTF-8
					buf = append(buf, 0xe0|byte(r>>12), 0x80|byte(r>>6)&0x3f, 0x80|byte(r)&0x3f)
				} else {
					buf = utf8.AppendRune(buf, r)
				}
				continue
			default:
				return fail()
			}
			j += 2
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			j++
		default: // a character beyond ASCII, whole: args is UTF-8
			size := utf8RuneLen(args[j])
			buf = append(buf, args[j:j+size]...)
			j += size
		}
	}
	return fail()
}

// utf8RuneLen returns the length of the UTF-8 sequence that starts with the byte c.
func utf8RuneLen(c byte) int {
	switch {
	case c >= 0xf0:
		return 4
	case c >= 0xe0:
		return 3
	}
	return 2
}

// hex4 reads the four hex digits at b[i:].
func hex4(b []byte, i int) (rune, bool) {
	if len(b)-i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

func hasWord(args []byte, i int, w string) bool {
	return len(args)-i >= len(w) && string(args[i:i+len(w)]) == w
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// bytesString returns b as a string without copying: b must not change while the string is
// in use (a trace's arguments do not).
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
		v, err := e.parseArgs(c.Args, r.plain)
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
