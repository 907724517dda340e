package trace

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
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
	var b bytes.Buffer
	b.WriteString(`{"id":"s","epoch":1,"messages":[`)
	for k := range n {
		if k > 0 {
			b.WriteByte(',')
		}
		args := `{"x":"attachment://h"}`
		if distinct {
			args = fmt.Sprintf(`{"x":"attachment://h","i":%d}`, k)
		}
		fmt.Fprintf(&b, `{"role":"assistant","content":"","tool_calls":[{"id":"c","function":"f","arguments":%s}]}`, args)
	}
	b.WriteString(`],"attachments":{"h":"`)
	b.Write(bytes.Repeat([]byte{'A'}, 1<<20))
	b.WriteString(`"}}`)
	return b.Bytes()
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

// perReference is what one reference adds: the attachment quoted (1 MiB and two quotes) in
// place of "attachment://h" (16 bytes with its quotes).
const perReference = 1<<20 + 2 - 16

// allocated runs fn and returns the bytes it allocated, garbage included.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A .eval of about 1.5 KB naming a 1 MiB attachment 500 times stands for 500 MiB: its
// references count toward the input's limits as they are expanded, so the check on what a
// compressed input expands to ends it past 64 MiB, an error naming the archive, having
// allocated a few MiB. Before, every reference was resolved anew and the arguments decoded
// and re-marshalled with the attachment copied in: 2.1 GB for this file, no error (issue 34,
// finding 2).
func TestInspectAttachmentBombEval(t *testing.T) {
	sample := attachmentSample(500, false)
	data := attachmentEval(sample)
	if len(data) > 2000 {
		t.Fatalf("the archive holds %d bytes, want about 1.5 KB", len(data))
	}
	path := filepath.Join(t.TempDir(), "bomb.eval")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var err error
	n := 0
	got := allocated(func() { err = EachFile(context.Background(), path, func(*Trace) error { n++; return nil }) })
	t.Logf("%d-byte .eval: %d bytes allocated", len(data), got)
	// the count passes 64 MiB, and 100 times the archive, at the k-th reference
	k := (64<<20-len(sample))/perReference + 1
	counted := int64(len(sample)) + int64(k)*perReference
	want := fmt.Sprintf("%s: input too large: expands to more than 100 times its compressed size (%.1f MiB from %.1f KiB), as a decompression bomb does; if it is genuine, set max-input-bytes to the most it may expand to",
		path, float64(counted)/(1<<20), float64(len(data))/(1<<10))
	if err == nil || err.Error() != want || !input.IsInputError(err) || n != 0 {
		t.Fatalf("%d traces, error %v\nwant %s", n, err, want)
	}
	if got > 32<<20 {
		t.Errorf("reading it allocated %d bytes, want at most 32 MiB", got)
	}
}

// A 2.1 MB .json log whose one sample names a 1 MiB attachment 11,000 times: the sample passes
// 256 MiB, the most a record may hold, at its 256th reference, an error at the sample.
// Before, it allocated gigabytes, with no error.
func TestInspectAttachmentBombJSON(t *testing.T) {
	sample := attachmentSample(11_000, false)
	doc := append(append([]byte(`{"version":2,"eval":{},"samples":[`+"\n"), sample...), "]}"...)
	path := filepath.Join(t.TempDir(), "bomb.json")
	if err := os.WriteFile(path, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	var err error
	got := allocated(func() { err = EachFile(context.Background(), path, func(*Trace) error { return nil }) })
	t.Logf("%d-byte .json: %d bytes allocated", len(doc), got)
	k := (256<<20-len(sample))/perReference + 1 // the reference that passes 256 MiB
	want := fmt.Sprintf("%s:2:1: samples[0]: messages[%d]: tool_calls[0].arguments: the sample's attachment:// references expand it to more than 256 MiB, the most a record may hold", path, k-1)
	if err == nil || err.Error() != want || !input.IsInputError(err) {
		t.Fatalf("error %v\nwant %s", err, want)
	}
	if got > 32<<20 {
		t.Errorf("reading it allocated %d bytes, want at most 32 MiB", got)
	}
}

// Arguments that differ each time share nothing; their expansions are copies, bounded by the
// record limit (lowered here to 16 MiB): memory about that limit, then an error.
func TestInspectAttachmentDistinctArguments(t *testing.T) {
	defer func(old int) { input.MaxRecord = old }(input.MaxRecord)
	input.MaxRecord = 16 << 20
	sample := attachmentSample(100, true)
	var err error
	got := allocated(func() {
		err = eachInspectJSON(context.Background(), "d.json", append(append([]byte(`{"samples":[`), sample...), "]}"...), Options{}, func(*Trace) error { return nil })
	})
	var e *input.Error
	if !errors.As(err, &e) || !strings.Contains(err.Error(), "references expand it to more than 16 MiB") {
		t.Fatalf("error %v", err)
	}
	if got > 64<<20 {
		t.Errorf("allocated %d bytes, want at most 64 MiB (4 times the record limit)", got)
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
