package gate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/internal/jsonreport"
)

// TestLangfuseBlobWindows: a Langfuse blob-storage export of three hourly windows
// (trace/testdata/formats/langfuse/blob-windows, generated as the export writes it: a file per
// table and window, an empty file for a table without rows in a window, a row at a window's end
// in the next window too) is read as one: w-trace-1 starts at 10:59:58 and makes its tool call
// and second model call after 11:00, its scores land in the 13:00 window, and it is one run of
// 5 messages and 1 tool call (the tool observation at 11:00:00.000 is in two windows and counts
// once), 138 + 174 tokens. w-trace-2's passed score sits in two windows: one boolean, not the
// mean of two. The manifests are side files; the observations windows named by a glob read the same.
func TestLangfuseBlobWindows(t *testing.T) {
	dir := filepath.Join("trace", "testdata", "formats", "langfuse", "blob-windows")
	for _, c := range []struct {
		scorer string
		values map[string]float64
		isBool bool
	}{
		{"correctness", map[string]float64{"w-trace-1": 1, "w-trace-2": 0}, false},
		{"passed", map[string]float64{"w-trace-1": 1, "w-trace-2": 0}, true},
	} {
		for _, traces := range []string{dir, filepath.Join(dir, "cm0proj2", "observations", "*.jsonl")} { // the folder, or a glob of the windows
			res, err := gate.Run(context.Background(), gate.Inputs{Traces: []string{traces}}, gate.Options{Thresholds: gate.DefaultThresholds(), OutcomeScorer: c.scorer})
			if err != nil {
				t.Fatal(err)
			}
			if traces == dir && !strings.Contains(strings.Join(res.Notes, "\n"), "skipped 9 side files: cm0proj2/manifests/2026-05-01T11-00-00.json (Langfuse export manifest, the files of one export run), ") {
				t.Errorf("notes %q", res.Notes)
			}
			traces := res.Reliability.Traces
			if len(traces) != 2 || traces[0].ID != "w-trace-1" || traces[1].ID != "w-trace-2" {
				t.Fatalf("%s: %d traces %+v", c.scorer, len(traces), traces)
			}
			for _, tr := range traces {
				if tr.Messages != 5 || tr.ToolCalls != 1 || tr.Run.Tokens != 312 || tr.Task != strings.Replace(tr.ID, "w-trace", "di", 1) {
					t.Errorf("%s: %s: %d messages, %d tool calls, %d tokens, task %q", c.scorer, tr.ID, tr.Messages, tr.ToolCalls, tr.Run.Tokens, tr.Task)
				}
				if v := c.values[tr.ID]; !tr.Run.Known || tr.Run.Value != v || tr.Run.IsBool != c.isBool {
					t.Errorf("%s: %s: outcome %+v, want %v (boolean %v)", c.scorer, tr.ID, tr.Run, v, c.isBool)
				}
			}
		}
	}
}

// TestLangfuseWindowSplit: the rows of a blob export's three tables, shuffled and split across
// 1, 2 and 5 window files, give the same report: every figure, verdict, outcome and run the same,
// byte for byte, leaving out only where each run was read (file and line) and the list of side
// files, which name the window files.
func TestLangfuseWindowSplit(t *testing.T) {
	src := filepath.Join("trace", "testdata", "formats", "langfuse", "blob", "cm0proj1")
	rows := map[string][][]byte{}
	for _, table := range []string{"observations", "scores", "traces"} {
		data, err := os.ReadFile(filepath.Join(src, table, "2026-05-04T00-00-00.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		rows[table] = bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	}
	rng := rand.New(rand.NewPCG(48, 2))
	var want string
	for _, windows := range []int{1, 2, 5, 5} {
		dir := t.TempDir()
		for table, rs := range rows {
			rs = append([][]byte(nil), rs...)
			rng.Shuffle(len(rs), func(i, j int) { rs[i], rs[j] = rs[j], rs[i] })
			if err := os.MkdirAll(filepath.Join(dir, "cm0proj1", table), 0o755); err != nil {
				t.Fatal(err)
			}
			for w := range windows {
				var b bytes.Buffer
				for i := w; i < len(rs); i += windows {
					b.Write(rs[i])
					b.WriteByte('\n')
				}
				name := fmt.Sprintf("2026-05-0%dT00-00-00.jsonl", w+1)
				if err := os.WriteFile(filepath.Join(dir, "cm0proj1", table, name), b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		res, err := gate.Run(context.Background(), gate.Inputs{Traces: []string{dir}}, gate.Options{Thresholds: gate.DefaultThresholds(), OutcomeScorer: "correctness"})
		if err != nil {
			t.Fatalf("%d windows: %v", windows, err)
		}
		if len(res.Reliability.Traces) != 3 || res.Outcomes == nil || res.Outcomes.Known != 3 || res.Outcomes.Successes != 2 {
			t.Fatalf("%d windows: %d traces, outcomes %+v", windows, len(res.Reliability.Traces), res.Outcomes)
		}
		var buf bytes.Buffer
		if err := jsonreport.Write(&buf, res); err != nil {
			t.Fatal(err)
		}
		var doc any
		if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		got, _ := json.MarshalIndent(withoutPlaces(doc), "", " ")
		if windows == 1 {
			want = string(got)
			continue
		}
		if string(got) != want {
			t.Errorf("%d windows: the report differs from one window's\n got %s\nwant %s", windows, got, want)
		}
	}
}

// withoutPlaces is a decoded JSON report without its members "file" and "line" and its notes
// that list side files.
func withoutPlaces(v any) any {
	switch v := v.(type) {
	case map[string]any:
		delete(v, "file")
		delete(v, "line")
		for k, x := range v {
			v[k] = withoutPlaces(x)
		}
	case []any:
		out := v[:0]
		for _, x := range v {
			if s, ok := x.(string); ok && strings.HasPrefix(s, "skipped ") {
				continue
			}
			out = append(out, withoutPlaces(x))
		}
		return out
	}
	return v
}
