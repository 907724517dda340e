package gate_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/test/gensuite"
)

// rewardedSuite writes the suite's traces again with a tau-bench reward in front of every
// record (1.0, or 0.0 for every third), and an outcomes file naming every trace: what reading
// outcomes costs is measured against the same traces without them.
func rewardedSuite(b *testing.B, s *gensuite.Suite) (traces []string, outcomes string) {
	b.Helper()
	dir := b.TempDir()
	outcomes = filepath.Join(dir, "outcomes.jsonl")
	var ob bytes.Buffer
	n := 0
	for i, f := range s.Traces {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		var out bytes.Buffer
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<30)
		for sc.Scan() {
			line := sc.Bytes()
			if len(line) == 0 || line[0] != '{' {
				b.Fatalf("%s: a record that is not one line", f)
			}
			reward := "1.0"
			if n%3 == 2 {
				reward = "0.0"
			}
			fmt.Fprintf(&out, "{\"reward\": %s, %s\n", reward, line[1:])
			fmt.Fprintf(&ob, "{\"id\": \"run-%07d\", \"success\": %v}\n", n, n%2 == 0)
			n++
		}
		p := filepath.Join(dir, fmt.Sprintf("rewarded-%03d.jsonl", i))
		if err := os.WriteFile(p, out.Bytes(), 0o644); err != nil {
			b.Fatal(err)
		}
		traces = append(traces, p)
	}
	if err := os.WriteFile(outcomes, ob.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	return traces, outcomes
}

// BenchmarkGateOutcomes measures the gate over the suite without outcomes, with a reward in
// every record, and with an outcomes file naming every trace: the ratio of their MB/cpu-s is
// what reading outcomes costs (docs/design.md#outcomes asks under 5%).
func BenchmarkGateOutcomes(b *testing.B) {
	s := benchSuite(b)
	rewarded, outcomes := rewardedSuite(b, s)
	for _, c := range []struct {
		name string
		in   gate.Inputs
	}{
		{"none", gate.Inputs{Traces: s.Traces}},
		{"rewards", gate.Inputs{Traces: rewarded}},
		{"outcomes-file", gate.Inputs{Traces: s.Traces, Outcomes: []string{outcomes}}},
	} {
		b.Run(c.name, func(b *testing.B) {
			o := gate.Options{Thresholds: gate.DefaultThresholds()}
			measure(b, s, func() int {
				res, err := gate.Run(context.Background(), c.in, o)
				if err != nil {
					b.Fatal(err)
				}
				if (res.Outcomes != nil) != (c.name != "none") || (res.Outcomes != nil && res.Outcomes.Known != s.TraceRecords) {
					b.Fatalf("outcomes %+v", res.Outcomes)
				}
				return res.Reliability.Total
			})
		})
	}
}
