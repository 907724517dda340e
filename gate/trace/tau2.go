package trace

import (
	"bytes"
	"context"
	"math"
	"sort"
	"strconv"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/internal/jsonscan"
)

// tau2-bench results files (docs/design.md#outcomes), read as tau2's Results.save writes them:
// {"timestamp", "info", "tasks", "simulations": [SimulationRun...], "simulation_index"}.
// Each simulation is a record the trace decoder reads as it is: its "id", "task_id" and
// "trial" name it, its "messages" hold assistant tool calls written flat ({"id", "name",
// "arguments": {...}, "requestor"}) and tool messages {"role": "tool", "id", "content",
// "error": bool, "requestor"}, and its reward_info.reward is the run's outcome. A simulation
// saved on its own (tau2's "dir" format, simulations/<id>.json) is the same record in a file of
// its own, and reads the same way.

// EachTau2 streams the simulations of the tau2-bench results file at path to fn, one trace
// each, in file order. The file is read whole, up to the limit of the other documents read
// whole (maxDocument); each simulation is decoded in turn, so that only one trace is held
// at a time. Problems are *input.Error values naming the file, line and column.
func EachTau2(ctx context.Context, path string, fn func(*Trace) error) error {
	return eachTau2File(ctx, path, Options{}, fn)
}

// eachTau2File is EachTau2 with options.
func eachTau2File(ctx context.Context, path string, o Options, fn func(*Trace) error) error {
	data, err := readDocument(path)
	if err != nil {
		return err
	}
	return eachTau2With(ctx, path, data, o, fn)
}

// eachTau2 reads the simulations of a results file held in data.
func eachTau2(ctx context.Context, path string, data []byte, fn func(*Trace) error) error {
	return eachTau2With(ctx, path, data, Options{}, fn)
}

// eachTau2With is eachTau2 with options.
func eachTau2With(ctx context.Context, path string, data []byte, o Options, fn func(*Trace) error) error {
	if err := checkDoc(path, data); err != nil {
		return err
	}
	doc := input.Record{File: path, Line: 1, Col: 1, Data: data}
	// the domain is the namespace of the task ids (docs/design.md#run-identity): tau2's domains all number theirs
	// from "0"
	domain := docString(data, "info", "environment_info", "domain_name")
	agent := tau2Agent(data)
	required := addToolSchemas(nil, docValue(data, "info", "environment_info", "tool_defs"))
	var (
		found, indexed bool
		dec            = Decoder{OutcomeField: o.OutcomeField}
		pos            = lineCounter{data: data, line: 1}
	)
	_, err := jsonscan.EachMember(data, 0, func(key []byte, v, _ int) error {
		switch {
		case jsonscan.KeyIs(key, "simulation_index"):
			indexed = !bytes.HasPrefix(data[v:], []byte("null"))
		case jsonscan.KeyIs(key, "simulations"):
			found = true
			if bytes.HasPrefix(data[v:], []byte("null")) {
				return nil
			}
			if data[v] != '[' {
				return doc.ErrorAt(v, "%s", input.Field("simulations", jsonscan.Expected("an array", jsonscan.KindOfValue(data[v:]))))
			}
			_, err := jsonscan.EachElement(data, v, func(at, end int) error {
				if err := ctx.Err(); err != nil {
					return err
				}
				line, col := pos.at(at)
				t, err := dec.Decode(input.Record{File: path, Line: line, Col: col, Data: data[at:end:end]})
				if err != nil {
					return err
				}
				if t.Suite == "" {
					t.Suite = domain
				}
				t.Agent, t.RequiredParams = agent, required
				return fn(t)
			})
			return err
		}
		return nil
	})
	if e, ok := err.(*jsonscan.Error); ok {
		return doc.ErrorAt(e.Off, "%s", jsonscan.Expected("a tau2-bench results file (a JSON object)", jsonscan.KindOfValue(data[e.Off:])))
	}
	if err != nil {
		return err
	}
	// A results file of tau2's "dir" format lists its simulations in simulation_index and
	// keeps them in simulations/<id>.json beside it: those files are the traces, read as
	// tau2's Results.load reads them (docs/design.md#harness-folders).
	if !found && hasSimulationsDir(path) {
		return eachSimulationFile(ctx, path, o, func(t *Trace) error {
			if t.Suite == "" {
				t.Suite = domain // the run's identity, as in a results file
			}
			t.Agent, t.RequiredParams = agent, required
			return fn(t)
		})
	}
	if !found && !indexed {
		return &input.Error{File: path, Msg: `the tau2-bench results file has no "simulations" list`}
	}
	return nil
}

// lineCounter turns increasing offsets of data into lines and columns, counting each newline
// once.
type lineCounter struct {
	data            []byte
	off             int // counted up to here
	line, lineStart int // the line at off, and the offset where it starts
}

func (c *lineCounter) at(off int) (line, col int) {
	for {
		nl := bytes.IndexByte(c.data[c.off:off], '\n')
		if nl < 0 {
			break
		}
		c.off += nl + 1
		c.line, c.lineStart = c.line+1, c.off
	}
	c.off = off
	return c.line, off - c.lineStart + 1
}

// isFlatCall reports whether c is written flat, as tau2-bench writes its ToolCall:
// {"id", "name", "arguments"}, with no RS-1 or OpenAI member.
func isFlatCall(c *jsonCall) bool {
	return c.Name.end != 0 && c.ToolName.end == 0 && c.CallID.end == 0 && !c.HasFunction
}

// userRequested reports whether a call or tool message of tau2-bench's belongs to the
// simulated user ("requestor": "user"): in its dual-control domains the user runs tools on
// their own device, which are not the agent's calls.
func userRequested(requestor []byte) bool { return string(requestor) == `"user"` }

// errorFlag reads the "error" member of a tool message: tau2-bench writes true when the call
// failed and false when it did not. flagged is false when there is none (or it is null), and
// the content decides; a string or object says the call failed unless it is empty.
func (d *decoder) errorFlag(m *jsonMessage, i int, content string) (flagged, failed bool, err error) {
	raw := d.raw(d.rare(m).Error)
	if raw.null() {
		return false, false, nil
	}
	switch k := jsonscan.KindOfValue(raw); k {
	case jsonscan.KindTrue:
		return true, true, nil
	case jsonscan.KindFalse:
		return true, false, nil
	case jsonscan.KindString:
		return true, string(raw) != `""`, nil
	case jsonscan.KindObject:
		return true, !isEmptyContainer(raw), nil
	default:
		return false, false, d.kindErr(jsonscan.PathOf(d.key, i, "error"), "true, false, a string or null", raw)
	}
}

// rewardInfoOutcome is the outcome tau2-bench recorded for a simulation: reward_info.reward,
// a number. A simulation without reward_info (or with a null one) has none.
func (d *decoder) rewardInfoOutcome(jr *jsonRecord) (Outcome, error) {
	if !jr.HasRewardInfo || jr.RewardInfoReward.null() {
		return Outcome{}, nil
	}
	v, problem := outcomeNumber(jr.RewardInfoReward)
	if problem != "" {
		return Outcome{}, d.fieldErr(jsonscan.PathOf("reward_info", "reward"), problem)
	}
	return Outcome{Known: true, Value: v, Source: "reward_info.reward"}, nil
}

// outcomeNumber reads a recorded reward or score that must be a finite number; problem says
// what is wrong with any other value, quoting it.
func outcomeNumber(raw []byte) (float64, string) {
	k := jsonscan.KindOfValue(raw)
	if k != jsonscan.KindNumber {
		if s, ok := stringValue(raw); ok {
			return 0, jsonscan.Expected("a number", k) + " (" + input.Quote(s) + ")"
		}
		return 0, jsonscan.Expected("a number", k)
	}
	v, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, "must be a finite number, got " + input.Cut(string(raw))
	}
	return v, ""
}

// tau2Harness is the registry's row of a tau2-bench results file: a top-level "simulations",
// or "info" starting with tau2's git_commit, or "info" with "tasks", before any message list.
var tau2Harness = Harness{
	Format:     FormatTau2,
	Name:       "tau2-bench results",
	Recognised: "`simulations`, or `info` starting with `git_commit`, or `info` and `tasks`, before any message list",
	Recognise: func(h *head) bool {
		return h.beforeList("simulations") ||
			h.beforeList("info") && (h.firstMember("info") == "git_commit" || h.beforeList("tasks"))
	},
	Read: func(ctx context.Context, f File, o Options, fn func(*Trace) error) error {
		return eachTau2File(ctx, f.Path, o, fn)
	},
	Side:     tau2Side,
	Turns:    `simulations[].messages (or "ticks", full-duplex)`,
	Identity: "suite: `info.environment_info.domain_name` (a suite per agent where `info.agent_info` differs: its `llm`, after its `implementation` where not `llm_agent`); task: `task_id`; trial: `trial`",
	Outcome:  "`reward_info.reward`",
	Usage:    "the sum of the messages' own `usage`",
}

// tau2Agent names the agent of the tau2 results file data: its model, info.agent_info.llm,
// after its implementation where the run used another than tau2's default llm_agent
// ("context_agent/gemini/gemini-2.5-flash"), as tau2 names a run for both
// (runner/helpers.py, make_run_name): runs of two agent implementations on one model are two
// agents (docs/trace-formats.md, "Agents").
func tau2Agent(data []byte) string {
	llm := docString(data, "info", "agent_info", "llm")
	impl := docString(data, "info", "agent_info", "implementation")
	switch {
	case impl == "" || impl == "llm_agent":
		return llm
	case llm == "":
		return impl
	}
	return impl + "/" + llm
}

// A full-duplex tau2 simulation (tau2's voice runs) keeps no "messages": its "ticks" hold, tick
// by tick, what the agent and the user said (agent_chunk, user_chunk), the calls each made
// (agent_tool_calls, user_tool_calls) and their results (agent_tool_results,
// user_tool_results). tau2's SimulationRun.get_messages (src/tau2/data_model/simulation.py)
// flattens them as Tick.get_all_messages (src/tau2/data_model/message.py) writes them: for
// each tick, an assistant message of the agent's chunk and calls, the agent's results, a user
// message of the user's chunk and calls, the user's results; then every message sorted by
// timestamp, a stable sort. flattenTicks does the same, as JSON the decoder reads.

// tickParts are the members of one tick that become messages.
type tickParts struct {
	timestamp                                    []byte
	agentChunk, userChunk, agentCalls, userCalls rawRef
	agentResults, userResults                    rawRef
}

// timedMessage is one flattened message and the timestamp it is sorted by.
type timedMessage struct {
	at  string
	raw []byte
}

// flattenTicks is the record data with the messages tau2 derives from its ticks (the value at
// data[at:end]) appended as "messages". problem says what stopped it, placed at off.
func flattenTicks(data []byte, at int) (flat []byte, off int, problem string) {
	if jsonscan.KindOfValue(data[at:]) != jsonscan.KindArray {
		return nil, at, jsonscan.Expected("an array of ticks", jsonscan.KindOfValue(data[at:]))
	}
	var msgs []timedMessage
	_, err := jsonscan.EachElement(data, at, func(s, e int) error {
		if jsonscan.KindOfValue(data[s:e]) != jsonscan.KindObject {
			off, problem = s, jsonscan.Expected("a tick (an object)", jsonscan.KindOfValue(data[s:e]))
			return errFound
		}
		var t tickParts
		_, _ = jsonscan.EachMember(data, s, func(key []byte, v, ve int) error {
			val := rawRef(data[v:ve])
			switch jsonscan.Unquote(key, jsonscan.Replace) {
			case "timestamp":
				t.timestamp = val
			case "agent_chunk":
				t.agentChunk = val
			case "user_chunk":
				t.userChunk = val
			case "agent_tool_calls":
				t.agentCalls = val
			case "user_tool_calls":
				t.userCalls = val
			case "agent_tool_results":
				t.agentResults = val
			case "user_tool_results":
				t.userResults = val
			}
			return nil
		})
		msgs = t.turn(msgs, "assistant", t.agentChunk, t.agentCalls)
		msgs = appendResults(msgs, t.agentResults)
		msgs = t.turn(msgs, "user", t.userChunk, t.userCalls)
		msgs = appendResults(msgs, t.userResults)
		return nil
	})
	if problem != "" {
		return nil, off, problem
	}
	if err != nil {
		return nil, at, err.Error()
	}
	sort.SliceStable(msgs, func(i, j int) bool { return msgs[i].at < msgs[j].at })
	end := len(data)
	for end > 0 && data[end-1] != '}' {
		end--
	}
	var b bytes.Buffer
	b.Grow(end + 64)
	b.Write(data[:end-1])
	b.WriteString(`, "messages": [`)
	for i, m := range msgs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.Write(m.raw)
	}
	b.WriteString("]}")
	return b.Bytes(), 0, ""
}

// turn appends the message of one side of a tick, as Tick.get_all_messages makes it: when
// the side said something or made calls, {"role", "content": the chunk's content, "tool_calls":
// the calls or null}, timed by the chunk's timestamp, else the tick's.
func (t *tickParts) turn(msgs []timedMessage, role string, chunk, calls rawRef) []timedMessage {
	hasCalls := !calls.null() && !isEmptyContainer(calls)
	if chunk.null() && !hasCalls {
		return msgs
	}
	content, at := rawRef("null"), t.timestamp
	if !chunk.null() {
		if c := memberRaw(chunk, "content"); c != nil {
			content = c
		}
		if ts := memberRaw(chunk, "timestamp"); ts != nil {
			at = ts
		}
	}
	if !hasCalls {
		calls = rawRef("null")
	}
	raw := make([]byte, 0, len(content)+len(calls)+len(at)+64)
	raw = append(raw, `{"role": "`+role+`", "content": `...)
	raw = append(raw, content...)
	raw = append(raw, `, "tool_calls": `...)
	raw = append(raw, calls...)
	raw = append(raw, '}')
	s, _ := stringValue(at)
	return append(msgs, timedMessage{at: s, raw: raw})
}

// appendResults appends a tick's tool results, each a tool message as tau2 wrote it.
func appendResults(msgs []timedMessage, results rawRef) []timedMessage {
	if results.null() || jsonscan.KindOfValue(results) != jsonscan.KindArray {
		return msgs
	}
	_, _ = jsonscan.EachElement(results, 0, func(s, e int) error {
		s2, _ := stringValue(memberRaw(results[s:e], "timestamp"))
		msgs = append(msgs, timedMessage{at: s2, raw: results[s:e]})
		return nil
	})
	return msgs
}

// memberRaw is the JSON text of member key of the object obj, nil when it has none.
func memberRaw(obj []byte, key string) rawRef {
	var out rawRef
	_, _ = jsonscan.EachMember(obj, jsonscan.SkipSpace(obj, 0), func(k []byte, s, e int) error {
		if out == nil && jsonscan.KeyIs(k, key) {
			out = rawRef(obj[s:e])
		}
		return nil
	})
	return out
}
