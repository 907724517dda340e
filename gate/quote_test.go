package gate_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate"
)

// TestHugeValuesInErrors: a value from the input quoted in an error is cut to 200 characters,
// with a note of how many more there were (issue 12: a 10 MB label made a 10 MB annotation).
func TestHugeValuesInErrors(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("x", 10<<20)
	head := strings.Repeat("x", 200)
	more := "… (10485560 more characters)"
	cases := []struct {
		name string
		in   func() gate.Inputs
		want string
	}{
		{"unknown label", func() gate.Inputs {
			return gate.Inputs{Pairs: []string{writeFile(t, dir, "p.jsonl", `{"qid": "a", "scholar": {"label": "`+big+`"}, "auditor": {"label": "VALID"}}`+"\n")}}
		}, `p.jsonl:1:35: field "scholar.label": unknown label "` + head + `"` + more + `: want VALID, NOT_IN_CONTEXT, REJECT or ABSTAIN (exact case)`},
		{"repeated qid", func() gate.Inputs {
			return gate.Inputs{Pairs: []string{writeFile(t, dir, "q.jsonl", strings.Repeat(`{"qid": "`+big+`", "scholar": {"label": "VALID"}, "auditor": {"label": "VALID"}}`+"\n", 2))}}
		}, `q.jsonl:2:1: qid "` + head + `"` + more + ` is repeated: it is first at q.jsonl:1`},
		{"repeated numeric qid", func() gate.Inputs {
			n := "1" + strings.Repeat("0", 10<<20-1)
			return gate.Inputs{Pairs: []string{writeFile(t, dir, "n.jsonl", strings.Repeat(`{"qid": `+n+`, "scholar": {"label": "VALID"}, "auditor": {"label": "VALID"}}`+"\n", 2))}}
		}, `n.jsonl:2:1: qid 1` + strings.Repeat("0", 199) + more + ` is repeated: it is first at n.jsonl:1`},
		{"duplicate trace id", func() gate.Inputs {
			return gate.Inputs{Traces: []string{writeFile(t, dir, "t.jsonl", strings.Repeat(`{"trace_id": "`+big+`", "messages": []}`+"\n", 2))}}
		}, `t.jsonl:2: duplicate trace id "` + head + `"` + more + `: already used at t.jsonl:1; every trace needs its own id`},
		{"trace keys", func() gate.Inputs {
			return gate.Inputs{Traces: []string{writeFile(t, dir, "k.jsonl", `{"`+big+`": 1}`+"\n")}}
		}, `k.jsonl:1:1: expected a message list under "messages", "trajectory", "traj", "history" or "conversations"; found keys: ` + head + more},
		{"duplicate task id", func() gate.Inputs {
			return gate.Inputs{Tasks: []string{writeFile(t, dir, "d.jsonl", strings.Repeat(`{"id": "`+big+`", "intent": "a", "understanding": "a", "action": "a"}`+"\n", 2))}}
		}, `d.jsonl:2: duplicate task id "` + head + `"` + more + `: already used at d.jsonl:1; every task needs its own id`},
		{"task field", func() gate.Inputs {
			return gate.Inputs{Tasks: []string{writeFile(t, dir, "f.jsonl", `{"id": "`+big+`", "intent": 1, "understanding": "a", "action": "a"}`+"\n")}}
		}, `f.jsonl:1:10485782: task "` + head + `"` + more + `: field "intent": expected a string, found a number`},
		{"task keys", func() gate.Inputs {
			return gate.Inputs{Tasks: []string{writeFile(t, dir, "g.jsonl", `{"`+big+`": 1}`+"\n")}}
		}, `g.jsonl:1:1: expected a task ("id" or "task_id", "intent", "understanding", "action") or an RCS harness results file ("model", "average_rcs", "results"), found keys "` + head + `"` + more},
	}
	for _, c := range cases {
		_, err := gate.Run(context.Background(), c.in(), gate.Options{Thresholds: gate.DefaultThresholds()})
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		got := strings.ReplaceAll(err.Error(), dir+"/", "")
		if got != c.want {
			t.Errorf("%s: %d bytes: %.600s\nwant %s", c.name, len(got), got, c.want)
		}
	}
}
