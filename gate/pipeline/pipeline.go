// Package pipeline reads input files in batches of records, has them decoded and evaluated by
// one worker per core, and hands the workers' results back in file order, so that a parallel
// pass gives exactly the result, and the error, of a sequential one:
//
//   - one goroutine reads the files in order and cuts them into batches: chunks of whole lines
//     of a JSON Lines file (no decoding, no copy), or, for other files, records copied out of
//     the streaming JSON reader;
//   - workers decode and evaluate the records of a batch, in order, each with its own state
//     (a decoder, an evaluator) whose memory is reused from batch to batch; a worker stops a
//     batch at its first bad record;
//   - the calling goroutine takes the batches back in reading order and does what must be done
//     in order (duplicate checks, counts, the list of results), and learns the batch's error,
//     which is then the first in file order.
//
// Memory is bounded: at most InFlightPerWorker batches per worker, of about BatchBytes each,
// exist at a time, and their buffers and results are reused.
package pipeline

import (
	"context"
	"io"
	"os"
	"runtime"
	"sync"

	"github.com/agentgate/agentgate/gate/input"
)

// Options tune a run; zero values take the defaults.
//
// The defaults keep the batches in flight (256 KiB a worker) within a core's cache: with 512
// KiB batches, 4 a worker, the gate took 4–8% more CPU time and 5–7% more wall time on 93 MB
// of traces (two cores, both of test/benchcmp's trace shapes), the input having left the cache
// between its read and its decoding.
type Options struct {
	Workers           int // goroutines decoding batches; default runtime.GOMAXPROCS(0)
	BatchBytes        int // bytes of JSON Lines per batch; default 128 KiB
	BatchRecords      int // records per batch for other files; default 64
	InFlightPerWorker int // batches read ahead per worker; default 2
}

func (o Options) withDefaults() Options {
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.BatchBytes <= 0 {
		o.BatchBytes = 128 << 10
	}
	if o.BatchRecords <= 0 {
		o.BatchRecords = 64
	}
	if o.InFlightPerWorker <= 0 {
		o.InFlightPerWorker = 2
	}
	return o
}

// Batch is one piece of input: the lines of a JSON Lines file, or records of another file.
type Batch struct {
	File string
	// PrevFile and PrevLine say where the record before the batch's first started (PrevFile
	// is "" at the start of a file): the trace reader names records without an id by it.
	PrevFile string
	PrevLine int
	// Seen is the number of input bytes read up to the end of this batch, Total the size of
	// all the files (as far as it is known); Estimate uses them to size result lists.
	Seen, Total int64

	chunk input.Chunk    // lines of a JSON Lines file, or
	recs  []input.Record // records of another file, whose Data point into buf
	buf   []byte         // the memory behind chunk or recs, reused
	err   error          // a problem of the file itself, after the batch's records
	freed bool           // Release let go of chunk, which held records
	taken int            // records of recs delivered so far
	eof   bool           // the file's last batch
}

// Records calls fn with the batch's records in order, stopping at the first error (a line
// that is not UTF-8 is one), which it returns.
func (b *Batch) Records(fn func(input.Record) error) error {
	if b.chunk.Data != nil {
		return b.chunk.EachRecord(fn)
	}
	for i := range b.recs {
		b.taken = i + 1
		if err := fn(b.recs[i]); err != nil {
			return err
		}
	}
	return nil
}

// RecordsUnchecked is Records for a caller whose decoder checks that records are UTF-8 as it
// goes (see input.Chunk.EachRecordUnchecked): fn reports a line that is not with the error of
// the record's CheckUTF8. Records of JSON files were checked as they were read.
func (b *Batch) RecordsUnchecked(fn func(input.Record) error) error {
	if b.chunk.Data != nil {
		return b.chunk.EachRecordUnchecked(fn)
	}
	return b.Records(fn)
}

// Release lets go of the batch's input memory for a worker done with a record (a huge one)
// before it goes on to evaluate it: the records after it in the batch are still delivered,
// and the batch's next file chunk gets memory of its own.
func (b *Batch) Release() {
	b.chunk.Data, b.buf, b.freed = nil, nil, b.chunk.Data != nil || b.freed
	clear(b.recs[:b.taken]) // the records delivered, which point into buf
}

// empty reports whether the batch holds no input for a worker.
func (b *Batch) empty() bool { return b.chunk.Data == nil && len(b.recs) == 0 && !b.freed }

// size returns the bytes of input the batch holds.
func (b *Batch) size() int64 {
	if b.chunk.Data != nil {
		return int64(len(b.chunk.Data))
	}
	n := 0
	for _, r := range b.recs {
		n += len(r.Data)
	}
	return int64(n)
}

// slot is a batch with its worker's result.
type slot[R any] struct {
	Batch
	out  R
	n    int   // records the worker took
	err  error // the error of the record after them, if one failed
	done chan struct{}
}

// Work decodes and evaluates the records of b with a worker's state w, writing its results to
// out (the same out comes back with later batches: reset it first). It returns the number of
// records it took and the error of the first bad record.
type Work[W, R any] func(w W, b *Batch, out *R) (records int, err error)

// Merge takes a batch's results in file order. err is the batch's error, if it has one: its
// first bad record's, a problem of its file, or the file holding no record at all. out is
// nil for a batch that held no records for a worker (the end of a file). Merge
// returns the error the run stops with (err itself, or one found first in order, such as a
// duplicate among the results read before the bad record). The results in out are reused once
// Merge returns: keep copies.
type Merge[R any] func(b *Batch, out *R, err error) error

// Run reads files in order and passes every batch through work on one of o.Workers
// goroutines, each with the state newWorker made for it, then through merge in file order on
// the calling goroutine. It stops at the first error merge returns, or when ctx is done (with
// ctx's error).
func Run[W, R any](ctx context.Context, files []string, o Options, newWorker func() W, work Work[W, R], merge Merge[R]) error {
	o = o.withDefaults()
	inFlight := o.InFlightPerWorker * o.Workers
	free := make(chan *slot[R], inFlight)
	for range inFlight {
		free <- &slot[R]{done: make(chan struct{}, 1)}
	}
	order := make(chan *slot[R], inFlight) // batches in reading order, to the merger
	todo := make(chan *slot[R], inFlight)  // batches with records, to the workers
	quit := make(chan struct{})            // closed when the merger stops early
	var wg sync.WaitGroup
	defer func() {
		close(quit)
		wg.Wait()
	}()

	r := reader[R]{o: o, free: free, order: order, todo: todo, quit: quit, total: totalSize(files)}
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(order)
		defer close(todo)
		r.files(files)
	}()
	for range o.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := newWorker()
			for s := range todo {
				s.n, s.err = work(w, &s.Batch, &s.out)
				s.done <- struct{}{}
			}
		}()
	}

	inFile := 0 // records of the current file so far
	for s := range order {
		if !s.empty() {
			<-s.done
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		inFile += s.n
		err := s.err
		switch {
		case err != nil:
		case s.Batch.err != nil:
			err = s.Batch.err
		case s.eof && inFile == 0:
			err = &input.Error{File: s.File, Msg: input.NoRecords}
		}
		var out *R // nil for a batch no worker saw, such as a file's end
		if !s.empty() {
			out = &s.out
		}
		if merr := merge(&s.Batch, out, err); merr != nil || err != nil {
			// a bad batch stops the run whatever merge says: nothing after it was read whole
			if merr != nil {
				return merr
			}
			return err
		}
		if s.eof {
			inFile = 0
		}
		free <- s
	}
	return nil
}

// Estimate returns the room to make in a list of results when need of them do not fit: as
// many as the input holds at the rate seen so far (need results in the first seen of total
// bytes), and a little more, so that a long list is seldom copied and never twice its size.
func Estimate(need int, seen, total int64) int {
	est := need + need/4
	if seen > 0 && total > seen {
		est = max(est, int(float64(need)*float64(total)/float64(seen)*1.02)+16)
	}
	return est
}

// Grow returns list with room for at least need elements, making it as large as Estimate says
// when it must grow. It makes a new list rather than calling slices.Grow: growing a slice of a
// type without pointers clears the new room in one call that cannot be preempted, and while a
// list of millions of elements was cleared (page faults and all) the garbage collector, trying
// to stop that goroutine, spun and signalled for hundreds of milliseconds (40% of the CPU time
// of `gate --pairs` on two million pairs). Memory from make is cleared in preemptible pieces, or
// not at all when it is fresh from the OS.
func Grow[T any](list []T, need int, seen, total int64) []T {
	if need <= cap(list) {
		return list
	}
	grown := make([]T, len(list), Estimate(need, seen, total))
	copy(grown, list)
	return grown
}

// totalSize returns the size of the files together, as far as it is known.
func totalSize(files []string) int64 {
	var n int64
	for _, f := range files {
		if st, err := os.Stat(f); err == nil {
			n += st.Size()
		}
	}
	return n
}

// reader cuts the files into batches taken from free, and sends each one to order and, when
// it holds records, to todo. It stops after a file's error, or when quit is closed.
type reader[R any] struct {
	o           Options
	free        <-chan *slot[R]
	order, todo chan<- *slot[R]
	quit        <-chan struct{}
	total, seen int64
	prevFile    string
	prevLine    int
}

// get returns a free batch for file, reset, or nil when the run is over.
func (r *reader[R]) get(file string) *slot[R] {
	select {
	case s := <-r.free:
		s.Batch = Batch{File: file, PrevFile: r.prevFile, PrevLine: r.prevLine, Total: r.total, buf: s.buf, recs: s.recs[:0]}
		s.n, s.err = 0, nil
		return s
	case <-r.quit:
		return nil
	}
}

// send passes s on, or reports false when the run is over.
func (r *reader[R]) send(s *slot[R]) bool {
	r.seen += s.size()
	s.Seen = r.seen
	select {
	case r.order <- s:
	case <-r.quit:
		return false
	}
	if s.empty() {
		return true
	}
	select {
	case r.todo <- s:
		return true
	case <-r.quit:
		return false
	}
}

func (r *reader[R]) files(files []string) {
	for _, file := range files {
		s := r.get(file)
		if s == nil {
			return
		}
		f, err := input.Open(file)
		if err != nil {
			s.Batch.err = err
			r.send(s)
			return
		}
		if f.Layout() == input.Lines {
			s, err = r.chunks(file, f, s)
		} else {
			s, err = r.records(file, f, s)
		}
		f.Close()
		if s == nil {
			return
		}
		s.Batch.err, s.eof = err, true
		if !r.send(s) || err != nil {
			return
		}
		r.prevFile, r.prevLine = "", 0
	}
}

// chunks sends the chunks of a JSON Lines file and returns an empty batch for the end.
func (r *reader[R]) chunks(file string, f io.Reader, s *slot[R]) (*slot[R], error) {
	cr := input.NewChunkReader(file, f)
	for {
		if cap(s.buf) < r.o.BatchBytes {
			s.buf = make([]byte, 0, r.o.BatchBytes)
		}
		c, err := cr.Next(s.buf)
		if err == io.EOF {
			return s, nil
		}
		if err != nil {
			return s, err
		}
		s.chunk, s.buf = c, c.Data[:0]
		if !r.send(s) {
			return nil, nil
		}
		if s = r.get(file); s == nil {
			return nil, nil
		}
	}
}

// records sends the records of a JSON file (one record or an array of them) in batches and
// returns the last, unsent batch.
func (r *reader[R]) records(file string, f io.Reader, s *slot[R]) (*slot[R], error) {
	stopped := false
	err := input.EachReader(file, f, func(rec input.Record) error {
		if len(s.recs) == r.o.BatchRecords || len(s.buf) >= r.o.BatchBytes {
			if !r.send(s) {
				stopped = true
				return errStopped
			}
			if s = r.get(file); s == nil {
				stopped = true
				return errStopped
			}
		}
		if len(s.recs) == 0 {
			s.buf = s.buf[:0]
		}
		start := len(s.buf)
		s.buf = append(s.buf, rec.Data...)
		rec.Data = s.buf[start:len(s.buf):len(s.buf)]
		s.recs = append(s.recs, rec)
		r.prevFile, r.prevLine = rec.File, rec.Line
		return nil
	})
	if stopped {
		return nil, nil
	}
	// err is the file's own problem (a syntax error, or no records at all): it goes after the
	// records read before it
	if len(s.recs) > 0 {
		if !r.send(s) {
			return nil, nil
		}
		if s = r.get(file); s == nil {
			return nil, nil
		}
	}
	return s, err
}

type stopError struct{}

func (stopError) Error() string { return "stopped" }

var errStopped error = stopError{}
