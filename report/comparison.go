package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter/tw"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/compare"
	"github.com/agentgate/agentgate/gate/reliability"
)

// maxInlineIDs is how many ids a sentence lists inline (added and removed units, flaky tasks
// in the terminal summary) before "and N more".
const maxInlineIDs = 10

// maxFlakyListed is how many flaky tasks the markdown report names.
const maxFlakyListed = 20

// maxInlineIDRunes bounds one id listed inline, so a list of them stays short.
const maxInlineIDRunes = 60

// maxPassKRows is how many values of k the report shows one by one; past it, the first
// maxPassKRows−1 and the last.
const maxPassKRows = 10

// baseName names the baseline a comparison was made with, in words: "`main` @ `1a2b3c4`",
// "`1a2b3c4`", or "the baseline report" when its source is empty (a file written outside
// Actions). The ref and sha come from the baseline file, which is untrusted: each is one
// line of plain text in a code span, which renders no markdown, HTML, link or mention.
// code wraps one such piece.
func baseName(s compare.Source, code func(string) string) string {
	ref := plain(s.Ref, 80)
	for _, p := range []string{"refs/heads/", "refs/tags/"} {
		ref = strings.TrimPrefix(ref, p)
	}
	sha := firstRunes(plain(s.SHA, 0), 7)
	switch {
	case ref != "" && sha != "":
		return code(ref) + " @ " + code(sha)
	case ref != "":
		return code(ref)
	case sha != "":
		return code(sha)
	}
	return "the baseline report"
}

// refText shows a ref or sha taken from the baseline file in markdown: in a code span when it
// holds only the characters of ordinary branch names and hex digits (letters, digits and
// "._/+-="), escaped as untrusted text otherwise, so that nothing the file holds is left to
// how a renderer treats a code span.
func refText(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isWordByte(c) && !strings.ContainsRune("./+-=", rune(c)) {
			return EscapeCell(s)
		}
	}
	return codeSpan(s)
}

// firstRunes returns the first n characters of s.
func firstRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// signed formats a change with its sign: "+0.0125", "-0.0400", "0.0000".
func signed(v float64) string {
	s := num(v)
	if v > 0 && s != "0.0000" {
		return "+" + s
	}
	return s
}

// pValue formats a test's p-value, with the Holm-adjusted one when it differs: "p 0.0312",
// "p < 0.0001 (Holm 0.0003)", "—" when there is none.
func pValue(t *compare.Test) string {
	if !t.PDefined {
		return "—"
	}
	p := func(v float64) string {
		if v < 0.0001 {
			return "< 0.0001"
		}
		return num(v)
	}
	s := "p " + p(t.P)
	if t.InFamily && t.AdjustedP != t.P {
		s += " (Holm " + p(t.AdjustedP) + ")"
	}
	return s
}

// outcomeLabel is a metric's outcome in words with its mark, and the note of an inconclusive
// one; esc escapes the note and an unknown outcome.
func outcomeLabel(t *compare.Test, esc func(string) string) string {
	var mark string
	switch {
	case t.Outcome == compare.Degraded:
		mark = "❌ "
	case t.Outcome == compare.Improved:
		mark = "✅ "
	case t.Outcome == compare.Inconclusive:
		mark = "❔ "
	case t.Outcome == compare.Unchanged && t.Direction == compare.Worse:
		mark = "⚠️ "
	case t.Outcome == compare.Unchanged:
		mark = "➖ "
	default:
		mark = "❔ "
	}
	s := mark + outcomeWords(t, esc)
	if t.Outcome == compare.Inconclusive && t.Note != "" {
		s += ": " + esc(t.Note)
	}
	return s
}

// outcomeWords says what a metric's comparison concluded (SPEC §17): "degraded", "improved",
// "unchanged" only when the estimate did not move, else "worse, not significant (p 0.031,
// Holm 0.094)" or "better, not significant (…)"; an inconclusive change says which way it
// went. esc escapes an unknown outcome.
func outcomeWords(t *compare.Test, esc func(string) string) string {
	way := ""
	switch t.Direction {
	case compare.Worse:
		way = "worse"
	case compare.Better:
		way = "better"
	}
	switch t.Outcome {
	case compare.Degraded, compare.Improved:
		return string(t.Outcome)
	case compare.Unchanged:
		if way == "" {
			return "unchanged"
		}
		ps := "p " + shortP(t.P)
		if t.InFamily && t.AdjustedP != t.P {
			ps += ", Holm " + shortP(t.AdjustedP)
		}
		return way + ", not significant (" + ps + ")"
	case compare.Inconclusive:
		if way == "" {
			return "inconclusive"
		}
		return way + ", inconclusive"
	}
	return esc(string(t.Outcome))
}

// shortP formats a p-value in the outcome's words to three decimals: "0.031", "< 0.001".
func shortP(v float64) string {
	if v < 0.001 {
		return "< 0.001"
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// probability formats a small probability such as a Holm threshold: four decimals, or three
// significant digits under 0.0001 ("1.00e-06").
func probability(v float64) string {
	if v < 0.0001 {
		return strconv.FormatFloat(v, 'e', 2, 64)
	}
	return num(v)
}

// powerLine says in one line what a metric's test could have detected at its matched units
// and the Holm threshold it faced (SPEC §17); "" when it was not tested.
func powerLine(metric string, t *compare.Test) string {
	p := t.Power
	if p == nil {
		return ""
	}
	th := "Holm threshold " + probability(p.Threshold)
	switch p.Method {
	case compare.PowerMcNemarExact:
		n := plural(t.Matched, "matched trace", "matched traces")
		if t.Compared != t.Matched {
			n = fmt.Sprintf("%s (%s matched, the missing counted as failures)", plural(t.Compared, "compared run", "compared runs"), count(t.Matched))
		}
		if !p.Detectable {
			return fmt.Sprintf("%s: with %s, no change could be significant at %s: that takes %s with none fixed (exact McNemar)",
				metric, n, th, plural(int(p.MinEffect), "new failure", "new failures"))
		}
		return fmt.Sprintf("%s: with %s, %s or more new failures with none fixed would be significant (exact McNemar, %s)",
			metric, n, count(int(p.MinEffect)), th)
	case compare.PowerPairedT:
		n := plural(t.Matched, "matched task", "matched tasks")
		if p.SD == 0 {
			return fmt.Sprintf("%s: with %s whose changes are all equal (sd 0), any mean change would be significant (%s)", metric, n, th)
		}
		pct := strconv.FormatFloat(100*p.Power, 'f', -1, 64)
		if !p.Detectable {
			return fmt.Sprintf("%s: with %s, no possible mean RCS change would be detected with %s%% power: it would take %s, more than RCS's range (paired t at the observed sd %s, %s)",
				metric, n, pct, num(p.MinEffect), num(p.SD), th)
		}
		return fmt.Sprintf("%s: with %s, a mean RCS change of %s either way would be detected with %s%% power (paired t at the observed sd %s, %s)",
			metric, n, num(p.MinEffect), pct, num(p.SD), th)
	case compare.PowerKappaZ:
		pct := strconv.FormatFloat(100*p.Power, 'f', -1, 64)
		if !p.Detectable {
			return fmt.Sprintf("%s: no possible change in κ would be detected with %s%% power: it would take %s, more than κ's range (z-test at κ's standard errors, combined %s; %s)",
				metric, pct, num(p.MinEffect), num(p.SE), th)
		}
		return fmt.Sprintf("%s: a change in κ of %s either way would be detected with %s%% power (z-test at κ's standard errors, combined %s; %s)",
			metric, num(p.MinEffect), pct, num(p.SE), th)
	}
	return fmt.Sprintf("%s: no minimum detectable effect can be stated (%s)", metric, th) // κ's standard errors both 0
}

// powerLines returns the power line of each metric tested, in table order.
func powerLines(c *compare.Comparison) []string {
	var out []string
	for _, m := range c.Metrics() {
		if l := powerLine(m.Name, m.Test); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// anyWorse reports whether a compared metric's estimate moved the worse way, significant or
// not: then the comparison's heading is not ✅.
func anyWorse(c *compare.Comparison) bool {
	for _, m := range c.Metrics() {
		if m.Test.Direction == compare.Worse {
			return true
		}
	}
	return false
}

// metricRow is one row of the comparison table, which the markdown report and the terminal
// summary both render, in the same words: the metric with its matched units, base, head,
// change, the 95% CI or p, and the test whose outcome each renders its own way.
type metricRow struct {
	metric, base, head, change, stat string
	test                             *compare.Test
}

// metricRows returns the comparison table's rows, one per metric compared, in the order
// reliability, success, coherence, agreement (Comparison.Metrics's). A metric with no matched
// unit says "nothing matched" instead of a p-value, which would test nothing.
func metricRows(c *compare.Comparison) []metricRow {
	var rows []metricRow
	add := func(r metricRow) {
		if r.test.Compared == 0 {
			r.stat = "nothing matched"
		}
		rows = append(rows, r)
	}
	if r := c.Reliability; r != nil {
		change := newFailures(r.NewFailures, r.MissingNewFailures) + ", " + count(r.Fixed) + " fixed"
		if r.Matched > 0 {
			change += "; mean score " + signed(r.MeanScoreChange)
		}
		add(metricRow{
			"reliability: FAIL traces (" + runCounts(&r.Test, "matched trace", "matched traces") + ")",
			fmt.Sprintf("%s of %s", count(r.BaseFail), count(r.Compared)),
			fmt.Sprintf("%s of %s", count(r.HeadFail), count(r.HeadRuns)),
			change, "McNemar " + orText(pValue(&r.Test)), &r.Test,
		})
	}
	if r := c.Success; r != nil {
		add(metricRow{
			"success: runs that succeeded by their outcomes (" + runCounts(&r.Test, "matched run", "matched runs") + ")",
			fmt.Sprintf("%s of %s", count(r.BaseSuccesses), count(r.Compared)),
			fmt.Sprintf("%s of %s", count(r.HeadSuccesses), count(r.HeadRuns)),
			newFailures(r.NewFailures, r.MissingNewFailures) + ", " + count(r.Fixed) + " fixed",
			"McNemar " + orText(pValue(&r.Test)), &r.Test,
		})
	}
	if r := c.Coherence; r != nil {
		stat := pValue(&r.Test)
		if r.CIDefined {
			stat = fmt.Sprintf("95%% CI [%s, %s]; %s", signed(r.CI[0]), signed(r.CI[1]), stat)
		}
		add(metricRow{
			"coherence: mean RCS (" + plural(r.Matched, "matched task", "matched tasks") + ")",
			num(r.BaseMean), num(r.HeadMean), signed(r.MeanChange), stat, &r.Test,
		})
	}
	if r := c.Agreement; r != nil {
		matched := " (" + plural(r.Matched, "matched qid", "matched qids") + ")"
		if r.KappaDefined {
			add(metricRow{
				"agreement: κ" + matched, num(r.BaseKappa), num(r.HeadKappa),
				"Δκ " + signed(r.DeltaKappa) + "; PA " + signed(r.DeltaPA), pValue(&r.Test), &r.Test,
			})
		} else {
			add(metricRow{
				"agreement: percent agreement" + matched, num(r.BasePA), num(r.HeadPA),
				"ΔPA " + signed(r.DeltaPA), pValue(&r.Test), &r.Test,
			})
		}
	}
	return rows
}

// newFailures counts a paired metric's new failures, saying how many of them are runs
// missing from head: "24 new failures (24 missing)".
func newFailures(n, missing int) string {
	s := plural(n, "new failure", "new failures")
	if missing > 0 {
		s += " (" + count(missing) + " missing)"
	}
	return s
}

// runCounts says what a paired metric's runs were: "56 matched runs", and, when the test also
// counted missing runs or head has added ones, "56 matched runs, 24 missing, 2 added".
func runCounts(t *compare.Test, one, many string) string {
	s := plural(t.Matched, one, many)
	if n := t.Compared - t.Matched; n > 0 {
		s += ", " + count(n) + " missing"
	}
	if n := t.Added.Count; n > 0 {
		s += ", " + count(n) + " added"
	}
	return s
}

// unitsLines returns, for each metric compared in table order, the line that says which of
// its units are only in head or only in the baseline (unitsLine; "" when none are). esc
// escapes the ids.
func unitsLines(c *compare.Comparison, esc func(string) string) []string {
	var lines []string
	if r := c.Reliability; r != nil {
		lines = append(lines, runsLine("reliability", &r.Test, c.AllowMissingRuns, "run", "runs", "counted as FAIL", esc))
	}
	if r := c.Success; r != nil {
		lines = append(lines, runsLine("success", &r.Test, c.AllowMissingRuns, "run with an outcome", "runs with an outcome", "counted as failed", esc))
	}
	lines = append(lines, matchingLines(c.Matching, esc)...)
	if r := c.Coherence; r != nil {
		lines = append(lines, unitsLine("coherence", &r.Test, "task", "tasks", esc))
	}
	if r := c.Agreement; r != nil {
		lines = append(lines, unitsLine("agreement", &r.Test, "qid", "qids", esc))
	}
	return lines
}

// orText returns s, or "no test" when s is "—".
func orText(s string) string {
	if s == "—" {
		return "no test"
	}
	return s
}

// unitsLine says how many units of one metric are only in head or only in the baseline, with
// the first of their ids; "" when there are none. noun is the unit, singular and plural.
func unitsLine(metric string, t *compare.Test, one, many string, esc func(string) string) string {
	var parts []string
	for _, u := range []struct {
		units *compare.Units
		where string
	}{{&t.Added, "only in head"}, {&t.Removed, "only in the baseline"}} {
		if u.units.Count == 0 {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s (%s)", plural(u.units.Count, one, many), u.where,
			idList(u.units.First, u.units.Count, maxInlineIDs, esc)))
	}
	if len(parts) == 0 {
		return ""
	}
	return metric + ": " + strings.Join(parts, "; ")
}

// runsLine says, for a paired metric of runs, which of the baseline's runs head lacks (missing,
// or without an outcome: counted as head's failures, or left out with allow-missing-runs) and
// which head added; "" when there are none.
func runsLine(metric string, t *compare.Test, allowed bool, one, many, counted string, esc func(string) string) string {
	var parts []string
	if u := t.Removed; u.Count > 0 {
		how := counted
		if allowed {
			how = "left out (allow-missing-runs)"
		}
		parts = append(parts, fmt.Sprintf("%s of the baseline missing in this run, %s (%s)", plural(u.Count, one, many), how,
			idList(u.First, u.Count, maxInlineIDs, esc)))
	}
	if u := t.Added; u.Count > 0 {
		parts = append(parts, fmt.Sprintf("%s only in this run, in its rate (%s)", plural(u.Count, one, many), idList(u.First, u.Count, maxInlineIDs, esc)))
	}
	if len(parts) == 0 {
		return ""
	}
	return metric + ": " + strings.Join(parts, "; ")
}

// matchingLines say which runs matched only once their identities were normalised, and which
// identities several runs of one side hold with disagreeing verdicts or outcomes.
func matchingLines(m *compare.Matching, esc func(string) string) []string {
	if m == nil {
		return nil
	}
	var lines []string
	if u := m.Normalised; u.Count > 0 {
		lines = append(lines, fmt.Sprintf("%s matched only once their identities were normalised (Unicode NFC, surrounding space trimmed, zero-width and bidi controls removed): %s",
			plural(u.Count, "run", "runs"), idList(u.First, u.Count, maxInlineIDs, esc)))
	}
	for _, d := range []struct {
		u     compare.Units
		where string
	}{{m.BaseDuplicates, "the baseline"}, {m.HeadDuplicates, "this run"}} {
		if d.u.Count > 0 {
			lines = append(lines, fmt.Sprintf("%s held by more than one run of %s that disagree, each compared by its worse verdict and outcome: %s",
				plural(d.u.Count, "identity", "identities"), d.where, idList(d.u.First, d.u.Count, maxInlineIDs, esc)))
		}
	}
	return lines
}

// idList lists the first at most max of ids, escaped and shortened, and says how many of the
// total are left out.
func idList(ids []string, total, max int, esc func(string) string) string {
	n := min(len(ids), max)
	parts := make([]string, n)
	for i, id := range ids[:n] {
		parts[i] = esc(truncate(flatten(id), maxInlineIDRunes))
	}
	s := strings.Join(parts, ", ")
	if total > n {
		s += fmt.Sprintf(" and %s more", count(total-n))
	}
	return s
}

// passKValues lists pass^k of p as "pass^1 0.7500, pass^2 0.5000", at most maxPassKRows of
// them (the first ones and the last).
func passKValues(p *compare.PassK) string {
	ks := shownKs(p.MinTrials)
	parts := make([]string, 0, len(ks)+1)
	for i, k := range ks {
		if i > 0 && k != ks[i-1]+1 {
			parts = append(parts, "…")
		}
		parts = append(parts, fmt.Sprintf("pass^%d %s", k, num(p.Values[k-1])))
	}
	return strings.Join(parts, ", ")
}

// shownKs returns the values of k to show of 1..n: all of them, or the first maxPassKRows−1
// and n.
func shownKs(n int) []int {
	var ks []int
	for k := 1; k <= n; k++ {
		if n > maxPassKRows && k >= maxPassKRows && k < n {
			continue
		}
		ks = append(ks, k)
	}
	return ks
}

// outcomesWhen says when pass^k would use the trials' outcomes instead (SPEC §15).
const outcomesWhen = "it counts a trial's outcome only when every trial has one"

// flakyBasis qualifies "flaky task" with what a pass is when it is not the obvious one: " by
// verdict" when pass^k is by verdict although some trial has an outcome, so that no flaky
// task does not read as a contradiction of the failed runs listed under the outcomes.
func flakyBasis(p *compare.PassK) string {
	if p.VerdictNote() != "" {
		return " by verdict"
	}
	return ""
}

// passKSummary says what pass^k is over: "4 tasks, 12 trials, at least 3 trials a task".
func passKSummary(p *compare.PassK) string {
	return fmt.Sprintf("%s, %s, at least %s a task", plural(p.Tasks, "task", "tasks"), plural(p.Trials, "trial", "trials"),
		plural(p.MinTrials, "trial", "trials"))
}

// initComparison builds the comparison's cuttable lists: new failures, fixed traces and FINAL
// flips.
func (d *doc) initComparison() {
	c := d.r.Comparison
	if c == nil {
		return
	}
	if rc := c.Reliability; rc != nil {
		cols := []column{
			{"trace", tw.AlignLeft}, {"location", tw.AlignLeft}, {"verdict (base → head)", tw.AlignLeft},
			{"score (base → head)", tw.AlignLeft}, {"strongest signal", tw.AlignLeft}, {"evidence", tw.AlignLeft},
		}
		d.newFail = rowList{noun: "new failures", cols: cols}
		d.newFail.n, d.newFail.open = pairRows(rc.NewFailureTraces, false)
		fixedCols := append([]column(nil), cols...)
		fixedCols[4].head, fixedCols[5].head = "baseline's strongest signal", "baseline's evidence"
		d.fixed = rowList{noun: "fixed traces", cols: fixedCols}
		d.fixed.n, d.fixed.open = pairRows(rc.FixedTraces, true)
	}
	if ac := c.Agreement; ac != nil {
		d.flips = rowList{noun: "FINAL flips", cols: []column{{"qid", tw.AlignLeft}, {"FINAL (base → head)", tw.AlignLeft}}}
		a, b := ac.ShippedToRejected, ac.RejectedToShipped
		d.flips.n = len(a) + len(b)
		d.flips.open = func() func() []string {
			i := 0
			return func() []string {
				i++
				if i <= len(a) {
					return []string{CodeCell(a[i-1]), "shipped → **REJECT**"}
				}
				return []string{CodeCell(b[i-1-len(a)]), "REJECT → **shipped**"}
			}
		}
	}
}

// pairRows returns how many pairs there are and a function that returns a function that
// returns the row of the next of them, in order (sorted by id). The strongest signal and
// evidence are the head's, or the baseline's when fromBase.
func pairRows(pairs []compare.TracePair, fromBase bool) (int, func() func() []string) {
	return len(pairs), func() func() []string {
		i := 0
		return func() []string {
			p := &pairs[i]
			i++
			ev := &p.Head
			if fromBase {
				ev = &p.Base
			}
			signal, evidence := findingCells(ev)
			h := &p.Head
			return []string{
				CodeCell(h.ID), orDash(EscapeCell(location(h.File, h.Line))),
				verdictLabel(p.Base.Verdict, EscapeCell) + " → " + verdictLabel(h.Verdict, EscapeCell),
				num(p.Base.Score) + " → " + num(h.Score), signal, evidence,
			}
		}
	}
}

// findingCells returns the strongest-signal and evidence cells of a trace's row.
func findingCells(t *reliability.Result) (signal, evidence string) {
	signal, evidence, others := finding(t, EscapeCell)
	if evidence == "" {
		evidence = "—"
	}
	if others > 0 {
		evidence += fmt.Sprintf(" (+%s more %s)", count(others), pluralWord(others, "finding", "findings"))
	}
	return signal, evidence
}

// writeComparison writes, right under the verdict line, the comparison with the baseline (its
// table, pass^k side by side, and unless brief the new failures, fixed traces, FINAL flips with
// at most k rows each, the units of one side only and the notes), or the one line that says
// why there is none. It reports whether it wrote a section, which the gate table then follows
// under its own heading.
func (d *doc) writeComparison(b *strings.Builder, k int, brief bool) bool {
	c := d.r.Comparison
	if c == nil {
		if d.r.BaselineNote != "" {
			fmt.Fprintf(b, "> ℹ️ Not compared with a baseline: %s\n\n", escapeMarkdown(d.r.BaselineNote, maxProseRunes))
		}
		return false
	}
	mark := d.mark(compare.FailOnRegression, compare.MaxNewFailures)
	m := c.Matching
	if mark != "❌ " && anyWorse(c) || (mark == "✅ " || mark == "") && m != nil && m.Warning != "" {
		mark = "⚠️ " // a change the worse way, or few runs matched, is not a green heading
	}
	fmt.Fprintf(b, "### %sCompared with %s", mark, baseName(c.Base, refText))
	if id := plain(c.Base.RunID, 40); id != "" {
		fmt.Fprintf(b, " (run %s)", codeText(id))
	}
	if ch := d.r.BaselineChosen; ch != nil { // how `baseline: auto` chose it (docs/reference.md, "Which baseline")
		if sha := firstRunes(plain(ch.SHA, 0), 7); sha != firstRunes(plain(c.Base.SHA, 0), 7) {
			fmt.Fprintf(b, ", the artifact of %s", baseName(compare.Source{Ref: ch.Branch, SHA: ch.SHA}, refText))
		}
		fmt.Fprintf(b, ", %s", escapeMarkdown(ch.How, maxProseRunes))
	}
	if m != nil && m.Warning != "" {
		fmt.Fprintf(b, ": ⚠️ %s", m.Warning)
	}
	b.WriteString("\n\n")
	if m != nil {
		fmt.Fprintf(b, "Runs matched on %s: %d of %d in the baseline, %d of %d in this run.\n\n", m.On, m.Matched, m.BaseRuns, m.Matched, m.HeadRuns)
	}
	rows := metricRows(c)
	if len(rows) > 0 {
		cells := make([][]string, len(rows))
		for i, r := range rows {
			cells[i] = []string{r.metric, r.base, r.head, r.change, r.stat, outcomeLabel(r.test, EscapeCell)}
		}
		writeTable(b, []column{
			{"metric", tw.AlignLeft}, {"base", tw.AlignRight}, {"head", tw.AlignRight},
			{"change", tw.AlignLeft}, {"95% CI or p", tw.AlignLeft}, {"outcome", tw.AlignLeft},
		}, cells)
		fmt.Fprintf(b, "\nA change is degraded or improved when it is significant at α = %s (Holm's procedure over the metrics compared), and inconclusive with too few matched units or no test.\n",
			threshold(c.Alpha))
		if lines := powerLines(c); len(lines) > 0 && !brief {
			b.WriteString("\nWhat each test could detect, two-sided, at the Holm threshold it faced (the largest p-value that would have been significant, the other metrics' p-values as they are):\n\n")
			for _, l := range lines {
				b.WriteString("- " + l + "\n")
			}
		}
		if lines := planLines(c); len(lines) > 0 && !brief {
			b.WriteString("\nHow many matched runs would detect a drop of plan-effect, from the share of runs whose result differed between the two sides:\n\n")
			for _, l := range lines {
				b.WriteString("- " + l + "\n")
			}
		}
	} else {
		b.WriteString("No metric was compared.\n")
	}
	if p := c.PassK; p != nil && len(p.Rows) > 0 {
		d.writePassKSideBySide(b, p)
	}
	if !brief {
		d.writeChanges(b, k)
	}
	return true
}

// writePassKSideBySide writes pass^k of base and head as a table.
func (d *doc) writePassKSideBySide(b *strings.Builder, p *compare.PassKComparison) {
	side := func(q *compare.PassK) string {
		if q == nil {
			return "no trials"
		}
		return passKSummary(q)
	}
	fmt.Fprintf(b, "\n**pass^k** of repeated trials (base: %s; head: %s):\n\n", side(p.Base), side(p.Head))
	rows := make([][]string, 0, maxPassKRows)
	for _, k := range shownKs(len(p.Rows)) {
		r := p.Rows[k-1]
		base, head, change := "—", "—", "—"
		if r.HasBase {
			base = num(r.Base)
		}
		if r.HasHead {
			head = num(r.Head)
		}
		if r.HasBase && r.HasHead {
			change = signed(r.Head - r.Base)
		}
		rows = append(rows, []string{fmt.Sprintf("pass^%d", r.K), base, head, change})
	}
	writeTable(b, []column{{"k", tw.AlignLeft}, {"base", tw.AlignRight}, {"head", tw.AlignRight}, {"change", tw.AlignRight}}, rows)
	if len(p.Rows) > maxPassKRows {
		b.WriteString("\nEvery k is in the JSON report.\n")
	}
	basis := func(q *compare.PassK) string {
		if q != nil && q.OnOutcomes {
			return "when its outcome succeeded"
		}
		return "when its verdict is not FAIL"
	}
	// Said when outcomes are used on either side (SPEC §15): without them the section above
	// says what a pass is.
	if p.Base != nil && p.Head != nil && (p.Base.OnOutcomes || p.Head.OnOutcomes) {
		if bb, hb := basis(p.Base), basis(p.Head); bb == hb {
			fmt.Fprintf(b, "\nA trial passes %s, on both sides.\n", bb)
		} else {
			fmt.Fprintf(b, "\nA trial passes %s in the baseline, %s in head: the two are not measured alike.\n", bb, hb)
		}
	}
}

// writeChanges writes the comparison's lists: new failures, fixed traces, FINAL flips (at most
// k rows each), the units of one side only, and the notes.
func (d *doc) writeChanges(b *strings.Builder, k int) {
	c := d.r.Comparison
	if rc := c.Reliability; rc != nil {
		switch {
		case d.newFail.len() > 0:
			fmt.Fprintf(b, "\n**%s** (FAIL now, not FAIL in the baseline), with the strongest signal now:\n\n", plural(d.newFail.len(), "new failure", "new failures"))
			d.writeList(b, &d.newFail, k)
		case rc.Matched > 0:
			b.WriteString("\nNo new failures: no matched trace is FAIL now that was not in the baseline.\n")
		}
		if n := rc.MissingNewFailures; n > 0 {
			fmt.Fprintf(b, "\n**%s** (not FAIL in the baseline, missing now: a run that did not report did not pass); they are listed below.\n",
				plural(n, "missing run counted as a new failure", "missing runs counted as new failures"))
		}
		if n := d.fixed.len(); n > 0 {
			fmt.Fprintf(b, "\n**%s** (FAIL in the baseline, not now), with what the baseline failed on:\n\n", plural(n, "fixed trace", "fixed traces"))
			d.writeList(b, &d.fixed, k)
		}
	}
	if n := d.flips.len(); n > 0 {
		fmt.Fprintf(b, "\n**%s** of matched qids (shipped: VALID or NOT_IN_CONTEXT): %s shipped → REJECT, %s REJECT → shipped:\n\n",
			plural(n, "FINAL flip", "FINAL flips"), count(len(c.Agreement.ShippedToRejected)), count(len(c.Agreement.RejectedToShipped)))
		d.writeList(b, &d.flips, k)
	}
	if r := c.Success; r != nil {
		d.writeSuccessChanges(b, r)
	}
	lines := unitsLines(c, codeText)
	for _, n := range c.Notes {
		lines = append(lines, escapeMarkdown(n, maxProseRunes))
	}
	first := true
	for _, l := range lines {
		if l == "" {
			continue
		}
		if first {
			b.WriteString("\n")
			first = false
		}
		b.WriteString("- " + l + "\n")
	}
}

// writeSuccessChanges writes the runs whose own outcome changed, and tokens per success of
// both sides.
func (d *doc) writeSuccessChanges(b *strings.Builder, r *compare.SuccessChange) {
	if n := r.NewFailures - r.MissingNewFailures; n > 0 {
		fmt.Fprintf(b, "\n**%s by outcome** (succeeded in the baseline, failed now): %s.\n",
			plural(n, "new failure", "new failures"), idList(runNames(d.r, r.NewFailureIDs), n, len(r.NewFailureIDs), codeText))
	}
	if n := r.MissingNewFailures; n > 0 {
		fmt.Fprintf(b, "\n**%s by outcome** (succeeded in the baseline, missing now or without an outcome: a run that did not report did not pass).\n",
			plural(n, "missing run counted as a new failure", "missing runs counted as new failures"))
	}
	if r.Fixed > 0 {
		fmt.Fprintf(b, "\n**%s by outcome** (failed in the baseline, succeeded now): %s.\n",
			plural(r.Fixed, "fixed run", "fixed runs"), idList(runNames(d.r, r.FixedIDs), r.Fixed, len(r.FixedIDs), codeText))
	}
	tps := func(v *float64) string {
		if v == nil {
			return "unknown"
		}
		return tokens(*v)
	}
	fmt.Fprintf(b, "\nTokens per successful run: base %s, head %s.\n", tps(r.BaseTokensPerSuccess), tps(r.HeadTokensPerSuccess))
}

// writePassK writes pass^k of this run's repeated trials (SPEC §11), with the flaky tasks.
func (d *doc) writePassK(b *strings.Builder) {
	p := d.r.PassK
	if p == nil {
		return
	}
	fmt.Fprintf(b, "\n### %sRepeated trials: %s\n\n", d.mark(compare.PassKMin), passKSummary(p))
	b.WriteString(passKValues(p))
	why := p.VerdictNote()
	if why != "" {
		b.WriteString(", **" + why + "**")
	}
	b.WriteString(".")
	if p.MinTrials > maxPassKRows {
		b.WriteString(" Every k is in the JSON report.")
	}
	if p.OnOutcomes {
		b.WriteString(" pass^k is the chance that k trials of a task, drawn at random, all succeeded by their own outcomes, averaged over the tasks (every trial has an outcome).\n")
	} else {
		b.WriteString(" pass^k is the chance that k trials of a task, drawn at random, all pass (not FAIL), averaged over the tasks")
		if why != "" {
			b.WriteString("; " + outcomesWhen)
		}
		b.WriteString(".\n")
	}
	byWhat := flakyBasis(p)
	if n := len(p.Flaky); n > 0 {
		fmt.Fprintf(b, "\n**%s%s** (passed some trials, failed others): %s.\n", plural(n, "flaky task", "flaky tasks"), byWhat,
			idList(p.Flaky, n, maxFlakyListed, codeText))
	} else {
		fmt.Fprintf(b, "\nNo flaky task%s: every task passed all its trials or none.\n", byWhat)
	}
}

// runNames names the runs of a by-outcome list. When the comparison matched runs on their
// identity (SPEC §18), a run is named by it, "airline/29#0" (suite/task#trial, tau-bench's own
// form of id), sorted: the trace ids are
// then a harness's uuids, which tell a reader nothing of which task changed. Otherwise, or for
// a run that names no task, by its trace id, as listed.
func runNames(r *gate.Result, ids []string) []string {
	c := r.Comparison
	if c == nil || c.Matching == nil || c.Matching.On == compare.OnTraceID || r.Reliability == nil || len(ids) == 0 {
		return ids
	}
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	named := make(map[string]string, len(ids))
	for i := range r.Reliability.Traces {
		t := &r.Reliability.Traces[i]
		a := t.Attempt
		if !want[t.ID] || a == nil || a.Task == "" {
			continue
		}
		name := a.Task
		if a.Suite != "" && c.Matching.On == compare.OnSuiteIdentity {
			name = a.Suite + "/" + a.Task
		}
		if a.Trial != nil {
			name += "#" + strconv.Itoa(*a.Trial)
		}
		named[t.ID] = name
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		if n, ok := named[id]; ok {
			out[i] = n
		} else {
			out[i] = id
		}
	}
	slices.Sort(out)
	return out
}
