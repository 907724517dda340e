package gate_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate"
)

// manyArgumentsLog is a 1.1 MB Inspect log (as inspect_ai/log/_condense.py writes one: the text
// once in the sample's attachments, attachment://<md5> where it stood) whose 240 tool calls each
// name one 1 MiB attachment, a program of 32-byte lines, in arguments of their own:
// {"code": "attachment://<md5>", "n": <k>}.
func manyArgumentsLog() string {
	return referencesLog("0cc175b9c0f1b6a831c399e269772661", `   total = total + values[k]**2\n`, func(k int, ref string) string {
		return fmt.Sprintf(`{"code":"%s","n":%d}`, ref, k)
	})
}

// referencesLog is an Inspect log of one sample whose 240 assistant messages make a tool call
// each, its arguments args(k, reference), where the reference names the one attachment, key
// key: line (32 bytes as a Go string, as escaped in JSON) 32,768 times.
func referencesLog(key, line string, args func(k int, ref string) string) string {
	var b strings.Builder
	b.WriteString(`{"version":2,"eval":{"task":"t","model":"m"},"samples":[{"id":"s","epoch":1,"messages":[`)
	for k := range 240 {
		if k > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"role":"assistant","content":"","tool_calls":[{"id":"c%d","function":"write","arguments":%s}]}`, k, args(k, "attachment://"+key))
	}
	b.WriteString(`],"attachments":{"` + key + `":"` + strings.Repeat(line, 1<<15) + `"}}]}`)
	return b.String()
}

// The gate on manyArgumentsLog holds the attachment once: the calls keep their arguments as
// written, references and all, and the evaluator reads each reference as the attachment's
// text, shared (docs/security.md, "Attachments"). The gate allocates a few MiB (measured: 6.6
// MiB); before, each call's arguments were expanded, a copy of the attachment each, and the
// evaluator copied each again to unescape its newlines: 764 MB allocated, a peak of 1.6 GB.
// The references still count what they stand for, 240 times the attachment quoted, toward
// the reading budget of the input (TestInspectAttachmentBomb*, TestAttachmentReadingBoundary).
func TestAttachmentInManyArgumentsHeldOnce(t *testing.T) {
	if res := gateOnLog(t, manyArgumentsLog()); res.Reliability.Total != 1 {
		t.Fatalf("%d traces, want 1", res.Reliability.Total)
	}
}

// gateOnLog runs the gate on an Inspect log written to a file, and fails unless it allocates
// at most 16 MiB (the logs' attachment is 1 MiB).
func gateOnLog(t *testing.T, log string) *gate.Result {
	t.Helper()
	path := filepath.Join(t.TempDir(), "log.json")
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := gate.Run(context.Background(), gate.Inputs{Traces: []string{path}}, gate.Options{Thresholds: gate.DefaultThresholds()})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d-byte log: %d bytes allocated", len(log), allocated)
	if allocated > 16<<20 {
		t.Errorf("the gate allocated %d bytes, want at most 16 MiB (the attachment is 1 MiB)", allocated)
	}
	return res
}

// quoteHeavyLog is a 1.2 MB Inspect log whose 240 tool calls name one attachment of 1 MiB
// in the same arguments, {"code": "attachment://<md5>"}: a program of 32-byte lines of four
// quotes each, 1,212,418 bytes written as a JSON string, so that the references stand for
// 277.5 MiB, more than a record may hold, though the log holds the attachment once.
func quoteHeavyLog() string {
	return referencesLog("5ec811e3c8d8311a73cbf328c202d4d1", `    d[\"k\"] = f(\"v\", x) + 1 # ok\n`, func(_ int, ref string) string {
		return `{"code":"` + ref + `"}`
	})
}

// The gate reads quoteHeavyLog: what it holds, the attachment once, is within the 256 MiB a
// record may hold, and what its references stand for (277.5 MiB) within the 1 GiB they may
// (docs/security.md, "Attachments"); before, each reference counted toward the record limit
// as a copy and the log was refused at its 221st call. Its 240 calls are read, and evidence
// quotes the attachment where the arguments name it, as it did when each call held a copy.
func TestQuoteHeavyAttachmentRead(t *testing.T) {
	res := gateOnLog(t, quoteHeavyLog())
	if len(res.Reliability.Traces) != 1 {
		t.Fatalf("%d traces, want 1", len(res.Reliability.Traces))
	}
	r := res.Reliability.Traces[0]
	if r.Messages != 240 || r.ToolCalls != 240 {
		t.Errorf("%d messages, %d tool calls; want 240 and 240", r.Messages, r.ToolCalls)
	}
	want := "`write` called 240 times with identical arguments " + `{"code":"    d[\"k\"] = f(\"v\", x) + 1 # ok\n    d[\"k\"] …` + " at messages 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, … (230 more)"
	found := false
	for _, e := range r.Evidence {
		found = found || e.Text == want
	}
	if !found {
		t.Errorf("no evidence %q among %+v", want, r.Evidence)
	}
}

// BenchmarkAttachmentInManyArguments runs the gate on manyArgumentsLog (docs/performance.md,
// "Attachments"): its B/op is what the gate allocates.
func BenchmarkAttachmentInManyArguments(b *testing.B) { benchGateOnLog(b, manyArgumentsLog()) }

// BenchmarkQuoteHeavyAttachment runs the gate on quoteHeavyLog (docs/performance.md,
// "Attachments"): its B/op is what the gate allocates.
func BenchmarkQuoteHeavyAttachment(b *testing.B) { benchGateOnLog(b, quoteHeavyLog()) }

// benchGateOnLog runs the gate on an Inspect log written to a file.
func benchGateOnLog(b *testing.B, log string) {
	path := filepath.Join(b.TempDir(), "log.json")
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := gate.Run(context.Background(), gate.Inputs{Traces: []string{path}}, gate.Options{Thresholds: gate.DefaultThresholds()}); err != nil {
			b.Fatal(err)
		}
	}
}
