package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/verdict"
)

// Parsed JUnit XML, read back with encoding/xml. Attributes the schema does not allow are
// collected in Other so that the structure checks can refuse them.
type jSuites struct {
	XMLName  xml.Name   `xml:"testsuites"`
	Name     string     `xml:"name,attr"`
	Tests    string     `xml:"tests,attr"`
	Failures string     `xml:"failures,attr"`
	Errors   string     `xml:"errors,attr"`
	Other    []xml.Attr `xml:",any,attr"`
	Suites   []jSuite   `xml:"testsuite"`
	Stray    []xml.Name `xml:",any"`
}

type jSuite struct {
	Name     string     `xml:"name,attr"`
	Tests    string     `xml:"tests,attr"`
	Failures string     `xml:"failures,attr"`
	Errors   string     `xml:"errors,attr"`
	Skipped  string     `xml:"skipped,attr"`
	Other    []xml.Attr `xml:",any,attr"`
	Cases    []jCase    `xml:"testcase"`
}

type jCase struct {
	Name      string     `xml:"name,attr"`
	Classname string     `xml:"classname,attr"`
	Other     []xml.Attr `xml:",any,attr"`
	Failure   *jOutcome  `xml:"failure"`
	Skipped   *jOutcome  `xml:"skipped"`
	Error     *jOutcome  `xml:"error"`
	Flaky     []jFlaky   `xml:"flakyFailure"`
	SystemOut *string    `xml:"system-out"`
}

type jFlaky struct {
	Message    string `xml:"message,attr"`
	Type       string `xml:"type,attr"`
	StackTrace string `xml:"stackTrace"`
}

type jOutcome struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

func junitOf(t *testing.T, r *gate.Result) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := JUnit(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// parseJUnit reads doc back strictly and checks what junit.xsd requires, in Go: the root,
// only known attributes, the required ones present, counts that are whole numbers and add up.
func parseJUnit(t *testing.T, doc []byte) jSuites {
	t.Helper()
	if !bytes.HasPrefix(doc, []byte(xml.Header)) {
		t.Fatalf("no XML declaration: %.60q", doc)
	}
	var s jSuites
	dec := xml.NewDecoder(bytes.NewReader(doc))
	dec.Strict = true
	if err := dec.Decode(&s); err != nil {
		t.Fatalf("not well-formed XML: %v", err)
	}
	if len(s.Other) > 0 || len(s.Stray) > 0 {
		t.Errorf("testsuites: unexpected attributes %v or elements %v", s.Other, s.Stray)
	}
	tests, failures := 0, 0
	for _, su := range s.Suites {
		if su.Name == "" || su.Tests == "" || su.Failures == "" || su.Errors == "" {
			t.Errorf("testsuite %q lacks a required attribute (name, tests, failures, errors)", su.Name)
		}
		if len(su.Other) > 0 {
			t.Errorf("testsuite %q: unexpected attributes %v", su.Name, su.Other)
		}
		nf, ns := 0, 0
		for _, c := range su.Cases {
			if c.Name == "" {
				t.Errorf("testsuite %q: a testcase has no name", su.Name)
			}
			if len(c.Other) > 0 {
				t.Errorf("testcase %q: unexpected attributes %v", c.Name, c.Other)
			}
			if c.Error != nil {
				t.Errorf("testcase %q: agentgate writes no <error>", c.Name)
			}
			if c.Failure != nil && c.Skipped != nil {
				t.Errorf("testcase %q: both failure and skipped", c.Name)
			}
			if c.Failure != nil {
				nf++
				if c.Failure.Message == "" || strings.ContainsAny(c.Failure.Message, "\r\n") {
					t.Errorf("testcase %q: failure message %q is not one non-empty line", c.Name, c.Failure.Message)
				}
			}
			if c.Skipped != nil {
				ns++
			}
			for _, f := range c.Flaky {
				if c.Failure != nil || c.Skipped != nil || f.Type == "" || f.StackTrace == "" || strings.ContainsAny(f.Message, "\r\n") {
					t.Errorf("testcase %q: flakyFailure %+v beside failure %v, skipped %v", c.Name, f, c.Failure, c.Skipped)
				}
			}
		}
		if got := [4]string{su.Tests, su.Failures, su.Errors, su.Skipped}; got != [4]string{itoa(len(su.Cases)), itoa(nf), "0", itoa(ns)} {
			t.Errorf("testsuite %q: tests/failures/errors/skipped = %v, but it holds %d cases, %d failures, %d skipped", su.Name, got, len(su.Cases), nf, ns)
		}
		tests += len(su.Cases)
		failures += nf
	}
	if s.Tests != itoa(tests) || s.Failures != itoa(failures) || s.Errors != "0" {
		t.Errorf("testsuites: tests=%s failures=%s errors=%s, want %d, %d, 0", s.Tests, s.Failures, s.Errors, tests, failures)
	}
	return s
}

func itoa(n int) string { return strconv.Itoa(n) }

// outline is a suite as "name tests/failures/skipped: case, case, …" with F/S marks.
func outline(s jSuites) []string {
	var out []string
	for _, su := range s.Suites {
		var cs []string
		for _, c := range su.Cases {
			mark := ""
			switch {
			case c.Failure != nil:
				mark = " F"
			case c.Skipped != nil:
				mark = " S"
			case len(c.Flaky) > 0:
				mark = " ~" + itoa(len(c.Flaky))
			case c.SystemOut != nil:
				mark = " o"
			}
			cs = append(cs, c.Name+mark)
		}
		out = append(out, su.Name+" "+su.Tests+"/"+su.Failures+"/"+su.Skipped+": "+strings.Join(cs, ", "))
	}
	return out
}

func TestJUnitFailing(t *testing.T) {
	doc := junitOf(t, failingResult())
	s := parseJUnit(t, doc)
	if s.Name != "agentgate" || s.Tests != "29" || s.Failures != "6" {
		t.Errorf("testsuites name=%q tests=%s failures=%s, want agentgate, 29, 6", s.Name, s.Tests, s.Failures)
	}
	want := []string{
		"reliability 13/4/0: gate max-failed-traces F, refund-017 F, refund-003 F, a|b`<img src=x>@octocat next F, search-044 o, search-012 o, " +
			"checkout-000 o, checkout-001 o, checkout-002 o, checkout-003 o, checkout-004 o, checkout-005 o, checkout-006 o",
		"coherence 13/1/0: gate coherence-min F, task-01 o, task-02 o, task-03 o, task-04 o, task-05 o, task-06 o, task-07 o, task-08 o, task-09 o, task-10 o, task-11 o, task-12 o",
		"agreement 3/1/0: gate pa-min o, gate kappa-min F, gate abstain-max o",
	}
	if got := outline(s); !slices.Equal(got, want) {
		t.Errorf("outline:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	rel := s.Suites[0].Cases
	checks := []struct{ what, got, want string }{
		{"gate message", rel[0].Failure.Message, "3 traces failed (max 0)"},
		{"gate body", rel[0].Failure.Body, "max-failed-traces: 3, must be ≤ 0\n" +
			"FAIL a|b`<img src=x>@octocat next (evals/<script>alert(1)</script>.jsonl:9), score 0.8125\n" +
			"FAIL refund-017 (evals/refund.jsonl:17), score 0.6925\n" +
			"FAIL refund-003 (evals/refund.jsonl:3), score 0.3325"},
		{"FAIL trace message", rel[1].Failure.Message, "Score 0.6925; strongest signal loop 1.0000: `search_orders` called 12 times with identical arguments at messages 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26"},
		{"FAIL trace type", rel[1].Failure.Type, "FAIL"},
		{"FAIL trace body", rel[2].Failure.Body, "FAIL evals/refund.jsonl:3, score 0.3325 (hallucination 0.9500, loop 0.0000, tool_misuse 0.0000, cost 0.0000)\n" +
			"hallucination: message 5 says \"I called the refund API\" but no tool call was made; call `issue_refund` (id call_9) has no result (messages 5)"},
		{"hostile FAIL message", rel[3].Failure.Message, "Score 0.8125; strongest signal hallucination 1.0000: result for call `x|y` (id <b>z</b>) matches no call; cc @octocat, see #12"},
		{"WARN system-out", *rel[5].SystemOut, "WARN evals/search.jsonl:12, score 0.4175 (hallucination 0.0000, loop 0.0000, tool_misuse 0.7500, cost 0.9500)\n" +
			"tool_misuse: `web_search` got 4 of 5 calls (80%) (messages 1, 3, 5, 7)"},
		{"coherence gate", s.Suites[1].Cases[0].Failure.Message, "Mean coherence (RCS) 0.4342 < 0.50"},
		{"task with note", *s.Suites[1].Cases[4].SystemOut, "evals/tasks.jsonl:4, RCS 0.0000, energy 2.7500\nthe action is empty: scored as incoherent"},
		{"kappa gate", s.Suites[2].Cases[1].Failure.Message, "κ 0.4565 < 0.75"},
		{"passing gate", *s.Suites[2].Cases[0].SystemOut, "pa-min: 0.9200, must be ≥ 0.90"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.what, c.got, c.want)
		}
	}
	golden(t, "fail.junit.xml", string(doc))
	if again := junitOf(t, failingResult()); !bytes.Equal(again, doc) {
		t.Error("two runs over the same result gave different bytes")
	}
}

func TestJUnitPassingAndWarn(t *testing.T) {
	s := parseJUnit(t, junitOf(t, passingResult()))
	if s.Tests != "48" || s.Failures != "0" {
		t.Errorf("pass: tests=%s failures=%s, want 48, 0", s.Tests, s.Failures)
	}
	w := parseJUnit(t, junitOf(t, warnResult()))
	want := []string{
		"reliability 5/0/0: gate max-failed-traces o, chat-2 o, checkout-000 o, checkout-001 o, checkout-002 o",
		"agreement 3/0/1: gate pa-min o, gate kappa-min S, gate abstain-max o",
	}
	if got := outline(w); !slices.Equal(got, want) {
		t.Errorf("warn outline:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	k := w.Suites[1].Cases[1].Skipped
	if k == nil || !strings.HasPrefix(k.Message, "κ is undefined: both validators gave every item the same single label") {
		t.Errorf("kappa-min skipped = %+v, want the gate's note as the message", k)
	}
	if got := *w.Suites[0].Cases[1].SystemOut; !strings.HasPrefix(got, "WARN runs/chat.json:1, score 0.4000") {
		t.Errorf("WARN trace system-out = %q", got)
	}
}

func TestJUnitEmpty(t *testing.T) {
	r := &gate.Result{}
	r.Decide(gate.DefaultThresholds(), gate.FailOnFail)
	doc := junitOf(t, r)
	want := xml.Header + `<testsuites name="agentgate" tests="0" failures="0" errors="0"></testsuites>` + "\n"
	if string(doc) != want {
		t.Errorf("got %q, want %q", doc, want)
	}
	if err := JUnit(&bytes.Buffer{}, nil); err == nil {
		t.Error("JUnit(nil) gave no error")
	}
}

// Characters XML 1.0 cannot hold, from a hostile input file: the document must still parse,
// with each of them replaced.
func TestJUnitControlCharacters(t *testing.T) {
	r := &gate.Result{Reliability: &reliability.Summary{}}
	r.Reliability.Add(reliability.Result{
		ID: "a\x00b\x1bc\uFFFEd\xffe\U0001F600", File: "f\x07.jsonl", Line: 2, Verdict: verdict.Fail, Score: 0.9,
		Signals:  reliability.Signals{reliability.Loop: 1},
		Evidence: []reliability.Evidence{{Signal: "loop", Text: "x\x01y\uFFFFz ]]> </failure><x>&amp;"}},
	})
	r.Decide(gate.DefaultThresholds(), gate.FailOnFail)
	doc := junitOf(t, r)
	s := parseJUnit(t, doc)
	c := s.Suites[0].Cases[1]
	if want := "a b c\uFFFDd\uFFFDe\U0001F600"; c.Name != want {
		t.Errorf("name %q, want %q", c.Name, want)
	}
	if want := "Score 0.9000; strongest signal loop 1.0000: x y\uFFFDz ]]> </failure><x>&amp;"; c.Failure.Message != want {
		t.Errorf("message %q, want %q", c.Failure.Message, want)
	}
	if want := "FAIL f .jsonl:2, score 0.9000 (hallucination 0.0000, loop 1.0000, tool_misuse 0.0000, cost 0.0000)\nloop: x y\uFFFDz ]]> </failure><x>&amp;"; c.Failure.Body != want {
		t.Errorf("body %q, want %q", c.Failure.Body, want)
	}
	for _, bad := range []string{"\x00", "\x1b", "\x07", "\x01", "\uFFFE", "\uFFFF", "\xff"} {
		if bytes.Contains(doc, []byte(bad)) {
			t.Errorf("document holds %q", bad)
		}
	}
}

func TestXMLSafe(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                "plain",
		"tab\tnl\ncr\r":        "tab\tnl\ncr\r",
		"\x00\x08\x0b\x0c\x1f": "\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD",
		"\ud7ff\ue000":         "\ud7ff\ue000",
		"\uFFFE\uFFFF":         "\uFFFD\uFFFD",
		"bad\xc3(":             "bad\uFFFD(",
		"\U0010FFFF":           "\U0010FFFF",
	} {
		if got := xmlSafe(in); got != want {
			t.Errorf("xmlSafe(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestJUnitSchema validates the documents against testdata/junit.xsd with xmllint, and checks
// that the schema is really applied (a testcase without a name is refused). Under CI=true a
// missing xmllint fails the test: .ci/run installs libxml2-utils.
func TestJUnitSchema(t *testing.T) {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("xmllint is not installed (apt-get install libxml2-utils); CI must validate the JUnit XML")
		}
		t.Skip("xmllint not installed (apt-get install libxml2-utils)")
	}
	dir := t.TempDir()
	docs := map[string][]byte{
		"fail.xml":   junitOf(t, failingResult()),
		"pass.xml":   junitOf(t, passingResult()),
		"warn.xml":   junitOf(t, warnResult()),
		"big.xml":    junitOf(t, bigResult(500)),
		"trials.xml": junitOf(t, repeatedTrialsResult()),
	}
	var names []string
	for name, doc := range docs {
		if err := os.WriteFile(filepath.Join(dir, name), doc, 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, filepath.Join(dir, name))
	}
	slices.Sort(names)
	out, err := exec.Command(xmllint, append([]string{"--noout", "--schema", "testdata/junit.xsd"}, names...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("xmllint: %v\n%s", err, out)
	}
	if got := strings.Count(string(out), " validates"); got != len(names) {
		t.Errorf("xmllint says %d of %d validate:\n%s", got, len(names), out)
	}

	bad := filepath.Join(dir, "bad.xml")
	os.WriteFile(bad, []byte(`<testsuites><testsuite name="x" tests="1" failures="0" errors="0"><testcase classname="c"/></testsuite></testsuites>`), 0o644)
	out, err = exec.Command(xmllint, "--noout", "--schema", "testdata/junit.xsd", bad).CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || !strings.Contains(string(out), "The attribute 'name' is required but missing") {
		t.Errorf("xmllint accepted a testcase without a name (err %v):\n%s", err, out)
	}
	// Surefire's schema requires a flakyFailure's stackTrace, and refuses one beside a failure.
	for _, c := range []string{`<flakyFailure type="FAIL" message="m"/>`, `<failure message="m"/><flakyFailure type="FAIL"><stackTrace>s</stackTrace></flakyFailure>`} {
		os.WriteFile(bad, []byte(`<testsuites><testsuite name="x" tests="1" failures="0" errors="0"><testcase name="c">`+c+`</testcase></testsuite></testsuites>`), 0o644)
		out, err = exec.Command(xmllint, "--noout", "--schema", "testdata/junit.xsd", bad).CombinedOutput()
		if !errors.As(err, &exit) || !strings.Contains(string(out), "fails to validate") {
			t.Errorf("xmllint accepted %s (err %v):\n%s", c, err, out)
		}
	}
}

// repeatedTrialsResult has tasks with repeated trials: flaky (one of three trials failed), broken
// (every trial failed), fine (a WARN and a PASS), one task with a single trial, and a trace
// without a task; their traces interleaved as shards of a matrix leave them.
func repeatedTrialsResult() *gate.Result {
	r := &gate.Result{Profile: profile.Default}
	rel := &reliability.Summary{}
	add := func(id, task string, trial int, v verdict.Verdict, loop float64) {
		t := reliability.Result{ID: id, File: "runs/tau.json", Line: len(rel.Traces) + 1, Verdict: v, Score: loop / 2, Signals: reliability.Signals{reliability.Loop: loop}}
		if v != verdict.Pass {
			t.Evidence = []reliability.Evidence{{Signal: "loop", Text: "`get_order` called " + itoa(int(loop*10)) + " times with identical arguments", Messages: []int{3, 5}}}
		}
		if task != "" {
			tr := trial
			t.Attempt = &reliability.Attempt{Task: task, Trial: &tr}
		}
		rel.Add(t)
	}
	add("flaky#0", "flaky", 0, verdict.Pass, 0)
	add("broken#1", "broken", 1, verdict.Fail, 0.9)
	add("plain", "", 0, verdict.Pass, 0)
	add("flaky#1", "flaky", 1, verdict.Fail, 1)
	add("broken#0", "broken", 0, verdict.Fail, 0.8)
	add("single#0", "single", 0, verdict.Fail, 0.8)
	add("fine#0", "fine", 0, verdict.Warn, 0.5)
	add("flaky#2", "flaky", 2, verdict.Pass, 0)
	add("fine#1", "fine", 1, verdict.Pass, 0)
	r.Reliability = rel
	r.Decide(gate.DefaultThresholds(), gate.FailOnFail)
	return r
}

func TestJUnitTrials(t *testing.T) {
	doc := junitOf(t, repeatedTrialsResult())
	s := parseJUnit(t, doc)
	want := []string{"reliability 6/3/0: gate max-failed-traces F, flaky ~1, broken F, plain, single#0 F, fine o"}
	if got := outline(s); !slices.Equal(got, want) {
		t.Fatalf("outline:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	cs := s.Suites[0].Cases
	checks := []struct{ what, got, want string }{
		{"flaky message", cs[1].Flaky[0].Message, "Trial 1 failed: Score 0.5000; strongest signal loop 1.0000: `get_order` called 10 times with identical arguments"},
		{"flaky evidence", cs[1].Flaky[0].StackTrace, "FAIL runs/tau.json:4, score 0.5000 (hallucination 0.0000, loop 1.0000, tool_misuse 0.0000, cost 0.0000)\n" +
			"loop: `get_order` called 10 times with identical arguments (messages 3, 5)"},
		{"flaky summary", *cs[1].SystemOut, "2 of 3 trials passed\n" +
			"trial 0: PASS flaky#0 (runs/tau.json:1), score 0.0000\n" +
			"trial 1: FAIL flaky#1 (runs/tau.json:4), score 0.5000\n" +
			"trial 2: PASS flaky#2 (runs/tau.json:8), score 0.0000"},
		{"broken message", cs[2].Failure.Message, "Both trials failed; trial 0: Score 0.4000; strongest signal loop 0.8000: `get_order` called 8 times with identical arguments"},
		{"broken body", cs[2].Failure.Body, "trial 0: FAIL runs/tau.json:5, score 0.4000 (hallucination 0.0000, loop 0.8000, tool_misuse 0.0000, cost 0.0000)\n" +
			"loop: `get_order` called 8 times with identical arguments (messages 3, 5)\n\n" +
			"trial 1: FAIL runs/tau.json:2, score 0.4500 (hallucination 0.0000, loop 0.9000, tool_misuse 0.0000, cost 0.0000)\n" +
			"loop: `get_order` called 9 times with identical arguments (messages 3, 5)"},
		{"fine", *cs[5].SystemOut, "2 of 2 trials passed\ntrial 0: WARN fine#0 (runs/tau.json:7), score 0.2500\ntrial 1: PASS fine#1 (runs/tau.json:9), score 0.0000"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.what, c.got, c.want)
		}
	}
}
