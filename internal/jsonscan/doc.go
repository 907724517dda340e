// Package jsonscan holds the JSON primitives every reader of agentgate stands on: white space,
// strings (with UTF-8 validation and unescaping), numbers, literals, skipping a whole value with
// a nesting limit, walking objects and arrays (Key, Next, ReadMembers, EachMember,
// EachElement), key matching, paths that name and place a value inside a record (Path, Locate,
// PathAt), the names of JSON kinds, one error vocabulary and the mapping from a byte offset to
// a line and column. It is written once so that the readers (gate/input,
// gate/trace, gate/agreement, gate/coherence, gate/reliability, gate/pystr) agree on what is
// valid JSON, on what an error says and on where it is.
//
// The functions work on a byte slice and an offset into it, and return the offset just past
// what they read, so a reader keeps its own loop and calls only what it needs; none of them
// allocates except to build an error.
//
// What is valid is what encoding/json's json.Valid accepts, and in addition the text must be
// UTF-8 (RFC 8259 §8.1): a string holding invalid UTF-8 is an error here, where json.Valid lets
// it pass. FuzzAgainstEncodingJSON checks the two against each other.
//
// Errors are *Error values carrying the byte offset of the problem (Off) and a message in one
// vocabulary ("expected an array, found a number", "unexpected end of input in a string",
// `invalid escape \q`, "invalid UTF-8", "nesting deeper than 10000 levels"); the wording is
// this package's own, never encoding/json's.
//
// Columns are counted in characters (Unicode code points, as most editors show them) from 1 at
// the start of each line; lines are counted from 1 and end at '\n'. On text that is not UTF-8
// every byte that does not continue a UTF-8 sequence counts as one character. Pos and Position
// implement it; every reader turns offsets into positions with them.
package jsonscan
