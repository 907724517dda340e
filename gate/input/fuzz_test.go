package input

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentgate/agentgate/internal/jsonscan"
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
		layout, err := newSource(name, strings.NewReader(text)).detect(name)
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

// FuzzDecode checks that Record.Decode never panics, that its errors are input errors inside
// the record, that it calls text invalid JSON exactly when it is not (valid UTF-8 JSON), and
// that a type error names the kind it found at the place it points to.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"id": 5}`, `{"id": "x", "messages": [{"role": []}]}`, `{"n": 1.5}`, `[[1]]`, `{"m": {"a": {"c": ["s", [[1]]]}}}`, `{"id": "x",}`, "{\"id\": \"\xff\"}", `{"m": {"k": {"c": [true]}}}`} {
		f.Add(s)
	}
	type rec struct {
		ID       string `json:"id"`
		Messages []struct {
			Role string `json:"role"`
		} `json:"messages"`
		N *int64 `json:"n"`
		M map[string]struct {
			C []string `json:"c"`
		} `json:"m"`
		B bool `json:"b"`
	}
	f.Fuzz(func(t *testing.T, data string) {
		r := Record{File: "f.jsonl", Line: 3, Col: 2, Data: []byte(data)}
		var v rec
		err := r.Decode(&v)
		if err == nil {
			return
		}
		e, ok := err.(*Error)
		if !ok {
			t.Fatalf("Decode(%q): %T %v is not an *Error", data, err, err)
		}
		valid := json.Valid(r.Data) && utf8.ValidString(data)
		if strings.HasPrefix(e.Msg, "invalid JSON: ") == valid {
			t.Fatalf("Decode(%q) = %v, but the text is valid: %v", data, err, valid)
		}
		end := jsonscan.Position(r.Data, len(r.Data))
		if e.Line < 3 || e.Line > 3+end.Line-1 || e.Col < 1 {
			t.Fatalf("Decode(%q) = %v: outside the record", data, err)
		}
		if valid {
			_, found, _ := strings.Cut(e.Msg, ", found ")
			lines := strings.SplitAfter(data, "\n")
			col := e.Col
			if e.Line == 3 {
				col -= 1 // the record starts at column 2
			}
			off := len(strings.Join(lines[:e.Line-3], ""))
			for c := 1; c < col; c++ {
				_, size := utf8.DecodeRuneInString(data[off:])
				off += size
			}
			if k := jsonscan.KindOfValue(r.Data[off:]).String(); k != found {
				t.Fatalf("Decode(%q) = %v, but there is %s at %d", data, err, k, off)
			}
		}
	})
}

// FuzzLimited checks the bounded reader and the readers behind it with small limits: a
// LimitedReader returns the input up to the limit and then its error, never more; and the
// readers, with the record limit and the length at which a value is read on in blocks both
// small, deliver the records encoding/json does whenever neither limit is passed, and only
// input errors otherwise.
func FuzzLimited(f *testing.F) {
	for _, s := range []string{"[{},{}]", `[{"a": "xxxxxxxxxxxxxxxxxxxxxxxx"}, {"b": [{}, {}, {}, {}, {}]}]`, `"xxxxxxxxxxxxxxxxxxxx" 123456789012345678 {}`, "   \n\n  {}", "{}\n{\"a\":1}\n"} {
		f.Add(s, uint16(40), uint8(3))
		f.Add(s, uint16(1000), uint8(7))
	}
	f.Fuzz(func(t *testing.T, text string, limit uint16, step uint8) {
		oldRecord, oldLong := MaxRecord, longValue
		defer func() { MaxRecord, longValue = oldRecord, oldLong; SetMaxInputBytes(0) }()
		SetMaxInputBytes(int64(limit) + 1)
		MaxRecord, longValue = 48, 8
		// the LimitedReader alone, read in small steps
		l := &LimitedReader{Name: "f", R: strings.NewReader(text)}
		var got []byte
		buf := make([]byte, int(step)%16+1)
		var err error
		for err == nil {
			var n int
			n, err = l.Read(buf)
			got = append(got, buf[:n]...)
		}
		over := len(text) > int(limit)+1
		if keep := min(len(text), int(limit)+1); string(got) != text[:keep] || over != IsInputError(err) || !over && err != io.EOF {
			t.Fatalf("read %d of %d bytes with limit %d, then %v", len(got), len(text), limit+1, err)
		}
		// the readers
		var recs []string
		err = eachValue("f.json", strings.NewReader(text), func(r Record) error {
			recs = append(recs, fmt.Sprintf("%d:%d %s", r.Line, r.Col, r.Data))
			return nil
		})
		if err != nil {
			if !IsInputError(err) {
				t.Fatalf("error %T %v is not an input error", err, err)
			}
			return
		}
		MaxRecord, longValue = oldRecord, oldLong
		SetMaxInputBytes(0)
		var want []string
		if eachValueStream("f.json", strings.NewReader(text), func(r Record) error {
			want = append(want, fmt.Sprintf("%d:%d %s", r.Line, r.Col, r.Data))
			return nil
		}) != nil || strings.Join(recs, "\n") != strings.Join(want, "\n") {
			t.Fatalf("records %q, encoding/json reads %q", recs, want)
		}
	})
}
