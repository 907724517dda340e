package agreement

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/pystr"
)

// oracleTruthy is Python's truth value of a JSON value, decoded by encoding/json.
func oracleTruthy(raw json.RawMessage) bool {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return false
	}
	switch x := v.(type) {
	case bool:
		return x
	case nil:
		return false
	case string:
		return x != ""
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	case json.Number:
		f, _ := strconv.ParseFloat(string(x), 64)
		return f != 0
	}
	return true
}

func firstByte(raw json.RawMessage) byte {
	if len(raw) == 0 {
		return 0
	}
	return raw[0]
}

// oracleString decodes a JSON string value.
func oracleString(raw json.RawMessage) (string, bool) {
	var s string
	if firstByte(raw) != '"' || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// oracleIDs decodes citations or retrieved_ids as the loader should.
func oracleIDs(raw json.RawMessage) ([]string, bool) {
	if firstByte(raw) != '[' {
		return nil, !oracleTruthy(raw)
	}
	var elems []json.RawMessage
	if json.Unmarshal(raw, &elems) != nil {
		return nil, false
	}
	var out []string
	for _, e := range elems {
		s, ok := oracleString(e)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// oracleJudgement decodes {"label", "reason"}.
func oracleJudgement(raw json.RawMessage) (Judgement, bool) {
	var m map[string]json.RawMessage
	if firstByte(raw) != '{' || json.Unmarshal(raw, &m) != nil {
		return Judgement{}, false
	}
	var j Judgement
	l, ok := m["label"]
	if !ok {
		return j, false
	}
	if j.Label, ok = oracleString(l); !ok {
		return j, false
	}
	if r, ok := m["reason"]; ok {
		switch firstByte(r) {
		case '"':
			j.Reason, _ = oracleString(r)
		case 'n':
		default:
			j.Reason = string(r)
		}
	}
	return j, true
}

// oraclePair is a slow, independent decoder of one pairs record with encoding/json, in the
// reference profile's rules: it says what LoadMerged must return for a valid record, and
// whether the record is acceptable at all.
func oraclePair(line []byte) (Pair, bool) {
	var p Pair
	var m map[string]json.RawMessage
	if firstByte(bytes.TrimLeft(line, " \t\r\n")) != '{' || json.Unmarshal(line, &m) != nil {
		return p, false
	}
	q, ok := m["qid"]
	if !ok {
		return p, false
	}
	switch c := firstByte(q); {
	case c == '"':
		v, _ := pystr.Parse(q) // as Python reads it: a lone surrogate stays a code point
		p.QID = v.Text
	case c == '-' || '0' <= c && c <= '9':
		p.QID = string(q)
	default:
		return p, false
	}
	for _, side := range []struct {
		name string
		dst  *Judgement
	}{{"scholar", &p.Scholar}, {"auditor", &p.Auditor}} {
		raw, ok := m[side.name]
		if !ok {
			return p, false
		}
		if *side.dst, ok = oracleJudgement(raw); !ok {
			return p, false
		}
	}
	if a, ok := m["answer_json"]; ok {
		if firstByte(a) == '{' {
			var am map[string]json.RawMessage
			_ = json.Unmarshal(a, &am)
			if c, ok := am["citations"]; ok {
				if p.Citations, ok = oracleIDs(c); !ok {
					return p, false
				}
			}
		} else if oracleTruthy(a) {
			return p, false
		}
	}
	if r, ok := m["retrieved_ids"]; ok {
		if p.RetrievedIDs, ok = oracleIDs(r); !ok {
			return p, false
		}
		p.HasRetrieved = firstByte(r) != 'n'
	}
	if f, ok := m["flags"]; ok {
		switch firstByte(f) {
		case '{':
			var fm map[string]json.RawMessage
			_ = json.Unmarshal(f, &fm)
			for _, k := range []string{FlagProvenance, FlagConstraints} {
				if v, ok := fm[k]; ok && oracleTruthy(v) {
					if p.Flags == nil {
						p.Flags = map[string]bool{}
					}
					p.Flags[k] = true
				}
			}
		case 'n':
		default:
			return p, false
		}
	}
	return p, true
}

// checkInputError asserts err is an *input.Error and, when it is about a line that is not
// valid JSON, that it says so (and only then).
func checkInputError(t *testing.T, err error, path, text string) {
	t.Helper()
	var ie *input.Error
	if !errors.As(err, &ie) {
		t.Fatalf("error %T %v is not an *input.Error", err, err)
	}
	if ie.File != path || ie.Line < 1 || strings.HasPrefix(ie.Msg, "invalid UTF-8") || strings.HasPrefix(ie.Msg, "no records") {
		return
	}
	lines := strings.Split(text, "\n")
	if ie.Line > len(lines) {
		t.Fatalf("error at line %d of %d: %v", ie.Line, len(lines), err)
	}
	line := strings.TrimRight(lines[ie.Line-1], "\r\n")
	if ie.Line == 1 {
		line = strings.TrimPrefix(line, "\ufeff")
	}
	if strings.HasPrefix(ie.Msg, "invalid JSON") == json.Valid([]byte(line)) {
		t.Fatalf("line %q: json.Valid %v but error %v", line, json.Valid([]byte(line)), err)
	}
}

// goldenFile returns file i of a golden case.
func goldenFile(f *testing.F, name string, i int) string {
	for _, c := range seedGolden {
		if c.name == name {
			return c.files[i]
		}
	}
	f.Fatalf("no golden case %q", name)
	return ""
}

// memFiles serves JSON Lines files from memory with the record and error semantics of
// input.Each (lines numbered from 1, a BOM on line 1 and trailing CR/LF dropped, blank lines
// skipped, invalid UTF-8 and files without records are errors). input.EachReader itself
// allocates a 256 KiB buffer per file, which slows fuzzing down a hundredfold.
func memFiles(files map[string]string) eachFunc {
	return func(name string, fn func(input.Record) error) error {
		n := 0
		for i, line := range strings.SplitAfter(files[name], "\n") {
			b := []byte(line)
			if i == 0 {
				b = bytes.TrimPrefix(b, []byte("\ufeff"))
			}
			b = bytes.TrimRight(b, "\r\n")
			if len(bytes.TrimSpace(b)) == 0 {
				continue
			}
			if !utf8.Valid(b) {
				return &input.Error{File: name, Line: i + 1, Col: 1, Msg: "invalid UTF-8: input files must be UTF-8 text"}
			}
			n++
			if err := fn(input.Record{File: name, Line: i + 1, Col: 1, Data: b}); err != nil {
				return err
			}
		}
		if n == 0 {
			return &input.Error{File: name, Msg: "no records: the file is empty"}
		}
		return nil
	}
}

// FuzzLoadMerged: no input makes LoadMerged panic; every error is an *input.Error, and says
// "invalid JSON" exactly when the line is not JSON; every pair read agrees with a slow decoder
// built on encoding/json; the default profile, when it accepts a file, reads it as the
// reference does.
func FuzzLoadMerged(f *testing.F) {
	// Small seeds: the fuzzer minimizes every input that finds new code for up to a minute,
	// and the golden files are kilobytes long.
	f.Add(strings.SplitAfter(goldenFile(f, "merged_branches", 0), "\n")[0])
	for _, s := range []string{
		`{"qid": "a\u00e9\ud800", "scholar": {"label": "VALID", "reason": {"x": [1]}}, "auditor": {"label": "RE\u004aECT", "reason": null}}`,
		`{"qid": -0.5e-3, "scholar": {"label": "X"}, "auditor": {"label": "VALID"}, "answer_json": 0, "retrieved_ids": "", "flags": {"provenance_violation": 1e-400}}`,
		`{"qid": 1, "scholar": {"label": "VALID"}, "auditor": {"label": "VALID"}, "answer_json": {"citations": ["a", "b\"c"]}, "retrieved_ids": ["a"], "flags": null}`,
		"{\"qid\": \"x\", \"scholar\": {\"label\": \"VALID\"}, \"auditor\": {\"label\": \"VALID\"}}\r\n\n[1]\n",
		`{"qid": "a", "scholar": {"label": "VALID"}}`, `{"qid": "a",}`, `{"a": [[[[]]]], "qid": "\x01"}`, "\xff", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		path := "pairs.jsonl"
		each := memFiles(map[string]string{path: text})
		ref, err := loadMerged([]string{path}, each, 0, profile.Reference)
		if err != nil {
			checkInputError(t, err, path, text)
		} else {
			var want []Pair
			for i, line := range strings.Split(text, "\n") {
				b := []byte(strings.TrimRight(line, "\r"))
				if i == 0 {
					b = bytes.TrimPrefix(b, []byte("\ufeff"))
				}
				if len(bytes.TrimSpace(b)) == 0 {
					continue
				}
				p, ok := oraclePair(b)
				if !ok {
					t.Fatalf("line %d %q accepted, the oracle refuses it", i+1, b)
				}
				p.File, p.Line = path, i+1
				want = append(want, p)
			}
			if !reflect.DeepEqual(ref, want) {
				t.Fatalf("read\n%#v\noracle\n%#v", ref, want)
			}
		}
		def, err := loadMerged([]string{path}, each, 0, profile.Default)
		if err != nil {
			checkInputError(t, err, path, text)
		} else if !reflect.DeepEqual(def, ref) {
			t.Fatalf("default read\n%#v\nreference read\n%#v", def, ref)
		}
		for _, p := range []profile.Profile{profile.Reference, profile.Default} {
			s := Compute(def, nil, p)
			if s.Items.Len() != len(def) {
				t.Fatal("items lost")
			}
		}
	})
}

// FuzzLoadJoined: no input makes LoadJoined panic; every error is an *input.Error that says
// "invalid JSON" exactly when the line is not JSON; the pairs come in qid order; the default
// profile, when it accepts the files, joins them as the reference does and lists the rest.
func FuzzLoadJoined(f *testing.F) {
	f.Add("{\"qid\": \"q3\", \"label\": \"VALID\", \"reason\": \"r\"}\n{\"qid\": \"q1\", \"label\": \"REJECT\"}\n", "{\"qid\": \"q1\", \"label\": \"VALID\"}\n{\"qid\": \"z\", \"label\": \"ABSTAIN\"}")
	f.Add("{\"qid\": 1, \"label\": \"VALID\"}\n{\"qid\": 1.0, \"label\": \"REJECT\"}", "{\"qid\": \"1\", \"label\": \"VALID\"}\n{\"qid\": 1e0, \"label\": \"X\"}")
	f.Add(`{"qid": 7, "label": "VALID"}`, `{"qid": "7", "label": "VALID"}`)
	f.Add(`{"qid": "a"}`, `[`)
	f.Fuzz(func(t *testing.T, scholar, auditor string) {
		sp, ap := "s.jsonl", "a.jsonl"
		each := memFiles(map[string]string{sp: scholar, ap: auditor})
		ref, refU, err := loadJoined([]string{sp}, []string{ap}, each, profile.Reference)
		if err != nil {
			var ie *input.Error
			if errors.As(err, &ie) && ie.File == ap {
				checkInputError(t, err, ap, auditor)
			} else {
				checkInputError(t, err, sp, scholar)
			}
			return
		}
		if refU != nil {
			t.Fatal("reference returned unmatched qids")
		}
		for i := 1; i < len(ref); i++ {
			a, b := ref[i-1], ref[i]
			if a.QID == b.QID && a.Line == b.Line {
				t.Fatalf("pair %d repeated", i)
			}
		}
		def, defU, err := loadJoined([]string{sp}, []string{ap}, each, profile.Default)
		if err != nil {
			var ie *input.Error
			if !errors.As(err, &ie) {
				t.Fatalf("error %T %v is not an *input.Error", err, err)
			}
			return
		}
		if !reflect.DeepEqual(def, ref) {
			t.Fatalf("default joined\n%#v\nreference\n%#v", def, ref)
		}
		for _, u := range defU {
			if u.OnlyIn != "scholar" && u.OnlyIn != "auditor" || u.Line < 1 {
				t.Fatalf("unmatched %+v", u)
			}
		}
		_ = Compute(def, defU, profile.Default)
	})
}
