package gate_test

import (
	"bytes"
	"context"
	"fmt"
	"log"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/internal/jsonreport"
)

// Run evaluates the files, holds the results against the gates and decides the verdict and
// the exit code, as `agentgate gate` does before it writes any report.
func ExampleRun() {
	in := gate.Inputs{
		Traces: []string{"../fixtures/fail/traces.jsonl"},
		Tasks:  []string{"../fixtures/fail/tasks.json"},
		Pairs:  []string{"../fixtures/fail/pairs.jsonl"},
	}
	res, err := gate.Run(context.Background(), in, gate.Options{Thresholds: gate.DefaultThresholds()})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Verdict, "exit", res.ExitCode)
	for _, g := range res.Gates {
		fmt.Printf("%s %.4f %s %g passed=%v\n", g.Name, g.Value, g.Op, g.Threshold, g.Passed)
	}
	// Output:
	// FAIL exit 2
	// coherence-min 0.4612 >= 0.5 passed=false
	// pa-min 0.8200 >= 0.9 passed=false
	// kappa-min 0.7208 >= 0.75 passed=false
	// abstain-max 0.0400 <= 0.02 passed=false
	// max-failed-traces 2.0000 <= 0 passed=false
}

// A run compared with a baseline: here the JSON report of the same files, which must
// change nothing: no new failure, nothing fixed, p = 1 and no regression (three traces are
// fewer than the ten a test needs to conclude, so the outcome is inconclusive).
func ExampleRun_baseline() {
	in := gate.Inputs{Traces: []string{"../fixtures/fail/traces.jsonl"}}
	o := gate.Options{Thresholds: gate.DefaultThresholds()}
	first, err := gate.Run(context.Background(), in, o)
	if err != nil {
		log.Fatal(err)
	}
	var buf bytes.Buffer
	if err := jsonreport.Write(&buf, first); err != nil {
		log.Fatal(err)
	}
	base, err := jsonreport.ReadBaseline(&buf, "report.json")
	if err != nil {
		log.Fatal(err)
	}
	o.Baseline = &gate.Baseline{Report: base}
	res, err := gate.Run(context.Background(), in, o)
	if err != nil {
		log.Fatal(err)
	}
	rel := res.Comparison.Reliability
	fmt.Println("new failures", rel.NewFailures, "fixed", rel.Fixed, "p", rel.P, rel.Outcome)
	fmt.Println("regressions", res.Comparison.Degraded())
	// Output:
	// new failures 0 fixed 0 p 1 inconclusive
	// regressions []
}
