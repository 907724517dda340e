package jsonreport

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/outcome"
	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/verdict"
	"github.com/agentgate/agentgate/test/gensuite"
)

// jsonNames lists the JSON member names of struct type t in the order encoding/json writes
// them, embedded structs' members in their place, "-" members left out.
func jsonNames(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if f.Anonymous && tag == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			out = append(out, jsonNames(ft)...)
			continue
		}
		if name, _, _ := strings.Cut(tag, ","); name != "-" && f.IsExported() {
			out = append(out, name)
		}
	}
	return out
}

// A run's record has every member reliability.Result (with its outcome) writes, in the same
// order, and so does its evidence: a member added to Result and not to runJSON would silently
// be lost from reports and merges. (Its signals are reliability.Signals' own JSON, the rows of
// the signal table, less the zeros: TestSignalsJSON.)
func TestRunJSONHasResultsMembers(t *testing.T) {
	for _, c := range []struct{ record, result reflect.Type }{
		{reflect.TypeFor[runJSON](), reflect.TypeFor[outcome.Trace]()},
		{reflect.TypeFor[evidenceJSON](), reflect.TypeFor[reliability.Evidence]()},
	} {
		if got, want := jsonNames(c.record), jsonNames(c.result); !slices.Equal(got, want) {
			t.Errorf("%v writes %q, %v %q", c.record, got, c.result, want)
		}
	}
}

// randomRun is a run with each member now zero, now not: signals of 0 (and -0) among others,
// evidence nil, empty or with nil, empty and full message lists, a task and trial or none,
// an outcome or none, and strings JSON escapes.
func randomRun(r *rand.Rand, i int) reliability.Result {
	pick := func(s ...string) string { return s[r.IntN(len(s))] }
	negZero := math.Copysign(0, -1)
	sig := func() float64 {
		return [...]float64{0, 0, negZero, 1, 0.25, 0.1 + 0.2, 1e-7, 0.3333333333333333}[r.IntN(8)]
	}
	t := reliability.Result{
		// valid UTF-8, as the readers make every id
		ID:   pick("run-", "\u2028", "<&>", `"\`, "é中文", "\x01") + string(rune('a'+i%26)) + strings.Repeat("x", i),
		File: pick("a.jsonl", "dir/b.json", ""), Line: r.IntN(3), Verdict: []verdict.Verdict{verdict.Pass, verdict.Warn, verdict.Fail}[r.IntN(3)],
		Score:    sig(),
		Signals:  reliability.Signals{reliability.Hallucination: sig(), reliability.Loop: sig(), reliability.ToolMisuse: sig(), reliability.Cost: sig()},
		Messages: int32(r.IntN(4)), ToolCalls: int32(r.IntN(2)), Run: outcome.Run{Tokens: -1},
	}
	switch r.IntN(3) {
	case 0:
		t.Evidence = []reliability.Evidence{}
	case 1:
		for range 1 + r.IntN(3) {
			e := reliability.Evidence{Signal: pick("loop", "cost", "trace"), Text: pick("", "a\nb", "`x` at messages 1, 2"), Floor: r.IntN(2) == 0, Relative: r.IntN(2) == 0}
			switch r.IntN(3) {
			case 0:
				e.Messages = []int{}
			case 1:
				e.Messages = []int{r.IntN(9), 10}
			}
			t.Evidence = append(t.Evidence, e)
		}
	}
	if r.IntN(2) == 0 {
		trial := i // runs of one identity would be renumbered as they are read
		t.Attempt = &reliability.Attempt{Suite: pick("", "airline"), Task: pick("1", "t\t2"), Trial: &trial}
	}
	if r.IntN(2) == 0 {
		t.SuiteCost = &reliability.SuiteCost{Tokens: 1 + int64(r.IntN(9))} // as RelateCost makes one
		if r.IntN(2) == 0 {
			t.SuiteCost.Relative, t.SuiteCost.Alone, t.SuiteCost.AloneVerdict = 0.5, 0.25, verdict.Warn
		}
	}
	if r.IntN(2) == 0 {
		t.Run = outcome.RunOfJSON(&outcome.JSON{Value: float64(r.IntN(2)), Success: r.IntN(2) == 0})
	}
	return t
}

// emptyListsNil returns a copy of traces with their empty evidence and message lists nil: the
// one difference between a run and its record read back, which leaves empty lists out.
func emptyListsNil(traces []reliability.Result) []reliability.Result {
	out := slices.Clone(traces)
	for i := range out {
		if len(out[i].Evidence) == 0 {
			out[i].Evidence = nil
			continue
		}
		out[i].Evidence = slices.Clone(out[i].Evidence)
		for j := range out[i].Evidence {
			if len(out[i].Evidence[j].Messages) == 0 {
				out[i].Evidence[j].Messages = nil
			}
		}
	}
	return out
}

// The compact record loses nothing: a report read back as a shard is written again to the
// same bytes, and as a baseline gives the same runs (sorted by id, without their message
// counts, which a comparison does not use), but that empty lists come back nil and -0 as 0; and it is written on one line, without a zero signal or an empty list.
func TestRunRecordRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		sum := &reliability.Summary{}
		for i := range 1 + r.IntN(6) {
			sum.Add(randomRun(r, i))
		}
		res := &gate.Result{Profile: profile.Default, Verdict: verdict.Pass, Reliability: sum}
		var first, second bytes.Buffer
		if err := Write(&first, res); err != nil {
			t.Fatal(err)
		}
		shard, err := decodeShard("r.json", first.Bytes())
		if err != nil {
			t.Fatalf("round %d: %v\n%s", round, err, first.String())
		}
		if err := Write(&second, shard); err != nil {
			t.Fatal(err)
		}
		if first.String() != second.String() {
			t.Fatalf("round %d: written again differently:\n%s\nthen\n%s", round, first.String(), second.String())
		}
		want := emptyListsNil(sum.Traces)
		for i := range want {
			for k := range want[i].Signals {
				want[i].Signals[k] += 0 // -0 + 0 is 0
			}
			want[i].Score += 0
		}
		if got := emptyListsNil(shard.Reliability.Traces); !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: read back as a shard\n%+v\nwant\n%+v", round, got, want)
		}
		b, err := ReadBaseline(bytes.NewReader(first.Bytes()), "r.json")
		if err != nil {
			t.Fatal(err)
		}
		slices.SortStableFunc(want, func(a, b reliability.Result) int { return strings.Compare(a.ID, b.ID) })
		for i := range want {
			want[i].Messages, want[i].ToolCalls = 0, 0 // a baseline keeps what a comparison needs
		}
		if got := emptyListsNil(b.Reliability.Traces); !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: read back as a baseline\n%+v\nwant\n%+v", round, got, want)
		}
		lines := strings.Split(first.String(), "\n")
		for i := range sum.Traces {
			line := lines[slices.Index(lines, `    "traces": [`)+1+i]
			if !strings.HasPrefix(line, `      {"id":`) || !strings.HasSuffix(strings.TrimSuffix(line, ","), "}") || zeroSignalWritten(line) ||
				strings.Contains(line, `"signals":{}`) || strings.Contains(line, `"evidence":[]`) || strings.Contains(line, `"messages":[]`) {
				t.Fatalf("round %d: run %d written as %s", round, i, line)
			}
		}
	}
}

// zeroSignalWritten reports whether line, a run's record, writes a signal of 0.
func zeroSignalWritten(line string) bool {
	for _, name := range []string{"hallucination", "loop", "tool_misuse", "cost"} {
		if strings.Contains(line, `"`+name+`":0,`) || strings.Contains(line, `"`+name+`":0}`) || strings.Contains(line, `"`+name+`":-0`) {
			return true
		}
	}
	return false
}

// The JSON report of a generated suite of short runs (test/gensuite: three messages of about
// 40 bytes, 670 bytes a run; each with its suite cost, one in twenty with a cost finding)
// takes at most 230 bytes a run (162 measured), so that a million such runs fit in the 256 MiB
// a baseline artifact may hold (docs/performance.md, "A million runs"). Schema 2 wrote 487
// bytes a run.
func TestReportBytesPerRun(t *testing.T) {
	const runs = 20_000
	s, err := gensuite.Write(t.TempDir(), gensuite.Config{Seed: 1, TraceRecords: runs, TraceFiles: 4, Messages: 3, ContentBytes: 40})
	if err != nil {
		t.Fatal(err)
	}
	res, err := gate.Run(context.Background(), gate.Inputs{Traces: s.Traces}, gate.Options{Profile: profile.Default, Thresholds: gate.DefaultThresholds()})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(&b, res); err != nil {
		t.Fatal(err)
	}
	// The file names are the test's temporary directory: count them as the suite's own,
	// base/traces-000.jsonl (21 bytes).
	dir := []byte(strings.TrimSuffix(s.Traces[0], "traces-000.jsonl"))
	size := b.Len() - bytes.Count(b.Bytes(), dir)*(len(dir)-len("base/"))
	perRun := float64(size) / runs
	if perRun > 230 || perRun*1e6 > 256<<20 {
		t.Errorf("%.1f bytes a run, want at most 230", perRun)
	}
	if evidence, costs := bytes.Count(b.Bytes(), []byte(`"evidence":[`)), bytes.Count(b.Bytes(), []byte(`"suite_cost":{"tokens":`)); evidence < runs/40 || costs != runs {
		t.Errorf("%d of %d runs with evidence, %d with their suite cost: not the suite measured", evidence, runs, costs)
	}
	t.Logf("%.1f bytes a run", perRun)
}
