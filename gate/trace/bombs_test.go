package trace

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/agentgate/agentgate/internal/cputime"

	"github.com/agentgate/agentgate/gate/input"
)

// TestDocumentBombs: the readers that read a document whole (an OTLP file, the members of a
// .eval archive) read through input's bounded reader too: a document that expands more than
// 100 times past 64 MiB ends there, within 300 MiB allocated (counted work; the CPU time is logged only), with the error that names the
// file and how to raise the limit, before the 256 MiB of maxDocument. Before, they read up to
// 256 MiB of white space, and an archive of many members up to 256 MiB each.
func TestDocumentBombs(t *testing.T) {
	const bomb = ": input too large: expands to more than 100 times its compressed size (%s), as a decompression bomb does; if it is genuine, set max-input-bytes to the most it may expand to"
	spaces := bytes.Repeat([]byte{' '}, 1<<20)
	dir := t.TempDir()

	// OTLP: a document whose first span follows 4 GB of spaces (one gzip member of 1 MiB,
	// written 4096 times: gzip reads the members as one stream)
	var mib bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&mib, gzip.BestCompression)
	gz.Write(spaces)
	gz.Close()
	var otlp bytes.Buffer
	gz = gzip.NewWriter(&otlp)
	gz.Write([]byte(`{"resourceSpans":`))
	gz.Close()
	otlp.Write(bytes.Repeat(mib.Bytes(), 4<<10))
	gz = gzip.NewWriter(&otlp)
	gz.Write([]byte(`[{"scopeSpans":[{"spans":[{"traceId":"t","spanId":"s"}]}]}]}`))
	gz.Close()
	otlpPath := filepath.Join(dir, "spans.json.gz")
	if err := os.WriteFile(otlpPath, otlp.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	// .eval: one member of 128 MiB of spaces before a sample, deflated; and 8 members of 32
	// MiB each, which only add up past the ratio
	sample := []byte(`{"id": "a", "epoch": 1, "messages": []}`)
	member := func(n int) []byte { return append(bytes.Repeat([]byte{' '}, n), sample...) }
	one := writeZip(t, zipMember{"samples/a_epoch_1.json", zip.Deflate, member(128 << 20)})
	var many []zipMember
	for i := range 8 {
		many = append(many, zipMember{fmt.Sprintf("samples/a_epoch_%d.json", i+1), zip.Deflate, member(32 << 20)})
	}
	several := writeZip(t, many...)

	cases := []struct {
		name, path, want string
	}{
		{"OTLP after 4 GB of spaces", otlpPath, otlpPath + fmt.Sprintf(bomb, "64.0 MiB from 68.0 KiB")},
		{".eval member of 128 MiB", one, one + fmt.Sprintf(bomb, "64.0 MiB from "+sizeOf(t, one))},
		{".eval of 8 members of 32 MiB", several, several + fmt.Sprintf(bomb, "64.0 MiB from "+sizeOf(t, several))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			// the process's CPU time where the platform gives it: CI runs two test binaries
			// side by side on two cores, and the wall clock counts the other one's turns too
			start, cpuOK := cputime.Process()
			wall := time.Now()
			n := 0
			err := EachFile(context.Background(), c.path, func(*Trace) error { n++; return nil })
			took := time.Since(wall)
			if end, ok := cputime.Process(); cpuOK && ok {
				took = end - start
			}
			runtime.ReadMemStats(&after)
			if err == nil || err.Error() != c.want || !input.IsInputError(err) {
				t.Errorf("got  %v\nwant %s", err, c.want)
			}
			alloc := after.TotalAlloc - before.TotalAlloc
			// the bytes allocated are counted work, the same on a busy machine: a reader that
			// ran on through the bomb would allocate its gigabytes (the time is logged only)
			if alloc > 300<<20 {
				t.Errorf("allocated %d MiB in %v of CPU; want at most 300 MiB", alloc>>20, took)
			}
			t.Logf("%d traces, %v, %d MiB allocated", n, took, alloc>>20)
		})
	}
}

// sizeOf is the size of the file at path as the ratio check writes it, in KiB.
func sizeOf(t *testing.T, path string) string {
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%.1f KiB", float64(st.Size())/1024)
}
