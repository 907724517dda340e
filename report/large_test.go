package report

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/agreement"
	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/verdict"
	"github.com/agentgate/agentgate/internal/jsonreport"
)

// largeResult is a suite-scale result: traces traces of which failing do not pass (a quarter
// of those FAIL), and items agreement items of which disagree disagree; some items both
// validators labelled alike are rejected by a hard flag. The same arguments give the same
// result.
func largeResult(traces, failing, items, disagree int) *gate.Result {
	rng := rand.New(rand.NewPCG(7, uint64(traces)))
	r := &gate.Result{Profile: profile.Default}
	rel := &reliability.Summary{Traces: make([]reliability.Result, 0, traces)}
	tools := []string{"search_orders", "get_reservation_details", "book_reservation", "web_search"}
	for i := range traces {
		t := reliability.Result{
			ID: fmt.Sprintf("run-%07d", i), File: "evals/suite.jsonl", Line: i + 1,
			Verdict: verdict.Pass, Score: float64(rng.IntN(300)) / 1000,
		}
		if i%(traces/failing) == 0 {
			t.Verdict, t.Score = verdict.Warn, 0.3+float64(rng.IntN(300))/1000
			if rng.IntN(4) == 0 {
				t.Verdict, t.Score = verdict.Fail, 0.5+float64(rng.IntN(40))/100
			}
			t.Signals[reliability.Loop] = t.Score
			t.Evidence = []reliability.Evidence{
				{Signal: "loop", Text: fmt.Sprintf("`%s` called %d times with identical arguments {\"user_id\":\"u_%d\"} at messages 1, 3, 5, 7", tools[rng.IntN(len(tools))], 4+rng.IntN(9), rng.IntN(10000)), Messages: []int{1, 3, 5, 7}},
				{Signal: "cost", Text: fmt.Sprintf("%d tokens over %d messages", 1000+rng.IntN(90000), 5+rng.IntN(40))},
			}
		}
		rel.Add(t)
	}
	r.Reliability = rel
	agr := &agreement.Summary{N: items, PercentAgreement: 1 - float64(disagree)/float64(items), Kappa: 0.5, KappaDefined: true, Band: "moderate"}
	list := make([]agreement.Item, items)
	for i := range list {
		it := agreement.Item{QID: fmt.Sprintf("q-%07d", i), Scholar: "VALID", Auditor: "VALID", Final: "VALID", Why: "auditor_ok"}
		switch {
		case i%(items/disagree) == 0:
			it.Auditor, it.Final, it.Why = "REJECT", "REJECT", "auditor_veto"
		case i%997 == 1:
			it.Final, it.Why = "REJECT", "hard_flag"
		}
		list[i] = it
	}
	agr.Items = agreement.ItemsOf(list)
	r.Agreement = agr
	r.Decide(gate.DefaultThresholds(), gate.FailOnFail)
	return r
}

// 200,000 traces (40,000 not PASS) and 1,000,000 agreement items (100,000 disagreements), for
// the comment, the job summary and the unlimited --markdown file.
func BenchmarkMarkdownLarge(b *testing.B) {
	r := largeResult(200_000, 40_000, 1_000_000, 100_000)
	for _, c := range []struct {
		name  string
		limit int
	}{{"comment", CommentMaxBytes}, {"summary", SummaryMaxBytes}, {"unlimited", -1}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				n = len(Markdown(r, Options{MaxBytes: c.limit}))
			}
			b.ReportMetric(float64(n), "bytes/report")
		})
	}
}

// The JSON report of 200,000 agreement items (and 100 traces).
func BenchmarkJSONItems(b *testing.B) {
	const n = 200_000
	r := largeResult(100, 10, n, n/10)
	var buf bytes.Buffer
	if err := jsonreport.Write(&buf, r); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	loops := 0
	for b.Loop() {
		if err := jsonreport.Write(io.Discard, r); err != nil {
			b.Fatal(err)
		}
		loops++
	}
	b.ReportMetric(float64(n*loops)/b.Elapsed().Seconds(), "items/s")
}
