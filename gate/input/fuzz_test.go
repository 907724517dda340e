package input

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzEach checks that no input makes the reader panic, that every record it yields is valid
// JSON with a sane position, and that every failure is an input error with a position.
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
		err := EachReader(name, strings.NewReader(text), func(r Record) error {
			if r.Line < 1 || r.Col < 1 {
				t.Fatalf("record at %d:%d", r.Line, r.Col)
			}
			if !json.Valid(r.Data) && !lines {
				t.Fatalf("invalid JSON record %q from a .json file", r.Data)
			}
			return nil
		})
		if err != nil && !IsInputError(err) {
			t.Fatalf("error %T %v is not an input error", err, err)
		}
	})
}
