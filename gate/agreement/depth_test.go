package agreement

import (
	"encoding/json"
	"strings"
	"testing"

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
				d := &recordDecoder{p: profile.Reference}
				var r pairRaw
				ok := d.pair(rec, &r)
				// Some places take no such value (a type error); what matters is that a
				// syntax error is found exactly when encoding/json finds one.
				syntaxBad := !ok && d.sc.bad
				if want == syntaxBad {
					t.Errorf("place %d, %q x %d: json.Valid %v, decoder ok %v (syntax error %v, err %v)", pi, open, depth, want, ok, syntaxBad, d.err)
				}
			}
		}
	}
}
