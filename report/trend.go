package report

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/compare"
)

// This file renders what SPEC §21 adds: each planned metric's line (how many matched runs
// would detect the plan effect), the history's trend (a mermaid chart in markdown, a
// sparkline in the terminal) and the tasks flaky over the history.
//
// With fewer than two points to draw, no chart and no sparkline is written, and nothing is
// said: a first run has no trend, and the next run on its branch draws one.

// maxFlakyHistory is how many tasks flaky over the history the reports name.
const maxFlakyHistory = 10

// effectPoints writes a plan effect as points of success rate: 0.1 → "10", 0.125 → "12.5".
func effectPoints(e float64) string {
	return strconv.FormatFloat(math.Round(e*1e6)/1e4, 'f', -1, 64)
}

// percent writes a share as a whole percentage, "45%", or with one decimal under 1%.
func percent(v float64) string {
	if v > 0 && v < 0.01 {
		return strconv.FormatFloat(100*v, 'f', 1, 64) + "%"
	}
	return strconv.FormatFloat(math.Round(100*v), 'f', 0, 64) + "%"
}

// planLine says in one line how many matched runs a metric's McNemar test would need to
// detect the plan effect (SPEC §21); "" when it has no plan. unit names the runs ("matched
// runs", "matched traces").
func planLine(metric string, t *compare.Test) string {
	p := t.Plan
	if p == nil {
		return ""
	}
	unit := "matched runs"
	if metric == compare.MetricReliability {
		unit = "matched traces"
	}
	var disc string
	differ := int(math.Round(p.Discordance * float64(p.Matched)))
	switch {
	case p.Assumed == p.Discordance:
		disc = fmt.Sprintf("%s of %s differed", count(differ), count(p.Matched))
	case differ == 0:
		disc = fmt.Sprintf("none of %s differed; taken as %s, the fewest a %s-point drop changes", count(p.Matched), percent(p.Assumed), effectPoints(p.Effect))
	default:
		disc = fmt.Sprintf("%s of %s differed, fewer than a %s-point drop changes; taken as %s", count(differ), count(p.Matched), effectPoints(p.Effect), percent(p.Assumed))
	}
	need := count(p.RunsNeeded)
	if p.RunsNeeded >= compare.MaxRunsNeeded {
		need = "more than " + need
	}
	th := "Holm threshold " + probability(p.Threshold)
	if !t.InFamily {
		th = "threshold " + probability(p.Threshold) + ", the strictest Holm could hold it to (too few matched to test now)"
	}
	return fmt.Sprintf("%s: to detect a %s-point drop at this run's discordance (%s): %s %s for %s power at %s; you have %s (power %s) (McNemar, Connor 1987)",
		metric, effectPoints(p.Effect), disc, need, unit, percent(p.Power), th, count(p.Matched), percent(p.PowerNow))
}

// planLines returns the plan line of each planned metric, in table order.
func planLines(c *compare.Comparison) []string {
	var out []string
	for _, m := range c.Metrics() {
		if l := planLine(m.Name, m.Test); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// trendSeries is what the trend draws: a share (0 to 1) for each of the points that have it,
// with the point's label, and what the share is.
type trendSeries struct {
	what   string // "success rate" or "runs not FAIL"
	labels []string
	values []float64
}

// series picks what a history's trend draws: the success rate where at least two points have
// one, else the share of traces not FAIL where at least two points have traces; ok is false
// when neither has two points. Labels are built only from a commit's hex digits and fixed
// words, never from text a report carries: "abc1234", the last point "this change", a point
// without a commit "run 3" (its place in the history).
func series(h []compare.Point) (s trendSeries, ok bool) {
	label := func(i int) string {
		if i == len(h)-1 {
			return "this change"
		}
		if sha := h[i].SHA; compare.IsCommit(sha) {
			return sha[:7]
		}
		return "run " + strconv.Itoa(i+1)
	}
	rated := 0
	for _, p := range h {
		if p.SuccessRate != nil {
			rated++
		}
	}
	s.what = "success rate"
	if rated < 2 {
		s.what = "runs not FAIL"
	}
	for i, p := range h {
		switch {
		case rated >= 2 && p.SuccessRate != nil:
			s.values = append(s.values, *p.SuccessRate)
		case rated < 2 && p.Runs > 0:
			s.values = append(s.values, float64(p.Runs-p.Fail)/float64(p.Runs))
		default:
			continue
		}
		s.labels = append(s.labels, label(i))
	}
	return s, len(s.values) >= 2
}

// pct writes a share as a percentage with at most one decimal, as mermaid's numbers are
// written: digits, at most one '.', no exponent ("62.5", "100", "0").
func pct(v float64) string {
	return strconv.FormatFloat(math.Round(1000*min(1, max(0, v)))/10, 'f', -1, 64)
}

// mermaidChart is the trend as a mermaid xychart-beta block (mermaid's grammar:
// packages/mermaid/src/diagrams/xychart/parser/xychart.jison): a title, the x axis as a band
// of quoted labels, the y axis from 0 to 100 and one line. Every string in it is a fixed word
// or a label of series (hex digits and fixed words), quoted; every number is digits with at
// most one '.'; so nothing a report carries can end the block, start another statement or
// reach the page.
func mermaidChart(s trendSeries) string {
	var b strings.Builder
	b.WriteString("```mermaid\nxychart-beta\n")
	fmt.Fprintf(&b, "    title \"%s, last %d runs (%%)\"\n", titleCase(s.what), len(s.values))
	b.WriteString("    x-axis [")
	for i, l := range s.labels {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(`"` + l + `"`)
	}
	b.WriteString("]\n")
	fmt.Fprintf(&b, "    y-axis \"%s (%%)\" 0 --> 100\n", s.what)
	b.WriteString("    line [")
	for i, v := range s.values {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(pct(v))
	}
	b.WriteString("]\n```\n")
	return b.String()
}

// titleCase upper-cases the first letter of a fixed ASCII phrase.
func titleCase(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// trendSummary says in words what the chart shows, oldest to newest: "success rate 62.5% →
// 80% over the last 12 runs".
func trendSummary(s trendSeries) string {
	return fmt.Sprintf("%s %s%% → %s%% over the last %d runs", s.what, pct(s.values[0]), pct(s.values[len(s.values)-1]), len(s.values))
}

// flakyOverLine names the tasks flaky in two or more of the history's runs (SPEC §21), with
// how often: "`c` in 15 of 30 runs, `a` in 10 of 30"; "" when none is.
func flakyOverLine(h []compare.Point, esc func(string) string) string {
	f := compare.FlakyOver(h)
	if len(f) == 0 {
		return ""
	}
	n := min(len(f), maxFlakyHistory)
	parts := make([]string, n)
	for i, t := range f[:n] {
		parts[i] = fmt.Sprintf("%s in %d of %d runs", esc(truncate(flatten(t.Task), maxInlineIDRunes)), t.Runs, t.Of)
	}
	s := strings.Join(parts, ", ")
	if len(f) > n {
		s += fmt.Sprintf(" and %s more", count(len(f)-n))
	}
	return fmt.Sprintf("%s whose trials disagreed in two or more of the history's runs: %s", plural(len(f), "task", "tasks"), s)
}

// writeTrend writes the markdown trend section: the chart of the history, what it shows in
// words, and the tasks flaky over it; nothing when there is no trend to draw.
func (d *doc) writeTrend(b *strings.Builder) {
	h := d.r.History
	s, ok := series(h)
	flaky := flakyOverLine(h, EscapeCell)
	if !ok && flaky == "" {
		return
	}
	b.WriteString("\n### Trend\n\n")
	if ok {
		b.WriteString(mermaidChart(s))
		fmt.Fprintf(b, "\n%s.\n", titleCase(trendSummary(s)))
	}
	if flaky != "" {
		fmt.Fprintf(b, "\n**Flaky over the history**: %s.\n", flaky)
	}
}

// sparkBars are the eight heights of a sparkline, lowest first.
var sparkBars = []rune("▁▂▃▄▅▆▇█")

// sparkline draws shares from 0 to 1 as one bar each, on the fixed scale 0 to 1, so that
// two reports' lines compare.
func sparkline(values []float64) string {
	var b strings.Builder
	for _, v := range values {
		b.WriteRune(sparkBars[int(math.Round(min(1, max(0, v))*float64(len(sparkBars)-1)))])
	}
	return b.String()
}

// textTrend writes the terminal's trend: one sparkline line, and the tasks flaky over the
// history; nothing when there is no trend to draw.
func textTrend(w io.Writer, r *gate.Result, esc func(string) string) {
	if s, ok := series(r.History); ok {
		fmt.Fprintf(w, "\nTrend: %s %s\n", sparkline(s.values), trendSummary(s))
	}
	if l := flakyOverLine(r.History, esc); l != "" {
		fmt.Fprintf(w, "  flaky over the history: %s\n", l)
	}
}

// PlanText writes what `agentgate plan` prints for the report name (SPEC §21): for each
// planned metric, how many matched runs would detect the plan effect, where its discordance
// came from, and, for a suite run in trials, how many trials of each task that is. A report
// with nothing to plan from says so in one line.
func PlanText(w io.Writer, name string, effect float64, plans []compare.ReportPlan) error {
	bw := bufio.NewWriter(w)
	esc := func(s string) string { return plain(s, maxTextRunes) }
	fmt.Fprintf(bw, "agentgate plan: %s: matched runs to detect a %s-point drop with %s power (McNemar, Connor 1987)\n",
		esc(name), effectPoints(effect), percent(compare.TargetPower))
	if len(plans) == 0 {
		fmt.Fprintln(bw, "  nothing to plan: the report has no traces, so neither success nor verdicts to compare")
		return bw.Flush()
	}
	for _, rp := range plans {
		p := rp.Plan
		unit := "matched runs"
		if rp.Metric == compare.MetricReliability {
			unit = "matched traces"
		}
		need := count(p.RunsNeeded)
		if p.RunsNeeded >= compare.MaxRunsNeeded {
			need = "more than " + need
		}
		if rp.Recorded {
			differ := int(math.Round(p.Discordance * float64(p.Matched)))
			disc := fmt.Sprintf("%s of %s matched differed in its comparison", count(differ), count(p.Matched))
			if p.Assumed != p.Discordance {
				disc += fmt.Sprintf(", fewer than a %s-point drop changes; taken as %s", effectPoints(p.Effect), percent(p.Assumed))
			}
			fmt.Fprintf(bw, "  %s: at this report's discordance (%s), Holm threshold %s: %s %s; it had %s (power %s)\n",
				rp.Metric, disc, probability(p.Threshold), need, unit, count(p.Matched), percent(p.PowerNow))
		} else {
			what := "succeeded by their outcomes"
			if rp.Metric == compare.MetricReliability {
				what = "were not FAIL"
			}
			fmt.Fprintf(bw, "  %s: %s of its runs %s; no comparison is recorded, so base and head runs are taken as independent: discordance 2p(1−p) = %s",
				rp.Metric, percent(rp.Rate), what, percent(p.Discordance))
			if p.Assumed != p.Discordance {
				fmt.Fprintf(bw, ", taken as %s (the fewest a %s-point drop changes)", percent(p.Assumed), effectPoints(p.Effect))
			}
			fmt.Fprintf(bw, "; at Holm threshold %s (α/%d, the strictest over the %s it would be compared on): %s %s; it has %s (power %s). Runs of one task usually agree more than independent runs, so this is an upper bound\n",
				probability(p.Threshold), rp.Family, plural(rp.Family, "metric", "metrics"), need, unit, count(rp.Runs), percent(p.PowerNow))
		}
		if rp.Tasks > 0 && p.RunsNeeded < compare.MaxRunsNeeded {
			per := (p.RunsNeeded + rp.Tasks - 1) / rp.Tasks
			fmt.Fprintf(bw, "    with its %s: %s of each (it ran at least %d)\n", plural(rp.Tasks, "task", "tasks"), plural(per, "trial", "trials"), rp.MinTrials)
		}
	}
	return bw.Flush()
}
