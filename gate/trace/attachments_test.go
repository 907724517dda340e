package trace

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/agentgate/agentgate/gate/input"
)

// attachmentSample is an Inspect sample whose attachment "h" (1 MiB) is named by the
// arguments of n tool calls: {"x":"attachment://h"} each, or, distinct, {"x":"attachment://h",
// "i":<k>}. Inspect writes attachment://<md5> references (inspect_ai/log/_condense.py); the
// hash is a key like any other here.
func attachmentSample(n int, distinct bool) []byte {
	args := func(int) string { return `{"x":"attachment://h"}` }
	if distinct {
		args = func(k int) string { return fmt.Sprintf(`{"x":"attachment://h","i":%d}`, k) }
	}
	return referenceSample("s", n, args, false, map[string]string{"h": strings.Repeat("A", 1<<20)})
}

// referenceSample is an Inspect sample, id id, of n assistant messages that make a tool call
// each, with arguments args(k), Inspect's parse_error beside them when parseError; attachments
// are its attachments by key, written in key order.
func referenceSample(id string, n int, args func(k int) string, parseError bool, attachments map[string]string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"id":%q,"epoch":1,"messages":[`, id)
	pe := ""
	if parseError {
		pe = `,"parse_error":"Expecting value"`
	}
	for k := range n {
		if k > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"role":"assistant","content":"","tool_calls":[{"id":"c","function":"f","arguments":%s%s}]}`, args(k), pe)
	}
	b.WriteString(`],"attachments":{`)
	for i, key := range slices.Sorted(maps.Keys(attachments)) {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(key)
		v, _ := json.Marshal(attachments[key])
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteString(`}}`)
	return b.Bytes()
}

// inspectLog is an Inspect log written as JSON whose samples are samples, the first on the
// log's line 2 (column 1).
func inspectLog(samples ...[]byte) []byte {
	return append(append([]byte(`{"version":2,"eval":{},"samples":[`+"\n"), bytes.Join(samples, []byte(","))...), "]}"...)
}

// attachmentEval is a .eval archive of one deflated member, the sample.
func attachmentEval(sample []byte) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.CreateHeader(&zip.FileHeader{Name: "samples/s_epoch_1.json", Method: zip.Deflate})
	w.Write(sample)
	zw.Close()
	return buf.Bytes()
}

// writeEval writes a .eval archive of sample (attachmentEval) to a file, bomb.eval, and fails
// unless it holds at most most bytes.
func writeEval(t *testing.T, sample []byte, most int) (path string, data []byte) {
	t.Helper()
	data = attachmentEval(sample)
	if len(data) > most {
		t.Fatalf("the archive holds %d bytes, want a few KB", len(data))
	}
	path = filepath.Join(t.TempDir(), "bomb.eval")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, data
}

// perReference is what expanding one reference to the 1 MiB attachment "h" adds: the
// attachment quoted (1 MiB and two quotes) in place of "attachment://h" (16 bytes with its
// quotes).
const perReference = 1<<20 + 2 - 16

// readingPast is the reference to an attachment of q bytes, quoted, at which the references
// of an input, each naming it, pass maxReferenced, counted from 1.
func readingPast(q int64) int64 { return maxReferenced/q + 1 }

// allocated runs fn and returns the bytes it allocated, garbage included.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A .eval of about 1.5 KB naming a 1 MiB attachment 500 times holds the attachment once and
// stands for 500 MiB of reading, within the 1 GiB the references of an input may stand for:
// it is read, a few MiB allocated. Named 5,000 times it stands for more: the reference that
// passes 1 GiB, the 1,024th, is an error at it, still a few MiB in. Before, every reference
// was resolved anew and the arguments decoded and re-marshalled with the attachment copied in:
// 2.1 GB for the first file, no error (issue 34, finding 2); then each reference counted
// toward the input's limits as if it were held, and the ratio check refused the first at 64
// MiB (issue 45: what is held is the attachment once).
func TestInspectAttachmentBombEval(t *testing.T) {
	for _, c := range []struct {
		calls int
		want  string // the error, after the member's name; "": read
	}{
		{500, ""},
		{5000, fmt.Sprintf(":1:1: messages[%d]: tool_calls[0].arguments: the input's attachment:// references stand for more than 1 GiB of text, the most agentgate reads through the references of one input", readingPast(1<<20+2)-1)},
	} {
		path, data := writeEval(t, attachmentSample(c.calls, false), 4000)
		var err error
		calls := 0
		got := allocated(func() {
			err = EachFile(context.Background(), path, func(tr *Trace) error {
				for _, m := range tr.Messages {
					calls += len(m.Calls)
				}
				return nil
			})
		})
		t.Logf("%d-byte .eval naming the attachment %d times: %d bytes allocated", len(data), c.calls, got)
		if c.want == "" {
			if err != nil || calls != c.calls {
				t.Fatalf("%d calls read, error %v; want %d calls", calls, err, c.calls)
			}
		} else if want := path + "[samples/s_epoch_1.json]" + c.want; err == nil || err.Error() != want || !input.IsInputError(err) || calls != 0 {
			t.Fatalf("%d calls, error %v\nwant %s", calls, err, want)
		}
		if got > 32<<20 {
			t.Errorf("reading it allocated %d bytes, want at most 32 MiB", got)
		}
	}
}

// The copies a reference makes are held, and count toward the input's limits: a .eval of a few
// KB whose 500 calls Inspect could not parse (parse_error), each naming the 1 MiB attachment in
// arguments of its own, is 500 copies, and the check on what a compressed input expands to
// ends it past 64 MiB, an error naming the archive.
func TestInspectAttachmentCopiesBombEval(t *testing.T) {
	sample := referenceSample("s", 500, func(k int) string { return fmt.Sprintf(`{"x":"attachment://h","i":%d}`, k) }, true,
		map[string]string{"h": strings.Repeat("A", 1<<20)})
	path, data := writeEval(t, sample, 8000)
	var err error
	n := 0
	got := allocated(func() { err = EachFile(context.Background(), path, func(*Trace) error { n++; return nil }) })
	t.Logf("%d-byte .eval: %d bytes allocated", len(data), got)
	// the count passes 64 MiB, and 100 times the archive, at the k-th copy
	k := (64<<20-len(sample))/perReference + 1
	counted := int64(len(sample)) + int64(k)*perReference
	want := fmt.Sprintf("%s: input too large: expands to more than 100 times its compressed size (%.1f MiB from %.1f KiB), as a decompression bomb does; if it is genuine, set max-input-bytes to the most it may expand to",
		path, float64(counted)/(1<<20), float64(len(data))/(1<<10))
	if err == nil || err.Error() != want || !input.IsInputError(err) || n != 0 {
		t.Fatalf("%d traces, error %v\nwant %s", n, err, want)
	}
	if got > 160<<20 {
		t.Errorf("reading it allocated %d bytes, want at most 160 MiB (the copies are 64)", got)
	}
}

// A 2.3 MB .json log whose one sample names a 1 MiB attachment 11,000 times: its references
// pass the 1 GiB they may stand for at the 1,024th, an error at the sample naming it. Before
// issue 34 it allocated gigabytes, with no error; before issue 45 the references counted
// toward the sample's 256 MiB as if each were a copy held, and the 254th was the error.
func TestInspectAttachmentBombJSON(t *testing.T) {
	doc := inspectLog(attachmentSample(11_000, false))
	path := filepath.Join(t.TempDir(), "bomb.json")
	if err := os.WriteFile(path, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	var err error
	got := allocated(func() { err = EachFile(context.Background(), path, func(*Trace) error { return nil }) })
	t.Logf("%d-byte .json: %d bytes allocated", len(doc), got)
	want := fmt.Sprintf("%s:2:1: samples[0]: messages[%d]: tool_calls[0].arguments: the input's attachment:// references stand for more than 1 GiB of text, the most agentgate reads through the references of one input", path, readingPast(1<<20+2)-1)
	if err == nil || err.Error() != want || !input.IsInputError(err) {
		t.Fatalf("error %v\nwant %s", err, want)
	}
	if got > 32<<20 {
		t.Errorf("reading it allocated %d bytes, want at most 32 MiB", got)
	}
}

// Arguments of calls Inspect could not parse are read as raw text, each reference expanded
// into them: arguments that differ each time share nothing, their expansions are copies, held
// and bounded by the record limit (lowered here to 16 MiB): memory about that limit, then an
// error.
func TestInspectAttachmentDistinctArguments(t *testing.T) {
	defer func(old int) { input.MaxRecord = old }(input.MaxRecord)
	input.MaxRecord = 16 << 20
	sample := referenceSample("s", 100, func(k int) string { return fmt.Sprintf(`{"x":"attachment://h","i":%d}`, k) }, true,
		map[string]string{"h": strings.Repeat("A", 1<<20)})
	var err error
	got := allocated(func() {
		err = eachInspectJSON(context.Background(), "d.json", inspectLog(sample), Options{}, func(*Trace) error { return nil })
	})
	var e *input.Error
	if !errors.As(err, &e) || !strings.Contains(err.Error(), "with the copies its attachment:// references make, holds more than 16 MiB") {
		t.Fatalf("error %v", err)
	}
	if got > 64<<20 {
		t.Errorf("allocated %d bytes, want at most 64 MiB (4 times the record limit)", got)
	}
}

// What a sample holds, counted toward the record limit, is its own bytes (each attachment
// once, each call's own text) and the copies its references make, exactly: at the limit it is
// read, a byte under the limit it is an error at the sample naming the reference that passes.
// The copies are the arguments of calls Inspect could not parse, expanded, and content of
// several parts, joined; references that share the attachment (arguments read as JSON, content
// of one part) hold nothing more, however many.
func TestAttachmentHeldBoundary(t *testing.T) {
	defer func(old int) { input.MaxRecord = old }(input.MaxRecord)
	text := strings.Repeat(`say "hi" `, 7000) // 63,000 bytes, 77,002 quoted
	q := int64(quotedLen(text))
	if q != 77_002 {
		t.Fatalf("quoted %d", q)
	}
	shared := func(k int) string { return fmt.Sprintf(`{"x":"attachment://h","i":%d}`, k) }
	for _, c := range []struct {
		name   string
		sample []byte
		copies int64 // bytes the copies add to the sample's own
		at     string
	}{
		// 20 calls with a parse_error, each expanded: the reference, 16 bytes with its quotes,
		// becomes the text quoted
		{"copied arguments", referenceSample("s", 20, shared, true, map[string]string{"h": text}), 20 * (q - 16), "messages[19]: tool_calls[0].arguments"},
		// the same arguments read as JSON: shared, nothing copied
		{"shared arguments", referenceSample("s", 2000, shared, false, map[string]string{"h": text}), 0, ""},
		// 30 messages of content parts, the text twice in each and "t" between: joined, a copy
		// of both
		{"joined content", []byte(`{"id":"s","messages":[` + strings.TrimSuffix(strings.Repeat(`{"role":"user","content":[{"type":"text","text":"attachment://h"},{"type":"text","text":"t"},{"type":"text","text":"attachment://h"}]},`, 30), ",") +
			`],"attachments":{"h":` + string(must(json.Marshal(text))) + `}}`), 30 * 2 * int64(len(text)), "messages[29]"},
	} {
		held := int64(len(c.sample)) + c.copies
		for _, limit := range []int64{held, held - 1} {
			input.MaxRecord = int(limit)
			calls := 0
			err := eachInspectJSON(context.Background(), "h.json", inspectLog(c.sample), Options{}, func(tr *Trace) error {
				calls += len(tr.Messages)
				return nil
			})
			want := ""
			if limit < held && c.copies > 0 {
				want = fmt.Sprintf("h.json:2:1: samples[0]: %s: the sample, with the copies its attachment:// references make, holds more than %d bytes, the most a record may hold", c.at, limit)
			}
			if (err == nil) != (want == "") || (err != nil && (err.Error() != want || !input.IsInputError(err))) {
				t.Errorf("%s, %d bytes held, limit %d: error %v\nwant %q", c.name, held, limit, err, want)
			} else if err == nil && calls == 0 {
				t.Errorf("%s: no messages read", c.name)
			}
		}
	}
}

// must is v, for a call that cannot fail.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// What the references of one input stand for, counted at every reference (arguments: the
// attachment quoted; content: its text) and across its samples, may reach 1 GiB, exactly, and
// not pass it: here two samples of 512 references each to an attachment whose quoted length
// (or length, for content) is 1 MiB stand for 1 GiB and are read; one byte more in the last
// reference's attachment is an error at it, in the second sample.
func TestAttachmentReadingBoundary(t *testing.T) {
	const half = maxReferenced / 2 / (1 << 20) // 512 references of 1 MiB
	argsTo := func(last string) func(int) string {
		return func(k int) string {
			if k == half-1 {
				return `{"x":"attachment://` + last + `"}`
			}
			return `{"x":"attachment://h"}`
		}
	}
	contentTo := func(id, last string, atts map[string]string) []byte {
		var b strings.Builder
		for k := range half {
			key := "h"
			if k == half-1 {
				key = last
			}
			fmt.Fprintf(&b, `{"role":"user","content":"attachment://%s"},`, key)
		}
		return []byte(`{"id":"` + id + `","messages":[` + strings.TrimSuffix(b.String(), ",") + `],"attachments":{"h":"` + atts["h"] + `","g":"` + atts["g"] + `"}}`)
	}
	argsAtts := map[string]string{"h": strings.Repeat("A", 1<<20-2), "g": strings.Repeat("A", 1<<20-1)} // quoted: 1 MiB, and a byte more
	contentAtts := map[string]string{"h": strings.Repeat("A", 1<<20), "g": strings.Repeat("A", 1<<20+1)}
	for _, c := range []struct {
		name    string
		samples func(last string) [][]byte
		at      string
	}{
		{"arguments", func(last string) [][]byte {
			return [][]byte{referenceSample("a", half, argsTo("h"), false, argsAtts), referenceSample("b", half, argsTo(last), false, argsAtts)}
		}, fmt.Sprintf("messages[%d]: tool_calls[0].arguments", half-1)},
		{"content", func(last string) [][]byte {
			return [][]byte{contentTo("a", "h", contentAtts), contentTo("b", last, contentAtts)}
		}, fmt.Sprintf("messages[%d]", half-1)},
	} {
		for _, last := range []string{"h", "g"} {
			doc := inspectLog(c.samples(last)...)
			n := 0
			err := eachInspectJSON(context.Background(), "r.json", doc, Options{}, func(*Trace) error { n++; return nil })
			second := bytes.Index(doc, []byte(`{"id":"b"`))
			want := ""
			if last == "g" {
				want = fmt.Sprintf("r.json:2:%d: samples[1]: %s: the input's attachment:// references stand for more than 1 GiB of text, the most agentgate reads through the references of one input", second-bytes.IndexByte(doc, '\n'), c.at)
			}
			if (err == nil) != (want == "") || (err != nil && (err.Error() != want || !input.IsInputError(err))) {
				t.Errorf("%s, last naming %s: error %v\nwant %q", c.name, last, err, want)
			} else if err == nil && n != 2 {
				t.Errorf("%s: %d samples read, want 2", c.name, n)
			}
		}
	}
}

// A bomb of references nested in one call's arguments (a list of lists, a million and more
// references to a 1 KiB attachment in 18 MB) ends at the reference that passes 1 GiB, an
// error naming the call, having allocated no more than the same log whose strings are no
// references (measured: 103 MB, the decoder's for an 18 MB sample; each reference was decoded
// on its own before, 184 MB more).
func TestInspectAttachmentNestedReferences(t *testing.T) {
	const per = 1 << 10 // references in each inner list
	text := strings.Repeat("A", 1<<10)
	past := readingPast(int64(quotedLen(text))) // 1,046,530
	lists := int(past/per) + 1
	logOf := func(ref string) []byte {
		inner := "[" + strings.TrimSuffix(strings.Repeat(`"`+ref+`",`, per), ",") + "]"
		args := `{"a":[` + strings.TrimSuffix(strings.Repeat(inner+",", lists), ",") + `]}`
		return inspectLog(referenceSample("s", 1, func(int) string { return args }, false, map[string]string{"h": text}))
	}
	var errs [2]error
	var got [2]uint64
	for i, ref := range []string{"attachment://h", "attachmentX//h"} {
		doc := logOf(ref)
		got[i] = allocated(func() {
			errs[i] = eachInspectJSON(context.Background(), "n.json", doc, Options{}, func(*Trace) error { return nil })
		})
		t.Logf("%d strings %q in %d bytes: %d bytes allocated", lists*per, ref, len(doc), got[i])
	}
	want := "n.json:2:1: samples[0]: messages[0]: tool_calls[0].arguments: the input's attachment:// references stand for more than 1 GiB of text, the most agentgate reads through the references of one input"
	if errs[0] == nil || errs[0].Error() != want || !input.IsInputError(errs[0]) || errs[1] != nil {
		t.Fatalf("errors %v, %v\nwant %s, none", errs[0], errs[1], want)
	}
	if got[0] > got[1]+1<<20 {
		t.Errorf("the references allocated %d bytes, the same log without them %d: want at most 1 MiB more", got[0], got[1])
	}
}

// Expanded arguments keep what the agent wrote around the references: key order, numbers,
// keys that look like references; a reference written with escapes is one too.
func TestInspectAttachmentArguments(t *testing.T) {
	doc := `{"samples":[{"id":"s","epoch":1,"attachments":{"h":"say \"hi\" <b>","k":"K"},"messages":[` +
		`{"role":"assistant","content":"attachment://k","tool_calls":[{"function":"f","arguments":{"z": "attachment://h", "a": [1.50, "attachment:\/\/k", {"attachment://h": "attachment://hx"}]}}]},` +
		`{"role":"assistant","content":[{"type":"text","text":"attachment://h"},{"type":"text","text":"t"}],"tool_calls":[{"function":"f","arguments":{"z": "attachment://h", "a": [1.50, "attachment:\/\/k", {"attachment://h": "attachment://hx"}]}}]}` +
		`]}]}`
	var got []string
	err := eachInspectJSON(context.Background(), "a.json", []byte(doc), Options{}, func(tr *Trace) error {
		for _, m := range tr.Messages {
			got = append(got, m.Content, string(m.Calls[0].ExpandedArgs(-1)))
		}
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "attachment://hx is not among the sample's attachments") {
		t.Fatalf("a reference to no attachment: %v", err)
	}
	doc = strings.ReplaceAll(doc, `"attachment://hx"`, `"attachment://k"`)
	if err := eachInspectJSON(context.Background(), "a.json", []byte(doc), Options{}, func(tr *Trace) error {
		for _, m := range tr.Messages {
			got = append(got, m.Content, string(m.Calls[0].ExpandedArgs(-1)))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	args := `{"z":"say \"hi\" \u003cb\u003e","a":[1.50,"K",{"attachment://h":"K"}]}`
	want := []string{"K", args, "say \"hi\" <b>\nt", args}
	if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// quotedLen counts what encoding/json writes for a string, byte for byte: every byte alone
// (control characters, quotes, HTML's <, > and &, bytes that are not UTF-8), U+2028 and U+2029,
// and random strings of those and letters, against len(json.Marshal(s)).
func TestQuotedLen(t *testing.T) {
	texts := []string{"", "\u2028", "\u2029", "é", "€", "𝄞", "\xff\xfe", "\xe2\x82", "a\u2028b"}
	for c := range 256 {
		texts = append(texts, string([]byte{byte(c)}))
	}
	rng := rand.New(rand.NewPCG(45, 3))
	alphabet := []string{"a", "\"", "\\", "\n", "\x01", "<", "&", "\u2028", "é", "\xff", "𝄞", "\x7f"}
	for range 2000 {
		var b strings.Builder
		for range rng.IntN(20) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		texts = append(texts, b.String())
	}
	for _, s := range texts {
		q, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := quotedLen(s); got != len(q) {
			t.Errorf("quotedLen(%q) = %d, want %d (%s)", s, got, len(q), q)
		}
		if got := quoteText(s, -1); string(got) != string(q) {
			t.Errorf("quoteText(%q) = %s, want %s", s, got, q)
		}
	}
}

// The 240 calls of a sample that name one 1 MiB attachment in arguments of their own
// ({"x":"attachment://h","i":<k>}) hold it once: what the trace holds once read, the log let
// go, is about the attachment (measured: 1.1 MiB), where each call held its own expanded copy
// before (241 MiB). Every call keeps its arguments as written and reads the reference as the
// attachment, the same memory; expanded, they are what they were.
func TestAttachmentHeldOnce(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	doc := append(append([]byte(`{"samples":[`), attachmentSample(240, true)...), "]}"...)
	var tr *Trace
	if err := eachInspectJSON(context.Background(), "a.json", doc, Options{}, func(t *Trace) error { tr = t; return nil }); err != nil {
		t.Fatal(err)
	}
	doc = nil
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("the trace holds %d bytes", held)
	if held > 2<<20 {
		t.Errorf("the trace holds %d bytes, want at most 2 MiB (the attachment is 1 MiB)", held)
	}
	var shared *byte
	for k, m := range tr.Messages {
		c := &m.Calls[0]
		if want := fmt.Sprintf(`{"x":"attachment://h","i":%d}`, k); string(c.Args) != want {
			t.Fatalf("call %d: arguments %.80s, want %s", k, c.Args, want)
		}
		text, ok := c.Attachment("attachment://h")
		if !ok || len(text) != 1<<20 || (shared != nil && unsafe.StringData(text) != shared) {
			t.Fatalf("call %d: the reference reads as %d bytes, shared %v", k, len(text), unsafe.StringData(text) == shared)
		}
		shared = unsafe.StringData(text)
		if got, want := c.ExpandedArgs(-1), `{"x":"`+strings.Repeat("A", 1<<20)+fmt.Sprintf(`","i":%d}`, k); string(got) != want {
			t.Fatalf("call %d: expanded %.80s…", k, got)
		}
	}
	runtime.KeepAlive(tr)
}

// ExpandedArgs cut to a limit is the start of the whole, whatever the limit: inside the
// arguments' own text, inside an attachment (escapes and characters of several bytes), and
// past the end; a reference to no attachment of the call's (redacted, say) is kept as it is.
func TestExpandedArgsCut(t *testing.T) {
	c := Call{Args: []byte(`{"a":"attachment://k","b":["attachment://k"],"attachment://k":"attachment://none"}`), ArgsValid: true,
		Attachments: &Attachments{text: map[string]string{"k": "é<\"\n€𝄞x"}}}
	whole := `{"a":"é\u003c\"\n€𝄞x","b":["é\u003c\"\n€𝄞x"],"attachment://k":"attachment://none"}`
	if got := string(c.ExpandedArgs(-1)); got != whole {
		t.Fatalf("expanded %s\nwant     %s", got, whole)
	}
	for n := 0; n <= len(whole)+2; n++ {
		if got, want := string(c.ExpandedArgs(n)), whole[:min(n, len(whole))]; got != want {
			t.Errorf("ExpandedArgs(%d) = %q, want %q", n, got, want)
		}
	}
	if plain := (Call{Args: []byte(`{"a":"attachment://k"}`)}); &plain.ExpandedArgs(-1)[0] != &plain.Args[0] {
		t.Error("arguments without attachments are copied")
	}
}
