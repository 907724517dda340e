package agreement

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/profile"
)

// writeFiles writes contents to files f0.jsonl, f1.jsonl, ... in a temporary directory.
func writeFiles(t testing.TB, contents ...string) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for i, c := range contents {
		p := filepath.Join(dir, "f"+string(rune('0'+i))+".jsonl")
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// load runs the reader of a seed case's kind.
func load(t *testing.T, kind string, paths []string, p profile.Profile) ([]Pair, []Unmatched, error) {
	t.Helper()
	if kind == "pairs" {
		pairs, err := LoadMerged(paths, p)
		return pairs, nil, err
	}
	return LoadJoined(paths[:1], paths[1:], p)
}

// TestReferenceReproducesSeed: in the reference profile the JSON report (byte for byte, as the
// consistency command encodes it), the disagreements TSV and every item's arbitration are the
// seed scorer's own output.
func TestReferenceReproducesSeed(t *testing.T) {
	for _, c := range seedGolden {
		t.Run(c.name, func(t *testing.T) {
			pairs, _, err := load(t, c.kind, writeFiles(t, c.files...), profile.Reference)
			if err != nil {
				t.Fatal(err)
			}
			s := Compute(pairs, nil, profile.Reference)
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetIndent("", "  ")
			if err := enc.Encode(NewSeedReport(s, c.gates[0], c.gates[1], c.gates[2])); err != nil {
				t.Fatal(err)
			}
			if buf.String() != c.stdout {
				t.Errorf("report:\n%s\nseed printed:\n%s", buf.String(), c.stdout)
			}
			var tsv strings.Builder
			if dis := Disagreements(s.Items); len(dis) > 0 {
				tsv.WriteString("qid\tscholar\tauditor\tfinal\twhy\n")
				for _, it := range dis {
					tsv.WriteString(strings.Join([]string{it.QID, it.Scholar, it.Auditor, it.Final, it.Why}, "\t") + "\n")
				}
			}
			if tsv.String() != c.tsv {
				t.Errorf("tsv:\n%s\nseed wrote:\n%s", tsv.String(), c.tsv)
			}
			var items []string
			for _, it := range s.Items.All() {
				items = append(items, strings.Join([]string{it.QID, it.Scholar, it.Auditor, it.Final, it.Why}, "\t"))
			}
			if strings.Join(items, "\n") != strings.Join(c.items, "\n") {
				t.Errorf("items:\n%s\nseed:\n%s", strings.Join(items, "\n"), strings.Join(c.items, "\n"))
			}
		})
	}
}

// TestReferenceNumericQIDs: the seed joins numeric qids as Python numbers: 1 and 1.0 are one
// qid, -3 and -3.0 too, the number 7 and the string "7" are not, and the joined pairs come in
// numeric order. Order and labels as join_pairs printed them for this input under python3:
// -3, 1, 2, 2.5, 10, 10^20, 10^20+1, every pair VALID/VALID (qid 1's Scholar label is the
// last one given, VALID), n 7, percent agreement 1.0, κ 0.0.
func TestReferenceNumericQIDs(t *testing.T) {
	scholar := "{\"qid\": 10, \"label\": \"VALID\"}\n{\"qid\": 2, \"label\": \"VALID\"}\n{\"qid\": 1.0, \"label\": \"REJECT\"}\n{\"qid\": 1, \"label\": \"VALID\"}\n{\"qid\": -3, \"label\": \"VALID\"}\n{\"qid\": 2.5, \"label\": \"VALID\"}\n{\"qid\": 100000000000000000001, \"label\": \"VALID\"}\n{\"qid\": 100000000000000000000, \"label\": \"VALID\"}\n{\"qid\": 7, \"label\": \"VALID\"}\n"
	auditor := "{\"qid\": 2.5, \"label\": \"VALID\"}\n{\"qid\": 1e0, \"label\": \"VALID\"}\n{\"qid\": 100000000000000000000, \"label\": \"VALID\"}\n{\"qid\": 10, \"label\": \"VALID\"}\n{\"qid\": 100000000000000000001, \"label\": \"VALID\"}\n{\"qid\": -3.0, \"label\": \"VALID\"}\n{\"qid\": 2, \"label\": \"VALID\"}\n{\"qid\": \"7\", \"label\": \"VALID\"}\n"
	paths := writeFiles(t, scholar, auditor)
	pairs, unmatched, err := LoadJoined(paths[:1], paths[1:], profile.Reference)
	if err != nil || unmatched != nil {
		t.Fatal(err, unmatched)
	}
	var got []string
	for _, p := range pairs {
		got = append(got, p.QID+" "+p.Scholar.Label+" "+p.Auditor.Label)
	}
	// The qid text is the Scholar's first spelling of it.
	want := "-3 VALID VALID|1.0 VALID VALID|2 VALID VALID|2.5 VALID VALID|10 VALID VALID|100000000000000000000 VALID VALID|100000000000000000001 VALID VALID"
	if strings.Join(got, "|") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, "|"), want)
	}
	s := Compute(pairs, nil, profile.Reference)
	if s.N != 7 || s.PercentAgreement != 1 || s.Kappa != 0 {
		t.Errorf("n %d pa %v κ %v", s.N, s.PercentAgreement, s.Kappa)
	}
}

func TestRound4(t *testing.T) {
	// Python 3: round(x, 4) for each x.
	for _, c := range []struct{ x, want float64 }{
		{0.03125, 0.0312}, {0.28125, 0.2812}, {0.00005, 0.0001}, {0.00015, 0.0001}, {0.12345, 0.1235},
		{2.675, 2.675}, {0.4841628959276017, 0.4842}, {1.0 / 3, 0.3333}, {0.99995, 1.0},
	} {
		if got := Round4(c.x); got != c.want {
			t.Errorf("Round4(%v) = %v, want %v", c.x, got, c.want)
		}
	}
}

func TestPyFloatJSON(t *testing.T) {
	// Python 3: json.dumps of each value.
	for _, c := range []struct {
		x    float64
		want string
	}{{1, "1.0"}, {0, "0.0"}, {1e-5, "1e-05"}, {1e16, "1e+16"}, {1e15, "1000000000000000.0"}, {0.9, "0.9"},
		{123456789012345678, "1.2345678901234568e+17"}, {0.0001, "0.0001"}, {-0.5, "-0.5"}, {Round4(-0.00001), "-0.0"}} {
		b, err := json.Marshal(PyFloat(c.x))
		if err != nil || string(b) != c.want {
			t.Errorf("PyFloat(%v) = %s %v, want %s", c.x, b, err, c.want)
		}
	}
	if _, err := json.Marshal(PyFloat(math.NaN())); err == nil {
		t.Error("NaN encoded")
	}
}
