package agreement

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/gate/profile"
)

// TestNestingLimit: a value nested as deep as encoding/json allows (10000 levels) is
// accepted wherever it sits in a record, and one level more is a syntax error, as there.
func TestNestingLimit(t *testing.T) {
	places := []string{
		`{"qid": "a", "x": %s, ` + vv + `}`,
		`{"qid": "a", "scholar": {"label": "VALID", "reason": %s}, "auditor": {"label": "VALID"}}`,
		`{"qid": "a", "scholar": {"label": "VALID", "x": %s}, "auditor": {"label": "VALID"}}`,
		`{"qid": "a", ` + vv + `, "answer_json": {"claim": %s}}`,
		`{"qid": "a", ` + vv + `, "flags": {"other": %s}}`,
		`{"qid": "a", ` + vv + `, "flags": {"provenance_violation": %s}}`,
		`{"qid": "a", ` + vv + `, "answer_json": {"citations": %s}}`,
		`{"qid": "a", ` + vv + `, "answer_json": {"citations": ["p", %s]}}`,
		`{"qid": "a", ` + vv + `, "retrieved_ids": ["p", %s]}`,
		`{"qid": "a", ` + vv + `, "answer_json": %s}`,
	}
	for pi, place := range places {
		for _, open := range []string{"[", `{"k":`} {
			for depth := 9996; depth <= 10001; depth++ {
				close := map[string]string{"[": "]", `{"k":`: "}"}[open]
				inner := strings.Repeat(open, depth) + "0" + strings.Repeat(close, depth)
				rec := []byte(strings.Replace(place, "%s", inner, 1))
				want := json.Valid(rec)
				d := &decoder{p: profile.Reference}
				var r pairRec
				err := d.pair(rec, &r)
				// Some places take no such value (a type error); what matters is that a
				// syntax error is found exactly when encoding/json finds one.
				var syntaxBad bool
				if err != nil {
					ie := recordError(input.Record{File: "f", Line: 1, Col: 1, Data: rec}, err)
					syntaxBad = strings.HasPrefix(ie.Msg, "invalid JSON: ")
				}
				if want == syntaxBad {
					t.Errorf("place %d, %q x %d: json.Valid %v, decoder error %v (syntax error %v)", pi, open, depth, want, err, syntaxBad)
				}
			}
		}
	}
}

// TestDeepRecordReason: a record that is not an object, nested as deep as encoding/json allows,
// is named for what it is, with a reason and a place; one level more is the depth error
// (issue 12: the depth-10,000 case said only "invalid JSON", at 1:1). A file that opens with '['
// is an array of records (docs/design.md#file-layouts-and-formats), so the record is the inner array at 1:2, and the outer
// array is one level the decoder's limit does not count against the record.
func TestDeepRecordReason(t *testing.T) {
	pairsMsg := `expected a pairs record (a JSON object {"qid", "scholar", "auditor", ...}), found an array`
	labelsMsg := `expected a label record (a JSON object {"qid", "label", "reason"}), found an array`
	cases := []struct {
		depth         int
		pairs, labels string
	}{
		{9999, "f0.jsonl:1:2: " + pairsMsg, "f0.jsonl:1:2: " + labelsMsg},
		{10001, "f0.jsonl:1:2: " + pairsMsg, "f0.jsonl:1:2: " + labelsMsg},
		{10002, "f0.jsonl:1:10002: invalid JSON: nesting deeper than 10000 levels", "f0.jsonl:1:10002: invalid JSON: nesting deeper than 10000 levels"},
	}
	for _, c := range cases {
		text := strings.Repeat("[", c.depth) + strings.Repeat("]", c.depth) + "\n"
		paths := writeFiles(t, text)
		_, err := LoadMerged(paths, profile.Default)
		if got := relErr(t, err, paths); got != c.pairs {
			t.Errorf("depth %d, LoadMerged: %s\nwant %s", c.depth, got, c.pairs)
		}
		_, err = EvaluateMerged(context.Background(), paths, profile.Default, 1)
		if got := relErr(t, err, paths); got != c.pairs {
			t.Errorf("depth %d, EvaluateMerged: %s\nwant %s", c.depth, got, c.pairs)
		}
		_, _, err = LoadJoined(paths, paths, profile.Default)
		if got := relErr(t, err, paths); got != c.labels {
			t.Errorf("depth %d, LoadJoined: %s\nwant %s", c.depth, got, c.labels)
		}
	}
}
