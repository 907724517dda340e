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
	const key = "0cc175b9c0f1b6a831c399e269772661"
	var b strings.Builder
	b.WriteString(`{"version":2,"eval":{"task":"t","model":"m"},"samples":[{"id":"s","epoch":1,"messages":[`)
	for k := range 240 {
		if k > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"role":"assistant","content":"","tool_calls":[{"id":"c%d","function":"write","arguments":{"code":"attachment://%s","n":%d}}]}`, k, key, k)
	}
	b.WriteString(`],"attachments":{"` + key + `":"` + strings.Repeat(`   total = total + values[k]**2\n`, 1<<15) + `"}}]}`)
	return b.String()
}

// The gate on manyArgumentsLog holds the attachment once: the calls keep their arguments as
// written, references and all, and the evaluator reads each reference as the attachment's
// text, shared (docs/security.md, "Attachments"). The gate allocates a few MiB (measured: 6.6
// MiB); before, each call's arguments were expanded, a copy of the attachment each, and the
// evaluator copied each again to unescape its newlines: 764 MB allocated, a peak of 1.6 GB.
// The references still count what they stand for, 240 times the attachment quoted, toward the
// sample's limits (TestInspectAttachmentBomb*).
func TestAttachmentInManyArgumentsHeldOnce(t *testing.T) {
	log := manyArgumentsLog()
	path := filepath.Join(t.TempDir(), "log.json")
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := gate.Run(context.Background(), gate.Inputs{Traces: []string{path}}, gate.Options{Thresholds: gate.DefaultThresholds()})
	runtime.ReadMemStats(&after)
	if err != nil || res.Reliability.Total != 1 {
		t.Fatalf("%v", err)
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d-byte log: %d bytes allocated", len(log), allocated)
	if allocated > 16<<20 {
		t.Errorf("the gate allocated %d bytes, want at most 16 MiB (the attachment is 1 MiB)", allocated)
	}
}

// BenchmarkAttachmentInManyArguments runs the gate on manyArgumentsLog (docs/performance.md,
// "Attachments"): its B/op is what the gate allocates.
func BenchmarkAttachmentInManyArguments(b *testing.B) {
	path := filepath.Join(b.TempDir(), "log.json")
	if err := os.WriteFile(path, []byte(manyArgumentsLog()), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := gate.Run(context.Background(), gate.Inputs{Traces: []string{path}}, gate.Options{Thresholds: gate.DefaultThresholds()}); err != nil {
			b.Fatal(err)
		}
	}
}
