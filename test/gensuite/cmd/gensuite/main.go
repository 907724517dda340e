// Command gensuite writes a large, deterministic eval suite for agentgate's benchmarks:
//
//	go run ./test/gensuite/cmd/gensuite -out DIR -traces-mb 100 -seed 1
//
// writes DIR/traces-000.jsonl (RS-1 traces, about 7 KB and 20 messages each), and with
// -tasks N and -pairs N also DIR/tasks.jsonl and DIR/pairs.jsonl. -runs N writes N traces
// instead of -traces-mb of them (-runs 1000000 -messages 3: a million short runs, 555 MB);
// -files N splits them into N files. The same flags always give the same bytes.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/agentgate/agentgate/test/gensuite"
)

func main() {
	out := flag.String("out", "", "directory to write the suite into (created if missing)")
	mb := flag.Float64("traces-mb", 100, "megabytes (10^6 bytes) of traces to write; 0 for none")
	runs := flag.Int("runs", 0, "number of traces to write instead of -traces-mb (a million short runs: -runs 1000000 -messages 3)")
	files := flag.Int("files", 1, "number of .jsonl files to split the traces into")
	messages := flag.Int("messages", 20, "messages of every trace (300000 makes one trace of about 120 MB)")
	content := flag.Int("content", 130, "about how many bytes of text a message holds (RS-1's own sample traces: -messages 17 -content 40)")
	tasks := flag.Int("tasks", 0, "number of coherence tasks to write")
	pairs := flag.Int("pairs", 0, "number of merged validator pairs to write")
	seed := flag.Uint64("seed", 1, "seed of the pseudo-random generator")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: gensuite -out DIR [-traces-mb 100 | -runs N] [-files 1] [-messages 20] [-content 130] [-tasks N] [-pairs N] [-seed 1]")
		os.Exit(2)
	}
	s, err := gensuite.Write(*out, gensuite.Config{Seed: *seed, TraceBytes: int64(*mb * 1e6), TraceRecords: *runs, TraceFiles: *files, Messages: *messages, ContentBytes: *content, Tasks: *tasks, Pairs: *pairs})
	if err != nil {
		fmt.Fprintln(os.Stderr, "gensuite:", err)
		os.Exit(1)
	}
	for _, f := range s.Traces {
		fmt.Println(f)
	}
	if s.TraceRecords > 0 {
		fmt.Printf("%d traces, %d bytes\n", s.TraceRecords, s.TraceBytes)
	}
	for _, f := range []string{s.Tasks, s.Pairs} {
		if f != "" {
			fmt.Println(f)
		}
	}
}
