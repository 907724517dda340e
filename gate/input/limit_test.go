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
	"testing"
	"time"

	"github.com/agentgate/agentgate/internal/cputime"
)

// WriteBomb writes to path a gzip file that expands to head, then size bytes of fill, then
// tail. The fill goes through gzip.Writer from a generator one MiB at a time; each MiB is a
// gzip member of its own (gzip readers read a file of several members as one stream), so
// that a bomb of 10 GB is written in milliseconds: the test builds every bomb, none is stored.
func writeBomb(t testing.TB, path, head string, fill byte, size int64, tail string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	member := func(w io.Writer, data []byte) {
		gz, _ := gzip.NewWriterLevel(w, gzip.BestCompression)
		gz.Write(data)
		if err := gz.Close(); err != nil {
			t.Fatal(err)
		}
	}
	var mib bytes.Buffer
	member(&mib, bytes.Repeat([]byte{fill}, 1<<20))
	member(f, []byte(head))
	for ; size >= 1<<20; size -= 1 << 20 {
		if _, err := f.Write(mib.Bytes()); err != nil {
			t.Fatal(err)
		}
	}
	member(f, append(bytes.Repeat([]byte{fill}, int(size)), tail...))
}

// setMaxInputBytes sets max-input-bytes for one test.
func setMaxInputBytes(t *testing.T, n int64) {
	SetMaxInputBytes(n)
	t.Cleanup(func() { SetMaxInputBytes(0) })
}

// cost measures what fn costs: CPU time (wall time where the platform does not tell; CI runs
// two test binaries on two cores, and the wall clock counts the other one's turns too), and
// the bytes it allocated, which bound how far it raised the peak of the heap.
func cost(fn func()) (time.Duration, uint64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start, cpuOK := cputime.Process()
	wall := time.Now()
	fn()
	took := time.Since(wall)
	if end, ok := cputime.Process(); cpuOK && ok {
		took = end - start
	}
	runtime.ReadMemStats(&after)
	return took, after.TotalAlloc - before.TotalAlloc
}

// TestBombs: the decompression bombs of issue 29, each a few MB on disk, end within 300 MB
// allocated (counted work: the bytes a reader that ran on would allocate) with an error naming the file, the limit and how to raise it. Before, 10 GB of
// newlines ran for more than 30 s, 4 GB of spaces before one record took 15.6 s to reach and
// judge, and one line of 1 GB peaked at 798 MB before the record error.
func TestBombs(t *testing.T) {
	const bomb = "input too large: expands to more than 100 times its compressed size (64.0 MiB from 68.0 KiB), as a decompression bomb does; if it is genuine, set max-input-bytes to the most it may expand to"
	record := `{"trace_id": "r", "messages": [{"role": "user", "content": "hi"}]}`
	cases := []struct {
		name, file, head string
		fill             byte
		size             int64
		tail, want       string
	}{
		{"10 GB of newlines", "nl.jsonl.gz", "", '\n', 10 << 30, "", bomb},
		{"4 GB of spaces before one record", "sp.json.gz", "", ' ', 4 << 30, record, bomb},
		{"4 GB of spaces inside an array", "arr.json.gz", "[" + record + ",", ' ', 4 << 30, record + "]", bomb},
		{"one line of 1 GB", "line.jsonl.gz", `{"trace_id": "`, 'x', 1 << 30, `"}`, bomb},
		{"one array element of 1 GB", "elem.json.gz", `[{"trace_id": "`, 'x', 1 << 30, `"}]`, bomb},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), c.file)
			writeBomb(t, path, c.head, c.fill, c.size, c.tail)
			var err error
			took, alloc := cost(func() { err = Each(path, func(Record) error { return nil }) })
			if want := path + ": " + c.want; err == nil || err.Error() != want {
				t.Errorf("got  %v\nwant %s", err, want)
			}
			if !IsInputError(err) {
				t.Errorf("%v is not an input error (exit code 3)", err)
			}
			if alloc > 300<<20 { // counted; the time is logged only
				t.Errorf("allocated %d MiB in %v; want at most 300 MiB", alloc>>20, took)
			}
			t.Logf("%v, %d MiB allocated", took, alloc>>20)
		})
	}
}

// TestMaxInputBytes: the limit holds for a plain file, a gzip file and a reader (stdin) alike,
// white space counting as any other byte; a file of exactly the limit is read. A limit set by
// the user turns the ratio check off: a compressed file expanding 1000 times is then read to
// its end.
func TestMaxInputBytes(t *testing.T) {
	setMaxInputBytes(t, 1<<20)
	dir := t.TempDir()
	record := `{"a": 1}` + "\n"
	blank := 1<<20 - len(record) // blank lines before the record
	fits := strings.Repeat("\n", blank) + record
	over := " " + fits
	for _, c := range []struct {
		name, text string
		gz         bool
		want       string
	}{
		{"fits.jsonl", fits, false, ""},
		{"fits.jsonl.gz", fits, true, ""},
		{"over.jsonl", over, false, "over.jsonl: input too large: more than 1 MiB, the most an input may hold (max-input-bytes; raise it to read this file)"},
		{"over.json.gz", over, true, "over.json.gz: input too large: more than 1 MiB after decompression, the most an input may hold (max-input-bytes; raise it to read this file)"},
		{"lines.jsonl", strings.Repeat(record, 1<<17+1), false, "lines.jsonl: input too large: more than 1 MiB, the most an input may hold (max-input-bytes; raise it to read this file)"},
		{"array.json", "[" + strings.Repeat(`{"a": 1},`, 1<<17) + "{}]", false, "array.json: input too large: more than 1 MiB, the most an input may hold (max-input-bytes; raise it to read this file)"},
	} {
		got, err := eachFile(t, c.name, c.text, c.gz)
		switch {
		case c.want == "" && (err != nil || got != fmt.Sprintf(`%d:1 {"a": 1}`, blank+1)):
			t.Errorf("%s: %.80q, %v", c.name, got, err)
		case c.want != "" && (err == nil || err.Error() != c.want):
			t.Errorf("%s:\n got %v\nwant %s", c.name, err, c.want)
		}
	}
	// stdin, which cannot be read again, in every layout
	for _, prefix := range []string{"", "[", "{\n\"a\":"} {
		err := EachReader("<stdin>", &endless{prefix, ' '}, func(Record) error { return nil })
		if want := "<stdin>: input too large: more than 1 MiB, the most an input may hold (max-input-bytes; raise it to read this file)"; err == nil || err.Error() != want {
			t.Errorf("%q then spaces for ever:\n got %v\nwant %s", prefix, err, want)
		}
	}
	// set by the user, the limit replaces the ratio check
	setMaxInputBytes(t, 2<<30)
	path := filepath.Join(dir, "sparse.json.gz")
	writeBomb(t, path, "", ' ', 70<<20, record)
	n := 0
	if err := Each(path, func(Record) error { n++; return nil }); err != nil || n != 1 {
		t.Errorf("70 MiB of spaces then a record, with max-input-bytes 2 GiB: %d records, %v", n, err)
	}
}

// TestMaxRecordWhileRead: a record longer than MaxRecord is refused once it passes the limit,
// with about MaxRecord bytes of memory, in every layout: before, the buffer grew by doubling
// and a line of 1 GB held 385 MB of heap (798 MB resident) before its error. The ratio check
// is off (a limit set by the user) so that only the record limit stops these.
func TestMaxRecordWhileRead(t *testing.T) {
	setMaxInputBytes(t, 2<<30)
	for _, c := range []struct{ name, file, head, tail, at string }{
		{"line", "line.jsonl.gz", "{}\n" + `{"a": "`, `"}`, "2:1"},
		{"array element", "array.json.gz", "[{},\n" + `{"a": "`, `"}]`, "2:1"},
		{"array of a string", "strings.json.gz", "[{},\n \"", `"]`, "2:2"},
		{"pretty values", "values.json.gz", "{\n}\n" + `{"a": "`, `"}`, "3:1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), c.file)
			writeBomb(t, path, c.head, 'x', 1<<30, c.tail)
			var err error
			n := 0
			took, alloc := cost(func() { err = Each(path, func(Record) error { n++; return nil }) })
			if want := path + ":" + c.at + ": record too large: longer than 256 MiB, the most a record may hold"; err == nil || err.Error() != want || n != 1 {
				t.Errorf("got %v after %d records\nwant %s after 1", err, n, want)
			}
			if alloc > 300<<20 { // counted; the time is logged only
				t.Errorf("allocated %d MiB in %v; want at most 300 MiB", alloc>>20, took)
			}
			t.Logf("%v, %d MiB allocated", took, alloc>>20)
		})
	}
}

func TestSizeText(t *testing.T) {
	for n, want := range map[int64]string{1 << 30: "1 GiB", 5 << 30: "5 GiB", 3 << 20: "3 MiB", 1536: "1536 bytes", 2048: "2 KiB", 1000: "1000 bytes"} {
		if got := SizeText(n); got != want {
			t.Errorf("SizeText(%d) = %q, want %q", n, got, want)
		}
	}
	var e *Error
	if !errors.As(readError("f", 3, io.ErrUnexpectedEOF), &e) || e.Error() != "f:3: read error: unexpected EOF" {
		t.Errorf("readError = %v", e)
	}
}

// TestLongValues: values longer than the length past which they are read in blocks are
// delivered whole and where they start, as encoding/json (eachValueStream) reads them: a long
// string, a long object of small ones (a closing brace in every block), a long number, and a
// record after each.
func TestLongValues(t *testing.T) {
	defer func(old int) { longValue = old }(longValue)
	longValue = 16 << 10
	long := strings.Repeat("x", 600<<10)
	objects := strings.Repeat(`{"b": 1}, `, 60<<10)
	number := "1" + strings.Repeat("0", 300<<10)
	for _, text := range []string{
		`[{"a": "` + long + `"}, {"a": "` + long + `"},` + "\n" + ` {}]`,
		`[{"a": [` + objects + `{}]}, {"a": [` + objects + `{}]},` + "\n" + ` {}]`,
		`[` + number + `, ` + number + ", \n{}]",
		`"` + long + `" ` + number + "\n" + `{"a": [` + objects + `{}]} {}`,
	} {
		var want, got []string
		collect := func(out *[]string) func(Record) error {
			return func(r Record) error {
				*out = append(*out, fmt.Sprintf("%d:%d %d %.20s", r.Line, r.Col, len(r.Data), r.Data))
				return nil
			}
		}
		if err := eachValueStream("a.json", strings.NewReader(text), collect(&want)); err != nil {
			t.Fatal(err)
		}
		if err := eachValue("a.json", strings.NewReader(text), collect(&got)); err != nil || strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%.20q:\n got %q (%v)\nwant %q", text, got, err, want)
		}
	}
}

// Add counts bytes an input stands for beyond those it holds (attachments expanded where they
// are named) as Read counts those it returns: the same limit, the same ratio check, the same
// errors, and Read fails after.
func TestLimitedReaderAdd(t *testing.T) {
	defer SetMaxInputBytes(0)
	SetMaxInputBytes(100)
	l := &LimitedReader{Name: "f.json", R: strings.NewReader(strings.Repeat("x", 40))}
	if _, err := io.ReadAll(l); err != nil || l.N != 40 {
		t.Fatalf("read %d: %v", l.N, err)
	}
	if err := l.Add(60); err != nil || l.N != 100 {
		t.Fatalf("Add(60) to 40 of 100: %v, N %d", err, l.N)
	}
	want := "f.json: input too large: more than 100 bytes, the most an input may hold (max-input-bytes; raise it to read this file)"
	if err := l.Add(1); err == nil || err.Error() != want {
		t.Fatalf("Add(1) past the limit: %v", err)
	}
	if _, err := l.Read(make([]byte, 1)); err == nil || err.Error() != want {
		t.Errorf("Read after: %v", err)
	}

	// the ratio check, on with the default limit: past 64 MiB, 100 times the compressed size
	SetMaxInputBytes(0)
	l = &LimitedReader{Name: "f.eval", R: strings.NewReader(""), Packed: func() int64 { return 1 << 10 }}
	if err := l.Add(64 << 20); err != nil {
		t.Fatalf("64 MiB: %v", err)
	}
	want = "f.eval: input too large: expands to more than 100 times its compressed size (64.0 MiB from 1.0 KiB), as a decompression bomb does; if it is genuine, set max-input-bytes to the most it may expand to"
	if err := l.Add(1); err == nil || err.Error() != want {
		t.Errorf("one byte past 64 MiB: %v", err)
	}
}
