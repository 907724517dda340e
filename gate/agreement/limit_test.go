package agreement

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/profile"
)

// TestTooManyIDs (issue 34, finding 3): a record's retrieved_ids and answer_json.citations hold
// at most maxIDs ids each; the one past it is an error at its place. On main a 32 MB record
// of "" ids took 850 MB.
func TestTooManyIDs(t *testing.T) {
	old := maxIDs
	maxIDs = 10
	t.Cleanup(func() { maxIDs = old })
	ids := func(n int) string { return strings.TrimSuffix(strings.Repeat(`"p",`, n), ",") }
	head := `{"qid": "a", ` + vv + `, "retrieved_ids": [`
	for _, c := range []struct{ name, text, want string }{
		{"10 ids", head + ids(10) + "]}\n", ""},
		// the 11th id starts after the head and ten ids of four bytes
		{"11 retrieved ids", head + ids(11) + "]}\n", fmt.Sprintf(`f0.jsonl:1:%d: field "retrieved_ids[10]": more than 10 ids, the most a list of one record may hold`, len(head)+40+1)},
		{"11 citations", `{"qid": "a", ` + vv + `, "answer_json": {"citations": [` + ids(11) + "]}}\n",
			fmt.Sprintf(`f0.jsonl:1:%d: field "answer_json.citations[10]": more than 10 ids, the most a list of one record may hold`, len(`{"qid": "a", `+vv+`, "answer_json": {"citations": [`)+40+1)},
	} {
		paths := writeFiles(t, c.text)
		_, err := LoadMerged(paths, profile.Default)
		got := ""
		if err != nil {
			got = relErr(t, err, paths)
		}
		if got != c.want {
			t.Errorf("%s:\n got  %s\n want %s", c.name, got, c.want)
		}
	}
}
