package gate_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/internal/jsonreport"
	"github.com/agentgate/agentgate/test/gensuite"
)

// writeSuite generates a small suite of several files: three JSON Lines files of generated
// traces and a JSON array file of the same records (two of them on one line, without ids),
// then lets edit change the files' text (file name → text) before they are written.
func writeSuite(t *testing.T, edit func(name, text string) string) []string {
	t.Helper()
	dir := t.TempDir()
	g := gensuite.NewTraces(7)
	var files []string
	for i, n := range []int{150, 1, 130} {
		var b []byte
		for range n {
			b = g.Append(b)
		}
		files = append(files, filepath.Join(dir, fmt.Sprintf("a%d.jsonl", i)))
		write(t, files[i], edit, string(b))
	}
	var recs []string
	for range 40 {
		recs = append(recs, strings.TrimSuffix(string(g.Append(nil)), "\n"))
	}
	// records without an id, two on one line: named <file>:<line> and <file>:<line>:<col>
	anon := strings.Replace(recs[5], `"trace_id": `, `"note": `, 1)
	text := "[\n" + strings.Join(recs[:20], ",\n") + ",\n" + anon + ", " + anon + ",\n" + strings.Join(recs[20:], ",\n") + "\n]\n"
	files = append(files, filepath.Join(dir, "b.json"))
	write(t, files[3], edit, text)
	return files
}

func write(t *testing.T, path string, edit func(name, text string) string, text string) {
	t.Helper()
	if edit != nil {
		text = edit(filepath.Base(path), text)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// run runs the gate over trace files with the given number of workers (0: the sequential
// reading) and returns the JSON report, or the error's text.
func run(t *testing.T, files []string, p profile.Profile, workers int) string {
	t.Helper()
	return runInputs(t, gate.Inputs{Traces: files}, p, workers)
}

// runInputs is run over any inputs.
func runInputs(t *testing.T, in gate.Inputs, p profile.Profile, workers int) string {
	t.Helper()
	o := gate.Options{Profile: p, Thresholds: gate.DefaultThresholds(), Workers: workers}
	res, err := gate.RunEither(context.Background(), in, o, workers == 0)
	if err != nil {
		return "error: " + err.Error()
	}
	var b bytes.Buffer
	if err := jsonreport.Write(&b, res); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// lineOf replaces line n (1-based) of text by repl(line).
func lineOf(text string, n int, repl func(string) string) string {
	lines := strings.SplitAfter(text, "\n")
	lines[n-1] = repl(lines[n-1])
	return strings.Join(lines, "")
}

// TestParallelMatchesSequential checks that the pipeline gives byte for byte the report of the
// sequential reading, and the same error, the first in file order, when the input is bad in
// one or several places.
func TestParallelMatchesSequential(t *testing.T) {
	cases := []struct {
		name    string
		edit    func(name, text string) string
		wantErr string // part of the error, "" for a report
	}{
		{"clean", nil, ""},
		{"syntax error deep in the second big file", func(name, text string) string {
			if name == "a2.jsonl" {
				return lineOf(text, 100, func(l string) string { return strings.Replace(l, `"role": "tool"`, `"role" "tool"`, 1) })
			}
			return text
		}, "a2.jsonl:100:"},
		{"earliest of several errors", func(name, text string) string {
			switch name {
			case "a0.jsonl":
				text = lineOf(text, 140, func(l string) string { return strings.Replace(l, `"success": true`, `"success": 1`, 1) })
				return lineOf(text, 145, func(string) string { return "{oops\n" })
			case "a2.jsonl":
				return lineOf(text, 3, func(string) string { return "[]\n" })
			}
			return text
		}, "a0.jsonl:140:"},
		{"duplicate id across files", func(name, text string) string {
			if name == "a2.jsonl" {
				return lineOf(text, 120, func(l string) string { return `{"trace_id": "run-0000000"` + l[strings.Index(l, `, "messages"`):] })
			}
			return text
		}, "a2.jsonl:120: duplicate trace id \"run-0000000\": already used at "},
		{"duplicate id before a syntax error in the same batch", func(name, text string) string {
			if name == "a0.jsonl" {
				text = lineOf(text, 10, func(l string) string {
					return strings.Replace(l, `"trace_id": "run-0000009"`, `"trace_id": "run-0000002"`, 1)
				})
				return lineOf(text, 11, func(string) string { return "{\n" })
			}
			return text
		}, "a0.jsonl:10: duplicate trace id \"run-0000002\": already used at "},
		{"invalid UTF-8", func(name, text string) string {
			if name == "a2.jsonl" {
				return lineOf(text, 77, func(l string) string { return strings.Replace(l, "Found", "Fo\xffund", 1) })
			}
			return text
		}, "a2.jsonl:77:"},
		{"empty file", func(name, text string) string {
			if name == "a1.jsonl" {
				return "\n  \n"
			}
			return text
		}, "a1.jsonl: no records: the file is empty"},
		{"JSON array with a syntax error", func(name, text string) string {
			if name == "b.json" {
				return lineOf(text, 30, func(l string) string { return strings.Replace(l, `"messages": [`, `"messages": [,`, 1) })
			}
			return text
		}, "b.json:30:"},
		{"empty JSON array", func(name, text string) string {
			if name == "b.json" {
				return "[]"
			}
			return text
		}, "b.json: no records: the file is empty"},
		{"blank lines and CRLF", func(name, text string) string {
			if name == "a0.jsonl" {
				return "\n\n" + strings.ReplaceAll(text, "\n", "\r\n\n")
			}
			return text
		}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files := writeSuite(t, c.edit)
			for _, p := range []profile.Profile{profile.Default, profile.Reference} {
				want := run(t, files, p, 0)
				for _, workers := range []int{1, 2, 3, 8} {
					if got := run(t, files, p, workers); got != want {
						t.Fatalf("%s, %d workers: the report differs from the sequential one:\n%.300s\nwant\n%.300s", p, workers, got, want)
					}
				}
				if strings.HasPrefix(want, "error") {
					t.Logf("%s: %.200s", p, want)
				}
				if c.wantErr != "" && !strings.Contains(want, c.wantErr) {
					t.Fatalf("%s: got %.300s, want an error with %q", p, want, c.wantErr)
				}
				if c.wantErr == "" && strings.HasPrefix(want, "error") {
					t.Fatalf("%s: %s", p, want)
				}
			}
		})
	}
}

// TestParallelNamesRecordsWithoutIDs checks the ids of records that share a line.
func TestParallelNamesRecordsWithoutIDs(t *testing.T) {
	files := writeSuite(t, nil)
	out := run(t, files, profile.Default, 3)
	for _, id := range []string{`"id":"` + files[3] + `:22"`, `"id":"` + files[3] + `:22:`} {
		if !strings.Contains(out, id) {
			t.Errorf("no %s in the report", id)
		}
	}
}

// TestParallelFixtures checks the project's fixtures read the same both ways.
func TestParallelFixtures(t *testing.T) {
	for _, suite := range []string{"pass", "fail"} {
		files := []string{filepath.Join("..", "fixtures", suite, "traces.jsonl")}
		for _, p := range []profile.Profile{profile.Default, profile.Reference} {
			if want, got := run(t, files, p, 0), run(t, files, p, 4); got != want {
				t.Errorf("%s/%s: the report differs from the sequential one", suite, p)
			}
		}
	}
}

// TestParallelCancel checks that a cancelled run stops with the context's error.
func TestParallelCancel(t *testing.T) {
	files := writeSuite(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, workers := range []int{0, 1, 4} {
		o := gate.Options{Thresholds: gate.DefaultThresholds(), Workers: workers}
		_, err := gate.RunEither(ctx, gate.Inputs{Traces: files}, o, workers == 0)
		if err != context.Canceled {
			t.Errorf("%d workers: %v, want %v", workers, err, context.Canceled)
		}
	}
}

// TestHugeTraceParallel: a huge trace (over input.HugeRecord bytes), whose memory the worker
// lets go before evaluating it, is evaluated as the sequential reading evaluates it, and so
// are the traces on the lines before and after it, in JSON Lines or as elements of an array.
func TestHugeTraceParallel(t *testing.T) {
	g := gensuite.NewTraces(3)
	b := g.Append(nil)
	g.Messages = 90_000
	b = g.Append(b)
	if len(b) < input.HugeRecord {
		t.Fatalf("the huge trace has %d bytes, want at least %d", len(b), input.HugeRecord)
	}
	g.Messages = 20
	b = g.Append(g.Append(b))
	path := filepath.Join(t.TempDir(), "huge.jsonl")
	write(t, path, nil, string(b))
	p := profile.Default
	want := run(t, []string{path}, p, 0)
	if got := run(t, []string{path}, p, 2); got != want {
		t.Errorf("parallel report differs from the sequential one:\n%s\nwant:\n%s", got, want)
	}
	for _, id := range []string{"run-0000000", "run-0000001", "run-0000002", "run-0000003"} {
		if !strings.Contains(want, `{"id":"`+id+`"`) {
			t.Errorf("the report has no trace %s:\n%s", id, want)
		}
	}
	// the same records as the elements of a JSON array, one to a line: the same report
	array := filepath.Join(t.TempDir(), "huge.json")
	write(t, array, nil, "["+strings.ReplaceAll(strings.TrimSuffix(string(b), "\n"), "\n", ",\n")+"]\n")
	want = strings.ReplaceAll(want, path, array)
	for _, workers := range []int{0, 2} {
		if got := run(t, []string{array}, p, workers); got != want {
			t.Errorf("%d workers: the array's report differs from the lines':\n%s\nwant:\n%s", workers, got, want)
		}
	}
}
