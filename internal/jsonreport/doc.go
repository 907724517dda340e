// Package jsonreport owns the JSON report of docs/design.md#one-binary in both directions: Write writes a
// gate.Result as `gate --json` does, ReadShard reads a shard's report back strictly for a
// merge (docs/design.md#shards), and ReadBaseline reads an earlier run's report, member by member and
// leniently, into the values a comparison is handed (docs/design.md#comparison). Schema is the one version
// number they all write and check.
//
// Every report read is untrusted (a shard's or a baseline's comes from an artifact): its size
// is bounded, jsonscan checks its text and nesting first, and every problem is placed at a
// line and column.
package jsonreport

// Schema is the version of the JSON report's layout (docs/reference.md, "The JSON report"):
// a merge refuses a shard of another version, a comparison a baseline report of any version
// but this one and Previous. Version 2 added schema, source and comparison; version 3 wrote
// each run's record on one line, without its zero members (runJSON).
const Schema = 3

// Previous is the schema version before Schema, still read as a baseline: its run records
// are the same members, indented and with their zeros, which read alike.
const Previous = 2
