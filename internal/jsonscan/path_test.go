package jsonscan

import (
	"strings"
	"testing"
)

func TestPath(t *testing.T) {
	const doc = ` {"a": [1, {"b": "x", "é": [true, null]}], "a": {"c": 2}, "d": "z"}`
	for _, c := range []struct {
		path Path
		want string // the text at Locate's offset
		name string
	}{
		{PathOf(), `{"a"`, ""},
		{PathOf("d"), `"z"`, "d"},
		{PathOf("a"), `{"c"`, "a"}, // of repeated keys the last counts
		{PathOf("a", "c"), `2}`, "a.c"},
		{PathOf("a", 0), `{"c"`, "a[0]"},        // no element 0 in an object: its ancestor
		{PathOf("nope", "x"), `{"a"`, "nope.x"}, // no such member: the top
		{PathOf("d", 3), `"z"`, "d[3]"},
	} {
		at := Locate([]byte(doc), c.path)
		if got := doc[at:min(at+len(c.want), len(doc))]; got != c.want {
			t.Errorf("Locate(%s) at %d: %q, want %q", c.name, at, got, c.want)
		}
		if got := c.path.String(); got != c.name {
			t.Errorf("String = %q, want %q", got, c.name)
		}
	}
	for _, c := range []struct {
		text, want string // the value to find (its first occurrence) and its path
	}{
		{`"x"`, "a[1].b"},
		{`null`, "a[1].é[1]"},
		{`2}`, "a.c"},
		{`{"b"`, "a[1]"},
		{` {"a"`, ""},
	} {
		off := strings.Index(doc, c.text)
		if got := PathAt([]byte(doc), off).String(); got != c.want {
			t.Errorf("PathAt(%q) = %q, want %q", c.text, got, c.want)
		}
	}
	// A place inside a string names the deepest value that holds it.
	if got := PathAt([]byte(doc), strings.Index(doc, `"z"`)+1).String(); got != "d" {
		t.Errorf("PathAt inside a string = %q", got)
	}
}
