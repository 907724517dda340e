package entrypoint

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// platformComparison is what the platform tests read of a report compared with a baseline.
type platformComparison struct {
	Reliability struct {
		Traces []struct {
			ID        string `json:"id"`
			Task      string `json:"task"`
			Messages  int    `json:"messages"`
			ToolCalls int    `json:"tool_calls"`
		} `json:"traces"`
	} `json:"reliability"`
	Comparison struct {
		Matching struct {
			On       string `json:"on"`
			BaseRuns int    `json:"base_runs"`
			HeadRuns int    `json:"head_runs"`
			Matched  int    `json:"matched"`
		} `json:"matching"`
		Success struct {
			Matched       int      `json:"matched"`
			NewFailures   int      `json:"new_failures"`
			Fixed         int      `json:"fixed"`
			P             float64  `json:"p"`
			Direction     string   `json:"direction"`
			NewFailureIDs []string `json:"new_failure_ids"`
		} `json:"success"`
	} `json:"comparison"`
}

func readComparison(t *testing.T, path string) platformComparison {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r platformComparison
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestLangSmithExperimentsCompare gates two LangSmith experiments on one dataset, end to end:
// the first (nested run trees) is the baseline report, the second (flat runs, newest first)
// compares with it run by run on the dataset example (reference_example_id), with the
// correctness feedback as the outcome. Example 2 failed in the second experiment (its tool
// raised): 1 new failure. Each experiment compared with itself changes nothing.
func TestLangSmithExperimentsCompare(t *testing.T) {
	data := filepath.Join("..", "gate", "trace", "testdata", "formats", "langsmith")
	_, stdout := experimentsCompare(t, filepath.Join(data, "experiment-a.json"), filepath.Join(data, "experiment-b.jsonl"), "b0000000-aaaa-4bbb-8ccc-000000000002")
	if !strings.Contains(stdout, "runs matched on task and trial: 3 of 3 in the baseline, 3 of 3 in this run") {
		t.Errorf("stdout lacks the matching line:\n%s", stdout)
	}
}

// experimentsCompare gates experiment a, then experiment b against a's report, both with the
// correctness score as the outcome, and holds what each platform's pair of experiments shows:
// 3 of 3 runs matched on task and trial, newFailure the one run that newly failed, none fixed,
// 5 messages and 1 tool call a run; and each experiment compared with itself changes nothing.
// It returns the baseline's and b's stdout.
func experimentsCompare(t *testing.T, a, b, newFailure string) (baseOut, headOut string) {
	t.Helper()
	dir := t.TempDir()
	base, head, self := filepath.Join(dir, "base.json"), filepath.Join(dir, "head.json"), filepath.Join(dir, "self.json")
	code, baseOut, stderr := cli(t, "", "gate", "--traces", a, "--outcome-scorer", "correctness", "--json", base)
	if code != 0 {
		t.Fatalf("base: exit %d\n%s%s", code, baseOut, stderr)
	}
	code, headOut, stderr = cli(t, "", "gate", "--traces", b, "--outcome-scorer", "correctness", "--baseline", base, "--json", head)
	if code != 0 {
		t.Fatalf("head: exit %d, want 0 (one WARN, no gate breached)\n%s%s", code, headOut, stderr)
	}
	r := readComparison(t, head)
	m := r.Comparison.Matching
	if m.On != "task and trial" || m.BaseRuns != 3 || m.HeadRuns != 3 || m.Matched != 3 {
		t.Errorf("matching %+v, want 3 of 3 on both sides, on task and trial", m)
	}
	s := r.Comparison.Success
	if s.Matched != 3 || s.NewFailures != 1 || s.Fixed != 0 || !slices.Equal(s.NewFailureIDs, []string{newFailure}) {
		t.Errorf("success %+v, want 3 matched, 1 new failure (%s), 0 fixed", s, newFailure)
	}
	for _, tr := range r.Reliability.Traces {
		if tr.Messages != 5 || tr.ToolCalls != 1 {
			t.Errorf("%s: %d messages, %d tool calls, want 5 and 1", tr.ID, tr.Messages, tr.ToolCalls)
		}
	}
	for _, c := range []struct{ traces, baseline string }{{a, base}, {b, head}} {
		if code, stdout, stderr := cli(t, "", "gate", "--traces", c.traces, "--outcome-scorer", "correctness", "--baseline", c.baseline, "--json", self); code != 0 {
			t.Fatalf("self: exit %d\n%s%s", code, stdout, stderr)
		}
		s := readComparison(t, self).Comparison.Success
		if s.Matched != 3 || s.NewFailures != 0 || s.Fixed != 0 || s.P != 1 || s.Direction != "same" {
			t.Errorf("%s compared with itself: %+v, want 3 matched, nothing changed, p 1, same", c.traces, s)
		}
	}
	return baseOut, headOut
}

// TestLangSmithNoScorerAndBlind: without outcome-scorer the report names the feedback keys it
// saw and reads no outcome; runs whose model calls are not in the file (roots exported
// without their child runs) are refused as read blind, exit 3, naming where turns were looked for.
func TestLangSmithNoScorerAndBlind(t *testing.T) {
	a := filepath.Join("..", "gate", "trace", "testdata", "formats", "langsmith", "experiment-a.json")
	code, stdout, stderr := cli(t, "", "gate", "--traces", a)
	if code != 0 || !strings.Contains(stdout, `note: 3 traces: LangSmith feedback "conciseness", "correctness" not read as an outcome: name the key with outcome-scorer`) {
		t.Errorf("exit %d, stdout lacks the feedback note:\n%s%s", code, stdout, stderr)
	}
	var roots []map[string]any
	raw, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &roots); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, r := range roots {
		r["child_runs"] = nil
		b, _ := json.Marshal(r)
		lines = append(lines, string(b))
	}
	p := filepath.Join(t.TempDir(), "roots.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = cli(t, "", "gate", "--traces", p)
	want := "agentgate: " + p + `: 3 of 3 traces read as LangSmith runs hold no agent turn (no assistant message under llm runs' inputs.messages and outputs.generations)`
	if code != 3 || !strings.HasPrefix(stderr, want) {
		t.Errorf("exit %d, stderr\n got %s\nwant %s…", code, stderr, want)
	}
}
