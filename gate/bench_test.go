package gate_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sync"
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/agreement"
	"github.com/agentgate/agentgate/gate/coherence"
	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/trace"
	"github.com/agentgate/agentgate/internal/cputime"
	"github.com/agentgate/agentgate/internal/jsonreport"
	"github.com/agentgate/agentgate/test/gensuite"
)

// The benchmarks read a generated suite of RS-1 traces (test/gensuite: about 7.8 KB and 20
// messages a trace, contents of about 130 bytes) of -suite-mb megabytes, written once per run
// into a temporary directory and read from the page cache:
//
//	go test -run '^$' -bench . -count 5 ./gate
//	go test -run '^$' -bench Gate/run -count 5 ./gate -args -suite-mb 1000
//
// RS-1's own ExecutionTrace shape is -suite-messages 17 -suite-content 40.
var (
	suiteMB       = flag.Float64("suite-mb", 100, "megabytes of generated traces the benchmarks read")
	suiteMessages = flag.Int("suite-messages", 0, "messages a generated trace holds (0: gensuite's 20)")
	suiteContent  = flag.Int("suite-content", 0, "about how many bytes of text a generated message holds (0: gensuite's 130)")
	suiteFiles    = flag.Int("suite-files", 1, "number of files the generated traces are split into")
	suiteTasks    = flag.Int("suite-tasks", 50000, "number of generated coherence tasks")
	suitePairs    = flag.Int("suite-pairs", 200000, "number of generated validator pairs")
)

var (
	suiteOnce sync.Once
	suite     *gensuite.Suite
	suiteErr  error
	suiteDir  string
)

// benchSuite generates the suite on first use.
func benchSuite(b *testing.B) *gensuite.Suite {
	b.Helper()
	suiteOnce.Do(func() {
		suiteDir, suiteErr = os.MkdirTemp("", "agentgate-bench-")
		if suiteErr == nil {
			suite, suiteErr = gensuite.Write(suiteDir, gensuite.Config{Seed: 1, TraceBytes: int64(*suiteMB * 1e6), TraceFiles: *suiteFiles,
				Messages: *suiteMessages, ContentBytes: *suiteContent,
				Tasks: *suiteTasks, Pairs: *suitePairs})
		}
	})
	if suiteErr != nil {
		b.Fatal(suiteErr)
	}
	return suite
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if suiteDir != "" {
		os.RemoveAll(suiteDir)
	}
	os.Exit(code)
}

// measure runs op b.N times over the suite and reports MB/s (b.SetBytes), records/s,
// allocations and MB per CPU second (user and system time of all threads, the garbage
// collector's included: steadier than MB/s on a shared machine, where the wall clock also
// counts other processes).
func measure(b *testing.B, s *gensuite.Suite, op func() int) {
	b.SetBytes(s.TraceBytes)
	b.ReportAllocs()
	cpu0, _ := cputime.Process()
	records := 0
	for b.Loop() {
		records += op()
	}
	if records != s.TraceRecords*b.N {
		b.Fatalf("%d records, want %d", records, s.TraceRecords*b.N)
	}
	b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
	if cpu1, ok := cputime.Process(); ok && cpu1 > cpu0 {
		b.ReportMetric(float64(s.TraceBytes)*float64(b.N)/1e6/(cpu1-cpu0).Seconds(), "MB/cpu-s")
	}
}

// BenchmarkGate measures the gate end to end over the trace suite: reading, decoding,
// evaluating, the duplicate-id check and the verdict (run), and the same followed by writing
// the JSON report (run+json), with one worker per CPU or one in all, and the plain sequential
// reading the pipeline is tested against.
func BenchmarkGate(b *testing.B) {
	s := benchSuite(b)
	for _, c := range []struct {
		name    string
		p       profile.Profile
		workers int
		json    bool
	}{
		{"run/default", profile.Default, 0, false},
		{"run/reference", profile.Reference, 0, false},
		{"run+json/default", profile.Default, 0, true},
		{"run-1-worker/default", profile.Default, 1, false},
		{"run-sequential/default", profile.Default, -1, false},
	} {
		b.Run(c.name, func(b *testing.B) {
			o := gate.Options{Profile: c.p, Thresholds: gate.DefaultThresholds(), Workers: c.workers}
			measure(b, s, func() int {
				res, err := gate.RunEither(context.Background(), gate.Inputs{Traces: s.Traces}, o, c.workers < 0)
				if err != nil {
					b.Fatal(err)
				}
				if c.json {
					if err := jsonreport.Write(io.Discard, res); err != nil {
						b.Fatal(err)
					}
				}
				return res.Reliability.Total
			})
		})
	}
}

// BenchmarkDecode measures merely decoding the suite's records: with the gate's pipeline
// minus the evaluation (one worker per CPU, or one), with trace.Each in one goroutine, and,
// for comparison, with encoding/json into structs of the RS-1 shape, read by the same reader.
func BenchmarkDecode(b *testing.B) {
	s := benchSuite(b)
	for _, workers := range []int{0, 1} {
		b.Run(fmt.Sprintf("pipeline/workers=%d", workers), func(b *testing.B) {
			if workers == 0 {
				workers = gate.DefaultWorkersForTest()
			}
			measure(b, s, func() int {
				n, err := gate.DecodeOnly(s.Traces, workers)
				if err != nil {
					b.Fatal(err)
				}
				return n
			})
		})
	}
	b.Run("trace.Each", func(b *testing.B) {
		measure(b, s, func() int {
			n := 0
			for _, f := range s.Traces {
				if err := trace.Each(f, func(*trace.Trace) error { n++; return nil }); err != nil {
					b.Fatal(err)
				}
			}
			return n
		})
	})
	b.Run("encoding-json", func(b *testing.B) {
		measure(b, s, func() int {
			n := 0
			for _, f := range s.Traces {
				err := input.Each(f, func(rec input.Record) error {
					var r rs1Record
					n++
					return json.Unmarshal(rec.Data, &r)
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			return n
		})
	})
}

// rs1Record is an RS-1 ExecutionTrace as encoding/json would decode it: what the trace
// reader's parser does by hand, minus the checks and the normalisation.
type rs1Record struct {
	TraceID  string `json:"trace_id"`
	Messages []struct {
		Role      string `json:"role"`
		Content   string `json:"content"`
		ToolCalls []struct {
			ToolName  string          `json:"tool_name"`
			Arguments json.RawMessage `json:"arguments"`
			CallID    string          `json:"call_id"`
			Timestamp string          `json:"timestamp"`
		} `json:"tool_calls"`
		ToolResults []struct {
			CallID    string          `json:"call_id"`
			Success   bool            `json:"success"`
			Result    json.RawMessage `json:"result"`
			Error     *string         `json:"error"`
			Timestamp string          `json:"timestamp"`
		} `json:"tool_results"`
		Timestamp string `json:"timestamp"`
	} `json:"messages"`
	TokenUsage struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
		TotalTokens      int64 `json:"total_tokens"`
	} `json:"token_usage"`
	Metadata json.RawMessage `json:"metadata"`
}

// BenchmarkSuite measures the readers and evaluators of the other two inputs on the generated
// tasks and pairs: coherence (reading the tasks, scoring them) and agreement (loading the
// merged pairs, computing the summary), and the gate over all three inputs at once.
func BenchmarkSuite(b *testing.B) {
	s := benchSuite(b)
	st, err := os.Stat(s.Tasks)
	if err != nil {
		b.Fatal(err)
	}
	var tasks []coherence.Task
	if err := coherence.Each(s.Tasks, func(t coherence.Task) error { tasks = append(tasks, t); return nil }); err != nil {
		b.Fatal(err)
	}
	b.Run("coherence/read", func(b *testing.B) {
		b.SetBytes(st.Size())
		b.ReportAllocs()
		for b.Loop() {
			n := 0
			if err := coherence.Each(s.Tasks, func(coherence.Task) error { n++; return nil }); err != nil || n != len(tasks) {
				b.Fatal(err, n)
			}
		}
		b.ReportMetric(float64(len(tasks)*b.N)/b.Elapsed().Seconds(), "tasks/s")
	})
	b.Run("coherence/score", func(b *testing.B) {
		b.SetBytes(st.Size())
		b.ReportAllocs()
		var sc coherence.Scorer
		for b.Loop() {
			for _, t := range tasks {
				sc.Score(t, profile.Default)
			}
		}
		b.ReportMetric(float64(len(tasks)*b.N)/b.Elapsed().Seconds(), "tasks/s")
	})
	for _, mode := range []string{"pipeline", "sequential"} {
		// What the gate does with the tasks: read and score them on every core, or in one
		// goroutine.
		b.Run("coherence/gate-"+mode, func(b *testing.B) {
			b.SetBytes(st.Size())
			b.ReportAllocs()
			o := gate.Options{Thresholds: gate.DefaultThresholds()}
			for b.Loop() {
				if _, err := gate.RunEither(context.Background(), gate.Inputs{Tasks: []string{s.Tasks}}, o, mode == "sequential"); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(tasks)*b.N)/b.Elapsed().Seconds(), "tasks/s")
		})
	}
	pst, err := os.Stat(s.Pairs)
	if err != nil {
		b.Fatal(err)
	}
	pairs, err := agreement.LoadMerged([]string{s.Pairs}, profile.Default)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("agreement/load", func(b *testing.B) {
		b.SetBytes(pst.Size())
		b.ReportAllocs()
		for b.Loop() {
			if p, err := agreement.LoadMerged([]string{s.Pairs}, profile.Default); err != nil || len(p) != len(pairs) {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(pairs)*b.N)/b.Elapsed().Seconds(), "pairs/s")
	})
	b.Run("agreement/compute", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			agreement.Compute(pairs, nil, profile.Default)
		}
		b.ReportMetric(float64(len(pairs)*b.N)/b.Elapsed().Seconds(), "pairs/s")
	})
	b.Run("gate/all-inputs", func(b *testing.B) {
		b.SetBytes(s.TraceBytes + st.Size() + pst.Size())
		b.ReportAllocs()
		in := gate.Inputs{Traces: s.Traces, Tasks: []string{s.Tasks}, Pairs: []string{s.Pairs}}
		for b.Loop() {
			if _, err := gate.Run(context.Background(), in, gate.Options{Thresholds: gate.DefaultThresholds()}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
