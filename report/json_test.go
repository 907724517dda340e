package report

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/agreement"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/internal/jsonreport"
)

func TestJSONGolden(t *testing.T) {
	var b bytes.Buffer
	if err := jsonreport.Write(&b, failingResult()); err != nil {
		t.Fatal(err)
	}
	golden(t, "fail.json", b.String())
}

// Numbers are written unrounded and read back identical; nothing else changes either.
func TestJSONRoundTrip(t *testing.T) {
	r := failingResult()
	a, b3 := 0.1, 0.2
	r.Coherence.Mean = a + b3 // 0.30000000000000004
	var b bytes.Buffer
	if err := jsonreport.Write(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"mean": 0.30000000000000004,`) {
		t.Errorf("mean is rounded:\n%s", b.String())
	}
	var back gate.Result
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	r = normalized(r) // nil lists are written as [], and a run's empty lists left out
	if !reflect.DeepEqual(back.Gates, r.Gates) || !reflect.DeepEqual(normalized(&back).Reliability.Traces, r.Reliability.Traces) ||
		!reflect.DeepEqual(back.Coherence.Tasks, r.Coherence.Tasks) || !reflect.DeepEqual(*back.Agreement, *r.Agreement) {
		t.Errorf("round trip changed the result")
	}
}

// Lists are [] rather than null, but for a run's record, which leaves its empty lists out;
// sections that did not run are absent; the input is not changed.
func TestJSONEmptyLists(t *testing.T) {
	r := warnResult()
	r.Reliability.Traces[1].Evidence = nil
	r.Reliability.Traces[0].Evidence[0].Messages = nil
	r.Agreement.Items, r.Agreement.Unmatched = agreement.Items{}, nil
	var b bytes.Buffer
	if err := jsonreport.Write(&b, r); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, want := range []string{`"items": []`, `"unmatched": []`, `"signals":{"cost":0.3333333333333333},"messages":0,`} {
		if !strings.Contains(s, want) {
			t.Errorf("JSON lacks %s", want)
		}
	}
	if strings.Contains(s, `"evidence"`) && strings.Contains(s, `"messages":[]`) || strings.Contains(s, `"evidence":[]`) {
		t.Errorf("JSON holds a run's empty list:\n%s", s)
	}
	if strings.Contains(s, "null") || strings.Contains(s, `"coherence"`) {
		t.Errorf("JSON holds null or an absent section:\n%s", s)
	}
	if r.Reliability.Traces[1].Evidence != nil || r.Agreement.Items.Len() != 0 {
		t.Errorf("JSON modified its input")
	}
	if !strings.HasPrefix(s, "{\n  \"schema\": 3,\n  \"verdict\": \"WARN\",\n  \"profile\": \"reference\",\n  \"exit_code\": 1,\n  \"source\": {\n    \"sha\": \"\",\n    \"ref\": \"\",\n    \"run_id\": \"\",\n    \"run_attempt\": \"\",\n    \"version\": \"\"\n  },\n  \"gates\": [\n    {\n      \"name\": \"pa-min\",") {
		t.Errorf("field order or indent:\n%s", s[:200])
	}
}

// A NaN cannot be written as JSON: the error names the field and nothing is written.
func TestJSONNaN(t *testing.T) {
	r := failingResult()
	r.Reliability.Traces[1].Signals[reliability.Loop] = math.NaN()
	var b bytes.Buffer
	err := jsonreport.Write(&b, r)
	if err == nil || !strings.Contains(err.Error(), `reliability.traces[1] ("refund-003"): signals.loop is NaN`) {
		t.Errorf("err = %v", err)
	}
	if b.Len() != 0 {
		t.Errorf("wrote %d bytes", b.Len())
	}
	if err := jsonreport.Write(&b, nil); err == nil {
		t.Errorf("jsonreport.Write(nil) succeeded")
	}
}
