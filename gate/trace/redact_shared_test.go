package trace

import (
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

// A 1 MiB text that 100 messages hold, shared (an Inspect attachment that is their content),
// and that the calls' attachments hold too, is redacted once and stays shared: the trace holds
// one redacted copy, not 100 (measured: 1.1 MB allocated; without it, each message's
// content was redacted into its own copy, 107 MB).
func TestRedactSharedTextOnce(t *testing.T) {
	const tok = "ghp_1a2B3c4D5e6F7g8H9i0JkLmNoPqRsTuVwXyZ"
	text := "export GH_TOKEN=" + tok + "\n" + strings.Repeat("x", 1<<20)
	att := &Attachments{text: map[string]string{"k": text}}
	tr := &Trace{ID: "t"}
	for range 100 {
		tr.Messages = append(tr.Messages, Message{Role: "tool", Content: text,
			Calls: []Call{{Tool: "f", Args: []byte(`{"a":"attachment://k"}`), ArgsValid: true, Attachments: att}}})
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	tr.Redact(nil, "***")
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("redacting allocated %d bytes", allocated)
	if allocated > 4<<20 {
		t.Errorf("redacting allocated %d bytes, want at most 4 MiB (one redacted copy of 1 MiB)", allocated)
	}
	want := "export GH_TOKEN=***\n"
	shared := unsafe.StringData(tr.Messages[0].Content)
	for i, m := range tr.Messages {
		if !strings.HasPrefix(m.Content, want) || unsafe.StringData(m.Content) != shared {
			t.Fatalf("message %d: %.40q, shared %v", i, m.Content, unsafe.StringData(m.Content) == shared)
		}
	}
	if got, _ := tr.Messages[0].Calls[0].Attachment("attachment://k"); unsafe.StringData(got) != shared {
		t.Errorf("the attachment is %.40q, not the messages' redacted text", got)
	}
}
