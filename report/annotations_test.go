package report

import (
	"reflect"
	"strings"
	"testing"
)

func TestAnnotations(t *testing.T) {
	r := failingResult()
	got := Annotations(r, 10)
	want := []Annotation{
		{File: "evals/tasks.jsonl", Title: "agentgate: gate coherence-min breached", Message: "Mean coherence (RCS) 0.4342 < 0.50."},
		{Title: "agentgate: gate kappa-min breached", Message: "κ 0.4565 < 0.75."},
		{File: "evals/<script>alert(1)</script>.jsonl", Title: "agentgate: gate max-failed-traces breached", Message: "3 traces failed (max 0)."},
		{File: "evals/<script>alert(1)</script>.jsonl", Line: 9, Title: "agentgate: trace a|b`<img src=x>@octocat next FAIL",
			Message: "Score 0.8125; strongest signal hallucination 1.0000: result for call `x|y` (id <b>z</b>) matches no call; cc @octocat, see #12"},
		{File: "evals/refund.jsonl", Line: 17, Title: "agentgate: trace refund-017 FAIL",
			Message: "Score 0.6925; strongest signal loop 1.0000: `search_orders` called 12 times with identical arguments at messages 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26"},
		{File: "evals/refund.jsonl", Line: 3, Title: "agentgate: trace refund-003 FAIL",
			Message: "Score 0.3325; strongest signal hallucination 0.9500: message 5 says \"I called the refund API\" but no tool call was made; call `issue_refund` (id call_9) has no result"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got:\n%#v\nwant:\n%#v", got, want)
	}
	if got := Annotations(r, 4); !reflect.DeepEqual(got, want[:4]) {
		t.Errorf("max 4: %#v", got)
	}
	if got := Annotations(r, 2); !reflect.DeepEqual(got, want[:2]) {
		t.Errorf("max 2: breached gates come first: %#v", got)
	}
	if got := Annotations(r, 0); got != nil {
		t.Errorf("max 0: %#v", got)
	}
	if got := Annotations(nil, 10); got != nil {
		t.Errorf("nil result: %#v", got)
	}
	if got := Annotations(passingResult(), 10); got != nil {
		t.Errorf("passing run: %#v", got)
	}
	// WARN traces are not annotated.
	if got := Annotations(warnResult(), 10); got != nil {
		t.Errorf("warn run: %#v", got)
	}
	// 20,000 FAIL traces give as many annotations as are asked for, no more.
	if got := Annotations(bigResult(20000), 25); len(got) != 25 {
		t.Errorf("%d annotations, want 25", len(got))
	}
}

// Findings are Annotations' failures in the same order, then the WARN traces as warnings; the
// cap counts them all.
func TestFindings(t *testing.T) {
	r := failingResult()
	got := Findings(r, 100)
	ann := Annotations(r, 100)
	if len(got) != len(ann)+2 {
		t.Fatalf("%d findings, want the %d annotations and the two WARN traces: %#v", len(got), len(ann), got)
	}
	for i, a := range ann {
		if got[i] != (Finding{Annotation: a, Failure: true}) {
			t.Errorf("finding %d: %#v, want the failure %#v", i, got[i], a)
		}
	}
	warns := []Finding{
		{Annotation: Annotation{File: "evals/search.jsonl", Line: 12, Title: "agentgate: trace search-012 WARN",
			Message: "Score 0.4175; strongest signal cost 0.9500: tool_misuse: `web_search` got 4 of 5 calls (80%)"}},
		{Annotation: Annotation{File: "evals/search.jsonl", Line: 44, Title: "agentgate: trace search-044 WARN",
			Message: "Score 0.4175; strongest signal cost 0.9500: 148,000 tokens over 40 messages (3,700 per message)"}},
	}
	if !reflect.DeepEqual(got[len(ann):], warns) {
		t.Errorf("WARN findings %#v\nwant %#v", got[len(ann):], warns)
	}
	if got := Findings(r, 2); !reflect.DeepEqual(got, Findings(r, 100)[:2]) {
		t.Errorf("max 2: %#v", got)
	}
	if got := Findings(warnResult(), 10); len(got) != 1 || got[0].Failure || got[0].Title != "agentgate: trace chat-2 WARN" {
		t.Errorf("warn run: %#v", got)
	}
	if got := Findings(passingResult(), 10); got != nil {
		t.Errorf("passing run: %#v", got)
	}
	if got := Findings(bigResult(20000), 1000); len(got) != 1000 {
		t.Errorf("%d findings, want 1000", len(got))
	}
}

// The headline is the terminal's verdict and sentence on one line.
func TestHeadline(t *testing.T) {
	var b strings.Builder
	if err := Text(&b, failingResult()); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(b.String(), "\n", 3)
	want := plain(strings.TrimPrefix(lines[0], "agentgate: ")+": "+lines[1], MaxCellRunes)
	if got := Headline(failingResult()); got != want || !strings.HasPrefix(got, "FAIL, check failing: 3 gates breached: ") {
		t.Errorf("Headline = %q, want %q", got, want)
	}
	if got := Headline(passingResult()); !strings.HasPrefix(got, "PASS, check passing: ") {
		t.Errorf("Headline(pass) = %q", got)
	}
}
