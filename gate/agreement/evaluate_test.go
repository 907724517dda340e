package agreement

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/pipeline"
	"github.com/agentgate/agentgate/gate/profile"
)

// sequential is what EvaluateMerged must give: Compute over LoadMerged, or LoadMerged's error.
func sequential(paths []string, p profile.Profile) (Summary, string) {
	pairs, err := LoadMerged(paths, p)
	if err != nil {
		return Summary{}, err.Error()
	}
	s := Compute(pairs, nil, p)
	s.Files = FilesOf(pairs)
	return s, ""
}

// checkSame runs EvaluateMerged over paths with several numbers of workers and the smallest
// batches, and compares its summary, or error, with the sequential reading's.
func checkSame(t *testing.T, name string, paths []string) {
	t.Helper()
	for _, p := range []profile.Profile{profile.Default, profile.Reference} {
		want, wantErr := sequential(paths, p)
		for _, workers := range []int{1, 2, 3, 8} {
			o := pipeline.Options{Workers: workers, BatchBytes: 1, BatchRecords: 2}
			got, err := evaluateMerged(context.Background(), paths, p, o)
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if gotErr != wantErr {
				t.Fatalf("%s, %s, %d workers: error\n %s\nwant\n %s", name, p, workers, gotErr, wantErr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s, %s, %d workers: the summary differs from Compute(LoadMerged):\n%+v\nwant\n%+v", name, p, workers, got.Confusion, want.Confusion)
			}
		}
	}
}

// suiteText returns n merged records (the benchmark's shapes, mixed), one per line.
func suiteText(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	for _, full := range []bool{true, false} {
		path, _ := writeSuite(t, t.TempDir(), n/2, full)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		if !full {
			text = strings.ReplaceAll(text, `"Q`, `"L`) // distinct qids
		}
		b.WriteString(text)
	}
	return b.String()
}

// editLine replaces line n (1-based) of text by repl(line).
func editLine(text string, n int, repl func(string) string) string {
	lines := strings.SplitAfter(text, "\n")
	lines[n-1] = repl(lines[n-1])
	return strings.Join(lines, "")
}

// splitFiles writes text into k files of whole lines (the last ones may be given as they are
// in extra), named f0.jsonl, f1.jsonl, ...
func splitFiles(t *testing.T, text string, k int, extra ...string) []string {
	t.Helper()
	lines := strings.SplitAfter(text, "\n")
	var parts []string
	per := (len(lines) + k - 1) / k
	for i := 0; i < len(lines); i += per {
		parts = append(parts, strings.Join(lines[i:min(i+per, len(lines))], ""))
	}
	return writeFiles(t, append(parts, extra...)...)
}

// TestEvaluateMergedMatchesSequential: the parallel evaluator gives exactly the summary of
// Compute over LoadMerged, or exactly its error (the first in file order), on suites of
// several files cut into many batches, clean or broken in one or several places.
func TestEvaluateMergedMatchesSequential(t *testing.T) {
	const n = 4000 // about 1 MB: a dozen batches of the smallest size
	base := suiteText(t, n)
	cases := []struct {
		name  string
		edit  func(string) string
		extra []string // files after the suite's
		want  string   // part of the error, "" when the suite is good
	}{
		{"clean", nil, nil, ""},
		{"syntax error deep in", func(s string) string {
			return editLine(s, 3001, func(l string) string { return strings.Replace(l, `"qid":`, `"qid"`, 1) })
		}, nil, ":"},
		{"repeated qid across files", func(s string) string {
			return editLine(s, 3500, func(string) string { return `{"qid": "Q0000010", ` + vv + "}\n" })
		}, nil, `qid "Q0000010" is repeated: it is first at `},
		{"repeated qid before a bad record later in the same file", func(s string) string {
			s = editLine(s, 2100, func(string) string { return `{"qid": "Q0000005", ` + vv + "}\n" })
			return editLine(s, 2105, func(string) string { return "{\n" })
		}, nil, `qid "Q0000005" is repeated`},
		{"bad record before a repeat", func(s string) string {
			s = editLine(s, 100, func(string) string { return `{"qid": "x", "scholar": 1, "auditor": {"label": "VALID"}}` + "\n" })
			return editLine(s, 2105, func(string) string { return `{"qid": "Q0000005", ` + vv + "}\n" })
		}, nil, `field "scholar": expected an object`},
		{"unknown labels (an error by default)", func(s string) string {
			s = strings.Replace(s, `"label": "REJECT"`, `"label": "reject"`, 7)
			return strings.Replace(s, `"auditor": {"label": "VALID"`, `"auditor": {"label": "Valid"`, 3)
		}, nil, `unknown label "Valid"`},
		{"number qids, and 7 == 7.0", func(s string) string {
			s = editLine(s, 10, func(string) string { return `{"qid": 7, ` + vv + "}\n" })
			s = editLine(s, 11, func(string) string { return `{"qid": "7", ` + vv + "}\n" })
			return editLine(s, 3999, func(string) string { return `{"qid": 7.0, ` + vv + "}\n" })
		}, nil, `qid 7.0 is repeated: it is first at `},
		{"hard flags and citations out of scope", func(s string) string {
			s = strings.ReplaceAll(s, `"constraints_mismatch": false}`, `"constraints_mismatch": null}`)
			s = strings.Replace(s, `"retrieved_ids": ["p0#1"`, `"retrieved_ids": ["pX#1"`, 40)
			return strings.Replace(s, `"provenance_violation": false`, `"provenance_violation": true`, 25)
		}, nil, ""},
		{"invalid UTF-8", func(s string) string {
			return editLine(s, 2222, func(l string) string { return strings.Replace(l, "provenance", "prove\xffnance", 1) })
		}, nil, "invalid UTF-8"},
		{"blank lines and CRLF", func(s string) string {
			return "\n\r\n" + strings.ReplaceAll(s, "\n", "\r\n\n")
		}, nil, ""},
		{"an empty file after", nil, []string{"\n \n"}, "no records: the file is empty"},
		{"a JSON array after", nil, []string{"[\n" + `{"qid": "J1", ` + vv + "},\n " + `{"qid": "J2", "scholar": {"label": "ABSTAIN"}, "auditor": {"label": "VALID"}}]`}, ""},
		{"a JSON array with a repeat placed by column", nil, []string{`[{"qid": "J1", ` + vv + `}, {"qid": "Q0000003", ` + vv + `}]`}, `qid "Q0000003" is repeated`},
		{"a broken JSON array after", nil, []string{`[{"qid": "J1", ` + vv + `}, {"qid": ]`}, "invalid JSON"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := base
			if c.edit != nil {
				text = c.edit(text)
			}
			paths := splitFiles(t, text, 3, c.extra...)
			for i, e := range c.extra {
				// give the extra files the extension their contents need
				if strings.HasPrefix(e, "[") {
					np := strings.TrimSuffix(paths[len(paths)-len(c.extra)+i], ".jsonl") + ".json"
					if err := os.Rename(paths[len(paths)-len(c.extra)+i], np); err != nil {
						t.Fatal(err)
					}
					paths[len(paths)-len(c.extra)+i] = np
				}
			}
			checkSame(t, c.name, paths)
			_, wantErr := sequential(paths, profile.Default)
			switch {
			case c.want == "" && wantErr != "":
				t.Fatalf("unexpected error: %s", wantErr)
			case c.want != "" && !strings.Contains(wantErr, c.want):
				t.Fatalf("error %q, want one with %q", wantErr, c.want)
			}
		})
	}
}

// TestEvaluateMergedSmall: the small inputs of the loader's own tests, one file each.
func TestEvaluateMergedSmall(t *testing.T) {
	for i, text := range []string{
		`["a"]`,
		`{"qid": "a", "scholar": {"label": "VALID"}, "auditor": {"label": "valid"}}`,
		`{"qid": "a", ` + vv + "}\n{\"qid\": \"a\", " + vv + "}\n{\"qid\": 3, \"scholar\": 1}\n",
		`{"qid": "a", ` + vv + `, "answer_json": {"citations": ["p1", "p2"]}, "retrieved_ids": ["p2", "p1"]}`,
		`{"qid": "a", "scholar": {"label": "X"}, "auditor": {"label": "X"}}` + "\n" + `{"qid": "b", "scholar": {"label": "ABSTAIN"}, "auditor": {"label": "Y"}}`,
		`{"qid": "a", ` + vv + `, "answer_json": {"citations": [` + strings.Repeat(`"p", `, 20) + `"q"]}, "retrieved_ids": [` + strings.Repeat(`"p", `, 20) + `"q"]}`,
		`{"qid": "a", ` + vv + `, "answer_json": {"citations": [` + strings.Repeat(`"p", `, 20) + `"q"]}, "retrieved_ids": [` + strings.Repeat(`"p", `, 20) + `"r"]}`,
		"\n\n",
	} {
		checkSame(t, fmt.Sprint("input ", i), writeFiles(t, text))
	}
}

// TestEvaluateMergedUTF8: EvaluateMerged leaves checking UTF-8 to its decoder (see work); a
// line that is not UTF-8 must still get the reader's error, before any other of the line, in
// every place of a record, read by the general decoder or by a shape (after two records).
func TestEvaluateMergedUTF8(t *testing.T) {
	seed := seedRecord
	for i, edit := range []func(string) string{
		func(l string) string { return strings.Replace(l, `"A0001"`, `"Aé✓𝄞"`, 1) },                  // good UTF-8 in the qid
		func(l string) string { return strings.Replace(l, `cites p1#2`, `cites naïve ✓`, 1) },        // and in a reason
		func(l string) string { return strings.Replace(l, `"A0001"`, "\"A\xff\"", 1) },               // a bad byte in the qid
		func(l string) string { return strings.Replace(l, `cites p1#2`, "cites \xc3", 1) },           // a cut sequence in a reason
		func(l string) string { return strings.Replace(l, `cites p1#2`, "\xed\xa0\x80", 1) },         // a surrogate
		func(l string) string { return strings.Replace(l, `"p2#1"`, "\"p2\xc0\xaf\"", 1) },           // an overlong form in an id
		func(l string) string { return strings.Replace(l, `"VALID"`, "\"VALI\xc4\"", 1) },            // in a label
		func(l string) string { return strings.Replace(l, `"X rejects`, "\"X \xf4\x90\x80\x80", 1) }, // beyond U+10FFFF in the claim
		func(l string) string { return strings.Replace(l, `, "flags"`, ", \xff\"flags\"", 1) },       // outside strings
		func(l string) string { return strings.Replace(l, `"qid": `, "\"qid\" \xff", 1) },            // after a syntax error
		func(l string) string { return strings.Replace(l, `"qid": `, `"qid" `, 1) + " \"\xff\"" },    // before one
		func(l string) string { return strings.Replace(l, `"flags"`, "\"fl\xe2\x82ags\"", 1) },       // in a key
		func(l string) string { return strings.Replace(l, `"flags"`, `"clé"`, 1) },                   // good UTF-8 in an unknown key
		func(l string) string { return "\xef\xbb\xbf" + l },                                          // a byte order mark
	} {
		line := edit(seed)
		checkSame(t, fmt.Sprint("alone ", i), writeFiles(t, line+"\n"))
		checkSame(t, fmt.Sprint("after two ", i), writeFiles(t, seed+"\n"+seed+"\n"+line+"\n"))
	}
}

// TestEvaluateMergedCancel: a cancelled run stops with the context's error.
func TestEvaluateMergedCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	paths := writeFiles(t, `{"qid": "a", `+vv+"}\n")
	if _, err := EvaluateMerged(ctx, paths, profile.Default, 2); err != context.Canceled {
		t.Fatalf("got %v, want %v", err, context.Canceled)
	}
}

// FuzzEvaluateMerged: on any pairs file, the parallel evaluator gives exactly the summary, or
// the error, of Compute over LoadMerged.
func FuzzEvaluateMerged(f *testing.F) {
	f.Add(strings.SplitAfter(goldenFile(f, "merged_branches", 0), "\n")[0])
	for _, s := range []string{
		`{"qid": "a\u00e9\ud800", "scholar": {"label": "VALID", "reason": {"x": [1]}}, "auditor": {"label": "RE\u004aECT", "reason": null}}`,
		`{"qid": -0.5e-3, "scholar": {"label": "X"}, "auditor": {"label": "VALID"}, "answer_json": 0, "retrieved_ids": "", "flags": {"provenance_violation": 1e-400}}`,
		`{"qid": 1, "scholar": {"label": "VALID"}, "auditor": {"label": "VALID"}, "answer_json": {"citations": ["a", "b\"c"]}, "retrieved_ids": ["a"], "flags": null}` + "\n" + `{"qid": 1.0, ` + vv + `}`,
		"{\"qid\": \"x\", \"scholar\": {\"label\": \"VALID\"}, \"auditor\": {\"label\": \"VALID\"}}\r\n\n[1]\n",
		`{"qid": "a", "scholar": {"label": "VALID"}}`, `{"qid": "a",}`, "\xff", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		path := filepath.Join(t.TempDir(), "pairs.jsonl")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, p := range []profile.Profile{profile.Default, profile.Reference} {
			want, wantErr := sequential([]string{path}, p)
			got, err := evaluateMerged(context.Background(), []string{path}, p, pipeline.Options{Workers: 2})
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if gotErr != wantErr || !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: got %+v %q, want %+v %q", p, got, gotErr, want, wantErr)
			}
		}
	})
}
