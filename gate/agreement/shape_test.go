package agreement

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/gate/profile"
)

// decoded is what decoding a record gives, with the spans resolved to their strings: what
// the shape must give exactly as the general decoder does.
type decoded struct {
	OK                       bool
	Err                      string
	QID                      string
	QIDNum, HasQID           bool
	Sch, Aud                 judgementText
	HasSch, HasAud           bool
	Citations, Retrieved     []string
	HasRetrieved, Prov, Cons bool
}

type judgementText struct {
	Label, LabelRaw, Reason string
	HasLabel                bool
}

// decodeWith decodes line as the pipeline's workers do (the arena emptied first) and returns
// what came of it.
func decodeWith(d *recordDecoder, line string) decoded {
	d.arena, d.ids = d.arena[:0], d.ids[:0]
	var r pairRaw
	rec := input.Record{File: "f", Line: 1, Col: 1, Data: []byte(line)}
	if !d.pair(rec.Data, &r) {
		return decoded{Err: d.errorFor(rec).Error()}
	}
	str := func(sp span) string { return string(d.arena[sp.off : sp.off+sp.n]) }
	ids := func(rng [2]int32) []string {
		var out []string
		for _, sp := range d.ids[rng[0]:rng[1]] {
			out = append(out, str(sp))
		}
		return out
	}
	j := func(j judgementRaw) judgementText {
		label := ""
		if j.hasLabel && j.code != other {
			label = Labels[j.code]
		}
		return judgementText{label, str(j.labelRaw), str(j.reason), j.hasLabel}
	}
	return decoded{OK: true, QID: str(r.qid), QIDNum: r.qidNum, HasQID: r.hasQID, Sch: j(r.sch), Aud: j(r.aud),
		HasSch: r.hasSch, HasAud: r.hasAud, Citations: ids(r.cits), Retrieved: ids(r.ret),
		HasRetrieved: r.hasRetrieved, Prov: r.prov, Cons: r.cons}
}

// checkShape decodes the lines in order with shapes and without, and fails at the first
// line where the two differ.
func checkShape(t *testing.T, p profile.Profile, noReason bool, lines ...string) (shaped int) {
	t.Helper()
	general := &recordDecoder{p: p, noReason: noReason, noShape: true}
	shaped0 := &recordDecoder{p: p, noReason: noReason}
	for k, line := range lines {
		fast := shaped0.shape.ok && !shaped0.shape.off
		want, got := decodeWith(general, line), decodeWith(shaped0, line)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s, noReason %v, line %d %q (after %q):\nshape:   %+v\ngeneral: %+v", p, noReason, k, line, lines[:k], got, want)
		}
		if fast && !shaped0.shape.missed {
			shaped++
		}
	}
	return shaped
}

const seedRecord = `{"qid": "A0001", "scholar": {"label": "VALID", "reason": "claim contained; cites p1#2"}, ` +
	`"auditor": {"label": "VALID", "reason": "provenance ok; constraints echoed"}, ` +
	`"answer_json": {"claim": "X rejects null keys.", "citations": ["p1#2"], "constraints_echo": ["X rejects null keys."]}, ` +
	`"retrieved_ids": ["p1#1","p1#2","p2#1"], "flags": {"provenance_violation": false, "constraints_mismatch": false}}`

// Records that depart from the shape of the one before in one place each: every one must be
// read, or refused, exactly as without shapes.
var shapeVariants = []string{
	seedRecord,
	strings.Replace(seedRecord, `"A0001"`, `"A\u0030\"2"`, 1),                                             // escapes in the qid
	strings.Replace(seedRecord, `"A0001"`, `17`, 1),                                                       // a number qid
	strings.Replace(seedRecord, `"A0001"`, `null`, 1),                                                     // a wrong qid
	strings.Replace(seedRecord, `"label": "VALID"`, `"label": "REJECT"`, 1),                               // another label
	strings.Replace(seedRecord, `"label": "VALID"`, `"label": "valid"`, 1),                                // an unknown label
	strings.Replace(seedRecord, `"label": "VALID"`, `"label": "VAL\u0049D"`, 1),                           // an escaped label
	strings.Replace(seedRecord, `"label": "VALID"`, `"label": 3`, 1),                                      // not a string
	strings.Replace(seedRecord, `"claim contained; cites p1#2"`, `null`, 1),                               // a null reason
	strings.Replace(seedRecord, `"claim contained; cites p1#2"`, `{"a": [1, 2]}`, 1),                      // an object reason
	strings.Replace(seedRecord, `"claim contained; cites p1#2"`, `"tab\there"`, 1),                        // a control character
	strings.Replace(seedRecord, `"claim contained; cites p1#2"`, `"say \"hi\""`, 1),                       // escapes in a reason
	strings.Replace(seedRecord, `["p1#2"]`, `[]`, 1),                                                      // no citations
	strings.Replace(seedRecord, `["p1#2"]`, `["p9#9"]`, 1),                                                // out of scope
	strings.Replace(seedRecord, `["p1#2"]`, `["p1#2", 7]`, 1),                                             // a number among ids
	strings.Replace(seedRecord, `["p1#2"]`, `null`, 1),                                                    // null citations
	strings.Replace(seedRecord, `["p1#2"]`, `"p1#2"`, 1),                                                  // a string, not a list
	strings.Replace(seedRecord, `["p1#1","p1#2","p2#1"]`, `[ "p1#1" , "p1#2" ]`, 1),                       // other spacing in a list
	strings.Replace(seedRecord, `["p1#1","p1#2","p2#1"]`, `["p1#1","p1#2","p2#1"`, 1),                     // a list not closed
	strings.Replace(seedRecord, `"provenance_violation": false`, `"provenance_violation": true`, 1),       // a hard flag
	strings.Replace(seedRecord, `"provenance_violation": false`, `"provenance_violation": null`, 1),       // null flag
	strings.Replace(seedRecord, `"provenance_violation": false`, `"provenance_violation": "false"`, 1),    // a string flag
	strings.Replace(seedRecord, `"provenance_violation": false`, `"provenance_violation": fals`, 1),       // bad literal
	strings.Replace(seedRecord, `"constraints_mismatch": false}}`, `"constraints_mismatch": false}} `, 1), // trailing space
	strings.Replace(seedRecord, `"constraints_mismatch": false}}`, `"constraints_mismatch": false}}x`, 1), // trailing junk
	strings.Replace(seedRecord, `"constraints_mismatch": false}}`, `"constraints_mismatch": false}`, 1),   // cut short
	strings.Replace(seedRecord, `"constraints_mismatch": false}}`, `"constraints_mismatch": false, "x": 1}}`, 1),
	strings.Replace(seedRecord, `, "flags"`, `, "extra": [1], "flags"`, 1),                              // an unknown member
	strings.Replace(seedRecord, `, "flags"`, `, "qid": "again", "flags"`, 1),                            // a repeated member
	strings.Replace(seedRecord, `"qid": "A0001", `, ``, 1),                                              // no qid
	strings.Replace(seedRecord, `, "reason": "provenance ok; constraints echoed"`, ``, 1),               // no reason
	strings.Replace(seedRecord, `"label": "VALID", `, ``, 1),                                            // no label
	strings.Replace(seedRecord, `"claim": "X rejects null keys.", `, `"claim": "X", "claim": "Y", `, 1), // a repeated inner member
	strings.Replace(seedRecord, `"answer_json": {`, `"answer_json": {"citations": ["p1#1"], `, 1),       // repeated citations
	strings.Replace(seedRecord, `", "auditor"`, `","auditor"`, 1),                                       // other spacing
	strings.Replace(seedRecord, `{"qid"`, `  {"qid"`, 1),                                                // leading space
	strings.Replace(seedRecord, `"qid"`, `"\u0071id"`, 1),                                               // an escaped key
	strings.Replace(seedRecord, `"scholar": {`, `"scholar": [`, 1),                                      // not an object
	`{"qid": "q", "scholar": {"label": "VALID"}, "auditor": {"label": "ABSTAIN"}}`,                      // the lean shape
	`[]`,
	``,
}

// Every variant after every variant: each is read with the shape learnt from the one before,
// or declined by it, and must come out as without shapes.
func TestShapeMatchesGeneral(t *testing.T) {
	for _, p := range []profile.Profile{profile.Default, profile.Reference} {
		for _, noReason := range []bool{false, true} {
			for _, first := range shapeVariants {
				for _, second := range shapeVariants {
					checkShape(t, p, noReason, first, second, second, first)
				}
			}
		}
	}
}

// The shape does read records of the usual kind: a suite whose records differ only in their
// values is read by the shape after the first record, not declined record by record.
func TestShapeIsUsed(t *testing.T) {
	var lines []string
	for i := range 100 {
		l := strings.Replace(seedRecord, `"A0001"`, fmt.Sprintf(`"Q%05d"`, i), 1)
		if i%3 == 0 {
			l = strings.Replace(l, `"label": "VALID"`, `"label": "NOT_IN_CONTEXT"`, 1)
			l = strings.Replace(l, `["p1#2"]`, `["p1#2", "p2#1"]`, 1)
		}
		if i%7 == 0 {
			l = strings.Replace(l, `"provenance_violation": false`, `"provenance_violation": true`, 1)
		}
		lines = append(lines, l)
	}
	for _, p := range []profile.Profile{profile.Default, profile.Reference} {
		if n := checkShape(t, p, true, lines...); n != 99 {
			t.Errorf("%s: %d of the 99 records after the first were read by the shape", p, n)
		}
	}
}

// A file whose records keep changing shape stops learning them: the decoder does not pay for
// learning a shape that is never used.
func TestShapeGivesUp(t *testing.T) {
	d := &recordDecoder{p: profile.Default}
	for i := range 200 {
		line := fmt.Sprintf(`{"qid": "q%d", %s"scholar": {"label": "VALID"}, "auditor": {"label": "VALID"}}`, i, strings.Repeat(" ", i%50))
		if got := decodeWith(d, line); !got.OK {
			t.Fatal(got.Err)
		}
	}
	if !d.shape.off || d.shape.learnt > 20 {
		t.Errorf("shape off %v after learning %d shapes of 200 records", d.shape.off, d.shape.learnt)
	}
}

// FuzzShape holds the shape to the general decoder: a record read after another, whose shape
// was learnt, comes out exactly as without shapes, whatever the two records.
func FuzzShape(f *testing.F) {
	for i, v := range shapeVariants {
		f.Add(seedRecord, v, i%2 == 0, i%3 == 0)
		f.Add(v, seedRecord, i%2 == 1, i%3 == 1)
	}
	f.Fuzz(func(t *testing.T, first, second string, reference, noReason bool) {
		p := profile.Default
		if reference {
			p = profile.Reference
		}
		checkShape(t, p, noReason, first, second, second)
	})
}
