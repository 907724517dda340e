package agreement

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/gate/profile"
)

// relErr returns err's message with the temporary directory taken out of the file names.
func relErr(t *testing.T, err error, paths []string) string {
	t.Helper()
	if err == nil {
		return "<nil>"
	}
	var ie *input.Error
	if !errors.As(err, &ie) {
		t.Errorf("%T %v is not an *input.Error", err, err)
	}
	return strings.ReplaceAll(err.Error(), filepath.Dir(paths[0])+string(filepath.Separator), "")
}

const vv = `"scholar": {"label": "VALID"}, "auditor": {"label": "VALID"}`

func TestLoadMergedErrors(t *testing.T) {
	cases := []struct {
		name, text string
		p          profile.Profile
		want       string
	}{
		{"not an object", `["a"]` + "\n", profile.Default, // '[' starts an array of records (docs/design.md#file-layouts-and-formats)
			`f0.jsonl:1:2: expected a pairs record (a JSON object {"qid", "scholar", "auditor", ...}), found a string`},
		{"missing qid", `{` + vv + `}` + "\n", profile.Default, `f0.jsonl:1:1: missing field "qid"`},
		{"missing qid, reference too", `{` + vv + `}` + "\n", profile.Reference, `f0.jsonl:1:1: missing field "qid"`},
		{"missing auditor", "\n  {\"qid\": \"a\", \"scholar\": {\"label\": \"VALID\"}}\n", profile.Default, `f0.jsonl:2:3: missing field "auditor"`},
		{"qid null", `{"qid": null, ` + vv + `}`, profile.Default, `f0.jsonl:1:9: field "qid": expected a string or a number, found null`},
		{"qid object", `{"qid": {"id": 1}, ` + vv + `}`, profile.Reference, `f0.jsonl:1:9: field "qid": expected a string or a number, found an object`},
		{"scholar string", `{"qid": "a", "scholar": "VALID", "auditor": {"label": "VALID"}}`, profile.Default,
			`f0.jsonl:1:25: field "scholar": expected an object {"label", "reason"}, found a string`},
		{"missing label", `{"qid": "a", "scholar": {"label": "VALID"}, "auditor": {"reason": "ok"}}`, profile.Reference,
			`f0.jsonl:1:56: missing field "auditor.label"`},
		{"label number", `{"qid": "a", "scholar": {"label": 1}, "auditor": {"label": "VALID"}}`, profile.Reference,
			`f0.jsonl:1:35: field "scholar.label": expected a string, found a number`},
		{"unknown label", `{"qid": "a", "scholar": {"label": "VALID"}, "auditor": {"label": "valid"}}`, profile.Default,
			`f0.jsonl:1:66: field "auditor.label": unknown label "valid": want VALID, NOT_IN_CONTEXT, REJECT or ABSTAIN (exact case)`},
		{"answer_json string", `{"qid": "a", ` + vv + `, "answer_json": "{\"citations\": []}"}`, profile.Default,
			`f0.jsonl:1:91: field "answer_json": expected an object, found a string`},
		{"citations string", `{"qid": "a", ` + vv + `, "answer_json": {"citations": "p1"}}`, profile.Reference,
			`f0.jsonl:1:105: field "answer_json.citations": expected an array of strings, found a string`},
		{"retrieved id number", `{"qid": "a", ` + vv + `, "retrieved_ids": ["p1", 2]}`, profile.Default,
			`f0.jsonl:1:100: field "retrieved_ids[1]": expected a string, found a number`},
		{"flags array", `{"qid": "a", ` + vv + `, "flags": []}`, profile.Reference,
			`f0.jsonl:1:85: field "flags": expected an object, found an array`},
		{"flag string", `{"qid": "a", ` + vv + `, "flags": {"constraints_mismatch": "no"}}`, profile.Default,
			`f0.jsonl:1:110: field "flags.constraints_mismatch": expected true, false or null, found a string`},
		{"invalid JSON", `{"qid": "a",}`, profile.Default,
			`f0.jsonl:1:13: invalid JSON: expected a string key, found '}'`},
		{"syntax error wins over a type error before it", `{"qid": null, "scholar": }`, profile.Default,
			`f0.jsonl:1:26: invalid JSON: expected a value, found '}'`},
		{"trailing data", `{"qid": "a", ` + vv + `} x`, profile.Default,
			`f0.jsonl:1:76: invalid JSON: unexpected 'x' after the value`},
		{"repeated qid", `{"qid": "a", ` + vv + "}\n\n{\"qid\": \"b\", " + vv + "}\n{\"qid\": \"a\", " + vv + "}\n", profile.Default,
			`f0.jsonl:4:1: qid "a" is repeated: it is first at f0.jsonl:1`},
		{"repeated number qid", `{"qid": 1, ` + vv + "}\n{\"qid\": 1.0, " + vv + "}\n", profile.Default,
			`f0.jsonl:2:1: qid 1.0 is repeated: it is first at f0.jsonl:1`},
		{"empty file", "\n\n", profile.Default, `f0.jsonl: no records: the file is empty`},
	}
	for _, c := range cases {
		paths := writeFiles(t, c.text)
		_, err := LoadMerged(paths, c.p)
		if got := relErr(t, err, paths); got != c.want {
			t.Errorf("%s:\n got  %s\n want %s", c.name, got, c.want)
		}
	}
}

// TestLoadMergedErrorOrder: the first problem in file order is reported, whether it is a
// repeated qid (found when a batch is flushed) or a bad record after it.
func TestLoadMergedErrorOrder(t *testing.T) {
	text := `{"qid": "a", ` + vv + "}\n{\"qid\": \"a\", " + vv + "}\n{\"qid\": 3, \"scholar\": 1}\n"
	paths := writeFiles(t, text)
	_, err := LoadMerged(paths, profile.Default)
	if got, want := relErr(t, err, paths), `f0.jsonl:2:1: qid "a" is repeated: it is first at f0.jsonl:1`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestLoadMergedJSONArray(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "pairs.json")
	text := "[\n  {\"qid\": \"a\", " + vv + "},\n  {\"qid\": \"b\",\n   \"scholar\": {\"label\": \"VALID\"}, \"auditor\": {\"label\": 7}}\n]\n"
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadMerged([]string{p}, profile.Default)
	if got, want := relErr(t, err, []string{p}), `pairs.json:4:56: field "auditor.label": expected a string, found a number`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	// Records that share a line: a repeated qid is placed by column too.
	text = "[{\"qid\": \"a\", " + vv + "}, {\"qid\": \"b\", " + vv + "},\n {\"qid\": \"c\", " + vv + "}, {\"qid\": \"b\", " + vv + "}]"
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = LoadMerged([]string{p}, profile.Default)
	if got, want := relErr(t, err, []string{p}), `pairs.json:2:78: qid "b" is repeated: it is first at pairs.json:1`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestLoadMergedValues: what a record decodes to, escapes and all, across several files in
// the order given.
func TestLoadMergedValues(t *testing.T) {
	a := `{"qid": "A\u00e9\"1", "x": [1, {"y": null}], "scholar": {"label": "VAL\u0049D", "reason": "cites \"p1#2\" \ud83d\ude00 \ud800"}, "auditor": {"label": "NOT_IN_CONTEXT", "reason": null, "extra": true},` +
		` "answer_json": {"claim": "c", "citations": ["p1#2", "p\/3"]}, "retrieved_ids": [], "flags": {"provenance_violation": false, "constraints_mismatch": null}}` + "\n"
	b := `{"qid": -12.50e1, "scholar": {"label": "ABSTAIN", "reason": {"why": [1, 2]}}, "auditor": {"label": "REJECT", "reason": 3}, "answer_json": null, "retrieved_ids": null, "flags": {"constraints_mismatch": true}}` + "\n" +
		`{"scholar": {"label": "REJECT"}, "auditor": {"label": "REJECT"}, "qid": "dup-keys", "scholar": {"label": "VALID"}, "flags": {"provenance_violation": true}, "flags": {}}` + "\n"
	paths := writeFiles(t, a, b)
	got, err := LoadMerged(paths, profile.Default)
	if err != nil {
		t.Fatal(err)
	}
	want := []Pair{
		{QID: "Aé\"1", File: paths[0], Line: 1, Scholar: Judgement{Valid, "cites \"p1#2\" 😀 \ufffd"}, Auditor: Judgement{NotInContext, ""},
			Citations: []string{"p1#2", "p/3"}, HasRetrieved: true},
		{QID: "-12.50e1", File: paths[1], Line: 1, Scholar: Judgement{Abstain, `{"why": [1, 2]}`}, Auditor: Judgement{Reject, "3"},
			Flags: map[string]bool{FlagConstraints: true}},
		{QID: "dup-keys", File: paths[1], Line: 2, Scholar: Judgement{Valid, ""}, Auditor: Judgement{Reject, ""}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%#v\nwant\n%#v", got, want)
	}
}

func TestLoadJoinedErrors(t *testing.T) {
	cases := []struct {
		name             string
		scholar, auditor string
		p                profile.Profile
		want             string
	}{
		{"missing label", `{"qid": "a", "reason": "r"}`, `{"qid": "a", "label": "VALID"}`, profile.Reference, `f0.jsonl:1:1: missing field "label"`},
		{"not an object", `{"qid": "a", "label": "VALID"}`, `"a"`, profile.Default,
			`f1.jsonl:1:1: expected a label record (a JSON object {"qid", "label", "reason"}), found a string`},
		{"unknown label", `{"qid": "a", "label": "VALID"}`, `{"qid": "a", "label": "OK"}`, profile.Default,
			`f1.jsonl:1:23: field "label": unknown label "OK": want VALID, NOT_IN_CONTEXT, REJECT or ABSTAIN (exact case)`},
		{"repeated qid", `{"qid": "a", "label": "VALID"}` + "\n" + `{"qid": "a", "label": "REJECT"}`, `{"qid": "a", "label": "VALID"}`, profile.Default,
			`f0.jsonl:2:1: qid "a" is repeated: it is first at f0.jsonl:1`},
		{"number and string", `{"qid": 7, "label": "VALID"}`, `{"qid": "7", "label": "VALID"}`, profile.Default,
			`f1.jsonl:1: qid "7" is a string here but a number 7 at f0.jsonl:1: write each qid the same way in both files`},
	}
	for _, c := range cases {
		paths := writeFiles(t, c.scholar, c.auditor)
		_, _, err := LoadJoined(paths[:1], paths[1:], c.p)
		if got := relErr(t, err, paths); got != c.want {
			t.Errorf("%s:\n got  %s\n want %s", c.name, got, c.want)
		}
	}
}

func TestLoadJoinedUnmatched(t *testing.T) {
	scholar := `{"qid": "b", "label": "VALID"}` + "\n" + `{"qid": "a", "label": "REJECT", "reason": "r"}` + "\n" + `{"qid": 10, "label": "VALID"}` + "\n" + `{"qid": "z", "label": "VALID"}` + "\n"
	auditor := `{"qid": "y", "label": "VALID"}` + "\n" + `{"qid": "a", "label": "VALID"}` + "\n" + `{"qid": 2, "label": "VALID"}` + "\n"
	paths := writeFiles(t, scholar, auditor)
	pairs, unmatched, err := LoadJoined(paths[:1], paths[1:], profile.Default)
	if err != nil {
		t.Fatal(err)
	}
	wantPairs := []Pair{{QID: "a", File: paths[0], Line: 2, Scholar: Judgement{Reject, "r"}, Auditor: Judgement{Valid, ""}}}
	if !reflect.DeepEqual(pairs, wantPairs) {
		t.Errorf("pairs %+v", pairs)
	}
	wantU := []Unmatched{
		{QID: "2", OnlyIn: "auditor", File: paths[1], Line: 3},
		{QID: "10", OnlyIn: "scholar", File: paths[0], Line: 3},
		{QID: "b", OnlyIn: "scholar", File: paths[0], Line: 1},
		{QID: "y", OnlyIn: "auditor", File: paths[1], Line: 1},
		{QID: "z", OnlyIn: "scholar", File: paths[0], Line: 4},
	}
	if !reflect.DeepEqual(unmatched, wantU) {
		t.Errorf("unmatched\n%+v\nwant\n%+v", unmatched, wantU)
	}
	s := Compute(pairs, unmatched, profile.Default)
	if s.N != 1 || len(s.Unmatched) != 5 {
		t.Errorf("summary n %d unmatched %d", s.N, len(s.Unmatched))
	}
}
