package report

import (
	"cmp"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/coherence"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/verdict"
)

// JUnit limits: untrusted text (ids, evidence, notes) is cut so that one hostile trace cannot
// make a test reporter's page unusable.
const (
	junitMessageRunes = 1000 // a failure's message attribute, one line
	junitTextRunes    = 4000 // one evidence text or note in a body
	junitListed       = 20   // FAIL traces or lowest tasks listed under a breached gate
)

// JUnit writes r as JUnit XML for test reporters (dorny/test-reporter, GitLab, Jenkins;
// docs/design.md#shards): a <testsuite> per evaluator that ran, in the JSON report's order (reliability,
// coherence, agreement). Each suite holds first its gates, in gate-table order, then a
// <testcase> per trace or task in report order. A FAIL trace and a breached gate are
// <failure>s with their evidence as the message; a WARN trace passes and carries its evidence
// in <system-out> (the Jenkins schema allows no <properties> in a testcase); a skipped gate
// (κ undefined) is <skipped>. A task with repeated trials (docs/design.md#findings-elsewhere) is one testcase: a
// <failure> when every trial failed, else passed with a <flakyFailure> per failed trial. Nothing depends on the clock, so the same result gives the same
// bytes. The output validates against report/testdata/junit.xsd (the Jenkins xUnit JUnit
// schema's constraints).
//
// Untrusted text is escaped by encoding/xml, and characters XML 1.0 cannot hold at all (C0
// controls other than tab, line feed and carriage return, U+FFFE, U+FFFF, invalid UTF-8)
// are replaced with U+FFFD first.
func JUnit(w io.Writer, r *gate.Result) error {
	if r == nil {
		return errors.New("report: no result to write as JUnit XML")
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return fmt.Errorf("report: writing JUnit XML: %w", err)
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")

	suites := junitSuites(r)
	tests, failures, skipped := 0, 0, 0
	for _, s := range suites {
		tests += s.tests
		failures += s.failures
		skipped += s.skipped
	}
	root := xml.StartElement{Name: xml.Name{Local: "testsuites"}, Attr: []xml.Attr{
		attr("name", "agentgate"),
		attr("tests", fmt.Sprint(tests)),
		attr("failures", fmt.Sprint(failures)),
		attr("errors", "0"),
	}}
	if err := enc.EncodeToken(root); err != nil {
		return fmt.Errorf("report: writing JUnit XML: %w", err)
	}
	for _, s := range suites {
		if err := s.encode(enc); err != nil {
			return fmt.Errorf("report: writing JUnit XML: %w", err)
		}
	}
	if err := enc.EncodeToken(root.End()); err != nil {
		return fmt.Errorf("report: writing JUnit XML: %w", err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("report: writing JUnit XML: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// junitSuite is one <testsuite>: its counts (known before its cases are written, as the
// attributes come first) and a function that yields its cases one by one, so that a suite of a
// million traces is never held as XML in memory.
type junitSuite struct {
	name                     string
	tests, failures, skipped int
	gates                    []junitCase
	n                        int                   // cases after the gates
	item                     func(i int) junitCase // the i-th of those
}

// junitCase is one <testcase>, as encoding/xml writes it.
type junitCase struct {
	XMLName   xml.Name      `xml:"testcase"`
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Flaky     []junitFlaky  `xml:"flakyFailure"`
	SystemOut string        `xml:"system-out,omitempty"`
}

// junitFlaky is Surefire's <flakyFailure>: one failed trial of a test that passed in others,
// its evidence in <stackTrace> (which Surefire's schema requires).
type junitFlaky struct {
	Message    string `xml:"message,attr"`
	Type       string `xml:"type,attr"`
	StackTrace string `xml:"stackTrace"`
}

// junitMessage is a <failure> or <skipped>: a one-line message and a longer body.
type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Body    string `xml:",chardata"`
}

func (s *junitSuite) encode(enc *xml.Encoder) error {
	start := xml.StartElement{Name: xml.Name{Local: "testsuite"}, Attr: []xml.Attr{
		attr("name", s.name),
		attr("tests", fmt.Sprint(s.tests)),
		attr("failures", fmt.Sprint(s.failures)),
		attr("errors", "0"),
		attr("skipped", fmt.Sprint(s.skipped)),
	}}
	if err := enc.EncodeToken(start); err != nil {
		return err
	}
	for i := range s.gates {
		if err := enc.Encode(&s.gates[i]); err != nil {
			return err
		}
	}
	for i := 0; i < s.n; i++ {
		c := s.item(i)
		if err := enc.Encode(&c); err != nil {
			return err
		}
	}
	return enc.EncodeToken(start.End())
}

// junitSuites builds the suites of the evaluators that ran.
func junitSuites(r *gate.Result) []*junitSuite {
	var out []*junitSuite
	claimed := map[string]bool{}
	gatesOf := func(names ...string) []junitCase {
		var cs []junitCase
		for _, g := range r.Gates {
			for _, n := range names {
				if g.Name == n {
					cs = append(cs, gateCase(r, g))
				}
			}
		}
		for _, n := range names {
			claimed[n] = true
		}
		return cs
	}
	var units *junitUnits
	if s := r.Reliability; s != nil {
		u := trialUnits(s)
		units = u
		out = append(out, &junitSuite{name: "reliability", gates: gatesOf(gate.MaxFailedTraces),
			n: len(u.units), item: u.testcase})
	}
	if s := r.Coherence; s != nil {
		out = append(out, &junitSuite{name: "coherence", gates: gatesOf(gate.CoherenceMin),
			n: len(s.Tasks), item: func(i int) junitCase { return taskCase(&s.Tasks[i]) }})
	}
	if r.Agreement != nil { // its gates only: the items are many and have no verdict of their own
		out = append(out, &junitSuite{name: "agreement", gates: gatesOf(gate.PAMin, gate.KappaMin, gate.AbstainMax)})
	}
	// The gates of no evaluator's suite (the comparison's, pass^k's, any added later), so that
	// every row of the gate table is a testcase.
	var rest []junitCase
	for _, g := range r.Gates {
		if !claimed[g.Name] {
			rest = append(rest, gateCase(r, g))
		}
	}
	if len(rest) > 0 {
		out = append(out, &junitSuite{name: "gates", gates: rest})
	}
	for _, s := range out {
		s.tests = len(s.gates) + s.n
		for _, c := range s.gates {
			if c.Failure != nil {
				s.failures++
			}
			if c.Skipped != nil {
				s.skipped++
			}
		}
	}
	if len(out) > 0 && out[0].name == "reliability" {
		out[0].failures += units.failures
	}
	return out
}

// junitUnits are the testcases of the reliability suite: a trace each, except that the traces
// of a task with repeated trials (docs/design.md#repeated-trials: two or more traces naming the task and a trial)
// are one testcase, at the place of its first trial. It holds indices only, about 9 bytes a
// trace, so that a suite of a million traces is grouped beside its report in a few MB.
type junitUnits struct {
	s *reliability.Summary
	// units are the testcases in order: i ≥ 0 is trace i, i < 0 is group −i−1.
	units []int32
	// trials are the indices of the traces with a task and a trial, by task, trial and id;
	// group g is trials[bounds[g][0]:bounds[g][1]].
	trials   []int32
	bounds   [][2]int32
	failures int // FAIL traces alone, and tasks that failed every trial
}

// isTrial reports whether t names its task and trial.
func isTrial(t *reliability.Result) bool {
	return t.Attempt != nil && t.Task != "" && t.Trial != nil
}

// trialUnits groups s's traces into testcases.
func trialUnits(s *reliability.Summary) *junitUnits {
	u := &junitUnits{s: s}
	for i := range s.Traces {
		if isTrial(&s.Traces[i]) {
			u.trials = append(u.trials, int32(i))
		}
	}
	slices.SortFunc(u.trials, func(a, b int32) int {
		ta, tb := &s.Traces[a], &s.Traces[b]
		return cmp.Or(cmp.Compare(ta.Suite, tb.Suite), cmp.Compare(ta.Task, tb.Task), cmp.Compare(*ta.Trial, *tb.Trial), cmp.Compare(ta.ID, tb.ID), cmp.Compare(a, b))
	})
	// The groups of two or more trials, each at its first trace in report order.
	grouped := make([]bool, len(s.Traces))
	type head struct{ first, group int32 }
	var heads []head
	for lo := 0; lo < len(u.trials); {
		hi := lo + 1
		for hi < len(u.trials) && s.Traces[u.trials[hi]].Task == s.Traces[u.trials[lo]].Task && s.Traces[u.trials[hi]].Suite == s.Traces[u.trials[lo]].Suite {
			hi++
		}
		if hi-lo > 1 {
			g := int32(len(u.bounds))
			u.bounds = append(u.bounds, [2]int32{int32(lo), int32(hi)})
			first := u.trials[lo]
			for _, k := range u.trials[lo:hi] {
				grouped[k] = true
				first = min(first, k)
			}
			heads = append(heads, head{first, g})
		}
		lo = hi
	}
	slices.SortFunc(heads, func(a, b head) int { return cmp.Compare(a.first, b.first) })
	for i, h := int32(0), 0; int(i) < len(s.Traces); i++ {
		switch {
		case h < len(heads) && heads[h].first == i:
			g := heads[h].group
			u.units = append(u.units, -g-1)
			if u.failed(g) == len(u.group(g)) {
				u.failures++
			}
			h++
		case !grouped[i]:
			u.units = append(u.units, i)
			if s.Traces[i].Verdict == verdict.Fail {
				u.failures++
			}
		}
	}
	return u
}

// group returns the traces of group g, by trial.
func (u *junitUnits) group(g int32) []int32 {
	return u.trials[u.bounds[g][0]:u.bounds[g][1]]
}

// failed counts the FAIL trials of group g: a trial passes when its verdict is not FAIL.
func (u *junitUnits) failed(g int32) int {
	n := 0
	for _, i := range u.group(g) {
		if u.s.Traces[i].Verdict == verdict.Fail {
			n++
		}
	}
	return n
}

// testcase is the i-th testcase of the suite.
func (u *junitUnits) testcase(i int) junitCase {
	k := u.units[i]
	if k >= 0 {
		return traceCase(&u.s.Traces[k])
	}
	return u.taskCase(-k - 1)
}

// taskCase is the testcase of a task with repeated trials: it fails when every trial failed,
// with each trial's evidence in the body; it passes with a <flakyFailure> per failed trial
// (Surefire's convention for a test that failed some reruns) when some trials passed.
func (u *junitUnits) taskCase(g int32) junitCase {
	trials := u.group(g)
	first := &u.s.Traces[trials[0]]
	name := first.Task
	if first.Suite != "" {
		name = first.Suite + "/" + name // tasks of two suites may share an id (docs/design.md#run-identity)
	}
	c := junitCase{Name: xmlLine(name, MaxCellRunes), Classname: "agentgate.reliability"}
	failed := u.failed(g)
	var summary strings.Builder
	fmt.Fprintf(&summary, "%d of %d trials passed", len(trials)-failed, len(trials))
	var all strings.Builder
	for _, i := range trials {
		t := &u.s.Traces[i]
		line := fmt.Sprintf("trial %d: %s %s (%s), score %s", *t.Trial, t.Verdict, xmlLine(t.ID, MaxCellRunes),
			xmlLine(location(t.File, t.Line), MaxCellRunes), num(t.Score))
		summary.WriteString("\n" + line)
		if t.Verdict != verdict.Fail {
			continue
		}
		body := traceBody(t)
		if all.Len() > 0 {
			all.WriteString("\n\n")
		}
		fmt.Fprintf(&all, "trial %d: %s", *t.Trial, body)
		if failed < len(trials) {
			c.Flaky = append(c.Flaky, junitFlaky{Message: xmlLine(fmt.Sprintf("Trial %d failed: %s", *t.Trial, failMessage(t)), junitMessageRunes),
				Type: "FAIL", StackTrace: body})
		}
	}
	if failed == len(trials) {
		c.Failure = &junitMessage{Message: xmlLine(fmt.Sprintf("%s; trial %d: %s", capitalized(every(len(trials), "trial", "trials", "failed", "failed")), *first.Trial, failMessage(first)), junitMessageRunes),
			Type: "FAIL", Body: all.String()}
	}
	c.SystemOut = summary.String()
	return c
}

// gateCase is the testcase of one gate: a failure when breached, with the offending traces or
// tasks in the body.
func gateCase(r *gate.Result, g gate.GateResult) junitCase {
	c := junitCase{Name: "gate " + xmlSafe(g.Name), Classname: "agentgate.gates"}
	line := fmt.Sprintf("%s: %s, must be %s", xmlSafe(g.Name), gateValue(g), gateThreshold(g))
	switch {
	case g.Skipped && !g.Passed: // fail-on-skipped: it measured nothing
		c.Failure = &junitMessage{
			Message: upperFirst(breachPhrase(r, g, func(s string) string { return xmlLine(s, MaxCellRunes) })),
			Type:    "gate",
			Body:    fmt.Sprintf("%s: skipped (%s), must be %s", xmlSafe(g.Name), xmlLine(g.Note, junitMessageRunes), gateThreshold(g)),
		}
	case g.Skipped:
		c.Skipped = &junitMessage{Message: xmlLine(g.Note, junitMessageRunes), Body: line}
	case g.Passed:
		c.SystemOut = line
	default:
		var body strings.Builder
		body.WriteString(line)
		switch g.Name {
		case gate.MaxFailedTraces:
			fails := flagged(r.Reliability)
			for i, t := range fails {
				if t.Verdict != verdict.Fail {
					break
				}
				if i == junitListed {
					fmt.Fprintf(&body, "\n… and %s more", count(r.Reliability.Fail-junitListed))
					break
				}
				fmt.Fprintf(&body, "\nFAIL %s (%s), score %s", xmlLine(t.ID, MaxCellRunes), xmlLine(location(t.File, t.Line), MaxCellRunes), num(t.Score))
			}
		case gate.CoherenceMin:
			for _, t := range lowest(r.Coherence, junitListed) {
				fmt.Fprintf(&body, "\ntask %s (%s), RCS %s", xmlLine(t.ID, MaxCellRunes), xmlLine(location(t.File, t.Line), MaxCellRunes), num(t.RCS))
			}
		}
		c.Failure = &junitMessage{
			Message: upperFirst(breachPhrase(r, g, func(s string) string { return xmlLine(s, MaxCellRunes) })),
			Type:    "gate",
			Body:    body.String(),
		}
	}
	return c
}

// traceCase is the testcase of one trace: a failure for FAIL, evidence in system-out for WARN.
func traceCase(t *reliability.Result) junitCase {
	c := junitCase{Name: xmlLine(t.ID, MaxCellRunes), Classname: "agentgate.reliability"}
	body := traceBody(t)
	switch t.Verdict {
	case verdict.Fail:
		c.Failure = &junitMessage{Message: xmlLine(failMessage(t), junitMessageRunes), Type: "FAIL", Body: body}
	case verdict.Pass:
		if len(t.Evidence) > 0 {
			c.SystemOut = body
		}
	default:
		c.SystemOut = body
	}
	return c
}

// traceBody is a trace's verdict, place, scores and evidence, one item a line.
func traceBody(t *reliability.Result) string {
	var body strings.Builder
	fmt.Fprintf(&body, "%s %s, score %s (", t.Verdict, xmlLine(location(t.File, t.Line), MaxCellRunes), num(t.Score))
	for i, v := range t.Signals {
		if i > 0 {
			body.WriteString(", ")
		}
		body.WriteString(reliability.SignalTable[i].Name + " " + num(v))
	}
	body.WriteString(")")
	for _, e := range t.Evidence {
		fmt.Fprintf(&body, "\n%s: %s", xmlLine(e.Signal, MaxCellRunes), xmlLine(e.Text, junitTextRunes))
		if len(e.Messages) > 0 {
			fmt.Fprintf(&body, " (messages %s)", intList(e.Messages))
		}
	}
	return body.String()
}

// failMessage is the one line that says why a trace failed: its score and strongest finding.
func failMessage(t *reliability.Result) string {
	signal, evidence, _ := finding(t, func(s string) string { return s })
	msg := fmt.Sprintf("Score %s; strongest signal %s", num(t.Score), signal)
	if evidence != "" {
		msg += ": " + evidence
	}
	return msg
}

// taskCase is the testcase of one task: it passes (only the mean is gated) and says its score.
func taskCase(t *coherence.TaskResult) junitCase {
	out := fmt.Sprintf("%s, RCS %s, energy %s", xmlLine(location(t.File, t.Line), MaxCellRunes), num(t.RCS), num(t.Energy))
	if t.Note != "" {
		out += "\n" + xmlLine(t.Note, junitTextRunes)
	}
	return junitCase{Name: xmlLine(t.ID, MaxCellRunes), Classname: "agentgate.coherence", SystemOut: out}
}

// intList formats message indices: "4, 6, 8".
func intList(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ", ")
}

func attr(name, value string) xml.Attr {
	return xml.Attr{Name: xml.Name{Local: name}, Value: value}
}

// xmlLine is untrusted text made one line (control characters and line breaks become single
// spaces, bidirectional controls dropped, invalid UTF-8 replaced) and cut to limit characters:
// what a failure's message, a testcase name or a listed id holds.
func xmlLine(s string, limit int) string { return xmlSafe(plain(s, limit)) }

// xmlSafe replaces the characters XML 1.0 cannot hold (Char production: #x9 | #xA | #xD |
// [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]) and invalid UTF-8 with U+FFFD, so a
// parser never rejects the document however hostile the input files.
func xmlSafe(s string) string {
	ok := true
	for _, r := range s {
		if !xmlChar(r) || r == utf8.RuneError {
			ok = false
			break
		}
	}
	if ok {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s { // invalid UTF-8 decodes as utf8.RuneError, i.e. U+FFFD
		if !xmlChar(r) {
			r = utf8.RuneError
		}
		b.WriteRune(r)
	}
	return b.String()
}

// xmlChar reports whether r is a Char of XML 1.0.
func xmlChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD ||
		r >= 0x10000 && r <= 0x10FFFF
}
