package entrypoint

import (
	"cmp"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/compare"
)

// settingDef declares one setting of `agentgate gate` once: the flag, the config file's key,
// the action's input (action.yml) and the README's inputs table are made from it or checked
// against it (settingtable_test.go), so they cannot drift apart.
type settingDef struct {
	name string
	kind settingKind
	// def is the value the binary uses when the setting is not given, written as a user would
	// write it; "" when there is none (the gate is not applied, the file not written, …).
	def string
	// help says what the setting does, in one paragraph: the flag's usage, the input's
	// description and the README's "meaning" column.
	help string
	// where says which of the flag, the config key and the action.yml input exist.
	where where
	// actionDefault is the input's `default:` in action.yml, when it has one: the runner
	// then always passes it, and a config file cannot change it.
	actionDefault string
	// valueFlag makes a bool's flag take its value as the next argument, as
	// `--fail-on-regression false` (which reproduce commands print), rather than stand alone.
	valueFlag bool
	// noEffect says why the setting does not change the answer (the verdicts, the figures,
	// the exit code) a local run over the same files gives, when it does not; the command a
	// report prints to reproduce that answer (reproduceCommand) leaves it out. The rule:
	// where the reports are written (json, markdown, junit, sarif, otel), whether and how
	// they are posted under Actions (comment, comment-mode, check-name, github-token, pr-number), where
	// the other settings are read from (config: they are printed themselves), the shards
	// of a merge (their input patterns are printed instead) and the artifact only
	// `baseline: auto` fetches (baseline-artifact) change nothing a local run gives; every
	// other setting decides a verdict, a figure or the exit code, and is printed when it
	// differs from its default.
	noEffect string
	// boolLike makes a word setting's flag stand alone for true, as a bool's does, and take
	// its other values as --name=value (fail-on-skipped: explicit, true or false).
	boolLike bool
	// actionsOnly is a value of the setting that only a run under GitHub Actions can act on
	// (baseline's `auto`): the reproduce command leaves the setting out when it has it.
	actionsOnly string
}

// settingKind is the type of a setting's value.
type settingKind uint8

const (
	kindString settingKind = iota // a word or a path
	kindList                      // file patterns: repeated, comma- or line-separated
	kindNumber                    // a decimal number
	kindWhole                     // a whole number
	kindBool                      // true or false
	kindSize                      // a number of bytes, as 1073741824 or 2GiB
)

// where is the set of places a setting can be given.
type where uint8

const (
	asFlag   where = 1 << iota // --name on the command line
	inConfig                   // name: in the --config file
	asInput                    // an input declared in action.yml
	anywhere = asFlag | inConfig | asInput
)

// listHint is what a list setting's flag usage adds, and listInputHint what its input
// description adds.
const (
	listHint      = " Several patterns: repeat the flag, or separate them with commas."
	listInputHint = " Several patterns: one per line or comma-separated."
)

// settingTable is every setting of `agentgate gate`, in the order of the README's table.
var settingTable = []settingDef{
	{name: "traces", kind: kindList, where: anywhere, help: "Glob(s) or directories of execution traces, relative to the workspace: RS-1 " +
		"ExecutionTrace, OpenAI, Anthropic or tau-bench transcripts, tau2-bench results, mini-swe-agent " +
		"and SWE-agent trajectories, OTLP/JSON spans, Inspect AI logs (.json, .jsonl, .eval, .traj, gzipped " +
		"or not). A directory means every such file under it, read as the harness wrote it: the side files " +
		"beside the traces (predictions, reports, configs, logs) are skipped and listed in one note. `**` matches any depth."},
	{name: "tasks", kind: kindList, where: anywhere, help: "Glob(s) of intent/understanding/action task files, or an RCS harness results file."},
	{name: "pairs", kind: kindList, where: anywhere, help: "Glob(s) of merged Scholar/Auditor label pairs (.jsonl)."},
	{name: "scholar", kind: kindList, where: anywhere, help: "Glob(s) of the Scholar's labels, joined with `auditor` by qid. Use instead of `pairs`."},
	{name: "auditor", kind: kindList, where: anywhere, help: "Glob(s) of the Auditor's labels, joined with `scholar` by qid."},
	{name: "merge", kind: kindList, where: anywhere, noEffect: "the shards' own input patterns, which the merged report records, are printed in its place", help: "Glob(s) of the JSON reports of a suite's shards (each shard's `report-json` " +
		"output, downloaded from its artifact), merged into exactly the report one run over " +
		"all their files gives, then gated and posted once. Inputs for a section no shard holds may be " +
		"given beside it."},
	{name: gate.CoherenceMin, kind: kindNumber, where: anywhere, def: "0.50", help: "Mean RCS must be at least this."},
	{name: gate.PAMin, kind: kindNumber, where: anywhere, def: "0.90", help: "Percent agreement between the validators must be at least this."},
	{name: gate.KappaMin, kind: kindNumber, where: anywhere, def: "0.75", help: "Cohen's kappa must be at least this (skipped when kappa is undefined)."},
	{name: gate.AbstainMax, kind: kindNumber, where: anywhere, def: "0.02", help: "The abstain rate must be at most this."},
	{name: gate.MaxFailedTraces, kind: kindWhole, where: anywhere, def: "0", help: "At most this many traces may have verdict FAIL."},
	{name: "baseline", kind: kindString, where: anywhere, actionsOnly: baselineAuto, help: "Compare with an earlier run: the path of its JSON report, or `auto` for " +
		"the report artifact (`baseline-artifact`) of the pull request's merge base with its base branch, " +
		"else of the nearest commit before it on the branch, else the newest on the branch, uploaded by a " +
		"push, schedule or workflow_dispatch run (needs `actions: read`; docs/reference.md, Which baseline). Nothing to compare with is a one-line note, never a failure: `auto` " +
		"finding no usable artifact, or a report of another schema version or profile. A path that " +
		"cannot be read or holds no agentgate report (a traces file; an empty, truncated or malformed " +
		"file) is an error (exit code 3), so that a typo cannot switch the regression gates off."},
	{name: "baseline-artifact", kind: kindString, where: anywhere, def: defaultBaselineArtifact, noEffect: "only `baseline: auto` reads it, which a local run cannot", help: "The artifact `baseline: auto` looks for."},
	{name: compare.FailOnRegression, kind: kindBool, where: anywhere, def: "true", valueFlag: true, help: "With a baseline, fail when a metric is significantly worse (Holm at `regression-alpha`)."},
	{name: compare.MaxNewFailures, kind: kindWhole, where: anywhere, help: "With a baseline, at most this many traces may FAIL that did not FAIL in it (a baseline run missing now counts as FAIL unless `allow-missing-runs`). Unset: not gated."},
	{name: allowMissingRuns, kind: kindBool, where: anywhere, def: "false", help: "With a baseline, leave the baseline's runs that this run lacks out of the comparison. " +
		"By default each counts as a failure of this run (a run that did not report did not pass), so that dropping, renaming or crashing runs cannot hide a regression; " +
		"set it for a deliberate change of the suite, and the report says how many runs were left out."},
	{name: regressionAlpha, kind: kindNumber, where: anywhere, def: "0.05", help: "Family-wise significance level of the comparison (Holm's procedure)."},
	{name: planEffect, kind: kindNumber, where: anywhere, def: "0.10", help: "With a baseline, the drop in success rate the report plans for: how many matched runs would detect it with 80% power (McNemar, Connor 1987), beside the runs you have. 0.10 is 10 points; between 0 and 1."},
	{name: compare.PassKMin, kind: kindNumber, where: anywhere, help: "pass^k of repeated trials (traces with a task and trial index) must be at least this. Unset: not gated."},
	{name: passK, kind: kindWhole, where: anywhere, def: "1", help: "The k of `pass-k-min`."},
	{name: "outcomes", kind: kindList, where: anywhere, help: "The runs' own outcomes kept apart from the traces, matched by trace id, else by the run's task (a SWE-bench instance id): " +
		"JSONL `{\"id\", \"reward\" | \"success\"}`, SWE-bench `report.json` or run summaries " +
		"(`resolved_ids`). They override an outcome the trace records itself."},
	{name: gate.SuccessThreshold, kind: kindNumber, where: anywhere, def: "0.999999", help: "A numeric outcome (a reward or score) at or above this succeeded (tau-bench's is_successful). It is on the scale of the suite's rewards, which need not be 0 to 1, so any number is accepted."},
	{name: gate.SuccessRateMin, kind: kindNumber, where: anywhere, help: "The share of runs with an outcome that succeeded must be at least this. Unset: not gated."},
	{name: outcomeScorer, kind: kindString, where: anywhere, help: "The score that is each run's outcome (its own success): an Inspect scorer, " +
		"a LangSmith feedback key, a Langfuse score name or a Phoenix annotation name (in the traces or in `outcomes`), an OTel `gen_ai.evaluation.name`. " +
		"A score whose value is a dict takes `scorer/key`, as `scicode_scorer/Problem Correctness`. Unset: each Inspect sample's first scorer; " +
		"LangSmith feedback, Langfuse scores and Phoenix annotations are then no outcome, and the report lists their keys."},
	{name: outcomeField, kind: kindString, where: anywhere, help: "The member of each trace record that holds the run's own success (true, false or a number), " +
		"as a dotted path such as `metadata.correct`, for a format agentgate does not know. It is read before " +
		"`reward`, `score`, `success`, `passed` and `resolved`. Unset: those members only."},
	{name: gate.FailOnSkipped, kind: kindString, boolLike: true, where: anywhere, def: "explicit", help: "Which gates that were skipped (measured nothing) breach. " +
		"`explicit`: a gate whose threshold you set (flag, input or config) breaches when skipped: " +
		"`success-rate-min` when no run has an outcome (an outcomes file whose ids match no trace), " +
		"`pass-k-min` when no task has `pass-k` trials, `max-new-failures` or a given " +
		"`fail-on-regression` without a usable baseline, a given `kappa-min` when kappa is undefined; " +
		"a gate on by default that skips stays a note. `true`: every skipped gate breaches. " +
		"`false`: none does."},
	{name: "allow-unmatched", kind: kindBool, where: anywhere, def: "false", help: "With `scholar`/`auditor`, evaluate the qids both labelled instead of failing when a qid is in one file only."},
	{name: maxInputBytes, kind: kindSize, where: anywhere, help: "The most bytes one input file may hold after decompression, as " +
		"`1073741824` or `2GiB`. Unset: 1 GiB, with compressed files also stopped past 64 MiB once " +
		"they expand more than 100 times; setting it turns that check off."},
	{name: "profile", kind: kindString, where: anywhere, def: "default", help: "`default` (sound detectors) or `reference` (reproduces the published RS-1, RCS and scorer figures exactly)."},
	{name: gate.TokenBudget, kind: kindWhole, where: anywhere, def: "100000", help: "The tokens one run may spend before its cost signal reads 1 (WARN on its own). " +
		"Within it, the `default` profile compares a run's tokens with the median of its suite's runs (from 3 times " +
		"the median the cost rises, to 1 at 10 times). Raise it when a clean run of your agent spends more. The " +
		"`reference` profile keeps RS-1's thresholds (10,000, 50,000 and 100,000 tokens) and refuses any other " +
		"value (exit code 3)."},
	{name: "fail-on", kind: kindString, where: anywhere, def: "fail", help: "`fail` fails the step only on FAIL; `warn` fails it on WARN too (exit code 1); " +
		"`never` reports only: the report, comment and outputs (`verdict` included) are as ever, and the " +
		"step passes (exit code 0) whatever the verdict, unless the input cannot be read (exit code 3). " +
		"For watching a gate before requiring it."},
	{name: "config", kind: kindString, where: asFlag | asInput, noEffect: "the settings it gives are printed one by one", help: "Path of a YAML file whose keys are these settings' names. A flag or an input given here wins over it."},
	// json and markdown are no inputs of action.yml: under Actions the report is kept at
	// .agentgate/report.json and rendered as the comment (the action reads an INPUT_ variable
	// for every setting all the same, as it always has).
	{name: "json", kind: kindString, where: asFlag | inConfig, noEffect: "where a report is written, not what it says", help: "Path to write the machine-readable JSON report to. Under Actions it is `.agentgate/report.json` unless set (output `report-json`)."},
	{name: "markdown", kind: kindString, where: asFlag | inConfig, noEffect: "where a report is written, not what it says", help: "Path to write the markdown report (the pull request comment) to."},
	{name: "junit", kind: kindString, where: anywhere, noEffect: "where a report is written, not what it says", help: "Path (relative to the workspace) to write JUnit XML to, for test reporters " +
		"such as dorny/test-reporter, GitLab or Jenkins: a testsuite per evaluator, a testcase per " +
		"trace, task and gate (a task's repeated trials one testcase, failed trials beside passing " +
		"ones as `<flakyFailure>`). Empty (the default) writes none."},
	{name: "sarif", kind: kindString, where: anywhere, noEffect: "where a report is written, not what it says", help: "Path (relative to the workspace) to write SARIF 2.1.0 to, for " +
		"github/codeql-action/upload-sarif (code scanning alerts at each failing trace's file and " +
		"line, a rule per signal and gate). Empty (the default) writes none."},
	{name: "otel", kind: kindString, where: anywhere, noEffect: "where a report is written, not what it says", help: "Path (relative to the workspace) to write OTLP/JSON logs to: a " +
		"gen_ai.evaluation.result event per trace and task, for an OpenTelemetry collector's " +
		"otlpjsonfile receiver. Empty (the default) writes none."},
	{name: "comment", kind: kindBool, where: anywhere, def: "true", actionDefault: "true", noEffect: "whether and how the report is posted as a comment", help: "Under GitHub Actions, post (or update) the report as one comment on the pull request."},
	{name: "comment-mode", kind: kindString, where: anywhere, def: "update", actionDefault: "update", noEffect: "whether and how the report is posted as a comment", help: "`update` edits the existing report comment in place; `recreate` deletes it and posts a new one at the bottom."},
	{name: "check-name", kind: kindString, where: anywhere, noEffect: "whether the verdict is also posted as a check run", help: "Under GitHub Actions, also post the verdict as a check run of this name on the head commit " +
		"(the pull request's head, not the merge commit), for branch protection to require: conclusion " +
		"`success` on PASS, `neutral` on a WARN or FAIL that does not fail the step, `failure` when it " +
		"fails; the report as its summary and every finding as an annotation. Needs `checks: write`; " +
		"without it (or on a fork's pull request) a warning says so and nothing fails. Empty (the default): no check run."},
	{name: "no-traces", kind: kindString, where: anywhere, def: noTracesError, noEffect: "it acts only when no input file exists, when there is no report to reproduce",
		help: "What a run does when none of its input files exist (every pattern matches nothing: a path filter or a label " +
			"skipped the evals): `error` (the default) fails with exit code 3; `neutral` exits 0, says so in the job summary and " +
			"posts the `check-name` check run as `neutral`, so a required check does not wait forever. Some inputs present and some " +
			"absent is an error either way."},
	{name: "github-token", kind: kindString, where: anywhere, actionDefault: "${{ github.token }}", noEffect: "the credential of the calls to GitHub's API (the comment, the check run, `baseline: auto`)", help: "Token used to comment and to post the check run (masked, never printed). Fork pull requests get a read-only token; docs/reference.md shows the workflow_run pattern."},
	{name: "pr-number", kind: kindString, where: anywhere, noEffect: "which pull request the comment goes to", help: "Pull request to comment on when the event has none (a workflow_run from a fork, push, workflow_dispatch); on an event with its own pull request it is ignored, with a warning if it differs."},
}

// settingKeys are the names of the settings, in the table's order.
var settingKeys = func() []string {
	keys := make([]string, len(settingTable))
	for i, d := range settingTable {
		keys[i] = d.name
	}
	return keys
}()

func knownKey(k string) bool { return slices.Contains(settingKeys, k) }

// usage is the setting's flag usage: its help with markdown's backquotes as single quotes (the
// flag package would take a backquoted word for the value's name), how to give several
// values, its default.
func (d settingDef) usage() string {
	u := strings.ReplaceAll(d.help, "`", "'")
	if d.kind == kindList {
		u += listHint
	}
	if d.def != "" {
		u += fmt.Sprintf(" (default %s)", d.def)
	}
	return u
}

// inputDescription is the setting's description in action.yml.
func (d settingDef) inputDescription() string {
	u := d.help
	if d.kind == kindList {
		u += listInputHint
	}
	if d.def != "" && d.actionDefault == "" {
		u += fmt.Sprintf(" Default `%s`.", d.def)
	}
	return u
}

// defineFlags declares a flag for every setting that has one; each records its value in
// flags, with the flag as its source. A list flag given twice keeps both values.
func defineFlags(fs *flag.FlagSet, flags map[string]setting) {
	for _, d := range settingTable {
		if d.where&asFlag == 0 || d.name == "merge" && fs.Name() == cmdMerge {
			continue // merge names its reports as arguments, not with --merge
		}
		name, record := d.name, func(name, v string) error {
			flags[name] = setting{value: v, source: "--" + name}
			return nil
		}
		switch {
		case d.kind == kindBool && !d.valueFlag || d.boolLike:
			fs.BoolFunc(name, d.usage(), func(v string) error { return record(name, v) })
		case d.kind == kindList:
			fs.Func(name, d.usage(), func(v string) error {
				if old, ok := flags[name]; ok {
					v = old.value + "\n" + v
				}
				return record(name, v)
			})
		default:
			fs.Func(name, d.usage(), func(v string) error { return record(name, v) })
		}
	}
}

// readmeInputs is the README's inputs table: a row for each action input.
func readmeInputs() string {
	var b strings.Builder
	b.WriteString("| input | default | meaning |\n|---|---|---|\n")
	for _, d := range settingTable {
		if d.where&asInput == 0 {
			continue
		}
		def := cmp.Or(d.actionDefault, d.def)
		if def != "" {
			def = "`" + def + "` "
		}
		fmt.Fprintf(&b, "| `%s` | %s| %s |\n", d.name, def, mdCell(d.help))
	}
	return b.String()
}

// outputDef declares one output of the action: its name and description, for action.yml
// and the README's outputs table; outputs() writes them in this order.
type outputDef struct{ name, help string }

var outputTable = []outputDef{
	{"verdict", "PASS, WARN or FAIL; ERROR when the run could not be evaluated (exit code 3)."},
	{"traces-total", "Number of traces evaluated (empty when no traces were given)."},
	{"traces-failed", "Number of traces with verdict FAIL (empty when no traces were given)."},
	{"traces-warned", "Number of traces with verdict WARN (empty when no traces were given)."},
	{"rcs", "Mean Rose Coherence Score over the tasks."},
	{"percent-agreement", "Percent agreement between the two validators."},
	{"kappa", "Cohen's kappa between the two validators (empty when undefined)."},
	{"abstain-rate", "Share of items where a validator abstained."},
	{"new-failures", "With a baseline, the number of new FAIL verdicts: traces whose verdict is FAIL now and was not in the baseline, the baseline's runs missing now among them unless `allow-missing-runs` (empty without a comparison). Runs that failed by their own outcome are `runs-newly-failed`."},
	{"runs-newly-failed", "With a baseline, the number of runs that newly failed by their own outcome: succeeded in the baseline, failed now, the baseline's runs missing now among them unless `allow-missing-runs` (empty without a comparison or without outcomes on both sides)."},
	{"regressions", "With a baseline, the degraded metrics, comma-separated (empty when none)."},
	{"baseline-sha", "The commit of the baseline report compared with (empty without one)."},
	{"success-rate", "The share of runs with an outcome that succeeded (empty when no run has one)."},
	{"successes", "How many runs succeeded by their own outcomes (empty when no run has one)."},
	{"report-json", "Path (relative to the workspace) of the machine-readable JSON report: `.agentgate/report.json` unless `json` is set in the config."},
	{"comment-url", "URL of the report comment on the pull request, when one was posted."},
}

// readmeOutputs is the README's outputs table.
func readmeOutputs() string {
	var b strings.Builder
	b.WriteString("| output | value |\n|---|---|\n")
	for _, o := range outputTable {
		fmt.Fprintf(&b, "| `%s` | %s |\n", o.name, mdCell(o.help))
	}
	return b.String()
}

// mdCell escapes what would end a markdown table cell.
func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
