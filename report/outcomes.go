package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	tw "github.com/olekukonko/tablewriter/tw"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/outcome"
	"github.com/agentgate/agentgate/gate/reliability"
)

// maxFailedRunsListed is how many failed runs the outcomes section lists; every run's outcome
// is in the JSON report.
const maxFailedRunsListed = 20

// writeOutcomes writes the outcomes section (docs/design.md#outcomes): the success rate with its Wilson
// interval, tokens per success, the failed runs with a reliability finding (at most
// maxFailedRunsListed rows, those a crash explains in one row each kind), the failed runs no
// signal explains in one line, and, collapsed, how each reliability signal tracks the outcomes.
func (d *doc) writeOutcomes(b *strings.Builder) {
	s := d.r.Outcomes
	if s == nil {
		return
	}
	fmt.Fprintf(b, "\n### %sOutcomes: %s of %s succeeded", d.mark(gate.SuccessRateMin), count(s.Successes), plural(s.Known, "run", "runs"))
	if s.Known > 0 {
		fmt.Fprintf(b, " (%s, Wilson 95%% interval %s–%s)", percent(s.SuccessRate), percent(s.Interval[0]), percent(s.Interval[1]))
	}
	if s.WithoutOutcome > 0 {
		fmt.Fprintf(b, "; %s without an outcome", plural(s.WithoutOutcome, "run", "runs"))
	}
	b.WriteString("\n\nA run's outcome is its harness's own verdict (reward, resolved, score); it is read, never inferred, and the evaluators' verdicts below are not changed by it.")
	if t := s.TokensPerSuccess; t != nil {
		fmt.Fprintf(b, " %s tokens per successful run (the tokens of every run with an outcome over the successes).", tokens(*t))
	}
	b.WriteString("\n")
	if s.Unmatched > 0 {
		fmt.Fprintf(b, "\n%s in the outcomes input %s no trace: %s.\n", plural(s.Unmatched, "outcome", "outcomes"), pluralWord(s.Unmatched, "matches", "match"),
			idList(s.UnmatchedIDs, s.Unmatched, maxFailedRunsListed, codeText))
	}
	if s.Untraced > 0 {
		fmt.Fprintf(b, "\n%s, %s, %s no trace; the success rate counts %s as the report does: %s.\n",
			plural(s.Untraced, "instance a SWE-bench report names", "instances a SWE-bench report names"), resolvedOf(s), pluralWord(s.Untraced, "leaves", "leave"),
			pluralWord(s.Untraced, "it", "them"), idList(s.UntracedIDs, s.Untraced, maxFailedRunsListed, codeText))
	}
	if n := s.TraceFailures(); n > 0 && d.r.Reliability != nil {
		d.writeFailedRuns(b, n)
	}
	d.writeCalibration(b, s)
}

// writeFailedRuns writes the failed runs: those a reliability finding explains in a table, the
// finding's rows first by verdict, one row for the runs that share a finding about the run as a
// whole (a crash: "the trace has no messages"), then the runs no signal explains in one line,
// in natural order.
func (d *doc) writeFailedRuns(b *strings.Builder, failures int) {
	type row struct {
		t     *reliability.Result
		names []string // the runs of a shared finding about the run as a whole
	}
	var rows []row
	shared := map[string]int{} // evidence of a run-wide finding → its row
	var silent []string
	for i := range d.r.Reliability.Traces {
		t := &d.r.Reliability.Traces[i]
		if !t.Run.Known || t.Run.Success {
			continue
		}
		if !outcome.Explained(t) {
			silent = append(silent, runLabel(d.r, t))
			continue
		}
		if name, _, ev := reliability.Decisive(t); name == reliability.SignalTrace && ev != nil {
			if j, ok := shared[ev.Text]; ok {
				rows[j].names = append(rows[j].names, runLabel(d.r, t))
				continue
			}
			shared[ev.Text] = len(rows)
			rows = append(rows, row{t, []string{runLabel(d.r, t)}})
			continue
		}
		rows = append(rows, row{t: t})
	}
	slices.SortStableFunc(rows, func(a, b row) int {
		return cmp.Or(cmp.Compare(verdictRank(a.t.Verdict), verdictRank(b.t.Verdict)),
			naturalCompare(runLabel(d.r, a.t), runLabel(d.r, b.t)))
	})
	if len(silent) == failures {
		slices.SortFunc(silent, naturalCompare)
		fmt.Fprintf(b, "\n**%s**, none with a reliability signal (failures no evaluator explains): %s.\n",
			plural(failures, "failed run", "failed runs"), idList(silent, failures, maxFailedRunsListed, codeText))
		return
	}
	fmt.Fprintf(b, "\n**%s**", plural(failures, "failed run", "failed runs"))
	if n := failures - len(silent); n > 0 {
		fmt.Fprintf(b, ", %s with a reliability finding:\n\n", count(n))
		cells := make([][]string, 0, min(len(rows), maxFailedRunsListed))
		for _, r := range rows[:min(len(rows), maxFailedRunsListed)] {
			signal, evidence := findingCells(r.t)
			run := CodeCell(runLabel(d.r, r.t))
			if r.names != nil {
				slices.SortFunc(r.names, naturalCompare)
				run = cellIDList(r.names, maxInlineIDs)
			}
			cells = append(cells, []string{run, verdictCell(r.t.Verdict), signal, orDash(evidence)})
		}
		writeTable(b, []column{{"run", tw.AlignLeft}, {"verdict", tw.AlignLeft}, {"strongest finding", tw.AlignLeft}, {"evidence", tw.AlignLeft}}, cells)
		if len(rows) > maxFailedRunsListed {
			fmt.Fprintf(b, "\nThe first %d of %s are listed; every run's outcome is in the JSON report.\n", maxFailedRunsListed, plural(len(rows), "row", "rows"))
		}
	} else {
		b.WriteString(":\n")
	}
	if n := len(silent); n > 0 {
		slices.SortFunc(silent, naturalCompare)
		fmt.Fprintf(b, "\n%s with no reliability signal (failures no evaluator explains): %s.\n",
			capitalized(plural(n, "failed run", "failed runs")), idList(silent, n, maxFailedRunsListed, codeText))
	}
}

// cellIDList lists ids in a table cell, each a code span, the first max of them and how many
// more there are.
func cellIDList(ids []string, max int) string {
	parts := make([]string, 0, min(len(ids), max))
	for _, id := range ids[:min(len(ids), max)] {
		parts = append(parts, CodeCell(truncate(flatten(id), maxInlineIDRunes)))
	}
	s := strings.Join(parts, ", ")
	if len(ids) > max {
		s += fmt.Sprintf(" and %s more", count(len(ids)-max))
	}
	return s
}

// writeCalibration writes, collapsed, which reliability signals track the suite's own
// outcomes: one row per signal that flags some runs but not every one (a signal that flags
// none, or every run, tells nothing about which runs fail); nothing when no signal does, or
// when the runs all failed or all succeeded.
func (d *doc) writeCalibration(b *strings.Builder, s *outcome.Summary) {
	if s.Failures == 0 || s.Successes == 0 {
		return // every signal's precision would be 100% or 0% by construction
	}
	rows := make([][]string, 0, len(s.Calibration))
	for _, c := range s.Calibration {
		flagged := c.FlaggedFailed + c.FlaggedSucceeded
		if flagged == 0 || flagged == s.Known {
			continue
		}
		p := "—"
		if c.Precision != nil {
			p = percent(*c.Precision)
		}
		rows = append(rows, []string{c.Signal, count(c.FlaggedFailed), count(c.FlaggedSucceeded), p})
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(b, "\n<details><summary>Calibration on this suite's %s and %s: which signals track its own outcomes</summary>\n\n",
		plural(s.Failures, "failed run", "failed runs"), plural(s.Successes, "successful run", "successful runs"))
	writeTable(b, []column{{"signal", tw.AlignLeft}, {"flags failed runs", tw.AlignRight}, {"flags successful runs", tw.AlignRight}, {"precision", tw.AlignRight}}, rows)
	b.WriteString(detailsClose)
}

// tokens writes a number of tokens with thousands separators, to one decimal (without trailing
// zeros) under 1,000, whole above: "157.3", "2,651", "56,471", "5,319,116".
func tokens(v float64) string {
	s := strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
	if math.Abs(v) >= 1000 {
		s = strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	}
	whole, frac, _ := strings.Cut(s, ".")
	n, err := strconv.Atoi(whole)
	if err != nil {
		return s
	}
	if frac != "" {
		return count(n) + "." + frac
	}
	return count(n)
}

// resolvedOf says how many of the untraced instances of s the report says resolved.
func resolvedOf(s *outcome.Summary) string {
	return fmt.Sprintf("%d resolved", len(s.UntracedResolved))
}
