package jsonscan

import (
	"bytes"
	"strings"
	"testing"
)

// TestSkipIn checks that SkipIn counts the outer levels into the nesting limit: the value
// inside outer levels is valid exactly when the whole text is, and the error names the same
// bracket, with the same message, as Validate does for the whole text.
func TestSkipIn(t *testing.T) {
	for _, outer := range []int{0, 1, 3} {
		for _, n := range []int{MaxDepth - outer - 1, MaxDepth - outer, MaxDepth - outer + 1, MaxDepth + 1} {
			for _, open := range []string{"[", `{"a":`, `["]{", `} {
				closing := strings.Repeat("]", n)
				if open[0] == '{' {
					closing = strings.Repeat("}", n)
				}
				value := strings.Repeat(open, n) + "1" + closing
				whole := strings.Repeat("[", outer) + value + strings.Repeat("]", outer)
				end, err := SkipIn([]byte(whole), outer, outer)
				verr := Validate([]byte(whole))
				switch {
				case verr == nil && err != nil:
					t.Fatalf("outer %d, %d of %q: SkipIn says %v, Validate accepts", outer, n, open, err)
				case verr != nil && err == nil:
					t.Fatalf("outer %d, %d of %q: SkipIn accepts, Validate says %v", outer, n, open, verr)
				case verr != nil:
					e, v := err.(*Error), verr.(*Error)
					if e.Off != v.Off || e.Msg != v.Msg {
						t.Fatalf("outer %d, %d of %q: SkipIn says %d %q, Validate %d %q", outer, n, open, e.Off, e.Msg, v.Off, v.Msg)
					}
				case end != len(whole)-outer:
					t.Fatalf("outer %d, %d of %q: end %d, want %d", outer, n, open, end, len(whole)-outer)
				}
			}
		}
	}
	// Other errors come through as Skip gives them.
	for _, s := range []string{`[1,]`, `{"a" 1}`, `"abc`, ` `} {
		_, err := SkipIn([]byte(s), 0, 2)
		_, want := Skip([]byte(s), 0)
		if err == nil || err.Error() != want.Error() {
			t.Errorf("SkipIn(%q) = %v, want %v", s, err, want)
		}
	}
}

// FuzzSkipIn checks SkipIn against Validate on a valid value wrapped in outer arrays: both
// accept it, or both name the same bracket as too deep.
func FuzzSkipIn(f *testing.F) {
	f.Add([]byte(`{"a": [1, "]"]}`), uint8(2))
	f.Add([]byte(strings.Repeat("[", MaxDepth)+strings.Repeat("]", MaxDepth)), uint8(1))
	f.Fuzz(func(t *testing.T, value []byte, outer uint8) {
		o := int(outer % 8)
		whole := []byte(strings.Repeat("[", o) + string(value) + strings.Repeat("]", o))
		end, err := SkipIn(whole, o, o)
		if Validate(value) != nil {
			return // no panic is all there is to check
		}
		verr := Validate(whole)
		switch {
		case (err == nil) != (verr == nil):
			t.Fatalf("SkipIn(%q, %d) says %v, Validate %v", value, o, err, verr)
		case err != nil:
			if e, v := err.(*Error), verr.(*Error); e.Off != v.Off || e.Msg != v.Msg {
				t.Fatalf("SkipIn(%q, %d) says %d %q, Validate %d %q", value, o, e.Off, e.Msg, v.Off, v.Msg)
			}
		case end != o+len(bytes.TrimRight(value, " \t\r\n")):
			t.Fatalf("SkipIn(%q, %d) ends at %d", value, o, end)
		}
	})
}

// TestSkipMax checks a limit of the reader's own: the first bracket past it is named, and a
// value as deep as the limit is whole.
func TestSkipMax(t *testing.T) {
	for _, c := range []struct {
		text  string
		limit int
		end   int
		err   string
	}{
		{`[[["[[[["]]]`, 3, 12, ""},
		{`[[[[]]]]`, 3, 3, "nesting deeper than 3 levels"},
		{`{"a": {"b": [1]}}`, 2, 12, "nesting deeper than 2 levels"},
		{`[[[[1,]]]]`, 3, 3, "nesting deeper than 3 levels"}, // the first problem wins
		{`[[[1,]]]`, 3, 5, "expected a value, found ']'"},
		{`[1]`, MaxDepth + 5, 3, ""},
	} {
		end, err := SkipMax([]byte(c.text), 0, c.limit)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if end != c.end || msg != c.err {
			t.Errorf("SkipMax(%s, %d) = %d, %q; want %d, %q", c.text, c.limit, end, msg, c.end, c.err)
		}
	}
}
