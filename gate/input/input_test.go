package input

import (
	"errors"
	"strings"
	"testing"
)

type got struct {
	line, col int
	data      string
}

func collect(t *testing.T, name, text string) ([]got, error) {
	t.Helper()
	var out []got
	err := EachReader(name, strings.NewReader(text), func(r Record) error {
		out = append(out, got{r.Line, r.Col, string(r.Data)})
		return nil
	})
	return out, err
}

func TestEachPositions(t *testing.T) {
	cases := []struct {
		name, file, text string
		want             []got
	}{
		{"jsonl skips blank lines and CRLF", "a.jsonl", "{\"a\":1}\r\n\n   \n{\"b\":2}\n", []got{{1, 1, `{"a":1}`}, {4, 1, `{"b":2}`}}},
		{"jsonl without final newline", "a.jsonl", `{"a":1}` + "\n" + `{"b":2}`, []got{{1, 1, `{"a":1}`}, {2, 1, `{"b":2}`}}},
		{"jsonl with BOM", "a.jsonl", "\xef\xbb\xbf{\"a\":1}\n", []got{{1, 1, `{"a":1}`}}},
		{"json single record", "a.json", "\n\n  {\"a\": 1}\n", []got{{3, 3, `{"a": 1}`}}},
		{"json array", "a.json", "[\n  {\"a\": 1},\n  {\"b\": 2}, {\"c\": 3}\n]\n", []got{{2, 3, `{"a": 1}`}, {3, 3, `{"b": 2}`}, {3, 13, `{"c": 3}`}}},
		{"upper-case extension", "A.JSONL", "{}\n", []got{{1, 1, `{}`}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := collect(t, c.file, c.text)
			if err != nil {
				t.Fatal(err)
			}
			if len(out) != len(c.want) {
				t.Fatalf("got %d records %v, want %v", len(out), out, c.want)
			}
			for i := range out {
				if out[i] != c.want[i] {
					t.Errorf("record %d = %+v, want %+v", i, out[i], c.want[i])
				}
			}
		})
	}
}

func TestEachLongLine(t *testing.T) {
	// 5 MiB on one line: far past bufio.Scanner's 64 KiB default.
	long := `{"content":"` + strings.Repeat("x", 5<<20) + `"}`
	out, err := collect(t, "big.jsonl", "{}\n"+long+"\n{}\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 3 || out[1].line != 2 || len(out[1].data) != len(long) || out[2].line != 3 {
		t.Fatalf("long line not read whole: %d records, second has %d bytes", len(out), len(out[1].data))
	}
}

func TestEachErrors(t *testing.T) {
	cases := []struct{ name, file, text, want string }{
		{"empty jsonl", "e.jsonl", "", "e.jsonl: no records: the file is empty"},
		{"blank jsonl", "e.jsonl", "\n  \n", "e.jsonl: no records: the file is empty"},
		{"empty json", "e.json", "  \n", "e.json: no records: the file is empty"},
		{"truncated array", "t.json", "[\n {\"a\": 1},\n {\"b\":", "t.json:3:7: invalid JSON: unexpected end of input, expected a value"},
		{"garbage in array", "g.json", "[\n {\"a\": 1},\n nope\n]", "g.json:3:3: invalid JSON: invalid literal: expected null, found 'o'"},
		{"after array", "after.json", "[{}]\n{}", "after.json:2:1: unexpected '{' after the closing ']' of the array"},
		{"garbage after array", "after.json", "[1] x", "after.json:1:5: unexpected 'x' after the closing ']' of the array"},
		{"no comma", "c.json", "[{\"é\": 1} 2]", "c.json:1:11: invalid JSON: expected ',' or ']' after an array element, found '2'"},
		{"trailing comma", "c.json", "[1,\n]", "c.json:2:1: invalid JSON: expected a value, found ']'"},
		{"wrong bracket", "c.json", "[1}", "c.json:1:3: invalid JSON: expected ',' or ']' after an array element, found '}'"},
		{"cut in a string", "s.json", "[{\"a\": \"ééx", "s.json:1:12: invalid JSON: unexpected end of input in a string"},
		{"bad escape", "s.json", "[{\"a\": \"\\q\"}]", "s.json:1:9: invalid JSON: invalid escape \\q"},
		{"closing brace in a sequence", "q.json", "{\n}\n}", "q.json:3:1: invalid JSON: expected a value, found '}'"},
		{"bad utf8 between elements", "u.json", "[1, \xff]", "u.json:1:5: invalid UTF-8: input files must be UTF-8 text"},
		{"bad utf8 jsonl", "u.jsonl", "{}\n{\"a\":\"\xff\"}\n", "u.jsonl:2:7: invalid UTF-8: input files must be UTF-8 text"},
		{"bad utf8 json", "u.json", "{\"a\":\n\"\xfe\"}", "u.json:2:2: invalid UTF-8: input files must be UTF-8 text"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := collect(t, c.file, c.text)
			if err == nil {
				t.Fatalf("no error, want %q", c.want)
			}
			if !IsInputError(err) {
				t.Errorf("error %T is not an input error", err)
			}
			if err.Error() != c.want {
				t.Errorf("error\n got %q\nwant %q", err.Error(), c.want)
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	type rec struct {
		ID       string `json:"id"`
		Messages []struct {
			Role string `json:"role"`
		} `json:"messages"`
		N int `json:"n"`
		M map[string]struct {
			C []string `json:"c"`
		} `json:"m"`
	}
	cases := []struct{ data, want string }{
		{`{"id": 5}`, `f.jsonl:7:8: field "id": expected a string, found a number`},
		{`{"id": "x", "messages": [{"role": []}]}`, `f.jsonl:7:35: field "messages[0].role": expected a string, found an array`},
		{`{"id": "x", "messages": [{"role": "u"}, {"role": true}]}`, `f.jsonl:7:50: field "messages[1].role": expected a string, found true`},
		{`{"id": "x", "messages": {"role": "u"}}`, `f.jsonl:7:25: field "messages": expected an array, found an object`},
		{`{"n": 1.5}`, `f.jsonl:7:7: field "n": expected an integer, found a number`},
		{`{"m": {"a.b": {"c": ["s", [[1]]]}}}`, `f.jsonl:7:27: field "m.a.b.c[1]": expected a string, found an array`},
		{` [[1]]`, `f.jsonl:7:2: expected an object, found an array`},
		{`{"id": "x",}`, `f.jsonl:7:12: invalid JSON: expected a string key, found '}'`},
		{`{"id": "é", "x": [}`, `f.jsonl:7:19: invalid JSON: expected a value, found '}'`},
	}
	for _, c := range cases {
		var v rec
		err := Record{File: "f.jsonl", Line: 7, Col: 1, Data: []byte(c.data)}.Decode(&v)
		if err == nil || err.Error() != c.want {
			t.Errorf("Decode(%s)\n got %v\nwant %s", c.data, err, c.want)
		}
	}
}

func TestCallbackErrorStops(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	err := EachReader("a.jsonl", strings.NewReader("{}\n{}\n{}\n"), func(Record) error { n++; return stop })
	if err != stop || n != 1 {
		t.Fatalf("err=%v n=%d, want stop after 1", err, n)
	}
}

func TestSplitList(t *testing.T) {
	got := SplitList(" a/*.jsonl,\nb.json \n\n, c ")
	want := []string{"a/*.jsonl", "b.json", "c"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("SplitList = %q, want %q", got, want)
	}
}
