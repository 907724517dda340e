package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"unicode/utf8"
)

// FuzzAgainstEncodingJSON checks jsonscan against encoding/json on any input: Validate accepts
// exactly what json.Valid accepts (of UTF-8 text: jsonscan also rejects invalid UTF-8 in a
// string, which json.Valid lets pass); Skip ends a value where encoding/json's Decoder ends it;
// a string decodes (with Replace) to what json.Unmarshal gives and a number is the text
// json.Number holds; and an error for a text cut short says EOF.
func FuzzAgainstEncodingJSON(f *testing.F) {
	for _, s := range []string{`{"a": [1, -2.5e+3, true, false, null, "x\u00e9\ud83d\ude00\n"]}`, `[`, `{"a" 1}`, `01`, `1.`, `-`,
		`"\ud800"`, `"\ud800\udc00"`, `"\udc00\ud800x"`, `"\x"`, "\"\x01\"", `[1,]`, `{"a":1,}`, `  {} `, `{} {}`, `"\u12"`, `nul`,
		`[[[[[]]]]]`, "\"\xff\"", `12`, `1e5`, `"ééééé"`, `"a\"b\\c\/d"`, "1 x", "[1]x", `"0123456789abcdef\""`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := Validate(data)
		want := json.Valid(data) && utf8.Valid(data)
		if (err == nil) != want {
			t.Fatalf("Validate(%q) = %v; json.Valid says %v", data, err, json.Valid(data))
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Off < 0 || e.Off > len(data) {
				t.Fatalf("Validate(%q): error %#v", data, err)
			}
		}

		// Skip ends the first value where the Decoder does.
		if utf8.Valid(data) {
			dec := json.NewDecoder(bytes.NewReader(data))
			var raw json.RawMessage
			derr := dec.Decode(&raw)
			end, serr := Skip(data, 0)
			if (derr == nil) != (serr == nil) {
				t.Fatalf("Skip(%q) = %d, %v; Decoder: %v", data, end, serr, derr)
			}
			if derr == nil && int64(end) != dec.InputOffset() {
				t.Fatalf("Skip(%q) ends at %d, Decoder at %d", data, end, dec.InputOffset())
			}
		}

		if err != nil {
			return
		}
		// a valid text cut short is complete or an EOF error, never another one
		for n := range len(data) {
			if SkipSpace(data[:n], 0) == n {
				continue // only white space: no value started
			}
			if _, err := Skip(data[:n], 0); err != nil {
				var e *Error
				if !errors.As(err, &e) || !e.EOF {
					t.Fatalf("the start %q of %q: %v without EOF", data[:n], data, err)
				}
			}
		}

		i := SkipSpace(data, 0)
		switch KindOf(data[i]) {
		case KindString:
			var s string
			if err := json.Unmarshal(data, &s); err != nil {
				t.Fatal(err)
			}
			end, _, _ := String(data, i)
			if got := Unquote(data[i:end], Replace); got != s {
				t.Fatalf("Unquote(%q) = %q, encoding/json %q", data, got, s)
			}
			if !KeyIs(data[i:end], s) {
				t.Fatalf("KeyIs(%q, %q) is false", data, s)
			}
		case KindNumber:
			var n json.Number
			if err := json.Unmarshal(data, &n); err != nil {
				t.Fatal(err)
			}
			end, integer, _ := Number(data, i)
			if string(data[i:end]) != n.String() {
				t.Fatalf("Number(%q) = %q, encoding/json %q", data, data[i:end], n)
			}
			if integer != !bytes.ContainsAny(data[i:end], ".eE") {
				t.Fatalf("Number(%q): integer %v", data, integer)
			}
		}
	})
}
