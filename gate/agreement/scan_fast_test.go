package agreement

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/profile"
)

// The scanner's fast paths (keys and labels compared in place, strings scanned eight bytes
// at a time, whitespace skipped inline) must decide as the slow paths do. These tests hold
// them to it where the fuzz tests would be slow to go: whitespace and escapes around every
// key, keys and labels that are almost known ones, and strings that end near the end of the
// record.

// isSpecial is the byte-by-byte definition of what stringStop stops at.
func isSpecial(c byte) bool { return c == '"' || c == '\\' || c < 0x20 || c >= 0x80 }

func TestSpecialEveryByte(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for v := 0; v < 256; v++ {
		for pos := 0; pos < 8; pos++ {
			for trial := 0; trial < 64; trial++ {
				var b [8]byte
				for k := range b {
					b[k] = byte(rng.Uint32())
				}
				if trial == 0 {
					b = [8]byte{'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a'}
				}
				b[pos] = byte(v)
				x := uint64(0)
				for k := 7; k >= 0; k-- {
					x = x<<8 | uint64(b[k])
				}
				m := special(x)
				for k := range b {
					if got, want := m>>(8*k+7)&1 == 1, isSpecial(b[k]); got != want || m&^msb != 0 {
						t.Fatalf("special(% x) = %#x: byte %d got %v want %v", b, m, k, got, want)
					}
				}
			}
		}
	}
}

func TestStringStop(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte("ab\"\\\x00\x1f \xc3\xa9\x7f\xff")
	for n := 0; n < 40; n++ {
		for trial := 0; trial < 200; trial++ {
			d := make([]byte, n)
			for k := range d {
				if rng.IntN(4) == 0 {
					d[k] = alphabet[rng.IntN(len(alphabet))]
				} else {
					d[k] = 'a' + byte(rng.IntN(26))
				}
			}
			for i := 0; i <= n; i++ {
				want := i
				for want < n && !isSpecial(d[want]) {
					want++
				}
				if got := stringStop(d, i); got != want {
					t.Fatalf("stringStop(%q, %d) = %d, want %d", d, i, got, want)
				}
			}
		}
	}
}

// decodePair decodes data and returns its pair with the strings resolved, or its error.
func decodePair(d *recordDecoder, data []byte) string {
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

// TestFastPathWhitespace puts every kind of JSON whitespace, or none, at every place between
// tokens: the record must decode the same.
func TestFastPathWhitespace(t *testing.T) {
	want := decodePair(&recordDecoder{p: profile.Default}, []byte(fastRecord))
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
				if got := decodePair(&recordDecoder{p: p}, []byte(b.String())); got != want {
					t.Fatalf("%q:\n got  %s\n want %s", b.String(), got, want)
				}
			}
		}
	}
}

// TestFastPathNearMisses writes keys and labels that the literals must not take for known
// ones, or must take although they are escaped, and puts them at the end of a record, where
// the literals do not look.
func TestFastPathNearMisses(t *testing.T) {
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
			`error: f:1:87: invalid JSON: invalid character '\x01' in string literal`},
		{`{"qid": "a", "scholar": {"label": "VALID"}, "auditor": {"label": "VALID", "reason": "x}`,
			`error: f:1:87: invalid JSON: unexpected end of JSON input`},
	}
	for _, c := range cases {
		if got := decodePair(&recordDecoder{p: profile.Default}, []byte(c.rec)); got != c.want {
			t.Errorf("%s:\n got  %s\n want %s", c.rec, got, c.want)
		}
	}
}

// TestFastPathRecordEnd cuts the tail of a record short at every length, so that its last
// keys and strings end at every distance from the end of the data.
func TestFastPathRecordEnd(t *testing.T) {
	base := `{"qid": "Q1", "scholar": {"label": "VALID"}, "auditor": {"label": "REJECT", "reason": "`
	for n := 0; n < 30; n++ {
		reason := strings.Repeat("r", n)
		for _, tail := range []string{`"}}`, `"}, "flags": {"provenance_violation": true}}`, `"}, "retrieved_ids": ["` + reason + `"]}`} {
			rec := base + reason + tail
			got := decodePair(&recordDecoder{p: profile.Default}, []byte(rec))
			if !strings.Contains(got, fmt.Sprintf(`aud="REJECT"/%q`, reason)) {
				t.Fatalf("%s: %s", rec, got)
			}
		}
	}
	for _, rec := range []string{`{"scholar": {"label": "VALID"}, "auditor": {"label": "VALID"}, "qid": "a"}`,
		`{"qid": 1, "auditor": {"label": "VALID"}, "scholar": {"label": "VALID"}}`,
		`{"qid": 1, "auditor": {"label": "VALID"}, "scholar": {"label":"VALID"}}`} {
		if got := decodePair(&recordDecoder{p: profile.Default}, []byte(rec)); strings.HasPrefix(got, "error") {
			t.Errorf("%s: %s", rec, got)
		}
	}
}

// skipFlat must end where skip ends, and fail where skip fails, whatever the value: it reads
// strings and arrays of strings itself and hands the rest to skip, from the value's start.
func TestSkipFlat(t *testing.T) {
	values := []string{
		`"plain"`, `""`, `"esc \"q\" \\ \n \u00e9"`, `"é ok"`, `"\ud83d\ude00"`,
		`[]`, `[ ]`, `["a"]`, `["a","b"]`, `[ "a" , "b" ]`, "[\n\t\"a\",\r\n\"b\"\n]", `["a\"b", "c"]`,
		`[1, "a"]`, `["a", 1]`, `["a", ["b"]]`, `["a", {"k": "v"}]`, `["a", null]`, `[null]`,
		`{"k": ["a"]}`, `{}`, `null`, `true`, `false`, `-1.5e3`, `0`,
		// not JSON: each must fail as skip fails
		`"open`, `"bad \x"`, "\"ctl \x01\"", "\"\xff\"", `["a",]`, `["a" "b"]`, `["a"`, `["a",`, `[`,
		`["a"}`, `[,"a"]`, `["a", tru]`, `[01]`, `nul`, `}`, ``,
	}
	for _, v := range values {
		for _, after := range []string{``, `, "next": 1}`, ` }`} {
			data := []byte(v + after)
			flat := scanner{data: data}
			gen := scanner{data: data}
			got, want := flat.skipFlat(0), gen.skip(0, 2)
			if got != want || flat.bad != gen.bad {
				t.Errorf("%q: skipFlat = %d (bad %v), skip = %d (bad %v)", data, got, flat.bad, want, gen.bad)
			}
		}
	}
}
