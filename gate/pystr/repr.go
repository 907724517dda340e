package pystr

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kind is the Python type that a JSON value decodes to under json.loads.
type Kind uint8

// The Python types json.loads produces.
const (
	KindNone  Kind = iota // None (JSON null)
	KindBool              // bool (JSON true/false)
	KindInt               // int (a JSON number without fraction or exponent)
	KindFloat             // float (a JSON number with fraction or exponent, NaN, Infinity)
	KindStr               // str
	KindList              // list (JSON array)
	KindDict              // dict (JSON object)
)

// Value is a JSON value as Python's json.loads returns it, kept with the details that Python's
// repr() and str() print: dict insertion order, ints with all their digits, lone surrogates.
// The reference profiles need it because RS-1 matches substrings of str(arguments).
type Value struct {
	Kind Kind
	Bool bool // KindBool
	// Text is the string of a KindStr (a lone surrogate from a \udXXX escape is kept as its
	// three-byte generalised UTF-8 form, as Python keeps it as a code point) or the decimal
	// digits of a KindInt exactly as Python prints them.
	Text  string
	Float float64  // KindFloat
	List  []Value  // KindList elements
	Dict  []Member // KindDict members in Python's dict order
}

// Member is one key of a decoded JSON object. Python's dict keeps the position where a key
// first appeared and the value it was given last, and so does Parse.
type Member struct {
	Key   string
	Value Value
}

// maxDepth bounds nesting so that hostile input cannot exhaust memory through recursion;
// CPython gives up far earlier (RecursionError near depth 1000).
const maxDepth = 10000

// Parse decodes jsonText as Python's json.loads does: it also accepts NaN, Infinity and
// -Infinity, rejects raw control characters in strings, and merges duplicate keys as dict
// does. Bytes that are not UTF-8 (Python could not have read them) each become U+FFFD.
func Parse(jsonText []byte) (Value, error) {
	// One copy of the text backs every string without escapes (a substring costs nothing).
	p := parser{s: jsonText, src: string(jsonText)}
	p.ws()
	v, err := p.value(0)
	if err != nil {
		return Value{}, err
	}
	p.ws()
	if p.i != len(p.s) {
		return Value{}, p.errorf("extra data")
	}
	return v, nil
}

// Repr returns repr(json.loads(jsonText)) exactly as CPython prints it: dicts in insertion
// order, single quotes unless the string holds ' and no ", escapes for \\, \n, \r, \t and
// non-printable characters, None/True/False, ints as written and floats as Python's repr.
func Repr(jsonText []byte) (string, error) {
	v, err := Parse(jsonText)
	if err != nil {
		return "", err
	}
	return string(v.AppendRepr(nil)), nil
}

// Str returns str(json.loads(jsonText)): the same as Repr except that a top-level string is
// the string itself, unquoted.
func Str(jsonText []byte) (string, error) {
	v, err := Parse(jsonText)
	if err != nil {
		return "", err
	}
	return string(v.AppendStr(nil)), nil
}

// Repr returns Python's repr() of v.
func (v Value) Repr() string { return string(v.AppendRepr(nil)) }

// AppendStr appends Python's str() of v to dst: the text itself for a string, else the repr.
func (v Value) AppendStr(dst []byte) []byte {
	if v.Kind == KindStr {
		return append(dst, v.Text...)
	}
	return v.AppendRepr(dst)
}

// AppendRepr appends Python's repr() of v to dst and returns the extended slice.
func (v Value) AppendRepr(dst []byte) []byte {
	switch v.Kind {
	case KindNone:
		return append(dst, "None"...)
	case KindBool:
		if v.Bool {
			return append(dst, "True"...)
		}
		return append(dst, "False"...)
	case KindInt:
		return append(dst, v.Text...)
	case KindFloat:
		return AppendFloat(dst, v.Float)
	case KindStr:
		return AppendQuote(dst, v.Text)
	case KindList:
		dst = append(dst, '[')
		for i := range v.List {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = v.List[i].AppendRepr(dst)
		}
		return append(dst, ']')
	case KindDict:
		dst = append(dst, '{')
		for i := range v.Dict {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = AppendQuote(dst, v.Dict[i].Key)
			dst = append(dst, ": "...)
			dst = v.Dict[i].Value.AppendRepr(dst)
		}
		return append(dst, '}')
	}
	return dst
}

// Truthy reports whether Python's bool(v) is True: None, False, 0, 0.0, "", [] and {} are
// false, everything else (NaN included) is true.
func (v Value) Truthy() bool {
	switch v.Kind {
	case KindBool:
		return v.Bool
	case KindInt:
		return v.Text != "0"
	case KindFloat:
		return v.Float != 0
	case KindStr:
		return v.Text != ""
	case KindList:
		return len(v.List) > 0
	case KindDict:
		return len(v.Dict) > 0
	}
	return false
}

// FormatFloat returns Python's repr() of f: the shortest digits that round-trip, in fixed
// notation with a trailing ".0" for exponents -4..15 and as 1.5e-07 / 1e+16 otherwise.
func FormatFloat(f float64) string { return string(AppendFloat(nil, f)) }

// AppendFloat appends FormatFloat(f) to dst.
func AppendFloat(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "nan"...)
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	}
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, 64) // e.g. -1.2345e+06
	if e[0] == '-' {
		dst = append(dst, '-')
		e = e[1:]
	}
	mark := 0
	for mark < len(e) && e[mark] != 'e' {
		mark++
	}
	var digits [24]byte
	nd := 0
	for _, c := range e[:mark] {
		if c != '.' && nd < len(digits) {
			digits[nd] = c
			nd++
		}
	}
	exp, _ := strconv.Atoi(string(e[mark+1:]))
	d := digits[:nd]
	if exp < -4 || exp >= 16 {
		dst = append(dst, d[0])
		if len(d) > 1 {
			dst = append(dst, '.')
			dst = append(dst, d[1:]...)
		}
		dst = append(dst, 'e')
		if exp < 0 {
			dst = append(dst, '-')
			exp = -exp
		} else {
			dst = append(dst, '+')
		}
		if exp < 10 {
			dst = append(dst, '0')
		}
		return strconv.AppendInt(dst, int64(exp), 10)
	}
	point := exp + 1 // digits before the decimal point
	switch {
	case point <= 0:
		dst = append(dst, "0."...)
		for ; point < 0; point++ {
			dst = append(dst, '0')
		}
		return append(dst, d...)
	case point >= len(d):
		dst = append(dst, d...)
		for i := len(d); i < point; i++ {
			dst = append(dst, '0')
		}
		return append(dst, ".0"...)
	}
	dst = append(dst, d[:point]...)
	dst = append(dst, '.')
	return append(dst, d[point:]...)
}

// Quote returns Python's repr() of the string s.
func Quote(s string) string { return string(AppendQuote(nil, s)) }

// AppendQuote appends Python's repr() of the string s to dst: single quotes unless s contains
// ' and no ", backslash escapes for the quote, \\, \t, \n, \r, and \xhh, \uhhhh or \Uhhhhhhhh
// for every character Python does not consider printable.
func AppendQuote(dst []byte, s string) []byte {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	const hex = "0123456789abcdef"
	dst = append(dst, quote)
	for i := 0; i < len(s); {
		r, size := decodeRune(s[i:])
		i += size
		switch {
		case r == rune(quote) || r == '\\':
			dst = append(dst, '\\', byte(r))
		case r == '\t':
			dst = append(dst, '\\', 't')
		case r == '\n':
			dst = append(dst, '\\', 'n')
		case r == '\r':
			dst = append(dst, '\\', 'r')
		case r < ' ' || r == 0x7f:
			dst = append(dst, '\\', 'x', hex[r>>4], hex[r&15])
		case r < 0x7f:
			dst = append(dst, byte(r))
		case isPrintable(r):
			dst = utf8.AppendRune(dst, r)
		case r <= 0xff:
			dst = append(dst, '\\', 'x', hex[r>>4], hex[r&15])
		case r <= 0xffff:
			dst = append(dst, '\\', 'u', hex[r>>12&15], hex[r>>8&15], hex[r>>4&15], hex[r&15])
		default:
			dst = append(dst, '\\', 'U')
			for shift := 28; shift >= 0; shift -= 4 {
				dst = append(dst, hex[r>>uint(shift)&15])
			}
		}
	}
	return append(dst, quote)
}

// isPrintable is Python's str.isprintable for one character: false for the categories Cc, Cf,
// Cs, Co, Cn, Zl, Zp and Zs other than the ASCII space, which is what unicode.IsPrint says.
func isPrintable(r rune) bool {
	if r >= 0xd800 && r <= 0xdfff {
		return false
	}
	return unicode.IsPrint(r)
}

// decodeRune decodes one character of a string produced by Parse, which writes lone
// surrogates in their three-byte generalised UTF-8 form; any other invalid byte reads as
// U+FFFD.
func decodeRune(s string) (rune, int) {
	if len(s) >= 3 && s[0] == 0xed && s[1] >= 0xa0 && s[1] <= 0xbf && s[2] >= 0x80 && s[2] <= 0xbf {
		return rune(0xd000) | rune(s[1]&0x3f)<<6 | rune(s[2]&0x3f), 3
	}
	return utf8.DecodeRuneInString(s)
}

// appendSurrogate writes a lone surrogate code point in generalised UTF-8.
func appendSurrogate(dst []byte, r rune) []byte {
	return append(dst, 0xe0|byte(r>>12), 0x80|byte(r>>6)&0x3f, 0x80|byte(r)&0x3f)
}

// SyntaxError is a JSON text that json.loads would reject, with the byte offset where the
// problem was found.
type SyntaxError struct {
	Offset int
	Msg    string
}

// Error implements error.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at byte %d: %s", e.Offset, e.Msg)
}

type parser struct {
	s   []byte
	src string // the same bytes as s, for substrings
	i   int
}

func (p *parser) errorf(format string, args ...any) error {
	return &SyntaxError{Offset: p.i, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) literal(word string) bool {
	if len(p.s)-p.i >= len(word) && string(p.s[p.i:p.i+len(word)]) == word {
		p.i += len(word)
		return true
	}
	return false
}

func (p *parser) value(depth int) (Value, error) {
	if depth > maxDepth {
		return Value{}, p.errorf("nested deeper than %d", maxDepth)
	}
	if p.i >= len(p.s) {
		return Value{}, p.errorf("expecting value")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.str()
		return Value{Kind: KindStr, Text: s}, err
	case c == 'n' && p.literal("null"):
		return Value{Kind: KindNone}, nil
	case c == 't' && p.literal("true"):
		return Value{Kind: KindBool, Bool: true}, nil
	case c == 'f' && p.literal("false"):
		return Value{Kind: KindBool}, nil
	case c == 'N' && p.literal("NaN"):
		return Value{Kind: KindFloat, Float: math.NaN()}, nil
	case c == 'I' && p.literal("Infinity"):
		return Value{Kind: KindFloat, Float: math.Inf(1)}, nil
	case c == '-' && p.literal("-Infinity"):
		return Value{Kind: KindFloat, Float: math.Inf(-1)}, nil
	case c == '-' || ('0' <= c && c <= '9'):
		return p.number()
	}
	return Value{}, p.errorf("expecting value")
}

func (p *parser) digits() int {
	start := p.i
	for p.i < len(p.s) && '0' <= p.s[p.i] && p.s[p.i] <= '9' {
		p.i++
	}
	return p.i - start
}

func (p *parser) number() (Value, error) {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	if p.i < len(p.s) && p.s[p.i] == '0' {
		p.i++
	} else if p.digits() == 0 {
		return Value{}, p.errorf("expecting value")
	}
	isFloat := false
	if p.i+1 < len(p.s) && p.s[p.i] == '.' && '0' <= p.s[p.i+1] && p.s[p.i+1] <= '9' {
		p.i++
		p.digits()
		isFloat = true
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		save := p.i
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if p.digits() == 0 {
			p.i = save // Python's number pattern stops before a bare "e"
		} else {
			isFloat = true
		}
	}
	text := string(p.s[start:p.i])
	if !isFloat {
		if text == "-0" {
			text = "0"
		}
		return Value{Kind: KindInt, Text: text}, nil
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return Value{}, &SyntaxError{Offset: start, Msg: "bad number"}
	}
	// Out of range, Python's float() gives ±inf or 0.0 just as ParseFloat does.
	return Value{Kind: KindFloat, Float: f}, nil
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

func (p *parser) str() (string, error) {
	p.i++ // opening quote
	start := p.i
	// Fast path: no escapes, valid UTF-8: a substring of the source.
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '"' {
			if s := p.src[start:p.i]; utf8.ValidString(s) {
				p.i++
				return s, nil
			}
			break
		}
		if c == '\\' || c < 0x20 {
			break
		}
		p.i++
	}
	// Keep the plain prefix already scanned, unless it holds invalid UTF-8: then decode it
	// again below, byte by byte.
	prefix := p.s[start:p.i]
	buf := make([]byte, 0, len(prefix)+16)
	if utf8.Valid(prefix) {
		buf = append(buf, prefix...)
	} else {
		p.i = start
	}
	for {
		if p.i >= len(p.s) {
			return "", p.errorf("unterminated string")
		}
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return string(buf), nil
		case c < 0x20:
			return "", p.errorf("invalid control character in string")
		case c == '\\':
			if p.i+1 >= len(p.s) {
				return "", p.errorf("unterminated string")
			}
			e := p.s[p.i+1]
			p.i += 2
			switch e {
			case '"', '\\', '/':
				buf = append(buf, e)
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
				r, ok := p.hex4()
				if !ok {
					return "", p.errorf("invalid \\uXXXX escape")
				}
				if r >= 0xd800 && r <= 0xdbff && p.i+1 < len(p.s) && p.s[p.i] == '\\' && p.s[p.i+1] == 'u' {
					save := p.i
					p.i += 2
					lo, ok := p.hex4()
					if ok && lo >= 0xdc00 && lo <= 0xdfff {
						buf = utf8.AppendRune(buf, 0x10000+(r-0xd800)<<10+(lo-0xdc00))
						continue
					}
					p.i = save
				}
				if r >= 0xd800 && r <= 0xdfff {
					buf = appendSurrogate(buf, r)
				} else {
					buf = utf8.AppendRune(buf, r)
				}
			default:
				p.i -= 2
				return "", p.errorf("invalid \\escape")
			}
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			p.i++
		default:
			r, size := utf8.DecodeRune(p.s[p.i:])
			buf = utf8.AppendRune(buf, r) // invalid bytes become U+FFFD
			p.i += size
		}
	}
}

func (p *parser) hex4() (rune, bool) {
	if len(p.s)-p.i < 4 {
		return 0, false
	}
	r, ok := hexVal(p.s[p.i : p.i+4])
	if ok {
		p.i += 4
	}
	return r, ok
}

func (p *parser) array(depth int) (Value, error) {
	p.i++
	v := Value{Kind: KindList}
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return v, nil
	}
	for {
		p.ws()
		e, err := p.value(depth + 1)
		if err != nil {
			return Value{}, err
		}
		v.List = append(v.List, e)
		if done, err := p.next(']'); err != nil {
			return Value{}, err
		} else if done {
			return v, nil
		}
	}
}

// next passes the ',' or the closing bracket after an element of a list or a member of a
// dict; done says the container closed.
func (p *parser) next(closing byte) (done bool, err error) {
	p.ws()
	return p.delimiter(closing)
}

// delimiter passes the ',' or the closing bracket at the current position, after the white
// space (JSON's or Python's) has been skipped.
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

func (p *parser) object(depth int) (Value, error) {
	p.i++
	v := Value{Kind: KindDict}
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return v, nil
	}
	var index map[string]int // built only for large objects with many keys
	for {
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return Value{}, p.errorf("expecting property name enclosed in double quotes")
		}
		k, err := p.str()
		if err != nil {
			return Value{}, err
		}
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return Value{}, p.errorf("expecting ':' delimiter")
		}
		p.i++
		p.ws()
		e, err := p.value(depth + 1)
		if err != nil {
			return Value{}, err
		}
		if v.Dict == nil {
			v.Dict = make([]Member, 0, 4)
		}
		v.Dict = setMember(v.Dict, &index, k, e)
		if done, err := p.next('}'); err != nil {
			return Value{}, err
		} else if done {
			return v, nil
		}
	}
}

// setMember adds k: e to a dict with Python's semantics: a repeated key keeps its first
// position and takes the new value.
func setMember(d []Member, index *map[string]int, k string, e Value) []Member {
	const linear = 16
	if *index == nil && len(d) < linear {
		for i := range d {
			if d[i].Key == k {
				d[i].Value = e
				return d
			}
		}
		return append(d, Member{Key: k, Value: e})
	}
	if *index == nil {
		*index = make(map[string]int, 2*len(d))
		for i := range d {
			(*index)[d[i].Key] = i
		}
	}
	if i, ok := (*index)[k]; ok {
		d[i].Value = e
		return d
	}
	(*index)[k] = len(d)
	return append(d, Member{Key: k, Value: e})
}
