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

// The gate on a 1.1 MB Inspect log (as inspect_ai/log/_condense.py writes one: the text once
// in the sample's attachments, attachment://<hash> where it stood) whose 240 tool calls each
// name one 1 MiB attachment in arguments of their own: its references count 240 MiB toward the
// sample's limits, and the gate allocates about that, not four times it (before: 1.58 GB
// allocated, 963 MB peak, as the calls' keys copied the attachment 240 times more).
func TestAttachmentInManyArgumentsCostsWhatIsCounted(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"version":2,"eval":{"task":"t"},"samples":[{"id":"s","epoch":1,"messages":[`)
	for k := range 240 {
		if k > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"role":"assistant","content":"","tool_calls":[{"id":"c%d","function":"write","arguments":{"x":"attachment://h","i":%d}}]}`, k, k)
	}
	b.WriteString(`],"attachments":{"h":"` + strings.Repeat("A", 1<<20) + `"}}]}`)
	path := filepath.Join(t.TempDir(), "log.json")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	counted := uint64(b.Len() + 240*(1<<20+2-len(`"attachment://h"`)))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := gate.Run(context.Background(), gate.Inputs{Traces: []string{path}}, gate.Options{Thresholds: gate.DefaultThresholds()})
	runtime.ReadMemStats(&after)
	if err != nil || res.Reliability.Total != 1 {
		t.Fatalf("%v", err)
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d-byte log, %d bytes counted, %d allocated", b.Len(), counted, allocated)
	if allocated > counted+counted/8 {
		t.Errorf("the gate allocated %d bytes, more than the %d its references count and an eighth", allocated, counted)
	}
}
