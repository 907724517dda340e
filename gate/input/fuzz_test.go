package input

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzEach checks that no input makes the reader panic, that every record it yields has a
// sane position and, outside JSON Lines (whose lines the record decoders check), is valid
// JSON, and that every failure is an input error.
func FuzzEach(f *testing.F) {
	for _, s := range []string{"{}\n{\"a\":1}\n", "[{},{}]", "[\n{\"a\":\n1}]", "{\"a\":\"\xff\"}", "", "[", "\n\n{}", "[{}] x"} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, text string, lines bool) {
		name := "f.json"
		if lines {
			name = "f.jsonl"
		}
		layout, err := newSource(strings.NewReader(text)).detect(name)
		if err != nil {
			t.Fatal(err)
		}
		err = EachReader(name, strings.NewReader(text), func(r Record) error {
			if r.Line < 1 || r.Col < 1 {
				t.Fatalf("record at %d:%d", r.Line, r.Col)
			}
			if !json.Valid(r.Data) && layout != Lines {
				t.Fatalf("invalid JSON record %q from a file of layout %d", r.Data, layout)
			}
			return nil
		})
		if err != nil && !IsInputError(err) {
			t.Fatalf("error %T %v is not an input error", err, err)
		}
	})
}
