// Package compare holds a run against a baseline, a JSON report of an earlier run (docs/design.md#comparison),
// and computes pass^k of repeated trials (docs/design.md#repeated-trials). It is statistics over the values it is
// handed: no GitHub code, no rendering, no I/O (internal/jsonreport reads a baseline report
// into a Baseline); package gate does not need to be imported, so gate may import this package.
//
// # Use
//
//	base, err := jsonreport.ReadBaseline(f, "report.json") // *Unusable: a note, not an error
//	head := &compare.Run{Profile: res.Profile, Source: src, Reliability: res.Reliability,
//		Coherence: res.Coherence, Agreement: compare.AgreementOf(res.Agreement), Trials: trials}
//	cmp, err := compare.Compare(base, head, compare.Options{Alpha: alpha, MinMatched: 10})
//	rows := compare.Gates(cmp, note, compare.PassKOf(head.Trials), gateOptions)
//
// An unusable baseline (another schema or profile, not JSON, over 1 GiB, an id twice) comes
// back as an *Unusable from jsonreport.ReadBaseline or Compare, whose Reason is the one-line
// note the report shows; pass it to Gates as the reason the comparison gates are skipped. Any
// other error is an I/O error of the reader or a bug of the caller.
//
// # What is compared
//
// Units are matched by id: runs by their identity (suite, task, trial; docs/design.md#run-identity), the trace
// id where a run names no task or a side names none (Comparison.Matching says which, and how
// many of each side matched), tasks by id, items by qid. Each metric counts and lists (first
// 20, in match order) the units added in head and removed from the baseline.
//
// Runs are accounted for (docs/comparison-and-statistics.md, "Every baseline run accounted
// for"): their identity parts are normalised before matching (NFC, zero-width and bidi
// controls removed, surrounding space trimmed; Matching.Normalised names the runs that matched
// only so); the runs of a side that share an identity are one unit, compared by the worst
// verdict and the worse outcome (Matching names those that disagree), a head run renumbered
// into a trial the baseline lacks being a second record of its trial as written; and a
// baseline run with no match in head (Removed) counts as a failure of head in both paired
// tests unless Options.AllowMissingRuns (Test.Compared is what the test counted). Added runs
// count in head's rate only. The paired statistics of coherence and agreement use matched
// units only.
//
//   - reliability: the 3×3 table of base × head verdicts, new failures (FAIL in head, not in
//     the baseline) and fixed traces, McNemar's exact two-sided p on those two counts, and
//     the mean change of the overall score. Degraded: more new failures than fixed.
//   - coherence: the paired differences d = rcs_head − rcs_base, their mean, sd, 95% t
//     interval and the two-sided p of the paired t statistic. Degraded: mean d < 0. When
//     every d is equal (sd = 0), p is 1 if d = 0 and 0 otherwise, the interval [d, d].
//   - agreement: ΔPA, Δκ with z = Δκ/√(SE_head² + SE_base²) and its two-sided normal p (no p
//     when κ is undefined on a side), and the FINAL flips between shipped (VALID or
//     NOT_IN_CONTEXT) and REJECT over matched qids. Degraded: Δκ < 0.
//
// A metric with fewer than Options.MinMatched (10) matched units, or without a p-value, is
// inconclusive. The others form one family: Holm's step-down procedure at Options.Alpha
// decides which changes are significant, and a significant change is degraded or improved by
// its direction; the rest are unchanged. Every figure is checked against scipy, statsmodels
// or mpmath in the tests.
//
// # What a comparison could detect (docs/design.md#honest-words)
//
// Every metric has a Direction (worse, better, same: whether its estimate moved, significant
// or not), and every metric of the Holm family a Power: the Holm threshold it faced (the
// largest p-value that would have been significant, the others' p-values as they are) and its
// minimum detectable effect there, two-sided — McNemar's fewest new failures with none fixed,
// exactly; the paired t's mean change at 80% power and the observed sd, on the noncentral t
// (Lenth's AS 243); κ's change at 80% power, (z(1 − threshold/2) + z(0.8))·√(SE_head² +
// SE_base²). Comparison.Metrics lists the metrics with their tests, for renderers that need
// not name each.
//
// # Planning and history (docs/design.md#planning-and-trend)
//
// The McNemar metrics (success, reliability) also get a Plan (at α/m when too few units were
// matched to test them): the matched
// runs that would detect a drop of Options.PlanEffect with 80% power at their Holm threshold,
// from their discordance (Connor 1987; a discordance under the effect is taken as the effect),
// and the power the runs at hand give. PlanReport gives the same for a report alone, for
// `agentgate plan`. A report's History is a Point per run (PointOf), copied forward from its
// baseline (BaselineHistory) and extended by the run (ExtendHistory: at most MaxHistory
// points, a re-run of the last commit and ref replacing it); FlakyOver names the tasks whose
// trials disagreed in two or more of its runs.
//
// # Repeated trials
//
// PassKOf groups (task, trial, verdict) triples by task and gives pass^k = C(c, k)/C(n, k)
// averaged over tasks, for k up to the smallest trial count, with the flaky tasks;
// ComparePassK puts base and head side by side.
//
// # Gates
//
// RegressionGate (fail-on-regression), NewFailuresGate (max-new-failures) and PassKGate
// (pass-k-min with pass-k) return Check rows, which are gate.GateResult's; Gates applies
// GateOptions, leaving out the gates that are unset.
//
// Everything costs O(n log n) for n units (sorting by id).
package compare
