package outcome

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentgate/agentgate/gate/trace"
)

// TestPhoenixAnnotationsFile: Phoenix's span annotations (client.spans.get_span_annotations,
// json.dump'd) and trace annotations (the REST API's page) as outcomes, the annotation
// outcome-scorer names: a score, else a label read as a verdict ("incorrect" a failure), the
// mean of a span's repeats (an LLM judge's label and a human's 0.0); a span annotated with
// other names only (an LLM span's hallucination) is no outcome and no error.
func TestPhoenixAnnotationsFile(t *testing.T) {
	spans := "testdata/phoenix-span-annotations.json"
	s, err := Read(context.Background(), []string{spans}, "correctness")
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]trace.Outcome{
		"00f067aa0ba902b7": {Known: true, Value: 1, Source: Source},
		"10f067aa0ba902b8": {Known: true, Value: 0, Source: Source},
	} {
		if got, ok := s.Take(id); !ok || got != want {
			t.Errorf("%s: %+v %v, want %+v", id, got, ok, want)
		}
	}
	if s.Len() != 2 || len(s.Unmatched()) != 0 || len(s.Notes()) != 0 {
		t.Errorf("%d outcomes, unmatched %q, notes %q", s.Len(), s.Unmatched(), s.Notes())
	}
	s, err = Read(context.Background(), []string{"testdata/phoenix-trace-annotations.json"}, "goal_met")
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]trace.Outcome{
		"0af7651916cd43dd8448eb211c80319c": {Known: true, Value: 1, IsBool: true, Source: Source},
		"1bf7651916cd43dd8448eb211c80319d": {Known: true, Value: 0, IsBool: true, Source: Source},
	} {
		if got, ok := s.Take(id); !ok || got != want {
			t.Errorf("%s: %+v %v, want %+v", id, got, ok, want)
		}
	}
	// without outcome-scorer none is an outcome, and a note names them; a name no annotation
	// has is an error listing them
	s, err = Read(context.Background(), []string{spans}, "")
	want := `outcomes: Phoenix annotations "correctness", "hallucination", "tone" not read as an outcome: name the annotation with outcome-scorer`
	if err != nil || s.Len() != 0 || !slices.Equal(s.Notes(), []string{want}) {
		t.Errorf("no scorer: %v, %d outcomes, notes %q", err, s.Len(), s.Notes())
	}
	_, err = Read(context.Background(), []string{spans}, "relevance")
	if want := spans + `:2:3: no Phoenix annotation is named "relevance" (outcome-scorer); the annotations are "correctness", "hallucination", "tone"`; err == nil || err.Error() != want {
		t.Errorf("relevance: error\n got %v\nwant %s", err, want)
	}
	// a label that is no verdict, named, is an error at it
	p := filepath.Join(t.TempDir(), "a.jsonl")
	line := `{"id": "x", "name": "hallucination", "annotator_kind": "LLM", "result": {"label": "factual", "score": null}, "span_id": "d7ad6b7169203333"}` + "\n"
	if err := os.WriteFile(p, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Read(context.Background(), []string{p}, "hallucination")
	if want := p + `:1:83: field "result.label": annotation "hallucination" has no score, and its label "factual" is not a verdict agentgate can read (pass or fail, correct or incorrect, true or false, yes or no)`; err == nil || err.Error() != want {
		t.Errorf("a label: error\n got %v\nwant %s", err, want)
	}
}
