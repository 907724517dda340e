package jsonreport

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/input"
)

// lowerMaxBaselineItems sets maxBaselineItems to n for the test.
func lowerMaxBaselineItems(t *testing.T, n int) {
	old := maxBaselineItems
	maxBaselineItems = n
	t.Cleanup(func() { maxBaselineItems = old })
}

// TestBaselineTooManyItems (issue 34, finding 3): a baseline holds at most maxBaselineItems
// traces, tasks, agreement items, evidence entries, evidence message indices and history list
// elements, counted before they are decoded; the one past the limit is an error at its place
// (exit code 3). On main a 32 MB baseline of `{}` evidence took 3 GB.
func TestBaselineTooManyItems(t *testing.T) {
	const head = `{"schema":2,"profile":"default","source":{},"reliability":{"traces":[` // 70 bytes
	// six items: trace a, its evidence entry, the entry's three indices, trace b
	doc := head + `{"id":"a","verdict":"PASS","score":1,"EVIDENCE":[{"signal":"loop","text":"x","messages":[1,2,3]}]},` +
		`{"id":"b","verdict":"PASS","score":1}]},"history":[{"sha":"","runs":1,"fail":0,"trial_tasks":2,"flaky":2,"flaky_tasks":["x","y"]}]}`
	traceB := len(head) + len(`{"id":"a","verdict":"PASS","score":1,"EVIDENCE":[{"signal":"loop","text":"x","messages":[1,2,3]}]},`)
	evidence := len(head) + len(`{"id":"a","verdict":"PASS","score":1,"EVIDENCE":[`)
	third := evidence + len(`{"signal":"loop","text":"x","messages":[1,2,`)
	flakyY := strings.Index(doc, `"y"`)
	for _, c := range []struct {
		max  int
		want string // "" reads
	}{
		{8, ""},
		{7, fmt.Sprintf("1:%d: history[0].flaky_tasks[1]: ", flakyY+1)},
		{5, fmt.Sprintf("1:%d: reliability.traces[1]: ", traceB+1)},
		{4, fmt.Sprintf("1:%d: reliability.traces[0].evidence[0].messages[2]: ", third+1)},
		{1, fmt.Sprintf("1:%d: reliability.traces[0].evidence[0]: ", evidence+1)},
		{0, fmt.Sprintf("1:%d: reliability.traces[0]: ", len(head)+1)},
	} {
		t.Run(fmt.Sprint(c.max), func(t *testing.T) {
			lowerMaxBaselineItems(t, c.max)
			b, err := ReadBaseline(bytes.NewReader([]byte(doc)), "base.json")
			if c.want == "" {
				if err != nil || len(b.Reliability.Traces) != 2 || len(b.Reliability.Traces[0].Evidence[0].Messages) != 3 {
					t.Fatalf("%v", err)
				}
				return
			}
			want := "base.json:" + c.want + fmt.Sprintf("more than %d traces, tasks, agreement items, evidence entries and list elements in one baseline, the most a baseline may hold", c.max)
			if err == nil || err.Error() != want || !input.IsInputError(err) {
				t.Errorf("got  %v\nwant %s", err, want)
			}
		})
	}
}

// TestBaselineBombAllocations: a baseline of `{}` evidence costs a bounded amount per entry
// just under the limit, and one past it is refused after the count, before the entries are
// decoded (counted in bytes allocated, not timed).
func TestBaselineBombAllocations(t *testing.T) {
	lowerMaxBaselineItems(t, 1<<16)
	doc := func(n int) []byte {
		return []byte(`{"schema":2,"profile":"default","source":{},"reliability":{"traces":[{"id":"a","verdict":"PASS","score":1,"evidence":[` +
			strings.Repeat("{},", n-1) + `{}]}]}}`)
	}
	for _, n := range []int{maxBaselineItems - 8, 8 * maxBaselineItems} {
		data := doc(n)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := ReadBaseline(bytes.NewReader(data), "base.json")
		runtime.ReadMemStats(&after)
		alloc := after.TotalAlloc - before.TotalAlloc
		if n < maxBaselineItems {
			if err != nil {
				t.Fatal(err)
			}
			// an Evidence of 64 bytes, with the garbage of growing the list a quarter at a
			// time, and the text read (measured: 350)
			if per := alloc / uint64(n); per > 500 {
				t.Errorf("%d entries (%d bytes) allocate %d bytes, %d an entry; want at most 500", n, len(data), alloc, per)
			}
			t.Logf("%d entries, %d bytes: %d bytes allocated", n, len(data), alloc)
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "the most a baseline may hold") {
			t.Fatalf("%d entries: %v", n, err)
		}
		// the text read and checked, nothing per entry
		if limit := 4 * uint64(len(data)); alloc > limit {
			t.Errorf("%d entries (%d bytes) refused after allocating %d bytes; want at most %d", n, len(data), alloc, limit)
		}
	}
}

// TestBaselineTracesAllocations: a baseline's traces are read into a list made at their number,
// not grown a quarter at a time, and sorted in place (counted in bytes allocated, not timed).
func TestBaselineTracesAllocations(t *testing.T) {
	const n = 1 << 15
	var b strings.Builder
	b.WriteString(`{"schema":2,"profile":"default","source":{},"reliability":{"traces":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"%x","verdict":"PASS","score":1}`, i)
	}
	b.WriteString(`]}}`)
	data := []byte(b.String())
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	base, err := ReadBaseline(bytes.NewReader(data), "base.json")
	runtime.ReadMemStats(&after)
	if err != nil || len(base.Reliability.Traces) != n {
		t.Fatalf("%v", err)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	// a Result and its id, and the text read (measured: 566; 7,203 on main, whose sort moved a
	// copy of a Result to the heap for each comparison, and grew the list a quarter at a time)
	if per := alloc / n; per > 800 {
		t.Errorf("%d traces (%d bytes) allocate %d bytes, %d a trace; want at most 800", n, len(data), alloc, per)
	}
}
