package input

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/agentgate/agentgate/internal/jsonscan"
)

// MaxRecord is the largest record, in bytes, the readers accept: a JSON Lines line, an
// element of an array, or one value of a sequence (docs/design.md#trust-boundaries "Files"). A larger one is an error
// naming where it starts, so that an input with no end to its first record (a link to
// /dev/zero, a hostile file) costs a bounded amount of memory. A variable so tests can lower
// it.
var MaxRecord = 256 << 20

// HugeRecord is the size from which a record is huge: its memory is let go as soon as it is
// no longer needed (its trace decoded), so that it is not held while the trace is evaluated.
const HugeRecord = 32 << 20

// Layout is how the records of a file are laid out, decided by its content (docs/design.md#file-layouts-and-formats).
type Layout int

const (
	// Lines is JSON Lines: one record a line, blank lines ignored. The fast path.
	Lines Layout = iota
	// Array is one JSON array whose elements are the records: the first byte that is not
	// white space is '['.
	Array
	// Values is a sequence of JSON values that do not sit one to a line: one pretty-printed
	// object, or several values sharing lines.
	Values
)

// Kind says what a file holds, by its first bytes.
type Kind int

const (
	// JSONText is JSON text (or anything else that is not an archive): Open and Each read it,
	// decompressing it first if it is gzip-compressed.
	JSONText Kind = iota
	// ZipArchive is a zip archive (it starts "PK\x03\x04"), such as an Inspect AI ".eval"
	// log: open it with archive/zip, not with Open or Each, which refuse it.
	ZipArchive
)

// KindOf opens the file at path as Open does (a regular file, without blocking) and says
// what it holds, so that a caller can send a zip archive (an Inspect AI ".eval" log) to a
// reader of archives rather than read it as JSON. A failure is an *Error naming the file.
func KindOf(path string) (Kind, error) {
	f, err := openRegular(path)
	if err != nil {
		return JSONText, err
	}
	defer f.Close()
	var magic [4]byte
	n, err := io.ReadFull(f, magic[:])
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return JSONText, &Error{File: path, Msg: fmt.Sprintf("read error: %v", unwrapPathError(err))}
	}
	return kindOf(magic[:n]), nil
}

var (
	zipMagic  = []byte("PK\x03\x04")
	gzipMagic = []byte{0x1f, 0x8b}
)

func kindOf(magic []byte) Kind {
	if bytes.HasPrefix(magic, zipMagic) {
		return ZipArchive
	}
	return JSONText
}

// File is an input file open for reading: a regular file, decompressed on the fly if it is
// gzip-compressed (whatever its name), read without its UTF-8 byte order mark, and with its
// Layout known. Read returns that content; EachReader given a File reads it in its layout.
type File struct {
	name   string
	f      *os.File
	gz     *gzip.Reader // nil unless the file is gzip-compressed
	src    *source
	layout Layout
}

// Open opens an input file for reading. It refuses, with an *Error naming the file and
// without blocking, anything but a regular file (a FIFO, a device, a socket, a directory), a
// zip archive (see KindOf) and a gzip file whose header is damaged; then it reads the start of
// the content to decide its layout.
func Open(path string) (*File, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	in := &File{name: path, f: f}
	var magic [4]byte
	n, err := io.ReadFull(f, magic[:])
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		f.Close()
		return nil, &Error{File: path, Msg: fmt.Sprintf("read error: %v", unwrapPathError(err))}
	}
	if kindOf(magic[:n]) == ZipArchive {
		f.Close()
		return nil, &Error{File: path, Msg: "this is a zip archive (an Inspect AI .eval log?), not JSON text"}
	}
	compressed := bytes.HasPrefix(magic[:n], gzipMagic)
	in.src = &source{open: func() (io.Reader, error) {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		// read from the start again: the same bytes, counted toward the limit afresh
		if !compressed {
			return &LimitedReader{Name: path, R: f}, nil
		}
		packed := &countingReader{r: f}
		if in.gz == nil {
			gz, err := gzip.NewReader(packed)
			if err != nil {
				return nil, err
			}
			in.gz = gz
		} else if err := in.gz.Reset(packed); err != nil {
			return nil, err
		}
		return &LimitedReader{Name: path, R: in.gz, Packed: func() int64 { return packed.n }}, nil
	}}
	if err := in.src.rewind(); err != nil {
		f.Close()
		return nil, &Error{File: path, Msg: fmt.Sprintf("cannot read: %v", unwrapPathError(err))}
	}
	if in.layout, err = in.src.detect(path); err != nil {
		in.Close()
		return nil, err
	}
	return in, nil
}

// OpenRegular opens path for reading as it is, for a reader of archives (see KindOf): a
// regular file only, refused with an *Error naming it otherwise, without blocking.
func OpenRegular(path string) (*os.File, error) { return openRegular(path) }

// openRegular opens path for reading if it is a regular file, and says why not otherwise.
// The file is opened with O_NONBLOCK, so that opening a FIFO with no writer returns at once,
// and checked with fstat before any read; O_NONBLOCK does nothing to reads of a regular file.
func openRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, &Error{File: path, Msg: fmt.Sprintf("cannot open: %v", unwrapPathError(err))}
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, &Error{File: path, Msg: fmt.Sprintf("cannot open: %v", unwrapPathError(err))}
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &Error{File: path, Msg: fmt.Sprintf("not a regular file (%s): inputs must be regular files", describeMode(st.Mode()))}
	}
	return f, nil
}

func describeMode(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a block device"
	}
	return "mode " + m.String()
}

// Read reads the file's content: decompressed, without its byte order mark.
func (f *File) Read(p []byte) (int, error) { return f.src.Read(p) }

// Layout returns the file's layout, decided by Open from its content.
func (f *File) Layout() Layout { return f.layout }

// Name returns the path the file was opened by.
func (f *File) Name() string { return f.name }

// Close closes the file.
func (f *File) Close() error {
	if f.gz != nil {
		f.gz.Close()
	}
	return f.f.Close()
}

// source is the content of an input: read without its byte order mark, and read again from
// its start when it can be (a file, an io.ReadSeeker), which the array scanner needs to hand a
// file it cannot read over to encoding/json.
type source struct {
	open func() (io.Reader, error) // the raw content from its start again; nil: cannot
	r    io.Reader                 // the content from pos on
	pos  int64                     // bytes of content read so far
	// failed is the last error a read returned other than io.EOF
	failed error
}

// newSource returns the source of r, the input called name, which can be read again if r is
// an io.ReadSeeker. It is read through a LimitedReader, as a file is.
func newSource(name string, r io.Reader) *source {
	s := &source{}
	if rs, ok := r.(io.ReadSeeker); ok {
		if start, err := rs.Seek(0, io.SeekCurrent); err == nil {
			s.open = func() (io.Reader, error) {
				_, err := rs.Seek(start, io.SeekStart)
				return &LimitedReader{Name: name, R: rs}, err
			}
		}
	}
	s.r = skipBOM(&LimitedReader{Name: name, R: r})
	return s
}

func (s *source) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.pos += int64(n)
	if err != nil && err != io.EOF {
		s.failed = err
	}
	return n, err
}

func (s *source) canRewind() bool { return s.open != nil }

// rewind goes back to the start of the content.
func (s *source) rewind() error {
	raw, err := s.open()
	if err != nil {
		return err
	}
	s.r, s.pos, s.failed = skipBOM(raw), 0, nil
	return nil
}

var bom = []byte{0xef, 0xbb, 0xbf}

// skipBOM returns r without the UTF-8 byte order mark it may start with.
func skipBOM(r io.Reader) io.Reader {
	var b [3]byte
	n, err := io.ReadFull(r, b[:])
	if err == io.ErrUnexpectedEOF {
		err = io.EOF
	}
	if n == 3 && bytes.Equal(b[:], bom) {
		return r
	}
	return &prefixed{head: b[:n], r: r, err: err}
}

// prefixed reads head, then the error err if any, then r.
type prefixed struct {
	head []byte
	r    io.Reader
	err  error
}

func (p *prefixed) Read(b []byte) (int, error) {
	if len(p.head) > 0 {
		n := copy(b, p.head)
		p.head = p.head[n:]
		return n, nil
	}
	if p.err != nil {
		return 0, p.err
	}
	return p.r.Read(b)
}

// detectLimit is how much of its first line detect looks at: a first value that does not
// end within it is taken for a JSON Lines record (a long one).
const detectLimit = 64 << 10

// detect decides the layout of the content from its start, then goes back to the start
// (reading it again, or keeping what it read for a source that cannot be read again).
//
//   - The first byte that is not white space is '[': Array.
//   - The first value starts a line and ends on it (the rest of the line is blank): Lines.
//     Later lines must then hold one value each; a value spread over lines is an error there.
//   - A file named as JSON Lines (.jsonl, .ndjson, with .gz or not) whose first line is
//     not a value continued on the next line (one broken inside the line, or followed by
//     more than white space): Lines too, so that the broken record is reported as a line.
//   - Otherwise (one pretty-printed object, values sharing a line): Values.
func (s *source) detect(name string) (Layout, error) {
	keepAll := !s.canRewind()
	var head []byte // from the first value on; everything read, when keepAll
	start := -1     // where the first value starts in head
	col1 := true    // ... and whether it starts a line
	buf := make([]byte, 32<<10)
	layout := Lines
	var readErr error
	for done := false; !done; {
		n, err := s.r.Read(buf)
		chunk := buf[:n]
		if start < 0 {
			i := 0
			for i < len(chunk) && isSpace(chunk[i]) {
				i++
			}
			if i > 0 {
				col1 = chunk[i-1] == '\n'
			}
			if i < len(chunk) {
				if keepAll {
					head = append(head, chunk[:i]...)
				}
				start = len(head)
				head = append(head, chunk[i:]...)
			} else if keepAll {
				head = append(head, chunk...)
				if len(head) > detectLimit {
					break // white space without end: lines (blank ones)
				}
			}
		} else {
			head = append(head, chunk...)
		}
		if start >= 0 {
			first := head[start:]
			switch {
			case first[0] == '[':
				layout, done = Array, true
			case bytes.IndexByte(first, '\n') >= 0:
				layout, done = lineLayout(name, first[:bytes.IndexByte(first, '\n')+1], col1, false), true
			case len(first) > detectLimit:
				layout, done = Lines, true
			case err != nil:
				layout, done = lineLayout(name, first, col1, true), true
			}
		}
		if err != nil {
			if err != io.EOF {
				readErr = err
			}
			break
		}
	}
	if readErr != nil && stopsReading(readErr) {
		return layout, readError(name, 0, readErr) // an input over its limit: reading again meets it again
	}
	if keepAll {
		s.r, s.pos = &prefixed{head: head, r: s.r, err: readErr}, 0
		return layout, nil
	}
	if err := s.rewind(); err != nil {
		return layout, &Error{File: name, Msg: fmt.Sprintf("read error: %v", unwrapPathError(err))}
	}
	return layout, nil
}

// lineLayout decides between Lines and Values from the first line holding a value, which
// starts with that value (at the line's start if col1); eof says the file ends with it.
func lineLayout(name string, line []byte, col1, eof bool) Layout {
	end, err := jsonscan.Skip(line, 0)
	if col1 && err == nil && (end < len(line) || eof) && blankJSON(line[end:]) {
		return Lines
	}
	if namedLines(name) && !(err != nil && jsonscan.AtEOF(err)) {
		return Lines // not a value continued on the next line: report what is wrong as a line
	}
	return Values
}

// namedLines reports whether the name says JSON Lines: it ends .jsonl or .ndjson, with .gz or
// not, in any case.
func namedLines(name string) bool {
	n := strings.TrimSuffix(strings.ToLower(name), ".gz")
	return strings.HasSuffix(n, ".jsonl") || strings.HasSuffix(n, ".ndjson")
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func blankJSON(b []byte) bool {
	for _, c := range b {
		if !isSpace(c) {
			return false
		}
	}
	return true
}
