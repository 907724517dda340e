package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/agreement"
	"github.com/agentgate/agentgate/gate/coherence"
	"github.com/agentgate/agentgate/gate/compare"
	"github.com/agentgate/agentgate/gate/outcome"
	"github.com/agentgate/agentgate/gate/reliability"
)

// TextTraces is how many non-PASS traces the terminal summary shows with their evidence.
const TextTraces = 5

// maxTextRunes bounds untrusted text on one line of the terminal summary.
const maxTextRunes = 160

// Text writes the readable summary the CLI prints: the verdict and why, the gates with ✓ and
// ✗, the counts of each evaluator and the first few non-PASS traces with their evidence. It
// uses no markdown; untrusted text is reduced to one line without control characters, so an
// input file cannot send escape sequences to the terminal. It returns the first write error.
func Text(w io.Writer, r *gate.Result) error {
	bw := bufio.NewWriter(w)
	if r == nil {
		fmt.Fprintln(bw, "agentgate: no result")
		return bw.Flush()
	}
	esc := func(s string) string { return plain(s, maxTextRunes) }
	_, word, _ := strings.Cut(verdictLabel(r.Verdict, esc), " ")
	fmt.Fprintf(bw, "agentgate: %s, %s%s\n%s\n", word, checkState(r), successClause(r), sentence(r, esc))
	if r.IdentityNote != "" {
		fmt.Fprintf(bw, "Note: %s\n", esc(r.IdentityNote))
	}
	textComparison(bw, r, esc)
	textTrend(bw, r, esc)
	textGates(bw, r.Gates, esc)
	if r.Outcomes != nil {
		textOutcomes(bw, r.Outcomes, esc)
	}
	if r.Reliability != nil {
		textReliability(bw, r.Reliability, r.Notes, esc)
	}
	if r.PassK != nil {
		textPassK(bw, r.PassK, esc)
	}
	if r.Coherence != nil {
		textCoherence(bw, r.Coherence, esc)
	}
	if r.Agreement != nil {
		textAgreement(bw, r.Agreement, esc)
	}
	profile := string(r.Profile)
	if profile == "" {
		profile = "default"
	}
	fmt.Fprintf(bw, "\nProfile: %s%s\n", esc(profile), budgetNote(r))
	return bw.Flush()
}

// textGates writes the gates, each with ✓, ✗ or - and its value against its threshold.
func textGates(bw io.Writer, gates []gate.GateResult, esc func(string) string) {
	if len(gates) == 0 {
		return
	}
	fmt.Fprintln(bw, "\nGates:")
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
	for _, g := range gates {
		mark, value, status := "✓", gateValue(g), "holds"
		switch {
		case g.Skipped:
			mark, value, status = "-", "n/a", "skipped"
			if !g.Passed {
				mark, status = "✗", "BREACHED (skipped, measured nothing: fail-on-skipped)"
			}
			if g.Note != "" {
				status += ": " + plain(g.Note, 0)
			}
		case !g.Passed:
			mark, status = "✗", "BREACHED"
		}
		fmt.Fprintf(tw, "  %s %s\t%s\t%s\t%s\n", mark, esc(g.Name), value, gateThreshold(g), status)
	}
	tw.Flush()
}

// textOutcomes writes the runs' outcomes: how many succeeded, the failed ones, the unmatched.
func textOutcomes(bw io.Writer, o *outcome.Summary, esc func(string) string) {
	fmt.Fprintf(bw, "\nOutcomes: %d of %s succeeded", o.Successes, plural(o.Known, "run", "runs"))
	if o.Known > 0 {
		fmt.Fprintf(bw, " (%s, Wilson 95%% %s–%s)", num(o.SuccessRate), num(o.Interval[0]), num(o.Interval[1]))
	}
	fmt.Fprintf(bw, "; %s without an outcome\n", plural(o.WithoutOutcome, "run", "runs"))
	if o.Failures > 0 {
		fmt.Fprintf(bw, "  %s, %d with no reliability signal\n", plural(o.Failures, "failed run", "failed runs"), o.Unexplained)
	}
	if o.Unmatched > 0 {
		fmt.Fprintf(bw, "  %s in the outcomes input %s no trace: %s\n", plural(o.Unmatched, "outcome", "outcomes"),
			pluralWord(o.Unmatched, "matches", "match"), idList(o.UnmatchedIDs, o.Unmatched, maxInlineIDs, esc))
	}
	if o.Untraced > 0 {
		fmt.Fprintf(bw, "  %s, %s, %s no trace; the success rate counts %s as the report does: %s\n",
			plural(o.Untraced, "instance a SWE-bench report names", "instances a SWE-bench report names"), resolvedOf(o),
			pluralWord(o.Untraced, "leaves", "leave"), pluralWord(o.Untraced, "it", "them"), idList(o.UntracedIDs, o.Untraced, maxInlineIDs, esc))
	}
}

// textReliability writes the verdicts' counts, the notes on reading and the first non-PASS
// traces, each with its strongest finding.
func textReliability(bw io.Writer, s *reliability.Summary, notes []string, esc func(string) string) {
	fmt.Fprintf(bw, "\nReliability: %s: %s FAIL, %s WARN, %s PASS\n", plural(s.Total, "trace", "traces"), count(s.Fail), count(s.Warn), count(s.Pass))
	for _, n := range notes {
		fmt.Fprintf(bw, "  note: %s\n", plain(n, maxProseRunes))
	}
	list := flagged(s)
	for i, t := range list {
		if i == TextTraces {
			fmt.Fprintf(bw, "  … %s more non-PASS in the JSON report (--json FILE)\n", count(len(list)-i))
			break
		}
		loc := location(t.File, t.Line)
		if loc != "" {
			loc = "  " + esc(loc)
		}
		fmt.Fprintf(bw, "  %-4s  %s  %s%s\n", esc(string(t.Verdict)), num(t.Score), esc(t.ID), loc)
		signal, evidence, _ := finding(t, esc)
		if evidence != "" {
			signal += ": " + evidence
		}
		fmt.Fprintf(bw, "        %s\n", signal)
	}
}

// textPassK writes pass^k over the repeated trials and the flaky tasks.
func textPassK(bw io.Writer, p *compare.PassK, esc func(string) string) {
	basis := ""
	if p.OnOutcomes {
		basis = " (a trial passes when its outcome succeeded)"
	}
	fmt.Fprintf(bw, "\nRepeated trials%s: %s over %s\n", basis, passKValues(p), passKSummary(p))
	if why := p.VerdictNote(); why != "" {
		fmt.Fprintf(bw, "  pass^k %s, so a trial passes when its verdict is not FAIL (%s)\n", why, outcomesWhen)
	}
	if n := len(p.Flaky); n > 0 {
		fmt.Fprintf(bw, "  %s%s: %s\n", plural(n, "flaky task", "flaky tasks"), flakyBasis(p), idList(p.Flaky, n, maxInlineIDs, esc))
	} else if flakyBasis(p) != "" {
		fmt.Fprintf(bw, "  no flaky task%s: every task passed all its trials or none\n", flakyBasis(p))
	}
}

// textCoherence writes the mean RCS and the lowest tasks.
func textCoherence(bw io.Writer, s *coherence.Summary, esc func(string) string) {
	fmt.Fprintf(bw, "\nCoherence: mean RCS %s over %s\n", num(s.Mean), plural(s.Total, "task", "tasks"))
	low := lowest(s, 3)
	if len(low) > 0 {
		parts := make([]string, len(low))
		for i, t := range low {
			parts[i] = esc(t.ID) + " " + num(t.RCS)
			if t.Note != "" {
				parts[i] += " (" + esc(t.Note) + ")"
			}
		}
		fmt.Fprintf(bw, "  lowest: %s\n", strings.Join(parts, ", "))
	}
}

// textAgreement writes the validators' agreement, its statistics and warnings.
func textAgreement(bw io.Writer, s *agreement.Summary, esc func(string) string) {
	fmt.Fprintf(bw, "\nAgreement: %s, percent agreement %s, κ %s\n", plural(s.N, "item", "items"), num(s.PercentAgreement), kappaText(s))
	fmt.Fprintf(bw, "  AC1 %s (SE %s), PABAK %s, abstain rate %s", num(s.AC1), num(s.AC1SE), num(s.PABAK), num(s.AbstainRate))
	if s.Band != "" {
		fmt.Fprintf(bw, ", band %s", esc(s.Band))
	}
	fmt.Fprintf(bw, "\n  %s", plural(agreement.CountDisagreements(s.Items), "disagreement", "disagreements"))
	if n := len(s.Unmatched); n > 0 {
		fmt.Fprintf(bw, ", %s labelled by one validator only", plural(n, "qid", "qids"))
	}
	fmt.Fprintln(bw)
	for _, w := range s.Warnings {
		fmt.Fprintf(bw, "  warning: %s\n", plain(w, maxProseRunes))
	}
}

// textComparison writes the comparison with the baseline (docs/design.md#comparison) for the terminal: one
// line per metric, the first new failures, fixed traces and FINAL flips, the units of one side
// only, the notes and pass^k side by side; or the line that says why there is none. esc
// reduces untrusted text to one line.
func textComparison(w io.Writer, r *gate.Result, esc func(string) string) {
	c := r.Comparison
	if c == nil {
		if r.BaselineNote != "" {
			fmt.Fprintf(w, "\nNot compared with a baseline: %s\n", plain(r.BaselineNote, maxProseRunes))
		}
		return
	}
	fmt.Fprintf(w, "\nCompared with %s", baseName(c.Base, esc))
	if id := esc(c.Base.RunID); id != "" {
		fmt.Fprintf(w, " (run %s)", id)
	}
	fmt.Fprintln(w, ":")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, m := range metricRows(c) {
		outcome := outcomeWords(m.test, esc)
		if m.test.Outcome == compare.Inconclusive && m.test.Note != "" {
			outcome += " (" + esc(m.test.Note) + ")"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s → %s\t%s\t%s\n", m.metric, outcome, m.base, m.head, m.change, m.stat)
	}
	tw.Flush()
	if m := c.Matching; m != nil {
		fmt.Fprintf(w, "  runs matched on %s: %d of %d in the baseline, %d of %d in this run\n", m.On, m.Matched, m.BaseRuns, m.Matched, m.HeadRuns)
		if m.Warning != "" {
			fmt.Fprintf(w, "  warning: %s\n", m.Warning)
		}
	}
	for _, l := range powerLines(c) {
		fmt.Fprintf(w, "  %s\n", l)
	}
	for _, l := range planLines(c) {
		fmt.Fprintf(w, "  %s\n", l)
	}
	textChanged(w, r, c, esc)
	lines := unitsLines(c, esc)
	for _, n := range c.Notes {
		lines = append(lines, plain(n, maxProseRunes))
	}
	for _, l := range lines {
		if l != "" {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
	if p := c.PassK; p != nil {
		side := func(q *compare.PassK) string {
			if q == nil {
				return "no trials"
			}
			return passKValues(q)
		}
		fmt.Fprintf(w, "  pass^k: base %s; head %s\n", side(p.Base), side(p.Head))
	}
}

// textChanged writes the first runs whose verdict or outcome changed from the baseline's
// (new FAIL verdicts, runs newly failed or fixed by outcome) and the FINAL flips of the
// agreement, each list cut at maxInlineIDs.
func textChanged(w io.Writer, r *gate.Result, c *compare.Comparison, esc func(string) string) {
	ids := func(pairs []compare.TracePair) string {
		list := make([]string, min(len(pairs), maxInlineIDs))
		for i := range list {
			list[i] = pairs[i].Head.ID
		}
		return idList(list, len(pairs), maxInlineIDs, esc)
	}
	if m := c.Reliability; m != nil {
		if n := len(m.NewFailureTraces); n > 0 {
			fmt.Fprintf(w, "  new FAIL verdicts: %s\n", ids(m.NewFailureTraces))
		}
		if n := len(m.FixedTraces); n > 0 {
			fmt.Fprintf(w, "  no longer FAIL: %s\n", ids(m.FixedTraces))
		}
	}
	if m := c.Success; m != nil {
		if n := m.NewFailures - m.MissingNewFailures; n > 0 {
			fmt.Fprintf(w, "  runs newly failed by outcome: %s\n", idList(runNames(r, m.NewFailureIDs), n, maxInlineIDs, esc))
		}
		if m.Fixed > 0 {
			fmt.Fprintf(w, "  runs fixed by outcome: %s\n", idList(runNames(r, m.FixedIDs), m.Fixed, maxInlineIDs, esc))
		}
	}
	if m := c.Agreement; m != nil {
		if n := len(m.ShippedToRejected); n > 0 {
			fmt.Fprintf(w, "  FINAL shipped → REJECT: %s\n", idList(m.ShippedToRejected, n, maxInlineIDs, esc))
		}
		if n := len(m.RejectedToShipped); n > 0 {
			fmt.Fprintf(w, "  FINAL REJECT → shipped: %s\n", idList(m.RejectedToShipped, n, maxInlineIDs, esc))
		}
	}
}

// TraceText writes one trace's evaluation for `agentgate rs1 --verbose`: its id, verdict,
// overall score and place, then each signal's score with the evidence for it. Like Text it
// uses no markdown and strips control characters. It returns the first write error.
func TraceText(w io.Writer, t reliability.Result) error {
	bw := bufio.NewWriter(w)
	esc := func(s string) string { return plain(s, maxProseRunes) }
	fmt.Fprintf(bw, "%s  %s  score %s", esc(t.ID), esc(string(t.Verdict)), num(t.Score))
	if loc := location(t.File, t.Line); loc != "" {
		fmt.Fprintf(bw, "  (%s)", esc(loc))
	}
	fmt.Fprintln(bw)
	vals := t.Signals
	used := make([]bool, len(t.Evidence))
	for i := range reliability.SignalTable {
		name := reliability.SignalTable[i].Name
		fmt.Fprintf(bw, "  %-13s  %s", name, num(vals[i]))
		pad := ""
		for j, ev := range t.Evidence {
			if ev.Signal == name {
				fmt.Fprintf(bw, "%s  %s\n", pad, esc(ev.Text))
				pad, used[j] = strings.Repeat(" ", 2+13+2+6), true
			}
		}
		if pad == "" {
			fmt.Fprintln(bw)
		}
	}
	// Evidence for a signal outside the table (none today) is still shown.
	for j, ev := range t.Evidence {
		if !used[j] {
			fmt.Fprintf(bw, "  %s: %s\n", esc(ev.Signal), esc(ev.Text))
		}
	}
	return bw.Flush()
}
