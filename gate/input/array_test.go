package input

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"weak"
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

// TestColumnsInCharacters: columns count characters, so five two-byte 'é' before an error
// count five, whether they are in the same record of a one-line array as the error, in an
// earlier record, or before a syntax error that the stream reader locates; the array scanner
// and the stream reader agree.
func TestColumnsInCharacters(t *testing.T) {
	text := `[{"a": "ééééé", "b": 1}, {"c": 2}]`
	for _, each := range []func(string, io.Reader, func(Record) error) error{eachValue, eachValueStream} {
		var got []string
		err := each("f.json", strings.NewReader(text), func(rec Record) error {
			at := strings.IndexAny(string(rec.Data), "12")
			got = append(got, rec.ErrorAt(at, "here").Error())
			return nil
		})
		want := "f.json:1:22: here|f.json:1:32: here"
		if err != nil || strings.Join(got, "|") != want {
			t.Errorf("got %q, %v; want %q", strings.Join(got, "|"), err, want)
		}
		err = each("f.json", strings.NewReader(`[{"a": "ééééé"}, x]`), func(Record) error { return nil })
		if err == nil || !strings.HasPrefix(err.Error(), "f.json:1:18: invalid JSON") {
			t.Errorf("syntax error: %v, want at f.json:1:18", err)
		}
	}
}

// TestHugeElementLetGo: once a huge element (HugeRecord bytes or more) of an array or of a
// sequence of values is delivered, the scanner lets go of the window it grew to hold it, so that
// only the caller's copy is left while the caller decodes it (issue 26: a 120 MB trace as the
// one element of an array peaked ~130 MB above the same trace on a line of its own). The
// values after it keep their exact positions, and so does a syntax error after them.
func TestHugeElementLetGo(t *testing.T) {
	huge := `"` + strings.Repeat("x", HugeRecord) + `"`
	for _, tc := range []struct{ text, want string }{
		{"[1,\n " + huge + ",\n  \"é\", 2]\n", `1:2 1|2:2 huge|3:3 "é" let go|3:8 2 let go|error: <nil>`},
		{"1\n " + huge + "\n  \"é\" 2\n", `1:1 1|2:2 huge|3:3 "é" let go|3:7 2 let go|error: <nil>`},
		{"[1,\n " + huge + ",\n  \"é\", x]\n", `1:2 1|2:2 huge|3:3 "é" let go|error: f.json:3:8: invalid JSON: expected a value, found 'x'`},
	} {
		var element weak.Pointer[byte] // the huge element's bytes in the scanner's window
		var got []string
		err := eachValue("f.json", strings.NewReader(tc.text), func(rec Record) error {
			if len(rec.Data) == len(huge) {
				element = weak.Make(&rec.Data[0])
				got = append(got, fmt.Sprintf("%d:%d huge", rec.Line, rec.Col))
				return nil
			}
			s := fmt.Sprintf("%d:%d %s", rec.Line, rec.Col, rec.Data)
			if element != (weak.Pointer[byte]{}) {
				runtime.GC()
				if element.Value() == nil {
					s += " let go"
				}
			}
			got = append(got, s)
			return nil
		})
		got = append(got, fmt.Sprintf("error: %v", err))
		if g := strings.Join(got, "|"); g != tc.want {
			t.Errorf("%.20q...:\n got %s\nwant %s", tc.text, g, tc.want)
		}
	}
}
