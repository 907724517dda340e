package jsonreport

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/agreement"
	"github.com/agentgate/agentgate/gate/compare"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/verdict"
)

// seeds are strings JSON escapes, or might, and text that looks like the slots the streamed
// lists are written into. report's TestJSONStreamedEqualsWhole writes many more through Write.
var seeds = []string{"", `"\"`, "\x00\x1f\b\f\n\r\t\x7f", "\u2028\u2029", "<&>", "\xff\xc3\x28\xed\xa0\x80", "é中文😀", "\"items\": []", "\n    \"items\": []"}

// Ids and texts that look like the slots do not mislead the writer, and a slot that cannot be
// found (a bug: the head document is the encoder's) is an error before anything is written.
func TestSlots(t *testing.T) {
	var items []agreement.Item
	for i, s := range seeds {
		items = append(items, agreement.Item{QID: s, Scholar: seeds[(i+1)%len(seeds)], Final: "VALID", Why: s})
	}
	r := &gate.Result{Profile: "default",
		Reliability: &reliability.Summary{Traces: []reliability.Result{{ID: "\n    \"traces\": []", Verdict: "FAIL", Score: 0.5}}},
		Agreement:   &agreement.Summary{Items: agreement.ItemsOf(items)}}
	var streamed, none bytes.Buffer
	if err := Write(&streamed, r); err != nil {
		t.Fatal(err)
	}
	err := writeStreamed(&none, []byte("{}\n"), []streamedList{{path: []string{"agreement", "items"}}})
	if err == nil || err.Error() != "report: cannot write JSON: no place for agreement.items in the document" || none.Len() != 0 {
		t.Errorf("err = %v, wrote %q", err, none.String())
	}
	if !strings.Contains(streamed.String(), `{"id":"\n    \"traces\": []","file":"","line":0,"verdict":"FAIL","score":0.5,"messages":0,"tool_calls":0}`) {
		t.Errorf("trace not written:\n%s", streamed.String())
	}
	if !strings.Contains(streamed.String(), `"qid": "\n    \"items\": []"`) {
		t.Errorf("items not written:\n%s", streamed.String())
	}
	doc := []byte("{\n  \"agreement\": {\n    \"n\": 1,\n    \"unmatched\": [\n      {\n        \"items\": []\n      }\n    ],\n    \"items\": []\n  }\n}\n")
	if at := findSlot(doc, []string{"agreement", "items"}); at != strings.LastIndex(string(doc), "[]") {
		t.Errorf("findSlot = %d", at)
	}
	for _, path := range [][]string{{"agreement", "unmatched"}, {"reliability", "items"}, {"items"}, {"agreement", "n"}} {
		if at := findSlot(doc, path); at >= 0 {
			t.Errorf("findSlot(%q) = %d, want -1", path, at)
		}
	}
}

// encodeItem is an item as encoding/json writes it as an element of the items list.
func encodeItem(t testing.TB, it agreement.Item) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("      ", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(it); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func TestItemByHand(t *testing.T) {
	if !itemLayoutKnown() {
		t.Error("agreement.Item changed: update appendItem and itemFields")
	}
	if !itemProbeMatches() {
		t.Error("encoding/json escapes strings differently: update AppendString")
	}
	// Every single byte and every 2-byte sequence starting with a non-ASCII byte.
	for b := range 256 {
		for c := range 256 {
			if b < 0x80 && c > 0 {
				break
			}
			s := string([]byte{byte(b), byte(c)})[:1+min(c, 1)]
			it := agreement.Item{QID: s, Why: s + "x"}
			if got, want := string(appendItem(nil, "      ", &it)), encodeItem(t, it); got != want {
				t.Fatalf("%q: got %q, want %q", s, got, want)
			}
		}
	}
}

func FuzzItemByHand(f *testing.F) {
	for i, s := range seeds {
		f.Add(s, seeds[(i+1)%len(seeds)], "VALID", "REJECT", "auditor_veto")
	}
	f.Fuzz(func(t *testing.T, qid, scholar, auditor, final, why string) {
		it := agreement.Item{QID: qid, Scholar: scholar, Auditor: auditor, Final: final, Why: why}
		if got, want := string(appendItem(nil, "      ", &it)), encodeItem(t, it); got != want {
			t.Errorf("got  %q\nwant %q", got, want)
		}
	})
}

// itemLayoutKnown tells whether agreement.Item is still the struct appendItem knows: five plain
// string fields tagged with itemFields' names, without custom marshalling.
func itemLayoutKnown() bool {
	t := reflect.TypeFor[agreement.Item]()
	if t.NumField() != len(itemFields) || t.Implements(reflect.TypeFor[json.Marshaler]()) ||
		reflect.PointerTo(t).Implements(reflect.TypeFor[json.Marshaler]()) ||
		t.Implements(reflect.TypeFor[encoding.TextMarshaler]()) ||
		reflect.PointerTo(t).Implements(reflect.TypeFor[encoding.TextMarshaler]()) {
		return false
	}
	for i, name := range itemFields {
		f := t.Field(i)
		if !f.IsExported() || f.Type != reflect.TypeFor[string]() || f.Tag != reflect.StructTag(`json:"`+name+`"`) {
			return false
		}
	}
	return true
}

// itemProbeMatches tells whether appendItem writes an item holding every kind of character
// encoding/json escapes, and some it does not, with encoding/json's bytes.
func itemProbeMatches() bool {
	const s = "\"\\/\x00\x01\x1f\b\f\n\r\t\x7f <>&\u2027\u2028\u2029\u00e9\u4e2d\U0001f600\xff\xc3(\xed\xa0\x80\xe2\x80"
	it := agreement.Item{QID: s, Scholar: "VALID", Auditor: "", Final: s, Why: "hard_flag"}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("  ", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(it); err != nil {
		return false
	}
	return bytes.Equal(bytes.TrimSuffix(b.Bytes(), []byte("\n")), appendItem(nil, "  ", &it))
}

// The JSON report writes the first compare.MaxTracePairs of a comparison's new failures and
// of its fixed traces, sorted by id, after how many there are: 1,007 runs newly FAIL, 3 no
// longer do.
func TestTracePairsCapped(t *testing.T) {
	var base, head []reliability.Result
	for i := range compare.MaxTracePairs + 10 {
		b, h := verdict.Pass, verdict.Fail
		if i >= compare.MaxTracePairs+7 {
			b, h = h, b
		}
		id := fmt.Sprintf("run-%05d", i)
		base = append(base, reliability.Result{ID: id, Verdict: b, Score: 0.1})
		head = append(head, reliability.Result{ID: id, Verdict: h, Score: 0.9})
	}
	side := func(rs []reliability.Result) compare.Run {
		return compare.Run{Profile: "default", Reliability: &reliability.Summary{Traces: rs}}
	}
	hr := side(head)
	c, err := compare.Compare(&compare.Baseline{Run: side(base)}, &hr, compare.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(&b, &gate.Result{Profile: "default", Reliability: hr.Reliability, Comparison: c}); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Comparison struct {
			Reliability struct {
				NewFailures           int `json:"new_failures"`
				NewFailureTracesTotal int `json:"new_failure_traces_total"`
				NewFailureTraces      []struct {
					Head struct{ ID string } `json:"head"`
				} `json:"new_failure_traces"`
				FixedTracesTotal int `json:"fixed_traces_total"`
				FixedTraces      []struct {
					Head struct{ ID string } `json:"head"`
				} `json:"fixed_traces"`
			} `json:"reliability"`
		} `json:"comparison"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	r := got.Comparison.Reliability
	if r.NewFailures != 1007 || r.NewFailureTracesTotal != 1007 || len(r.NewFailureTraces) != compare.MaxTracePairs ||
		r.NewFailureTraces[0].Head.ID != "run-00000" || r.NewFailureTraces[999].Head.ID != "run-00999" {
		t.Errorf("new failures %d, total %d, %d written (first %+v)", r.NewFailures, r.NewFailureTracesTotal, len(r.NewFailureTraces), r.NewFailureTraces[:1])
	}
	if r.FixedTracesTotal != 3 || len(r.FixedTraces) != 3 || r.FixedTraces[2].Head.ID != "run-01009" {
		t.Errorf("fixed total %d, %d written", r.FixedTracesTotal, len(r.FixedTraces))
	}
	if len(c.Reliability.NewFailureTraces) != 1007 {
		t.Errorf("the comparison holds %d new failures, want all 1007 (the markdown's full report lists them)", len(c.Reliability.NewFailureTraces))
	}
}
