package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/agreement"
	"github.com/agentgate/agentgate/gate/coherence"
	"github.com/agentgate/agentgate/gate/compare"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/verdict"
	"github.com/agentgate/agentgate/internal/numfmt"
)

// num formats a score or rate for people: 4 decimals, no negative zero.
func num(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	}
	s := strconv.FormatFloat(v, 'f', 4, 64)
	if s == "-0.0000" {
		s = "0.0000"
	}
	return s
}

// threshold formats a gate threshold as given: its shortest exact form, with at least two
// decimals ("0.75", "0.50", "0.125").
func threshold(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return num(v)
	}
	s := strconv.FormatFloat(v, 'f', -1, 64)
	dot := strings.IndexByte(s, '.')
	if dot < 0 {
		return s + ".00"
	}
	if d := len(s) - dot - 1; d < 2 {
		s += strings.Repeat("0", 2-d)
	}
	return s
}

// count formats an integer with thousands separators: 20000 → "20,000".
func count(n int) string { return numfmt.Count(int64(n)) }

// naturalCompare orders strings as a person reads them: runs of digits by their value, the
// rest byte by byte, so "1#1" < "3#3" < "14#14" and "task2" < "task10"; strings that compare
// equal so (leading zeros) fall back to byte order.
func naturalCompare(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if isDigit(a[i]) && isDigit(b[j]) {
			si, sj := i, j
			for i < len(a) && isDigit(a[i]) {
				i++
			}
			for j < len(b) && isDigit(b[j]) {
				j++
			}
			x, y := strings.TrimLeft(a[si:i], "0"), strings.TrimLeft(b[sj:j], "0")
			if c := cmp.Or(cmp.Compare(len(x), len(y)), strings.Compare(x, y)); c != 0 {
				return c
			}
			continue
		}
		if c := cmp.Compare(a[i], b[j]); c != 0 {
			return c
		}
		i, j = i+1, j+1
	}
	return cmp.Or(cmp.Compare(len(a)-i, len(b)-j), strings.Compare(a, b))
}

// plural returns "1 trace" or "3 traces".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return count(n) + " " + many
}

// every says that a statement holds of each of n things (n ≥ 1), in words that read right for
// any n: "the one trace passes", "both traces pass", "all 3 traces pass". one and many are the
// noun, verbOne and verbMany the verb, singular and plural.
func every(n int, one, many, verbOne, verbMany string) string {
	switch n {
	case 1:
		return "the one " + one + " " + verbOne
	case 2:
		return "both " + many + " " + verbMany
	}
	return "all " + count(n) + " " + many + " " + verbMany
}

// capitalized returns s with its first letter in upper case (s is ASCII-led prose).
func capitalized(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// pluralWord returns one or many by n, without the number.
func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// holds evaluates a gate's comparison.
func holds(v float64, op string, t float64) bool {
	if op == "<=" {
		return v <= t
	}
	return v >= t
}

// gateValue formats a gate's value with 4 decimals, or with as many more as it takes for the
// printed value to compare with the threshold the way the real value does: κ 0.74996 against
// 0.75 prints "0.74996", never a misleading "0.7500 < 0.75".
func gateValue(g gate.GateResult) string {
	if isCountGate(g.Name) {
		return count(int(math.Round(g.Value)))
	}
	s := num(g.Value)
	if math.IsNaN(g.Value) || math.IsInf(g.Value, 0) {
		return s
	}
	want := holds(g.Value, g.Op, g.Threshold)
	for prec := 5; prec <= 17; prec++ {
		r, err := strconv.ParseFloat(s, 64)
		if err == nil && holds(r, g.Op, g.Threshold) == want {
			break
		}
		s = strconv.FormatFloat(g.Value, 'f', prec, 64)
	}
	return s
}

// gateThreshold formats a gate's threshold with its operator: "≥ 0.75", "≤ 0".
func gateThreshold(g gate.GateResult) string {
	t := threshold(g.Threshold)
	if isCountGate(g.Name) {
		t = count(int(math.Round(g.Threshold)))
	}
	return opSymbol(g.Op) + " " + t
}

// opSymbol turns ">=" and "<=" into "≥" and "≤".
func opSymbol(op string) string {
	switch op {
	case ">=":
		return "≥"
	case "<=":
		return "≤"
	}
	return op
}

// isCountGate reports the gates whose values are counts, printed as integers: failed traces,
// new failures and degraded metrics.
func isCountGate(name string) bool {
	return name == gate.MaxFailedTraces || name == compare.MaxNewFailures || name == compare.FailOnRegression
}

// breachPhrase says in words why g is breached: "3 traces failed (max 0)",
// "κ 0.6100 < 0.75", and for the regression gate the figure that moved: "success fell from
// 70% to 35% on 100 matched runs (40 newly failed, 5 fixed), significant (McNemar p < 0.0001)".
// esc escapes the untrusted gate name for the target format.
func breachPhrase(r *gate.Result, g gate.GateResult, esc func(string) string) string {
	if g.Skipped { // breached by fail-on-skipped: it measured nothing
		return esc(g.Name) + " was skipped, so it measured nothing (fail-on-skipped)"
	}
	v, t := gateValue(g), threshold(g.Threshold)
	if isCountGate(g.Name) {
		n, max := int(math.Round(g.Value)), count(int(math.Round(g.Threshold)))
		switch g.Name {
		case compare.MaxNewFailures:
			return fmt.Sprintf("%s against the baseline (max %s)", plural(n, "new FAIL verdict", "new FAIL verdicts"), max)
		case compare.FailOnRegression:
			if r.Comparison != nil {
				if moved := degradedPhrases(r.Comparison); len(moved) > 0 {
					return strings.Join(moved, "; ")
				}
				if deg := r.Comparison.Degraded(); len(deg) > 0 {
					return esc(strings.Join(deg, ", ")) + " degraded against the baseline"
				}
			}
			return plural(n, "metric", "metrics") + " degraded against the baseline"
		}
		return fmt.Sprintf("%s failed (max %s)", plural(n, "trace", "traces"), max)
	}
	cmp := "vs"
	switch g.Op {
	case ">=":
		cmp = "<"
	case "<=":
		cmp = ">"
	}
	var what string
	switch g.Name {
	case gate.CoherenceMin:
		what = "mean coherence (RCS)"
	case gate.PAMin:
		what = "percent agreement"
	case gate.KappaMin:
		what = "κ"
	case gate.AbstainMax:
		what = "abstain rate"
	case compare.PassKMin:
		what = "pass^k"
		if g.K > 0 {
			what = fmt.Sprintf("pass^%d", g.K)
		}
	default:
		what = esc(g.Name)
	}
	return fmt.Sprintf("%s %s %s %s", what, v, cmp, t)
}

// sentence is the one sentence under the verdict that says why, with esc applied to untrusted
// names. ok tells whether the check fails.
func sentence(r *gate.Result, esc func(string) string) string {
	breached := r.Breached()
	if len(breached) > 0 {
		parts := make([]string, len(breached))
		for i, g := range breached {
			parts[i] = breachPhrase(r, g, esc)
		}
		// One gate: what moved first, then the gate that it breached, named once.
		out := upperFirst(parts[0]) + ": " + esc(breached[0].Name) + " breached."
		if len(breached) > 1 || strings.Contains(parts[0], esc(breached[0].Name)) {
			out = fmt.Sprintf("%s breached: %s.", plural(len(breached), "gate", "gates"), strings.Join(parts, "; "))
		}
		if r.Verdict == verdict.Fail && r.ExitCode == gate.ExitPass {
			out += reportOnly
		}
		return out
	}
	var skipped []string
	for _, g := range r.Gates {
		if g.Skipped {
			skipped = append(skipped, esc(g.Name))
		}
	}
	var b strings.Builder
	switch {
	case len(r.Gates) == 0:
		b.WriteString("No gate ran")
	case len(r.Gates) == 1:
		b.WriteString("The gate holds")
	default:
		b.WriteString(capitalized(every(len(r.Gates), "gate", "gates", "holds", "hold")))
	}
	switch {
	case len(skipped) == 0:
	case len(skipped) <= 2:
		fmt.Fprintf(&b, " (%s skipped)", strings.Join(skipped, " and "))
	default:
		fmt.Fprintf(&b, " (%s skipped)", count(len(skipped)))
	}
	rel := r.Reliability
	switch {
	case rel != nil && rel.Warn+rel.Fail > 0:
		need := "need"
		if rel.Warn+rel.Fail == 1 {
			need = "needs"
		}
		fmt.Fprintf(&b, ", but %s of %s %s a look: ", count(rel.Warn+rel.Fail), plural(rel.Total, "trace", "traces"), need)
		var p []string
		if rel.Fail > 0 {
			p = append(p, fmt.Sprintf("%s FAIL (within max-failed-traces)", count(rel.Fail)))
		}
		if rel.Warn > 0 {
			p = append(p, count(rel.Warn)+" WARN")
		}
		b.WriteString(strings.Join(p, ", "))
		b.WriteString(".")
	case rel != nil && rel.Total > 0:
		fmt.Fprintf(&b, "; %s.", every(rel.Total, "trace", "traces", "passes", "pass"))
	default:
		b.WriteString(".")
	}
	if r.Verdict == verdict.Fail {
		b.WriteString(" The verdict is FAIL although no gate is marked breached: see below.")
	}
	if r.ExitCode == gate.ExitWarn {
		b.WriteString(" The check fails because fail-on is warn.")
	}
	return b.String()
}

// reportOnly is what the sentence adds when the verdict is FAIL and the check still passes:
// fail-on is never (docs/design.md#defaults).
const reportOnly = " The check passes all the same: fail-on is never, so this report only informs."

// strongest returns the finding that decided the trace's verdict (reliability.Decisive: a
// signal past its threshold, or the crash or claim the default profile raised a verdict for,
// rather than merely the highest score), its score, the evidence for it (or the first evidence
// when none names it; nil when there is none) and how many other evidence items there are.
func strongest(t *reliability.Result) (name string, score float64, ev *reliability.Evidence, others int) {
	name, score, ev = reliability.Decisive(t)
	if ev == nil && len(t.Evidence) > 0 {
		ev = &t.Evidence[0]
	}
	if ev != nil {
		others = len(t.Evidence) - 1
	}
	return name, score, ev, others
}

// finding is what the report says about a trace's strongest signal: "loop 1.0000" and the
// evidence text, prefixed with its own signal's name when the strongest signal has none
// ("tool_misuse: …"); text is "" when the trace has no evidence at all. esc is applied to the
// untrusted parts.
func finding(t *reliability.Result, esc func(string) string) (signal, text string, others int) {
	name, score, ev, others := strongest(t)
	signal = name + " " + num(score)
	if name == reliability.SignalTrace { // a finding about the run as a whole, with no score
		signal = name
	}
	if ev == nil {
		return signal, "", 0
	}
	text = esc(ev.Text)
	if ev.Signal != name {
		text = esc(ev.Signal) + ": " + text
	}
	return signal, text, others
}

// verdictRank orders trace verdicts for listing: FAIL first.
func verdictRank(v verdict.Verdict) int {
	switch v {
	case verdict.Fail:
		return 0
	case verdict.Warn:
		return 1
	case verdict.Pass:
		return 3
	}
	return 2
}

// flagged returns the traces that did not PASS, FAIL first, then by score descending, then by
// id, file and line.
func flagged(s *reliability.Summary) []*reliability.Result {
	if s == nil {
		return nil
	}
	var out []*reliability.Result
	for i := range s.Traces {
		if s.Traces[i].Verdict != verdict.Pass {
			out = append(out, &s.Traces[i])
		}
	}
	slices.SortStableFunc(out, func(a, b *reliability.Result) int {
		return cmp.Or(
			cmp.Compare(verdictRank(a.Verdict), verdictRank(b.Verdict)),
			cmp.Compare(b.Score, a.Score), // descending; NaN last
			cmp.Compare(a.ID, b.ID),
			cmp.Compare(a.File, b.File),
			cmp.Compare(a.Line, b.Line),
		)
	})
	return out
}

// lowest returns the n tasks with the lowest RCS (ties by id, file, line).
func lowest(s *coherence.Summary, n int) []*coherence.TaskResult {
	if s == nil {
		return nil
	}
	out := make([]*coherence.TaskResult, len(s.Tasks))
	for i := range s.Tasks {
		out[i] = &s.Tasks[i]
	}
	slices.SortStableFunc(out, func(a, b *coherence.TaskResult) int {
		return cmp.Or(
			cmp.Compare(a.RCS, b.RCS), // ascending; NaN first, as the least coherent
			cmp.Compare(a.ID, b.ID),
			cmp.Compare(a.File, b.File),
			cmp.Compare(a.Line, b.Line),
		)
	})
	if n < len(out) {
		out = out[:n]
	}
	return out
}

// location formats file:line; either part may be missing.
func location(file string, line int) string {
	switch {
	case file != "" && line > 0:
		return file + ":" + strconv.Itoa(line)
	case file != "":
		return file
	case line > 0:
		return "line " + strconv.Itoa(line)
	}
	return ""
}

// kappaText describes κ with its standard error and interval, or says it is undefined.
func kappaText(a *agreement.Summary) string {
	switch {
	case !a.KappaDefined && a.N == 0:
		return "undefined (no item was labelled by both validators)"
	case !a.KappaDefined:
		return "undefined (both validators gave every item the same single label)"
	}
	return fmt.Sprintf("%s (SE %s, 95%% CI %s to %s)", num(a.Kappa), num(a.KappaSE), num(a.KappaCI[0]), num(a.KappaCI[1]))
}

// checkState says in words whether the check is green: "check failing" when the step fails,
// "check passing" on PASS, "check passing, with warnings" for a WARN or FAIL the step lets
// through (docs/reference.md, "fail-on"), "report only" under fail-on never.
func checkState(r *gate.Result) string {
	switch {
	case r.ExitCode != gate.ExitPass:
		return "check failing"
	case r.Verdict == verdict.Pass:
		return "check passing"
	case r.Verdict == verdict.Fail:
		return "check passing, report only"
	}
	return "check passing, with warnings"
}

// verdictCell is a verdict's emoji and word for a table cell, joined by a no-break space so
// that a narrow column never breaks between them.
func verdictCell(v verdict.Verdict) string {
	return strings.Replace(verdictLabel(v, EscapeCell), " ", "\u00a0", 1)
}

// verdictLabel returns the emoji and word for a verdict; esc escapes an unknown verdict.
func verdictLabel(v verdict.Verdict, esc func(string) string) string {
	switch v {
	case verdict.Pass:
		return "✅ PASS"
	case verdict.Warn:
		return "⚠️ WARN"
	case verdict.Fail:
		return "❌ FAIL"
	}
	if v == "" {
		return "❔ no verdict"
	}
	return "❔ " + esc(string(v))
}

// successClause is what the verdict line adds when the runs' own outcomes were read
// (docs/design.md#defaults), so that no verdict stands bare over a suite whose runs failed: " · 0 of 4 runs
// succeeded, no success gate set"; " · 3 of 4 runs with an outcome succeeded (2 have none),
// 0.7500 below success-rate-min 0.90"; "" when no outcome was read.
func successClause(r *gate.Result) string {
	o := r.Outcomes
	if o == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString(" · ")
	switch {
	case o.Known == 0:
		fmt.Fprintf(&b, "none of %s has an outcome", plural(o.Runs, "run", "runs"))
	case o.WithoutOutcome > 0:
		fmt.Fprintf(&b, "%s of %s with an outcome succeeded (%s %s none)", count(o.Successes), plural(o.Known, "run", "runs"),
			count(o.WithoutOutcome), pluralWord(o.WithoutOutcome, "has", "have"))
	default:
		fmt.Fprintf(&b, "%s of %s succeeded", count(o.Successes), plural(o.Known, "run", "runs"))
	}
	var g *gate.GateResult
	for i := range r.Gates {
		if r.Gates[i].Name == gate.SuccessRateMin {
			g = &r.Gates[i]
		}
	}
	switch {
	case g == nil && r.Comparison != nil && r.Comparison.Success != nil:
		// The regression gate compares success with the baseline: "no success gate set"
		// would read as if nothing watched it.
	case g == nil:
		b.WriteString(", no success gate set")
	case g.Skipped && !g.Passed:
		fmt.Fprintf(&b, ", so %s %s breached", gate.SuccessRateMin, threshold(g.Threshold))
	case g.Skipped:
		fmt.Fprintf(&b, ", so %s %s was skipped", gate.SuccessRateMin, threshold(g.Threshold))
	case !g.Passed:
		fmt.Fprintf(&b, ", %s below %s %s", num(g.Value), gate.SuccessRateMin, threshold(g.Threshold))
	default:
		fmt.Fprintf(&b, ", %s, %s %s holds", num(g.Value), gate.SuccessRateMin, threshold(g.Threshold))
	}
	return b.String()
}
