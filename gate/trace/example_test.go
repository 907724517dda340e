package trace_test

import (
	"context"
	"fmt"
	"log"

	"github.com/agentgate/agentgate/gate/trace"
)

// A file is recognised once, by its content, and read with its harness's reader: every
// trace arrives in one model, whichever harness wrote it.
func ExampleRead() {
	f, why, err := trace.RecogniseFile("../../fixtures/pass/traces.jsonl", "")
	if err != nil || why != "" {
		log.Fatal(err, why)
	}
	fmt.Println("format:", f.Format)
	err = trace.Read(context.Background(), f, trace.Options{}, func(t *trace.Trace) error {
		calls := 0
		for _, m := range t.Messages {
			calls += len(m.Calls)
		}
		fmt.Printf("%s (line %d): %d messages, %d tool calls, %d tokens\n", t.ID, t.Line, len(t.Messages), calls, t.Usage.Total)
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// format: trace records
	// refund-lookup-001 (line 1): 6 messages, 2 tool calls, 2042 tokens
	// weather-brief-002 (line 2): 5 messages, 1 tool calls, 1100 tokens
	// docs-summary-003 (line 3): 2 messages, 0 tool calls, 2160 tokens
	// oa-invoice-004 (line 4): 5 messages, 1 tool calls, 698 tokens
	// an-repo-search-005 (line 5): 4 messages, 1 tool calls, 1305 tokens
}
