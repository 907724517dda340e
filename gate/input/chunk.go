package input

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"unicode/utf8"
)

// Chunk is a run of whole lines of a JSON Lines file, read in one piece so that its records can
// be decoded elsewhere (in another goroutine) while the next chunk is read. EachRecord turns
// it into the records Each would have delivered for those lines, errors included.
type Chunk struct {
	File string
	Line int    // number of the chunk's first line (1-based)
	Data []byte // whole lines; only the file's last line may lack its newline
}

// Lines returns the number of lines the chunk holds.
func (c *Chunk) Lines() int {
	n := bytes.Count(c.Data, newline)
	if len(c.Data) > 0 && c.Data[len(c.Data)-1] != '\n' {
		n++
	}
	return n
}

var newline = []byte{'\n'}

// EachRecord calls fn with every record of the chunk, in order: every line that holds more
// than white space, without its line ending (and, on line 1, without a UTF-8 byte order mark).
// A line that is not UTF-8 is an error. It stops at the first error, its own or fn's.
func (c *Chunk) EachRecord(fn func(Record) error) error {
	return c.eachRecord(true, fn)
}

// EachRecordUnchecked is EachRecord without the check that a line is UTF-8, for a caller whose
// decoder checks as it goes: it must then report a line that is not UTF-8 with the error of
// the record's CheckUTF8, before any other of that line.
func (c *Chunk) EachRecordUnchecked(fn func(Record) error) error {
	return c.eachRecord(false, fn)
}

func (c *Chunk) eachRecord(checkUTF8 bool, fn func(Record) error) error {
	data, line := c.Data, c.Line
	for len(data) > 0 {
		var l []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i+1], data[i+1:]
		} else {
			l, data = data, nil
		}
		if len(data) == 0 {
			data = nil // not an empty slice still pointing into the memory after l's line
		}
		if line == 1 {
			l = bytes.TrimPrefix(l, bom)
		}
		l = trimEOL(l)
		if !blank(l) {
			if checkUTF8 && !utf8.Valid(l) {
				return invalidUTF8(c.File, line, 0, l)
			}
			if err := fn(Record{File: c.File, Line: line, Col: 1, Data: l}); err != nil {
				return err
			}
		}
		line++
	}
	return nil
}

// trimEOL returns l without the carriage returns and newlines at its end: bytes.TrimRight(l,
// "\r\n"), without building a set of the two bytes for every line.
func trimEOL(l []byte) []byte {
	n := len(l)
	for n > 0 && (l[n-1] == '\n' || l[n-1] == '\r') {
		n--
	}
	return l[:n]
}

// blank reports whether l holds only white space, as bytes.TrimSpace sees it.
func blank(l []byte) bool {
	for _, c := range l {
		switch c {
		case ' ', '\t', '\n', '\v', '\f', '\r':
			continue
		}
		if c < utf8.RuneSelf {
			return false
		}
		return len(bytes.TrimSpace(l)) == 0 // Unicode white space: rare, take the slow path
	}
	return true
}

// ChunkReader reads a JSON Lines file in chunks of whole lines. A line longer than the
// chunk size makes a longer chunk: lines may be of any length up to MaxRecord bytes (newline
// excluded); a longer one is an error naming it, after the chunks of the lines before.
type ChunkReader struct {
	name string
	r    io.Reader
	line int    // number of the next chunk's first line
	rest []byte // the start of a line read with the previous chunk
	err  error  // the reader's error (io.EOF at the end), once seen
	long bool   // the line being read is longer than MaxRecord
	done bool
}

// NewChunkReader returns a ChunkReader of the file r, called name in records and errors.
func NewChunkReader(name string, r io.Reader) *ChunkReader {
	return &ChunkReader{name: name, r: r, line: 1}
}

// minRead is the least room a read is given.
const minRead = 32 << 10

// Next reads the next chunk into buf (reusing its memory, growing it if a line needs more
// room): about cap(buf) bytes, cut after a newline. It returns io.EOF after the last chunk,
// and for a failing reader an *Error naming the line that could not be read, after the
// chunks of the lines before it.
func (cr *ChunkReader) Next(buf []byte) (Chunk, error) {
	if cr.done {
		return Chunk{}, cr.finalErr()
	}
	size := max(cap(buf), 2*minRead)
	buf = append(buf[:0], cr.rest...)
	cr.rest = cr.rest[:0]
	scanned := 0     // buf[:scanned] holds no newline
	oneLine := false // buf holds a line longer than the chunk, which the chunk ends with
	empty := 0       // reads in a row that returned nothing
	for {
		for cr.err == nil && len(buf) <= size-minRead {
			if cap(buf)-len(buf) < minRead {
				newCap := max(size, 2*cap(buf))
				if limit := MaxRecord + 2*minRead; newCap > limit && size <= limit {
					newCap = max(limit, len(buf)+minRead) // no further than a line may need
				}
				nb := make([]byte, len(buf), newCap)
				copy(nb, buf)
				buf = nb
			}
			n, err := cr.r.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			cr.err = err
			if empty++; n > 0 {
				empty = 0
			} else if empty == 100 && err == nil {
				cr.err = io.ErrNoProgress // as bufio gives up on such a reader
			}
		}
		// the line being read (after the last newline) may already be too long: the lines
		// before it go first, then the error
		last := bytes.LastIndexByte(buf[scanned:], '\n')
		if oneLine && last >= 0 {
			// a long line's chunk ends with it, so that a worker done with it can let its
			// memory go (see pipeline.Batch.Release) without waiting for the lines after it
			last = bytes.IndexByte(buf[scanned:], '\n')
		}
		if last >= 0 {
			last += scanned
		}
		if len(buf)-(last+1) > MaxRecord {
			cr.done, cr.long = true, true
			if last < 0 {
				return Chunk{}, cr.finalErr()
			}
			return cr.emit(buf[:last+1])
		}
		if errors.Is(cr.err, io.EOF) {
			// everything is read: the last line may lack its newline
			cr.done = true
			if len(buf) == 0 {
				return Chunk{}, io.EOF
			}
			return cr.emit(buf)
		}
		end := last
		if end < 0 {
			if cr.err != nil {
				cr.done = true
				return Chunk{}, cr.finalErr()
			}
			// a line longer than the chunk: read on to its end, up to the limit
			scanned = len(buf)
			if buf = cr.readLong(buf); buf == nil {
				return Chunk{}, cr.finalErr()
			}
			size = len(buf) // nothing more to read: the loop above passes
			oneLine = true
			continue
		}
		end++
		if cr.err != nil {
			// the reader failed: the lines read whole go first, then the error
			cr.done = true
		} else {
			cr.rest = append(cr.rest, buf[end:]...)
		}
		return cr.emit(buf[:end])
	}
}

// emit returns the chunk of data, or the error of a line too long that starts it.
func (cr *ChunkReader) emit(data []byte) (Chunk, error) {
	c := cr.chunk(data)
	if len(c.Data) == 0 && cr.long {
		return Chunk{}, cr.finalErr()
	}
	return c, nil
}

// chunk makes a chunk of the whole lines in data. A chunk longer than MaxRecord may hold a
// line longer than that: the chunk then stops before it, and the next call reports it.
func (cr *ChunkReader) chunk(data []byte) Chunk {
	if len(data) > MaxRecord {
		for rest, off := data, 0; len(rest) > 0; {
			l := bytes.IndexByte(rest, '\n')
			if l < 0 {
				l = len(rest)
			}
			if l > MaxRecord {
				data = data[:off]
				cr.done, cr.long = true, true
				break
			}
			off += l + 1
			rest = rest[min(l+1, len(rest)):]
		}
	}
	c := Chunk{File: cr.name, Line: cr.line, Data: data}
	cr.line += bytes.Count(data, newline)
	return c
}

func (cr *ChunkReader) finalErr() error {
	if cr.long {
		return tooLarge(cr.name, cr.line, 1)
	}
	if cr.err == nil || errors.Is(cr.err, io.EOF) {
		return io.EOF
	}
	return readError(cr.name, cr.line, cr.err)
}

// longBlock is the size of the blocks readLong reads a long line in.
const longBlock = 4 << 20

// readLong reads on a line that buf starts and that is longer than the chunk (buf holds no
// newline), until its newline, the end of the input or a read error, and returns buf with
// what it read; or nil, with the reader done, once the line passes MaxRecord. It reads in
// blocks and joins them once at the end, rather than in one buffer grown by doubling, so that
// a line too long costs about MaxRecord bytes of memory, not three times that, and a line
// that fits is copied once.
func (cr *ChunkReader) readLong(buf []byte) []byte {
	blocks := [][]byte{buf}
	total, empty := len(buf), 0
	for found := false; !found && cr.err == nil; {
		b := make([]byte, min(longBlock, max(len(buf), minRead)))
		n := 0
		for n < len(b) && cr.err == nil {
			m, err := cr.r.Read(b[n:])
			if bytes.IndexByte(b[n:n+m], '\n') >= 0 {
				found = true
			}
			n += m
			cr.err = err
			if empty++; m > 0 {
				empty = 0
			} else if empty == 100 && err == nil {
				cr.err = io.ErrNoProgress // as bufio gives up on such a reader
			}
			if found {
				break
			}
		}
		blocks = append(blocks, b[:n])
		if total += n; !found && total > MaxRecord {
			cr.done, cr.long = true, true
			return nil
		}
	}
	joined := make([]byte, 0, total+minRead)
	for _, b := range blocks {
		joined = append(joined, b...)
	}
	if total >= HugeRecord {
		// the collection the join's allocation started found the blocks and the line both
		// live, and would let the heap grow to twice that before the next: collect now, with
		// only bytes to mark (a 120 MB trace peaked ~90 MB lower)
		runtime.GC()
	}
	return joined
}
