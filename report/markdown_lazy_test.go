package report

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/olekukonko/tablewriter/tw"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/agreement"
	"github.com/agentgate/agentgate/gate/coherence"
	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/verdict"
)

// cellPool holds text that is narrow, wide, zero-width, combining, escaped or empty.
var cellPool = []string{"a", "b", "x|y", "`c`", "<b>", "@u", "#12", "中文任务", "😀👍🏽", "e\u0301", "", " ", "\n", "\xff", "\u202e",
	"⚠️ WARN", "long long long long long long long long long long long long long long long text"}

// randomResult is a result of random size and content: traces with every verdict, tied and NaN
// scores, duplicate ids and hostile text, sometimes a reliability total of 0 (the table is then
// not shown); tasks; agreement items with disagreements and hard flags; unmatched qids.
func randomResult(rng *rand.Rand) *gate.Result {
	str := func() string {
		if rng.IntN(3) == 0 {
			return fmt.Sprintf("id-%d", rng.IntN(50))
		}
		return cellPool[rng.IntN(len(cellPool))] + cellPool[rng.IntN(len(cellPool))]
	}
	r := &gate.Result{Profile: profile.Default}
	if rng.IntN(5) > 0 {
		rel := &reliability.Summary{}
		for range []int{0, 1, 5, 12, 40, 300, 3000}[rng.IntN(7)] {
			v := []verdict.Verdict{verdict.Pass, verdict.Warn, verdict.Fail, "ODD", ""}[rng.IntN(5)]
			score := float64(rng.IntN(5)) / 4
			if rng.IntN(30) == 0 {
				score = math.NaN()
			}
			t := reliability.Result{ID: str(), File: []string{"", "f.jsonl", "g"}[rng.IntN(3)], Line: rng.IntN(3), Verdict: v, Score: score,
				Signals: reliability.Signals{reliability.Hallucination: float64(rng.IntN(3)) / 2, reliability.Loop: float64(rng.IntN(3)) / 2}}
			for range rng.IntN(3) {
				t.Evidence = append(t.Evidence, reliability.Evidence{Signal: []string{"loop", "hallucination", "cost", "x"}[rng.IntN(4)], Text: str() + " " + str()})
			}
			rel.Add(t)
		}
		if rng.IntN(8) == 0 {
			rel.Total = 0
		}
		r.Reliability = rel
	}
	if rng.IntN(3) > 0 {
		coh := &coherence.Summary{}
		for i := range rng.IntN(30) {
			coh.Tasks = append(coh.Tasks, coherence.TaskResult{ID: str(), File: "t", Line: i, RCS: float64(rng.IntN(10)) / 10, Note: []string{"", "", str()}[rng.IntN(3)]})
		}
		coh.Total = len(coh.Tasks)
		r.Coherence = coh
	}
	if rng.IntN(4) > 0 {
		a := &agreement.Summary{N: rng.IntN(100), PercentAgreement: 0.5, Kappa: 0.3, KappaDefined: rng.IntN(2) == 0, Band: "fair"}
		labels := []string{"VALID", "REJECT", "NOT_IN_CONTEXT", "ABSTAIN", str()}
		var items []agreement.Item
		for range []int{0, 1, 9, 11, 50, 2000, 6000}[rng.IntN(7)] {
			it := agreement.Item{QID: str(), Scholar: labels[rng.IntN(2)], Auditor: labels[rng.IntN(2)], Final: labels[rng.IntN(len(labels))],
				Why: []string{"hard_flag", "auditor_ok", "citation_out_of_scope", str()}[rng.IntN(4)]}
			if rng.IntN(3) == 0 {
				it.Scholar = labels[rng.IntN(len(labels))]
			}
			items = append(items, it)
		}
		a.Items = agreement.ItemsOf(items)
		for range []int{0, 0, 2, 30, 500}[rng.IntN(5)] {
			a.Unmatched = append(a.Unmatched, agreement.Unmatched{QID: str(), OnlyIn: "scholar", File: str(), Line: rng.IntN(4)})
		}
		r.Agreement = a
	}
	r.Decide(gate.DefaultThresholds(), gate.FailOnFail)
	return r
}

// referenceFit is doc.fit as it was before rows were built lazily: every row built first, no
// cap known to be too large without a prediction or a rendering.
func referenceFit(d *doc, limit int) string {
	for _, l := range d.lists() {
		l.first(l.len())
	}
	base := d.render(0)
	if len(base) > limit {
		return d.compact(limit)
	}
	longest := 0
	for _, l := range d.lists() {
		longest = max(longest, l.len())
	}
	if longest == 0 {
		return base
	}
	predict := func(k int) int {
		size := len(base)
		for _, l := range d.lists() {
			size += l.size(min(k, l.len()), d.fullReport) - l.size(0, d.fullReport)
		}
		return size
	}
	k := search(0, longest+1, func(k int) bool { return predict(k) <= limit })
	fits := func(k int) bool { return len(d.render(k)) <= limit }
	switch {
	case !fits(k):
		k = search(0, k, fits)
	case k < longest && fits(k+1):
		k = search(k+1, longest+1, fits)
	}
	return d.render(k)
}

// Building only the rows that can be shown changes no report: random results under random
// limits give what a fit that built every row gives, and unlimited reports hold every row.
func TestMarkdownLazyRowsSameReport(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 43))
	runs := 20
	if testing.Short() {
		runs = 5
	}
	for i := range runs {
		r := randomResult(rng)
		for _, o := range []Options{{}, {MaxBytes: SummaryMaxBytes}, {MaxBytes: 500 + rng.IntN(20000)},
			{MaxBytes: 2000 + rng.IntN(200000), FullReport: "x", LowestTasks: rng.IntN(30)}} {
			got := Markdown(r, o)
			limit := o.MaxBytes
			if limit == 0 {
				limit = CommentMaxBytes
			}
			ref := newDoc(r, o)
			if want := referenceFit(ref, limit); got != want {
				t.Fatalf("result %d, limit %d: the report differs from the one built from every row", i, limit)
			}
		}
		got := Markdown(r, Options{MaxBytes: -1})
		d := newDoc(r, Options{})
		for _, l := range d.lists() {
			l.first(l.len())
		}
		if want := d.render(math.MaxInt); got != want {
			t.Fatalf("result %d: the unlimited report differs from the one rendered from rows built first", i)
		}
	}
}

// A report cut to a limit builds a bounded number of rows, however many the tables have: no
// more per table than the cap at which the rows' floors alone pass the limit.
func TestMarkdownBuildsOnlyRowsThatFit(t *testing.T) {
	r := largeResult(50_000, 10_000, 200_000, 20_000)
	for _, limit := range []int{CommentMaxBytes, SummaryMaxBytes} {
		d := newDoc(r, Options{MaxBytes: limit})
		md := d.fit(limit)
		shown := strings.Count(md, "\n| `run-")
		if d.over > 2*shown+10 {
			t.Errorf("limit %d: rows built up to %d per table for %d shown", limit, d.over, shown)
		}
		for _, l := range d.lists() {
			if len(l.rows) > d.over {
				t.Errorf("limit %d, %s: %d rows of %d built, more than the bound %d", limit, l.noun, len(l.rows), l.len(), d.over)
			}
		}
		if d.traces.len() != 10_000 || d.disagree.len() != 20_000 {
			t.Errorf("tables of %d traces and %d disagreements", d.traces.len(), d.disagree.len())
		}
	}
}

// The lazy trace order is flagged's, ties, NaN scores and unknown verdicts included.
func TestTraceQueueOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		var s reliability.Summary
		for range rng.IntN(300) {
			score := float64(rng.IntN(4)) / 4
			if rng.IntN(10) == 0 {
				score = math.NaN()
			}
			s.Add(reliability.Result{
				ID: fmt.Sprintf("t%d", rng.IntN(5)), File: []string{"", "a", "b"}[rng.IntN(3)], Line: rng.IntN(3), Score: score,
				Verdict: []verdict.Verdict{verdict.Pass, verdict.Warn, verdict.Fail, "ODD", ""}[rng.IntN(5)],
			})
		}
		want := flagged(&s)
		q := newTraceQueue(s.Traces)
		if q.len() != len(want) || countFlagged(s.Traces) != len(want) {
			t.Fatalf("%d queued, %d counted, flagged lists %d", q.len(), countFlagged(s.Traces), len(want))
		}
		for i, w := range want {
			if got := q.pop(); got != w {
				t.Fatalf("trace %d: got %+v, want %+v", i, *got, *w)
			}
		}
	}
}

// Chunked, a long table has the bytes tablewriter writes for it whole, whether its rows are
// kept or built anew.
func TestWriteLongTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	cols := []column{{"trace", tw.AlignLeft}, {"score", tw.AlignRight}, {"evidence", tw.AlignLeft}, {"中", tw.AlignRight}}
	for _, n := range []int{1, chunkRows, chunkRows + 1, 2*chunkRows - 1, 2 * chunkRows, 2*chunkRows + 37} {
		rows := make([][]string, n)
		for i := range rows {
			rows[i] = make([]string, len(cols))
			for c := range cols {
				rows[i][c] = EscapeCell(cellPool[rng.IntN(len(cellPool))] + cellPool[rng.IntN(len(cellPool))])
			}
		}
		if n > 2*chunkRows {
			// The widest cell of a column in the last chunk only.
			rows[n-10][2] = strings.Repeat("w", 300)
		}
		var whole strings.Builder
		writeTable(&whole, cols, rows)
		kept := rowList{cols: cols, rows: rows}
		built := rowList{cols: cols, n: n, open: func() func() []string {
			i := 0
			return func() []string { i++; return rows[i-1] }
		}}
		for _, l := range []*rowList{&kept, &built} {
			var b strings.Builder
			writeLongTable(&b, l, 0, n)
			if b.String() != whole.String() {
				t.Fatalf("%d rows: chunked table differs:\n%s\nwant:\n%s", n, b.String(), whole.String())
			}
		}
		var part, b strings.Builder
		writeTable(&part, cols, rows[n/3:])
		writeLongTable(&b, &built, n/3, n)
		if b.String() != part.String() {
			t.Fatalf("%d rows from %d: chunked table differs", n, n/3)
		}
	}
}
