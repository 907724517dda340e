package report

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/agreement"
	"github.com/agentgate/agentgate/gate/coherence"
	"github.com/agentgate/agentgate/gate/compare"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/internal/jsonreport"
	"github.com/agentgate/agentgate/internal/jsonscan"
)

// awkward strings: every class of character JSON escapes or might, and text that looks like
// the slots the streamed lists are written into.
var awkward = []string{
	"", " ", "plain", `"`, `\`, `\"`, `"\"`, "\\u2028", "\x00", "\x01\x02\x1f", "\b\f\n\r\t", "\x7f",
	"\u2028", "\u2029", "a\u2028b\u2029c", "\u2027\u202a", "<&>", "<script>alert(1)</script>",
	"\xff", "\xc3", "\xc3\x28", "\xe2\x80", "\xe2\x80\xa8\xe2\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80",
	"\xef\xbf\xbd", "é中文😀👍🏽", "\"items\": []", "\n    \"items\": []", "\n  \"agreement\": {", "],\n", "}\n{",
	strings.Repeat("x", 5000), "\ufeff", "\u0085", "\u00a0",
}

// normalized returns a deep enough copy of r with every nil list empty, as JSON promises to
// write it, built independently of withLists.
func normalized(r *gate.Result) *gate.Result {
	c := *r
	c.Schema = jsonreport.Schema // every written report carries the schema version
	if c.Gates == nil {
		c.Gates = []gate.GateResult{}
	}
	if c.History == nil {
		c.History = []compare.Point{}
	}
	if s := r.Reliability; s != nil {
		cs := *s
		cs.Traces = make([]reliability.Result, len(s.Traces))
		for i, t := range s.Traces {
			if t.Evidence == nil {
				t.Evidence = []reliability.Evidence{}
			}
			ev := make([]reliability.Evidence, len(t.Evidence))
			for j, e := range t.Evidence {
				if e.Messages == nil {
					e.Messages = []int{}
				}
				ev[j] = e
			}
			t.Evidence = ev
			cs.Traces[i] = t
		}
		if s.Traces == nil {
			cs.Traces = []reliability.Result{}
		}
		c.Reliability = &cs
	}
	if s := r.Coherence; s != nil {
		cs := *s
		if cs.Tasks == nil {
			cs.Tasks = []coherence.TaskResult{}
		}
		c.Coherence = &cs
	}
	if s := r.Agreement; s != nil {
		cs := *s
		if cs.Unmatched == nil {
			cs.Unmatched = []agreement.Unmatched{}
		}
		c.Agreement = &cs
	}
	if s := r.Comparison; s != nil && s.Reliability != nil {
		cs, rs := *s, *s.Reliability
		fill := func(pairs []compare.TracePair) []compare.TracePair {
			out := []compare.TracePair{}
			for _, p := range pairs {
				for _, t := range []*reliability.Result{&p.Base, &p.Head} {
					ev := []reliability.Evidence{}
					for _, e := range t.Evidence {
						if e.Messages == nil {
							e.Messages = []int{}
						}
						ev = append(ev, e)
					}
					t.Evidence = ev
				}
				out = append(out, p)
			}
			return out
		}
		rs.NewFailureTraces, rs.FixedTraces = fill(rs.NewFailureTraces), fill(rs.FixedTraces)
		cs.Reliability = &rs
		c.Comparison = &cs
	}
	return &c
}

// wholeJSON encodes r at once with encoding/json, as JSON's output must read: indented, its
// run records then rewritten as compactRuns does.
func wholeJSON(t testing.TB, r *gate.Result) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(normalized(r)); err != nil {
		t.Fatal(err)
	}
	return compactRuns(t, b.Bytes())
}

// compactRuns rewrites the elements of reliability.traces in doc, a report encoded whole and
// indented by encoding/json, as schema 3 writes a run's record (docs/reference.md, "The JSON
// report"): on one line without spaces (json.Compact), without a signal of 0, the signals
// object when all four are 0, an empty evidence list or an evidence entry's empty message
// list. It works on the text, apart from the writer's structs.
func compactRuns(t testing.TB, doc []byte) string {
	t.Helper()
	at := jsonscan.Locate(doc, jsonscan.PathOf("reliability", "traces"))
	if jsonscan.PathAt(doc, at).String() != "reliability.traces" {
		return string(doc) // no traces
	}
	signals := regexp.MustCompile(`"signals":\{[^{}]*\},`)
	var out bytes.Buffer
	done := 0
	_, err := jsonscan.EachElement(doc, at, func(start, end int) error {
		out.Write(doc[done:start])
		done = end
		var c bytes.Buffer
		if err := json.Compact(&c, doc[start:end]); err != nil {
			return err
		}
		rec := signals.ReplaceAllStringFunc(c.String(), func(m string) string {
			var kept []string
			for _, member := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(m, `"signals":{`), "},"), ",") {
				if v, err := strconv.ParseFloat(member[strings.Index(member, ":")+1:], 64); err != nil || v != 0 {
					kept = append(kept, member)
				}
			}
			if len(kept) == 0 {
				return ""
			}
			return `"signals":{` + strings.Join(kept, ",") + "},"
		})
		rec = strings.ReplaceAll(rec, `"evidence":[],`, "")
		rec = strings.ReplaceAll(rec, `,"messages":[]`, "")
		out.WriteString(rec)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out.Write(doc[done:])
	return out.String()
}

// awkwardItems returns items holding every awkward string in every field.
func awkwardItems() []agreement.Item {
	var items []agreement.Item
	for i, s := range awkward {
		n := len(awkward)
		items = append(items, agreement.Item{QID: s, Scholar: awkward[(i+1)%n], Auditor: awkward[(i+2)%n], Final: awkward[(i+3)%n], Why: awkward[(i+4)%n]})
	}
	return append(items, agreement.Item{})
}

// streamCases are results whose streamed JSON must equal the whole encoding.
func streamCases() map[string]*gate.Result {
	cases := map[string]*gate.Result{}
	r := failingResult()
	r.Agreement.Items = agreement.ItemsOf(awkwardItems())
	r.Agreement.Unmatched = append(r.Agreement.Unmatched, agreement.Unmatched{QID: "\"items\": []", OnlyIn: "\u2028", File: "\xff"})
	r.Reliability.Traces[0].ID = "\n    \"traces\": []"
	r.Coherence.Tasks[0].ID = "\n    \"tasks\": []"
	cases["awkward items"] = r

	r = failingResult()
	r.Agreement.Items = agreement.Items{}
	cases["nil items"] = r

	r = failingResult()
	r.Agreement.Items = agreement.ItemsOf([]agreement.Item{})
	cases["empty items"] = r

	r = failingResult()
	r.Agreement.Items = agreement.ItemsOf([]agreement.Item{{}})
	cases["one empty item"] = r

	r = failingResult()
	r.Reliability = nil
	r.Agreement.Items = agreement.ItemsOf(awkwardItems())
	cases["items without traces"] = r

	r = failingResult()
	r.Reliability.Traces = nil
	r.Agreement = nil
	cases["neither"] = r

	r = warnResult()
	r.Agreement.Items, r.Agreement.Unmatched = agreement.Items{}, nil
	r.Reliability.Traces[1].Evidence = nil
	cases["warn, nil lists"] = r

	cases["no sections"] = &gate.Result{}
	cases["empty sections"] = &gate.Result{Reliability: &reliability.Summary{}, Coherence: &coherence.Summary{}, Agreement: &agreement.Summary{}}
	cases["big"] = bigResult(1000)
	return cases
}

// The streamed report is byte for byte the whole result encoded at once by encoding/json.
func TestJSONStreamedEqualsWhole(t *testing.T) {
	for name, r := range streamCases() {
		want := wholeJSON(t, r)
		var b bytes.Buffer
		if err := jsonreport.Write(&b, r); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := b.String(); got != want {
			t.Errorf("%s: streamed JSON differs from the whole encoding\n got: %.2000q\nwant: %.2000q", name, got, want)
		}
	}
}

// The streamed JSON of a large result equals the whole encoding too.
func TestJSONStreamedLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("large result")
	}
	r := largeResult(20_000, 4_000, 100_000, 10_000)
	var b bytes.Buffer
	if err := jsonreport.Write(&b, r); err != nil {
		t.Fatal(err)
	}
	if b.String() != wholeJSON(t, r) {
		t.Errorf("streamed JSON differs from the whole encoding")
	}
}
