package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/compare"
)

// Each kind of plan line, as the report words it; the figures are the Plan's (checked against
// scipy in gate/compare).
func TestPlanLine(t *testing.T) {
	for _, c := range []struct {
		metric string
		p      *compare.Plan
		want   string
	}{
		{"success", compare.PlanMcNemar(100, 45, 0.1, 0.025),
			"success: to detect a 10-point drop at this run's discordance (45 of 100 differed): 426 matched runs for 80% power at Holm threshold 0.0250; you have 100 (power 22%) (McNemar, Connor 1987)"},
		{"reliability", compare.PlanMcNemar(100, 0, 0.1, 0.05),
			"reliability: to detect a 10-point drop at this run's discordance (none of 100 differed; taken as 10%, the fewest a 10-point drop changes): 77 matched traces for 80% power at Holm threshold 0.0500; you have 100 (power 90%) (McNemar, Connor 1987)"},
		{"success", compare.PlanMcNemar(1000, 30, 0.05, 0.05),
			"success: to detect a 5-point drop at this run's discordance (30 of 1,000 differed, fewer than a 5-point drop changes; taken as 5%): 155 matched runs for 80% power at Holm threshold 0.0500; you have 1,000 (power > 99.9%) (McNemar, Connor 1987)"}, // scipy: 155, power 0.99999992, not 100%
		{"success", compare.PlanMcNemar(20, 10, 1e-9, 0.05),
			"success: to detect a 0-point drop at this run's discordance (10 of 20 differed): more than 1,073,741,824 matched runs for 80% power at Holm threshold 0.0500; you have 20 (power 3%) (McNemar, Connor 1987)"},
		{"success", nil, ""},
	} {
		if got := planLine(c.metric, &compare.Test{Plan: c.p, InFamily: true}); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}

// A metric too small to be tested is planned at α/m, and its line says so.
func TestPlanLineInconclusive(t *testing.T) {
	got := planLine("success", &compare.Test{Plan: compare.PlanMcNemar(3, 3, 0.1, 0.05)})
	want := "success: to detect a 10-point drop at this run's discordance (3 of 3 differed): 783 matched runs for 80% power at threshold 0.0500, the strictest Holm could hold it to (too few matched to test now); you have 3 (power 4%) (McNemar, Connor 1987)"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// rate returns a pointer to v.
func rate(v float64) *float64 { return &v }

// mermaid's xychart grammar (packages/mermaid/src/diagrams/xychart/parser/xychart.jison at
// mermaid-js/mermaid df032c94): the statements the chart may hold, one a line. The charts of
// TestTrendChart were also parsed once with that grammar itself (jison 0.4.18, node 20), which
// handed the diagram exactly these titles, labels, the range 0 to 100 and these values; a
// label holding `"` does not parse, which is why labels are built from hex digits and fixed
// words only. A string is
// `"` [^"]* `"`; a number is NUMBER_WITH_DECIMAL, [+-]?(\d+(\.\d+)?|\.\d+). The labels are
// held tighter than the grammar: hex digits, or the fixed words.
var (
	xyNumber = `[+-]?(?:\d+(?:\.\d+)?|\.\d+)`
	xyLabel  = `"(?:[0-9a-f]{7}|this change|run \d+)"`
	xyLines  = []*regexp.Regexp{
		regexp.MustCompile("^```mermaid$"),
		// The fixed init directive: the line's colour, readable on both of GitHub's themes.
		regexp.MustCompile(`^%%\{init: \{"xyChart": \{"height": 260\}, "themeVariables": \{"xyChart": \{"plotColorPalette": "#0969da"\}\}\}\}%%$`),
		regexp.MustCompile(`^xychart-beta$`),
		regexp.MustCompile(`^    title "(?:Success rate|Runs not FAIL), last \d+ runs \(%\)"$`),
		regexp.MustCompile(`^    x-axis \[` + xyLabel + `(?:, ` + xyLabel + `)*\]$`),
		regexp.MustCompile(`^    y-axis "(?:success rate|runs not FAIL) \(%\)" 0 --> 100$`),
		regexp.MustCompile(`^    line \[` + xyNumber + `(?:, ` + xyNumber + `)*\]$`),
		regexp.MustCompile("^```$"),
	}
)

// checkChart holds a chart to the grammar, with as many labels as values, each value 0 to 100.
func checkChart(t *testing.T, chart string) (labels, values []string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(chart, "\n"), "\n")
	if len(lines) != len(xyLines) {
		t.Fatalf("chart has %d lines, want %d:\n%s", len(lines), len(xyLines), chart)
	}
	for i, re := range xyLines {
		if !re.MatchString(lines[i]) {
			t.Errorf("chart line %d %q does not match %s", i+1, lines[i], re)
		}
	}
	labels = regexp.MustCompile(`"[^"]*"`).FindAllString(strings.TrimPrefix(lines[4], "    x-axis "), -1)
	values = regexp.MustCompile(xyNumber).FindAllString(strings.TrimPrefix(lines[6], "    line "), -1)
	if len(labels) != len(values) {
		t.Errorf("%d labels, %d values", len(labels), len(values))
	}
	return labels, values
}

// The trend as the PR comment and the terminal show it: success rate where two points have
// one, the labels from the commits' hex digits, the last "this change"; values as percentages.
func TestTrendChart(t *testing.T) {
	h := []compare.Point{
		{SHA: "0123456789abcdef0123456789abcdef01234567", Runs: 8, Fail: 1, Known: 8, SuccessRate: rate(0.625)},
		{SHA: "", Runs: 8, Fail: 0}, // no outcome: not drawn
		{SHA: "fedcba9876543210fedcba9876543210fedcba98", Runs: 8, Fail: 2, Known: 8, SuccessRate: rate(0.75)},
		{SHA: "aaaaaaa", Runs: 8, Known: 8, SuccessRate: rate(1.0 / 3)},
		{SHA: "bbbbbbbbbbbb", Runs: 8, Known: 8, SuccessRate: rate(1)},
	}
	s, ok := series(h)
	if !ok {
		t.Fatal("no series")
	}
	chart := mermaidChart(s)
	want := "```mermaid\n" + `%%{init: {"xyChart": {"height": 260}, "themeVariables": {"xyChart": {"plotColorPalette": "#0969da"}}}}%%` + "\nxychart-beta\n" +
		"    title \"Success rate, last 4 runs (%)\"\n" +
		"    x-axis [\"0123456\", \"fedcba9\", \"aaaaaaa\", \"this change\"]\n" +
		"    y-axis \"success rate (%)\" 0 --> 100\n" +
		"    line [62.5, 75, 33.3, 100]\n```\n"
	if chart != want {
		t.Errorf("chart:\n%s\nwant:\n%s", chart, want)
	}
	checkChart(t, chart)
	if got := sparkline(s.values); got != "▅▆▃█" {
		t.Errorf("sparkline %q", got)
	}
	if got := sparkline([]float64{0, 0.5, 1, -1, 2}); got != "▁▅█▁█" {
		t.Errorf("sparkline of the extremes %q", got)
	}
	// Without three success rates, the share of traces not FAIL; points without traces are
	// left out.
	s, ok = series([]compare.Point{{SHA: "", Runs: 4, Fail: 1}, {Runs: 0}, {Runs: 2, Fail: 1, SuccessRate: rate(1)}, {SHA: "1234567", Runs: 5, Fail: 0, SuccessRate: rate(0.2)}})
	if !ok || s.what != "runs not FAIL" || strings.Join(s.labels, "|") != "run 1|run 3|this change" || len(s.values) != 3 || s.values[0] != 0.75 || s.values[1] != 0.5 || s.values[2] != 1 {
		t.Errorf("fallback series %+v", s)
	}
	checkChart(t, mermaidChart(s))
	// One point, two (the baseline and this change: the comparison's table says them), or none
	// with anything to draw: no chart, and nothing said.
	for _, h := range [][]compare.Point{nil, {{Runs: 3}}, {{Runs: 0}, {Runs: 0}},
		{{SHA: "1234567", Runs: 5, SuccessRate: rate(0.7)}, {Runs: 5, SuccessRate: rate(0.7)}}} {
		r := &gate.Result{History: h}
		if _, ok := series(h); ok {
			t.Errorf("series of %+v", h)
		}
		md := Markdown(r, Options{})
		var text bytes.Buffer
		if err := Text(&text, r); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(md, "Trend") || strings.Contains(md, "mermaid") || strings.Contains(text.String(), "Trend") {
			t.Errorf("a trend of %d points drawn:\n%s\n%s", len(h), md, text.String())
		}
	}
}

// Nothing a history carries reaches the chart: shas, refs and task names that try to close
// the code block, start a statement, forge a workflow command or mention someone are never
// written into it; task names reach the flaky line escaped as every id is (EscapeCell).
func TestTrendHostile(t *testing.T) {
	hostile := []string{"\"]\n```\n@octocat <img src=x>", "::error::x", "##[error]x", "0123456\"", "abcdefg", "`x`", "%%{init: {}}%%"}
	var h []compare.Point
	for i, s := range hostile {
		h = append(h, compare.Point{SHA: s, Ref: s, Runs: 4, Known: 4, SuccessRate: rate(float64(i) / 10), TrialTasks: 2, Flaky: 1, FlakyTasks: []string{s}})
	}
	h = append(h, h...)
	r := &gate.Result{History: h}
	md := Markdown(r, Options{})
	start := strings.Index(md, "```mermaid")
	end := strings.Index(md[start+3:], "```") + start + 3
	if start < 0 || end < start {
		t.Fatalf("no chart:\n%s", md)
	}
	labels, values := checkChart(t, md[start:end+4])
	if len(labels) != 14 || len(values) != 14 || labels[0] != `"run 1"` || labels[13] != `"this change"` {
		t.Errorf("labels %v values %v", labels, values)
	}
	for _, s := range hostile {
		if strings.Contains(md[start:end+4], s) {
			t.Errorf("%q reached the chart", s)
		}
	}
	// Task names are code spans (GitHub renders no mention or HTML in one); nothing outside.
	for _, s := range []string{"@octocat", "<img"} {
		if strings.Contains(outsideCodeSpans(md), s) {
			t.Errorf("%q reached the markdown", s)
		}
	}
	for _, s := range []string{"##[", "\n```\n@"} {
		if strings.Contains(md, s) {
			t.Errorf("%q reached the markdown", s)
		}
	}
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "```") && line != "```mermaid" && line != "```" && line != "```sh" {
			t.Errorf("a code fence %q: the block was broken:\n%s", line, md)
		}
	}
	if !strings.Contains(md, "7 tasks whose trials disagreed in two or more of the history's runs") {
		t.Errorf("flaky line missing:\n%s", md)
	}
	var text bytes.Buffer
	if err := Text(&text, r); err != nil {
		t.Fatal(err)
	}
	// The terminal's text is one line per item (workflow commands are the guard's, under
	// Actions: entrypoint's guardStream).
	for _, line := range strings.Split(text.String(), "\n") {
		if strings.HasPrefix(line, "::") || strings.ContainsAny(line, "\x1b\r") {
			t.Errorf("terminal line %q", line)
		}
	}
}

// The tasks flaky over a history, most often first, named with how often; a task flaky in one
// run only is not.
func TestFlakyOverLine(t *testing.T) {
	h := []compare.Point{
		{TrialTasks: 3, Flaky: 2, FlakyTasks: []string{"a", "b"}},
		{TrialTasks: 3, Flaky: 1, FlakyTasks: []string{"b"}},
		{TrialTasks: 0},
		{TrialTasks: 3, Flaky: 3, FlakyTasks: []string{"a", "b", "c"}},
	}
	want := "2 tasks whose trials disagreed in two or more of the history's runs, in 3 of 3 runs: b; in 2 of 3 runs: a"
	if got := flakyOverLine(h, func(s string) string { return s }); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got := flakyOverLine(h[1:3], func(s string) string { return s }); got != "" {
		t.Errorf("one run flaky: %q", got)
	}
}
