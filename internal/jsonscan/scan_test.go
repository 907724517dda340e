package jsonscan

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// errOf returns the message and offset of err, an *Error.
func errOf(t *testing.T, err error) (string, int, bool) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %T %v is not an *Error", err, err)
	}
	return e.Msg, e.Off, e.EOF
}

func TestValidateErrors(t *testing.T) {
	for _, c := range []struct {
		in, msg string
		off     int
		eof     bool
	}{
		{`[1, 2`, "unexpected end of input in an array", 5, true},
		{`{"a": 1`, "unexpected end of input in an object", 7, true},
		{`{"a"`, "unexpected end of input in an object", 4, true},
		{`"abc`, "unexpected end of input in a string", 4, true},
		{`"ab\`, "unexpected end of input in a string", 4, true},
		{`"\u12`, "unexpected end of input in a string", 5, true},
		{`"a\qb"`, `invalid escape \q`, 2, false},
		{`"\u12x4"`, `invalid escape \u12x: expected four hexadecimal digits`, 1, false},
		{"\"a\x01\"", "control character U+0001 in a string: it must be escaped", 2, false},
		{"\"ab\xffcd\"", "invalid UTF-8", 3, false},
		{"\"ab\xe2\x82", "unexpected end of input in a string", 5, true},
		{"  \"12345678\xc3\x28\"", "invalid UTF-8", 11, false},
		{`-`, "unexpected end of input in a number", 1, true},
		{`-x`, "invalid number: expected a digit, found 'x'", 1, false},
		{`1.`, "unexpected end of input in a number", 2, true},
		{`1.e3`, "invalid number: expected a digit after '.', found 'e'", 2, false},
		{`1e+`, "unexpected end of input in a number", 3, true},
		{`[01]`, "expected ',' or ']' after an array element, found '1'", 2, false},
		{`tru`, "unexpected end of input in true", 3, true},
		{`trUe`, "invalid literal: expected true, found 'U'", 2, false},
		{`nul`, "unexpected end of input in null", 3, true},
		{`[1,]`, "expected a value, found ']'", 3, false},
		{`{"a" 1}`, "expected ':' after an object key, found '1'", 5, false},
		{`{"a":1,}`, "expected a string key, found '}'", 7, false},
		{`{"a":1 "b":2}`, "expected ',' or '}' after an object member, found '\"'", 7, false},
		{`{1:2}`, "expected a string key, found '1'", 1, false},
		{``, "unexpected end of input, expected a value", 0, true},
		{`  `, "unexpected end of input, expected a value", 2, true},
		{`1 2`, "unexpected '2' after the value", 2, false},
		{"[é]", "expected a value, found 'é'", 1, false},
		{strings.Repeat("[", MaxDepth+1), "nesting deeper than 10000 levels", MaxDepth, false},
	} {
		err := Validate([]byte(c.in))
		if err == nil {
			t.Errorf("%q: no error", c.in)
			continue
		}
		msg, off, eof := errOf(t, err)
		if AtEOF(err) != c.eof {
			t.Errorf("%q: AtEOF %v", c.in, AtEOF(err))
		}
		if msg != c.msg || off != c.off || eof != c.eof {
			t.Errorf("%q: %q at %d (eof %v), want %q at %d (eof %v)", c.in, msg, off, eof, c.msg, c.off, c.eof)
		}
	}
	deep := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	if err := Validate([]byte(deep)); err != nil {
		t.Errorf("%d levels: %v", MaxDepth, err)
	}
}

func TestStringAndUnescape(t *testing.T) {
	for _, c := range []struct {
		in            string
		escaped       bool
		replace, keep string
	}{
		{`"plain text, longer than eight"`, false, "plain text, longer than eight", "plain text, longer than eight"},
		{`"ééééé and 😀"`, false, "ééééé and 😀", "ééééé and 😀"},
		{`"a\"b\\c\/d\b\f\n\r\t"`, true, "a\"b\\c/d\b\f\n\r\t", "a\"b\\c/d\b\f\n\r\t"},
		{`"\u00e9\uD83D\uDE00"`, true, "é😀", "é😀"},
		{`"x\ud800y"`, true, "x\uFFFDy", "x\xed\xa0\x80y"},
		{`"\udc00\ud800"`, true, "\uFFFD\uFFFD", "\xed\xb0\x80\xed\xa0\x80"},
		{`"\ud800\u0041"`, true, "\uFFFDA", "\xed\xa0\x80A"},
	} {
		data := []byte(c.in + ",")
		end, escaped, err := String(data, 0)
		if err != nil || end != len(c.in) || escaped != c.escaped {
			t.Errorf("String(%s) = %d, %v, %v; want %d, %v", c.in, end, escaped, err, len(c.in), c.escaped)
			continue
		}
		if got := Unquote(data[:end], Replace); got != c.replace {
			t.Errorf("Unquote(%s, Replace) = %q, want %q", c.in, got, c.replace)
		}
		if got := Unquote(data[:end], Keep); got != c.keep {
			t.Errorf("Unquote(%s, Keep) = %q, want %q", c.in, got, c.keep)
		}
		if !KeyIs(data[:end], c.replace) || KeyIs(data[:end], c.replace+"x") {
			t.Errorf("KeyIs(%s) wrong", c.in)
		}
	}
}

// TestSpecials checks that the eight-byte scan flags exactly the bytes that need a look, in
// every lane and whatever the other lanes hold (a borrow must not run on).
func TestSpecials(t *testing.T) {
	need := func(c byte) bool { return c == '"' || c == '\\' || c < 0x20 || c >= 0x80 }
	for c := 0; c < 256; c++ {
		for _, fill := range []byte{0, 'a', '"', 0x1f, 0x20, 0x80, 0xff, '\\'} {
			for lane := 0; lane < 8; lane++ {
				b := bytes.Repeat([]byte{fill}, 8)
				b[lane] = byte(c)
				m := specials(binary.LittleEndian.Uint64(b))
				for k := 0; k < 8; k++ {
					if got := m>>(8*k+7)&1 == 1; got != need(b[k]) {
						t.Fatalf("% x: lane %d flagged %v", b, k, got)
					}
				}
			}
		}
	}
}

func TestNumber(t *testing.T) {
	for _, c := range []struct {
		in      string
		end     int
		integer bool
	}{{"0", 1, true}, {"-12,", 3, true}, {"1.5]", 3, false}, {"1e3 ", 3, false}, {"-0.0E-7", 7, false}, {"012", 1, true}} {
		end, integer, err := Number([]byte(c.in), 0)
		if err != nil || end != c.end || integer != c.integer {
			t.Errorf("Number(%q) = %d, %v, %v; want %d, %v", c.in, end, integer, err, c.end, c.integer)
		}
	}
}

func TestKinds(t *testing.T) {
	var got []string
	for _, v := range []string{`{}`, `[]`, `""`, `-1`, `true`, `false`, `null`, `x`} {
		got = append(got, KindOfValue([]byte(" "+v)).String())
	}
	want := "an object|an array|a string|a number|true|false|null|no value"
	if strings.Join(got, "|") != want {
		t.Errorf("kinds %q, want %q", strings.Join(got, "|"), want)
	}
	if got := Expected("an array", KindNumber); got != "expected an array, found a number" {
		t.Errorf("Expected: %q", got)
	}
	_, err := EachElement([]byte(` 12`), 0, nil)
	if msg, off, _ := errOf(t, err); msg != "expected an array, found a number" || off != 1 {
		t.Errorf("EachElement(12): %q at %d", msg, off)
	}
}

func TestWalk(t *testing.T) {
	data := []byte(` {"a": [1, "x"], "b\u00e9" : {"c": null} , "d":true} `)
	var got []string
	end, err := EachMember(data, 0, func(key []byte, start, end int) error {
		got = append(got, Unquote(key, Replace)+"="+string(data[start:end]))
		if KeyIs(key, "a") {
			_, err := EachElement(data, start, func(s, e int) error {
				got = append(got, "["+string(data[s:e])+"]")
				return nil
			})
			return err
		}
		return nil
	})
	want := `a=[1, "x"] [1] ["x"] bé={"c": null} d=true`
	if err != nil || end != len(data)-1 || strings.Join(got, " ") != want {
		t.Errorf("EachMember: %q, %d, %v; want %q, %d", strings.Join(got, " "), end, err, want, len(data)-1)
	}
	for _, c := range []struct {
		in, msg string
		off     int
	}{{`{"a":1,}`, "expected a string key, found '}'", 7}, {`[1 2]`, "expected ',' or ']' after an array element, found '2'", 3},
		{`{"a":1`, "unexpected end of input in an object", 6}, {`[`, "unexpected end of input, expected a value", 1}} {
		var err error
		if c.in[0] == '{' {
			_, err = EachMember([]byte(c.in), 0, func([]byte, int, int) error { return nil })
		} else {
			_, err = EachElement([]byte(c.in), 0, func(int, int) error { return nil })
		}
		if msg, off, _ := errOf(t, err); msg != c.msg || off != c.off {
			t.Errorf("%q: %q at %d, want %q at %d", c.in, msg, off, c.msg, c.off)
		}
	}
}

// TestPosition checks the column unit: characters, so that five two-byte 'é' before an error
// count five columns, whether the text is seen whole or in pieces.
func TestPosition(t *testing.T) {
	text := []byte("[{\"a\": \"ééééé\", \"b\": x},\n  {\"c\": \"ééééé\"}, {\"d\": y}]")
	x := bytes.IndexByte(text, 'x')
	y := bytes.IndexByte(text, 'y')
	if got := Position(text, x); got != (Pos{Line: 1, Col: 22}) {
		t.Errorf("x at %+v, want 1:22", got)
	}
	if got := Position(text, y); got != (Pos{Line: 2, Col: 25}) {
		t.Errorf("y at %+v, want 2:25", got)
	}
	for cut := 0; cut <= y; cut++ {
		p := Start
		p.Advance(text[:cut])
		p.Advance(text[cut:y])
		if p != (Pos{Line: 2, Col: 25}) {
			t.Fatalf("cut at %d: %+v", cut, p)
		}
	}
	if got := Chars([]byte("ééééé😀abc\xff")); got != 10 {
		t.Errorf("Chars = %d, want 10", got)
	}
}

// TestIsSpace: exactly the four bytes RFC 8259 calls white space, of all 256.
func TestIsSpace(t *testing.T) {
	for c := range 256 {
		want := c == 0x20 || c == 0x09 || c == 0x0a || c == 0x0d
		if got := IsSpace(byte(c)); got != want {
			t.Errorf("IsSpace(%#02x) = %v", c, got)
		}
	}
	if got := SkipSpace([]byte(" \t\r\n\v x"), 0); got != 4 {
		t.Errorf("SkipSpace stops at %d, want 4 (before the vertical tab)", got)
	}
}

// TestKeyFolds: a key folds to a field's name as encoding/json matches them, checked against
// encoding/json itself.
func TestKeyFolds(t *testing.T) {
	for _, key := range []string{`"messages"`, `"MESSAGES"`, `"Messages"`, `"meſſages"`, `"mess\u0061ges"`,
		`"ME\u017f\u017fAGES"`, `"message"`, `"messagesx"`, `""`, `"mess\nges"`, `"\u00e9"`} {
		var v struct{ Messages int }
		if err := json.Unmarshal([]byte(`{`+key+`: 1}`), &v); err != nil {
			t.Fatal(err)
		}
		want := v.Messages == 1
		if got := KeyFolds([]byte(key), "messages"); got != want {
			t.Errorf("KeyFolds(%s, messages) = %v, encoding/json matches it: %v", key, got, want)
		}
	}
	// the Kelvin sign folds to k
	if !KeyFolds([]byte(`"\u212a"`), "k") || !KeyFolds([]byte("\"\u212a\""), "k") {
		t.Error("the Kelvin sign does not fold to k")
	}
}
