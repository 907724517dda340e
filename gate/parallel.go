package gate

import (
	"context"
	"io"
	"os"
	"runtime"
	"slices"
	"sync"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/trace"
)

// The reliability section is computed by a pipeline that keeps every core busy and gives the
// very result the sequential reading gives (runReliabilitySequential, its reference):
//
//   - one goroutine reads the trace files in order and cuts them into batches: chunks of whole
//     lines of a JSON Lines file (no decoding, no copy), or, for other files, records copied
//     out of the streaming JSON reader;
//   - workers, one per core, decode and evaluate the records of a batch, in order, each with
//     its own decoder and evaluator whose memory is reused from record to record; a worker
//     stops a batch at its first bad record;
//   - the calling goroutine takes the batches back in reading order and does what must be
//     done in order: the duplicate-id check, the counts, the list of results, and the choice
//     of the error to report, which is the first in file order, as in the sequential reading.
//
// Memory is bounded: at most inFlightPerCPU batches per worker, of about batchBytes each,
// exist at a time, and their buffers are reused; what grows with the input is the report's
// list of results.

const (
	batchBytes     = 512 << 10 // bytes of JSON Lines per batch
	batchRecords   = 64        // records per batch for other files
	inFlightPerCPU = 4         // batches read ahead per worker
)

// batch is one unit of work, from the reader to a worker to the merger.
type batch struct {
	file  string
	chunk input.Chunk    // lines of a JSON Lines file, or
	recs  []input.Record // records of another file, whose Data point into buf
	buf   []byte         // the memory behind chunk or recs, reused
	// prevFile and prevLine are where the record before the batch's first started.
	prevFile string
	prevLine int
	// err is a problem of the file itself, reported after the batch's records; eof marks the
	// file's last batch.
	err error
	eof bool

	// Filled by the worker: the results of the records in order, and the error of the record
	// after them when one failed.
	results []reliability.Result
	recErr  error
	done    chan struct{}
}

// work decodes and evaluates the batch's records; with ev nil it only decodes them (for the
// benchmarks), keeping results that hold nothing but the trace's id and place.
func (b *batch) work(dec *trace.Decoder, ev *reliability.Evaluator) {
	b.results, b.recErr = b.results[:0], nil
	dec.After(b.prevFile, b.prevLine)
	do := func(rec input.Record) error {
		t, err := dec.Decode(rec)
		if err != nil {
			return err
		}
		if ev == nil {
			b.results = append(b.results, reliability.Result{ID: t.ID, File: t.File, Line: t.Line})
			return nil
		}
		b.results = append(b.results, ev.Evaluate(t))
		return nil
	}
	if b.chunk.Data != nil {
		b.recErr = b.chunk.EachRecord(do)
		return
	}
	for _, rec := range b.recs {
		if err := do(rec); err != nil {
			b.recErr = err
			return
		}
	}
}

// runReliabilityParallel evaluates the trace files with workers goroutines; with decodeOnly
// it does all but the evaluation (for the benchmarks).
func runReliabilityParallel(ctx context.Context, files []string, p profile.Profile, workers int, decodeOnly bool) (*reliability.Summary, error) {
	inFlight := inFlightPerCPU * workers
	free := make(chan *batch, inFlight)
	for range inFlight {
		free <- &batch{done: make(chan struct{}, 1)}
	}
	order := make(chan *batch, inFlight) // batches in reading order, to the merger
	todo := make(chan *batch, inFlight)  // batches with records, to the workers
	quit := make(chan struct{})          // closed when the merger stops early
	var wg sync.WaitGroup
	defer func() {
		close(quit)
		wg.Wait()
	}()

	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(order)
		defer close(todo)
		readBatches(files, free, order, todo, quit)
	}()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dec := trace.Decoder{ValidUTF8: true, Reuse: true} // results keep no memory of a trace
			ev := &reliability.Evaluator{Profile: p, Brief: true}
			if decodeOnly {
				ev = nil
			}
			for b := range todo {
				b.work(&dec, ev)
				b.done <- struct{}{}
			}
		}()
	}

	sum := &reliability.Summary{Traces: []reliability.Result{}}
	ids := newTraceIDs()
	inFile := 0 // records of the current file so far
	total, seen := totalSize(files), 0
	for b := range order {
		if b.chunk.Data != nil || len(b.recs) > 0 {
			<-b.done
		}
		for i := range b.results {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			r := &b.results[i]
			if first, dup := ids.add(r.ID, len(sum.Traces)+i); dup {
				if first >= len(sum.Traces) {
					return nil, duplicateID(r.ID, r.File, r.Line, &b.results[first-len(sum.Traces)])
				}
				return nil, duplicateID(r.ID, r.File, r.Line, &sum.Traces[first])
			}
		}
		seen += b.size()
		if need := len(sum.Traces) + len(b.results); need > cap(sum.Traces) {
			sum.Traces = slices.Grow(sum.Traces, estimate(need, seen, total)-len(sum.Traces))
		}
		for i := range b.results {
			sum.Add(b.results[i])
		}
		inFile += len(b.results)
		clear(b.results) // the summary has its own copies
		switch {
		case b.recErr != nil:
			return nil, b.recErr
		case b.err != nil:
			return nil, b.err
		case b.eof && inFile == 0:
			return nil, &input.Error{File: b.file, Msg: "no records: the file is empty"}
		case b.eof:
			inFile = 0
		}
		free <- b
	}
	return sum, nil
}

// estimate returns the room to make for the results when need of them do not fit: as many as
// the input holds at the rate seen so far (need results in the first seen of total bytes),
// and a little more, so that the list of results, the largest thing the gate keeps, is
// seldom copied and never twice its size.
func estimate(need, seen, total int) int {
	est := need + need/4
	if seen > 0 && total > seen {
		est = max(est, int(float64(need)*float64(total)/float64(seen)*1.02)+16)
	}
	return est
}

// totalSize returns the size of the files together, as far as it is known.
func totalSize(files []string) int {
	n := 0
	for _, f := range files {
		if st, err := os.Stat(f); err == nil {
			n += int(st.Size())
		}
	}
	return n
}

// size returns the bytes of input the batch holds.
func (b *batch) size() int {
	if b.chunk.Data != nil {
		return len(b.chunk.Data)
	}
	n := 0
	for _, r := range b.recs {
		n += len(r.Data)
	}
	return n
}

// readBatches reads the files in order into batches taken from free, and sends each one to
// order and, when it holds records, to todo. It stops after a file's error, or when quit is
// closed.
func readBatches(files []string, free <-chan *batch, order, todo chan<- *batch, quit <-chan struct{}) {
	var prevFile string
	var prevLine int
	get := func(file string) *batch {
		select {
		case b := <-free:
			b.file, b.chunk, b.recs, b.prevFile, b.prevLine, b.err, b.eof = file, input.Chunk{}, b.recs[:0], prevFile, prevLine, nil, false
			b.results, b.recErr = b.results[:0], nil
			return b
		case <-quit:
			return nil
		}
	}
	send := func(b *batch) bool {
		select {
		case order <- b:
		case <-quit:
			return false
		}
		if b.chunk.Data == nil && len(b.recs) == 0 {
			return true
		}
		select {
		case todo <- b:
			return true
		case <-quit:
			return false
		}
	}
	for _, file := range files {
		b := get(file)
		if b == nil {
			return
		}
		f, err := input.Open(file)
		if err != nil {
			b.err = err
			send(b)
			return
		}
		if input.IsJSONLines(file) {
			b, err = readChunks(file, f, b, get, send)
		} else {
			b, err = readRecords(file, f, b, get, send, &prevFile, &prevLine)
		}
		f.Close()
		if b == nil {
			return
		}
		b.err, b.eof = err, true
		if !send(b) || err != nil {
			return
		}
		prevFile, prevLine = "", 0
	}
}

// readChunks sends the chunks of a JSON Lines file and returns an empty batch for the end.
func readChunks(file string, r io.Reader, b *batch, get func(string) *batch, send func(*batch) bool) (*batch, error) {
	cr := input.NewChunkReader(file, r)
	for {
		if cap(b.buf) < batchBytes {
			b.buf = make([]byte, 0, batchBytes)
		}
		c, err := cr.Next(b.buf)
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		b.chunk, b.buf = c, c.Data[:0]
		if !send(b) {
			return nil, nil
		}
		if b = get(file); b == nil {
			return nil, nil
		}
	}
}

// readRecords sends the records of a JSON file (one record or an array of them) in batches
// and returns the last, unsent batch.
func readRecords(file string, r io.Reader, b *batch, get func(string) *batch, send func(*batch) bool, prevFile *string, prevLine *int) (*batch, error) {
	stopped := false
	err := input.EachReader(file, r, func(rec input.Record) error {
		if len(b.recs) == batchRecords || len(b.buf) >= batchBytes {
			if !send(b) {
				stopped = true
				return errStopped
			}
			if b = get(file); b == nil {
				stopped = true
				return errStopped
			}
			b.buf = b.buf[:0]
		}
		if len(b.recs) == 0 {
			b.buf = b.buf[:0]
		}
		start := len(b.buf)
		b.buf = append(b.buf, rec.Data...)
		rec.Data = b.buf[start:len(b.buf):len(b.buf)]
		b.recs = append(b.recs, rec)
		*prevFile, *prevLine = rec.File, rec.Line
		return nil
	})
	if stopped {
		return nil, nil
	}
	// err is the file's own problem (a syntax error, or no records at all): it goes after
	// the records read before it
	if len(b.recs) > 0 {
		// the records read so far go first, with the error after them
		if !send(b) {
			return nil, nil
		}
		if b = get(file); b == nil {
			return nil, nil
		}
	}
	return b, err
}

type stopError struct{}

func (stopError) Error() string { return "stopped" }

var errStopped error = stopError{}

// defaultWorkers is the number of workers when the options do not say.
func defaultWorkers() int { return runtime.GOMAXPROCS(0) }
