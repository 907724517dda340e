package gate

import (
	"context"
	"fmt"
	"runtime"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/gate/pipeline"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/trace"
)

// The reliability section of files of trace records is computed by gate/pipeline, which keeps
// every core busy and gives the very result a sequential reading gives (the tests hold it to
// one, docs/development.md#one-evaluation-loop): workers decode and evaluate the traces of a
// batch with their own decoder and evaluator, and the calling goroutine keeps the results in
// file order (traceKeeper: ids checked, verdicts counted). What grows with the input is the
// report's list of results.

// traceWorker is one worker's state: its decoder and evaluator reuse their memory from
// record to record. With ev nil the worker only decodes (for the benchmarks).
type traceWorker struct {
	dec     trace.Decoder
	ev      *reliability.Evaluator
	secrets []string // Options.Secrets
}

// traceBatch is what a worker makes of a batch: the traces' results, with their outcomes.
type traceBatch struct {
	results []reliability.Result
	stats   readStats
}

// readStats count what the notes on reading say, and what a blind read is told by
// (docs/trace-formats.md, "Blind reads and crashes").
type readStats struct {
	fieldHits int // traces whose outcome the outcome-field member gave
	noAgent   int // traces with no assistant message, the crashed ones left out
	// byFormat counts the traces of each format and those with no agent turn
	byFormat [trace.NumFormats]formatStats
	// sides are the side files the readers read beside the traces (trace.Trace.SideFile), in
	// the order of their traces, each once
	sides []string
}

// formatStats are the traces read in one format, those that hold no agent turn (crashed runs
// left out) and the file of the first of them.
type formatStats struct {
	traces, noAgent int
	file            string
}

// count counts t, read in format f with the outcome-field field.
func (s *readStats) count(t *trace.Trace, f trace.Format, field string) {
	if t.Outcome.Known && field != "" && t.Outcome.Source == field {
		s.fieldHits++
	}
	s.side(t.SideFile)
	c := &s.byFormat[f]
	c.traces++
	if t.Crash == "" && !t.HasAgentTurn() {
		s.noAgent++
		if c.noAgent++; c.file == "" {
			c.file = t.File
		}
	}
}

// side counts the side file path read, "" for none: a file's traces read it one after another.
func (s *readStats) side(path string) {
	if path != "" && (len(s.sides) == 0 || s.sides[len(s.sides)-1] != path) {
		s.sides = append(s.sides, path)
	}
}

// add adds the counts of o, read after s.
func (s *readStats) add(o *readStats) {
	s.fieldHits += o.fieldHits
	s.noAgent += o.noAgent
	for _, p := range o.sides {
		s.side(p)
	}
	for f := range s.byFormat {
		c, d := &s.byFormat[f], &o.byFormat[f]
		c.traces += d.traces
		if c.noAgent += d.noAgent; c.file == "" {
			c.file = d.file
		}
	}
}

// blind is the error of a format read blind: most of its traces hold no agent turn where its
// harness writes them, so the format's reader did not find them; nil when none was.
func (s *readStats) blind() error {
	for f := range s.byFormat {
		c, h := &s.byFormat[f], trace.Of(trace.Format(f))
		if h.Turnless || c.noAgent*2 <= c.traces {
			continue
		}
		return &input.Error{File: c.file, Msg: fmt.Sprintf("%d of %d traces read as %s hold no agent turn (no assistant message under %s): "+
			"the format was read blind, and agentgate refuses to judge runs it could not see (docs/trace-formats.md, \"Blind reads and crashes\")",
			c.noAgent, c.traces, h.Name, h.Turns)}
	}
	return nil
}

// work decodes and evaluates the batch's records into tb.
func (w *traceWorker) work(b *pipeline.Batch, tb *traceBatch) (int, error) {
	tb.results, tb.stats = tb.results[:0], readStats{}
	w.dec.After(b.PrevFile, b.PrevLine)
	err := b.Records(func(rec input.Record) error {
		t, err := w.dec.Decode(rec)
		if err != nil {
			return err
		}
		if len(rec.Data) >= input.HugeRecord {
			// the record is decoded: let its memory go before the trace is evaluated (the
			// collector takes it when its pacing says: forcing a collection here lowered the
			// peak of a 120 MB trace by 2%, 375 MB against 382)
			b.Release()
		}
		tb.stats.count(t, trace.FormatRecords, w.dec.OutcomeField)
		if w.ev == nil {
			tb.results = append(tb.results, reliability.Result{ID: t.ID, File: t.File, Line: t.Line, Run: trace.RunOf(t.Outcome, t.Usage)})
			return nil
		}
		t.Redact(w.secrets, redacted)
		tb.results = append(tb.results, w.ev.Evaluate(t))
		return nil
	})
	return len(tb.results), err
}

// redacted is what a secret in a trace becomes, as the runner shows a masked value.
const redacted = "***"

// runReliabilityParallel evaluates the trace files with workers goroutines; with decodeOnly
// it does all but the evaluation (for the benchmarks).
func runReliabilityParallel(ctx context.Context, files []string, o Options, workers int, decodeOnly bool) (*reliability.Summary, error) {
	k := newTraceKeeper()
	if err := reliabilityPipeline(ctx, files, o, workers, decodeOnly, k, nil); err != nil {
		return nil, err
	}
	return k.sum, nil
}

// reliabilityPipeline evaluates the trace record files into k, after the traces it already
// keeps; stats, when not nil, counts what the notes on reading say.
func reliabilityPipeline(ctx context.Context, files []string, o Options, workers int, decodeOnly bool, k *traceKeeper, stats *readStats) error {
	newWorker := func() *traceWorker {
		w := &traceWorker{dec: trace.Decoder{Reuse: true, OutcomeField: o.OutcomeField}, secrets: o.Secrets} // results keep no memory of a trace
		if !decodeOnly {
			w.ev = o.evaluator()
		}
		return w
	}
	merge := func(b *pipeline.Batch, tb *traceBatch, err error) error {
		if tb == nil {
			return err
		}
		if stats != nil {
			stats.add(&tb.stats)
		}
		rs := tb.results
		k.ids.Reserve(pipeline.Estimate(len(rs), b.Seen, b.Total))
		k.sum.Traces = pipeline.Grow(k.sum.Traces, len(k.sum.Traces)+len(rs), b.Seen, b.Total)
		for i := range rs {
			if err := k.add(rs[i]); err != nil {
				return err
			}
		}
		clear(rs) // the summary has its own copies
		return err
	}
	return pipeline.Run(ctx, files, pipeline.Options{Workers: workers}, newWorker, (*traceWorker).work, merge)
}

// defaultWorkers is the number of workers when the options do not say.
func defaultWorkers() int { return runtime.GOMAXPROCS(0) }
