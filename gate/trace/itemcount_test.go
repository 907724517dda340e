package trace

import (
	"archive/zip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/input"
)

// TestReadersRefuseTooManyItems (issue 34, finding 3): the readers that decode with
// encoding/json count the messages, tool calls, content blocks, events and map entries of a
// trace before decoding it, and a trace holding more than maxItems is an error (exit code 3)
// at the first element past the limit, in each reader's own wording; a trace holding exactly
// maxItems reads. On main they decoded every element: a 32 MB file of `{}` messages took
// 3.6 GB.
func TestReadersRefuseTooManyItems(t *testing.T) {
	lowerMaxItems(t, 1000)
	msg := "more than 1000 messages, tool calls, tool results and content blocks in one trace, the most a trace may hold"
	dojo := `{"suite_name":"x","user_task_id":"y","messages":[` // 49 bytes
	oh := `{"instance_id":"x","test_result":{},`                // 36 bytes
	inspectHead := `{"eval":{"task":"t"},"samples":[`           // 32 bytes
	cases := []struct {
		name, file, text string
		format           Format
		want             string // the error after "file:"; "" reads
	}{
		{"AgentDojo: 1000 messages", "dojo.json", dojo + many("{}", 1000) + `]}`, FormatAgentDojo, ""},
		// messages[1000] starts 49 + 3*1000 bytes in
		{"AgentDojo: 1001 messages", "dojo.json", dojo + many("{}", 1001) + `]}`, FormatAgentDojo,
			`1:3050: field "messages[1000]": ` + msg},
		// one message of 999 calls is 1000 items: the next message passes
		{"AgentDojo: calls and messages together", "dojo.json",
			dojo + `{"role":"assistant","tool_calls":[` + many(`{"function":"f"}`, 999) + `]},{"role":"user","content":[{"type":"text","content":"a"}]}]}`,
			FormatAgentDojo, fmt.Sprintf(`1:%d: field "messages[1]": `, 49+len(`{"role":"assistant","tool_calls":[`)+999*17+3) + msg},
		// the message and 999 blocks are 1000 items
		{"AgentDojo: content blocks", "dojo.json", dojo + `{"role":"user","content":[` + many(`""`, 1001) + `]}]}`, FormatAgentDojo,
			fmt.Sprintf(`1:%d: field "messages[0].content[999]": `, 49+len(`{"role":"user","content":[`)+999*3+1) + msg},
		// encoding/json fills Messages from "MESSAGES" and "meſſages" as well
		{"AgentDojo: a key in another case", "dojo.json", `{"suite_name":"x","user_task_id":"y","MESSAGES":[` + many("{}", 1001) + `]}`, FormatAgentDojo,
			`1:3050: field "MESSAGES[1000]": ` + msg},
		{"AgentDojo: a key folded", "dojo.json", `{"suite_name":"x","user_task_id":"y","meſſages":[` + many("{}", 1001) + `]}`, FormatAgentDojo,
			`1:3050: field "meſſages[1000]": ` + msg},
		{"AgentDojo: a key escaped", "dojo.json", `{"suite_name":"x","user_task_id":"y","m\u0065ssages":[` + many("{}", 1001) + `]}`, FormatAgentDojo,
			`1:3055: field "messages[1000]": ` + msg},
		// a repeated key: encoding/json decodes both
		{"AgentDojo: a key repeated", "dojo.json", dojo + many("{}", 600) + `],"messages":[` + many("{}", 401) + `]}`, FormatAgentDojo,
			fmt.Sprintf(`1:%d: field "messages[400]": `, 49+600*3-1+len(`],"messages":[`)+400*3+1) + msg},

		// the count is one trace's: the first sample holds 1000, the second 1001
		{"Inspect: per sample", "log.json",
			inspectHead + `{"id":1,"messages":[` + many("{}", 1000) + `]},{"id":2,"messages":[` + many("{}", 1001) + `]}]}`, FormatInspectJSON,
			fmt.Sprintf("1:%d: samples[1].messages[1000]: ", 32+20+2999+3+20+3000+1) + msg},
		{"Inspect: events", "log.json", inspectHead + `{"id":1,"messages":[],"events":[` + many("{}", 1001) + `]}]}`, FormatInspectJSON,
			fmt.Sprintf("1:%d: samples[0].events[1000]: ", 32+len(`{"id":1,"messages":[],"events":[`)+3000+1) + msg},
		// a message, an event, a choice and 997 calls are 1000 items
		{"Inspect: a model event's calls", "log.json",
			inspectHead + `{"id":1,"messages":[{"role":"user","content":"q"}],"events":[{"event":"model","output":{"choices":[{"message":{"role":"assistant","tool_calls":[` +
				many(`{"function":"f"}`, 999) + `]}}]}}]}]}`, FormatInspectJSON,
			fmt.Sprintf("1:%d: samples[0].events[0].output.choices[0].message.tool_calls[997]: ",
				32+len(`{"id":1,"messages":[{"role":"user","content":"q"}],"events":[{"event":"model","output":{"choices":[{"message":{"role":"assistant","tool_calls":[`)+997*17+1) + msg},
		{"Inspect: attachments", "log.json",
			inspectHead + `{"id":1,"messages":[],"attachments":{` + attachmentMembers(1001) + `}}]}`, FormatInspectJSON,
			fmt.Sprintf("1:%d: samples[0].attachments.a1000: ", 32+len(`{"id":1,"messages":[],"attachments":{`)+len(attachmentMembers(1000))+len(`,"a1000":`)+1) + msg},

		{"OpenHands: history", "output.jsonl", oh + `"history":[` + many(`{"action":"x"}`, 1001) + "]}", FormatOpenHands,
			fmt.Sprintf(`1:%d: field "history[1000]": `, 36+11+15*1000+1) + msg},
		// a pair is its two events
		{"OpenHands: history pairs", "output.jsonl", oh + `"history":[` + many(`[{"action":"x"},{"observation":"y"}]`, 501) + "]}", FormatOpenHands,
			fmt.Sprintf(`1:%d: field "history[500][0]": `, 36+11+37*500+1+1) + msg},
		{"OpenHands: messages", "output.jsonl", oh + `"messages":[` + many(`{"role":"user"}`, 1001) + "]}", FormatOpenHands,
			fmt.Sprintf(`1:%d: field "messages[1000]": `, 36+12+16*1000+1) + msg},
		// the event and 999 arguments are 1000 items; the error is at the value of the next
		{"OpenHands: an action's arguments", "output.jsonl", oh + `"history":[{"action":"run","args":{` + attachmentMembers(1001) + "}}]}", FormatOpenHands,
			fmt.Sprintf(`1:%d: field "history[0].args.a999": `, 36+len(`"history":[{"action":"run","args":{`)+len(attachmentMembers(999))+len(`,"a999":`)+1) + msg},
		{"OpenHands: response choices", "output.jsonl", oh + `"messages":[{"role":"user"}],"response":{"choices":[` + many(`{}`, 1000) + "]}}", FormatOpenHands,
			fmt.Sprintf(`1:%d: field "response.choices[999]": `, 36+len(`"messages":[{"role":"user"}],"response":{"choices":[`)+999*3+1) + msg},

		{"message list", "trajs/x.json", `[` + many(`{"role":"user","content":"a"}`, 1001) + `]`, FormatMessageList,
			fmt.Sprintf(`1:%d: field "[1000]": `, 1+30*1000+1) + msg},
		{"message list: 1000", "trajs/x.json", `[` + many(`{"role":"user","content":"a"}`, 1000) + `]`, FormatMessageList, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), c.file)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			if f, err := Sniff(path); err != nil || f != c.format {
				t.Fatalf("Sniff: %v %v, want format %v", f, err, c.format)
			}
			n := 0
			err := EachFile(context.Background(), path, func(*Trace) error { n++; return nil })
			if c.want == "" {
				if err != nil {
					t.Fatalf("%v", err)
				}
				return
			}
			if want := path + ":" + c.want; err == nil || err.Error() != want {
				t.Errorf("got  %v\nwant %s", err, want)
			}
			if !input.IsInputError(err) {
				t.Errorf("%T is not an input error (exit code 3)", err)
			}
		})
	}
}

// attachmentMembers is n object members "a0":"", "a1":"", ….
func attachmentMembers(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"a%d":""`, i)
	}
	return b.String()
}

// TestEvalRefusesTooManyItems: a .eval sample member is counted as the samples of a .json
// log, the error placed in the member.
func TestEvalRefusesTooManyItems(t *testing.T) {
	lowerMaxItems(t, 1000)
	head := `{"id":1,"epoch":1,"messages":[{"role":"user","content":"q"},{"role":"assistant","content":[` // 89 bytes
	path := writeZip(t, zipMember{"samples/1_epoch_1.json", zip.Deflate, []byte(head + many(`{"type":"text","text":"a"}`, 1000) + `]}]}`)})
	err := EachFile(context.Background(), path, func(*Trace) error { return nil })
	// two messages and 998 parts are 1000 items
	want := fmt.Sprintf("%s[samples/1_epoch_1.json]:1:%d: messages[1].content[998]: more than 1000 messages, tool calls, tool results and content blocks in one trace, the most a trace may hold",
		path, len(head)+998*27+1)
	if err == nil || err.Error() != want || !input.IsInputError(err) {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

// TestItemBombAllocations: a trace of many tiny elements costs a bounded amount per element
// just under maxItems, and one past it is refused after the count, before anything is decoded
// (counted in bytes allocated, not timed). On main the reader decoded every element of the
// second: hundreds of times the bytes of the file.
func TestItemBombAllocations(t *testing.T) {
	lowerMaxItems(t, 1<<16)
	oh := `{"instance_id":"x","test_result":{},`
	inspect := `{"eval":{"task":"t"},"samples":[{"id":1,"messages":[`
	cases := []struct {
		name, file, head, elem, tail string
		// the most bytes allocated per element under the limit: what the reader decodes it into
		// and its Message, the lists made at their size (measured: 178, 383, 189, 204, 226, 460
		// and 193; 614, 698, 625, 1046, 541, 840 and 508 when encoding/json grew them)
		perItem uint64
	}{
		{"AgentDojo messages", "dojo.json", `{"suite_name":"x","user_task_id":"y","messages":[`, "{}", "]}", 240},
		{"AgentDojo calls", "dojo.json", `{"suite_name":"x","user_task_id":"y","messages":[{"role":"assistant","tool_calls":[`, `{"function":"f"}`, "]}]}", 500},
		{"Inspect messages", "log.json", inspect, "{}", "]}]}", 250},
		{"Inspect events", "log.json", `{"eval":{"task":"t"},"samples":[{"id":1,"messages":[],"events":[`, "{}", "]}]}", 270},
		{"OpenHands messages", "output.jsonl", oh + `"messages":[`, "{}", "]}", 300},
		{"OpenHands history", "output.jsonl", oh + `"history":[`, `{"action":"x"}`, "]}", 600},
		{"message list", "trajs/x.json", `[{"role":"user","content":"a"},`, "{}", "]", 260},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, n := range []int{maxItems - 8, 4 * maxItems} {
				path := filepath.Join(dir, fmt.Sprint(n), c.file)
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				text := c.head + many(c.elem, n) + c.tail
				if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
				var err error
				alloc := allocated(func() {
					err = EachFile(context.Background(), path, func(*Trace) error { return nil })
				})
				if n < maxItems {
					if err != nil {
						t.Fatalf("%d elements: %v", n, err)
					}
					if alloc > c.perItem*uint64(n) {
						t.Errorf("%d elements (%d bytes) allocate %d bytes, %d an element; want at most %d", n, len(text), alloc, alloc/uint64(n), c.perItem)
					}
					t.Logf("%d elements, %d bytes: %d bytes allocated, %d an element", n, len(text), alloc, alloc/uint64(n))
					continue
				}
				if err == nil || !strings.Contains(err.Error(), "the most a trace may hold") {
					t.Fatalf("%d elements: %v", n, err)
				}
				// reading the file and placing the error: a few times its size (3.0 with
				// encoding/json v2 for Inspect), nothing per element (which would be 100 times)
				if limit := 4 * uint64(len(text)); alloc > limit {
					t.Errorf("%d elements (%d bytes) refused after allocating %d bytes; want at most %d", n, len(text), alloc, limit)
				}
			}
		})
	}
}

// TestItemSizes: itemsOver gives the sizes of the top value's lists, which the readers make
// their lists at: repeats and case-folded keys added up (encoding/json fills one list from
// them), a pair's two events each, nested lists left out, -1 for a list the value lacks.
func TestItemSizes(t *testing.T) {
	for _, c := range []struct {
		text  string
		list  bool
		shape itemShape
		want  []int // the first sizes
	}{
		{`{"messages":[{},{"tool_calls":[{},{}]}],"MESSAGES":[{}],"events":[{"output":{"choices":[{},{}]}}],"attachments":{"a":""}}`, false, inspectSampleItems, []int{3, 1, -1, -1}},
		{`{"messages":null,"events":[]}`, false, inspectSampleItems, []int{-1, 0}},
		{`{"history":[[{"action":"a"},{"observation":"o"}],{"action":"b","args":{"x":1}}],"messages":[{}]}`, false, ohRecordItems, []int{-1, 1, -1, -1, -1, 3, -1}},
		{`[{"role":"user","content":[{},{}]},{}]`, true, ohMessageItems, []int{2}},
		{` []`, true, ohMessageItems, []int{0}},
	} {
		over, sizes := itemsOver([]byte(c.text), 0, c.list, c.shape)
		if over != -1 || !slices.Equal(sizes[:len(c.want)], c.want) {
			t.Errorf("%s: over %d, sizes %v; want %v", c.text, over, sizes[:len(c.want)], c.want)
		}
	}
}

// FuzzReaderItemLimit: for the readers that decode with encoding/json (AgentDojo, OpenHands, a
// message list, an Inspect log), the item limit only ever refuses a trace, at an element past
// it; it never changes what a trace it lets through reads as, nor the error of one it does not
// refuse for its items.
func FuzzReaderItemLimit(f *testing.F) {
	for _, s := range []struct {
		reader uint8
		text   string
	}{
		{0, `{"suite_name":"s","user_task_id":"u","messages":[{"role":"user","content":[{"type":"text","content":"a"}]},{"role":"assistant","tool_calls":[{"function":"f","args":{},"id":"1"}]},{"role":"tool","content":"ok","tool_call_id":"1","error":null}],"utility":true}`},
		{0, `{"suite_name":"s","user_task_id":"u","MESSAGES":[{},{}],"messages":[{"content":["a",{"type":"text","content":"b"}]}]}`},
		{1, `{"instance_id":"x","test_result":{},"history":[[{"action":"run","args":{"command":"ls"},"id":1},{"observation":"run","content":"a","cause":1}],{"action":"message","args":{"content":"hi"},"source":"user"}]}`},
		{1, `{"instance_id":"x","messages":[{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c","content":[{"type":"text","text":"r"}]}],"response":{"choices":[{"message":{"role":"assistant","content":"done"}}]},"metrics":{"token_usages":[{},{}]}}`},
		{2, `[{"role":"user","content":"a"},{"role":"assistant","content":"<function=f>\n<parameter=a>1</parameter>\n</function>"},{"role":"user","content":"EXECUTION RESULT of [f]:\nok"}]`},
		{3, `{"eval":{"task":"t"},"samples":[{"id":1,"epoch":1,"messages":[{"role":"user","content":"q"}],"events":[{"event":"model","output":{"choices":[{"message":{"role":"assistant","tool_calls":[{"id":"c","function":"f","arguments":{}}]}}]}},{"event":"tool","id":"c","result":[{"type":"text","text":"r"}]}],"attachments":{"a":"b"}},{"id":2,"messages":[]}]}`},
	} {
		f.Add(s.reader, []byte(s.text), uint8(3))
	}
	f.Fuzz(func(t *testing.T, reader uint8, data []byte, limit uint8) {
		read := func() ([]*Trace, error) {
			rec := input.Record{File: "r.json", Line: 1, Col: 1, Data: data}
			var tr *Trace
			var err error
			switch reader % 4 {
			case 0:
				tr, err = decodeAgentDojo(rec)
			case 1:
				tr, err = decodeOpenHands(rec)
			case 2:
				tr, err = decodeMessageList("trajs/x.json", data)
			default:
				var ts []*Trace
				err = eachInspectJSON(context.Background(), "no/such/log.json", data, Options{}, func(t *Trace) error { ts = append(ts, t); return nil })
				return ts, err
			}
			return []*Trace{tr}, err
		}
		itemLimitHolds(t, limit, func() (any, error) { return read() })
	})
}
