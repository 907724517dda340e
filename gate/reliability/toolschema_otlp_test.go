package reliability

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/trace"
)

// The tools' schemas OTLP spans record (docs/trace-formats.md, "Tool schemas"): the GenAI
// conventions' gen_ai.tool.definitions and OpenInference's llm.tools.<i>.tool.json_schema,
// in a file written as the instrumentations write them (trace/testdata/formats,
// otlp-tool-definitions.jsonl). An optional argument sent as null, the call's only one, is
// no misuse (without the schemas it is: no member holds a value); a required one left out is
// one (without the schemas it is not: another member holds a value).
func TestOTLPToolDefinitionsJudgeMisuse(t *testing.T) {
	path := filepath.Join("..", "trace", "testdata", "formats", "otlp-tool-definitions.jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	traces, err := trace.ReadOTLP(path, data)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]bool{ // with the schemas, without them
		"5a1b2c3d4e5f60718293a4b5c6d7e8f9": {false, true}, // list_alerts {"region": null}
		"6a1b2c3d4e5f60718293a4b5c6d7e8f9": {true, false}, // book_hotel {"city": "Porto"}, nights required
		"7a1b2c3d4e5f60718293a4b5c6d7e8f9": {false, true}, // list_orders {"status": null} (OpenInference)
	}
	if len(traces) != len(want) {
		t.Fatalf("%d traces, want %d", len(traces), len(want))
	}
	for _, tr := range traces {
		w, ok := want[tr.ID]
		if !ok || tr.RequiredParams == nil {
			t.Fatalf("trace %s: required parameters %v", tr.ID, tr.RequiredParams)
		}
		const misuse = "have empty, missing or null arguments"
		if got := hasEvidence(Evaluate(tr, profile.Default), SignalToolMisuse, misuse); got != w[0] {
			t.Errorf("%s with its schemas: misuse %v, want %v", tr.ID, got, w[0])
		}
		bare := *tr
		bare.RequiredParams = nil
		if got := hasEvidence(Evaluate(&bare, profile.Default), SignalToolMisuse, misuse); got != w[1] {
			t.Errorf("%s without schemas: misuse %v, want %v", tr.ID, got, w[1])
		}
	}
}
