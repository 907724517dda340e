package trace

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/input"
)

// lowerMaxItems sets maxItems to n for the test (no test of this package runs in parallel).
func lowerMaxItems(t *testing.T, n int) {
	old := maxItems
	maxItems = n
	t.Cleanup(func() { maxItems = old })
}

// many is n copies of elem joined with commas.
func many(elem string, n int) string { return strings.TrimSuffix(strings.Repeat(elem+",", n), ",") }

// TestTooManyItems: a record holding more than maxItems messages, calls, results, content
// blocks and ids together is an error placed at the first element past the limit, whatever
// list it is in; one that holds exactly maxItems is read. Before, nothing counted them: a 32 MB
// record of {} tool calls took 6 GB and 100 s of CPU before its first error (issue 34,
// finding 3).
func TestTooManyItems(t *testing.T) {
	lowerMaxItems(t, 10)
	const msg = "more than 10 messages, tool calls, tool results and content blocks in one trace, the most a trace may hold"
	for _, c := range []struct {
		name, record string
		col          int // of the first element past the limit; 0: the record is read
		path         string
	}{
		{"ten messages", `{"messages":[` + many(`{"role":"user"}`, 10) + `]}`, 0, ""},
		{"eleven messages", `{"messages":[` + many(`{"role":"user"}`, 11) + `]}`, 174, "messages[10]"},
		{"calls", `{"messages":[{"role":"assistant","tool_calls":[` + many(`{"name":"a"}`, 10) + `]}]}`, 165, "messages[0].tool_calls[9]"},
		{"results", `{"messages":[{"role":"user","tool_results":[` + many(`{}`, 9) + `]}]}`, 0, ""},
		{"results past", `{"messages":[{"role":"user","tool_results":[` + many(`{}`, 10) + `]}]}`, 72, "messages[0].tool_results[9]"},
		{"blocks", `{"messages":[{"role":"user","content":[` + many(`{"type":"text"}`, 10) + `]}]}`, 184, "messages[0].content[9]"},
		{"inner blocks", `{"messages":[{"role":"user","content":[{"type":"tool_result","content":[` + many(`{"type":"text"}`, 9) + `]}]}]}`, 201, "messages[0].content[0].content[8]"},
		// a message with ids (a rare field) counts 3: it may become a call and a result too
		{"ids", `{"messages":[{"role":"tool","tool_call_ids":[` + many(`"a"`, 7) + `]}]}`, 0, ""},
		{"ids then the message", `{"messages":[{"role":"tool","tool_call_ids":[` + many(`"a"`, 8) + `]}]}`, 14, "messages[0]"},
		{"ids past", `{"messages":[{"role":"tool","tool_call_ids":[` + many(`"a"`, 10) + `]}]}`, 82, "messages[0].tool_call_ids[9]"},
		// a SWE-agent step may become a message, a call and a result: three items each
		{"steps", `{"trajectory":[` + many(`{"action":"ls"}`, 4) + `]}`, 64, "trajectory[3]"},
		{"lists add up", `{"history":[` + many(`{"role":"user"}`, 6) + `],"messages":[` + many(`{"role":"user"}`, 5) + `]}`, 186, "messages[4]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := input.Record{File: "t.jsonl", Line: 1, Col: 1, Data: []byte(c.record)}
			tr, err := Decode(rec)
			if c.col == 0 {
				if err != nil {
					t.Fatalf("want the record read, got %v", err)
				}
				if len(tr.Messages) == 0 {
					t.Fatal("no messages")
				}
				return
			}
			var ie *input.Error
			if !errors.As(err, &ie) {
				t.Fatalf("want an *input.Error, got %T %v", err, err)
			}
			want := "t.jsonl:1:" + strconv.Itoa(c.col) + ": " + c.path + ": " + msg
			if err.Error() != want {
				t.Errorf("got  %s\nwant %s", err, want)
			}
		})
	}
}

// TestParserElementsHoldNoPointers: the structs the parser fills one per message, call,
// result, block and id hold refs and index ranges, no pointer, slice or string, so that the
// collector neither scans their arrays nor write-barriers their copies: with slices into the
// record (152 bytes a message, 184 a call), a 2 MB record of {} tool calls took 5.6 s of CPU,
// most of it the collector's, and 390 MB (issue 34, finding 3).
func TestParserElementsHoldNoPointers(t *testing.T) {
	for _, c := range []struct {
		v    any
		size uintptr // the most bytes it may take
	}{
		{jsonMessage{}, 52}, {jsonRare{}, 108}, {jsonCall{}, 60}, {jsonResult{}, 28},
		{jsonBlock{}, 60}, {jsonUsage{}, 40}, {ref{}, 8},
	} {
		typ := reflect.TypeOf(c.v)
		if p := pointerIn(typ); p != "" {
			t.Errorf("%s holds a pointer: %s", typ, p)
		}
		if typ.Size() > c.size {
			t.Errorf("%s takes %d bytes, want at most %d", typ, typ.Size(), c.size)
		}
	}
}

// pointerIn names the first field of typ that is or holds a pointer, or returns "".
func pointerIn(typ reflect.Type) string {
	switch typ.Kind() {
	case reflect.Struct:
		for i := range typ.NumField() {
			if p := pointerIn(typ.Field(i).Type); p != "" {
				return typ.Field(i).Name + ": " + p
			}
		}
		return ""
	case reflect.Array:
		return pointerIn(typ.Elem())
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return ""
	}
	return typ.String()
}

// TestElementBombAllocations: a record of 100,000 tiny elements of one kind allocates a
// bounded number of bytes per element while it is decoded, the parser's element, the trace's
// message, call or result, and the arrays' doubling included. Before, with slices into the
// record, it allocated per element (bytes): a {"role":"user"} message 243, a {"name":"a"}
// call 565, a {} result 269, a text block 498, an id 123 and a SWE-agent step 1,502; now 143,
// 240, 133, 173, 81 and 618.
func TestElementBombAllocations(t *testing.T) {
	const n = 100_000
	for _, c := range []struct {
		name, head, elem, tail string
		most                   float64 // bytes per element
	}{
		{"messages", `{"messages":[`, `{"role":"user"}`, `]}`, 180},
		{"calls", `{"messages":[{"role":"assistant","tool_calls":[`, `{"name":"a"}`, `]}]}`, 300},
		{"results", `{"messages":[{"role":"user","tool_results":[`, `{}`, `]}]}`, 170},
		{"blocks", `{"messages":[{"role":"user","content":[`, `{"type":"text"}`, `]}]}`, 220},
		{"ids", `{"messages":[{"role":"tool","tool_call_ids":[`, `"a"`, `]}]}`, 100},
		{"steps", `{"trajectory":[`, `{"action":"ls"}`, `]}`, 775},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := []byte(c.head + many(c.elem, n) + c.tail)
			rec := input.Record{File: "bomb.jsonl", Line: 1, Data: data}
			var tr *Trace
			var err error
			alloc := allocated(func() {
				d := &Decoder{Reuse: true}
				tr, err = d.Decode(rec)
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Messages) == 0 {
				t.Fatal("no messages")
			}
			per := float64(alloc) / n
			t.Logf("%s: %.0f bytes allocated per element of %d bytes", c.name, per, len(c.elem)+1)
			if per > c.most {
				t.Errorf("%.0f bytes allocated per element, want at most %.0f", per, c.most)
			}
		})
	}
}

// FuzzItemLimit: the item limit only ever refuses a record, at an element past it; it never
// changes what a record it lets through decodes to, nor the error of one it does not refuse
// for its items.
func FuzzItemLimit(f *testing.F) {
	for _, s := range []string{
		`{"messages":[{"role":"user","content":"a"},{"role":"assistant","tool_calls":[{"id":"1","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"1","content":"ok"}]}`,
		`{"messages":[{"role":"assistant","content":[{"type":"text","text":"x"},{"type":"tool_use","id":"t","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"y"}]}]}]}`,
		`{"trajectory":[{"action":"ls","observation":"a"},{"action":"cat x","observation":"b"}]}`,
		`{"messages":[{"role":"tool","tool_call_ids":["a","b","c"],"content":"x"}],"x":[}`,
		`{"messages":[{"role":"user","tool_results":[{},{},{"call_id":1}]},{"role":7}]}`,
	} {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, limit uint8) {
		rec := input.Record{File: "f.jsonl", Line: 1, Data: data}
		itemLimitHolds(t, limit, func() (any, error) { return Decode(rec) })
	})
}

// itemLimitHolds checks, for what read reads, that lowering maxItems to limit only refuses it
// for its items: what it lets through reads as without the limit, and any other error is the
// same as without it.
func itemLimitHolds(t *testing.T, limit uint8, read func() (any, error)) {
	t.Helper()
	full, errFull := read()
	old := maxItems
	maxItems = int(limit)
	limited, errLimited := read()
	maxItems = old
	switch {
	case errLimited == nil:
		if errFull != nil {
			t.Fatalf("limit %d: read, but without it: %v", limit, errFull)
		}
		if !reflect.DeepEqual(full, limited) {
			t.Fatalf("limit %d changes what is read", limit)
		}
	case strings.HasSuffix(errLimited.Error(), "in one trace, the most a trace may hold"):
	case errFull == nil || errFull.Error() != errLimited.Error():
		t.Fatalf("limit %d: %v; without it: %v", limit, errLimited, errFull)
	}
}
