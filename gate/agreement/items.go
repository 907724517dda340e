package agreement

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"iter"
	"unsafe"
)

// Items are a summary's items, in input order. A suite can hold millions of pairs, so they
// are kept compactly: 16 bytes an item with no pointer for the garbage collector to follow,
// the qids (and any label outside the four, kept by the reference profile) in one string.
// As []Item they took 80 bytes and five pointers an item, half of what EvaluateMerged
// allocated; peak RSS of the gate over two million pairs went from 243 to 111 MB.
//
// The zero Items is empty. Two Items holding the same items in the same order are equal
// under reflect.DeepEqual (empty ones included), whichever way they were built. As JSON they
// are the array of their Item objects.
type Items struct {
	text string    // each item's qid, then those of its fields that have no code, each after its uvarint length
	recs []itemRec // nil when empty
}

// itemRec is one item: its qid is text[off:off+n] (n fits: the decoder's spans are int32),
// its labels are Labels[code] and its why whys[code], but for the code other, which stands for
// the next length-prefixed string after the qid (and after the other fields before it).
type itemRec struct {
	off   uint64
	n     uint32
	codes [4]uint8 // scholar, auditor, final, why
}

// other is the code of a field that is none of the values known: a label outside the four,
// kept by the reference profile, or, in an Items made by ItemsOf, anything at all.
const other = 0xff

// whys are the arbitration's reasons, indexed by an item's why code.
var whys = [...]string{WhyHardFlag, WhyCitationOutOfScope, WhyAuditorVeto, WhyAuditorOK, WhyIncoherentPair}

// labelCode returns l's index in Labels, or other.
func labelCode(l string) uint8 {
	if i := labelIndex(l); i >= 0 {
		return uint8(i)
	}
	return other
}

// whyCode returns why's index in whys, or other.
func whyCode(why string) uint8 {
	switch why {
	case WhyHardFlag:
		return 0
	case WhyCitationOutOfScope:
		return 1
	case WhyAuditorVeto:
		return 2
	case WhyAuditorOK:
		return 3
	case WhyIncoherentPair:
		return 4
	}
	return other
}

// codesOf returns the codes of an item's scholar, auditor, final and why.
func codesOf(sch, aud, final, why string) [4]uint8 {
	return [4]uint8{labelCode(sch), labelCode(aud), labelCode(final), whyCode(why)}
}

// ItemsOf returns list as Items.
func ItemsOf(list []Item) Items {
	var b itemsBuilder
	for i := range list {
		it := &list[i]
		addItem(&b, it.QID, codesOf(it.Scholar, it.Auditor, it.Final, it.Why), [4]string{it.Scholar, it.Auditor, it.Final, it.Why})
	}
	return b.items()
}

// Len returns the number of items.
func (s Items) Len() int { return len(s.recs) }

// At returns item i; it panics if i is out of range, as indexing a slice does.
func (s Items) At(i int) Item {
	r := &s.recs[i]
	p := r.off + uint64(r.n)
	it := Item{QID: s.text[r.off:p]}
	it.Scholar, p = s.field(r.codes[0], Labels[:], p)
	it.Auditor, p = s.field(r.codes[1], Labels[:], p)
	it.Final, p = s.field(r.codes[2], Labels[:], p)
	it.Why, _ = s.field(r.codes[3], whys[:], p)
	return it
}

// field returns the value of code in known, or, for other, the string at p, and the position
// after what it read.
func (s Items) field(code uint8, known []string, p uint64) (string, uint64) {
	if code != other {
		return known[code], p
	}
	n, k := binary.Uvarint([]byte(s.text[p:min(p+binary.MaxVarintLen64, uint64(len(s.text)))]))
	p += uint64(k)
	return s.text[p : p+n], p + n
}

// All returns the items with their indexes, in order.
func (s Items) All() iter.Seq2[int, Item] {
	return func(yield func(int, Item) bool) {
		for i := range s.recs {
			if !yield(i, s.At(i)) {
				return
			}
		}
	}
}

// List returns the items as a slice.
func (s Items) List() []Item {
	out := make([]Item, len(s.recs))
	for i := range s.recs {
		out[i] = s.At(i)
	}
	return out
}

// MarshalJSON writes the items as the JSON array of their Item objects; HTML characters are
// left to the encoder that calls it to escape, or not.
func (s Items) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	b.WriteByte('[')
	for i := range s.recs {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := enc.Encode(s.At(i)); err != nil {
			return nil, err
		}
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}

// UnmarshalJSON reads the JSON array of Item objects that MarshalJSON writes.
func (s *Items) UnmarshalJSON(data []byte) error {
	var list []Item
	if err := json.Unmarshal(data, &list); err != nil {
		return err
	}
	*s = ItemsOf(list)
	return nil
}

// itemsBuilder collects items in order; items returns them.
type itemsBuilder struct {
	text []byte
	recs []itemRec
}

// addItem appends an item: its qid, the codes of its scholar, auditor, final and why, and the
// texts of those whose code is other (the others' are not read).
func addItem[S ~string | ~[]byte](b *itemsBuilder, qid S, codes [4]uint8, texts [4]S) {
	addCodes(b, qid, codes)
	for i, c := range codes {
		if c == other {
			b.text = binary.AppendUvarint(b.text, uint64(len(texts[i])))
			b.text = append(b.text, texts[i]...)
		}
	}
}

// addCodes is addItem for an item none of whose codes is other: the usual item, without
// texts to pass and look through.
func addCodes[S ~string | ~[]byte](b *itemsBuilder, qid S, codes [4]uint8) {
	b.recs = append(b.recs, itemRec{off: uint64(len(b.text)), n: uint32(len(qid)), codes: codes})
	b.text = append(b.text, qid...)
}

// appendBuilder appends the items of o to b.
func (b *itemsBuilder) appendBuilder(o *itemsBuilder) {
	base := uint64(len(b.text))
	b.text = append(b.text, o.text...)
	for _, r := range o.recs {
		r.off += base
		b.recs = append(b.recs, r)
	}
}

// reset empties b, keeping its memory.
func (b *itemsBuilder) reset() {
	b.text, b.recs = b.text[:0], b.recs[:0]
}

// qidBytes returns item i's qid, in b's memory.
func (b *itemsBuilder) qidBytes(i int) []byte {
	r := &b.recs[i]
	return b.text[r.off : r.off+uint64(r.n)]
}

// items returns the items collected, which then own b's memory: b must not be used again.
// The text becomes the string without a copy (of tens of megabytes for millions of pairs).
func (b *itemsBuilder) items() Items {
	if len(b.recs) == 0 {
		return Items{}
	}
	s := Items{text: unsafe.String(unsafe.SliceData(b.text), len(b.text)), recs: b.recs}
	*b = itemsBuilder{}
	return s
}

// disagree reports whether item i's two labels differ.
func (s Items) disagree(i int) bool {
	r := &s.recs[i]
	if r.codes[0] != other || r.codes[1] != other {
		return r.codes[0] != r.codes[1]
	}
	it := s.At(i)
	return it.Scholar != it.Auditor
}
