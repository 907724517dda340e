package input

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
)

// smallReads is a ReadSeeker that reads at most n bytes at a time, so that values straddle
// the scanner's window.
type smallReads struct {
	*strings.Reader
	n int
}

func (s *smallReads) Read(p []byte) (int, error) {
	if len(p) > s.n {
		p = p[:s.n]
	}
	return s.Reader.Read(p)
}

// compareValue checks that eachValue (the scanner, falling back on encoding/json) gives what
// eachValueStream gives for text, record for record and error for error, and that a
// callback's error stops both at the same record.
func compareValue(t *testing.T, text string, chunk int) {
	t.Helper()
	for stopAt := -1; stopAt < 3; stopAt++ {
		read := func(each func(string, io.Reader, func(Record) error) error, r io.Reader) string {
			var b strings.Builder
			n := 0
			err := each("f.json", r, func(rec Record) error {
				fmt.Fprintf(&b, "%d:%d %q\n", rec.Line, rec.Col, rec.Data)
				if n++; n-1 == stopAt {
					return fmt.Errorf("stop")
				}
				return nil
			})
			fmt.Fprintf(&b, "error: %v", err)
			return b.String()
		}
		// encoding/json's messages depend on how much each read returns: compare readers
		// that read alike
		for _, reader := range []func() io.Reader{
			func() io.Reader { return strings.NewReader(text) },
			func() io.Reader { return &smallReads{strings.NewReader(text), max(chunk, 1)} },
		} {
			want := read(eachValueStream, reader())
			if got := read(eachValue, reader()); got != want {
				t.Fatalf("%q (reads of %d, stop at %d):\n got %s\nwant %s", text, chunk, stopAt, got, want)
			}
		}
	}
}

func TestArrayMatchesStream(t *testing.T) {
	long := `{"a": "` + strings.Repeat("x", 300<<10) + `"}`
	texts := []string{
		"", "  \n", "[]", " [ ] \n", "[{}]", "[\n  {\"a\": 1},\n  {\"b\": 2}, {\"c\": 3}\n]\n", "{\"a\": 1}", "\n\n  {\"a\": 1}\n",
		"[1, 2.5e-3, -0, true, false, null, \"x\"]", "[1,]", "[,1]", "[1 2]", "[1] x", "[1]]", "[{\"a\" 1}]", "[", "[{", "[1",
		"[\"\xff\"]", "[\"ok\", \"\xff\"]", "\xef\xbb\xbf[1]", "[01]", "[1.]", "[-]", "[\"\\u12\"]", "[\"\\x\"]", "[tru]", "[nul]",
		"[" + long + ", " + long + "]", "[" + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + "]",
		"[" + strings.Repeat("[", 500) + strings.Repeat("]", 500) + "]", "[1]\n\n", "[1] [2]", "[\"a\\\"b\", {\"k\": [1, {\"z\": null}]}]",
		"[\n\t{\"x\": \"é\"},\r\n{\"y\": \"\\ud800\"}\n]",
	}
	for _, text := range texts {
		for _, chunk := range []int{1, 3, 64 << 10} {
			compareValue(t, text, chunk)
		}
	}
}

// FuzzArrays checks the scanner's reading of JSON files against encoding/json's.
func FuzzArrays(f *testing.F) {
	for _, s := range []string{"[]", "[{\"a\": 1}, {\"b\": [true, null]}]", "[1,]", "{\"a\": 1}", "[\"\xff\"]", "[1] x", "[\n{},\n{}\n]"} {
		f.Add(s, uint16(3))
	}
	f.Fuzz(func(t *testing.T, text string, chunk uint16) {
		compareValue(t, text, int(chunk%512))
	})
}

// FuzzArrayScanner checks that the scanner accepts exactly what json.Valid accepts, and that
// it never calls a value invalid for sure when only its end is missing.
func FuzzArrayScanner(f *testing.F) {
	for _, s := range []string{`{"a": [1, -2.5e+3, true, false, null, "x\u00e9\ud83d\ude00\n"]}`, `[`, `{"a" 1}`, `01`, `1.`, `-`,
		`"\ud800"`, `"\x"`, "\"\x01\"", `[1,]`, `{"a":1,}`, `  {} `, `{} {}`, `"\u12"`, `nul`, `[[[[[]]]]]`, "\"\xff\"", `12`, `1e5`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := scanner{data: data}
		s.value()
		s.space()
		if got, want := !s.failed && s.i == len(data), json.Valid(data); got != want {
			t.Fatalf("scanner accepts %q: %v; json.Valid says %v", data, got, want)
		}
		if !json.Valid(data) {
			return
		}
		for n := range len(data) {
			p := scanner{data: data[:n]}
			p.value()
			if p.failed && !p.truncated {
				t.Fatalf("the start %q of %q is called invalid", data[:n], data)
			}
		}
	})
}
