package pystr

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentgate/agentgate/internal/jsonscan"
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

// maxDepth bounds nesting as jsonscan does (encoding/json's limit), so that hostile input
// cannot exhaust memory through recursion; CPython gives up far earlier (RecursionError near
// depth 1000).
const maxDepth = jsonscan.MaxDepth

// Parse decodes jsonText as Python's json.loads does: it also accepts NaN, Infinity and
// -Infinity, rejects raw control characters in strings, and merges duplicate keys as dict
// does. Bytes that are not UTF-8 (Python could not have read them) each become U+FFFD. The
// JSON is read with jsonscan's primitives, so it is valid where the other readers say so and
// its errors say what theirs say; what is Python's here is what the values become.
func Parse(jsonText []byte) (Value, error) {
	text := jsonText
	if !utf8.Valid(text) {
		text = toUTF8(jsonText)
	}
	// One copy of the text backs every string without escapes (a substring costs nothing).
	d := decoder{s: text, src: string(text)}
	v, end, err := d.value(jsonscan.SkipSpace(text, 0), 0)
	if err == nil {
		if end = jsonscan.SkipSpace(text, end); end < len(text) {
			err = &jsonscan.Error{Off: end, Msg: "unexpected " + jsonscan.Found(text, end) + " after the value"}
		}
	}
	if err != nil {
		return Value{}, syntaxError(jsonText, len(text) != len(jsonText), err)
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

// SyntaxError is a JSON text that json.loads would reject, with the byte offset where the
// problem was found and jsonscan's words for it.
type SyntaxError struct {
	Offset int
	Msg    string
}

// Error implements error.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at byte %d: %s", e.Offset, e.Msg)
}

// syntaxError turns err, a *jsonscan.Error in the text Parse read, into a *SyntaxError at its
// offset in orig (the text Parse was given, which differs when replaced holds).
func syntaxError(orig []byte, replaced bool, err error) error {
	var e *jsonscan.Error
	if !errors.As(err, &e) {
		return err
	}
	off := e.Off
	if replaced { // each invalid byte of orig became the three bytes of U+FFFD
		i, n := 0, 0
		for i < len(orig) && n < off {
			r, size := utf8.DecodeRune(orig[i:])
			if i += size; r == utf8.RuneError && size == 1 {
				n += len(string(utf8.RuneError))
			} else {
				n += size
			}
		}
		off = i
	}
	return &SyntaxError{Offset: off, Msg: e.Msg}
}

// toUTF8 returns text with each byte that does not belong to a UTF-8 character replaced by
// U+FFFD.
func toUTF8(text []byte) []byte {
	out := make([]byte, 0, len(text)+16)
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRune(text[i:])
		if r == utf8.RuneError && size == 1 {
			out = utf8.AppendRune(out, r)
		} else {
			out = append(out, text[i:i+size]...)
		}
		i += size
	}
	return out
}

// decoder reads Python's JSON (JSON, and NaN, Infinity and -Infinity where a value may be)
// from UTF-8 text. Each step takes the offset where a value starts and returns the offset
// just past it.
type decoder struct {
	s   []byte
	src string // the same bytes as s, for substrings
}

func (d *decoder) value(i, depth int) (Value, int, error) {
	s := d.s
	if i >= len(s) {
		return Value{}, i, jsonscan.NotAValue(s, i)
	}
	switch c := s[i]; {
	case c == '{':
		return d.object(i, depth)
	case c == '[':
		return d.array(i, depth)
	case c == '"':
		end, escaped, err := jsonscan.String(s, i)
		if err != nil {
			return Value{}, end, err
		}
		return Value{Kind: KindStr, Text: d.text(i, end, escaped)}, end, nil
	case c == 't' || c == 'f' || c == 'n':
		end, k, err := jsonscan.Literal(s, i)
		switch {
		case err != nil:
			return Value{}, end, err
		case k == jsonscan.KindNull:
			return Value{Kind: KindNone}, end, nil
		}
		return Value{Kind: KindBool, Bool: k == jsonscan.KindTrue}, end, nil
	case c == 'N' && d.word(i, "NaN"):
		return Value{Kind: KindFloat, Float: math.NaN()}, i + 3, nil
	case c == 'I' && d.word(i, "Infinity"):
		return Value{Kind: KindFloat, Float: math.Inf(1)}, i + 8, nil
	case c == '-' && d.word(i, "-Infinity"):
		return Value{Kind: KindFloat, Float: math.Inf(-1)}, i + 9, nil
	case c == '-' || ('0' <= c && c <= '9'):
		return d.number(i)
	}
	return Value{}, i, jsonscan.NotAValue(s, i)
}

// word reports whether the text at s[i] starts with w.
func (d *decoder) word(i int, w string) bool {
	return len(d.src)-i >= len(w) && d.src[i:i+len(w)] == w
}

// number reads a JSON number as Python's json module does: an int with all its digits when it
// has no fraction and no exponent, else a float (±inf or 0.0 out of range, as Python's float()
// gives them).
func (d *decoder) number(i int) (Value, int, error) {
	end, integer, err := jsonscan.Number(d.s, i)
	if err != nil {
		return Value{}, end, err
	}
	text := d.src[i:end]
	if integer {
		if text == "-0" {
			text = "0"
		}
		return Value{Kind: KindInt, Text: text}, end, nil
	}
	f, _ := strconv.ParseFloat(text, 64) // only strconv.ErrRange is possible, with ±inf or 0
	return Value{Kind: KindFloat, Float: f}, end, nil
}

// text returns the text of the JSON string s[i:end], which jsonscan has checked, as Python
// decodes it: a lone surrogate escape stays a code point (see Value.Text).
func (d *decoder) text(i, end int, escaped bool) string {
	if !escaped {
		return d.src[i+1 : end-1]
	}
	return string(jsonscan.AppendUnescaped(make([]byte, 0, end-i), d.s[i+1:end-1], jsonscan.Keep))
}

func (d *decoder) array(i, depth int) (Value, int, error) {
	if depth >= maxDepth {
		return Value{}, i, jsonscan.TooDeep(i)
	}
	v := Value{Kind: KindList}
	if i = jsonscan.SkipSpace(d.s, i+1); i < len(d.s) && d.s[i] == ']' {
		return v, i + 1, nil
	}
	for {
		e, end, err := d.value(jsonscan.SkipSpace(d.s, i), depth+1)
		if err != nil {
			return Value{}, end, err
		}
		v.List = append(v.List, e)
		end, closed, err := jsonscan.Next(d.s, end, ']')
		switch {
		case err != nil:
			return Value{}, end, err
		case closed:
			return v, end, nil
		}
		i = end
	}
}

func (d *decoder) object(i, depth int) (Value, int, error) {
	if depth >= maxDepth {
		return Value{}, i, jsonscan.TooDeep(i)
	}
	v := Value{Kind: KindDict}
	if i = jsonscan.SkipSpace(d.s, i+1); i < len(d.s) && d.s[i] == '}' {
		return v, i + 1, nil
	}
	var index map[string]int // built only for large objects with many keys
	for {
		i = jsonscan.SkipSpace(d.s, i)
		key, start, err := jsonscan.Key(d.s, i)
		if err != nil {
			return Value{}, start, err
		}
		k := d.text(i, i+len(key), bytes.IndexByte(key, '\\') >= 0)
		e, end, err := d.value(start, depth+1)
		if err != nil {
			return Value{}, end, err
		}
		if v.Dict == nil {
			v.Dict = make([]Member, 0, 4)
		}
		v.Dict = setMember(v.Dict, &index, k, e)
		end, closed, err := jsonscan.Next(d.s, end, '}')
		switch {
		case err != nil:
			return Value{}, end, err
		case closed:
			return v, end, nil
		}
		i = end
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
