package gate

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentgate/agentgate/gate/agreement"
	"github.com/agentgate/agentgate/gate/coherence"
	"github.com/agentgate/agentgate/gate/compare"
	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/gate/pipeline"
	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/trace"
)

// Inputs names the files to evaluate, as glob patterns relative to the working directory.
// Only the evaluators whose inputs are given run.
type Inputs struct {
	Traces  []string `json:"traces,omitempty"`  // reliability
	Tasks   []string `json:"tasks,omitempty"`   // coherence
	Pairs   []string `json:"pairs,omitempty"`   // agreement, merged pairs
	Scholar []string `json:"scholar,omitempty"` // agreement, two files joined by qid
	Auditor []string `json:"auditor,omitempty"`
	// Outcomes are the runs' outcomes kept apart from the traces (docs/design.md#outcomes), matched by
	// trace id and overriding a record's own.
	Outcomes []string `json:"outcomes,omitempty"`
}

// Options are the settings of one gate run.
type Options struct {
	Profile        profile.Profile
	Thresholds     Thresholds
	FailOn         FailOn
	AllowUnmatched bool // evaluate the qids both validators labelled instead of failing
	// Source names the run the report comes from (docs/design.md#comparison).
	Source Source
	// Baseline is what the run is compared with; nil when no baseline was asked for.
	Baseline *Baseline
	// Compare tunes the comparison; the zero value means compare.DefaultOptions.
	Compare compare.Options
	// Workers is how many goroutines decode and evaluate traces, tasks and validator pairs,
	// besides the one that reads them; 0 means one per CPU (GOMAXPROCS). The result is the
	// same whatever the number.
	Workers int
	// OutcomeScorer names the Inspect scorer whose score is a sample's outcome (docs/design.md#outcomes);
	// empty means the first scorer of each sample.
	OutcomeScorer string
	// OutcomeField is the member of a trace record (a dotted path) that holds the run's own
	// success, read before the members docs/design.md#outcomes names (docs/design.md#harness-folders); empty means none.
	OutcomeField string
	// TokenBudget is the tokens a run may spend before its cost signal reads 1
	// (reliability.Evaluator.TokenBudget); 0 means reliability.DefaultTokenBudget, RS-1's,
	// the only budget the reference profile takes.
	TokenBudget int64
	// Secrets are replaced by *** in every trace before it is evaluated (trace.Trace.Redact),
	// so that no evidence cut short can keep a prefix of one (docs/design.md#trust-boundaries): the github-token and
	// the config file's token-shaped values.
	Secrets []string

	// sequential reads and evaluates every input in the calling goroutine, one record at a
	// time: the plain reading that the tests hold the pipeline to.
	sequential bool
}

// UsageError is a configuration mistake (exit code 3), as opposed to bad input files.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Validate checks that the inputs name something to evaluate and make sense together.
func (in Inputs) Validate() error {
	switch {
	case len(in.Pairs) > 0 && (len(in.Scholar) > 0 || len(in.Auditor) > 0):
		return &UsageError{"give either pairs (one merged file) or scholar and auditor (two files), not both"}
	case len(in.Scholar) > 0 && len(in.Auditor) == 0:
		return &UsageError{"scholar was given without auditor: the two label files are joined by qid, give both"}
	case len(in.Auditor) > 0 && len(in.Scholar) == 0:
		return &UsageError{"auditor was given without scholar: the two label files are joined by qid, give both"}
	case len(in.Traces) == 0 && len(in.Tasks) == 0 && len(in.Pairs) == 0 && len(in.Scholar) == 0:
		return &UsageError{"nothing to evaluate: give at least one of traces, tasks, pairs, or scholar and auditor"}
	case len(in.Outcomes) > 0 && len(in.Traces) == 0:
		return &UsageError{"outcomes were given without traces: outcomes are matched to traces by id, give the traces too"}
	}
	return nil
}

// Run evaluates the inputs and decides the verdict. An error means the run could not be
// evaluated (exit code 3): a usage mistake, bad input (an *input.Error naming file:line) or
// an I/O failure.
func Run(ctx context.Context, in Inputs, o Options) (*Result, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	if err := o.prepare(); err != nil {
		return nil, err
	}
	res := &Result{Profile: o.Profile, TokenBudget: recordedBudget(o.TokenBudget), Source: o.Source}
	if err := res.evaluate(ctx, in, o); err != nil {
		return nil, err
	}
	res.identify()
	if err := res.readOutcomes(ctx, in.Outcomes); err != nil {
		return nil, err
	}
	if err := res.conclude(o); err != nil {
		return nil, err
	}
	return res, nil
}

// prepare checks the options and fills in the defaults of those left zero.
func (o *Options) prepare() error {
	if err := o.Thresholds.Validate(); err != nil {
		return &UsageError{err.Error()}
	}
	if o.Profile == "" {
		o.Profile = profile.Default
	}
	if problem := trace.CheckOutcomeField(o.OutcomeField); problem != "" {
		return &UsageError{"outcome-field: " + problem}
	}
	if o.TokenBudget == 0 {
		o.TokenBudget = reliability.DefaultTokenBudget
	}
	if err := CheckTokenBudget(o.TokenBudget, o.Profile); err != nil {
		return &UsageError{err.Error()}
	}
	if o.Compare == (compare.Options{}) {
		o.Compare = compare.DefaultOptions()
	}
	if err := o.Compare.Validate(); err != nil {
		return &UsageError{err.Error()}
	}
	return nil
}

// evaluate runs the evaluators whose inputs are given, each into its section of r.
func (r *Result) evaluate(ctx context.Context, in Inputs, o Options) error {
	var err error
	if len(in.Traces) > 0 {
		var notes []string
		if r.Reliability, notes, err = runReliability(ctx, in.Traces, o); err != nil {
			return err
		}
		r.Notes = append(r.Notes, notes...)
	}
	if len(in.Tasks) > 0 {
		if r.Coherence, err = runCoherence(ctx, in.Tasks, o); err != nil {
			return err
		}
	}
	if len(in.Pairs) > 0 || len(in.Scholar) > 0 {
		if r.Agreement, err = runAgreement(ctx, in, o); err != nil {
			return err
		}
	}
	return nil
}

// conclude computes pass^k and the comparison from r's sections, then decides the verdict.
func (r *Result) conclude(o Options) error {
	r.summarizeOutcomes(o.Thresholds.SuccessThreshold)
	headTrials := trials(r.Reliability)
	r.PassK = compare.PassKOf(headTrials)
	if o.Baseline != nil {
		if err := r.compareWith(o.Baseline, headTrials, o.Compare); err != nil {
			return err
		}
	}
	r.extendHistory(o.Baseline)
	r.Decide(o.Thresholds, o.FailOn)
	return nil
}

func runReliability(ctx context.Context, patterns []string, o Options) (*reliability.Summary, []string, error) {
	plan, err := planTraces(patterns)
	if err != nil {
		return nil, nil, err
	}
	var sum *reliability.Summary
	if o.sequential {
		sum, err = runReliabilitySequential(ctx, plan, o)
	} else {
		sum, err = runReliabilityPlanned(ctx, plan, o)
	}
	if err != nil {
		return nil, nil, err
	}
	if err := plan.stats.blind(); err != nil {
		return nil, nil, err
	}
	sum.RelateCost(o.Profile) // each run's tokens against its suite's, once all are read
	notes := readNotes(plan, sum)
	if o.OutcomeField != "" && plan.stats.fieldHits == 0 && sum.Total > 0 {
		notes = append(notes, fmt.Sprintf("outcome-field %s: no trace has this member (as a boolean or a number), so no outcome was read from it", input.Quote(o.OutcomeField)))
	}
	return sum, notes, nil
}

// runReliabilityPlanned reads the planned trace files: files of trace records through the
// pipeline, the others (OTLP, Inspect, tau2 results) whole, in file order.
func runReliabilityPlanned(ctx context.Context, plan *tracePlan, o Options) (*reliability.Summary, error) {
	workers := o.Workers
	if workers <= 0 {
		workers = defaultWorkers()
	}
	files := plan.files
	mixed := false
	for _, f := range files {
		mixed = mixed || f.Format != trace.FormatRecords
	}
	sum := &reliability.Summary{Traces: []reliability.Result{}}
	ids := input.NewIDs("trace")
	if !mixed {
		if err := reliabilityPipeline(ctx, paths(files), o, workers, false, sum, ids, &plan.stats); err != nil {
			return nil, err
		}
		return sum, nil
	}
	// OTLP files and Inspect logs are read whole, one after another in this goroutine; the
	// runs of record files between them go through the pipeline. The results stay in file
	// order, as the sequential reading gives them.
	ev := o.evaluator()
	for i := 0; i < len(files); {
		if files[i].Format == trace.FormatRecords {
			j := i
			for j < len(files) && files[j].Format == trace.FormatRecords {
				j++
			}
			if err := reliabilityPipeline(ctx, paths(files[i:j]), o, workers, false, sum, ids, &plan.stats); err != nil {
				return nil, err
			}
			i = j
			continue
		}
		if err := plan.eachWholeFile(ctx, i, o, sum, ids, ev); err != nil {
			return nil, err
		}
		i++
	}
	return sum, nil
}

// paths are the paths of files.
func paths(files []trace.File) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.Path
	}
	return out
}

// evaluator is a new reliability evaluator of the run's profile and token budget.
func (o Options) evaluator() *reliability.Evaluator {
	return &reliability.Evaluator{Profile: o.Profile, TokenBudget: o.TokenBudget, Brief: true}
}

// traceOptions are the options of the trace readers.
func (o Options) traceOptions() trace.Options {
	return trace.Options{OutcomeScorer: o.OutcomeScorer, OutcomeField: o.OutcomeField}
}

// eachWholeFile evaluates the traces of file i of the plan (an OTLP file, an Inspect log, a
// tau2-bench results file, or any file when reading sequentially) into sum, each redacted of
// o.Secrets, with the reader of the format the plan recognised. A file that its reader finds
// holds no run (an Inspect log with no samples), found under a folder, is a side file, listed
// with the others.
func (p *tracePlan) eachWholeFile(ctx context.Context, i int, o Options, sum *reliability.Summary, ids *input.IDs, ev *reliability.Evaluator) error {
	to := o.traceOptions()
	err := trace.Read(ctx, p.files[i], to, func(t *trace.Trace) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		t.Redact(o.Secrets, redacted)
		if err := ids.Full(input.Place{File: t.File, Line: t.Line}); err != nil {
			return err
		}
		if first, dup := ids.Add(t.ID, len(sum.Traces)); dup && !bothTasks(t.Task, &sum.Traces[first]) {
			return ids.Duplicate(t.ID, input.Place{File: t.File, Line: t.Line}, tracePlace(&sum.Traces[first]))
		}
		sum.Add(ev.Evaluate(t))
		if t.Outcome.Note != "" {
			p.noteOutcome(t.Outcome.Note)
		}
		p.stats.count(t, p.files[i].Format, to.OutcomeField)
		return nil
	})
	var side *trace.SideFileError
	if p.files[i].Folder != "" && errors.As(err, &side) {
		p.skipped = append(p.skipped, trace.Skipped{Path: p.files[i].Path, Folder: p.files[i].Folder, Why: side.Why})
		return nil
	}
	return err
}

// runReliabilitySequential reads and evaluates the trace files one record at a time, in one
// goroutine: the reference that the parallel pipeline (parallel.go) must match.
func runReliabilitySequential(ctx context.Context, plan *tracePlan, o Options) (*reliability.Summary, error) {
	sum := &reliability.Summary{Traces: []reliability.Result{}}
	ids := input.NewIDs("trace")
	ev := o.evaluator()
	for i := range plan.files {
		if err := plan.eachWholeFile(ctx, i, o, sum, ids, ev); err != nil {
			return nil, err
		}
	}
	return sum, nil
}

// tracePlace is where the trace of r starts.
func tracePlace(r *reliability.Result) input.Place { return input.Place{File: r.File, Line: r.Line} }

func runCoherence(ctx context.Context, patterns []string, o Options) (*coherence.Summary, error) {
	files, err := input.Expand(patterns)
	if err != nil {
		return nil, fmt.Errorf("tasks: %w", err)
	}
	if o.sequential {
		return runCoherenceSequential(ctx, files, o.Profile)
	}
	// Records are decoded and their tasks scored on gate/pipeline's workers, each with its own
	// Scorer; the ids are checked and the results kept in file order.
	p := o.Profile
	work := func(sc *coherence.Scorer, b *pipeline.Batch, results *[]coherence.TaskResult) (int, error) {
		*results = (*results)[:0]
		n := 0
		err := b.Records(func(rec input.Record) error {
			n++
			return coherence.EachInRecord(rec, func(t coherence.Task) error {
				*results = append(*results, sc.Score(t, p))
				return nil
			})
		})
		return n, err
	}
	s := coherence.Summarize(nil) // results go straight into the summary: it is all that is kept
	ids := input.NewIDs("task")
	merge := func(b *pipeline.Batch, results *[]coherence.TaskResult, err error) error {
		if results != nil {
			ids.Reserve(pipeline.Estimate(len(*results), b.Seen, b.Total))
			for _, r := range *results {
				if err := ids.Full(input.Place{File: r.File, Line: r.Line}); err != nil {
					return err
				}
				if first, dup := ids.Add(r.ID, len(s.Tasks)); dup {
					return ids.Duplicate(r.ID, input.Place{File: r.File, Line: r.Line}, taskPlace(&s.Tasks[first]))
				}
				s.Add(r)
			}
		}
		return err
	}
	newWorker := func() *coherence.Scorer { return new(coherence.Scorer) }
	if err := pipeline.Run(ctx, files, pipeline.Options{Workers: o.Workers}, newWorker, work, merge); err != nil {
		return nil, err
	}
	return &s, nil
}

// runCoherenceSequential reads and scores the task files one record at a time in the calling
// goroutine: the reference the parallel pass must match.
func runCoherenceSequential(ctx context.Context, files []string, p profile.Profile) (*coherence.Summary, error) {
	s := coherence.Summarize(nil)
	ids := input.NewIDs("task")
	for _, f := range files {
		err := coherence.Each(f, func(t coherence.Task) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := ids.Full(input.Place{File: t.File, Line: t.Line}); err != nil {
				return err
			}
			if first, dup := ids.Add(t.ID, len(s.Tasks)); dup {
				return ids.Duplicate(t.ID, input.Place{File: t.File, Line: t.Line}, taskPlace(&s.Tasks[first]))
			}
			s.Add(coherence.Score(t, p))
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return &s, nil
}

// taskPlace is where the task of r starts.
func taskPlace(r *coherence.TaskResult) input.Place { return input.Place{File: r.File, Line: r.Line} }

// Agreement reads the validators' labels named by in and computes their agreement; it is
// what Run does for the agreement section, exposed for the seed-compatible CLI.
func Agreement(in Inputs, o Options) (*agreement.Summary, error) {
	return runAgreement(context.Background(), in, o)
}

func runAgreement(ctx context.Context, in Inputs, o Options) (*agreement.Summary, error) {
	if len(in.Pairs) > 0 {
		files, err := input.Expand(in.Pairs)
		if err != nil {
			return nil, fmt.Errorf("pairs: %w", err)
		}
		if o.sequential {
			pairs, err := agreement.LoadMerged(files, o.Profile)
			if err != nil {
				return nil, err
			}
			s := agreement.Compute(pairs, nil, o.Profile)
			s.Files = agreement.FilesOf(pairs)
			return &s, nil
		}
		s, err := agreement.EvaluateMerged(ctx, files, o.Profile, o.Workers)
		if err != nil {
			return nil, err
		}
		return &s, nil
	}
	sf, err := input.Expand(in.Scholar)
	if err != nil {
		return nil, fmt.Errorf("scholar: %w", err)
	}
	af, err := input.Expand(in.Auditor)
	if err != nil {
		return nil, fmt.Errorf("auditor: %w", err)
	}
	pairs, unmatched, err := agreement.LoadJoined(sf, af, o.Profile)
	if err != nil {
		return nil, err
	}
	if len(unmatched) > 0 && !o.AllowUnmatched && o.Profile != profile.Reference {
		return nil, unmatchedError(unmatched)
	}
	s := agreement.Compute(pairs, unmatched, o.Profile)
	s.Joined = true
	return &s, nil
}

// unmatchedError explains qids that only one validator labelled.
func unmatchedError(u []agreement.Unmatched) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%d qid(s) were labelled by only one validator, so agreement cannot be measured on them:", len(u))
	for i, x := range u {
		if i == 10 {
			fmt.Fprintf(&b, "\n  … and %d more", len(u)-10)
			break
		}
		fmt.Fprintf(&b, "\n  %s:%d: qid %s is only in the %s file", x.File, x.Line, input.Quote(x.QID), x.OnlyIn)
	}
	b.WriteString("\nfix the label files, or set allow-unmatched to evaluate only the qids both labelled")
	return &UsageError{b.String()}
}

// IsUsage reports whether err is a configuration mistake rather than bad input or I/O.
func IsUsage(err error) bool {
	var u *UsageError
	return errors.As(err, &u)
}
