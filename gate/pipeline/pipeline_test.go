package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"weak"

	"github.com/agentgate/agentgate/gate/input"
)

// record is what the test's work makes of a record: its number and where it was.
type record struct {
	n          int
	file       string
	line, col  int
	prevFile   string
	prevLine   int
	firstOfBat bool
}

// writeNumbers writes files holding the numbers from 0 up, one per record: JSON Lines files
// of count lines each (every seventh line blank), and a JSON array file when array is true.
func writeNumbers(t *testing.T, counts []int, array bool) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	next := 0
	for i, c := range counts {
		var b strings.Builder
		for k := 0; k < c; k++ {
			if k%7 == 3 {
				b.WriteString("  \n")
			}
			fmt.Fprintf(&b, "%d\n", next)
			next++
		}
		p := filepath.Join(dir, fmt.Sprintf("f%d.jsonl", i))
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	if array {
		var parts []string
		for k := 0; k < 300; k++ {
			parts = append(parts, strconv.Itoa(next))
			next++
		}
		p := filepath.Join(dir, "g.json")
		if err := os.WriteFile(p, []byte("[\n"+strings.Join(parts, ",\n")+"\n]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// collect runs the pipeline over paths; work fails at the record numbered failAt (if >= 0).
// It returns the records merge took, in order, and Run's error.
func collect(t *testing.T, ctx context.Context, paths []string, o Options, failAt int) ([]record, error) {
	t.Helper()
	work := func(_ struct{}, b *Batch, out *[]record) (int, error) {
		*out = (*out)[:0]
		err := b.Records(func(rec input.Record) error {
			n, err := strconv.Atoi(string(rec.Data))
			if err != nil {
				return rec.Errorf("not a number")
			}
			if n == failAt {
				return rec.Errorf("record %d is bad", n)
			}
			*out = append(*out, record{n: n, file: rec.File, line: rec.Line, col: rec.Col,
				prevFile: b.PrevFile, prevLine: b.PrevLine, firstOfBat: len(*out) == 0})
			return nil
		})
		return len(*out), err
	}
	var got []record
	lastSeen := int64(0)
	merge := func(b *Batch, out *[]record, err error) error {
		if b.Seen < lastSeen || b.Total <= 0 {
			t.Errorf("progress went back or total unknown: seen %d after %d, total %d", b.Seen, lastSeen, b.Total)
		}
		lastSeen = b.Seen
		if out != nil {
			got = append(got, *out...)
		}
		return err
	}
	err := Run(ctx, paths, o, func() struct{} { return struct{}{} }, work, merge)
	return got, err
}

// TestRunOrder: every record reaches merge once, in file order, whatever the number of
// workers and the size of the batches.
func TestRunOrder(t *testing.T) {
	paths := writeNumbers(t, []int{20000, 1, 15000}, true)
	for _, o := range []Options{
		{Workers: 1}, {Workers: 2}, {Workers: 5, BatchBytes: 1, BatchRecords: 1, InFlightPerWorker: 1}, {Workers: 3, BatchRecords: 7},
	} {
		got, err := collect(t, context.Background(), paths, o, -1)
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		if len(got) != 35301 {
			t.Fatalf("%+v: %d records, want 35301", o, len(got))
		}
		for i, r := range got {
			if r.n != i {
				t.Fatalf("%+v: record %d is %d", o, i, r.n)
			}
		}
		// Lines count blank ones: record 10 of f0.jsonl has two before it, on line 13.
		if r := got[10]; filepath.Base(r.file) != "f0.jsonl" || r.line != 13 || r.col != 1 {
			t.Errorf("%+v: record 10 at %s:%d:%d", o, r.file, r.line, r.col)
		}
		// The array's records are placed too, and a batch of them knows the record before.
		if r := got[35002]; filepath.Base(r.file) != "g.json" || r.line != 3 || r.col != 1 {
			t.Errorf("%+v: record 35002 at %s:%d:%d", o, r.file, r.line, r.col)
		}
		for _, r := range got[35001:] {
			if r.firstOfBat && r.line > 2 && (r.prevFile != r.file || r.prevLine != r.line-1) {
				t.Errorf("%+v: batch at %s:%d says the record before was at %s:%d", o, r.file, r.line, r.prevFile, r.prevLine)
			}
		}
	}
}

// TestRunErrors: the run stops at the first bad record in file order, after merging every
// record before it; a file's own problems come in their place too.
func TestRunErrors(t *testing.T) {
	paths := writeNumbers(t, []int{5000, 5000}, true)
	o := Options{Workers: 3, BatchBytes: 1}
	got, err := collect(t, context.Background(), paths, o, 7000)
	if err == nil || !strings.Contains(err.Error(), "record 7000 is bad") || !strings.Contains(err.Error(), "f1.jsonl:") {
		t.Fatalf("error %v, want record 7000's", err)
	}
	if len(got) != 7000 {
		t.Fatalf("merged %d records before the error, want 7000", len(got))
	}

	// An empty file, a missing one, a broken array: each is reported after the records before.
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.jsonl")
	broken := filepath.Join(dir, "broken.json")
	for path, text := range map[string]string{empty: "\n \n", broken: "[1, 2,\n 3,, 4]"} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		files []string
		want  string
		n     int
	}{
		{[]string{paths[0], empty, paths[1]}, "empty.jsonl: no records: the file is empty", 5000},
		{[]string{paths[0], filepath.Join(dir, "missing.jsonl")}, "missing.jsonl: cannot open", 5000},
		{[]string{paths[0], broken}, "broken.json:2:4: invalid JSON", 5003},
	} {
		got, err := collect(t, context.Background(), c.files, o, -1)
		if err == nil || !strings.Contains(err.Error(), c.want) || !input.IsInputError(err) {
			t.Errorf("error %v, want one with %q", err, c.want)
		}
		if len(got) != c.n {
			t.Errorf("%q: merged %d records, want %d", c.want, len(got), c.n)
		}
	}
}

// TestRunMergeStops: an error from merge stops the run at once, and is what Run returns.
func TestRunMergeStops(t *testing.T) {
	paths := writeNumbers(t, []int{30000}, false)
	stop := errors.New("stop")
	batches := 0
	work := func(_ struct{}, b *Batch, out *int) (int, error) {
		n := 0
		err := b.Records(func(input.Record) error { n++; return nil })
		*out = n
		return n, err
	}
	merge := func(_ *Batch, _ *int, _ error) error {
		batches++
		if batches == 2 {
			return stop
		}
		return nil
	}
	err := Run(context.Background(), paths, Options{Workers: 2, BatchBytes: 1}, func() struct{} { return struct{}{} }, work, merge)
	if err != stop || batches != 2 {
		t.Fatalf("Run returned %v after %d batches, want %v after 2", err, batches, stop)
	}
}

// TestRunCancel: a cancelled context stops the run with its error.
func TestRunCancel(t *testing.T) {
	paths := writeNumbers(t, []int{1000}, false)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := collect(t, ctx, paths, Options{Workers: 2}, -1); err != context.Canceled {
		t.Fatalf("got %v, want %v", err, context.Canceled)
	}
}

// TestEstimate: room for the whole input at the rate seen, and never less than need.
func TestEstimate(t *testing.T) {
	for _, c := range []struct {
		need        int
		seen, total int64
		want        int
	}{
		{100, 1000, 10000, 1036},         // 100 per 1000 bytes: 1000 in all, 2% more, 16 spare
		{100, 10000, 10000, 125},         // all read: a quarter more
		{100, 0, 0, 125},                 // nothing known
		{1000, 100, 50, 1250},            // the files grew while read
		{0, 1 << 20, 1 << 30, 16},        // no result yet
		{10, 1 << 20, 1 << 40, 10695491}, // a huge input
	} {
		if got := Estimate(c.need, c.seen, c.total); got != c.want {
			t.Errorf("Estimate(%d, %d, %d) = %d, want %d", c.need, c.seen, c.total, got, c.want)
		}
	}
}

func TestGrow(t *testing.T) {
	list := make([]uint64, 3, 4)
	copy(list, []uint64{7, 8, 9})
	if got := Grow(list, 4, 10, 100); &got[0] != &list[0] || cap(got) != 4 {
		t.Errorf("Grow with room made a new list")
	}
	got := Grow(list, 5, 1000, 10000) // 5 per 1000 bytes: 50 in all, 2% more, 16 spare
	if len(got) != 3 || cap(got) != 67 || got[0] != 7 || got[1] != 8 || got[2] != 9 {
		t.Errorf("Grow = %v, cap %d; want [7 8 9], cap 67", got, cap(got))
	}
	if got := Grow([]string(nil), 1, 0, 0); len(got) != 0 || cap(got) != 1 {
		t.Errorf("Grow(nil) = %v, cap %d", got, cap(got))
	}
}

// TestReleaseHugeRecord: a worker done with a huge record lets its memory go with Release
// before it evaluates it, though the line after the record was read with it, or the record
// before it (an element of a JSON array) was copied into the same batch; the records after it
// are still delivered, and the batch still reaches merge with its results.
func TestReleaseHugeRecord(t *testing.T) {
	huge := `"` + strings.Repeat("x", input.HugeRecord) + `"`
	for _, f := range []struct{ name, text string }{
		{"huge.jsonl", "1\n" + huge + "\n2\n3\n"},
		{"huge.json", "[1,\n" + huge + ",\n2,\n3]\n"},
	} {
		name := f.name
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, []byte(f.text), 0o644); err != nil {
			t.Fatal(err)
		}
		type result struct {
			line  int
			size  int
			freed bool // the huge record's memory was collected after Release
		}
		work := func(_ struct{}, b *Batch, out *[]result) (int, error) {
			*out = (*out)[:0]
			err := b.Records(func(rec input.Record) error {
				r := result{line: rec.Line, size: len(rec.Data)}
				if len(rec.Data) >= input.HugeRecord {
					data := weak.Make(&rec.Data[0])
					b.Release()
					runtime.GC()
					r.freed = data.Value() == nil
				}
				*out = append(*out, r)
				return nil
			})
			return len(*out), err
		}
		var got []result
		merge := func(_ *Batch, out *[]result, err error) error {
			if out != nil {
				got = append(got, *out...)
			}
			return err
		}
		if err := Run(context.Background(), []string{path}, Options{Workers: 1}, func() struct{} { return struct{}{} }, work, merge); err != nil {
			t.Fatal(err)
		}
		want := []result{{1, 1, false}, {2, len(huge), true}, {3, 1, false}, {4, 1, false}}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: got %v, want %v", name, got, want)
		}
	}
}
