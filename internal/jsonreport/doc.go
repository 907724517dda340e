// Package jsonreport owns the JSON report of SPEC §5 in both directions: Write writes a
// gate.Result as `gate --json` does, ReadShard reads a shard's report back strictly for a
// merge (SPEC §14), and ReadBaseline reads an earlier run's report, member by member and
// leniently, into the values a comparison is handed (SPEC §10). Schema is the one version
// number they all write and check.
//
// Every report read is untrusted (a shard's or a baseline's comes from an artifact): its size
// is bounded, jsonscan checks its text and nesting first, and every problem is placed at a
// line and column.
package jsonreport

// Schema is the version of the JSON report's layout (SPEC §10): a comparison refuses a
// baseline report of another version, a merge a shard of another. Version 2 added schema,
// source and comparison.
const Schema = 2
