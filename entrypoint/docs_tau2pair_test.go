package entrypoint

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestDocTau2Pair runs docs/comparison-and-statistics.md's comparison of two real tau2-bench
// results files (testdata/tau2pair: gpt-4.1 as main, a fine-tuned gpt-4.1 as the change, the
// same ten airline tasks, one trial each) and keeps the example true. Every simulation has its
// own uuid, so the runs can only be matched on suite (the domain), task and trial; the harness's own rewards say
// which tasks changed: the fine-tuned model lost 29 and 45 and won 26 and 48.
func TestDocTau2Pair(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"gpt-4.1_airline.json", "ft-gpt-4.1_airline.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", "tau2pair", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, stderr := runIn(t, dir, "gate", "--traces", "gpt-4.1_airline.json", "--json", "base-report.json"); code != 0 {
		t.Fatalf("base: exit %d, want 0 (no FAIL trace): %s", code, stderr)
	}
	code, _, stderr := runIn(t, dir, "gate", "--traces", "ft-gpt-4.1_airline.json", "--baseline", "base-report.json",
		"--markdown", "head.md", "--json", "head-report.json")
	if code != 0 {
		t.Fatalf("head: exit %d, want 0 (no FAIL trace; success 7 of 10 on both sides, not significant): %s", code, stderr)
	}

	var report struct {
		Reliability struct {
			Traces []struct {
				ID   string `json:"id"`
				Task string `json:"task"`
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
				NewFailureIDs []string `json:"new_failure_ids"`
				FixedIDs      []string `json:"fixed_ids"`
			} `json:"success"`
		} `json:"comparison"`
	}
	raw, err := os.ReadFile(filepath.Join(dir, "head-report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &report); err != nil {
		t.Fatal(err)
	}
	m := report.Comparison.Matching
	if m.On != "suite, task and trial" || m.BaseRuns != 10 || m.HeadRuns != 10 || m.Matched != 10 {
		t.Errorf("matching = %+v, want 10 of 10 on both sides, on suite, task and trial", m)
	}
	task := map[string]string{}
	for _, tr := range report.Reliability.Traces {
		task[tr.ID] = tr.Task
	}
	tasks := func(ids []string) []string {
		var out []string
		for _, id := range ids {
			out = append(out, task[id])
		}
		slices.Sort(out)
		return out
	}
	s := report.Comparison.Success
	if got := tasks(s.NewFailureIDs); !slices.Equal(got, []string{"29", "45"}) {
		t.Errorf("new failures by outcome on tasks %v, want [29 45] (reward 1 with gpt-4.1, 0 fine-tuned)", got)
	}
	if got := tasks(s.FixedIDs); !slices.Equal(got, []string{"26", "48"}) {
		t.Errorf("fixed by outcome on tasks %v, want [26 48] (reward 0 with gpt-4.1, 1 fine-tuned)", got)
	}

	md, err := os.ReadFile(filepath.Join(dir, "head.md"))
	if err != nil {
		t.Fatal(err)
	}
	checkDocBlock(t, "docs/comparison-and-statistics.md", "tau2-pair-example", string(md), "### Gates", -1)
}
