package pystr

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ParseLiteral decodes text written as a Python literal, the way some harnesses write tool
// arguments (str(dict) rather than json.dumps): what Python's repr() prints for dicts, lists,
// tuples (read as lists), str (single or double quotes, the escapes \\ \' \" \n \r \t \b \f
// \v \a \0 \xhh \uXXXX \UXXXXXXXX, a u prefix), int, float (inf and nan included), True,
// False and None. Keys may be any of those scalars; they are kept as their str(). It accepts
// nothing else, so plain prose is not taken for a value.
func ParseLiteral(text []byte) (Value, error) {
	p := litParser{parser{s: text, src: string(text)}}
	p.pws()
	v, err := p.lit(0)
	if err != nil {
		return Value{}, err
	}
	p.pws()
	if p.i != len(p.s) {
		return Value{}, p.errorf("extra data")
	}
	return v, nil
}

type litParser struct{ parser }

// pws skips Python's white space between tokens (the JSON set and the vertical tab and form
// feed; a literal may span lines inside brackets).
func (p *litParser) pws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r', '\v', '\f':
			p.i++
		default:
			return
		}
	}
}

// word reads an identifier-like word and reports whether it is w, without consuming more.
func (p *litParser) word(w string) bool {
	if !p.literal(w) {
		return false
	}
	if p.i < len(p.s) && (isIdent(p.s[p.i])) {
		p.i -= len(w)
		return false
	}
	return true
}

func isIdent(c byte) bool {
	return c == '_' || c-'a' < 26 || c-'A' < 26 || c-'0' < 10
}

func (p *litParser) lit(depth int) (Value, error) {
	if depth > maxDepth {
		return Value{}, p.errorf("nested deeper than %d", maxDepth)
	}
	if p.i >= len(p.s) {
		return Value{}, p.errorf("expecting value")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.dict(depth)
	case c == '[':
		return p.seq(depth, ']')
	case c == '(':
		return p.seq(depth, ')')
	case c == '\'' || c == '"':
		s, err := p.pystr()
		return Value{Kind: KindStr, Text: s}, err
	case c == 'u' && p.i+1 < len(p.s) && (p.s[p.i+1] == '\'' || p.s[p.i+1] == '"'):
		p.i++
		s, err := p.pystr()
		return Value{Kind: KindStr, Text: s}, err
	case c == 'N' && p.word("None"):
		return Value{Kind: KindNone}, nil
	case c == 'T' && p.word("True"):
		return Value{Kind: KindBool, Bool: true}, nil
	case c == 'F' && p.word("False"):
		return Value{Kind: KindBool}, nil
	case c == '-' || c == '+' || c == '.' || c-'0' < 10 || c == 'i' || c == 'n':
		return p.pynumber()
	}
	return Value{}, p.errorf("expecting value")
}

// pynumber reads an int or float literal, with an optional sign (repr writes -5, -inf).
func (p *litParser) pynumber() (Value, error) {
	start := p.i
	for p.i < len(p.s) && (isIdent(p.s[p.i]) || p.s[p.i] == '.' || p.s[p.i] == '-' || p.s[p.i] == '+') {
		if (p.s[p.i] == '-' || p.s[p.i] == '+') && p.i > start && p.s[p.i-1] != 'e' && p.s[p.i-1] != 'E' {
			break
		}
		p.i++
	}
	text := strings.ReplaceAll(string(p.s[start:p.i]), "_", "")
	digits := strings.TrimLeft(text, "+-")
	if digits == "" {
		p.i = start
		return Value{}, p.errorf("expecting value")
	}
	if strings.Trim(digits, "0123456789") == "" {
		n := strings.TrimLeft(digits, "0")
		if n == "" {
			n = "0"
		} else if text[0] == '-' {
			n = "-" + n
		}
		return Value{Kind: KindInt, Text: n}, nil
	}
	switch strings.ToLower(digits) {
	case "inf", "nan", "infinity":
	default:
		if digits[0] != '.' && digits[0]-'0' >= 10 {
			p.i = start
			return Value{}, p.errorf("expecting value")
		}
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		p.i = start
		return Value{}, p.errorf("bad number")
	}
	return Value{Kind: KindFloat, Float: f}, nil
}

// pystr reads a quoted Python string at p.i.
func (p *litParser) pystr() (string, error) {
	q := p.s[p.i]
	p.i++
	var buf []byte
	for {
		if p.i >= len(p.s) {
			return "", p.errorf("unterminated string")
		}
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return string(buf), nil
		case c == '\n':
			return "", p.errorf("unterminated string")
		case c == '\\':
			if p.i+1 >= len(p.s) {
				return "", p.errorf("unterminated string")
			}
			e := p.s[p.i+1]
			p.i += 2
			switch e {
			case '\\', '\'', '"':
				buf = append(buf, e)
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'v':
				buf = append(buf, '\v')
			case 'a':
				buf = append(buf, '\a')
			case '0':
				buf = append(buf, 0)
			case '\n': // a line continuation
			case 'x', 'u', 'U':
				n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
				if len(p.s)-p.i < n {
					return "", p.errorf("truncated \\%c escape", e)
				}
				r, ok := hexVal(p.s[p.i : p.i+n])
				if !ok || r > utf8.MaxRune {
					return "", p.errorf("invalid \\%c escape", e)
				}
				p.i += n
				if r >= 0xd800 && r <= 0xdfff {
					buf = appendSurrogate(buf, r)
				} else {
					buf = utf8.AppendRune(buf, r)
				}
			default: // Python keeps an unknown escape as it is
				buf = append(buf, '\\', e)
			}
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			p.i++
		default:
			r, size := utf8.DecodeRune(p.s[p.i:])
			buf = utf8.AppendRune(buf, r)
			p.i += size
		}
	}
}

// seq reads a list or a tuple, both as KindList.
func (p *litParser) seq(depth int, closing byte) (Value, error) {
	p.i++
	v := Value{Kind: KindList}
	for {
		p.pws()
		if p.i < len(p.s) && p.s[p.i] == closing {
			p.i++
			return v, nil
		}
		e, err := p.lit(depth + 1)
		if err != nil {
			return Value{}, err
		}
		v.List = append(v.List, e)
		if done, err := p.after(closing); err != nil || done {
			return v, err
		}
	}
}

// after passes the ',' or the closing bracket after an element; a trailing comma is allowed.
func (p *litParser) after(closing byte) (done bool, err error) {
	p.pws()
	return p.delimiter(closing)
}

func (p *litParser) dict(depth int) (Value, error) {
	p.i++
	v := Value{Kind: KindDict}
	var index map[string]int
	for {
		p.pws()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return v, nil
		}
		k, err := p.lit(depth + 1)
		if err != nil {
			return Value{}, err
		}
		if k.Kind == KindList || k.Kind == KindDict {
			return Value{}, p.errorf("unhashable key")
		}
		p.pws()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return Value{}, p.errorf("expecting ':' delimiter")
		}
		p.i++
		p.pws()
		e, err := p.lit(depth + 1)
		if err != nil {
			return Value{}, err
		}
		v.Dict = setMember(v.Dict, &index, string(k.AppendStr(nil)), e)
		if done, err := p.after('}'); err != nil || done {
			return v, err
		}
	}
}

// parser holds the text a Python literal is read from and the offset reached.
type parser struct {
	s   []byte
	src string // the same bytes as s, for substrings
	i   int
}

func (p *parser) errorf(format string, args ...any) error {
	return &SyntaxError{Offset: p.i, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) literal(word string) bool {
	if len(p.s)-p.i >= len(word) && string(p.s[p.i:p.i+len(word)]) == word {
		p.i += len(word)
		return true
	}
	return false
}

// delimiter passes the ',' or the closing bracket at the current position, after the white
// space has been skipped.
func (p *parser) delimiter(closing byte) (done bool, err error) {
	if p.i < len(p.s) {
		switch p.s[p.i] {
		case ',':
			p.i++
			return false, nil
		case closing:
			p.i++
			return true, nil
		}
	}
	return false, p.errorf("expecting ',' delimiter")
}

func hexVal(b []byte) (rune, bool) {
	var r rune
	for _, c := range b {
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

// appendSurrogate writes a lone surrogate code point in generalised UTF-8.
func appendSurrogate(dst []byte, r rune) []byte {
	return append(dst, 0xe0|byte(r>>12), 0x80|byte(r>>6)&0x3f, 0x80|byte(r)&0x3f)
}
