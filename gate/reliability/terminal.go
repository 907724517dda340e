package reliability

import (
	"slices"
	"strings"
)

// terminalNames are the tools that end a run by the names harnesses give them: the agent calls
// one to hand in its answer and the harness stops, so no result ever answers it. Read in the
// harnesses' own code: Inspect's basic_agent and react agents (`submit`), SWE-agent's
// `submit`, OpenHands' `finish`, smolagents' `final_answer`, tau2-bench's solo agent (`done`),
// Terminus (`task_complete`), Cline's `attempt_completion`. See docs/reference.md, "Differences
// from the reference".
var terminalNames = []string{"submit", "finish", "final_answer", "task_complete", "done", "attempt_completion"}

// terminal reports whether call i (of e.calls) is a terminal tool's: one of terminalNames
// (compared without case), or one the trace's own harness names as ending the run
// (trace.Trace.TerminalTools, from its format's row of the registry: docs/trace-formats.md,
// "The registry of formats: one row per harness").
func (e *eval) terminal(i int) bool {
	name := e.calls[i].call.Tool
	for _, n := range terminalNames {
		if strings.EqualFold(name, n) {
			return true
		}
	}
	return slices.Contains(e.t.TerminalTools, name)
}

// endingUnanswered drops from the unanswered calls u (indices into e.calls, in trace order)
// those of a terminal tool that no later call follows: the run ended on them, as it was
// meant to. A terminal call the agent went on from still needed its result.
func (e *eval) endingUnanswered(u []int) []int {
	if len(e.calls) == 0 {
		return u
	}
	lastMsg := e.calls[len(e.calls)-1].msg
	out := u[:0]
	for _, i := range u {
		if e.calls[i].msg == lastMsg && e.terminal(i) {
			continue
		}
		out = append(out, i)
	}
	return out
}
