// Package report renders a gate.Result for people and machines: the markdown report posted on
// the pull request and written to the job summary (Markdown), the terminal summary (Text), the
// disagreements TSV (DisagreementsTSV) and the annotations for GitHub (Annotations). It
// computes no score and calls no GitHub API; the JSON report of docs/design.md#one-binary is internal/jsonreport's,
// and internal/github posts what this package renders.
//
// Everything taken from input files (ids, file names, reasons, evidence) is untrusted: in
// markdown an id goes into a code span (CodeCell), where a reader can copy it whole and GitHub
// renders no mention, link or HTML (its mention and issue filters skip text inside code, as
// html-pipeline's IGNORE_PARENTS did), and other text goes through EscapeCell; neither can
// break a table, inject HTML, form a link or ping anyone. In plain text it is reduced to one
// line without control characters.
// Output is deterministic: the same Result gives the same bytes.
package report
