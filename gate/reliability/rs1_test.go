package reliability

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/verdict"
)

// The expected texts are CPython 3.11's json.dumps(d) and json.dumps(d, indent=2) of the same
// report as a dict (what RS-1's CLI prints, without its trailing newline), written out as Go
// literals by a throwaway script.
func TestPythonJSONMatchesRS1CLI(t *testing.T) {
	rep := RS1Report{
		TraceID:      "tr-\u00e9\u2028\U0001F600\"\\</x>\x7f\x01",
		Verdict:      verdict.Warn,
		OverallScore: 0.5619166666666666,
		SignalScores: []RS1Signal{
			{"hallucination", 0.5333333333333333, "Moderate hallucination indicators found"},
			{"loop", 0.0, "tab\there\nnewline"},
			{"tool_misuse", 1.0, "Severe tool misuse patterns detected"},
			{"cost", 1e-07, "Moderate resource usage (8000 tokens)"},
		},
		Reasoning: "r\u00e9sum\u00e9 \b\f",
		Metadata:  Metadata{TotalMessages: 5, TotalToolCalls: 5, TotalTokens: 8000},
	}
	compact := "{\"trace_id\": \"tr-\\u00e9\\u2028\\ud83d\\ude00\\\"\\\\</x>\\u007f\\u0001\", \"verdict\": \"WARN\", \"overall_score\": 0.5619166666666666, \"signal_scores\": [{\"signal_name\": \"hallucination\", \"score\": 0.5333333333333333, \"details\": \"Moderate hallucination indicators found\"}, {\"signal_name\": \"loop\", \"score\": 0.0, \"details\": \"tab\\there\\nnewline\"}, {\"signal_name\": \"tool_misuse\", \"score\": 1.0, \"details\": \"Severe tool misuse patterns detected\"}, {\"signal_name\": \"cost\", \"score\": 1e-07, \"details\": \"Moderate resource usage (8000 tokens)\"}], \"reasoning\": \"r\\u00e9sum\\u00e9 \\b\\f\", \"metadata\": {\"total_messages\": 5, \"total_tool_calls\": 5, \"total_tokens\": 8000}}"
	pretty := "{\n  \"trace_id\": \"tr-\\u00e9\\u2028\\ud83d\\ude00\\\"\\\\</x>\\u007f\\u0001\",\n  \"verdict\": \"WARN\",\n  \"overall_score\": 0.5619166666666666,\n  \"signal_scores\": [\n    {\n      \"signal_name\": \"hallucination\",\n      \"score\": 0.5333333333333333,\n      \"details\": \"Moderate hallucination indicators found\"\n    },\n    {\n      \"signal_name\": \"loop\",\n      \"score\": 0.0,\n      \"details\": \"tab\\there\\nnewline\"\n    },\n    {\n      \"signal_name\": \"tool_misuse\",\n      \"score\": 1.0,\n      \"details\": \"Severe tool misuse patterns detected\"\n    },\n    {\n      \"signal_name\": \"cost\",\n      \"score\": 1e-07,\n      \"details\": \"Moderate resource usage (8000 tokens)\"\n    }\n  ],\n  \"reasoning\": \"r\\u00e9sum\\u00e9 \\b\\f\",\n  \"metadata\": {\n    \"total_messages\": 5,\n    \"total_tool_calls\": 5,\n    \"total_tokens\": 8000\n  }\n}"
	if got := string(rep.PythonJSON(false)); got != compact {
		t.Errorf("PythonJSON(false) =\n%s\nPython prints\n%s", got, compact)
	}
	if got := string(rep.PythonJSON(true)); got != pretty {
		t.Errorf("PythonJSON(true) =\n%s\nPython prints\n%s", got, pretty)
	}
	// And it is JSON that decodes back to the same report.
	var back RS1Report
	if err := json.Unmarshal(rep.PythonJSON(true), &back); err != nil || !reflect.DeepEqual(back, rep) {
		t.Errorf("round trip: %v\n%+v\n%+v", err, back, rep)
	}
}

// The struct's own JSON has exactly RS-1's field names and order.
func TestRS1ReportFields(t *testing.T) {
	r := Evaluate(problematicTrace(), profile.Reference).RS1()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var generic map[string]any
	if err := json.Unmarshal(b, &generic); err != nil {
		t.Fatal(err)
	}
	keys := []string{"metadata", "overall_score", "reasoning", "signal_scores", "trace_id", "verdict"}
	for _, k := range keys {
		if _, ok := generic[k]; !ok {
			t.Errorf("missing %q in %s", k, b)
		}
	}
	if len(generic) != len(keys) {
		t.Errorf("unexpected fields in %s", b)
	}
	var names []string
	for _, s := range r.SignalScores {
		names = append(names, s.SignalName)
	}
	if !reflect.DeepEqual(names, []string{"hallucination", "loop", "tool_misuse", "cost"}) {
		t.Errorf("signal order %v", names)
	}
	meta := generic["metadata"].(map[string]any)
	if meta["total_messages"] != 5.0 || meta["total_tool_calls"] != 5.0 || meta["total_tokens"] != 8000.0 {
		t.Errorf("metadata %v", meta)
	}
}
