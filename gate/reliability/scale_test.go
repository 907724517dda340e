package reliability

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/pystr"
	"github.com/agentgate/agentgate/gate/trace"
)

// Inputs that were quadratic (issue 12 item 5) are now O(n log n): each has a benchmark at n
// and 10n and a test that the result is what the quadratic code gave.

// manyKeysTrace is two identical calls of one tool whose arguments hold n keys in descending
// order, so that loop (a) sorts n keys per call.
func manyKeysTrace(n int) *trace.Trace {
	var b strings.Builder
	b.WriteByte('{')
	for i := n - 1; i >= 0; i-- {
		if i < n-1 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%07d":%d`, i, i%7)
	}
	b.WriteByte('}')
	args := b.String()
	tr := &trace.Trace{ID: "keys"}
	tr.Messages = append(tr.Messages, msg("user", "go"))
	for i := 0; i < 3; i++ {
		id := fmt.Sprintf("c%d", i)
		tr.Messages = append(tr.Messages, withCalls(msg("assistant", ""), call(id, "put", args)),
			withResults(msg("tool", "ok"), ok(id)))
	}
	return tr
}

// sortedKeysByInsertion is the insertion sort sortedKeys used to be.
func sortedKeysByInsertion(d []pystr.Member) []int {
	var idx []int
	for i := range d {
		idx = append(idx, i)
	}
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && d[idx[j]].Key < d[idx[j-1]].Key; j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
	return idx
}

func TestSortedKeysOrder(t *testing.T) {
	for _, n := range []int{0, 1, 2, 15, 16, 17, 100, 2000} {
		d := make([]pystr.Member, n)
		for i := range d {
			// keys out of order, with shared prefixes, non-ASCII and empty keys
			d[i].Key = fmt.Sprintf("%c%d", []rune{'b', 'a', 'é', 'Z', '€'}[i%5], (i*7919)%n)
			if i == n/2 {
				d[i].Key = ""
			}
		}
		got, want := sortedKeys(d, nil), sortedKeysByInsertion(d)
		if !slices.Equal(got, want) {
			t.Errorf("n=%d: sortedKeys %v, insertion sort %v", n, got, want)
		}
	}
	// the signature of a large object is what Python's str(sorted(d.items())) writes
	v, err := pystr.Parse([]byte(`{"b": 1, "a": [2], "c": {"z": 1, "y": 2}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(appendRefSignature(nil, v, longStrings{})); got != "[('a', [2]), ('b', 1), ('c', {'z': 1, 'y': 2})]" {
		t.Errorf("signature %s", got)
	}
}

func TestManyKeysScores(t *testing.T) {
	tr := manyKeysTrace(2000)
	for _, p := range []profile.Profile{profile.Reference, profile.Default} {
		r := Evaluate(tr, p)
		// three identical calls: loop (a) gives (3−2)/8 = 0.125 under both profiles
		if !near(r.Signals[Loop], 0.125) {
			t.Errorf("%s: loop %v, want 0.125", p, r.Signals[Loop])
		}
	}
}

func BenchmarkManyKeys(b *testing.B) {
	for _, n := range []int{8000, 80000} {
		tr := manyKeysTrace(n)
		for _, p := range []profile.Profile{profile.Reference, profile.Default} {
			b.Run(fmt.Sprintf("%s/keys=%d", p, n), func(b *testing.B) {
				for b.Loop() {
					Evaluate(tr, p)
				}
			})
		}
	}
}

// unansweredTrace has n calls with distinct ids, a third of them unanswered, and n/3 results
// answering no call.
func unansweredTrace(n int) *trace.Trace {
	tr := &trace.Trace{ID: "ids"}
	tr.Messages = append(tr.Messages, msg("user", "go"))
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("call_%06d", (i*7919)%n)
		m := withCalls(msg("assistant", ""), call(id, "get", `{"i":1}`))
		tr.Messages = append(tr.Messages, m)
		switch i % 3 {
		case 0:
			tr.Messages = append(tr.Messages, withResults(msg("tool", "ok"), ok(id)))
		case 1:
			tr.Messages = append(tr.Messages, withResults(msg("tool", "ok"), ok("orphan_"+id)))
		}
	}
	return tr
}

// firstWithIDQuadratic is the search firstCallWithID and firstResultWithID used to make: for
// each id, the first of n items with that id.
func firstWithIDQuadratic(ids []string, n int, id func(int) (string, bool)) []int {
	var out []int
	for _, want := range ids {
		for i := 0; i < n; i++ {
			if got, ok := id(i); ok && got == want {
				out = append(out, i)
				break
			}
		}
	}
	slices.Sort(out)
	return out
}

func TestFirstWithID(t *testing.T) {
	tr := unansweredTrace(600)
	// repeated ids, and calls and results without one
	tr.Messages = append(tr.Messages,
		withCalls(msg("assistant", ""), call("call_000005", "get", `{}`), call("", "get", `{}`)),
		withResults(msg("tool", ""), ok("orphan_call_000001"), ok("")))
	e := newEval(tr, true)
	calls, results := e.idSets()
	missing, extra := difference(calls, results), difference(results, calls)
	if len(missing) == 0 || len(extra) == 0 {
		t.Fatal("the trace should have unanswered calls and orphan results")
	}
	callID := func(i int) (string, bool) { return e.calls[i].call.ID, e.calls[i].call.HasID }
	resID := func(i int) (string, bool) { return e.results[i].res.CallID, e.results[i].res.HasID }
	if got, want := e.firstCallWithID(missing), firstWithIDQuadratic(missing, len(e.calls), callID); !slices.Equal(got, want) {
		t.Errorf("firstCallWithID: %d items, the quadratic search %d", len(got), len(want))
	}
	if got, want := e.firstResultWithID(extra), firstWithIDQuadratic(extra, len(e.results), resID); !slices.Equal(got, want) {
		t.Errorf("firstResultWithID: %d items, the quadratic search %d", len(got), len(want))
	}
}

func BenchmarkUnansweredReference(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		tr := unansweredTrace(n)
		b.Run(fmt.Sprintf("calls=%d", n), func(b *testing.B) {
			for b.Loop() {
				Evaluate(tr, profile.Reference)
			}
		})
	}
}
