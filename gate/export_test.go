package gate

import (
	"context"
	"fmt"

	"github.com/agentgate/agentgate/gate/agreement"
	"github.com/agentgate/agentgate/gate/coherence"
	"github.com/agentgate/agentgate/gate/input"
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

// RunSequential is Run with every input read and evaluated one record at a time in the calling
// goroutine, each file by its format's own reader: the plain reading that the pipeline must
// match, kept only here, as the tests' oracle (docs/development.md#one-evaluation-loop).
func RunSequential(ctx context.Context, in Inputs, o Options) (*Result, error) {
	return run(ctx, in, o, (*Result).evaluateSequential)
}

// RunEither is RunSequential when sequential is true, else Run.
func RunEither(ctx context.Context, in Inputs, o Options, sequential bool) (*Result, error) {
	if sequential {
		return RunSequential(ctx, in, o)
	}
	return Run(ctx, in, o)
}

// evaluateSequential is evaluate without the pipeline.
func (r *Result) evaluateSequential(ctx context.Context, in Inputs, o Options) error {
	if len(in.Traces) > 0 {
		plan, err := planTraces(in.Traces)
		if err != nil {
			return err
		}
		k, ev := newTraceKeeper(), o.evaluator()
		for i := range plan.files {
			if err := plan.eachWholeFile(ctx, i, o, k, ev); err != nil {
				return err
			}
		}
		notes, err := plan.conclude(k.sum, o)
		if err != nil {
			return err
		}
		r.Reliability, r.Notes = k.sum, append(r.Notes, notes...)
	}
	if len(in.Tasks) > 0 {
		files, err := input.Expand(in.Tasks)
		if err != nil {
			return fmt.Errorf("tasks: %w", err)
		}
		k := newTaskKeeper()
		for _, f := range files {
			err := coherence.Each(f, func(t coherence.Task) error {
				if err := ctx.Err(); err != nil {
					return err
				}
				return k.add(coherence.Score(t, o.Profile))
			})
			if err != nil {
				return err
			}
		}
		r.Coherence = k.sum
	}
	switch {
	case len(in.Pairs) > 0:
		files, err := input.Expand(in.Pairs)
		if err != nil {
			return fmt.Errorf("pairs: %w", err)
		}
		pairs, err := agreement.LoadMerged(files, o.Profile)
		if err != nil {
			return err
		}
		s := agreement.Compute(pairs, nil, o.Profile)
		s.Files = agreement.FilesOf(pairs)
		r.Agreement = &s
	case len(in.Scholar) > 0:
		var err error
		if r.Agreement, err = runAgreement(ctx, in, o); err != nil { // one way only: joined by qid
			return err
		}
	}
	return nil
}
