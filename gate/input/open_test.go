package input

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// eachFile writes text to a file called name in a new directory (gzip-compressed first if
// gz) and reads it with Each, returning the records as "line:col data" and the error.
func eachFile(t *testing.T, name, text string, gz bool) (string, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	data := []byte(text)
	if gz {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write(data)
		w.Close()
		data = b.Bytes()
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var out []string
	err := Each(path, func(r Record) error {
		out = append(out, fmt.Sprintf("%d:%d %s", r.Line, r.Col, r.Data))
		return nil
	})
	if err != nil {
		err = errors.New(strings.ReplaceAll(err.Error(), filepath.Dir(path)+"/", ""))
	}
	return strings.Join(out, " | "), err
}

// TestLayoutByContent: the layout comes from the content, not the name (docs/design.md#file-layouts-and-formats): '[' starts
// an array whatever the extension, and anything else is a sequence of values, one a line or
// not. Positions are exact in every layout, with a byte order mark or without, compressed or
// not. Before, a .json holding JSON Lines was an error, a .jsonl holding an array gave one
// record (the array), and a .json with a byte order mark was an error (issue 16 item 1,
// issue 12 item 9).
func TestLayoutByContent(t *testing.T) {
	cases := []struct{ name, file, text, want string }{
		{"json holding JSON Lines", "a.json", "{\"a\":1}\n\n{\"b\":2}\n", `1:1 {"a":1} | 3:1 {"b":2}`},
		{"jsonl holding an array", "a.jsonl", "[\n {\"a\":1},\n {\"b\":2}\n]\n", `2:2 {"a":1} | 3:2 {"b":2}`},
		{"ndjson", "a.ndjson", "{\"a\":1}\n{\"b\":2}", `1:1 {"a":1} | 2:1 {"b":2}`},
		{"pretty object in .json", "a.json", "{\n  \"a\": [1,\n 2]\n}\n", "1:1 {\n  \"a\": [1,\n 2]\n}"},
		{"two pretty objects", "a.json", "{\n \"a\": 1\n}\n  {\n \"b\": 2\n}", "1:1 {\n \"a\": 1\n} | 4:3 {\n \"b\": 2\n}"},
		{"values sharing a line", "a.json", `{"a":1} {"b":2}` + "\n" + `{"c":3}`, `1:1 {"a":1} | 1:9 {"b":2} | 2:1 {"c":3}`},
		{"indented single record", "a.json", "\n\n  {\"a\": 1}\n", `3:3 {"a": 1}`},
		{"BOM in .json", "a.json", "\xef\xbb\xbf{\"a\": 1}", `1:1 {"a": 1}`},
		{"BOM before an array", "a.json", "\xef\xbb\xbf[{\"a\": 1},\n{\"b\": 2}]", `1:2 {"a": 1} | 2:1 {"b": 2}`},
		{"BOM before a pretty object", "a.json", "\xef\xbb\xbf{\n\"a\": 1}", "1:1 {\n\"a\": 1}"},
		{"BOM in .jsonl", "a.jsonl", "\xef\xbb\xbf{\"a\":1}\n{}\n", `1:1 {"a":1} | 2:1 {}`},
		{"any extension", "a.txt", "{\"a\":1}\n{\"b\":2}\n", `1:1 {"a":1} | 2:1 {"b":2}`},
		// issue 25 item 3: a .jsonl or .ndjson whose first value spans lines is read as in .json
		// (it was "unexpected end of input in an object" at 1:2)
		{"pretty object in .jsonl", "a.jsonl", "{\n  \"a\": [1,\n 2]\n}\n", "1:1 {\n  \"a\": [1,\n 2]\n}"},
		{"two pretty objects in .ndjson", "a.ndjson", "{\n \"a\": 1\n}\n{\n \"b\": 2\n}", "1:1 {\n \"a\": 1\n} | 4:1 {\n \"b\": 2\n}"},
		{"BOM before a pretty object in .JSONL", "a.JSONL", "\xef\xbb\xbf{\n\"a\": 1}", "1:1 {\n\"a\": 1}"},
	}
	for _, c := range cases {
		for _, gz := range []bool{false, true} {
			file := c.file
			if gz {
				file += ".gz"
			}
			got, err := eachFile(t, file, c.text, gz)
			if err != nil {
				t.Errorf("%s (%s): %v", c.name, file, err)
				continue
			}
			if got != c.want {
				t.Errorf("%s (%s):\n got %q\nwant %q", c.name, file, got, c.want)
			}
		}
	}
}

// TestLayoutErrors: errors keep their exact file:line:col in every layout and through gzip.
func TestLayoutErrors(t *testing.T) {
	cases := []struct{ name, file, text, want string }{
		{"pretty object cut short", "a.json", "{\n  \"a\": [1,\n", "a.json:3:1: invalid JSON: unexpected end of input, expected a value"},
		{"bad value in a sequence", "a.json", "{\n \"a\": 1\n}\n{\n \"b\": nope\n}", "a.json:5:8: invalid JSON: invalid literal: expected null, found 'o'"},
		{"garbage in an array in .jsonl", "a.jsonl", "[\n {\"a\": 1},\n nope\n]", "a.jsonl:3:3: invalid JSON: invalid literal: expected null, found 'o'"},
		{"bad UTF-8 in a pretty object", "a.json", "{\"a\":\n\"\xfe\"}", "a.json:2:2: invalid UTF-8: input files must be UTF-8 text"},
		{"bad UTF-8 in a pretty array element", "a.json", "[{\"a\":\n  \"x\xfe\"}]", "a.json:2:5: invalid UTF-8: input files must be UTF-8 text"},
		{"empty", "a.json", "\xef\xbb\xbf \n", "a.json: no records: the file is empty"},
		{"pretty object cut short in .jsonl", "a.jsonl", "{\n  \"a\": [1,\n", "a.jsonl:3:1: invalid JSON: unexpected end of input, expected a value"},
	}
	for _, c := range cases {
		for _, gz := range []bool{false, true} {
			file, want := c.file, c.want
			if gz {
				file += ".gz"
				want = strings.Replace(want, c.file, file, 1)
			}
			_, err := eachFile(t, file, c.text, gz)
			if err == nil || err.Error() != want {
				t.Errorf("%s (%s):\n got %v\nwant %s", c.name, file, err, want)
			}
		}
	}
}

// TestOpenLayoutJSONL: a file named as JSON Lines is read by its content too, except that a
// first line broken inside it (not merely continued on the next line) stays a line, so the
// broken record is reported where it is, as a line of JSON Lines.
func TestOpenLayoutJSONL(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, text string
		want       Layout
	}{
		{"a.jsonl", "{}\n{}\n", Lines},
		{"a.jsonl", "{\n}\n", Values},
		{"a.ndjson", "{\"a\":\n 1}", Values},
		{"a.jsonl", "{} {}\n", Lines},
		{"a.jsonl", "{\"a\": nope}\n{}\n", Lines},
		{"a.jsonl", "{\"a\" 1,\n}\n", Lines},
		{"a.json", "{\"a\": nope}\n{}\n", Values},
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Layout(); got != c.want {
			t.Errorf("layout of %s %q = %d, want %d", c.name, c.text, got, c.want)
		}
		f.Close()
	}
}

// TestOpenLayout: Open tells the pipeline which reader a file needs.
func TestOpenLayout(t *testing.T) {
	dir := t.TempDir()
	for text, want := range map[string]Layout{
		"{}\n{}\n": Lines, " \n[{}]": Array, "{\n}": Values, "{} {}\n": Values, "  {}\n": Values,
		"": Lines, "{\"a\": \n": Values, "1\n": Lines, "1": Lines,
	} {
		path := filepath.Join(dir, "f.json")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Layout(); got != want {
			t.Errorf("layout of %q = %d, want %d", text, got, want)
		}
		// Open has read the start: the content is read again from its first byte
		b, err := io.ReadAll(f)
		if err != nil || string(b) != text {
			t.Errorf("content of %q read back as %q (%v)", text, b, err)
		}
		f.Close()
	}
}

// TestOpenRefusesNonRegular: a FIFO, a device or a directory is an error naming it, at once:
// before, opening a FIFO with no writer blocked the gate forever (issue 12 item 6).
func TestOpenRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "runs.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	cases := []struct{ path, want string }{
		{fifo, fifo + ": not a regular file (a FIFO): inputs must be regular files"},
		{"/dev/zero", "/dev/zero: not a regular file (a character device): inputs must be regular files"},
		{dir, dir + ": not a regular file (a directory): inputs must be regular files"},
	}
	for _, c := range cases {
		// refused by its kind before it is opened for reading (the error names the kind): a
		// read would block on the FIFO or run on through /dev/zero until go test's timeout
		if err := Each(c.path, func(Record) error { return nil }); err == nil || err.Error() != c.want || !IsInputError(err) {
			t.Errorf("Each(%s) = %v, want %s", c.path, err, c.want)
		}
		if _, err := KindOf(c.path); err == nil || err.Error() != c.want {
			t.Errorf("KindOf(%s) = %v, want %s", c.path, err, c.want)
		}
	}
}

// TestKindOf: a zip archive (an Inspect AI .eval log) is told from JSON text by its first
// bytes, and Open refuses it with a clear error rather than reading it as JSON.
func TestKindOf(t *testing.T) {
	dir := t.TempDir()
	for name, c := range map[string]struct {
		data string
		want Kind
	}{
		"log.eval": {"PK\x03\x04\x14\x00rest", ZipArchive}, "log.json": {"{}", JSONText}, "e.json": {"", JSONText},
		"p.json": {"PK", JSONText}, "z.json.gz": {"\x1f\x8b\x08", JSONText},
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := KindOf(path); err != nil || got != c.want {
			t.Errorf("KindOf(%s) = %v, %v; want %v", name, got, err, c.want)
		}
	}
	path := filepath.Join(dir, "log.eval")
	want := path + ": this is a zip archive (an Inspect AI .eval log?), not JSON text"
	if err := Each(path, func(Record) error { return nil }); err == nil || err.Error() != want {
		t.Errorf("Each(zip) = %v, want %s", err, want)
	}
}

// TestGzipDamaged: a damaged gzip file is an error naming it, never a panic or a silent end.
func TestGzipDamaged(t *testing.T) {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(strings.Repeat("{\"a\": 1}\n", 1000)))
	w.Close()
	data := b.Bytes()
	path := filepath.Join(t.TempDir(), "d.jsonl.gz")
	if err := os.WriteFile(path, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	n := 0
	err := Each(path, func(Record) error { n++; return nil })
	if err == nil || !IsInputError(err) || !strings.Contains(err.Error(), "read error: unexpected EOF") {
		t.Fatalf("truncated gzip: %v after %d records", err, n)
	}
}

// setMaxRecord lowers the record limit for one test.
func setMaxRecord(t *testing.T, n int) {
	old := MaxRecord
	MaxRecord = n
	t.Cleanup(func() { MaxRecord = old })
}

// TestMaxRecord: a record longer than MaxRecord is an error naming where it starts, in every
// layout and reader, after the records before it; one of exactly MaxRecord bytes is read.
// Before, a line without end was read into memory without limit: a link to /dev/zero grew
// the gate past 3 GB (issue 12 item 6).
func TestMaxRecord(t *testing.T) {
	setMaxRecord(t, 100<<10)
	fits := `{"a":"` + strings.Repeat("x", MaxRecord-8) + `"}`
	over := `{"a":"` + strings.Repeat("x", MaxRecord-7) + `"}`
	if len(fits) != MaxRecord || len(over) != MaxRecord+1 {
		t.Fatal("bad test data")
	}
	cases := []struct {
		name, file, text, want string
		before                 int
	}{
		{"line", "a.jsonl", "{}\n" + fits + "\n" + over + "\n{}\n", "a.jsonl:3:1: record too large: longer than 102400 bytes, the most a record may hold", 2},
		{"last line", "a.jsonl", "{}\n" + over, "a.jsonl:2:1: record too large: longer than 102400 bytes, the most a record may hold", 1},
		{"no newline at all", "a.jsonl", strings.Repeat("\x00", 3*MaxRecord), "a.jsonl:1:1: record too large: longer than 102400 bytes, the most a record may hold", 0},
		{"array element", "a.json", "[{},\n " + fits + ",\n  " + over + "]", "a.json:3:3: record too large: longer than 102400 bytes, the most a record may hold", 2},
		{"pretty values", "a.json", "{\n}\n" + fits + "\n " + over, "a.json:4:2: record too large: longer than 102400 bytes, the most a record may hold", 2},
	}
	for _, c := range cases {
		for _, gz := range []bool{false, true} {
			file, want := c.file, c.want
			if gz {
				file += ".gz"
				want = strings.Replace(want, c.file, file, 1)
			}
			got, err := eachFile(t, file, c.text, gz)
			if err == nil || err.Error() != want {
				t.Errorf("%s (%s):\n got %v\nwant %s", c.name, file, err, want)
			}
			// the records before the long one were delivered, the one that fits included
			if recs := strings.Count(got, " | ") + 1; got != "" && recs != c.before || got == "" && c.before != 0 {
				t.Errorf("%s (%s): %d records before the error, want %d", c.name, file, recs, c.before)
			}
		}
	}
	// a reader that cannot be read again (stdin) goes through encoding/json: bounded too
	for _, text := range []string{"[{},\n " + over + "]", "{\n}\n " + over} {
		err := EachReader("<stdin>", io.MultiReader(strings.NewReader(text)), func(Record) error { return nil })
		if err == nil || !strings.Contains(err.Error(), "record too large") {
			t.Errorf("stdin %.20q: %v", text, err)
		}
	}
}

// TestMaxRecordMemory: a file of zero bytes with no newline, far longer than the limit, stops
// at the limit: what the reader allocates stays within a few times MaxRecord.
func TestMaxRecordMemory(t *testing.T) {
	setMaxRecord(t, 1<<20)
	path := filepath.Join(t.TempDir(), "zeros.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil { // sparse: 1 GiB of zeros, no disk used
		t.Fatal(err)
	}
	f.Close()
	var before, after runtimeMem
	before.read()
	err = Each(path, func(Record) error { return nil })
	after.read()
	if err == nil || err.Error() != path+":1:1: record too large: longer than 1 MiB, the most a record may hold" {
		t.Fatalf("got %v", err)
	}
	if grew := after.total - before.total; grew > 8<<20 {
		t.Errorf("reading allocated %d MiB for a limit of 1 MiB", grew>>20)
	}
}

type runtimeMem struct{ total uint64 }

func (m *runtimeMem) read() {
	var s runtime.MemStats
	runtime.ReadMemStats(&s)
	m.total = s.TotalAlloc
}

// endless reads prefix, then fill for ever.
type endless struct {
	prefix string
	fill   byte
}

func (e *endless) Read(p []byte) (int, error) {
	n := copy(p, e.prefix)
	e.prefix = e.prefix[n:]
	for i := n; i < len(p); i++ {
		p[i] = e.fill
	}
	return len(p), nil
}

// TestMaxRecordEndless: a reader without end (stdin fed from /dev/zero, a string that never
// closes) stops at the limit in every layout, instead of reading on for ever.
func TestMaxRecordEndless(t *testing.T) {
	setMaxRecord(t, 1<<20)
	cases := []struct {
		prefix string
		fill   byte
		want   string
	}{
		{"", 0, "<stdin>:1:1: record too large: longer than 1 MiB, the most a record may hold"},
		{"{}\n{\"a\": \"", 'x', "<stdin>:2:1: record too large: longer than 1 MiB, the most a record may hold"},
		{"[{},\n {\"a\": \"", 'x', "<stdin>:2:2: record too large: longer than 1 MiB, the most a record may hold"},
		{"{\n}\n{\"a\":\n \"", 'x', "<stdin>:3:1: record too large: longer than 1 MiB, the most a record may hold"},
	}
	for _, c := range cases {
		err := EachReader("<stdin>", &endless{c.prefix, c.fill}, func(Record) error { return nil })
		if err == nil || err.Error() != c.want {
			t.Errorf("%q then %q for ever:\n got %v\nwant %s", c.prefix, c.fill, err, c.want)
		}
	}
}
