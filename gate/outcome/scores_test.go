package outcome

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/trace"
)

// The runs these outcomes name are gate/trace's fixtures: LangSmith's experiment-b.jsonl (roots
// b0000000-…-00000000000{1,2,3}) and Langfuse's experiment-b.jsonl (b-trace-{1,2,3}).
const lsRoot = "b0000000-aaaa-4bbb-8ccc-00000000000"

// TestLangSmithFeedbackFile: feedback exported apart from the runs (client.list_feedback, one
// model_dump_json() a line) joins its trace by trace_id: the key outcome-scorer names, the mean
// of repeats (a human's true beside a model's 1 is 1, not a boolean), a child run's feedback
// counted for its trace, a run of no trace listed as unmatched.
func TestLangSmithFeedbackFile(t *testing.T) {
	s, err := Read(context.Background(), []string{"testdata/langsmith-feedback.jsonl"}, "correctness")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		id   string
		want trace.Outcome
	}{
		{lsRoot + "1", trace.Outcome{Known: true, Value: 1, Source: Source}},
		{lsRoot + "2", trace.Outcome{Known: true, Value: 1, Source: Source}},
		{lsRoot + "3", trace.Outcome{Known: true, Value: 0, Source: Source}},
	} {
		if got, ok := s.Take(c.id); !ok || got != c.want {
			t.Errorf("%s: %+v %v, want %+v", c.id, got, ok, c.want)
		}
	}
	if u := s.Unmatched(); !slices.Equal(u, []string{"c0000000-aaaa-4bbb-8ccc-000000000009"}) || s.Len() != 4 || len(s.Notes()) != 0 {
		t.Errorf("unmatched %q, %d outcomes, notes %q", u, s.Len(), s.Notes())
	}
	// without outcome-scorer none is an outcome, and one note names every key seen
	s, err = Read(context.Background(), []string{"testdata/langsmith-feedback.jsonl"}, "")
	want := `outcomes: LangSmith feedback "conciseness", "correctness", "helpfulness" not read as an outcome: name the key with outcome-scorer`
	if err != nil || s.Len() != 0 || !slices.Equal(s.Notes(), []string{want}) {
		t.Errorf("no scorer: %v, %d outcomes, notes %q", err, s.Len(), s.Notes())
	}
	// a key the first trace lacks is an error naming its keys; categorical feedback named is one too
	for scorer, want := range map[string]string{
		"conciseness": `testdata/langsmith-feedback.jsonl:3:1: trace "` + lsRoot + `2" has no feedback "conciseness" (outcome-scorer); its feedback keys are "correctness"`,
		"helpfulness": `testdata/langsmith-feedback.jsonl:1:1: trace "` + lsRoot + `1" has no feedback "helpfulness" (outcome-scorer); its feedback keys are "conciseness", "correctness"`,
	} {
		if _, err := Read(context.Background(), []string{"testdata/langsmith-feedback.jsonl"}, scorer); err == nil || err.Error() != want {
			t.Errorf("%s: error\n got %v\nwant %s", scorer, err, want)
		}
	}
	p := filepath.Join(t.TempDir(), "fb.jsonl")
	data, _ := os.ReadFile("testdata/langsmith-feedback.jsonl")
	lines := strings.SplitAfter(string(data), "\n")
	if err := os.WriteFile(p, []byte(lines[5]), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Read(context.Background(), []string{p}, "helpfulness")
	if want := p + `:1:272: field "value": feedback "helpfulness" is categorical (value "good", no score): not an outcome agentgate can read (a score is)`; err == nil || err.Error() != want {
		t.Errorf("categorical: error\n got %v\nwant %s", err, want)
	}
}

// TestLangfuseScoresFile: Langfuse's scores list (GET /api/public/v2/scores, {"data", "meta"})
// as outcomes: the mean of a trace's repeats, a session's score noted (it names no trace), a
// trace the traces lack unmatched; the blob export's scores rows read the same way; a score
// given twice (two windows sharing a bound) counted once.
func TestLangfuseScoresFile(t *testing.T) {
	s, err := Read(context.Background(), []string{"testdata/langfuse-scores.json"}, "correctness")
	if err != nil {
		t.Fatal(err)
	}
	for id, v := range map[string]float64{"b-trace-1": 1, "b-trace-2": 0.75, "b-trace-3": 0} {
		if got, ok := s.Take(id); !ok || got != (trace.Outcome{Known: true, Value: v, Source: Source}) {
			t.Errorf("%s: %+v %v, want %v", id, got, ok, v)
		}
	}
	if u := s.Unmatched(); !slices.Equal(u, []string{"b-trace-9"}) || !slices.Equal(s.Notes(), []string{"outcomes: 1 Langfuse score of a session or a dataset run names no trace: not read"}) {
		t.Errorf("unmatched %q notes %q", u, s.Notes())
	}
	s, err = Read(context.Background(), []string{"testdata/langfuse-scores.json"}, "")
	if want := `outcomes: Langfuse scores "correctness", "passed", "tone" not read as an outcome: name the score with outcome-scorer`; err != nil || s.Len() != 0 || !slices.Contains(s.Notes(), want) {
		t.Errorf("no scorer: %v, %d outcomes, notes %q", err, s.Len(), s.Notes())
	}
	_, err = Read(context.Background(), []string{"testdata/langfuse-scores.json"}, "tone")
	if want := `testdata/langfuse-scores.json:1:10: trace "b-trace-1" has no score "tone" (outcome-scorer); its scores are "correctness", "passed"`; err == nil || err.Error() != want {
		t.Errorf("tone: error\n got %v\nwant %s", err, want)
	}
	// the blob export's rows (snake_case), the same file twice: each score once; an empty
	// window of its scores/ adds nothing (an empty file elsewhere is still an error)
	blob := filepath.Join("..", "trace", "testdata", "formats", "langfuse", "blob", "cm0proj1", "scores", "2026-05-04T00-00-00.jsonl")
	empty := filepath.Join("..", "trace", "testdata", "formats", "langfuse", "blob-windows", "cm0proj2", "scores", "2026-05-01T11-00-00.jsonl")
	s, err = Read(context.Background(), []string{blob, empty, blob}, "passed")
	if err != nil {
		t.Fatal(err)
	}
	for id, v := range map[string]float64{"a-trace-1": 1, "a-trace-2": 1, "a-trace-3": 0} {
		if got, ok := s.Take(id); !ok || got != (trace.Outcome{Known: true, Value: v, IsBool: true, Source: Source}) {
			t.Errorf("blob %s: %+v %v, want the boolean %v", id, got, ok, v)
		}
	}
	p := filepath.Join(t.TempDir(), "outcomes.jsonl")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(context.Background(), []string{blob, p}, "passed"); err == nil || err.Error() != p+": no records: the file is empty" {
		t.Errorf("an empty outcomes file: %v", err)
	}
}

// TestScoresAndLines: a trace named by a feedback record and by a JSONL outcome is named twice.
func TestScoresAndLines(t *testing.T) {
	p := filepath.Join(t.TempDir(), "o.jsonl")
	if err := os.WriteFile(p, []byte(`{"id": "b-trace-1", "reward": 1}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Read(context.Background(), []string{p, "testdata/langfuse-scores.json"}, "correctness")
	if err == nil || !strings.Contains(err.Error(), `"b-trace-1"`) || !strings.Contains(err.Error(), p+":1:1") {
		t.Errorf("error %v, want the duplicate named at both places", err)
	}
}
