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
	if h := p(t.AdjustedP); t.InFamily && h != p(t.P) {
		s += " (Holm " + h + ")"
	}
	return s
}

// degradedPhrases says, for each degraded metric in table order, which figure moved, from what
// to what, and that the move is significant (not noise): the reason a regression gate is
// breached, in the words a reviewer reads first.
func degradedPhrases(c *compare.Comparison) []string {
	var out []string
	sig := func(test string, t *compare.Test) string {
		return ", significant (" + test + " " + strings.Replace(strings.TrimSuffix(pValue(t), ")"), " (Holm", ", Holm", 1) + ")"
	}
	if r := c.Reliability; r != nil && r.Outcome == compare.Degraded {
		out = append(out, fmt.Sprintf("FAIL verdicts rose from %s to %s of %s (%s, %s fixed)%s",
			count(r.BaseFail), count(r.HeadFail), plural(r.Matched, "matched trace", "matched traces"),
			plural(r.NewFailures, "new FAIL verdict", "new FAIL verdicts"), count(r.Fixed), sig("McNemar", &r.Test)))
	}
	if r := c.Success; r != nil && r.Outcome == compare.Degraded {
		out = append(out, fmt.Sprintf("success fell from %s to %s on %s (%s newly failed, %s fixed)%s",
			share(r.BaseSuccesses, r.Matched), share(r.HeadSuccesses, r.Matched), plural(r.Matched, "matched run", "matched runs"),
			count(r.NewFailures), count(r.Fixed), sig("McNemar", &r.Test)))
	}
	if r := c.Coherence; r != nil && r.Outcome == compare.Degraded {
		out = append(out, fmt.Sprintf("mean coherence (RCS) fell from %s to %s over %s%s",
			num(r.BaseMean), num(r.HeadMean), plural(r.Matched, "matched task", "matched tasks"), sig("paired t", &r.Test)))
	}
	if r := c.Agreement; r != nil && r.Outcome == compare.Degraded {
		if r.KappaDefined {
			out = append(out, fmt.Sprintf("κ fell from %s to %s over %s%s", num(r.BaseKappa), num(r.HeadKappa),
				plural(r.Matched, "matched qid", "matched qids"), sig("z-test", &r.Test)))
		} else {
			out = append(out, fmt.Sprintf("percent agreement fell from %s to %s over %s%s", num(r.BasePA), num(r.HeadPA),
				plural(r.Matched, "matched qid", "matched qids"), sig("z-test", &r.Test)))
		}
	}
	return out
}

// share writes k of n as a percentage (percent's rounding): 70 of 100 → "70%".
func share(k, n int) string {
	if n == 0 {
		return "—"
	}
	return percent(float64(k) / float64(n))
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

// outcomeWords says what a metric's comparison concluded (docs/design.md#honest-words): "degraded", "improved",
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
		return way + ", not significant" // the p-value is in the row beside it, once
	case compare.Inconclusive:
		if way == "" {
			return "inconclusive"
		}
		return way + ", inconclusive"
	}
	return esc(string(t.Outcome))
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
// and the Holm threshold it faced (docs/design.md#honest-words); "" when it was not tested.
func powerLine(metric string, t *compare.Test) string {
	p := t.Power
	if p == nil {
		return ""
	}
	th := "Holm threshold " + probability(p.Threshold)
	switch p.Method {
	case compare.PowerMcNemarExact:
		n, one, many := plural(t.Matched, "matched trace", "matched traces"), "new FAIL verdict", "new FAIL verdicts"
		if metric == compare.MetricSuccess {
			n, one, many = plural(t.Matched, "matched run", "matched runs"), "run newly failed", "runs newly failed"
		}
		if t.Compared != t.Matched {
			n = fmt.Sprintf("%s (%s matched, the missing counted as failures)", plural(t.Compared, "compared run", "compared runs"), count(t.Matched))
		}
		if !p.Detectable {
			return fmt.Sprintf("%s: with %s, no change could be significant at %s: that takes %s with none fixed (exact McNemar)",
				metric, n, th, plural(int(p.MinEffect), one, many))
		}
		return fmt.Sprintf("%s: with %s, %s or more %s with none fixed would be significant (exact McNemar, %s)",
			metric, n, count(int(p.MinEffect)), many, th)
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
		change := newFailures(r.NewFailures, r.MissingNewFailures, "new FAIL verdict", "new FAIL verdicts") + ", " + count(r.Fixed) + " fixed"
		if r.Matched > 0 {
			change += "; mean score " + signed(r.MeanScoreChange)
		}
		add(metricRow{
			"reliability: FAIL verdicts (" + runCounts(&r.Test, "matched trace", "matched traces") + ")",
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
			newFailures(r.NewFailures, r.MissingNewFailures, "newly failed", "newly failed") + ", " + count(r.Fixed) + " fixed",
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
func newFailures(n, missing int, one, many string) string {
	s := plural(n, one, many)
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

// outcomesWhen says when pass^k would use the trials' outcomes instead (docs/design.md#outcomes).
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
		d.newFail = rowList{noun: "new FAIL verdicts", cols: cols}
		d.newFail.n, d.newFail.open = pairRows(d.r, rc.NewFailureTraces, false)
		fixedCols := append([]column(nil), cols...)
		fixedCols[4].head, fixedCols[5].head = "baseline's strongest signal", "baseline's evidence"
		d.fixed = rowList{noun: "traces no longer FAIL", cols: fixedCols}
		d.fixed.n, d.fixed.open = pairRows(d.r, rc.FixedTraces, true)
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
func pairRows(r *gate.Result, pairs []compare.TracePair, fromBase bool) (int, func() func() []string) {
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
				CodeCell(runLabel(r, h)), orDash(EscapeCell(location(h.File, h.Line))),
				verdictCell(p.Base.Verdict) + " → " + verdictCell(h.Verdict),
				num(p.Base.Score) + " → " + num(h.Score), signal, evidence,
			}
		}
	}
}

// findingCells returns the strongest-signal and evidence cells of a trace's row. The evidence
// keeps the code spans its evaluator wrote (a tool's name in backticks) as code spans.
func findingCells(t *reliability.Result) (signal, evidence string) {
	signal, evidence, others := finding(t, CellWithCode)
	if evidence == "" {
		evidence = "—"
	}
	if others > 0 {
		evidence += fmt.Sprintf(" (+%s more %s)", count(others), pluralWord(others, "finding", "findings"))
	}
	return signal, evidence
}

// writeComparison writes, right under the verdict line, the comparison with the baseline: its
// heading, how the runs were matched and the table of metrics; or the one line that says why
// there is none. It reports whether it wrote a section. The lists of what changed, the gates
// and the details follow the trend (writeChanges, writeComparisonDetails), so that the figure
// that moved, its trend and the runs it moved in come first (docs/reference.md, "The PR
// comment").
func (d *doc) writeComparison(b *strings.Builder) bool {
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
		if m.Matched == m.BaseRuns && m.Matched == m.HeadRuns {
			fmt.Fprintf(b, "Runs matched on %s: all %s of both sides.\n\n", m.On, count(m.Matched))
		} else {
			fmt.Fprintf(b, "Runs matched on %s: %s of %s in the baseline, %s of %s in this run.\n\n", m.On,
				count(m.Matched), count(m.BaseRuns), count(m.Matched), count(m.HeadRuns))
		}
	}
	rows := metricRows(c)
	if len(rows) == 0 {
		b.WriteString("No metric was compared.\n")
		return true
	}
	cells := make([][]string, len(rows))
	for i, r := range rows {
		cells[i] = []string{r.metric, r.base, r.head, r.change, r.stat, outcomeLabel(r.test, EscapeCell)}
	}
	writeTable(b, []column{
		{"metric", tw.AlignLeft}, {"base", tw.AlignRight}, {"head", tw.AlignRight},
		{"change", tw.AlignLeft}, {"95% CI or p", tw.AlignLeft}, {"outcome", tw.AlignLeft},
	}, cells)
	return true
}

// writeComparisonDetails writes what a reviewer may want after the verdict, its figures and
// the runs that changed, collapsed: what a change must be to count, what each test could
// detect, how many runs would detect the planned drop, and pass^k side by side.
func (d *doc) writeComparisonDetails(b *strings.Builder) {
	c := d.r.Comparison
	if c == nil || len(metricRows(c)) == 0 {
		return
	}
	b.WriteString("\n<details><summary>How the change was tested: significance, power, runs needed")
	p := c.PassK
	withPassK := p != nil && len(p.Rows) > 0 && !oneTrialEach(p.Base) && !oneTrialEach(p.Head)
	if withPassK {
		b.WriteString(", pass^k")
	}
	b.WriteString("</summary>\n\n")
	fmt.Fprintf(b, "A change is degraded or improved when it is significant at α = %s (Holm's procedure over the metrics compared), and inconclusive with too few matched units or no test.\n",
		threshold(c.Alpha))
	if lines := powerLines(c); len(lines) > 0 {
		b.WriteString("\nWhat each test could detect, two-sided, at the Holm threshold it faced (the largest p-value that would have been significant, the other metrics' p-values as they are):\n\n")
		for _, l := range lines {
			b.WriteString("- " + l + "\n")
		}
	}
	if lines := planLines(c); len(lines) > 0 {
		fmt.Fprintf(b, "\nHow many matched runs would detect a drop of %s points with %s power (setting `plan-effect`), from the share of runs whose result differed between the two sides:\n\n",
			effectPoints(planEffect(c)), percent(compare.TargetPower))
		for _, l := range lines {
			b.WriteString("- " + l + "\n")
		}
	}
	if withPassK {
		d.writePassKSideBySide(b, p)
	}
	b.WriteString(detailsClose)
}

// planEffect is the drop the comparison's plans are for (the same for every metric).
func planEffect(c *compare.Comparison) float64 {
	for _, m := range c.Metrics() {
		if m.Test.Plan != nil {
			return m.Test.Plan.Effect
		}
	}
	return 0
}

// oneTrialEach tells whether each task of p ran once: then pass^k is pass^1, the success rate
// the table above already shows, and no task can be flaky.
func oneTrialEach(p *compare.PassK) bool {
	return p == nil || p.Trials <= p.Tasks
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
	// Said when outcomes are used on either side (docs/design.md#outcomes): without them the section above
	// says what a pass is.
	if p.Base != nil && p.Head != nil && (p.Base.OnOutcomes || p.Head.OnOutcomes) {
		if bb, hb := basis(p.Base), basis(p.Head); bb == hb {
			fmt.Fprintf(b, "\nA trial passes %s, on both sides.\n", bb)
		} else {
			fmt.Fprintf(b, "\nA trial passes %s in the baseline, %s in head: the two are not measured alike.\n", bb, hb)
		}
	}
}

// writeChanges writes what changed between the two sides, run by run: the runs newly failed
// and fixed by their own outcome, the new FAIL verdicts and the traces no longer FAIL (at most
// k rows each), the FINAL flips, the units of one side only, and the notes. Each list names
// its kind, so that a run that newly failed by its outcome is never confused with a new FAIL
// verdict; a list with nothing in it is not written (the table above says 0).
func (d *doc) writeChanges(b *strings.Builder, k int) {
	c := d.r.Comparison
	if c == nil {
		return
	}
	if r := c.Success; r != nil {
		d.writeSuccessChanges(b, r)
	}
	if rc := c.Reliability; rc != nil {
		if n := d.newFail.len(); n > 0 {
			fmt.Fprintf(b, "\n**%s** (verdict FAIL now, not FAIL in the baseline), with the strongest signal now:\n\n", plural(n, "new FAIL verdict", "new FAIL verdicts"))
			d.writeList(b, &d.newFail, k)
		}
		if n := rc.MissingNewFailures; n > 0 {
			fmt.Fprintf(b, "\n**%s** (not FAIL in the baseline, missing now: a run that did not report did not pass); they are listed below.\n",
				plural(n, "missing run counted as a new FAIL verdict", "missing runs counted as new FAIL verdicts"))
		}
		if n := d.fixed.len(); n > 0 {
			fmt.Fprintf(b, "\n**%s** (verdict FAIL in the baseline, not now), with what the baseline failed on:\n\n", plural(n, "trace no longer FAIL", "traces no longer FAIL"))
			d.writeList(b, &d.fixed, k)
		}
	}
	if n := d.flips.len(); n > 0 {
		fmt.Fprintf(b, "\n**%s** of matched qids (shipped: VALID or NOT_IN_CONTEXT): %s shipped → REJECT, %s REJECT → shipped:\n\n",
			plural(n, "FINAL flip", "FINAL flips"), count(len(c.Agreement.ShippedToRejected)), count(len(c.Agreement.RejectedToShipped)))
		d.writeList(b, &d.flips, k)
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
// both sides when both are known.
func (d *doc) writeSuccessChanges(b *strings.Builder, r *compare.SuccessChange) {
	if n := r.NewFailures - r.MissingNewFailures; n > 0 {
		fmt.Fprintf(b, "\n**%s by outcome** (succeeded in the baseline, failed now): %s.\n",
			plural(n, "run newly failed", "runs newly failed"), idList(runNames(d.r, r.NewFailureIDs), n, len(r.NewFailureIDs), codeText))
	}
	if n := r.MissingNewFailures; n > 0 {
		fmt.Fprintf(b, "\n**%s by outcome** (succeeded in the baseline, missing now or without an outcome: a run that did not report did not pass).\n",
			plural(n, "missing run counted as newly failed", "missing runs counted as newly failed"))
	}
	if r.Fixed > 0 {
		fmt.Fprintf(b, "\n**%s by outcome** (failed in the baseline, succeeded now): %s.\n",
			plural(r.Fixed, "run fixed", "runs fixed"), idList(runNames(d.r, r.FixedIDs), r.Fixed, len(r.FixedIDs), codeText))
	}
	if r.BaseTokensPerSuccess != nil && r.HeadTokensPerSuccess != nil {
		fmt.Fprintf(b, "\nTokens per successful run: %s in the baseline, %s now.\n", tokens(*r.BaseTokensPerSuccess), tokens(*r.HeadTokensPerSuccess))
	}
}

// writePassK writes pass^k of this run's repeated trials (docs/design.md#repeated-trials), with the flaky tasks.
func (d *doc) writePassK(b *strings.Builder) {
	p := d.r.PassK
	if p == nil || oneTrialEach(p) && d.mark(compare.PassKMin) == "" {
		return // pass^1 of one trial a task is the success rate, and no task can be flaky
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
			idList(slices.SortedFunc(slices.Values(p.Flaky), naturalCompare), n, maxFlakyListed, codeText))
	} else {
		fmt.Fprintf(b, "\nNo flaky task%s: every task passed all its trials or none.\n", byWhat)
	}
}

// runNames names the runs of a by-outcome list, in natural order ("1#1, 3#3, 14#14"): each by
// runLabel, what the comparison matched it on.
func runNames(r *gate.Result, ids []string) []string {
	out := slices.Clone(ids)
	c := r.Comparison
	if c != nil && c.Matching != nil && c.Matching.On != compare.OnTraceID && r.Reliability != nil && len(ids) > 0 {
		want := make(map[string]int, len(ids))
		for i, id := range ids {
			want[id] = i
		}
		for i := range r.Reliability.Traces {
			t := &r.Reliability.Traces[i]
			if j, ok := want[t.ID]; ok {
				out[j] = runLabel(r, t)
			}
		}
	}
	slices.SortFunc(out, naturalCompare)
	return out
}

// runLabel is the one name a run goes by in every list and table of the report: what the
// comparison matched it on (docs/design.md#run-identity), or without a comparison its identity when the harness
// records one: "airline/20#0" (suite/task#trial) rather than a tau2 simulation's uuid, which
// tells a reader nothing of which task it ran; else its trace id.
func runLabel(r *gate.Result, t *reliability.Result) string {
	a := t.Attempt
	c := r.Comparison
	if a == nil || a.Task == "" || c != nil && (c.Matching == nil || c.Matching.On == compare.OnTraceID) {
		return t.ID
	}
	name := a.Task
	if a.Suite != "" && (c == nil || c.Matching.On == compare.OnSuiteIdentity) {
		name = a.Suite + "/" + a.Task
	}
	if a.Trial != nil {
		name += "#" + strconv.Itoa(*a.Trial)
	}
	return name
}
