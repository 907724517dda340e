package jsonscan

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// Pos is a line and a column, both counted from 1; the column counts characters (see the
// package doc).
type Pos struct {
	Line, Col int
}

// Start is the position of a text's first byte: line 1, column 1.
var Start = Pos{Line: 1, Col: 1}

// Advance moves p past the bytes b, which follow it in the text. A reader that holds a window
// of a file advances a Pos over the bytes it leaves behind, in order, and so never counts a
// byte twice; the count does not depend on where the text is cut.
func (p *Pos) Advance(b []byte) {
	if nl := bytes.LastIndexByte(b, '\n'); nl >= 0 {
		p.Line += bytes.Count(b[:nl+1], []byte{'\n'})
		p.Col = 1
		b = b[nl+1:]
	}
	p.Col += Chars(b)
}

// Position returns the position of byte offset off in data.
func Position(data []byte, off int) Pos {
	p := Start
	p.Advance(data[:min(max(off, 0), len(data))])
	return p
}

// Chars counts the characters in b: its bytes that do not continue a UTF-8 sequence (for UTF-8
// text, its code points), eight bytes at a time.
func Chars(b []byte) int {
	n := len(b)
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		n -= bits.OnesCount64(x &^ (x << 1) & highs) // 10xxxxxx: high bit set, next clear
	}
	for ; i < len(b); i++ {
		if b[i]&0xc0 == 0x80 {
			n--
		}
	}
	return n
}
