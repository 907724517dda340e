package gate_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/internal/refdata"
	"github.com/agentgate/agentgate/test/gensuite"
)

// writeTasks writes two JSON Lines files of generated tasks (about 1 MB: many batches), the
// failing fixture's JSON array, and the RCS harness's published results file when the
// reference data is there, letting edit change a file's text (file name → text) first.
func writeTasks(t *testing.T, edit func(name, text string) string) []string {
	t.Helper()
	dir := t.TempDir()
	r := gensuite.NewRand(11)
	var files []string
	next := 0
	for i, n := range []int{1200, 900} {
		var b []byte
		for range n {
			b = gensuite.AppendTask(b, r, next)
			next++
		}
		files = append(files, filepath.Join(dir, fmt.Sprintf("t%d.jsonl", i)))
		write(t, files[i], edit, string(b))
	}
	srcs := []string{filepath.Join("..", "fixtures", "fail", "tasks.json")}
	if echo, ok := refdata.Optional(t, "rcs/rcs_echo_20251109-230939.json"); ok {
		srcs = append(srcs, echo)
	}
	for _, src := range srcs {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, filepath.Join(dir, filepath.Base(src)))
		write(t, files[len(files)-1], edit, string(data))
	}
	return files
}

// TestParallelTasksMatchSequential: coherence tasks read and scored on the pipeline give the
// report of the sequential reading byte for byte, or its error, the first in file order.
func TestParallelTasksMatchSequential(t *testing.T) {
	cases := []struct {
		name, wantErr string
		edit          func(name, text string) string
	}{
		{"clean", "", nil},
		{"duplicate id across files", `t1.jsonl:700: duplicate task id "task-000005"`, func(name, text string) string {
			if name == "t1.jsonl" {
				return lineOf(text, 700, func(l string) string { return strings.Replace(l, `"task-001899"`, `"task-000005"`, 1) })
			}
			return text
		}},
		{"duplicate before a syntax error", `t0.jsonl:1000: duplicate task id`, func(name, text string) string {
			if name == "t0.jsonl" {
				text = lineOf(text, 1000, func(l string) string { return strings.Replace(l, `"task-000999"`, `"task-000010"`, 1) })
				return lineOf(text, 1001, func(string) string { return "{\"task_id\": \n" })
			}
			return text
		}},
		{"syntax error deep in", "t1.jsonl:850:", func(name, text string) string {
			if name == "t1.jsonl" {
				return lineOf(text, 850, func(l string) string { return strings.Replace(l, `"intent":`, `"intent"`, 1) })
			}
			return text
		}},
		{"a task that is not one", "t0.jsonl:3:", func(name, text string) string {
			if name == "t0.jsonl" {
				return lineOf(text, 3, func(string) string { return "{\"x\": 1}\n" })
			}
			return text
		}},
		{"empty file", "t1.jsonl: no records: the file is empty", func(name, text string) string {
			if name == "t1.jsonl" {
				return "\n\n"
			}
			return text
		}},
		{"broken JSON array", "tasks.json:", func(name, text string) string {
			if name == "tasks.json" {
				return strings.Replace(text, `"id": "sort-fruits",`, `"id": "sort-fruits",,`, 1)
			}
			return text
		}},
		{"CRLF and blank lines", "", func(name, text string) string {
			if name == "t0.jsonl" {
				return "\r\n" + strings.ReplaceAll(text, "\n", "\r\n\n")
			}
			return text
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files := writeTasks(t, c.edit)
			for _, p := range []profile.Profile{profile.Default, profile.Reference} {
				want := runInputs(t, gate.Inputs{Tasks: files}, p, 0)
				for _, workers := range []int{1, 2, 5} {
					if got := runInputs(t, gate.Inputs{Tasks: files}, p, workers); got != want {
						t.Fatalf("%s, %d workers: the report differs from the sequential one:\n%.300s\nwant\n%.300s", p, workers, got, want)
					}
				}
				switch {
				case c.wantErr == "" && strings.HasPrefix(want, "error"):
					t.Fatalf("%s: %s", p, want)
				case c.wantErr != "" && !strings.Contains(want, c.wantErr):
					t.Fatalf("%s: got %.300s, want an error with %q", p, want, c.wantErr)
				}
			}
		})
	}
}
