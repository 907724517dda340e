package input

import (
	"errors"
	"fmt"
	"io"
)

// DefaultMaxInputBytes is the most bytes one input may hold after decompression unless the
// max-input-bytes setting says otherwise (docs/design.md#trust-boundaries "Files").
const DefaultMaxInputBytes = 1 << 30

// The ratio check, on while the limit is the default one: a compressed input that expands to
// more than bombRatio times the compressed bytes read to get there, past its first bombFree
// bytes, is a decompression bomb, stopped long before the limit.
const (
	bombRatio = 100
	bombFree  = 64 << 20
)

var (
	// maxInputBytes is the most bytes one input may hold after decompression.
	maxInputBytes int64 = DefaultMaxInputBytes
	// checkRatio is whether the ratio check is on: while the limit is the default.
	checkRatio = true
)

// SetMaxInputBytes sets the most bytes any one input may hold after decompression: the
// max-input-bytes setting. A limit set so is the user's word on what an input may cost, so
// it also turns off the check that stops a compressed input expanding more than 100 times;
// n <= 0 restores the default limit and the check.
func SetMaxInputBytes(n int64) {
	if n <= 0 {
		maxInputBytes, checkRatio = DefaultMaxInputBytes, true
		return
	}
	maxInputBytes, checkRatio = n, false
}

// LimitedReader reads the content of one input, counting every byte it returns, white space
// included, and fails with an *Error naming the input once they pass the limit on inputs
// (SetMaxInputBytes), or once a compressed input expands more than 100 times past its first
// 64 MiB. Every reader of input files reads through one: a bomb ends in a clear error, in
// bounded time and memory, whatever the layout or the compression.
type LimitedReader struct {
	Name string    // the input, for the error
	R    io.Reader // the content, decompressed
	// Packed returns the compressed bytes read so far to give what R has returned (or the
	// compressed size of the whole input, where that is all that is known); nil if R reads
	// the input as it is.
	Packed func() int64
	N      int64 // bytes returned so far
	err    error
}

// Read reads from R, up to the limit and not past it.
func (l *LimitedReader) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	if room := maxInputBytes - l.N + 1; int64(len(p)) > room {
		p = p[:room] // one byte past the limit tells an input that passes it
	}
	n, err := l.R.Read(p)
	l.N += int64(n)
	if l.N > maxInputBytes {
		n -= int(l.N - maxInputBytes)
		l.N = maxInputBytes
		l.err = &Error{File: l.Name, Msg: l.tooLarge()}
		return n, l.err
	}
	if err := l.checkRatio(); err != nil {
		return n, err
	}
	return n, err
}

// Add counts n bytes toward the input's limits as if they had been read: what the input
// stands for beyond the bytes it holds, such as the attachments an Inspect log names by
// reference and a reader expands where they are named. It fails as Read would, with the
// same *Error, and from then on Read fails too.
func (l *LimitedReader) Add(n int64) error {
	if l.err != nil {
		return l.err
	}
	if n <= 0 {
		return nil
	}
	if n > maxInputBytes-l.N {
		l.N = maxInputBytes
		l.err = &Error{File: l.Name, Msg: l.tooLarge()}
		return l.err
	}
	l.N += n
	return l.checkRatio()
}

// checkRatio is the ratio check (see bombRatio) on the bytes counted so far.
func (l *LimitedReader) checkRatio() error {
	if checkRatio && l.Packed != nil && l.N > bombFree {
		if packed := l.Packed(); l.N > bombRatio*packed {
			l.err = &Error{File: l.Name, Msg: fmt.Sprintf("input too large: expands to more than %d times its compressed size (%s from %s), as a decompression bomb does; if it is genuine, set max-input-bytes to the most it may expand to", bombRatio, aboutSize(l.N), aboutSize(packed))}
			return l.err
		}
	}
	return nil
}

func (l *LimitedReader) tooLarge() string {
	after := ""
	if l.Packed != nil {
		after = " after decompression"
	}
	return fmt.Sprintf("input too large: more than %s%s, the most an input may hold (max-input-bytes; raise it to read this file)", SizeText(maxInputBytes), after)
}

// countingReader counts the bytes read from r: the compressed bytes behind a decompressor.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// SizeText writes n bytes in the largest binary unit that divides it, or in bytes.
func SizeText(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// aboutSize writes n bytes roughly, for a size that is not round.
func aboutSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// readError is the error for a failed read at line (0: the file as a whole): an *Error
// from a LimitedReader as it is, anything else as a read error.
func readError(name string, line int, err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{File: name, Line: line, Msg: fmt.Sprintf("read error: %v", unwrapPathError(err))}
}

// stopsReading reports whether err, from a read, is one that reading again from the start
// will meet again (an input over its limit), so a reader should give it rather than retry.
func stopsReading(err error) bool {
	var e *Error
	return errors.As(err, &e)
}
