package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	tw "github.com/olekukonko/tablewriter/tw"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/outcome"
)

// maxFailedRunsListed is how many failed runs the outcomes section lists; every run's outcome
// is in the JSON report.
const maxFailedRunsListed = 20

// writeOutcomes writes the outcomes section (SPEC §15): the success rate with its Wilson
// interval, tokens per success, the failed runs with their strongest finding, and how each
// reliability signal tracks the outcomes.
func (d *doc) writeOutcomes(b *strings.Builder) {
	s := d.r.Outcomes
	if s == nil {
		return
	}
	fmt.Fprintf(b, "\n### %sOutcomes: %d of %s succeeded", d.mark(gate.SuccessRateMin), s.Successes, plural(s.Known, "run", "runs"))
	if s.Known > 0 {
		fmt.Fprintf(b, " (%s, Wilson 95%% interval %s–%s)", num(s.SuccessRate), num(s.Interval[0]), num(s.Interval[1]))
	}
	fmt.Fprintf(b, "; %s without an outcome\n\n", plural(s.WithoutOutcome, "run", "runs"))
	b.WriteString("A run's outcome is its harness's own verdict (reward, resolved, score); it is read, never inferred, and the evaluators' verdicts below are not changed by it.")
	if t := s.TokensPerSuccess; t != nil {
		fmt.Fprintf(b, " %s tokens per successful run (the tokens of every run with an outcome over the successes).", tokens(*t))
	}
	b.WriteString("\n")
	if s.Unmatched > 0 {
		fmt.Fprintf(b, "\n%s in the outcomes input %s no trace: %s.\n", plural(s.Unmatched, "outcome", "outcomes"), pluralWord(s.Unmatched, "matches", "match"),
			idList(s.UnmatchedIDs, s.Unmatched, maxFailedRunsListed, codeText))
	}
	if s.Failures > 0 {
		fmt.Fprintf(b, "\n**%s**, with the strongest reliability finding (%d with no signal: failures no evaluator explains):\n\n",
			plural(s.Failures, "failed run", "failed runs"), s.Unexplained)
		var rows [][]string
		for i := range d.r.Reliability.Traces {
			t := &d.r.Reliability.Traces[i]
			if !t.Run.Known || t.Run.Success {
				continue
			}
			if len(rows) == maxFailedRunsListed {
				break
			}
			signal, evidence := "no signal", ""
			if outcome.Explained(t) {
				signal, evidence = findingCells(t)
			}
			rows = append(rows, []string{CodeCell(t.ID), num(t.Run.Value), verdictLabel(t.Verdict, EscapeCell), signal, orDash(evidence)})
		}
		writeTable(b, []column{{"run", tw.AlignLeft}, {"outcome", tw.AlignRight}, {"verdict", tw.AlignLeft}, {"strongest finding", tw.AlignLeft}, {"evidence", tw.AlignLeft}}, rows)
		if s.Failures > maxFailedRunsListed {
			fmt.Fprintf(b, "\nThe first %d are listed; every run's outcome is in the JSON report.\n", maxFailedRunsListed)
		}
	}
	if s.Known > 0 {
		fmt.Fprintf(b, "\n**Calibration** on this suite's %s and %s: which signals track its own outcomes.\n\n",
			plural(s.Failures, "failed run", "failed runs"), plural(s.Successes, "successful run", "successful runs"))
		rows := make([][]string, 0, len(s.Calibration))
		for _, c := range s.Calibration {
			p := "—"
			if c.Precision != nil {
				p = num(*c.Precision)
			}
			rows = append(rows, []string{c.Signal, fmt.Sprint(c.FlaggedFailed), fmt.Sprint(c.FlaggedSucceeded), p})
		}
		writeTable(b, []column{{"signal", tw.AlignLeft}, {"flags failed runs", tw.AlignRight}, {"flags successful runs", tw.AlignRight}, {"precision", tw.AlignRight}}, rows)
	}
}

// tokens writes a number of tokens to one decimal, without trailing zeros: "2651", "157.3".
func tokens(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }
