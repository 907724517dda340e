package jsonreport

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/agreement"
	"github.com/agentgate/agentgate/gate/coherence"
	"github.com/agentgate/agentgate/gate/compare"
	"github.com/agentgate/agentgate/gate/reliability"
)

// Write writes r as the machine-readable report of docs/design.md#one-binary: 2-space indent, numbers
// unrounded, fields in the order of the struct declarations, a section absent when its
// evaluator did not run. Lists are never null: an empty list is written as []. Nothing is
// written when r cannot be encoded (nil, or a NaN or infinite number, which JSON cannot hold);
// the error then names the field.
func Write(w io.Writer, r *gate.Result) error {
	if r == nil {
		return errors.New("report: no result to write as JSON")
	}
	if err := checkFinite(r); err != nil {
		return fmt.Errorf("report: cannot write JSON: %w", err)
	}
	// Everything but the per-trace results, the coherence tasks and the agreement's lists is
	// small: encode it whole, with those lists empty, then stream their elements one by one
	// into their slots, indented as the encoder would have indented them, without holding a
	// second copy of a report of a million traces or five million items. A run's record is
	// the one element written on one line (runJSON).
	c := withLists(r)
	var lists []streamedList
	if s := c.Reliability; s != nil {
		rel := *s
		traces := rel.Traces
		rel.Traces = []reliability.Result{}
		c.Reliability = &rel
		if len(traces) > 0 {
			var sc runScratch
			lists = append(lists, streamedList{path: []string{"reliability", "traces"}, n: len(traces),
				encode: func(e *elemWriter, i int) error {
					run, err := runOf(&traces[i], &sc)
					if err != nil {
						return err
					}
					return e.line(&run)
				}})
		}
	}
	if s := c.Coherence; s != nil && len(s.Tasks) > 0 {
		tasks := s.Tasks // c.Coherence is withLists' copy: r keeps its tasks
		s.Tasks = []coherence.TaskResult{}
		lists = append(lists, streamedList{path: []string{"coherence", "tasks"}, n: len(tasks),
			encode: func(e *elemWriter, i int) error { return e.json(tasks[i]) }})
	}
	if s := c.Agreement; s != nil && len(s.Unmatched) > 0 {
		unmatched := s.Unmatched // c.Agreement is withLists' copy: r keeps its lists
		s.Unmatched = []agreement.Unmatched{}
		lists = append(lists, streamedList{path: []string{"agreement", "unmatched"}, n: len(unmatched),
			encode: func(e *elemWriter, i int) error { return e.json(unmatched[i]) }})
	}
	if s := c.Agreement; s != nil && s.Items.Len() > 0 {
		items := s.Items
		s.Items = agreement.Items{}
		lists = append(lists, streamedList{path: []string{"agreement", "items"}, n: items.Len(),
			encode: func(e *elemWriter, i int) error { it := items.At(i); return e.item(&it) }})
	}
	var head bytes.Buffer
	enc := json.NewEncoder(&head)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		return fmt.Errorf("report: cannot write JSON: %w", err)
	}
	return writeStreamed(w, head.Bytes(), lists)
}

// streamedList is a list of the JSON report written element by element into its slot: the
// empty list "[]" the head document holds in its place.
type streamedList struct {
	path   []string // the keys from the top level to the list: {"agreement", "items"}
	n      int      // how many elements
	encode func(e *elemWriter, i int) error

	at int // the offset of the slot's '[' in the head document
}

// writeStreamed writes the head document doc with the elements of lists in their slots. A
// slot is always found (doc is the encoder's, with every list empty): not finding one is a
// bug, an error before anything is written.
func writeStreamed(w io.Writer, doc []byte, lists []streamedList) error {
	for i := range lists {
		if lists[i].at = findSlot(doc, lists[i].path); lists[i].at < 0 {
			return fmt.Errorf("report: cannot write JSON: no place for %s in the document", strings.Join(lists[i].path, "."))
		}
	}
	slices.SortFunc(lists, func(a, b streamedList) int { return cmp.Compare(a.at, b.at) })
	bw := bufio.NewWriterSize(w, 64<<10)
	done := 0
	for _, l := range lists {
		bw.Write(doc[done : l.at+1]) // up to and including '['
		depth := len(l.path) + 1     // of the elements
		e := newElemWriter(bw, strings.Repeat("  ", depth))
		for i := range l.n {
			bw.WriteByte('\n')
			bw.WriteString(e.indent)
			if err := l.encode(e, i); err != nil {
				return fmt.Errorf("report: cannot write JSON: %w", err)
			}
			if i < l.n-1 {
				bw.WriteByte(',')
			}
		}
		bw.WriteByte('\n')
		bw.WriteString(e.indent[2:])
		bw.WriteByte(']')
		done = l.at + 2 // past "[]"
	}
	bw.Write(doc[done:])
	return bw.Flush()
}

// findSlot returns the offset of the '[' of the empty list at path in doc, an indented JSON
// document, or -1. A key is found by its line: a newline and the indent of its depth before
// it. encoding/json escapes every newline inside a string, so such a line is a member of an
// object at that depth, and the first one after the parent's is the parent's own member.
func findSlot(doc []byte, path []string) int {
	at := 0
	for depth, key := range path {
		line := "\n" + strings.Repeat("  ", depth+1) + strconv.Quote(key) + ": "
		i := bytes.Index(doc[at:], []byte(line))
		if i < 0 {
			return -1
		}
		at += i + len(line)
	}
	if !bytes.HasPrefix(doc[at:], []byte("[]")) {
		return -1
	}
	return at
}

// elemWriter writes the elements of one streamed list, each at the list's depth: its first
// line is indented by the caller, the lines after it by the writer.
type elemWriter struct {
	w      *bufio.Writer
	indent string // the indent of an element's first and last lines
	one    bytes.Buffer
	enc    *json.Encoder // indented
	flat   *json.Encoder // on one line
	buf    []byte
}

func newElemWriter(w *bufio.Writer, indent string) *elemWriter {
	e := &elemWriter{w: w, indent: indent}
	e.enc = json.NewEncoder(&e.one)
	e.enc.SetIndent(indent, "  ")
	e.enc.SetEscapeHTML(false)
	e.flat = json.NewEncoder(&e.one)
	e.flat.SetEscapeHTML(false)
	return e
}

// line writes v as encoding/json does without indent: on one line, without spaces.
func (e *elemWriter) line(v any) error {
	e.one.Reset()
	if err := e.flat.Encode(v); err != nil {
		return err
	}
	_, err := e.w.Write(bytes.TrimSuffix(e.one.Bytes(), []byte("\n")))
	return err
}

// json writes v as encoding/json does.
func (e *elemWriter) json(v any) error {
	e.one.Reset()
	if err := e.enc.Encode(v); err != nil {
		return err
	}
	_, err := e.w.Write(bytes.TrimSuffix(e.one.Bytes(), []byte("\n")))
	return err
}

// item writes an agreement item by hand, with the bytes encoding/json writes (see appendItem).
func (e *elemWriter) item(it *agreement.Item) error {
	e.buf = appendItem(e.buf[:0], e.indent, it)
	_, err := e.w.Write(e.buf)
	return err
}

// withEvidenceLists returns t with its nil evidence lists empty, so consumers need no null
// check.
func withEvidenceLists(t reliability.Result) reliability.Result {
	if t.Evidence == nil {
		t.Evidence = []reliability.Evidence{}
		return t
	}
	for _, e := range t.Evidence {
		if e.Messages == nil {
			ev := make([]reliability.Evidence, len(t.Evidence))
			for j, e := range t.Evidence {
				if e.Messages == nil {
					e.Messages = []int{}
				}
				ev[j] = e
			}
			t.Evidence = ev
			break
		}
	}
	return t
}

// withLists returns a copy of r, marked with the schema version, whose nil lists are empty (trace evidence lists are filled in
// as the traces are written), so that consumers can iterate over
// every list without a null check. r itself is not modified.
func withLists(r *gate.Result) *gate.Result {
	c := *r
	c.Schema = Schema
	if c.Gates == nil {
		c.Gates = []gate.GateResult{}
	}
	c.History = historyWithLists(r.History)
	if s := r.Coherence; s != nil {
		cs := *s
		if cs.Tasks == nil {
			cs.Tasks = []coherence.TaskResult{}
		}
		c.Coherence = &cs
	}
	if s := r.Agreement; s != nil {
		cs := *s
		if cs.Unmatched == nil {
			cs.Unmatched = []agreement.Unmatched{}
		}
		c.Agreement = &cs
	}
	if cmp := r.Comparison; cmp != nil && cmp.Reliability != nil {
		// The traces of the new failures and fixed traces, like the report's own, are
		// written with their nil evidence lists empty, the first compare.MaxTracePairs of
		// each after how many there are.
		cc, rc := *cmp, *cmp.Reliability
		rc.NewFailureTraces = pairsWithLists(rc.NewFailureTraces[:min(len(rc.NewFailureTraces), compare.MaxTracePairs)])
		rc.FixedTraces = pairsWithLists(rc.FixedTraces[:min(len(rc.FixedTraces), compare.MaxTracePairs)])
		cc.Reliability = &rc
		c.Comparison = &cc
	}
	return &c
}

// pairsWithLists returns pairs with both sides' nil evidence lists empty: pairs itself when
// none is nil, else a copy.
func pairsWithLists(pairs []compare.TracePair) []compare.TracePair {
	if pairs == nil {
		return []compare.TracePair{}
	}
	for i := range pairs {
		if hasNilLists(&pairs[i].Base) || hasNilLists(&pairs[i].Head) {
			out := make([]compare.TracePair, len(pairs))
			for j, p := range pairs {
				out[j] = compare.TracePair{Base: withEvidenceLists(p.Base), Head: withEvidenceLists(p.Head)}
			}
			return out
		}
	}
	return pairs
}

// hasNilLists reports whether t's evidence list, or the message list of one of its evidence
// items, is nil.
func hasNilLists(t *reliability.Result) bool {
	if t.Evidence == nil {
		return true
	}
	for _, e := range t.Evidence {
		if e.Messages == nil {
			return true
		}
	}
	return false
}

// checkFinite names the first number in r that JSON cannot represent.
func checkFinite(r *gate.Result) error {
	bad := func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }
	for i, g := range r.Gates {
		if bad(g.Value) || bad(g.Threshold) {
			return fmt.Errorf("gates[%d] (%s): value %v, threshold %v", i, g.Name, g.Value, g.Threshold)
		}
	}
	if s := r.Reliability; s != nil {
		for i, t := range s.Traces {
			if bad(t.Score) {
				return fmt.Errorf("reliability.traces[%d] (%q): score is %v", i, t.ID, t.Score)
			}
			for j, v := range t.Signals {
				if bad(v) {
					return fmt.Errorf("reliability.traces[%d] (%q): signals.%s is %v", i, t.ID, reliability.SignalTable[j].Name, v)
				}
			}
		}
	}
	if s := r.Coherence; s != nil {
		if bad(s.Mean) {
			return fmt.Errorf("coherence.mean is %v", s.Mean)
		}
		for i, t := range s.Tasks {
			if bad(t.RCS) || bad(t.Energy) {
				return fmt.Errorf("coherence.tasks[%d] (%q): rcs %v, energy %v", i, t.ID, t.RCS, t.Energy)
			}
		}
	}
	if s := r.Agreement; s != nil {
		for _, f := range []struct {
			name string
			v    float64
		}{
			{"percent_agreement", s.PercentAgreement}, {"kappa", s.Kappa}, {"kappa_se", s.KappaSE},
			{"kappa_ci[0]", s.KappaCI[0]}, {"kappa_ci[1]", s.KappaCI[1]}, {"kappa_max", s.KappaMax},
			{"pabak", s.PABAK}, {"ac1", s.AC1}, {"ac1_se", s.AC1SE}, {"abstain_rate", s.AbstainRate},
		} {
			if bad(f.v) {
				return fmt.Errorf("agreement.%s is %v", f.name, f.v)
			}
		}
	}
	return nil
}

// itemFields are agreement.Item's JSON members, in order, as appendItem writes them.
var itemFields = [...]string{"qid", "scholar", "auditor", "final", "why"}

// appendItem appends it as encoding/json writes it with SetIndent(indent, "  ") and
// SetEscapeHTML(false), without the trailing newline; the first line, "{", is not indented.
// TestItemByHand and FuzzItemByHand hold it to encoding/json's bytes.
func appendItem(dst []byte, indent string, it *agreement.Item) []byte {
	dst = append(dst, '{')
	for i, v := range [...]string{it.QID, it.Scholar, it.Auditor, it.Final, it.Why} {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '\n')
		dst = append(dst, indent...)
		dst = append(dst, `  "`...)
		dst = append(dst, itemFields[i]...)
		dst = append(dst, `": `...)
		dst = AppendString(dst, v)
	}
	dst = append(dst, '\n')
	dst = append(dst, indent...)
	return append(dst, '}')
}

// hexDigits are the digits of a \u escape, lower case as encoding/json writes them.
const hexDigits = "0123456789abcdef"

// invalidUTF8 is what encoding/json writes for a byte that is not UTF-8: `\ufffd`, or since
// encoding/json/v2 (GOEXPERIMENT=jsonv2) the replacement character itself.
var invalidUTF8 = func() string {
	b, _ := json.Marshal("\xff")
	return string(b[1 : len(b)-1])
}()

// AppendString appends s as a JSON string exactly as encoding/json writes it with
// SetEscapeHTML(false): `"` and `\` backslash-escaped; \b, \f, \n, \r and \t by name; the
// other control characters below U+0020 as \u00XX; each byte of invalid UTF-8 as invalidUTF8;
// U+2028 and U+2029 as \u2028 and \u2029; everything else (DEL, <, >, & included) as is. The
// report's streamed items and the OpenTelemetry export write their strings with it, so that
// they are byte for byte what encoding/json writes; FuzzItemByHand holds it to that.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, invalidUTF8...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
