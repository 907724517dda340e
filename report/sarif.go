package report

import (
	"bytes"
	"cmp"
	"container/heap"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/compare"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/verdict"
)

// GitHub code scanning's limits on one uploaded run (docs/design.md#findings-elsewhere): results beyond them are left
// out, weakest first, and the run says how many.
const (
	SARIFMaxResults = 25000
	SARIFMaxBytes   = 10_000_000
	// sarifTailBytes is kept free under SARIFMaxBytes for what follows the results (the
	// notification and properties that count the results left out).
	sarifTailBytes = 4096
	// sarifTextRunes bounds one evidence text in a result's message.
	sarifTextRunes = 1000
)

// SARIFSchema is the schema the document names: the SARIF 2.1.0 errata 01 JSON schema,
// kept in report/testdata and checked against in the tests.
const SARIFSchema = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// sarifSignals are the rules of the reliability findings: one per row of the signal table
// (reliability.SignalTable, which says what each means), then the trace as a whole.
var sarifSignals = func() []sarifRule {
	rules := make([]sarifRule, 0, reliability.NumSignals+1)
	for _, r := range reliability.SignalTable {
		rules = append(rules, sarifRule{name: r.Name, title: r.Title, short: r.Short, help: r.Help, warns: !r.Fails})
	}
	return append(rules, sarifRule{name: reliability.SignalTrace, title: "Trace not evaluated",
		short: "The record as a whole could not be evaluated, e.g. a trace with no messages.",
		help: "trace: a finding about the record as a whole rather than one signal, such as a trace with no messages, " +
			"of which nothing could be evaluated. The evidence says what is missing from the record at the reported line."})
}()

// sarifGates are the rules of the gates, in the order of the gate table, with what each holds.
var sarifGates = []sarifRule{
	{name: gate.CoherenceMin, title: "Coherence below its minimum",
		short: "The mean Rose Coherence Score of the tasks is below coherence-min.",
		help: "coherence-min: the mean RCS over the tasks must be at least this. The result sits at the task with the " +
			"lowest RCS; the markdown report lists the lowest tasks with their intent, understanding and action."},
	{name: gate.PAMin, title: "Validator agreement below its minimum",
		short: "The two validators' percent agreement is below pa-min.",
		help: "pa-min: the share of items the Scholar and the Auditor label alike must be at least this. The " +
			"disagreements TSV (agentgate consistency) lists the items they disagree on."},
	{name: gate.KappaMin, title: "Cohen's kappa below its minimum",
		short: "Cohen's kappa between the two validators is below kappa-min.",
		help:  "kappa-min: agreement beyond chance must be at least this. A skipped gate (kappa undefined) is no finding."},
	{name: gate.AbstainMax, title: "Too many abstentions",
		short: "The validators abstain on more items than abstain-max allows.",
		help:  "abstain-max: the share of items either validator labels ABSTAIN must be at most this."},
	{name: gate.MaxFailedTraces, title: "Too many failed traces",
		short: "More traces FAIL than max-failed-traces allows.",
		help: "max-failed-traces: at most this many traces may FAIL. The result sits at the strongest failing trace; each " +
			"failing trace has results of its own under the signal rules (agentgate/loop, agentgate/hallucination, …)."},
	{name: compare.FailOnRegression, title: "Significant regression against the base branch",
		short: "A metric is significantly worse than in the baseline report (Holm-corrected).",
		help: "fail-on-regression: with a baseline, a metric whose change is significant at regression-alpha after Holm's " +
			"correction breaches this gate. The PR comment's comparison table gives each metric with its p-value."},
	{name: compare.MaxNewFailures, title: "Too many new failures",
		short: "More traces FAIL that passed in the baseline than max-new-failures allows.",
		help: "max-new-failures: with a baseline, at most this many matched traces may FAIL that did not. The result sits " +
			"at the first new failure; results of the signal rules with baselineState new are the new findings."},
	{name: compare.PassKMin, title: "pass^k below its minimum",
		short: "pass^k of the repeated trials is below pass-k-min.",
		help: "pass-k-min: the probability that k trials of a task all pass, averaged over tasks (tau-bench's pass^k), " +
			"must be at least this. The JUnit report marks each flaky task's failed trials."},
}

// sarifRule is one reportingDescriptor: a signal or a gate.
type sarifRule struct {
	name, title, short, help string
	warns                    bool // a signal whose critical score makes the trace WARN, not FAIL
}

// id is the rule's id: agentgate/loop, agentgate/gate/pa-min.
func (r sarifRule) id(isGate bool) string {
	if isGate {
		return "agentgate/gate/" + r.name
	}
	return "agentgate/" + r.name
}

// SARIF writes the reliability findings and breached gates of r as SARIF 2.1.0 for GitHub code
// scanning (github/codeql-action/upload-sarif; docs/design.md#findings-elsewhere): one run whose driver, agentgate,
// has a rule per signal and per gate; a result per signal with evidence of each trace that did
// not PASS, at the record's file and line, level error for FAIL and warning for WARN; a result
// per breached gate. partialFingerprints hash the trace id and the signal, so a finding keeps
// its alert across runs, shards and edits of the file. base is the baseline's reliability
// section when r was compared with one (nil otherwise): results then carry baselineState new
// or unchanged, and the baseline's findings that are gone are results of kind pass with
// baselineState absent.
//
// At most SARIFMaxResults results and SARIFMaxBytes bytes are written: the strongest (gates,
// then FAIL before WARN, higher signal and trace scores first, absent findings last); the run's
// properties and a notification say how many were left out. Only the results kept are held in
// memory, so a suite of a million traces is written in bounded memory beside its report.
func SARIF(w io.Writer, r *gate.Result, base *reliability.Summary) error {
	if r == nil {
		return errors.New("report: no result to write as SARIF")
	}
	s := newSARIFRun(r, base)
	if err := s.write(w); err != nil {
		return fmt.Errorf("report: writing SARIF: %w", err)
	}
	return nil
}

// sarifFinding is one candidate result: a signal of a trace of the head (or, when absent, of
// the baseline), or a breached gate.
type sarifFinding struct {
	gate   int   // index into r.Gates + 1 for a gate result; 0 otherwise
	trace  int32 // index into the side's Traces
	signal int8  // index into sarifSignals
	absent bool  // a baseline finding that this run no longer has
}

// sarifRun gathers what one run writes.
type sarifRun struct {
	r        *gate.Result
	base     *reliability.Summary
	compared bool
	kept     []sarifFinding // at most SARIFMaxResults, strongest first
	total    int            // findings found, kept or not
	baseByID []int32        // base's non-PASS traces by id, for lookups
	headByID []int32        // head's non-PASS traces by id
}

func newSARIFRun(r *gate.Result, base *reliability.Summary) *sarifRun {
	s := &sarifRun{r: r, base: base, compared: r.Comparison != nil}
	h := &findingHeap{s: s}
	push := func(f sarifFinding) {
		s.total++
		if h.Len() < SARIFMaxResults {
			heap.Push(h, f)
		} else if s.stronger(f, h.items[0]) {
			h.items[0] = f
			heap.Fix(h, 0)
		}
	}
	for i, g := range r.Gates {
		if !g.Passed && !g.Skipped {
			push(sarifFinding{gate: i + 1})
		}
	}
	if rel := r.Reliability; rel != nil {
		for i := range rel.Traces {
			t := &rel.Traces[i]
			if t.Verdict == verdict.Pass {
				continue
			}
			for sig, m := 0, findingMask(t); m != 0; sig, m = sig+1, m>>1 {
				if m&1 != 0 {
					push(sarifFinding{trace: int32(i), signal: int8(sig)})
				}
			}
		}
	}
	if s.compared && base != nil {
		s.baseByID = byID(base)
		if r.Reliability != nil {
			s.headByID = byID(r.Reliability)
		}
		for i := range base.Traces {
			t := &base.Traces[i]
			if t.Verdict == verdict.Pass {
				continue
			}
			now := uint8(0)
			if h := s.find(r.Reliability, s.headByID, t.ID); h != nil && h.Verdict != verdict.Pass {
				now = findingMask(h)
			}
			for sig, m := 0, findingMask(t)&^now; m != 0; sig, m = sig+1, m>>1 {
				if m&1 != 0 {
					push(sarifFinding{trace: int32(i), signal: int8(sig), absent: true})
				}
			}
		}
	}
	s.kept = h.items
	slices.SortFunc(s.kept, func(a, b sarifFinding) int {
		if s.stronger(a, b) {
			return -1
		}
		return 1 // the order is total: no two findings are equal
	})
	return s
}

// findingMask has bit i set when the trace has evidence for sarifSignals[i]; a trace without
// any evidence has a finding for its strongest signal, so that every non-PASS trace is seen.
func findingMask(t *reliability.Result) uint8 {
	var m uint8
	for i := range t.Evidence {
		if k := signalIndex(t.Evidence[i].Signal); k >= 0 {
			m |= 1 << k
		}
	}
	if m == 0 {
		name, _, _, _ := strongest(t)
		m = 1 << signalIndex(name)
	}
	return m
}

// signalIndex is the index of a signal's rule in sarifSignals, or -1.
func signalIndex(name string) int {
	for i, r := range sarifSignals {
		if r.name == name {
			return i
		}
	}
	return -1
}

// signalScore is a trace's score for sarifSignals[i]; the trace's own score for "trace".
func signalScore(t *reliability.Result, i int) float64 {
	if i < reliability.NumSignals {
		return t.Signals[i]
	}
	return t.Score
}

// byID returns the indices of s's non-PASS traces sorted by id.
func byID(s *reliability.Summary) []int32 {
	var idx []int32
	for i := range s.Traces {
		if s.Traces[i].Verdict != verdict.Pass {
			idx = append(idx, int32(i))
		}
	}
	slices.SortFunc(idx, func(a, b int32) int { return cmp.Compare(s.Traces[a].ID, s.Traces[b].ID) })
	return idx
}

// find returns the trace of s with id among the indices idx (sorted by id), or nil.
func (*sarifRun) find(s *reliability.Summary, idx []int32, id string) *reliability.Result {
	if s == nil {
		return nil
	}
	i, ok := slices.BinarySearchFunc(idx, id, func(k int32, id string) int { return cmp.Compare(s.Traces[k].ID, id) })
	if !ok {
		return nil
	}
	return &s.Traces[idx[i]]
}

// traceOf returns the trace a signal finding is about.
func (s *sarifRun) traceOf(f sarifFinding) *reliability.Result {
	if f.absent {
		return &s.base.Traces[f.trace]
	}
	return &s.r.Reliability.Traces[f.trace]
}

// stronger orders findings for keeping and writing: gates in table order, then the head's
// findings (FAIL before WARN, higher signal score, higher trace score, then by trace id and
// signal), then the baseline's absent ones in the same order.
func (s *sarifRun) stronger(a, b sarifFinding) bool {
	rank := func(f sarifFinding) int {
		switch {
		case f.gate > 0:
			return 0
		case f.absent:
			return 2
		}
		return 1
	}
	if c := cmp.Compare(rank(a), rank(b)); c != 0 {
		return c < 0
	}
	if a.gate > 0 {
		return a.gate < b.gate
	}
	ta, tb := s.traceOf(a), s.traceOf(b)
	if c := cmp.Or(
		cmp.Compare(verdictRank(ta.Verdict), verdictRank(tb.Verdict)),
		cmp.Compare(signalScore(tb, int(b.signal)), signalScore(ta, int(a.signal))),
		cmp.Compare(tb.Score, ta.Score),
		cmp.Compare(ta.ID, tb.ID),
		cmp.Compare(a.signal, b.signal),
		cmp.Compare(ta.File, tb.File),
		cmp.Compare(ta.Line, tb.Line),
	); c != 0 {
		return c < 0
	}
	return a.trace < b.trace
}

// findingHeap keeps the strongest findings seen: its root is the weakest kept.
type findingHeap struct {
	s     *sarifRun
	items []sarifFinding
}

func (h *findingHeap) Len() int           { return len(h.items) }
func (h *findingHeap) Less(i, j int) bool { return h.s.stronger(h.items[j], h.items[i]) }
func (h *findingHeap) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *findingHeap) Push(x any)         { h.items = append(h.items, x.(sarifFinding)) }
func (h *findingHeap) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}

// The SARIF objects agentgate writes, in the schema's names.
type (
	sarifMessage struct {
		Text string `json:"text"`
	}
	sarifMultiformat struct {
		Text     string `json:"text"`
		Markdown string `json:"markdown,omitempty"`
	}
	sarifDescriptor struct {
		ID                   string           `json:"id"`
		Name                 string           `json:"name"`
		ShortDescription     sarifMessage     `json:"shortDescription"`
		FullDescription      sarifMessage     `json:"fullDescription"`
		Help                 sarifMultiformat `json:"help"`
		DefaultConfiguration struct {
			Level string `json:"level"`
		} `json:"defaultConfiguration"`
		Properties struct {
			Tags []string `json:"tags"`
		} `json:"properties"`
	}
	sarifLocation struct {
		PhysicalLocation struct {
			ArtifactLocation struct {
				URI string `json:"uri"`
			} `json:"artifactLocation"`
			Region *sarifRegion `json:"region,omitempty"`
		} `json:"physicalLocation"`
	}
	sarifRegion struct {
		StartLine int `json:"startLine"`
	}
	sarifResult struct {
		RuleID              string            `json:"ruleId"`
		RuleIndex           int               `json:"ruleIndex"`
		Kind                string            `json:"kind,omitempty"`
		Level               string            `json:"level"`
		Message             sarifMessage      `json:"message"`
		Locations           []sarifLocation   `json:"locations,omitempty"`
		PartialFingerprints map[string]string `json:"partialFingerprints"`
		BaselineState       string            `json:"baselineState,omitempty"`
		Properties          *sarifResultProps `json:"properties,omitempty"`
	}
	// sarifResultProps say which trace a result is about, for scripts; the level and the
	// message say the rest (a result is kept short: GitHub's 10 MB hold 25,000 of them).
	sarifResultProps struct {
		Trace    string  `json:"agentgate/trace"`
		Score    float64 `json:"agentgate/score"`
		Messages []int   `json:"agentgate/messages,omitempty"`
	}
)

// fingerprintKey is the partial fingerprint GitHub matches alerts by. agentgate sets it to a
// hash of what the finding is about (trace id and signal, or the gate) rather than of the
// line's text, and so upload-sarif does not hash the line of the trace file, which a re-run
// of a stochastic agent rewrites.
const fingerprintKey = "primaryLocationLineHash"

// write writes the document: the head, the kept results one by one while they fit in
// SARIFMaxBytes, and the tail that counts what was left out.
func (s *sarifRun) write(w io.Writer) error {
	head, err := s.head()
	if err != nil {
		return err
	}
	cw := &countingWriter{w: w}
	if _, err := cw.Write(head); err != nil {
		return err
	}
	written := 0
	var buf bytes.Buffer
	for _, f := range s.kept {
		buf.Reset()
		if written > 0 {
			buf.WriteString(",")
		}
		buf.WriteString("\n")
		if err := encodeIndented(&buf, s.result(f), ""); err != nil {
			return err
		}
		if cw.n+int64(buf.Len()) > SARIFMaxBytes-sarifTailBytes {
			break
		}
		if _, err := cw.Write(buf.Bytes()); err != nil {
			return err
		}
		written++
	}
	omitted := s.total - written
	buf.Reset()
	if written > 0 {
		buf.WriteString("\n      ")
	}
	buf.WriteString("]")
	if omitted > 0 {
		inv := []map[string]any{{
			"executionSuccessful": true,
			"toolExecutionNotifications": []map[string]any{{
				"level": "warning",
				"message": sarifMessage{Text: fmt.Sprintf("%s of %s results were left out to stay within GitHub code scanning's limits "+
					"(%s results, %s bytes); the weakest went first. The JSON report holds every finding.",
					count(omitted), count(s.total), count(SARIFMaxResults), count(SARIFMaxBytes))},
			}},
		}}
		buf.WriteString(",\n      \"invocations\": ")
		if err := encodeIndented(&buf, inv, "      "); err != nil {
			return err
		}
	}
	props := struct {
		Verdict string `json:"agentgate/verdict"`
		Profile string `json:"agentgate/profile"`
		// a token budget other than RS-1's, as the JSON report records it
		TokenBudget int64 `json:"agentgate/tokenBudget,omitempty"`
		Results     int   `json:"agentgate/results"`
		Omitted     int   `json:"agentgate/resultsOmitted"`
		Baseline    bool  `json:"agentgate/comparedWithBaseline"`
	}{string(s.r.Verdict), string(s.r.Profile), s.r.TokenBudget, s.total, omitted, s.compared}
	buf.WriteString(",\n      \"properties\": ")
	if err := encodeIndented(&buf, props, "      "); err != nil {
		return err
	}
	buf.WriteString("\n    }\n  ]\n}\n")
	_, err = cw.Write(buf.Bytes())
	return err
}

// head is the document up to the opening of the run's results.
func (s *sarifRun) head() ([]byte, error) {
	var rules []sarifDescriptor
	for _, r := range sarifSignals {
		rules = append(rules, descriptor(r, false))
	}
	for _, r := range s.gateRules() {
		rules = append(rules, descriptor(r, true))
	}
	driver := struct {
		Name    string            `json:"name"`
		Version string            `json:"version,omitempty"`
		Rules   []sarifDescriptor `json:"rules"`
	}{"agentgate", flatten(s.r.Source.Version), rules}
	var b bytes.Buffer
	fmt.Fprintf(&b, "{\n  \"$schema\": %q,\n  \"version\": \"2.1.0\",\n  \"runs\": [\n    {\n      \"tool\": {\n        \"driver\": ", SARIFSchema)
	if err := encodeIndented(&b, driver, "        "); err != nil {
		return nil, err
	}
	b.WriteString("\n      },\n      \"columnKind\": \"unicodeCodePoints\",\n      \"results\": [")
	return b.Bytes(), nil
}

// gateRules are the rules of the gates: those agentgate describes, then any other gate of the
// run's table (one added since), with a help that names it, so that every result has its rule.
func (s *sarifRun) gateRules() []sarifRule {
	rules := slices.Clone(sarifGates)
	for _, g := range s.r.Gates {
		if !slices.ContainsFunc(rules, func(r sarifRule) bool { return r.name == g.Name }) {
			name := flatten(g.Name)
			rules = append(rules, sarifRule{name: name, title: "Gate " + name,
				short: "The gate " + name + " was breached.",
				help:  name + ": a gate of the run's gate table; the result's message says its value and threshold, and the PR comment's gate table explains it."})
		}
	}
	return rules
}

// descriptor is the reportingDescriptor of a rule.
func descriptor(r sarifRule, isGate bool) sarifDescriptor {
	help := r.help
	if !isGate && r.name != reliability.SignalTrace {
		help += " These are RS-1's rules; the default profile refines some of them (the README's \"Differences from the reference\"), and the evidence always says which fired."
	}
	d := sarifDescriptor{ID: r.id(isGate), Name: ruleName(r.title), ShortDescription: sarifMessage{r.short},
		FullDescription: sarifMessage{r.short + " " + help}, Help: sarifMultiformat{Text: help, Markdown: help}}
	d.DefaultConfiguration.Level = "error"
	d.Properties.Tags = []string{"agentgate", "reliability"}
	if isGate {
		d.Properties.Tags[1] = "gate"
	} else if r.warns {
		d.DefaultConfiguration.Level = "warning"
	}
	return d
}

// ruleName is a rule's title in PascalCase ("Hallucinated tool use" → "HallucinatedToolUse"),
// as SARIF's reportingDescriptor.name asks.
func ruleName(title string) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(title, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') }) {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

// result is the SARIF result of one finding.
func (s *sarifRun) result(f sarifFinding) sarifResult {
	if f.gate > 0 {
		return s.gateResult(s.r.Gates[f.gate-1])
	}
	t := s.traceOf(f)
	sig := sarifSignals[f.signal]
	res := sarifResult{RuleID: sig.id(false), RuleIndex: int(f.signal), Level: "warning"}
	if t.Verdict == verdict.Fail {
		res.Level = "error"
	}
	var msgs []int
	var texts []string
	for i := range t.Evidence {
		if e := &t.Evidence[i]; signalIndex(e.Signal) == int(f.signal) {
			texts = append(texts, sarifText(e.Text, sarifTextRunes))
			msgs = append(msgs, e.Messages...)
		}
	}
	slices.Sort(msgs)
	msgs = slices.Compact(msgs)
	what := fmt.Sprintf("%s trace %s: %s %s", t.Verdict, sarifText(t.ID, MaxCellRunes), sig.name, num(signalScore(t, int(f.signal))))
	if sig.name == reliability.SignalTrace {
		what = fmt.Sprintf("%s trace %s, score %s", t.Verdict, sarifText(t.ID, MaxCellRunes), num(t.Score))
	}
	if len(texts) > 0 {
		what += ": " + strings.Join(texts, "; ")
	}
	if f.absent {
		res.Kind, res.Level = "pass", "none"
		what = "Fixed since the baseline: " + what
	}
	res.Message = sarifMessage{Text: what}
	res.Locations = sarifLocations(t.File, t.Line)
	fp := fingerprint("trace", t.ID, sig.name)
	res.PartialFingerprints = map[string]string{fingerprintKey: fp}
	if s.compared {
		switch {
		case f.absent:
			res.BaselineState = "absent"
		case s.baseHas(t.ID, int(f.signal)):
			res.BaselineState = "unchanged"
		default:
			res.BaselineState = "new"
		}
	}
	res.Properties = &sarifResultProps{Trace: flatten(t.ID), Score: t.Score, Messages: msgs}
	return res
}

// baseHas reports whether the baseline had the finding of signal i on the trace id.
func (s *sarifRun) baseHas(id string, i int) bool {
	b := s.find(s.base, s.baseByID, id)
	return b != nil && findingMask(b)&(1<<i) != 0
}

// gateResult is the result of a breached gate, at the record that shows it best when there is
// one: the strongest FAIL trace, the lowest task, the first new failure, the pairs file.
func (s *sarifRun) gateResult(g gate.GateResult) sarifResult {
	name := flatten(g.Name)
	idx := len(sarifSignals) + slices.IndexFunc(s.gateRules(), func(r sarifRule) bool { return r.name == name })
	res := sarifResult{RuleID: "agentgate/gate/" + name, RuleIndex: idx, Level: "error",
		Message: sarifMessage{Text: upperFirst(breachPhrase(s.r, g, func(t string) string { return sarifText(t, MaxCellRunes) })) + "."}}
	file, line := "", 0
	switch g.Name {
	case gate.MaxFailedTraces:
		if f := flagged(s.r.Reliability); len(f) > 0 {
			file, line = f[0].File, f[0].Line
		}
	case gate.CoherenceMin:
		if t := lowest(s.r.Coherence, 1); len(t) > 0 {
			file, line = t[0].File, t[0].Line
		}
	case gate.PAMin, gate.KappaMin, gate.AbstainMax:
		if a := s.r.Agreement; a != nil && len(a.Files) > 0 {
			file = a.Files[0].File // the first merged pairs file; two joined label files have none
		}
	case compare.MaxNewFailures, compare.FailOnRegression:
		if c := s.r.Comparison; c != nil && c.Reliability != nil && len(c.Reliability.NewFailureTraces) > 0 {
			h := c.Reliability.NewFailureTraces[0].Head
			file, line = h.File, h.Line
		}
	}
	res.Locations = sarifLocations(file, line)
	fp := fingerprint("gate", name, "")
	res.PartialFingerprints = map[string]string{fingerprintKey: fp}
	return res
}

// sarifLocations is the location of a record: its file as a relative URI reference and its
// line; none when the file is unknown.
func sarifLocations(file string, line int) []sarifLocation {
	if file == "" {
		return nil
	}
	var l sarifLocation
	l.PhysicalLocation.ArtifactLocation.URI = fileURI(file)
	if line > 0 {
		l.PhysicalLocation.Region = &sarifRegion{StartLine: line}
	}
	return []sarifLocation{l}
}

// fileURI turns a file path into a URI reference: forward slashes, every byte that may not
// stand in a path percent-encoded, and "./" before a first segment holding ":" so that it is
// not read as a scheme.
func fileURI(file string) string {
	u := &url.URL{Path: filepath.ToSlash(file)}
	return u.String()
}

// fingerprint is the first 128 bits of the SHA-256, in hex, of the parts, each ended by a NUL byte: it depends on what
// the finding is about, never on where the record sits or in which shard it was read.
func fingerprint(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// sarifText makes untrusted text fit a SARIF message: one line, no control characters, at most
// limit characters, with "\", "[" and "]" escaped so that no text is read as an embedded link
// (SARIF §3.11.6), and "@" followed by a zero-width space so that no one is mentioned.
func sarifText(s string, limit int) string {
	s = plain(s, limit)
	if !strings.ContainsAny(s, `\[]@`) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\', '[', ']':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '@':
			b.WriteString("@" + zwsp)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// encodeIndented appends v as indented JSON whose lines after the first begin with prefix, or
// as one line when prefix is empty (a result: GitHub's 10 MB hold more of them that way),
// without a final newline and without escaping <, > and & (valid JSON either way).
func encodeIndented(b *bytes.Buffer, v any, prefix string) error {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if prefix != "" {
		enc.SetIndent(prefix, "  ")
	}
	if err := enc.Encode(v); err != nil {
		return err
	}
	b.Truncate(b.Len() - 1)
	return nil
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
