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
	return run(ctx, in, o, (*Result).evaluate)
}

// run is Run with the evaluators' pass given: the tests give the plain sequential reading
// that the pipeline must match (docs/development.md#one-evaluation-loop).
func run(ctx context.Context, in Inputs, o Options, evaluate func(*Result, context.Context, Inputs, Options) error) (*Result, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	if err := o.prepare(); err != nil {
		return nil, err
	}
	res := &Result{Profile: o.Profile, TokenBudget: recordedBudget(o.TokenBudget), Source: o.Source}
	if err := evaluate(res, ctx, in, o); err != nil {
		return nil, err
	}
	res.identify()
	if err := res.readOutcomes(ctx, in.Outcomes, o.OutcomeScorer); err != nil {
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
	sum, err := plan.read(ctx, o)
	if err != nil {
		return nil, nil, err
	}
	notes, err := plan.conclude(sum, o)
	if err != nil {
		return nil, nil, err
	}
	return sum, notes, nil
}

// conclude is what follows the reading of the plan's traces into sum: the refusal of a
// format read blind, each run's cost against its suite's, and the notes on what was read.
func (p *tracePlan) conclude(sum *reliability.Summary, o Options) ([]string, error) {
	if err := p.stats.blind(); err != nil {
		return nil, err
	}
	sum.RelateCost(o.Profile) // each run's tokens against its suite's, once all are read
	notes := readNotes(p, sum)
	if o.OutcomeField != "" && p.stats.fieldHits == 0 && sum.Total > 0 {
		notes = append(notes, fmt.Sprintf("outcome-field %s: no trace has this member (as a boolean or a number), so no outcome was read from it", input.Quote(o.OutcomeField)))
	}
	return notes, nil
}

// read evaluates the planned trace files in file order: each run of consecutive files of
// trace records through the pipeline (parallel.go), each other file (OTLP, an Inspect log, a
// tau2-bench results file) whole, in this goroutine, with its format's reader.
func (p *tracePlan) read(ctx context.Context, o Options) (*reliability.Summary, error) {
	workers := o.Workers
	if workers <= 0 {
		workers = defaultWorkers()
	}
	k := newTraceKeeper()
	ev := o.evaluator()
	for i := 0; i < len(p.files); {
		if p.files[i].Format != trace.FormatRecords {
			if err := p.eachWholeFile(ctx, i, o, k, ev); err != nil {
				return nil, err
			}
			i++
			continue
		}
		j := i + 1
		for j < len(p.files) && p.files[j].Format == trace.FormatRecords {
			j++
		}
		if err := reliabilityPipeline(ctx, paths(p.files[i:j]), o, workers, false, k, &p.stats); err != nil {
			return nil, err
		}
		i = j
	}
	return k.sum, nil
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
// tau2-bench results file) into k, each redacted of o.Secrets, with the reader of the format
// the plan recognised. A file that its reader finds holds no run (an Inspect log with no
// samples), found under a folder, is a side file, listed with the others.
func (p *tracePlan) eachWholeFile(ctx context.Context, i int, o Options, k *traceKeeper, ev *reliability.Evaluator) error {
	to := o.traceOptions()
	err := trace.Read(ctx, p.files[i], to, func(t *trace.Trace) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		t.Redact(o.Secrets, redacted)
		if err := k.add(ev.Evaluate(t)); err != nil {
			return err
		}
		if t.Outcome.Note != "" {
			p.noteOutcome(t.Outcome.Note)
		}
		if t.Note != "" {
			p.noteOutcome(t.Note)
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

// traceKeeper keeps the results of a run's traces in file order, checking each id: the one
// place a trace's result is added, whichever way it was read.
type traceKeeper struct {
	sum *reliability.Summary
	ids *input.IDs
}

func newTraceKeeper() *traceKeeper {
	return &traceKeeper{sum: &reliability.Summary{Traces: []reliability.Result{}}, ids: input.NewIDs("trace")}
}

// add keeps r after the results kept so far. Two traces may share an id only as two trials
// of one task (docs/design.md#repeated-trials); any other repeated id is an error.
func (k *traceKeeper) add(r reliability.Result) error {
	err := k.ids.Check(r.ID, len(k.sum.Traces), tracePlace(&r), func(first int) (input.Place, bool) {
		prev := &k.sum.Traces[first]
		return tracePlace(prev), r.Attempt != nil && bothTasks(r.Attempt.Task, prev)
	})
	if err != nil {
		return err
	}
	k.sum.Add(r)
	return nil
}

// tracePlace is where the trace of r starts.
func tracePlace(r *reliability.Result) input.Place { return input.Place{File: r.File, Line: r.Line} }

// runCoherence reads the task files and scores their tasks on gate/pipeline's workers, each
// with its own Scorer; the calling goroutine checks the ids and keeps the results in file
// order, straight in the summary: it is all that is kept.
func runCoherence(ctx context.Context, patterns []string, o Options) (*coherence.Summary, error) {
	files, err := input.Expand(patterns)
	if err != nil {
		return nil, fmt.Errorf("tasks: %w", err)
	}
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
	k := newTaskKeeper()
	merge := func(b *pipeline.Batch, results *[]coherence.TaskResult, err error) error {
		if results != nil {
			k.ids.Reserve(pipeline.Estimate(len(*results), b.Seen, b.Total))
			for _, r := range *results {
				if err := k.add(r); err != nil {
					return err
				}
			}
		}
		return err
	}
	newWorker := func() *coherence.Scorer { return new(coherence.Scorer) }
	if err := pipeline.Run(ctx, files, pipeline.Options{Workers: o.Workers}, newWorker, work, merge); err != nil {
		return nil, err
	}
	return k.sum, nil
}

// taskKeeper keeps the results of a run's tasks in file order, checking each id.
type taskKeeper struct {
	sum *coherence.Summary
	ids *input.IDs
}

func newTaskKeeper() *taskKeeper {
	s := coherence.Summarize(nil)
	return &taskKeeper{sum: &s, ids: input.NewIDs("task")}
}

// add keeps r after the results kept so far; a repeated task id is an error.
func (k *taskKeeper) add(r coherence.TaskResult) error {
	err := k.ids.Check(r.ID, len(k.sum.Tasks), taskPlace(&r), func(first int) (input.Place, bool) {
		return taskPlace(&k.sum.Tasks[first]), false
	})
	if err != nil {
		return err
	}
	k.sum.Add(r)
	return nil
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
