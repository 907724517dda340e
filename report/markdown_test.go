package report

import (
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/agreement"
	"github.com/agentgate/agentgate/gate/coherence"
	"github.com/agentgate/agentgate/gate/reliability"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report/ -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test ./report/ -update rewrites it); got:\n%s", name, got)
	}
}

// cells splits a markdown table line into its cells at the pipes a backslash does not escape.
func cells(line string) []string {
	var out []string
	start, bs := 0, 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			bs++
			continue
		case '|':
			if bs%2 == 0 {
				out = append(out, line[start:i])
				start = i + 1
			}
		}
		bs = 0
	}
	out = append(out, line[start:])
	if len(out) < 2 {
		return out
	}
	// A row starts and ends with a pipe: drop the empty outsides.
	return out[1 : len(out)-1]
}

var sepCell = regexp.MustCompile(`^ *:?-+:? *$`)

// checkStructure asserts that md is well-formed: every table has a header, a separator and
// rows with as many cells as the header, is preceded and followed by a blank line; <details>
// blocks are closed, not nested, and have a blank line after the summary; no line holds raw
// HTML other than details and summary outside fenced code.
func checkStructure(t *testing.T, md string) {
	t.Helper()
	lines := strings.Split(md, "\n")
	if lines[len(lines)-1] != "" {
		t.Errorf("report does not end with a newline")
	}
	cols, open, fence := 0, false, ""
	for i, l := range lines {
		if fence != "" {
			if l == fence {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(l, "```") {
			fence = strings.TrimRight(l, "abcdefghijklmnopqrstuvwxyz")
			continue
		}
		if strings.HasPrefix(l, "|") {
			if !strings.HasSuffix(l, "|") {
				t.Errorf("line %d: table row does not end with a pipe: %q", i+1, l)
			}
			c := cells(l)
			if cols == 0 {
				if i > 0 && lines[i-1] != "" {
					t.Errorf("line %d: table does not follow a blank line", i+1)
				}
				cols = len(c)
				if i+1 >= len(lines) {
					t.Fatalf("line %d: table without separator", i+1)
				}
				for _, s := range cells(lines[i+1]) {
					if !sepCell.MatchString(s) {
						t.Errorf("line %d: bad separator %q", i+2, lines[i+1])
					}
				}
			}
			if len(c) != cols {
				t.Errorf("line %d: %d cells, header has %d: %q", i+1, len(c), cols, l)
			}
			continue
		}
		if cols > 0 && l != "" {
			t.Errorf("line %d: table not followed by a blank line: %q", i+1, l)
		}
		cols = 0
		switch {
		case strings.HasPrefix(l, "<details>"):
			if open {
				t.Errorf("line %d: nested <details>", i+1)
			}
			open = true
			if !strings.HasSuffix(l, "</summary>") || i+1 >= len(lines) || lines[i+1] != "" {
				t.Errorf("line %d: <details> needs a summary and a blank line after it: %q", i+1, l)
			}
		case l == "</details>":
			if !open {
				t.Errorf("line %d: </details> without <details>", i+1)
			}
			open = false
		default:
			rest := strings.NewReplacer("<details>", "", "</details>", "", "<summary>", "", "</summary>", "").Replace(outsideCodeSpans(l))
			if regexp.MustCompile(`<[a-zA-Z/!?]`).MatchString(rest) {
				t.Errorf("line %d: raw HTML: %q", i+1, l)
			}
		}
	}
	if open {
		t.Errorf("<details> not closed")
	}
}

func TestMarkdownGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		r    *gate.Result
		o    Options
	}{
		{"pass.md", passingResult(), Options{Reproduce: "agentgate gate --traces 'evals/*.jsonl' --tasks evals/tasks.jsonl --pairs evals/pairs.jsonl --profile default"}},
		{"fail.md", failingResult(), Options{Reproduce: "agentgate gate --traces 'evals/*.jsonl' --tasks evals/tasks.jsonl --scholar evals/scholar.jsonl --auditor evals/auditor.jsonl --profile default"}},
		{"warn.md", warnResult(), Options{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Markdown(c.r, c.o)
			checkStructure(t, got)
			golden(t, c.name, got)
			if again := Markdown(c.r, c.o); again != got {
				t.Errorf("second rendering differs")
			}
		})
	}
}

// The reason for red must be in the first two lines.
func TestMarkdownFirstTwoLines(t *testing.T) {
	lines := strings.SplitN(Markdown(failingResult(), Options{}), "\n", 3)
	want0 := "## ❌ agentgate: FAIL, check failing"
	want1 := "3 gates breached: mean coherence (RCS) 0.4342 < 0.50; κ 0.4565 < 0.75; 3 traces failed (max 0)."
	if lines[0] != want0 || lines[1] != want1 {
		t.Errorf("first two lines:\n%s\n%s\nwant:\n%s\n%s", lines[0], lines[1], want0, want1)
	}

	lines = strings.SplitN(Markdown(warnResult(), Options{}), "\n", 3)
	want0 = "## ⚠️ agentgate: WARN, check failing"
	want1 = "All 4 gates hold (kappa-min skipped), but 1 of 4 traces needs a look: 1 WARN. The check fails because fail-on is warn."
	if lines[0] != want0 || lines[1] != want1 {
		t.Errorf("first two lines:\n%s\n%s\nwant:\n%s\n%s", lines[0], lines[1], want0, want1)
	}

	lines = strings.SplitN(Markdown(passingResult(), Options{}), "\n", 3)
	want0 = "## ✅ agentgate: PASS, check passing"
	want1 = "All 5 gates hold; all 40 traces pass."
	if lines[0] != want0 || lines[1] != want1 {
		t.Errorf("first two lines:\n%s\n%s\nwant:\n%s\n%s", lines[0], lines[1], want0, want1)
	}
}

// A value that rounds onto its threshold is printed with the digits that show it misses.
func TestMarkdownValueNeverRoundsOntoThreshold(t *testing.T) {
	r := passingResult()
	r.Agreement.Kappa = 0.74996
	r.Decide(gate.DefaultThresholds(), gate.FailOnFail)
	md := Markdown(r, Options{})
	if !strings.Contains(md, "\nκ 0.74996 < 0.75: kappa-min breached.\n") {
		t.Errorf("sentence does not show κ 0.74996 < 0.75:\n%s", md)
	}
	if !strings.Contains(md, "| kappa-min         | 0.74996 | ≥ 0.75    | ❌ **breached** |") {
		t.Errorf("gate row does not show 0.74996:\n%s", md)
	}
}

// rowCells returns the trimmed cells of the first table row in md whose first cell is first,
// or first in a code span.
func rowCells(md, first string) []string {
	for _, l := range strings.Split(md, "\n") {
		if !strings.HasPrefix(l, "|") {
			continue
		}
		c := cells(l)
		for i := range c {
			c[i] = strings.TrimSpace(c[i])
		}
		if len(c) > 0 && (c[0] == first || c[0] == CodeCell(first)) { // an id in its code span
			return c
		}
	}
	return nil
}

// Untrusted text is escaped in every table it reaches, and no table gains a row.
func TestMarkdownEscapesUntrustedText(t *testing.T) {
	md := Markdown(failingResult(), Options{})
	checkStructure(t, md)
	// The id is whole in its code span: "a|b`<img src=x>@octocat" and "next" on one line.
	got := rowCells(md, "``a\\|b`<img src=x>@octocat next``")
	want := []string{
		"``a\\|b`<img src=x>@octocat next``",
		"evals/&lt;script&gt;alert(1)&lt;/script&gt;.jsonl:9",
		"❌\u00a0FAIL", "0.8125", "hallucination 1.0000",
		// The evaluator's backticks make a code span, which shows its text as it is.
		"result for call `x\\|y` (id &lt;b&gt;z&lt;/b&gt;) matches no call; cc @\u200boctocat, see #\u200b12",
	}
	if !slices.Equal(got, want) {
		t.Errorf("hostile trace row:\n got %q\nwant %q", got, want)
	}
	if id := codeContent(got[0], true); id != "a|b`<img src=x>@octocat next" {
		t.Errorf("the id reads %q", id)
	}
	for _, bad := range []string{"<img", "<script", "<b>", "@octocat", "\nnext"} {
		if strings.Contains(outsideCodeSpans(md), bad) {
			t.Errorf("report holds unescaped %q", bad)
		}
	}
}

// When the strongest signal has no evidence, the evidence shown says which signal it is for.
func TestMarkdownEvidenceNamesItsSignal(t *testing.T) {
	md := Markdown(failingResult(), Options{})
	got := rowCells(md, "search-012")
	if len(got) != 6 || got[4] != "cost 0.9500" || got[5] != "tool_misuse: `web_search` got 4 of 5 calls (80%)" {
		t.Errorf("search-012 row: %q", got)
	}
	got = rowCells(md, "refund-017")
	if len(got) != 6 || got[4] != "loop 1.0000" || !strings.HasSuffix(got[5], " 24, 26 (+2 more findings)") {
		t.Errorf("refund-017 row: %q", got)
	}
}

// Trace order: FAIL first, then score descending, then id; the input order does not matter.
func TestMarkdownTraceOrder(t *testing.T) {
	r := failingResult()
	want := Markdown(r, Options{})
	ids := []string{"| a\\|b", "| refund-017", "| refund-003", "| search-012", "| search-044"}
	last := -1
	for _, id := range ids {
		i := strings.Index(want, id)
		if i < last {
			t.Errorf("%s is out of order", id)
		}
		last = i
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5 {
		rng.Shuffle(len(r.Reliability.Traces), func(i, j int) {
			r.Reliability.Traces[i], r.Reliability.Traces[j] = r.Reliability.Traces[j], r.Reliability.Traces[i]
		})
		rng.Shuffle(len(r.Coherence.Tasks), func(i, j int) {
			r.Coherence.Tasks[i], r.Coherence.Tasks[j] = r.Coherence.Tasks[j], r.Coherence.Tasks[i]
		})
		if got := Markdown(r, Options{}); got != want {
			t.Fatalf("input order changed the report")
		}
	}
}

// Twelve tasks, the ten lowest listed; more than ten rows collapse after the tenth.
func TestMarkdownCollapsesLongTables(t *testing.T) {
	r := failingResult()
	md := Markdown(r, Options{LowestTasks: 12})
	if !strings.Contains(md, "Tasks, lowest first:") || !strings.Contains(md, "<details><summary>2 more lowest-coherence tasks</summary>") {
		t.Errorf("12 tasks do not collapse after 10:\n%s", md)
	}
	md = Markdown(r, Options{})
	if !strings.Contains(md, "The 10 lowest of 12 tasks:") || strings.Contains(md, "lowest-coherence tasks</summary>") {
		t.Errorf("default lists the 10 lowest, open:\n%s", md)
	}
}

func TestMarkdownNil(t *testing.T) {
	if got := Markdown(nil, Options{}); !strings.HasPrefix(got, "## ❔ agentgate: no result\n") {
		t.Errorf("Markdown(nil) = %q", got)
	}
}

// 20,000 traces: the comment stays under its limit, the tables stay valid, the cut is at a
// row boundary with a note saying how many rows are missing.
func TestMarkdownCut(t *testing.T) {
	r := bigResult(20000)
	for _, c := range []struct {
		name  string
		limit int
	}{{"comment", CommentMaxBytes}, {"summary", SummaryMaxBytes}} {
		t.Run(c.name, func(t *testing.T) {
			md := Markdown(r, Options{MaxBytes: c.limit, FullReport: "the job summary or the JSON report"})
			if len(md) > c.limit {
				t.Fatalf("%d bytes, limit %d", len(md), c.limit)
			}
			if len(md) < c.limit*9/10 {
				t.Errorf("%d bytes: the cut wastes more than 10%% of the %d allowed", len(md), c.limit)
			}
			checkStructure(t, md)
			if !strings.HasPrefix(md, "## ❌ agentgate: FAIL, check failing\n3 gates breached: percent agreement 0.5000 < 0.90; κ 0.1000 < 0.75; 6,667 traces failed (max 0).\n") {
				t.Errorf("head: %q", md[:200])
			}
			shownTraces := strings.Count(md, "| `suite/run-")
			shownItems := strings.Count(md, "| `q-")
			note := regexp.MustCompile(`\n… ([0-9,]+) more non-PASS traces not shown: see the job summary or the JSON report\.\n`).FindStringSubmatch(md)
			if note == nil {
				t.Fatalf("no cut note for traces")
			}
			if want := count(20000 - shownTraces); note[1] != want {
				t.Errorf("note says %s more traces, want %s", note[1], want)
			}
			if !strings.Contains(md, "\n… "+count(5000-shownItems)+" more disagreements not shown: see the job summary or the JSON report.\n") {
				t.Errorf("no cut note for disagreements (%d shown)", shownItems)
			}
			// The largest cap that fits: one more row per table would not.
			if more := Markdown(r, Options{MaxBytes: len(md) + 1, FullReport: "the job summary or the JSON report"}); more != md {
				t.Errorf("a limit one byte larger changes the report: the cut was not the largest")
			}
			if shownTraces != shownItems {
				t.Errorf("traces and disagreements share the room unevenly: %d and %d rows", shownTraces, shownItems)
			}
			// The cut keeps the first rows in order and ends with the footer.
			if !strings.Contains(md, "| `suite/run-00249\\|trial-1` | evals/big.jsonl:250") {
				t.Errorf("the highest-scoring FAIL trace is not listed first")
			}
			if !strings.HasSuffix(md, "--profile default\n```\n") {
				t.Errorf("footer missing: %q", md[len(md)-200:])
			}
		})
	}
}

// A limit too small for anything but the head keeps the verdict, the sentence and the gates.
func TestMarkdownTinyLimit(t *testing.T) {
	r := failingResult()
	md := Markdown(r, Options{MaxBytes: 1500})
	if len(md) > 1500 {
		t.Fatalf("%d bytes", len(md))
	}
	checkStructure(t, md)
	if !strings.Contains(md, "| max-failed-traces") || !strings.HasSuffix(md, "The rest of the report does not fit here: see the JSON report (`agentgate gate --json FILE`).\n") {
		t.Errorf("compact report:\n%s", md)
	}
	md = Markdown(r, Options{MaxBytes: 60})
	if len(md) > 60 || md != "## ❌ agentgate: FAIL, check failing\n" {
		t.Errorf("60-byte report: %q", md)
	}
}

// A negative MaxBytes means no limit.
func TestMarkdownUnlimited(t *testing.T) {
	md := Markdown(bigResult(300), Options{MaxBytes: -1})
	if strings.Contains(md, "not shown") || strings.Count(md, "| `suite/run-") != 300 {
		t.Errorf("unlimited report cut rows")
	}
	checkStructure(t, md)
}

func BenchmarkMarkdownCut(b *testing.B) {
	r := bigResult(20000)
	for _, limit := range []int{CommentMaxBytes, SummaryMaxBytes} {
		b.Run(count(limit), func(b *testing.B) {
			for b.Loop() {
				Markdown(r, Options{MaxBytes: limit})
			}
		})
	}
}

// Degenerate results render without panicking and stay well-formed.
func TestMarkdownDegenerate(t *testing.T) {
	empty := &gate.Result{Reliability: &reliability.Summary{}, Coherence: &coherence.Summary{}, Agreement: &agreement.Summary{}}
	empty.Decide(gate.DefaultThresholds(), gate.FailOnFail)
	nan := failingResult()
	nan.Reliability.Traces[0].Score = math.NaN()
	nan.Coherence.Tasks[0].RCS = math.NaN()
	nan.Gates[0].Value = math.Inf(-1)
	odd := &gate.Result{Verdict: "MAYBE<b>", Gates: []gate.GateResult{{Name: "x|y", Op: "??", Value: 1, Threshold: 2}}}
	for name, r := range map[string]*gate.Result{"empty": empty, "no sections": {}, "nan": nan, "odd": odd} {
		t.Run(name, func(t *testing.T) {
			for _, limit := range []int{0, -1, 500} {
				md := Markdown(r, Options{MaxBytes: limit})
				checkStructure(t, md)
				if limit > 0 && len(md) > limit {
					t.Errorf("%d bytes over %d", len(md), limit)
				}
			}
			var b strings.Builder
			if err := Text(&b, r); err != nil {
				t.Error(err)
			}
			Annotations(r, 10)
		})
	}
	if md := Markdown(empty, Options{}); !strings.Contains(md, "### ✅ Reliability (RS-1): no traces\n") || !strings.Contains(md, "### ❌ Coherence (RCS): mean 0.0000 over 0 tasks\n") ||
		!strings.Contains(md, "| Cohen's κ                         | undefined (no item was labelled by both validators) |") {
		t.Errorf("empty sections:\n%s", md)
	}
	if md := Markdown(odd, Options{}); !strings.HasPrefix(md, "## ❔ agentgate: MAYBE&lt;b&gt;, check passing, with warnings\n1 gate breached: x\\|y 1.0000 vs 2.00.\n") {
		t.Errorf("odd result:\n%s", md)
	}
}
