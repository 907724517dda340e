package report

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/compare"
	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/verdict"
)

// sarifSchema is testdata/sarif-schema-2.1.0.json (OASIS sarif-spec, sarif-2.1/schema), compiled
// once, with format assertions on (uri-reference among them).
var sarifSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	f, err := os.Open("testdata/sarif-schema-2.1.0.json")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(SARIFSchema, doc); err != nil {
		return nil, err
	}
	return c.Compile(SARIFSchema)
})

// validSARIF validates doc against the SARIF 2.1.0 schema and decodes it.
func validSARIF(t testing.TB, doc []byte) sarifDoc {
	t.Helper()
	sch, err := sarifSchema()
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("not valid SARIF 2.1.0: %v", err)
	}
	var d sarifDoc
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// sarifDoc is what the tests read back of a SARIF document.
type sarifDoc struct {
	Schema string `json:"$schema"`
	Runs   []struct {
		Tool struct {
			Driver struct {
				Name, Version string
				Rules         []struct {
					ID   string
					Help struct{ Text string }
				}
			}
		}
		Results []struct {
			RuleID              string
			RuleIndex           int
			Kind                string
			Level               string
			Message             struct{ Text string }
			BaselineState       string
			PartialFingerprints map[string]string
			Locations           []struct {
				PhysicalLocation struct {
					ArtifactLocation struct{ URI string }
					Region           *struct{ StartLine int }
				}
			}
			Properties map[string]any
		}
		Invocations []struct {
			ToolExecutionNotifications []struct{ Message struct{ Text string } }
		}
		Properties map[string]any
	}
}

func sarifOf(t testing.TB, r *gate.Result, base *reliability.Summary) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := SARIF(&b, r, base); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// sarifOutline is each result as "ruleId level [baselineState] uri:line".
func sarifOutline(d sarifDoc) []string {
	var out []string
	for _, res := range d.Runs[0].Results {
		s := res.RuleID + " " + res.Level
		if res.BaselineState != "" {
			s += " " + res.BaselineState
		}
		if len(res.Locations) > 0 {
			l := res.Locations[0].PhysicalLocation
			s += " " + l.ArtifactLocation.URI
			if l.Region != nil {
				s += fmt.Sprintf(":%d", l.Region.StartLine)
			}
		}
		out = append(out, s)
	}
	return out
}

func TestSARIFFailing(t *testing.T) {
	r := failingResult()
	r.Source.Version = "1.4.0"
	doc := sarifOf(t, r, nil)
	d := validSARIF(t, doc)
	run := d.Runs[0]
	if d.Schema != SARIFSchema || run.Tool.Driver.Name != "agentgate" || run.Tool.Driver.Version != "1.4.0" {
		t.Errorf("$schema %q, driver %q %q", d.Schema, run.Tool.Driver.Name, run.Tool.Driver.Version)
	}
	var ids []string
	for _, rule := range run.Tool.Driver.Rules {
		ids = append(ids, rule.ID)
		if len(rule.Help.Text) < 80 {
			t.Errorf("rule %s: help %q says too little", rule.ID, rule.Help.Text)
		}
	}
	wantRules := []string{"agentgate/hallucination", "agentgate/loop", "agentgate/tool_misuse", "agentgate/cost", "agentgate/trace",
		"agentgate/gate/coherence-min", "agentgate/gate/pa-min", "agentgate/gate/kappa-min", "agentgate/gate/abstain-max",
		"agentgate/gate/max-failed-traces", "agentgate/gate/fail-on-regression", "agentgate/gate/max-new-failures", "agentgate/gate/pass-k-min"}
	if !slices.Equal(ids, wantRules) {
		t.Errorf("rules %v\nwant %v", ids, wantRules)
	}
	// Gates in table order, then FAIL findings by signal score (ties: the higher trace score),
	// then WARN; search-012 and search-044 tie on tool_misuse 0.75 and score 0.4175: by id.
	want := []string{
		"agentgate/gate/coherence-min error evals/tasks.jsonl:4",
		"agentgate/gate/kappa-min error",
		"agentgate/gate/max-failed-traces error evals/%3Cscript%3Ealert%281%29%3C/script%3E.jsonl:9",
		"agentgate/hallucination error evals/%3Cscript%3Ealert%281%29%3C/script%3E.jsonl:9",
		"agentgate/loop error evals/refund.jsonl:17",
		"agentgate/hallucination error evals/refund.jsonl:3",
		"agentgate/cost error evals/refund.jsonl:17",
		"agentgate/tool_misuse error evals/refund.jsonl:17",
		"agentgate/cost warning evals/search.jsonl:44",
		"agentgate/tool_misuse warning evals/search.jsonl:12",
		"agentgate/tool_misuse warning evals/search.jsonl:44",
	}
	if got := sarifOutline(d); !slices.Equal(got, want) {
		t.Errorf("results:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	res := run.Results
	checks := []struct{ what, got, want string }{
		{"gate message", res[2].Message.Text, "3 traces failed (max 0)."},
		{"hostile message", res[3].Message.Text, "FAIL trace a|b`<img src=x>@\u200boctocat next: hallucination 1.0000: result for call `x|y` (id <b>z</b>) matches no call; cc @\u200boctocat, see #12"},
		{"loop message", res[4].Message.Text, "FAIL trace refund-017: loop 1.0000: `search_orders` called 12 times with identical arguments at messages 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26"},
		{"rule index", fmt.Sprint(res[4].RuleIndex, res[2].RuleIndex), "1 9"},
		{"fingerprint", res[4].PartialFingerprints["primaryLocationLineHash"], "819fbbd284ea08035fe9737fc6eb4904"},
		{"messages", fmt.Sprint(res[7].Properties["agentgate/messages"]), "[5 7 9]"},
		{"properties", fmt.Sprint(run.Properties["agentgate/results"], run.Properties["agentgate/resultsOmitted"]), "11 0"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.what, c.got, c.want)
		}
	}
	if len(run.Invocations) != 0 {
		t.Errorf("nothing was left out, yet the run has invocations %+v", run.Invocations)
	}
	if !bytes.Equal(sarifOf(t, r, nil), doc) {
		t.Error("two runs over the same result gave different bytes")
	}
}

// The fingerprint is the first 128 bits of SHA-256("trace\x00refund-017\x00loop\x00"),
// computed once with: printf 'trace\0refund-017\0loop\0' | sha256sum | cut -c1-32.
func TestSARIFFingerprintIsStable(t *testing.T) {
	if got := fingerprint("trace", "refund-017", "loop"); got != "819fbbd284ea08035fe9737fc6eb4904" {
		t.Errorf("fingerprint = %s", got)
	}
	// The same trace in another file, at another line, in another order of shards: the same.
	a := failingResult()
	b := failingResult()
	slices.Reverse(b.Reliability.Traces)
	for i := range b.Reliability.Traces {
		b.Reliability.Traces[i].File, b.Reliability.Traces[i].Line = "shard-2/evals.jsonl", 1000+i
	}
	fps := func(d sarifDoc) map[string]string {
		m := map[string]string{}
		for _, res := range d.Runs[0].Results {
			m[res.RuleID+" "+fmt.Sprint(res.Properties["agentgate/trace"])] = res.PartialFingerprints["primaryLocationLineHash"]
		}
		return m
	}
	fa, fb := fps(validSARIF(t, sarifOf(t, a, nil))), fps(validSARIF(t, sarifOf(t, b, nil)))
	if len(fa) != 11 || fmt.Sprint(fa) != fmt.Sprint(fb) {
		t.Errorf("fingerprints moved with the file, line or order:\n%v\n%v", fa, fb)
	}
}

// With a baseline: a finding the base had is unchanged, one it had not is new, and the base's
// findings that are gone are absent results of kind pass.
func TestSARIFBaselineState(t *testing.T) {
	r := failingResult()
	r.Comparison = &compare.Comparison{}
	base := &reliability.Summary{}
	base.Add(reliability.Result{ID: "refund-017", File: "evals/refund.jsonl", Line: 17, Verdict: verdict.Fail, Score: 0.6, Signals: reliability.Signals{reliability.Loop: 1},
		Evidence: []reliability.Evidence{{Signal: "loop", Text: "`search_orders` called 12 times"}}})
	base.Add(reliability.Result{ID: "refund-003", File: "evals/refund.jsonl", Line: 3, Verdict: verdict.Warn, Score: 0.4, Signals: reliability.Signals{reliability.ToolMisuse: 0.8},
		Evidence: []reliability.Evidence{{Signal: "tool_misuse", Text: "3 of 4 `issue_refund` results failed"}}})
	base.Add(reliability.Result{ID: "gone-001", File: "evals/old.jsonl", Line: 2, Verdict: verdict.Fail, Score: 0.9, Signals: reliability.Signals{reliability.Hallucination: 1},
		Evidence: []reliability.Evidence{{Signal: "hallucination", Text: "no result for call c1"}}})
	base.Add(reliability.Result{ID: "search-044", File: "evals/search.jsonl", Line: 44, Verdict: verdict.Pass, Score: 0.1, Signals: reliability.Signals{reliability.Cost: 0.5},
		Evidence: []reliability.Evidence{{Signal: "cost", Text: "20,000 tokens"}}})
	d := validSARIF(t, sarifOf(t, r, base))
	want := []string{
		"agentgate/gate/coherence-min error evals/tasks.jsonl:4",
		"agentgate/gate/kappa-min error",
		"agentgate/gate/max-failed-traces error evals/%3Cscript%3Ealert%281%29%3C/script%3E.jsonl:9",
		"agentgate/hallucination error new evals/%3Cscript%3Ealert%281%29%3C/script%3E.jsonl:9",
		"agentgate/loop error unchanged evals/refund.jsonl:17",
		"agentgate/hallucination error new evals/refund.jsonl:3",
		"agentgate/cost error new evals/refund.jsonl:17",
		"agentgate/tool_misuse error new evals/refund.jsonl:17",
		"agentgate/cost warning new evals/search.jsonl:44", // a PASS trace's evidence is no finding
		"agentgate/tool_misuse warning new evals/search.jsonl:12",
		"agentgate/tool_misuse warning new evals/search.jsonl:44",
		"agentgate/hallucination none absent evals/old.jsonl:2",
		"agentgate/tool_misuse none absent evals/refund.jsonl:3",
	}
	if got := sarifOutline(d); !slices.Equal(got, want) {
		t.Errorf("results:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	res := d.Runs[0].Results
	if gone := res[11]; gone.Kind != "pass" || gone.Message.Text != "Fixed since the baseline: FAIL trace gone-001: hallucination 1.0000: no result for call c1" {
		t.Errorf("absent result: kind %q, message %q", gone.Kind, gone.Message.Text)
	}
	if res[4].PartialFingerprints["primaryLocationLineHash"] != "819fbbd284ea08035fe9737fc6eb4904" {
		t.Error("the baseline changed a fingerprint")
	}
}

func TestSARIFPassingAndEmpty(t *testing.T) {
	d := validSARIF(t, sarifOf(t, passingResult(), nil))
	if n := len(d.Runs[0].Results); n != 0 {
		t.Errorf("a passing run has %d results", n)
	}
	r := &gate.Result{Profile: profile.Default}
	r.Decide(gate.DefaultThresholds(), gate.FailOnFail)
	validSARIF(t, sarifOf(t, r, nil))
	if err := SARIF(&bytes.Buffer{}, nil, nil); err == nil {
		t.Error("SARIF(nil) gave no error")
	}
}

// Hostile text: SARIF's embedded links ("[text](0)") are escaped, control characters and
// line breaks flattened, odd file names percent-encoded into valid URI references.
func TestSARIFHostileText(t *testing.T) {
	r := &gate.Result{Reliability: &reliability.Summary{}}
	r.Reliability.Add(reliability.Result{
		ID: "x](1) \\[y\x1b[31m\u202e", File: "C:\\evals/a b%#?.jsonl", Line: 0, Verdict: verdict.Fail, Score: 0.9,
		Signals:  reliability.Signals{reliability.Loop: 1},
		Evidence: []reliability.Evidence{{Signal: "loop", Text: "see [here](0)\nand\x00 @team"}},
	})
	r.Reliability.Add(reliability.Result{ID: "odd", File: "a:b/c.jsonl", Line: 3, Verdict: verdict.Warn, Score: 0.5,
		Signals: reliability.Signals{reliability.ToolMisuse: 0.8}})
	r.Decide(gate.DefaultThresholds(), gate.FailOnFail)
	d := validSARIF(t, sarifOf(t, r, nil))
	res := d.Runs[0].Results
	if got, want := res[1].Message.Text, "FAIL trace x\\](1) \\\\\\[y \\[31m: loop 1.0000: see \\[here\\](0) and @\u200bteam"; got != want {
		t.Errorf("message %q\n   want %q", got, want)
	}
	uris := []string{res[1].Locations[0].PhysicalLocation.ArtifactLocation.URI, res[2].Locations[0].PhysicalLocation.ArtifactLocation.URI}
	if want := []string{"./C:%5Cevals/a%20b%25%23%3F.jsonl", "./a:b/c.jsonl"}; !slices.Equal(uris, want) {
		t.Errorf("uris %q, want %q", uris, want)
	}
	if res[1].Locations[0].PhysicalLocation.Region != nil {
		t.Error("an unknown line (0) got a region")
	}
	// A WARN trace without evidence still has a finding: its strongest signal.
	if res[2].RuleID != "agentgate/tool_misuse" || res[2].Level != "warning" {
		t.Errorf("evidence-less WARN: %s %s", res[2].RuleID, res[2].Level)
	}
}

// GitHub's limits: a suite of more findings than fit keeps the strongest, in order, and says
// how many it left out.
func TestSARIFLimits(t *testing.T) {
	check := func(t *testing.T, r *gate.Result, wantWritten int) {
		doc := sarifOf(t, r, nil)
		if len(doc) > SARIFMaxBytes {
			t.Fatalf("%d bytes, over %d", len(doc), SARIFMaxBytes)
		}
		d := validSARIF(t, doc)
		run := d.Runs[0]
		total := len(r.Breached()) + len(r.Reliability.Traces)
		written := len(run.Results)
		if wantWritten > 0 && written != wantWritten {
			t.Errorf("%d results written, want %d", written, wantWritten)
		}
		if got := fmt.Sprint(run.Properties["agentgate/results"], " ", run.Properties["agentgate/resultsOmitted"]); got != fmt.Sprint(total, " ", total-written) {
			t.Errorf("properties say %s, want %d %d", got, total, total-written)
		}
		if len(run.Invocations) != 1 || !strings.HasPrefix(run.Invocations[0].ToolExecutionNotifications[0].Message.Text, count(total-written)+" of "+count(total)+" results were left out") {
			t.Errorf("notification %+v", run.Invocations)
		}
		// The strongest, independently: FAIL before WARN, by score, then id.
		ts := slices.Clone(r.Reliability.Traces)
		slices.SortFunc(ts, func(a, b reliability.Result) int {
			return cmp.Or(cmp.Compare(verdictRank(a.Verdict), verdictRank(b.Verdict)), cmp.Compare(b.Score, a.Score), cmp.Compare(a.ID, b.ID))
		})
		g := len(r.Breached())
		for i, res := range run.Results[g:] {
			if id := res.Properties["agentgate/trace"]; id != ts[i].ID {
				t.Fatalf("result %d is %v, want %s", g+i, id, ts[i].ID)
			}
		}
	}
	t.Run("count", func(t *testing.T) {
		r := &gate.Result{Reliability: &reliability.Summary{}}
		for i := range SARIFMaxResults + 10 {
			r.Reliability.Add(reliability.Result{ID: fmt.Sprintf("t%05d", i), File: "a.jsonl", Line: i + 1, Verdict: verdict.Warn,
				Score: float64(i%97) / 100, Signals: reliability.Signals{reliability.Cost: 0.95}})
		}
		r.Decide(gate.DefaultThresholds(), gate.FailOnFail)
		check(t, r, SARIFMaxResults)
	})
	t.Run("bytes", func(t *testing.T) {
		r := bigResult(12000)
		long := strings.Repeat("é", 2000)
		for i := range r.Reliability.Traces {
			r.Reliability.Traces[i].Evidence[0].Text += long
		}
		check(t, r, 0)
	})
}

// A gate this version has no rule of its own for (one a later version adds to the table)
// still gets a rule, so that its result's ruleIndex points at it.
func TestSARIFUnknownGate(t *testing.T) {
	r := failingResult()
	r.Gates = append(r.Gates, gate.GateResult{Name: "success-rate-min", Value: 0.5, Op: ">=", Threshold: 0.9})
	d := validSARIF(t, sarifOf(t, r, nil))
	rules := d.Runs[0].Tool.Driver.Rules
	last := d.Runs[0].Results[3]
	if len(rules) != 14 || rules[13].ID != "agentgate/gate/success-rate-min" || last.RuleID != rules[13].ID || last.RuleIndex != 13 {
		t.Errorf("%d rules, last %q; result %s at %d", len(rules), rules[len(rules)-1].ID, last.RuleID, last.RuleIndex)
	}
}
