// Package gensuite generates large, deterministic eval suites for agentgate's benchmarks and
// for anyone who wants to reproduce the figures of docs/performance.md: RS-1 execution traces
// (many small messages and tool calls), coherence tasks and merged validator pairs.
//
// The same seed always gives the same bytes, on every platform and Go version: the generator
// uses its own pseudo-random numbers (splitmix64) and writes JSON by hand, in the layout of
// Python's json.dumps (", " and ": " separators, non-ASCII characters as \uXXXX escapes),
// which is how the harnesses that produce these files write them.
//
// The traces are realistic enough to make every reliability detector work: most runs are
// clean (a user request, nine rounds of an assistant message with a tool call and the tool's
// answer, a closing answer: 20 messages), some fail tool calls, repeat identical calls, claim
// tool use without calling, drop a result, pass empty arguments or burn tokens.
//
// The package imports nothing of agentgate, so that any package's tests can use it.
package gensuite

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
)

// Rand is splitmix64: tiny, fast and the same everywhere.
type Rand struct{ s uint64 }

// NewRand returns a generator seeded with seed.
func NewRand(seed uint64) *Rand { return &Rand{s: seed} }

// Uint64 returns the next 64 pseudo-random bits.
func (r *Rand) Uint64() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Intn returns a number in [0, n); n must be positive.
func (r *Rand) Intn(n int) int { return int((r.Uint64() >> 11) % uint64(n)) }

// Chance reports true with probability pct/100.
func (r *Rand) Chance(pct int) bool { return r.Intn(100) < pct }

// words are what the generated texts are made of: the vocabulary of a travel-booking agent
// and of the coding agents that leave the largest transcripts.
var words = [...]string{
	"the", "agent", "searched", "flights", "for", "user", "and", "found", "several", "options",
	"with", "prices", "dates", "seats", "baggage", "policy", "refund", "rules", "in", "airline",
	"database", "booking", "confirmed", "reservation", "passenger", "economy", "business",
	"cabin", "upgrade", "cancel", "change", "fare", "class", "travel", "insurance", "payment",
	"card", "gift", "certificate", "total", "balance", "checked", "bags", "membership", "gold",
	"silver", "regular", "direct", "connecting", "layover", "departure", "arrival", "airport",
	"terminal", "gate", "time", "delayed", "on", "schedule", "request", "compare", "cheapest",
	"fastest", "route", "itinerary", "segment", "return", "one", "way", "round", "trip", "city",
	"repository", "test", "suite", "failing", "function", "module", "patch", "diff", "error",
	"handler", "config", "loader", "nil", "check", "regression", "commit", "branch", "review",
	"a", "to", "of", "is", "it", "that", "this", "from", "by", "at", "as", "be", "was", "are",
	"now", "then", "next", "first", "also", "only", "both", "each", "more", "less", "than",
}

// accented are non-ASCII words, written as \u escapes as Python's json.dumps writes them.
var accented = [...]string{"café", "Zürich", "São Paulo", "naïve", "résumé", "Kraków", "Ελλάδα"}

var tools = [...]string{"search_flights", "get_reservation_details", "get_user_details", "book_reservation",
	"calculate", "think", "list_airports", "update_reservation_baggages"}

var airports = [...]string{"JFK", "SEA", "SFO", "LAX", "ORD", "ATL", "BOS", "DEN", "MIA", "PHX", "EWR", "DFW"}

// Scenario is what happens in one generated trace.
type Scenario int

const (
	Clean        Scenario = iota // every call answered and successful
	Failing                      // several tool results fail
	Looping                      // the same call repeated with identical arguments
	Claiming                     // an assistant message claims a tool call it did not make
	Unanswered                   // a call never gets its result
	BadArguments                 // calls with empty or null arguments
	Costly                       // far more tokens than the run needs
	numScenarios
)

// scenarioWeights are the percentages of each scenario (they sum to 100).
var scenarioWeights = [numScenarios]int{70, 8, 5, 5, 4, 4, 4}

// Traces generates RS-1 ExecutionTrace records one after another.
type Traces struct {
	r *Rand
	n int // records generated so far

	// Messages is the number of messages of every trace (default 20); ContentBytes the
	// approximate length of a message's content (default 130).
	Messages, ContentBytes int
}

// NewTraces returns a trace generator seeded with seed.
func NewTraces(seed uint64) *Traces {
	return &Traces{r: NewRand(seed ^ 0x7472616365), Messages: 20, ContentBytes: 130}
}

// N returns how many records have been generated.
func (g *Traces) N() int { return g.n }

func (g *Traces) scenario() Scenario {
	x := g.r.Intn(100)
	for s, w := range scenarioWeights {
		if x < w {
			return Scenario(s)
		}
		x -= w
	}
	return Clean
}

// Append appends the next trace record and a newline to dst.
func (g *Traces) Append(dst []byte) []byte {
	r := g.r
	id := g.n
	g.n++
	sc := g.scenario()
	nmsg := max(g.Messages, 3)
	rounds := (nmsg - 2) / 2

	dst = append(dst, `{"trace_id": "run-`...)
	dst = appendPadded(dst, id, 7)
	dst = append(dst, `", "messages": [`...)
	// a message's timestamp advances by a few seconds each turn
	clock := 36000 + r.Intn(3600)
	msg := 0
	open := func(role string) {
		if msg > 0 {
			dst = append(dst, ", "...)
		}
		msg++
		dst = append(dst, `{"role": "`...)
		dst = append(dst, role...)
		dst = append(dst, `", "content": `...)
	}
	closeMsg := func() {
		dst = append(dst, `, "timestamp": `...)
		dst = appendTime(dst, clock)
		dst = append(dst, '}')
		clock += 1 + r.Intn(9)
	}

	open("user")
	dst = g.appendText(dst, "Please ")
	dst = append(dst, `, "tool_calls": [], "tool_results": []`...)
	closeMsg()

	// which round misbehaves, for the scenarios that misbehave once
	odd := 1 + r.Intn(max(rounds-1, 1)) // with one round (four or five messages), that round
	loopTool, loopArgs := tools[r.Intn(len(tools))], r.Uint64()
	for k := 0; k < rounds; k++ {
		tool := tools[r.Intn(len(tools))]
		args := r.Uint64()
		if sc == Looping && k >= odd-1 && k < odd+3 {
			tool, args = loopTool, loopArgs
		}
		callID := "call_" + strconv.Itoa(id%1000) + "_" + strconv.Itoa(k)

		open("assistant")
		if sc == Claiming && k == odd {
			// the claim, and no call in this message: the round's tool message answers nothing
			dst = g.appendText(dst, "I called the booking tool and ")
			dst = append(dst, `, "tool_calls": [], "tool_results": []`...)
			closeMsg()
			open("assistant")
			dst = g.appendText(dst, "Next, ")
			dst = append(dst, `, "tool_calls": [], "tool_results": []`...)
			closeMsg()
			continue
		}
		dst = g.appendText(dst, "Let me ")
		dst = append(dst, `, "tool_calls": [{"tool_name": "`...)
		dst = append(dst, tool...)
		dst = append(dst, `", "arguments": `...)
		dst = appendArgs(dst, tool, args, sc == BadArguments && k%2 == 0)
		dst = append(dst, `, "call_id": "`...)
		dst = append(dst, callID...)
		dst = append(dst, `", "timestamp": `...)
		dst = appendTime(dst, clock)
		dst = append(dst, `}], "tool_results": []`...)
		closeMsg()

		open("tool")
		fail := (sc == Failing && k%3 != 1) || (sc == Looping && tool == loopTool && args == loopArgs && r.Chance(50)) || r.Chance(3)
		if fail {
			dst = append(dst, `"Error: `...)
			dst = append(dst, [...]string{"the service is unavailable, try again later", "reservation not found", "payment method declined", "invalid date format"}[r.Intn(4)]...)
			dst = append(dst, '"')
		} else {
			dst = g.appendText(dst, "Found ")
		}
		dst = append(dst, `, "tool_calls": [], "tool_results": [`...)
		if sc != Unanswered || k != odd {
			dst = append(dst, `{"call_id": "`...)
			dst = append(dst, callID...)
			dst = append(dst, `", "success": `...)
			dst = strconv.AppendBool(dst, !fail)
			dst = append(dst, `, "result": `...)
			if fail {
				dst = append(dst, `null, "error": "tool failed"`...)
			} else {
				dst = append(dst, `{"count": `...)
				dst = strconv.AppendInt(dst, int64(r.Intn(40)), 10)
				dst = append(dst, `, "first": "`...)
				dst = append(dst, airports[r.Intn(len(airports))]...)
				dst = strconv.AppendInt(dst, int64(100+r.Intn(900)), 10)
				dst = append(dst, `"}, "error": null`...)
			}
			dst = append(dst, `, "timestamp": `...)
			dst = appendTime(dst, clock)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
		closeMsg()
	}
	for msg < nmsg {
		open("assistant")
		dst = g.appendText(dst, "Done: ")
		dst = append(dst, `, "tool_calls": [], "tool_results": []`...)
		closeMsg()
	}

	prompt := 800 + r.Intn(4000)
	completion := 100 + r.Intn(900)
	if sc == Costly {
		prompt, completion = 40000+r.Intn(90000), 2000+r.Intn(9000)
	}
	dst = append(dst, `], "token_usage": {"prompt_tokens": `...)
	dst = strconv.AppendInt(dst, int64(prompt), 10)
	dst = append(dst, `, "completion_tokens": `...)
	dst = strconv.AppendInt(dst, int64(completion), 10)
	dst = append(dst, `, "total_tokens": `...)
	dst = strconv.AppendInt(dst, int64(prompt+completion), 10)
	dst = append(dst, `}, "metadata": {"agent": "travel-agent", "model": "gen-`...)
	dst = strconv.AppendInt(dst, int64(1+r.Intn(3)), 10)
	dst = append(dst, `", "task": `...)
	dst = strconv.AppendInt(dst, int64(r.Intn(50)), 10)
	dst = append(dst, "}}\n"...)
	return dst
}

// appendText appends a JSON string of about g.ContentBytes bytes starting with lead: random
// words, every other text with a line break, now and then a quoted word or an accented one.
func (g *Traces) appendText(dst []byte, lead string) []byte {
	return appendSentence(dst, g.r, lead, g.ContentBytes)
}

func appendSentence(dst []byte, r *Rand, lead string, size int) []byte {
	dst = append(dst, '"')
	start := len(dst)
	dst = append(dst, lead...)
	n := len(lead)
	newline := r.Chance(50)
	for n < size {
		if n > len(lead) {
			if newline && n > size/2 {
				dst = append(dst, `\n`...)
				newline = false
			} else {
				dst = append(dst, ' ')
			}
			n++
		}
		switch x := r.Intn(60); {
		case x == 0:
			w := accented[r.Intn(len(accented))]
			dst = appendEscaped(dst, w)
			n += len(w)
		case x == 1:
			w := words[r.Intn(len(words))]
			dst = append(dst, `\"`...)
			dst = append(dst, w...)
			dst = append(dst, `\"`...)
			n += len(w) + 2
		default:
			w := words[r.Intn(len(words))]
			dst = append(dst, w...)
			n += len(w)
		}
	}
	if len(dst) > start {
		dst = append(dst, '.')
	}
	return append(dst, '"')
}

// appendEscaped appends s with every non-ASCII character as a \u escape, as Python writes it.
func appendEscaped(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	for _, c := range s {
		if c < 0x80 {
			dst = append(dst, byte(c))
			continue
		}
		dst = append(dst, '\\', 'u', hex[c>>12&15], hex[c>>8&15], hex[c>>4&15], hex[c&15])
	}
	return dst
}

// appendArgs appends a call's arguments: an object of 2 to 4 members drawn from seed, so that
// equal seeds give identical arguments. empty arguments are {} or hold a null.
func appendArgs(dst []byte, tool string, seed uint64, empty bool) []byte {
	if empty {
		if seed%2 == 0 {
			return append(dst, "{}"...)
		}
		return append(dst, `{"reservation_id": null}`...)
	}
	r := Rand{s: seed}
	switch tool {
	case "search_flights":
		dst = append(dst, `{"origin": "`...)
		dst = append(dst, airports[r.Intn(len(airports))]...)
		dst = append(dst, `", "destination": "`...)
		dst = append(dst, airports[r.Intn(len(airports))]...)
		dst = append(dst, `", "date": "2024-05-`...)
		dst = appendPadded(dst, 1+r.Intn(28), 2)
		return append(dst, `"}`...)
	case "calculate":
		dst = append(dst, `{"expression": "`...)
		dst = strconv.AppendInt(dst, int64(r.Intn(1000)), 10)
		dst = append(dst, " * "...)
		dst = strconv.AppendInt(dst, int64(1+r.Intn(9)), 10)
		return append(dst, `"}`...)
	case "think":
		dst = append(dst, `{"thought": `...)
		dst = appendSentence(dst, &r, "", 40)
		return append(dst, '}')
	}
	dst = append(dst, `{"user_id": "`...)
	dst = append(dst, words[r.Intn(len(words))]...)
	dst = append(dst, '_')
	dst = strconv.AppendInt(dst, int64(1000+r.Intn(9000)), 10)
	dst = append(dst, `", "reservation_id": "`...)
	for range 6 {
		dst = append(dst, byte('A'+r.Intn(26)))
	}
	dst = append(dst, '"')
	if r.Chance(50) {
		dst = append(dst, `, "cabin": "`...)
		dst = append(dst, [...]string{"economy", "business", "basic_economy"}[r.Intn(3)]...)
		dst = append(dst, '"')
	}
	return append(dst, '}')
}

func appendTime(dst []byte, sec int) []byte {
	dst = append(dst, `"2026-01-03T`...)
	dst = appendPadded(dst, sec/3600%24, 2)
	dst = append(dst, ':')
	dst = appendPadded(dst, sec/60%60, 2)
	dst = append(dst, ':')
	dst = appendPadded(dst, sec%60, 2)
	return append(dst, `Z"`...)
}

func appendPadded(dst []byte, n, width int) []byte {
	s := strconv.Itoa(n)
	for i := len(s); i < width; i++ {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}

// AppendTask appends coherence task number i (a JSON Lines record) to dst: an intent, the
// agent's understanding of it and its action, now close to the intent, now drifting away.
func AppendTask(dst []byte, r *Rand, i int) []byte {
	dst = append(dst, `{"task_id": "task-`...)
	dst = appendPadded(dst, i, 6)
	dst = append(dst, `", "intent": `...)
	dst = appendSentence(dst, r, "Find ", 120+r.Intn(120))
	dst = append(dst, `, "understanding": `...)
	dst = appendSentence(dst, r, "The user wants ", 100+r.Intn(120))
	dst = append(dst, `, "action": `...)
	dst = appendSentence(dst, r, "I ", 150+r.Intn(250))
	return append(dst, "}\n"...)
}

// labels in the proportions validators give them.
var labels = [...]string{"VALID", "VALID", "VALID", "VALID", "VALID", "NOT_IN_CONTEXT", "NOT_IN_CONTEXT", "REJECT", "ABSTAIN"}

// AppendPair appends merged validator pair number i (docs/design.md#the-source-systems) to dst; the validators
// agree on about nine items in ten.
func AppendPair(dst []byte, r *Rand, i int) []byte {
	s := labels[r.Intn(len(labels))]
	a := s
	if r.Chance(10) {
		a = labels[r.Intn(len(labels))]
	}
	dst = append(dst, `{"qid": "Q`...)
	dst = appendPadded(dst, i, 7)
	dst = append(dst, `", "scholar": {"label": "`...)
	dst = append(dst, s...)
	dst = append(dst, `", "reason": "claim contained; cites p`...)
	dst = strconv.AppendInt(dst, int64(i%97), 10)
	dst = append(dst, `#2"}, "auditor": {"label": "`...)
	dst = append(dst, a...)
	dst = append(dst, `", "reason": "provenance ok; constraints echoed"}, "answer_json": {"claim": "X rejects null keys in \"strict\" mode.", "citations": ["p`...)
	dst = strconv.AppendInt(dst, int64(i%97), 10)
	dst = append(dst, `#2"]}, "retrieved_ids": ["p1#1", "p`...)
	dst = strconv.AppendInt(dst, int64(i%97), 10)
	dst = append(dst, `#2"], "flags": {"provenance_violation": `...)
	dst = strconv.AppendBool(dst, r.Chance(2))
	dst = append(dst, `, "constraints_mismatch": false}}`...)
	return append(dst, '\n')
}

// WriteTraces writes trace records to w until at least size bytes are written, and returns
// the number of records and of bytes.
func WriteTraces(w io.Writer, seed uint64, size int64) (records int, written int64, err error) {
	g := NewTraces(seed)
	return writeUntil(w, size, g.Append, g.N)
}

func writeUntil(w io.Writer, size int64, next func([]byte) []byte, count func() int) (int, int64, error) {
	buf := make([]byte, 0, 1<<20)
	var written int64
	for written < size {
		buf = next(buf[:0])
		for written+int64(len(buf)) < size && len(buf) < 1<<20-64<<10 {
			buf = next(buf)
		}
		n, err := w.Write(buf)
		written += int64(n)
		if err != nil {
			return count(), written, err
		}
	}
	return count(), written, nil
}

// Config says what Write generates. Zero values generate nothing of that kind.
type Config struct {
	Seed       uint64
	TraceBytes int64 // at least this many bytes of traces
	// TraceRecords, when positive, is the number of traces instead: TraceBytes is then
	// ignored, and each file holds as many traces as the others (the first ones one more
	// where they do not divide evenly), as a suite sharded by count is.
	TraceRecords int
	TraceFiles   int // split into this many .jsonl files (default 1)
	Messages     int // messages of every trace (default 20): a large number makes one huge record
	// ContentBytes is about how long a message's text is (default 130); RS-1's own sample
	// traces have about 40.
	ContentBytes int
	Tasks        int // coherence tasks
	Pairs        int // merged validator pairs
}

// Suite lists what Write generated.
type Suite struct {
	Traces       []string // the trace files, in the order the gate reads them
	TraceRecords int
	TraceBytes   int64
	Tasks        string // "" when no tasks were asked for
	Pairs        string
}

// Write generates a suite into dir: traces-NNN.jsonl, tasks.jsonl and pairs.jsonl.
func Write(dir string, c Config) (*Suite, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	s := &Suite{}
	if c.TraceBytes > 0 || c.TraceRecords > 0 {
		files := max(c.TraceFiles, 1)
		g := NewTraces(c.Seed)
		if c.ContentBytes > 0 {
			g.ContentBytes = c.ContentBytes
		}
		if c.Messages > 0 {
			g.Messages = c.Messages
		}
		per := (c.TraceBytes + int64(files) - 1) / int64(files)
		for f := range files {
			path := filepath.Join(dir, fmt.Sprintf("traces-%03d.jsonl", f))
			n, err := writeFile(path, func(w io.Writer) (int64, error) {
				if c.TraceRecords > 0 {
					count := c.TraceRecords / files
					if f < c.TraceRecords%files {
						count++
					}
					return writeN(w, count, func(dst []byte, _ int) []byte { return g.Append(dst) })
				}
				_, n, err := writeUntil(w, per, g.Append, g.N)
				return n, err
			})
			if err != nil {
				return nil, err
			}
			s.Traces = append(s.Traces, path)
			s.TraceBytes += n
		}
		s.TraceRecords = g.N()
	}
	if c.Tasks > 0 {
		s.Tasks = filepath.Join(dir, "tasks.jsonl")
		r := NewRand(c.Seed ^ 0x7461736b73)
		if _, err := writeFile(s.Tasks, func(w io.Writer) (int64, error) {
			return writeN(w, c.Tasks, func(dst []byte, i int) []byte { return AppendTask(dst, r, i) })
		}); err != nil {
			return nil, err
		}
	}
	if c.Pairs > 0 {
		s.Pairs = filepath.Join(dir, "pairs.jsonl")
		r := NewRand(c.Seed ^ 0x7061697273)
		if _, err := writeFile(s.Pairs, func(w io.Writer) (int64, error) {
			return writeN(w, c.Pairs, func(dst []byte, i int) []byte { return AppendPair(dst, r, i) })
		}); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func writeN(w io.Writer, n int, next func([]byte, int) []byte) (int64, error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	var buf []byte
	var written int64
	for i := range n {
		buf = next(buf[:0], i)
		m, err := bw.Write(buf)
		written += int64(m)
		if err != nil {
			return written, err
		}
	}
	return written, bw.Flush()
}

func writeFile(path string, fill func(io.Writer) (int64, error)) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	n, err := fill(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}
