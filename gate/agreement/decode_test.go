package agreement

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/gate/profile"
)

// decoded is what decoding a record gives, with the kept texts resolved to strings.
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

// decodeWith decodes line with d, as the pipeline's workers do, and returns what came of it.
func decodeWith(d *decoder, line string) decoded {
	var r pairRec
	rec := input.Record{File: "f", Line: 1, Col: 1, Data: []byte(line)}
	if err := d.pair(rec.Data, &r); err != nil {
		return decoded{Err: recordError(rec, err).Error()}
	}
	str := func(sp span) string { return string(d.text(sp)) }
	ids := func(sps []span) []string {
		var out []string
		for _, sp := range sps {
			out = append(out, str(sp))
		}
		return out
	}
	j := func(j judgement) judgementText {
		label := ""
		if j.hasLabel && j.code != other {
			label = Labels[j.code]
		}
		return judgementText{label, str(j.label), str(j.reason), j.hasLabel}
	}
	return decoded{OK: true, QID: str(r.qid), QIDNum: r.qidNum, HasQID: r.hasQID, Sch: j(r.sch), Aud: j(r.aud),
		HasSch: r.hasSch, HasAud: r.hasAud, Citations: ids(d.cits), Retrieved: ids(d.ret),
		HasRetrieved: r.hasRetrieved, Prov: r.prov, Cons: r.cons}
}

// decodePair decodes data and returns its pair with the strings resolved, or its error.
func decodePair(d *decoder, data []byte) string {
	got := decodeWith(d, string(data))
	if !got.OK {
		return "error: " + got.Err
	}
	label := func(j judgementText) string {
		if j.Label != "" {
			return j.Label
		}
		return "raw:" + j.LabelRaw
	}
	return fmt.Sprintf("qid=%q num=%v sch=%q/%q aud=%q/%q cits=%q ret=%q hasRet=%v prov=%v cons=%v",
		got.QID, got.QIDNum, label(got.Sch), got.Sch.Reason, label(got.Aud), got.Aud.Reason,
		got.Citations, got.Retrieved, got.HasRetrieved, got.Prov, got.Cons)
}

const fastRecord = `{"qid": "Q1", "scholar": {"label": "VALID", "reason": "r1"}, "auditor": {"label": "NOT_IN_CONTEXT", "reason": "r2"}, ` +
	`"answer_json": {"claim": "c", "citations": ["p1"], "constraints_echo": ["e"]}, "retrieved_ids": ["p1", "p2"], ` +
	`"flags": {"provenance_violation": true, "constraints_mismatch": false}}`

// TestDecodeWhitespace puts every kind of JSON whitespace, or none, at every place between
// tokens: the record must decode the same.
func TestDecodeWhitespace(t *testing.T) {
	want := decodePair(&decoder{p: profile.Default}, []byte(fastRecord))
	if strings.HasPrefix(want, "error") {
		t.Fatal(want)
	}
	// Tokens of fastRecord, split where whitespace may go.
	var tokens []string
	inString := false
	start := 0
	for i := 0; i < len(fastRecord); i++ {
		c := fastRecord[i]
		switch {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case !inString && strings.IndexByte("{}[],: ", c) >= 0:
			if start < i {
				tokens = append(tokens, fastRecord[start:i])
			}
			if c != ' ' {
				tokens = append(tokens, string(c))
			}
			start = i + 1
		}
	}
	for _, ws := range []string{"", " ", "  ", "\t", "\n", "\r\n", " \t "} {
		for at := -1; at <= len(tokens); at++ {
			// ws everywhere (at == -1), or only before token at (and nowhere else).
			var b strings.Builder
			for k, tok := range tokens {
				if at == -1 || k == at {
					b.WriteString(ws)
				}
				b.WriteString(tok)
			}
			if at == -1 || at == len(tokens) {
				b.WriteString(ws)
			}
			for _, p := range []profile.Profile{profile.Default, profile.Reference} {
				if got := decodePair(&decoder{p: p}, []byte(b.String())); got != want {
					t.Fatalf("%q:\n got  %s\n want %s", b.String(), got, want)
				}
			}
		}
	}
}

// TestDecodeNearMisses writes keys and labels that must not be taken for known ones, or must be
// although they are escaped, and syntax errors at the end of a record.
func TestDecodeNearMisses(t *testing.T) {
	cases := []struct{ rec, want string }{
		{`{"q\u0069d": "a", "scholar": {"l\u0061bel": "\u0056ALID"}, "auditor": {"label": "REJ\u0045CT", "r\u0065ason": "\"x\""}}`,
			`qid="a" num=false sch="VALID"/"" aud="REJECT"/"\"x\"" cits=[] ret=[] hasRet=false prov=false cons=false`},
		{`{"qid": "a", "qidx": 1, "qi": 2, "scholar": {"label": "VALID", "labels": "X", "labe": "Y"}, "auditor": {"label": "VALID"}}`,
			`qid="a" num=false sch="VALID"/"" aud="VALID"/"" cits=[] ret=[] hasRet=false prov=false cons=false`},
		{`{"qid": "a", "scholar": {"label": "VALIDX"}, "auditor": {"label": "VALI"}}`,
			`error: f:1:35: field "scholar.label": unknown label "VALIDX": want VALID, NOT_IN_CONTEXT, REJECT or ABSTAIN (exact case)`},
		{`{"qid": "a", "scholar": {"label": "ABSTAIN"}, "auditor": {"label": "valid"}}`,
			`error: f:1:68: field "auditor.label": unknown label "valid": want VALID, NOT_IN_CONTEXT, REJECT or ABSTAIN (exact case)`},
		{`{"scholar": {"label": "VALID"}, "auditor": {"label": "VALID"}, "qid": 7}`,
			`qid="7" num=true sch="VALID"/"" aud="VALID"/"" cits=[] ret=[] hasRet=false prov=false cons=false`},
		{`{"scholar": {"label": "VALID"}, "auditor": {"reason": "r", "label": "VALID"}, "qid":"q"}`,
			`qid="q" num=false sch="VALID"/"" aud="VALID"/"r" cits=[] ret=[] hasRet=false prov=false cons=false`},
		{`{"qid": "a", "scholar": {"label": "VALID"}, "auditor": {"label": "VALID"}, "flags": {"constraints_mismatch": true}}`,
			`qid="a" num=false sch="VALID"/"" aud="VALID"/"" cits=[] ret=[] hasRet=false prov=false cons=true`},
		{`{"qid": "a", "scholar": {"label": "VALID"}, "auditor": {"label": "VALID"}, "flags": {"constraints_mismatcH": true}}`,
			`qid="a" num=false sch="VALID"/"" aud="VALID"/"" cits=[] ret=[] hasRet=false prov=false cons=false`},
		{`{"qid": "a", "scholar": {"label": "VALID"}, "auditor": {"label": "VALID"}, "retrieved_ids": ["a\u00e9", "b\\"]}`,
			`qid="a" num=false sch="VALID"/"" aud="VALID"/"" cits=[] ret=["aé" "b\\"] hasRet=true prov=false cons=false`},
		{`{"qid": "a", "scholar": {"label": "VALID"}, "auditor": {"label": "VALID"}, "answer_json": {"citations": ["p"], "claim": 1}}`,
			`qid="a" num=false sch="VALID"/"" aud="VALID"/"" cits=["p"] ret=[] hasRet=false prov=false cons=false`},
		{`{"qid": "a", "scholar": {"label": "VALID"}, "auditor": {"label": "VALID", "reason": "x` + "\x01" + `"}}`,
			`error: f:1:87: invalid JSON: control character U+0001 in a string: it must be escaped`},
		{`{"qid": "a", "scholar": {"label": "VALID"}, "auditor": {"label": "VALID", "reason": "x}`,
			`error: f:1:88: invalid JSON: unexpected end of input in a string`},
	}
	for _, c := range cases {
		if got := decodePair(&decoder{p: profile.Default}, []byte(c.rec)); got != c.want {
			t.Errorf("%s:\n got  %s\n want %s", c.rec, got, c.want)
		}
	}
}

// TestDecodeRecordEnd cuts the tail of a record short at every length, so that its last keys
// and strings end at every distance from the end of the data.
func TestDecodeRecordEnd(t *testing.T) {
	base := `{"qid": "Q1", "scholar": {"label": "VALID"}, "auditor": {"label": "REJECT", "reason": "`
	for n := 0; n < 30; n++ {
		reason := strings.Repeat("r", n)
		for _, tail := range []string{`"}}`, `"}, "flags": {"provenance_violation": true}}`, `"}, "retrieved_ids": ["` + reason + `"]}`} {
			rec := base + reason + tail
			got := decodePair(&decoder{p: profile.Default}, []byte(rec))
			if !strings.Contains(got, fmt.Sprintf(`aud="REJECT"/%q`, reason)) {
				t.Fatalf("%s: %s", rec, got)
			}
		}
	}
	for _, rec := range []string{`{"scholar": {"label": "VALID"}, "auditor": {"label": "VALID"}, "qid": "a"}`,
		`{"qid": 1, "auditor": {"label": "VALID"}, "scholar": {"label": "VALID"}}`,
		`{"qid": 1, "auditor": {"label": "VALID"}, "scholar": {"label":"VALID"}}`} {
		if got := decodePair(&decoder{p: profile.Default}, []byte(rec)); strings.HasPrefix(got, "error") {
			t.Errorf("%s: %s", rec, got)
		}
	}
}

const seedRecord = `{"qid": "A0001", "scholar": {"label": "VALID", "reason": "claim contained; cites p1#2"}, ` +
	`"auditor": {"label": "VALID", "reason": "provenance ok; constraints echoed"}, ` +
	`"answer_json": {"claim": "X rejects null keys.", "citations": ["p1#2"], "constraints_echo": ["X rejects null keys."]}, ` +
	`"retrieved_ids": ["p1#1","p1#2","p2#1"], "flags": {"provenance_violation": false, "constraints_mismatch": false}}`

// Records that depart from the seed's shape in one place each: every one must be read, or refused,
// exactly as the encoding/json oracle (oraclePair) says.
var recordVariants = []string{
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

// TestDecodeVariants holds the decoder to the oracle built on encoding/json (oraclePair) on
// records that depart from the seed's shape in one place each, in both profiles: a record is
// read as the oracle reads it, or refused, and refused as invalid JSON exactly when it is not
// JSON. Without reasons (as EvaluateMerged's workers read) it decodes the same, but for them.
func TestDecodeVariants(t *testing.T) {
	for _, v := range recordVariants {
		want, ok := oraclePair([]byte(v))
		for _, p := range []profile.Profile{profile.Reference, profile.Default} {
			full, lean := decodeWith(&decoder{p: p}, v), decodeWith(&decoder{p: p, noReason: true}, v)
			full.Sch.Reason, full.Aud.Reason = "", ""
			if !reflect.DeepEqual(full, lean) {
				t.Errorf("%s: %q:\n with reasons    %+v\n without reasons %+v", p, v, full, lean)
			}
			got, err := loadMerged([]string{"f.jsonl"}, memFiles(map[string]string{"f.jsonl": v}), 0, p)
			if err != nil {
				if v != "" && strings.Contains(err.Error(), "invalid JSON") == json.Valid([]byte(v)) {
					t.Errorf("%s: %q: %v, json.Valid %v", p, v, err, json.Valid([]byte(v)))
				}
				if ok && p == profile.Reference {
					t.Errorf("%s: %q refused (%v), the oracle reads it", p, v, err)
				}
				continue
			}
			want.File, want.Line = "f.jsonl", 1
			if !ok || !reflect.DeepEqual(got, []Pair{want}) {
				t.Errorf("%s: %q:\n got  %#v\n want %#v (oracle ok %v)", p, v, got, want, ok)
			}
		}
	}
}
