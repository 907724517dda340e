package outcome

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/input"
)

// lowerMaxOutcomes sets maxOutcomes to n for the test.
func lowerMaxOutcomes(t *testing.T, n int) {
	old := maxOutcomes
	maxOutcomes = n
	t.Cleanup(func() { maxOutcomes = old })
}

// ids is n quoted ids "0", "1", … joined with commas.
func ids(n int) string {
	q := make([]string, n)
	for i := range q {
		q[i] = fmt.Sprintf("%q", fmt.Sprint(i))
	}
	return strings.Join(q, ",")
}

// TestTooManyOutcomes (issue 34, finding 3): the outcomes input holds at most maxOutcomes
// outcomes, its files together; the one past it is an error at its place (exit code 3), in
// a run summary's list, in a per-instance report and in JSON Lines alike. On main a 32 MB
// summary of short ids took 1.6 GB.
func TestTooManyOutcomes(t *testing.T) {
	lowerMaxOutcomes(t, 100)
	const msg = "more than 100 outcomes, the most the outcomes input may hold"
	var lines strings.Builder
	for i := range 101 {
		fmt.Fprintf(&lines, "{\"id\": \"r%d\", \"success\": true}\n", i)
	}
	report := make([]string, 101)
	for i := range report {
		report[i] = fmt.Sprintf(`"i%d": {"resolved": true}`, i)
	}
	// the 101st id of the summary starts after `{"resolved_ids": [` (18 bytes) and the first
	// hundred: "0" to "9" take 4 bytes with their commas, "10" to "99" 5
	summaryCol := 18 + 10*4 + 90*5 + 1
	// the 101st instance's report: each "iN": {"resolved": true} takes 22 bytes with ", " for one digit, 23 for two
	reportCol := 1 + 10*(len(`"i0": {"resolved": true}, `)) + 90*(len(`"i10": {"resolved": true}, `)) + len(`"i100": `) + 1
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"run summary", map[string]string{"run.json": `{"resolved_ids": [` + ids(101) + `], "unresolved_ids": []}`}, fmt.Sprintf("run.json:1:%d: %s", summaryCol, msg)},
		{"report.json", map[string]string{"report.json": "{" + strings.Join(report, ", ") + "}"}, fmt.Sprintf("report.json:1:%d: %s", reportCol, msg)},
		{"JSON Lines", map[string]string{"o.jsonl": lines.String()}, "o.jsonl:101:1: " + msg},
		{"two files", map[string]string{"a.json": `{"resolved_ids": [` + ids(60) + `], "unresolved_ids": []}`, "b.jsonl": strings.Join(strings.SplitAfter(lines.String(), "\n")[:41], "")},
			"b.jsonl:41:1: " + msg},
		{"just 100", map[string]string{"run.json": `{"resolved_ids": [` + ids(100) + `], "unresolved_ids": []}`}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var paths []string
			for _, name := range []string{"run.json", "report.json", "o.jsonl", "a.json", "b.jsonl"} {
				if text, ok := c.files[name]; ok {
					paths = append(paths, write(t, name, text))
				}
			}
			s, err := Read(context.Background(), paths, "")
			if c.want == "" {
				if err != nil || s.Len() != 100 {
					t.Fatalf("%v, %d outcomes; want 100", err, s.Len())
				}
				return
			}
			got := ""
			if err != nil {
				got = err.Error()
				for _, p := range paths {
					got = strings.ReplaceAll(got, p[:strings.LastIndexByte(p, '/')+1], "")
				}
			}
			if got != c.want || !input.IsInputError(err) {
				t.Errorf("got  %v\nwant %s", got, c.want)
			}
		})
	}
}

// TestOutcomeBombAllocations: a run summary of short ids costs a bounded amount per outcome
// just under maxOutcomes (counted in bytes allocated, not timed).
func TestOutcomeBombAllocations(t *testing.T) {
	lowerMaxOutcomes(t, 1<<16)
	n := maxOutcomes - 8
	text := `{"resolved_ids": [` + ids(n) + `], "unresolved_ids": []}`
	p := write(t, "run.json", text)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s, err := Read(context.Background(), []string{p}, "")
	runtime.ReadMemStats(&after)
	if err != nil || s.Len() != n {
		t.Fatalf("%v, %d outcomes", err, s.Len())
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	// an entry, its map slot and id, made at the size the summary holds (measured: 205; 871
	// when they grew a quarter at a time)
	if per := alloc / uint64(n); per > 300 {
		t.Errorf("%d outcomes (%d bytes) allocate %d bytes, %d an outcome; want at most 300", n, len(text), alloc, per)
	}
	t.Logf("%d outcomes, %d bytes: %d bytes allocated, %d an outcome", n, len(text), alloc, alloc/uint64(n))
}
