package report

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/compare"
)

// This file renders what docs/design.md#planning-and-trend adds: each planned metric's line (how many matched runs
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

// percent writes a share as a whole percentage, "45%", with one decimal where a share that is
// not 0 or 1 would otherwise read "0%" or "100%" (199 of 200 is "99.5%"), and "> 99.9%" or
// "< 0.1%" where even that would.
func percent(v float64) string {
	if v == 0 || v == 1 || math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(100*v, 'f', 0, 64) + "%"
	}
	for d := 0; d <= 1; d++ {
		scale := math.Pow(10, float64(d))
		if r := math.Round(100*v*scale) / scale; r != 0 && r != 100 {
			return strconv.FormatFloat(r, 'f', d, 64) + "%"
		}
	}
	if v < 0.5 {
		return "< 0.1%"
	}
	return "> 99.9%"
}

// planLine says in one line how many matched runs a metric's McNemar test would need to
// detect the plan effect (docs/design.md#planning-and-trend); "" when it has no plan. unit names the runs ("matched
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

// minTrendPoints is the fewest points a trend is drawn for: two are the baseline and this
// change, which the comparison's table already sets side by side; a trend (its sentence, its
// chart, its sparkline) adds something from three.
const minTrendPoints = 3

// series picks what a history's trend draws: the success rate where at least minTrendPoints
// points have one, else the share of traces not FAIL where that many points have traces; ok is
// false when neither has that many. Labels are built only from a commit's hex digits and fixed
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
	if rated < minTrendPoints {
		s.what = "runs not FAIL"
	}
	for i, p := range h {
		switch {
		case rated >= minTrendPoints && p.SuccessRate != nil:
			s.values = append(s.values, *p.SuccessRate)
		case rated < minTrendPoints && p.Runs > 0:
			s.values = append(s.values, float64(p.Runs-p.Fail)/float64(p.Runs))
		default:
			continue
		}
		s.labels = append(s.labels, label(i))
	}
	return s, len(s.values) >= minTrendPoints
}

// pct writes a share as a percentage with at most one decimal, as mermaid's numbers are
// written: digits, at most one '.', no exponent ("62.5", "100", "0").
func pct(v float64) string {
	return strconv.FormatFloat(math.Round(1000*min(1, max(0, v)))/10, 'f', -1, 64)
}

// chartColor is the trend line's colour, GitHub's own link blue: it reads on both of GitHub's
// themes (contrast 5.2:1 on the light theme's white, 3.6:1 on the dark theme's #0d1117), where
// mermaid's default line (#ECECFF) all but vanishes on white.
const chartColor = "#0969da"

// mermaidChart is the trend as a mermaid xychart-beta block (mermaid's grammar:
// packages/mermaid/src/diagrams/xychart/parser/xychart.jison): an init directive that sets the
// line's colour and a height that leaves the figures above it on the first screen, a title, the
// x axis as a band of quoted labels, the y axis from 0 to 100 and one line. Every string in it
// is a fixed word or a label of series (hex digits and fixed words), quoted; every number is
// digits with at most one '.'; so nothing a report carries can end the block, start another
// statement or reach the page.
func mermaidChart(s trendSeries) string {
	var b strings.Builder
	b.WriteString("```mermaid\n")
	fmt.Fprintf(&b, `%%%%{init: {"xyChart": {"height": 260}, "themeVariables": {"xyChart": {"plotColorPalette": "%s"}}}}%%%%`+"\n", chartColor)
	b.WriteString("xychart-beta\n")
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

// trendSummary says in words where the last point stands against the one before it and the
// median of the points before that one: "success rate 35% in this change: previous run 70%,
// median of the 4 runs before 72.5%" (the chart's first and last points alone would hide a fall
// between its last two).
func trendSummary(s trendSeries) string {
	n := len(s.values)
	last, prev := s.values[n-1], s.values[n-2]
	out := fmt.Sprintf("%s %s%% in this change: previous run (%s) %s%%", s.what, pct(last), s.labels[n-2], pct(prev))
	if before := s.values[:n-1]; len(before) >= 3 {
		out += fmt.Sprintf(", median of the %d runs before %s%%", len(before), pct(median(before)))
	}
	return out
}

// median returns the median of values (not empty), without changing them.
func median(values []float64) float64 {
	v := slices.Clone(values)
	slices.Sort(v)
	if n := len(v); n%2 == 1 {
		return v[n/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// flakyOverLine names the tasks flaky in two or more of the history's runs (docs/design.md#planning-and-trend), grouped
// by how often, each group in natural order: "in 5 of 5 runs: `6`, `13`; in 4 of 5 runs: `21`";
// "" when none is. A run's report names at most compare.MaxFlakyNames tasks, so where a run had
// more, the count is a floor and says so ("at least 20 tasks").
func flakyOverLine(h []compare.Point, esc func(string) string) string {
	f := compare.FlakyOver(h)
	if len(f) == 0 {
		return ""
	}
	floor, tasks := false, 0
	for _, p := range h {
		floor = floor || p.Flaky > len(p.FlakyTasks)
		tasks = max(tasks, p.TrialTasks)
	}
	floor = floor && len(f) < tasks // as many as a run had tasks is every one of them
	n := min(len(f), maxFlakyHistory)
	shown := slices.Clone(f[:n])
	slices.SortStableFunc(shown, func(a, b compare.FlakyTask) int {
		return cmp.Or(cmp.Compare(b.Runs, a.Runs), naturalCompare(a.Task, b.Task))
	})
	var groups []string
	for i := 0; i < len(shown); {
		j := i
		var names []string
		for ; j < len(shown) && shown[j].Runs == shown[i].Runs; j++ {
			names = append(names, esc(truncate(flatten(shown[j].Task), maxInlineIDRunes)))
		}
		groups = append(groups, fmt.Sprintf("in %d of %d runs: %s", shown[i].Runs, shown[i].Of, strings.Join(names, ", ")))
		i = j
	}
	s := strings.Join(groups, "; ")
	if len(f) > n {
		s += fmt.Sprintf("; and %s more", count(len(f)-n))
	}
	total := plural(len(f), "task", "tasks")
	if floor {
		total = "at least " + total
	}
	return fmt.Sprintf("%s whose trials disagreed in two or more of the history's runs, %s", total, s)
}

// writeTrend writes the markdown trend: what the chart shows in words and the chart of the
// history; nothing when there is no trend to draw.
func (d *doc) writeTrend(b *strings.Builder) {
	if s, ok := series(d.r.History); ok {
		fmt.Fprintf(b, "\n**Trend**: %s.\n\n", titleCase(trendSummary(s)))
		b.WriteString(mermaidChart(s))
	}
}

// writeFlakyOver writes the tasks flaky over the history, after the runs that changed.
func (d *doc) writeFlakyOver(b *strings.Builder) {
	if flaky := flakyOverLine(d.r.History, codeText); flaky != "" {
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

// PlanText writes what `agentgate plan` prints for the report name (docs/design.md#planning-and-trend): for each
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
