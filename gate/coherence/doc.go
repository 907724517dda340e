// Package coherence is the Rose Coherence Score (RCS) evaluator (docs/design.md#evaluators-and-profiles): did the agent's
// understanding and action stay true to the intent it was given?
//
// Each task is a triple of texts, intent I, understanding U and action A. Each text becomes an
// add-one smoothed unigram distribution over the vocabulary V of all three, and the
// incoherence energy E = α·KL(I‖U) + β·KL(U‖A) + γ·KL(A‖I) (defaults α = 1, β = 0.5, γ = 0.5)
// turns into RCS = 1 − min(1, E): 1 is perfectly coherent, 0 is incoherent.
//
// Two profiles score a task:
//
//   - profile.Reference reproduces the RCS harness (cr_loss.py) to 1e-9: tokens are the
//     maximal runs of a–z and 0–9 (plus ı and ſ, which Python's case-insensitive regular
//     expression also accepts) in the text lower-cased as Python's str.lower does.
//   - profile.Default fixes the harness's two false positives. Its tokens are runs of Unicode
//     letters and digits (with the combining marks that follow them; each Han, kana, Thai,
//     Lao, Khmer or Myanmar character is a token of its own, as those scripts do not separate
//     words with spaces), so Chinese, Russian or accented text is scored rather than seen as
//     empty and given a free 1.0. And an understanding or an action that is empty (after
//     trimming white space) scores 0 with a note, where the harness scores an agent that says
//     nothing as perfectly coherent.
//
// Each and EachReader stream tasks out of task files and RCS harness results files; Score (or
// a reusable Scorer, which allocates nothing per token) scores them; Summarize averages them;
// NewHarnessReport and HarnessReport.AppendJSON write the harness's own results file for
// `agentgate rcs`.
package coherence
