package coherence

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"
)

// decoderMembers is members as encoding/json's Decoder splits an object: the oracle.
func decoderMembers(data []byte, base int) ([]member, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	ms := []member{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil || len(raw) == 0 {
			return nil, false
		}
		ms = append(ms, member{key: key, off: base + int(dec.InputOffset()) - len(raw), raw: raw})
	}
	return ms, true
}

// decoderElements is elements as encoding/json's Decoder splits an array: the oracle.
func decoderElements(data []byte, base int) ([]member, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, false
	}
	var es []member
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil || len(raw) == 0 {
			return nil, false
		}
		es = append(es, member{off: base + int(dec.InputOffset()) - len(raw), raw: raw})
	}
	return es, true
}

// FuzzSplit: on valid JSON (in UTF-8), members and elements split an object or an array exactly as
// encoding/json's Decoder does: the same keys (escapes decoded), offsets and raw values.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, ` { "a" : 1 , "b":[1,{"c":"}"}], "d\"": "x\\\"y", "é\u00e9": null } `,
		`{"a":{"b":{"c":[]}},"a":true}`, `[1, -2.5e3, "s", {"k": [true, false]}, null]`,
		"{\"\\ud800\": 1, \"\xff\": 2}", `{"results": [{"task_id": "t", "rcs": 0.5}]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		data := []byte(s)
		if !json.Valid(data) || !utf8.Valid(data) { // records reach the splitter as UTF-8
			return
		}
		gm, gerr := members(data, 3)
		gok := gerr == nil
		wm, wok := decoderMembers(data, 3)
		if gok != wok || gok && !equalMembers(gm, wm) {
			t.Fatalf("members(%q) = %v %+v, decoder %v %+v", s, gok, gm, wok, wm)
		}
		ge, gerr := elements(data, 3)
		gok = gerr == nil
		we, wok := decoderElements(data, 3)
		if gok != wok || gok && !equalMembers(ge, we) {
			t.Fatalf("elements(%q) = %v %+v, decoder %v %+v", s, gok, ge, wok, we)
		}
	})
}

func equalMembers(a, b []member) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].key != b[i].key || a[i].off != b[i].off || !bytes.Equal(a[i].raw, b[i].raw) {
			return false
		}
	}
	return true
}

// TestSplitShapes: a few splits checked by hand.
func TestSplitShapes(t *testing.T) {
	ms, err := members([]byte(` {"a": 1, "b\u0021": "x,}", "c": [1, {"d": "]"}]}`), 10)
	want := []member{
		{key: "a", off: 17, raw: []byte(`1`)},
		{key: "b!", off: 31, raw: []byte(`"x,}"`)},
		{key: "c", off: 43, raw: []byte(`[1, {"d": "]"}]`)},
	}
	if err != nil || !reflect.DeepEqual(ms, want) {
		t.Errorf("members = %v %q", err, ms)
	}
	es, err := elements([]byte(`[ "a" ,{}, 2 ]`), 0)
	if err != nil || len(es) != 3 || string(es[0].raw) != `"a"` || es[1].off != 7 || string(es[2].raw) != "2" {
		t.Errorf("elements = %v %q", err, es)
	}
}
