package input

import (
	"slices"

	"github.com/agentgate/agentgate/internal/jsonscan"
)

// The kinds of input file, named as their settings (flags and action inputs) are.
const (
	KindTraces = "traces"
	KindTasks  = "tasks"
	KindPairs  = "pairs"
	KindLabels = "labels" // the scholar and auditor files
)

// LooksLike names the kind of input a record's top-level keys say it is, or "" when they do
// not say: a reader that finds a record it cannot read, of another kind than it was given
// (a pairs file under --traces), tells the user which setting the file belongs to.
func LooksLike(data []byte) string {
	var keys []string
	start := jsonscan.SkipSpace(data, 0)
	if start >= len(data) || data[start] != '{' {
		return ""
	}
	_, err := jsonscan.EachMember(data, start, func(key []byte, _, _ int) error {
		keys = append(keys, jsonscan.Unquote(key, jsonscan.Replace))
		return nil
	})
	if err != nil {
		return ""
	}
	has := func(ks ...string) bool {
		return slices.ContainsFunc(ks, func(k string) bool { return slices.Contains(keys, k) })
	}
	switch {
	case has("qid") && has("scholar", "auditor"):
		return KindPairs
	case has("qid") && has("label"):
		return KindLabels
	case has("intent") && has("understanding", "action"), has("average_rcs"):
		return KindTasks
	case has("messages", "trajectory", "traj", "history", "trace_id", "resourceSpans", "samples", "simulations"):
		return KindTraces
	}
	return ""
}

// Hint is the hint for a record that looks like kind: which setting takes it, as a flag
// (cli) or as an action input.
func Hint(kind string, cli bool) string {
	if kind == "" {
		return ""
	}
	var what, flag, in string
	switch kind {
	case KindLabels:
		what, flag, in = "a label file", "--scholar or --auditor", "the scholar or auditor input"
	default:
		what, flag, in = "a "+kind+" file", "--"+kind, "the "+kind+" input"
	}
	if cli {
		return "this looks like " + what + ": pass it with " + flag
	}
	return "this looks like " + what + ": give it as " + in
}

// LooksLikeOther sets e's LooksLike when data looks like another kind of input than given
// and returns e.
func (e *Error) LooksLikeOther(data []byte, given string) *Error {
	if k := LooksLike(data); k != given {
		e.LooksLike = k
	}
	return e
}
