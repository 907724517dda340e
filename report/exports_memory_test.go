package report

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/reliability"
)

// liveWriter discards what is written and, after every MiB written (and at the first write, as
// a renderer may build an index before it writes at all), collects and samples the live heap,
// keeping the highest: how much a renderer holds while it writes. Only samples taken right
// after a full collection count: those the collector's own cycles leave count what was
// allocated while they marked as live, and came out several MB high on a loaded machine.
type liveWriter struct {
	sample   []metrics.Sample
	peak     uint64
	bytes    int64
	sinceGC  int64
	maxWrite int
}

func newLiveWriter() *liveWriter {
	return &liveWriter{sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}, sinceGC: 1 << 20}
}

func (w *liveWriter) Write(p []byte) (int, error) {
	w.bytes += int64(len(p))
	w.maxWrite = max(w.maxWrite, len(p))
	if w.sinceGC += int64(len(p)); w.sinceGC >= 1<<20 {
		w.sinceGC = 0
		runtime.GC()
		metrics.Read(w.sample)
		w.peak = max(w.peak, w.sample[0].Value.Uint64())
	}
	return len(p), nil
}

// exportRenderers are the three exports, as the gate writes them.
var exportRenderers = []struct {
	name   string
	render func(io.Writer, *gate.Result) error
}{
	{"sarif", func(w io.Writer, r *gate.Result) error { return SARIF(w, r, nil) }},
	{"otel", OTel},
	{"junit", JUnit},
}

// withTrials gives every trace of r a task and a trial, three trials a task, so that JUnit
// groups them.
func withTrials(r *gate.Result) {
	for i := range r.Reliability.Traces {
		trial := i % 3
		r.Reliability.Traces[i].Attempt = &reliability.Attempt{Task: fmt.Sprintf("task-%06d", i/3), Trial: &trial}
	}
}

// extraLive renders r and returns the highest live heap seen while writing, above the live
// heap before.
func extraLive(r *gate.Result, render func(io.Writer, *gate.Result) error) (extra uint64, w *liveWriter, err error) {
	defer debug.SetGCPercent(debug.SetGCPercent(5))
	runtime.GC()
	w = newLiveWriter()
	w.Write(nil)
	before := w.peak
	w.sinceGC = 1 << 20
	err = render(w, r)
	w.sinceGC = 1 << 20 // and once it has written all
	w.Write(nil)
	if w.peak < before {
		return 0, w, err
	}
	return w.peak - before, w, err
}

// The exports are streamed: what a renderer holds while writing does not grow with the suite.
// From 50,000 to 200,000 traces (a fifth of them not PASS, in trials of three) the output of
// OTel and JUnit grows fourfold while the heap each renderer adds stays under a fixed bound,
// and no single write is larger than a line of OTLP/JSON.
func TestExportsBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds suites of 200,000 traces")
	}
	small, large := largeResult(50_000, 10_000, 100, 10), largeResult(200_000, 40_000, 100, 10)
	withTrials(small)
	withTrials(large)
	for _, c := range exportRenderers {
		t.Run(c.name, func(t *testing.T) {
			es, ws, err := extraLive(small, c.render)
			if err != nil {
				t.Fatal(err)
			}
			el, wl, err := extraLive(large, c.render)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: 50,000 traces: %d bytes written, %.1f MB more live heap; 200,000: %d bytes, %.1f MB; largest write %d bytes",
				c.name, ws.bytes, float64(es)/1e6, wl.bytes, float64(el)/1e6, wl.maxWrite)
			// SARIF holds at most the 25,000 results it keeps, OTel one line of 512 KiB, JUnit an
			// index of the trials (9 bytes a trace); the samples are noisy by a few MB.
			const bound, growth = 16 << 20, 6 << 20
			if el > bound || el > es+growth {
				t.Errorf("%s holds %.1f MB while writing 200,000 traces (%.1f MB for 50,000): over %d MB, or grows with the suite",
					c.name, float64(el)/1e6, float64(es)/1e6, bound>>20)
			}
			if wl.maxWrite > otelLineBytes+64<<10 {
				t.Errorf("%s wrote %d bytes at once: not streamed", c.name, wl.maxWrite)
			}
		})
	}
}

// BenchmarkExportsMillion writes the three exports of a million traces (200,000 not PASS, in
// trials of three) and reports the heap each holds while writing and the bytes it wrote.
func BenchmarkExportsMillion(b *testing.B) {
	r := largeResult(1_000_000, 200_000, 100, 10)
	withTrials(r)
	for _, c := range exportRenderers {
		b.Run(c.name, func(b *testing.B) {
			var extra uint64
			var w *liveWriter
			for b.Loop() {
				var err error
				if extra, w, err = extraLive(r, c.render); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(extra)/1e6, "MB-held")
			b.ReportMetric(float64(w.bytes)/1e6, "MB-written")
		})
	}
}
