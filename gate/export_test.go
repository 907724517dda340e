package gate

import (
	"context"

	"github.com/agentgate/agentgate/gate/profile"
)

// DecodeOnly runs the reliability pipeline over files without evaluating the traces, and
// returns the number of records: what merely decoding the records costs.
func DecodeOnly(files []string, workers int) (int, error) {
	sum, err := runReliabilityParallel(context.Background(), files, Options{Profile: profile.Default}, workers, true)
	if err != nil {
		return 0, err
	}
	return sum.Total, nil
}

// DefaultWorkersForTest is the number of workers Run uses when the options do not say.
func DefaultWorkersForTest() int { return defaultWorkers() }

// Sequential returns o set to read and evaluate every input one record at a time in the calling
// goroutine, the plain reading the pipeline must match.
func Sequential(o Options) Options {
	o.sequential = true
	return o
}
