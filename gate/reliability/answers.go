package reliability

import (
	"cmp"
	"slices"
	"strings"
)

// A tool that answered "no" is not a tool that failed (issue 37). Harnesses flag a domain's
// refusals as errors: tau-bench and tau2-bench write "Error: Customer not found", "Error:
// Usuario U-INVALID no existe", "Error: No se puede cancelar un pedido en estado: entregado"
// when the tool worked and the answer was no, which is often the task's right answer. The
// default profile reads such a result as information, not misuse, when both hold:
//
//   - its text is not a fault of the tool's code or of the call (runtimeFault: a Python
//     exception's message, a traceback, a timeout or lost connection, a server error, a tool
//     that does not exist, arguments the tool rejected), whatever language the domain speaks;
//   - the agent uses it: its next message passes the "no" on to the user (it holds a word of
//     negation, apology or trouble, see negations, and claims no success) and calls nothing
//     of the same tool (it relays the answer, perhaps calling another tool
//     to act on it: "Customer not found; let me register you"). The same call sent again
//     after the answer was relayed (the user insists on the number) is the user's wish, and
//     the loop signal sees the repetition.
//
// A failure the run ends on, one the agent answers with silence and more calls, by claiming
// success, or by calling the same tool at once (a blind retry) is a failure still; and so are the answers before it from the same tool since its last success (the
// agent relayed "not found" twice, then went on as if the third had worked).
//
// A result failed by a non-zero exit status in its text (exitstatus.go) is never an answer.

// faultMarks are what a fault of the tool's code, of its runtime or of the call writes: the
// messages of Python's common exceptions (tau-bench writes "Error: " + str(e)), exception
// names, and the words of timeouts, lost connections, outages ("smtp unavailable"), server
// errors, unknown tools and rejected arguments. They are English whatever the domain's language: the runtime writes
// them, not the domain.
var faultMarks = []string{
	"Traceback", "Exception", "exception", "Error(", "KeyError", "TypeError", "ValueError",
	"AttributeError", "IndexError", "NameError", "RuntimeError", "AssertionError",
	"ZeroDivisionError", "JSONDecodeError", "ValidationError", "validation error",
	"object has no attribute", "unexpected keyword argument", "positional argument",
	"not supported between instances", "is not subscriptable", "is not callable",
	"is not iterable", "invalid literal for", "unsupported operand", "has no len()",
	"must be str", "must be int", "must be real number", "Expecting value", "Expecting property name",
	"timed out", "Timeout", "timeout", "Connection", "connection refused", "connection reset",
	"Internal Server Error", "Bad Gateway", "unavailable", "Unavailable", "Gateway Timeout", "rate limit",
	"Rate limit", "Too Many Requests", "unknown tool", "Unknown tool", "no such tool", "not a valid tool",
	"Tool '", "tool '", "Invalid arguments", "invalid arguments", "Invalid argument", "invalid argument",
	"missing required", "Missing required", "required property", "field required", "Field required",
	"Invalid JSON", "invalid JSON", "invalid json", "No such file or directory", "Permission denied",
	"command not found", "Segmentation fault", "out of memory", "Killed",
}

// runtimeFault reports whether a failed result's text reads as a fault rather than an answer.
func runtimeFault(text string) bool {
	for _, m := range faultMarks {
		if strings.Contains(text, m) {
			return true
		}
	}
	return false
}

// negations are the words with which an agent passes a "no" on: a negation, an apology, a
// word of trouble, in the languages the custom tau2-bench domains speak and a few more (the
// runs' own words: "Lo siento, no encuentro ningún ticket", "the system doesn't recognize
// that RUC", "I couldn't find you with zip 19112"). A reply without one, after a failed
// result, talks as if the call had worked: the run's own text after an injected failure.
var negations = func() []uint64 {
	out := slices.Clone(troubleWords)
	out = append(out, hashSet("no", "doesn", "don", "aren", "weren", "won", "never", "none", "nothing",
		"neither", "nor", "without", "invalid", "unavailable", "denied", "refused", "declined",
		"ningún", "ningun", "ninguna", "ninguno", "nada", "tampoco", "siento", "lamento",
		"lamentablemente", "imposible", "disculpa", "disculpe", "não", "nenhum", "nenhuma",
		"pas", "aucun", "aucune", "désolé", "désolée", "nicht", "kein", "keine", "leider")...)
	return sortedSet(out)
}()

// saysNo reports whether a message (its word hashes) holds one of negations.
func saysNo(words []uint64) bool {
	for _, w := range words {
		if inSet(negations, w) {
			return true
		}
	}
	return false
}

// answers returns, per result, whether it is a failed result that the default profile reads
// as the tool's answer (see above). It is computed once per trace.
func (e *eval) answers() []bool {
	if e.answersDone {
		return e.answer
	}
	e.answersDone = true
	out := grow(e.answer, len(e.results))
	e.answer = out
	unused := grow(e.answerUnused, len(e.results)) // an answer the agent did not use
	e.answerUnused = unused
	// what the agent's next message does, read once per message: results that share it (a
	// message of many results) look it up
	nextA, usable := -1, false
	nextTools := e.answerTools[:0] // the tools it calls, sorted
	for k := range e.results {
		r := e.results[k]
		c := e.pairs.callOf[k]
		if !e.failed(k) || e.byStatus[k] || c < 0 {
			continue
		}
		text := r.res.Content
		if strings.TrimSpace(text) == "" {
			text = r.res.Error
		}
		if strings.TrimSpace(text) == "" || runtimeFault(text) || runtimeFault(r.res.Error) {
			continue
		}
		unused[k] = true // until the agent is seen to use it
		a, _ := slices.BinarySearch(e.assistant, r.msg+1)
		if a == len(e.assistant) {
			continue // the run ends on the failure
		}
		if a != nextA {
			nextA = a
			e.answerReads++
			m := e.assistant[a]
			words := e.wordsOf(a).words
			_, _, claims := successClaim(words)
			// silence and more calls, a claim of success, or words that say nothing went
			// against the request, is no use of the answer
			usable = strings.TrimSpace(e.t.Messages[m].Content) != "" && !claims && saysNo(words)
			nextTools = nextTools[:0]
			for i, _ := slices.BinarySearchFunc(e.calls, m, func(c callRef, m int) int { return cmp.Compare(c.msg, m) }); i < len(e.calls) && e.calls[i].msg == m; i++ {
				nextTools = append(nextTools, e.toolOf[i])
			}
			nextTools = sortedSet(nextTools)
		}
		if !usable {
			continue
		}
		_, same := slices.BinarySearch(nextTools, e.toolOf[c]) // a blind retry
		out[k], unused[k] = !same, same
	}
	e.answerTools = nextTools
	// answers of a tool before an answer of it the agent did not use, with no success of the
	// tool between, are failures too: one pass from the end, per tool
	tainted := grow(e.answerTaint, len(e.tools))
	e.answerTaint = tainted
	for k := len(e.results) - 1; k >= 0; k-- {
		c := e.pairs.callOf[k]
		if c < 0 {
			continue
		}
		t := e.toolOf[c]
		switch {
		case !e.failed(k):
			tainted[t] = 0
		case out[k]:
			if tainted[t] == 1 {
				out[k] = false
			}
		case unused[k]:
			tainted[t] = 1
		}
	}
	return out
}
