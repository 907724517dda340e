package input

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

// bufioEachLine is the JSON Lines reader as it was before chunks (bufio.Reader.ReadSlice,
// line by line): the reference the chunked reader must match record for record and error
// for error.
func bufioEachLine(name string, r io.Reader, fn func(Record) error) error {
	br := bufio.NewReaderSize(r, 256<<10)
	var long []byte
	line := 0
	for {
		chunk, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long, chunk...)
			continue
		}
		if err != nil && err != io.EOF {
			return &Error{File: name, Line: line + 1, Msg: fmt.Sprintf("read error: %v", err)}
		}
		data := chunk
		if long != nil {
			long = append(long, chunk...)
			data = long
		}
		if len(data) > 0 {
			line++
			if line == 1 {
				data = bytes.TrimPrefix(data, bom)
			}
			data = bytes.TrimRight(data, "\r\n")
			if len(bytes.TrimSpace(data)) > 0 {
				if !utf8.Valid(data) {
					return invalidUTF8(name, line, 0, data)
				}
				if ferr := fn(Record{File: name, Line: line, Col: 1, Data: data}); ferr != nil {
					return ferr
				}
			}
		}
		long = long[:0:0]
		if err == io.EOF {
			return nil
		}
	}
}

// chunked reads r with a ChunkReader whose chunks are about size bytes, as a pipeline would.
func chunked(name string, r io.Reader, size int, fn func(Record) error) error {
	cr := NewChunkReader(name, r)
	buf := make([]byte, 0, size)
	line := 1
	for {
		c, err := cr.Next(buf)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if c.Line != line {
			return fmt.Errorf("chunk starts at line %d, want %d", c.Line, line)
		}
		line += c.Lines()
		if err := c.EachRecord(fn); err != nil {
			return err
		}
		buf = c.Data[:0]
	}
}

type lineRecord struct {
	line int
	data string
}

func readAll(read func(io.Reader, func(Record) error) error, r io.Reader) ([]lineRecord, string) {
	var out []lineRecord
	err := read(r, func(rec Record) error {
		out = append(out, lineRecord{rec.Line, string(rec.Data)})
		if bytes.Contains(rec.Data, []byte("STOP")) {
			return errors.New("stopped by the callback")
		}
		return nil
	})
	msg := "<nil>"
	if err != nil {
		msg = err.Error()
	}
	return out, msg
}

// compareReaders checks that the chunked reader gives what bufioEachLine gives for text,
// read whole, byte by byte, in halves and with a read error after fail bytes (fail < 0: none).
func compareReaders(t *testing.T, text string, size, fail int) {
	t.Helper()
	wraps := map[string]func() io.Reader{
		"whole":    func() io.Reader { return strings.NewReader(text) },
		"onebyte":  func() io.Reader { return iotest.OneByteReader(strings.NewReader(text)) },
		"half":     func() io.Reader { return iotest.HalfReader(strings.NewReader(text)) },
		"dataerr":  func() io.Reader { return iotest.DataErrReader(strings.NewReader(text)) },
		"emptyrds": func() io.Reader { return &stutter{r: strings.NewReader(text)} },
	}
	if fail >= 0 && fail <= len(text) {
		wraps["failing"] = func() io.Reader {
			return io.MultiReader(strings.NewReader(text[:fail]), iotest.ErrReader(errors.New("disk on fire")))
		}
	}
	for name, w := range wraps {
		want, wantErr := readAll(func(r io.Reader, fn func(Record) error) error { return bufioEachLine("f.jsonl", r, fn) }, w())
		got, gotErr := readAll(func(r io.Reader, fn func(Record) error) error { return chunked("f.jsonl", r, size, fn) }, w())
		if fmt.Sprint(got) != fmt.Sprint(want) || gotErr != wantErr {
			t.Fatalf("%s, chunks of %d, %q:\n got %v %s\nwant %v %s", name, size, text, got, gotErr, want, wantErr)
		}
	}
}

// stutter returns nothing every other read.
type stutter struct {
	r io.Reader
	n int
}

func (s *stutter) Read(p []byte) (int, error) {
	if s.n++; s.n%2 == 0 {
		return 0, nil
	}
	return s.r.Read(p)
}

func TestChunksMatchLines(t *testing.T) {
	long := `{"a": "` + strings.Repeat("x", 70<<10) + `"}`
	texts := []string{
		"", "\n", "{}", "{}\n", "{\"a\":1}\r\n\n   \n{\"b\":2}\n", "{}\r\r\n{}\r", "\xef\xbb\xbf{}\n\xef\xbb\xbf{}\n",
		"{}\n\xff\n{}\n", "{}\n{\"STOP\":1}\n{}\n", " \u00a0\n\u2003\n{}", long + "\n{}\n" + long, "\n\n\n" + long,
		strings.Repeat(`{"k": "value"}`+"\n", 3000),
	}
	for _, text := range texts {
		for _, size := range []int{0, 1, 100, 64 << 10, 1 << 20} {
			compareReaders(t, text, size, -1)
			compareReaders(t, text, size, len(text)/2)
			compareReaders(t, text, size, 0)
		}
	}
}

// FuzzChunks checks the chunked JSON Lines reader against the line-by-line one.
func FuzzChunks(f *testing.F) {
	f.Add("{}\n{\"a\":1}\n", uint16(1), uint16(3))
	f.Add("\xef\xbb\xbf{}\r\n\n\xff", uint16(7), uint16(100))
	f.Fuzz(func(t *testing.T, text string, size, fail uint16) {
		compareReaders(t, text, int(size), int(fail))
	})
}
