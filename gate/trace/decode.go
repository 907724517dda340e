package trace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/gate/pystr"
	"github.com/agentgate/agentgate/internal/jsonscan"
)

// Each streams the trace records of the file at path to fn, in file order, each decoded by
// Decode. It stops at the first error, from the file, from a record or from fn, and returns
// it; problems with the input are *input.Error values naming file, line and column.
func Each(path string, fn func(*Trace) error) error {
	var d decoder // reused: its scratch space survives from record to record
	return input.Each(path, func(rec input.Record) error {
		t, err := d.decode(rec)
		if err != nil {
			return err
		}
		return fn(t)
	})
}

// EachWith is Each with options: o.OutcomeField names the member holding each record's
// outcome.
func EachWith(path string, o Options, fn func(*Trace) error) error {
	var d Decoder
	d.OutcomeField = o.OutcomeField
	return input.Each(path, func(rec input.Record) error {
		t, err := d.Decode(rec)
		if err != nil {
			return err
		}
		return fn(t)
	})
}

// Decode turns one record into a Trace. The record's shape (RS-1 ExecutionTrace, OpenAI Chat
// Completions or Anthropic Messages, docs/design.md#input-files) is detected from the record itself; every
// error is an *input.Error pointing at the offending value. The Trace shares no memory with
// rec.Data.
func Decode(rec input.Record) (*Trace, error) {
	var d decoder
	return d.decode(rec)
}

// Decoder decodes trace records one after another, as Each does, reusing its working memory
// from record to record; each Trace it returns is its own. The zero value is ready to use. A
// Decoder is not safe for concurrent use: give each goroutine its own.
type Decoder struct {
	// Reuse lets Decode reuse the memory of the Trace it returned before, text included: a
	// Trace is then only valid until the next call, and nothing of it (not even a string)
	// may be kept beyond that, except its ID and File, which are always strings of their
	// own. It spares the allocations of a stream of traces that are looked at one by one.
	Reuse bool
	// OutcomeField is the member (a dotted path) holding each record's outcome, read before
	// the others (Options.OutcomeField); empty means none.
	OutcomeField string

	d decoder
}

// Decode turns one record into a Trace, exactly as the package's Decode does.
func (d *Decoder) Decode(rec input.Record) (*Trace, error) {
	d.d.reuse = d.Reuse
	if d.OutcomeField != d.d.outcomeField {
		d.d.outcomeField, d.d.outcomePath = d.OutcomeField, fieldPath(d.OutcomeField)
	}
	return d.d.decode(rec)
}

// After tells the decoder that the next record follows one that started at line of file. A
// record without an id is named <file>:<line>, or <file>:<line>:<col> when it starts on the
// same line as the record before it (a JSON array written on one line): a Decoder fed records
// in file order knows that by itself, one that resumes elsewhere must be told.
func (d *Decoder) After(file string, line int) { d.d.lastFile, d.d.lastLine = file, line }

// listKeys are the keys a record's message list (the agent's turns) may sit under, as the
// harnesses and their forks write them (docs/trace-formats.md, "Turns by shape"), in order
// of preference: AgentDojo's forks keep theirs under "conversations".
var listKeys = [...]string{"messages", "trajectory", "traj", "history", "conversations"}

// rawRef is a value's JSON text, pointing into the record (no copy: the record outlives the
// decoding). Absent values are nil; null is the text "null".
type rawRef []byte

func (r rawRef) null() bool { return r == nil || string(r) == "null" }

// ref is where a value's JSON text lies in the record, data[off:end]; the zero ref is an
// absent value (no value ends at offset 0). The decoding structs the parser fills one per
// message, call, result, block and id hold refs and index ranges rather than slices and
// strings, so that they hold no pointers: an element takes a few words (a message 52 bytes,
// not 152) and the collector never scans or write-barriers their arrays, which on a record
// of millions of tiny elements cost more than the parse (issue 34, finding 3).
type ref struct{ off, end uint32 }

// elems is the elements lo..hi-1 of one of the scratch's arrays (parse.go).
type elems struct{ lo, hi uint32 }

func (s elems) len() int { return int(s.hi - s.lo) }

// raw returns the text of r in the record being decoded (nil when absent).
func (d *decoder) raw(r ref) rawRef {
	if r.end == 0 {
		return nil
	}
	return d.rec.Data[r.off:r.end:r.end]
}

// The decoding structs hold the union of the three shapes' fields, filled by the parser in
// parse.go. Values whose type varies between shapes (or may be wrong) are refs and are
// checked by hand when the trace is built.

type jsonRecord struct {
	TraceID, ID, TaskID, Trial rawRef
	MetaTrial                  rawRef // metadata.trial
	// the identity members (docs/design.md#run-identity): suite, task, metadata.suite, metadata.task_id;
	// suite_name where AgentDojo's forks keep the suite as AgentDojo does, and the agent its
	// pipeline_name names
	Suite, SuiteName, TaskAlt, MetaSuite, MetaTaskID rawRef
	Pipeline                                         rawRef
	Lists                                            [len(listKeys)][]jsonMessage // by listKeys
	Present                                          [len(listKeys)]bool          // the list was there and not null
	TokenUsage, Usage                                *jsonUsage
	// tau2-bench's reward_info.reward (tau2.go); HasRewardInfo when reward_info is an object
	HasRewardInfo    bool
	RewardInfoReward rawRef
	// mini-swe-agent (textactions.go)
	InstanceID, TrajectoryFormat rawRef
	// the agent's config where the harness saves it with the run: mini-swe-agent's
	// info.config, SWE-agent's replay_config (identity.go's recordAgent)
	InfoConfig, ReplayConfig ref
	// a full-duplex tau2 simulation's ticks, where its messages are not stored (tau2.go)
	Ticks ref
	// what the harness recorded of a crash: tau-bench's info.error and info.traceback, a
	// top-level error (crash.go)
	InfoError, InfoTraceback, Error ref
	// the tools the run was given, as an OpenAI-style request lists them (toolschema.go)
	Tools ref
	// SWE-agent's own token counters, info.model_stats.tokens_sent and tokens_received
	TokensSent, TokensReceived ref
	HasModelStats              bool
	// the outcome members (OutcomeKeys) at the top level and under metadata
	Outcome, MetaOutcome [len(OutcomeKeys)]rawRef
}

// jsonMessage holds the fields most messages have. The others, which only some formats write
// (legacy function calls, per-message usage, SWE-agent's ids and text actions), are in the
// scratch's rare array, so that the array of a long transcript's messages stays small.
type jsonMessage struct {
	Content     ref   // a string or null; absent when the content was a list
	ToolCallID  ref   // OpenAI
	blocks      elems // the content, when it was a list (hasBlocks), in scratch.blocks
	ToolCalls   elems // in scratch.calls
	ToolResults elems // RS-1, in scratch.results
	rare        uint32
	// role is one of the roles below, or roleOther+k for the k-th other role of the record
	// (scratch.roles); noRole when absent, null or "".
	role           uint32
	hasBlocks      bool
	HasToolResults bool // the list was there (even empty)
}

// The roles a message's role member is read into without keeping its text.
const (
	noRole = iota
	roleUser
	roleAssistant
	roleSystem
	roleTool
	roleOther
)

var roleNames = [...]string{roleUser: "user", roleAssistant: "assistant", roleSystem: "system", roleTool: "tool"}

// role returns a message's role as the input wrote it ("" when it has none).
func (d *decoder) role(m *jsonMessage) string {
	if m.role >= roleOther {
		return d.scratch.roles[m.role-roleOther]
	}
	return roleNames[m.role]
}

// jsonRare holds the fields of a message that few messages have.
type jsonRare struct {
	ToolCallIDs     elems // SWE-agent, in scratch.ids
	HasToolCallIDs  bool  // the list was there (even empty)
	HasFunctionCall bool
	FunctionCall    jsonFunction
	// per-message usage: 1 + its index in scratch.usages, 0 when absent
	Usage, TokenUsage uint32
	// SWE-agent text actions (textactions.go)
	Action, Observation, Thought, Response, MessageType ref
	// tau2-bench tool messages: {"role": "tool", "id", "content", "error", "requestor"}
	ID, Error ref
	ByUser    bool // "requestor": "user" (tau2.go)
	// mini-swe-agent: the usage of the model's response, in extra.response.usage (as Usage),
	// and why an exit message ended the run (extra.exit_status)
	ExtraUsage uint32
	ExitStatus ref
}

// noRare is the rare fields of a message that has none; it is never written.
var noRare jsonRare

// rare returns m's rare fields, all zero when it has none. Only the parser writes them.
func (d *decoder) rare(m *jsonMessage) *jsonRare {
	if m.rare == 0 {
		return &noRare
	}
	return &d.scratch.rare[m.rare-1]
}

// usageAt returns the per-message usage numbered u (jsonRare.Usage), nil for none.
func (d *decoder) usageAt(u uint32) *jsonUsage {
	if u == 0 {
		return nil
	}
	return &d.scratch.usages[u-1]
}

// msgCalls, msgResults, msgBlocks, innerBlocks and ids return the elements of a message's
// lists in the scratch's arrays.
func (d *decoder) msgCalls(m *jsonMessage) []jsonCall {
	return d.scratch.calls[m.ToolCalls.lo:m.ToolCalls.hi]
}
func (d *decoder) msgResults(m *jsonMessage) []jsonResult {
	return d.scratch.results[m.ToolResults.lo:m.ToolResults.hi]
}
func (d *decoder) msgBlocks(m *jsonMessage) []jsonBlock {
	return d.scratch.blocks[m.blocks.lo:m.blocks.hi]
}
func (d *decoder) innerBlocks(b *jsonBlock) []jsonBlock {
	return d.scratch.inner[b.inner.lo:b.inner.hi]
}
func (d *decoder) ids(r *jsonRare) []ref { return d.scratch.ids[r.ToolCallIDs.lo:r.ToolCallIDs.hi] }

type jsonCall struct {
	ToolName, Arguments, CallID ref // RS-1
	ID                          ref // OpenAI
	Name                        ref // a flat call {id, name, arguments} (tau2-bench)
	Function                    jsonFunction
	ByUser                      bool // "requestor": "user" (tau2.go)
	HasFunction                 bool
}

type jsonFunction struct {
	Name, Arguments ref
}

type jsonResult struct {
	CallID  ref
	Result  ref
	Error   ref
	Success bool // missing or null means false
}

type jsonBlock struct {
	Text                       ref // a string or null, checked by the parser
	ID, Name, Input, ToolUseID ref
	Content                    ref   // a tool_result's content unless it is a list
	inner                      elems // a tool_result's content when it is a list (hasInner), in scratch.inner
	Type                       blockType
	hasInner                   bool
	IsError                    bool
}

// blockType is a content block's type, as far as the reader tells them apart.
type blockType uint8

const (
	noType blockType = iota // absent, null or ""
	typeText
	typeInputText  // OpenAI Responses' input_text
	typeOutputText // and output_text
	typeToolUse
	typeToolResult
	typeOther // images, thinking, ...
)

var blockTypes = map[string]blockType{"text": typeText, "input_text": typeInputText, "output_text": typeOutputText,
	"tool_use": typeToolUse, "tool_result": typeToolResult}

// jsonUsage's fields point into the record, as refs, for the per-message ones.
type jsonUsage struct {
	PromptTokens, CompletionTokens, TotalTokens, InputTokens, OutputTokens ref
}

// anthropic reports whether u is written in Anthropic's terms only.
func (u *jsonUsage) anthropic() bool {
	return u != nil && (u.InputTokens.end != 0 || u.OutputTokens.end != 0) &&
		u.PromptTokens.end == 0 && u.CompletionTokens.end == 0
}

// decoder decodes trace records one after another. What it keeps from record to record is
// memory (the parser's arrays, the intern table, with reuse the last trace's) and where the
// last record started; all it knows of the record at hand is in its recordState, which each
// record starts as the zero value.
type decoder struct {
	scratch scratch // the parser's arrays, reused from record to record
	// call and result ids seen in this record, so that equal ids share one string; the
	// table's memory is kept
	intern map[string]string

	// outcomeField is Decoder.OutcomeField, and outcomePath its steps
	outcomeField string
	outcomePath  []string

	// where the previous record started: a record on the same line (a JSON array written on
	// one line) gets <file>:<line>:<col> as its fallback id, so that ids stay distinct
	lastFile string
	lastLine int

	// the SWE-agent config read beside the file sideFor (sweagent.go): the agent it names and
	// its path, read once a file however many records it holds
	sideFor, sideAgent, sidePath string
	sideErr                      error

	// reuse is Decoder.Reuse: the trace, its messages, calls and results are then this
	// memory, reused from record to record; without it each trace has its own
	reuse   bool
	trace   Trace
	calls   []Call
	results []Result

	recordState
}

// recordState is what the decoder knows of the record it is decoding.
type recordState struct {
	rec  input.Record
	jr   jsonRecord    // the parser's reading of it
	key  string        // the key holding the message list
	msgs []jsonMessage // the list under it

	// the first strong sign of a shape, and where it was seen
	shape     Shape
	markAt    markPlace
	markWhat  string
	sawAnthro bool // Anthropic-style usage somewhere (a weak sign)

	pendingAction string // id of a text action awaiting its observation (textactions.go)
	mini          bool   // the record is a mini-swe-agent trajectory (textactions.go)
	openCalls     []Call // the calls of the message before, when no result answered them yet
}

func (d *decoder) decode(rec input.Record) (*Trace, error) {
	d.recordState = recordState{rec: rec}
	// A new arena for every record, as the strings of the last trace point into the old one,
	// unless they are known to be dead.
	d.scratch.newArena(len(rec.Data), d.reuse)
	if len(d.intern) > 1024 {
		d.intern = nil // do not keep a huge table for the records to come
	}
	clear(d.intern)
	sameLine := rec.File == d.lastFile && rec.Line == d.lastLine && rec.Line > 0
	d.lastFile, d.lastLine = rec.File, rec.Line
	if err := d.checkObject(); err != nil {
		return nil, err
	}
	if uint64(len(rec.Data)) > math.MaxUint32 { // the parser's refs are 32-bit offsets
		return nil, d.rec.ErrorAt(0, "record too large: longer than %d bytes", uint32(math.MaxUint32))
	}
	jr := &d.jr
	p := parser{data: rec.Data}
	if p.record(jr, &d.scratch); p.failed {
		return nil, d.parseError(&p)
	}
	if !d.raw(jr.Ticks).null() && !slices.Contains(jr.Present[:], true) {
		return d.decodeTicks(rec, int(jr.Ticks.off))
	}
	if err := d.pickList(jr); err != nil {
		return nil, err
	}
	d.mini = isMiniSWE(jr.TrajectoryFormat)
	id, err := d.traceID(jr, sameLine)
	if err != nil {
		return nil, err
	}
	calls, results, err := d.detect(jr)
	if err != nil {
		return nil, err
	}
	b := d.start(id, calls, results)
	t := &d.trace
	for i := range d.msgs {
		if err := d.message(i, &b, &t.Messages[i]); err != nil {
			return nil, err
		}
	}
	if t.Usage, t.PerCall, err = d.usage(jr); err != nil {
		return nil, err
	}
	if !t.HasAgentTurn() { // no turn of the agent's: an error recorded is a crash before it
		t.Crash = d.crashText(jr)
	}
	t.RequiredParams = addToolSchemas(nil, d.raw(jr.Tools))
	t.Task, t.Trial, t.HasTrial = taskTrial(jr)
	t.Suite, t.Task = d.identity(jr, t.Task)
	if t.Suite == "" && t.HasTrial {
		t.Suite = policyDomain(t.Messages) // tau-bench records no domain
	}
	t.Agent, t.SideFile = "", ""
	if d.raw(jr.ReplayConfig).null() { // a SWE-agent trajectory without its config: the one beside it
		if d.sideFor != d.rec.File {
			d.sideFor = d.rec.File
			d.sideAgent, d.sidePath, d.sideErr = sweAgentSideConfig(d.rec.File)
		}
		if d.sideErr != nil {
			return nil, d.sideErr
		}
		if d.sidePath != "" {
			t.Agent, t.SideFile = d.sideAgent, d.sidePath
		}
	}
	if t.Agent == "" {
		t.Agent = recordAgent(d.rec.File, rawRef(jr.Pipeline), d.raw(jr.InfoConfig), d.raw(jr.ReplayConfig))
	}
	if t.Outcome, err = d.outcome(jr); err != nil {
		return nil, err
	}
	d.recordState = recordState{} // the parser's arrays and the record are dead now: see shrink
	if len(rec.Data) >= input.HugeRecord {
		d.scratch.drop()
	} else {
		d.scratch.shrink()
	}
	if d.reuse {
		d.calls, d.results = b.calls, b.results
		return t, nil
	}
	own := *t
	d.trace = Trace{} // the caller's now
	return &own, nil
}

// start begins the trace of the record, with room for its messages, calls and results: in
// the memory of the trace before when the decoder reuses it (a Decoder only reuses memory
// it handed out with Reuse), else new.
func (d *decoder) start(id string, calls, results int) builder {
	if !d.reuse {
		d.calls, d.results = nil, nil
	}
	msgs := d.trace.Messages
	clear(msgs)
	if msgs == nil || cap(msgs) < len(d.msgs) { // a trace without messages has an empty list
		msgs = make([]Message, len(d.msgs))
	}
	d.trace = Trace{ID: id, File: d.rec.File, Line: d.rec.Line, Shape: d.shape, Messages: msgs[:len(d.msgs)]}
	clear(d.calls)
	clear(d.results)
	if cap(d.calls) < calls {
		d.calls = make([]Call, 0, calls)
	}
	if cap(d.results) < results {
		d.results = make([]Result, 0, results)
	}
	return builder{calls: d.calls[:0], results: d.results[:0]}
}

// decodeTicks decodes a full-duplex tau2 simulation, whose turns are its ticks: the record
// with the messages tau2's get_messages derives from them (flattenTicks). A problem in them is
// placed at the ticks, and says so.
func (d *decoder) decodeTicks(rec input.Record, at int) (*Trace, error) {
	flat, off, problem := flattenTicks(rec.Data, at)
	if problem != "" {
		return nil, rec.ErrorAt(off, "%s", input.Field(jsonscan.PathAt(rec.Data, off).String(), problem))
	}
	d.lastFile = "" // the same record again, not a second one on its line
	t, err := d.decode(input.Record{File: rec.File, Line: rec.Line, Col: rec.Col, Data: flat})
	var e *input.Error
	if errors.As(err, &e) {
		return nil, rec.ErrorAt(at, "in the messages flattened from \"ticks\" as tau2's get_messages does: %s", e.Msg)
	}
	return t, err
}

// checkObject rejects a record that is not a JSON object.
func (d *decoder) checkObject() error {
	data := d.rec.Data
	i := jsonscan.SkipSpace(data, 0)
	if i < len(data) && data[i] == '{' {
		return nil
	}
	if err := jsonscan.Validate(data); err != nil {
		return d.jsonError(err)
	}
	hint := ""
	if i < len(data) && data[i] == '[' {
		hint = ` (a bare list of messages is not a record: write {"messages": [...]})`
	}
	return d.rec.ErrorAt(i, "%s%s", jsonscan.Expected("a trace record (a JSON object)", jsonscan.KindOfValue(data)), hint)
}

// parseError reports what stopped the parser: the record's first syntax error, which wins over
// a type error found before it (as in encoding/json), else the type error.
func (d *decoder) parseError(p *parser) error {
	data := d.rec.Data
	if err := jsonscan.Validate(data); err != nil {
		return d.jsonError(err)
	}
	if p.typeAt < 0 {
		return d.rec.ErrorAt(p.i, "invalid JSON") // unreachable: the parser accepts what jsonscan.Validate does
	}
	if p.tooMany {
		return d.rec.ErrorAt(p.typeAt, "%s: %s", jsonscan.PathAt(data, p.typeAt).String(), tooManyItems())
	}
	return d.rec.ErrorAt(p.typeAt, "%s", input.Field(jsonscan.PathAt(data, p.typeAt).String(), jsonscan.Expected(p.want, jsonscan.KindOfValue(data[p.typeAt:]))))
}

// jsonError turns a syntax error of jsonscan in the record into an *input.Error.
func (d *decoder) jsonError(err error) error {
	if e, ok := err.(*jsonscan.Error); ok {
		return d.rec.ErrorAt(e.Off, "invalid JSON: %s", e.Msg)
	}
	return d.rec.ErrorAt(0, "%v", err)
}

// errAt returns an error about the value at path p: "<path> <msg>".
func (d *decoder) errAt(p jsonscan.Path, format string, args ...any) error {
	return d.rec.ErrorAt(jsonscan.Locate(d.rec.Data, p), "%s %s", p.String(), fmt.Sprintf(format, args...))
}

// kindErr returns an error about the value raw at path p, which is not what want names, in
// the words of every reader: `field "<path>": expected <want>, found <its kind>`.
func (d *decoder) kindErr(p jsonscan.Path, want string, raw []byte) error {
	return d.fieldErr(p, jsonscan.Expected(want, jsonscan.KindOfValue(raw)))
}

// fieldErr returns the error msg about the value at path p: `field "<path>": <msg>`.
func (d *decoder) fieldErr(p jsonscan.Path, msg string) error {
	return d.rec.ErrorAt(jsonscan.Locate(d.rec.Data, p), "%s", input.Field(p.String(), msg))
}

// pickList chooses the message list: the first of listKeys whose elements all carry a role
// (real SWE-agent files hold a "trajectory" of steps beside the "history" of messages), else
// the first one present, whose missing roles are then reported.
func (d *decoder) pickList(jr *jsonRecord) error {
	chosen := -1
	for i, l := range jr.Lists {
		if !jr.Present[i] {
			continue
		}
		if chosen < 0 {
			chosen = i
		}
		if allHaveRoles(l) {
			chosen = i
			break
		}
	}
	if chosen >= 0 && !allHaveRoles(jr.Lists[chosen]) {
		for i, l := range jr.Lists { // no list of messages: SWE-agent steps will do
			if jr.Present[i] && d.allSteps(l) {
				chosen = i
				break
			}
		}
	}
	if chosen >= 0 {
		d.key, d.msgs = listKeys[chosen], jr.Lists[chosen]
		return nil
	}
	// Error path: say what the record holds instead.
	var keys []string
	if _, err := jsonscan.EachMember(d.rec.Data, 0, func(key []byte, _, _ int) error {
		keys = append(keys, jsonscan.Unquote(key, jsonscan.Replace))
		return nil
	}); err != nil {
		return d.jsonError(err) // unreachable: the parser checked the record
	}
	for _, k := range listKeys {
		if slices.Contains(keys, k) {
			return d.errAt(jsonscan.PathOf(k), "must be an array of messages, got null")
		}
	}
	if slices.Contains(keys, "context") && slices.Contains(keys, "kind") && slices.Contains(keys, "resource") {
		// the OpenTelemetry Python SDK's ReadableSpan.to_json, as ConsoleSpanExporter prints it
		return d.rec.ErrorAt(0, `OpenTelemetry span JSON as the SDK's ConsoleSpanExporter prints it (span.to_json(): "context", "kind", "resource"), which agentgate does not read: export the spans as OTLP/JSON, with the Collector's file exporter (docs/trace-formats.md, "OpenTelemetry spans (OTLP/JSON)")`)
	}
	sort.Strings(keys)
	keys = slices.Compact(keys)
	found := "none"
	if len(keys) > 0 {
		found = input.Cut(strings.Join(keys, ", "))
	}
	return d.rec.ErrorAt(0, `expected a message list under "messages", "trajectory", "traj", "history" or "conversations"; found keys: %s`, found).
		LooksLikeOther(d.rec.Data, input.KindTraces)
}

func allHaveRoles(l []jsonMessage) bool {
	for i := range l {
		if l[i].role == noRole {
			return false
		}
	}
	return true
}

// traceID is trace_id, else id, else task_id (with "#trial" when trial is given), else
// instance_id (mini-swe-agent), else the instance a mini-swe-agent trajectory's file is named
// for, else <file>:<line>, or <file>:<line>:<col> for a record that starts on the same line as
// the one before it. Numbers are kept as written; null or "" counts as absent.
func (d *decoder) traceID(jr *jsonRecord, sameLine bool) (string, error) {
	for _, f := range [...]struct {
		key string
		raw rawRef
	}{{"trace_id", jr.TraceID}, {"id", jr.ID}, {"task_id", jr.TaskID}, {"instance_id", jr.InstanceID}} {
		id, ok, problem := idValue(f.raw)
		if problem != "" {
			return "", d.fieldErr(jsonscan.PathOf(f.key), problem)
		}
		if !ok || id == "" {
			continue
		}
		if f.key == "task_id" {
			trial, ok, problem := idValue(jr.Trial)
			if problem != "" {
				return "", d.fieldErr(jsonscan.PathOf("trial"), problem)
			}
			if ok {
				id += "#" + trial
			}
		}
		return id, nil
	}
	if d.mini {
		if id := miniInstance(d.rec.File); id != "" {
			return id, nil // mini-swe-agent saves <instance_id>.traj.json
		}
	}
	id := d.rec.File + ":" + strconv.Itoa(d.rec.Line)
	if sameLine {
		id += ":" + strconv.Itoa(d.rec.Col)
	}
	return id, nil
}

// metaOutcomeSources name the outcome members under metadata, by OutcomeKeys.
var metaOutcomeSources = [...]string{"metadata.reward", "metadata.score", "metadata.success", "metadata.passed", "metadata.resolved"}

// outcome reads the record's own outcome (docs/design.md#outcomes), the first that applies: tau-bench's
// top-level reward; tau2-bench's reward_info.reward; the first other of OutcomeKeys at the top
// level; the first of them under metadata. A value that is neither a boolean nor a finite
// number is an error at that value.
func (d *decoder) outcome(jr *jsonRecord) (Outcome, error) {
	if o, err := d.fieldOutcome(); err != nil || o.Known {
		return o, err
	}
	if o, err := d.memberOutcome(&jr.Outcome, "", 0, 1); err != nil || o.Known {
		return o, err
	}
	if o, err := d.rewardInfoOutcome(jr); err != nil || o.Known {
		return o, err
	}
	if o, err := d.memberOutcome(&jr.Outcome, "", 1, len(OutcomeKeys)); err != nil || o.Known {
		return o, err
	}
	return d.memberOutcome(&jr.MetaOutcome, "metadata", 0, len(OutcomeKeys))
}

// memberOutcome reads the first present of OutcomeKeys[from:to] in raws, the members of the
// record (prefix "") or of its metadata object.
func (d *decoder) memberOutcome(raws *[len(OutcomeKeys)]rawRef, prefix string, from, to int) (Outcome, error) {
	for i := from; i < to; i++ {
		raw := raws[i]
		if raw == nil {
			continue
		}
		path, source := jsonscan.PathOf(OutcomeKeys[i]), OutcomeKeys[i]
		if prefix != "" {
			path, source = jsonscan.PathOf(prefix, OutcomeKeys[i]), metaOutcomeSources[i]
		}
		o, ok, problem := ParseOutcome(raw, source)
		if problem != "" {
			return Outcome{}, d.fieldErr(path, problem)
		}
		if ok {
			return o, nil
		}
	}
	return Outcome{}, nil
}

// taskTrial returns the record's task id (task_id as written) and its trial index (trial, else
// metadata.trial). Only a non-negative integer, as a number or a string of digits, is a trial
// index; any other trial value stays part of the trace id only, as it always was.
func taskTrial(jr *jsonRecord) (task string, trial int, has bool) {
	task, _, _ = idValue(jr.TaskID)
	for _, raw := range [...]rawRef{jr.Trial, jr.MetaTrial} {
		s, ok, _ := idValue(raw)
		if !ok {
			continue
		}
		if n, err := strconv.Atoi(s); err == nil && n >= 0 && s[0] != '+' {
			return task, n, true
		}
	}
	return task, 0, false
}

// identity completes the record's suite and task (docs/design.md#run-identity): suite, else metadata.suite; the
// task, when task_id names none, from task, metadata.task_id, instance_id, else the stem of a
// trajectory file's name. A member that is not a string or a number names nothing.
func (d *decoder) identity(jr *jsonRecord, task string) (suite, _ string) {
	first := func(raws ...rawRef) string {
		for _, raw := range raws {
			if s, ok, problem := idValue(raw); ok && problem == "" && s != "" {
				return s
			}
		}
		return ""
	}
	suite = first(jr.Suite, jr.SuiteName, jr.MetaSuite)
	if task == "" {
		task = first(jr.TaskAlt, jr.MetaTaskID, jr.InstanceID)
	}
	if task == "" {
		task = trajStem(d.rec.File)
	}
	return suite, task
}

// idValue reads an id: a string, or a number kept as written. ok is false for null or absent.
func idValue(raw rawRef) (id string, ok bool, problem string) {
	if raw.null() {
		return "", false, ""
	}
	if s, lone := pystr.LoneSurrogates(raw); lone {
		return s, true, "" // kept distinct from the same id with another lone surrogate
	}
	if s, isStr := stringValue(raw); isStr {
		return s, true, ""
	}
	if k := jsonscan.KindOfValue(raw); k != jsonscan.KindNumber {
		return "", false, jsonscan.Expected("a string or a number", k)
	}
	return string(raw), true, ""
}

// markPlace is where a sign of a shape was seen: message msg, or element idx of its list
// under key sub ("tool_calls", "content") when sub is set.
type markPlace struct {
	msg, idx int
	sub      string
}

func (d *decoder) placePath(m markPlace) jsonscan.Path {
	if m.sub == "" {
		return jsonscan.PathOf(d.key, m.msg)
	}
	return jsonscan.PathOf(d.key, m.msg, m.sub, m.idx)
}

// mark notes a strong sign of shape s at place at; signs of two different shapes in one
// record are an error.
func (d *decoder) mark(s Shape, what string, at markPlace) error {
	if d.shape == "" {
		d.shape, d.markAt, d.markWhat = s, at, what
		return nil
	}
	if d.shape == s {
		return nil
	}
	return d.errAt(d.placePath(at), "has %s, but %s has %s: cannot tell the record's format (a record must be one of RS-1, OpenAI or Anthropic)",
		what, d.placePath(d.markAt).String(), d.markWhat)
}

// id reads a call or result id as idValue does; equal ids within a record share one string.
func (d *decoder) id(raw rawRef) (id string, ok bool, problem string) {
	if len(raw) < 2 || raw[0] != '"' || bytes.IndexByte(raw, '\\') >= 0 {
		return idValue(raw)
	}
	if s, found := d.intern[string(raw[1:len(raw)-1])]; found {
		return s, true, ""
	}
	if s, isStr := d.scratch.str(raw); isStr {
		id, ok = s, true
	} else {
		id, ok, problem = idValue(raw)
	}
	if ok {
		if d.intern == nil {
			d.intern = make(map[string]string)
		}
		d.intern[id] = id
	}
	return id, ok, problem
}

// detect settles the record's shape from the signs in its messages, parses content block
// lists, and returns upper bounds of the number of calls and results.
func (d *decoder) detect(jr *jsonRecord) (nCalls, nResults int, err error) {
	d.sawAnthro = jr.Usage.anthropic() || jr.TokenUsage.anthropic()
	for i := range d.msgs {
		m := &d.msgs[i]
		r := d.rare(m)
		d.sawAnthro = d.sawAnthro || d.usageAt(r.Usage).anthropic() || d.usageAt(r.TokenUsage).anthropic()
		if m.HasToolResults && d.shape != ShapeRS1 {
			if err := d.mark(ShapeRS1, `an RS-1 "tool_results" list`, markPlace{msg: i}); err != nil {
				return 0, 0, err
			}
		}
		calls := d.msgCalls(m)
		for j := range calls {
			c := &calls[j]
			if (c.ToolName.end != 0 || c.CallID.end != 0) && d.shape != ShapeRS1 {
				if err := d.mark(ShapeRS1, `an RS-1 tool call ("tool_name", "call_id")`, markPlace{i, j, "tool_calls"}); err != nil {
					return 0, 0, err
				}
			}
			if c.HasFunction && d.shape != ShapeOpenAI {
				if err := d.mark(ShapeOpenAI, `an OpenAI tool call ("function")`, markPlace{i, j, "tool_calls"}); err != nil {
					return 0, 0, err
				}
			}
			if isFlatCall(c) && d.shape != ShapeOpenAI {
				if err := d.mark(ShapeOpenAI, `a flat tool call ("name", "arguments")`, markPlace{i, j, "tool_calls"}); err != nil {
					return 0, 0, err
				}
			}
		}
		for _, f := range [...]struct {
			present bool
			key     string
		}{{m.ToolCallID.end != 0, "tool_call_id"}, {r.HasToolCallIDs, "tool_call_ids"}, {r.HasFunctionCall, "function_call"}} {
			if f.present && d.shape != ShapeOpenAI {
				if err := d.mark(ShapeOpenAI, `an OpenAI "`+f.key+`"`, markPlace{msg: i}); err != nil {
					return 0, 0, err
				}
			}
		}
		nCalls += m.ToolCalls.len()
		nResults += m.ToolResults.len() + r.ToolCallIDs.len()
		if m.role != roleUser && m.role != roleAssistant && m.role != roleSystem || m.ToolCallID.end != 0 || m.rare != 0 || d.mini {
			nResults++ // a tool message's result, an observation: at most one without a list
		}
		if r.HasFunctionCall || m.rare != 0 || d.mini && m.role == roleAssistant {
			nCalls++ // a legacy call, or a text action's (textactions.go)
		}
		if m.hasBlocks {
			blocks := d.msgBlocks(m)
			for k := range blocks {
				what := `an Anthropic "tool_use" block`
				switch blocks[k].Type {
				case typeToolUse:
					nCalls++
				case typeToolResult:
					nResults++
					what = `an Anthropic "tool_result" block`
				default:
					continue
				}
				if err := d.mark(ShapeAnthropic, what, markPlace{i, k, "content"}); err != nil {
					return 0, 0, err
				}
			}
		}
	}
	if d.shape == "" { // no tool activity to tell by: every shape reads the same
		switch {
		case jr.TokenUsage != nil:
			d.shape = ShapeRS1
		case d.sawAnthro:
			d.shape = ShapeAnthropic
		default:
			d.shape = ShapeOpenAI
		}
	}
	return nCalls, nResults, nil
}

// builder hands out the calls and results of one trace from two shared backing arrays.
type builder struct {
	calls   []Call
	results []Result
}

// message normalises message i into out.
func (d *decoder) message(i int, b *builder, out *Message) error {
	m := &d.msgs[i]
	if d.isStep(m) {
		return d.step(i, b, out)
	}
	if m.role == noRole {
		return d.errAt(jsonscan.PathOf(d.key, i), `has no "role" (expected "user", "assistant", "system" or "tool")`)
	}
	role := d.role(m)
	out.Role = role
	nc, nr := len(b.calls), len(b.results)

	// content, and the Anthropic blocks in it
	switch content := d.raw(m.Content); {
	case m.hasBlocks:
		text, err := d.blocks(b, d.msgBlocks(m), i)
		if err != nil {
			return err
		}
		out.Content = text
	case content.null():
	default:
		s, ok := d.scratch.str(content)
		if !ok {
			return d.kindErr(jsonscan.PathOf(d.key, i, "content"), "a string, an array of content blocks or null", content)
		}
		out.Content = s
	}

	// RS-1 and OpenAI tool calls
	calls := d.msgCalls(m)
	for j := range calls {
		if calls[j].ByUser {
			continue // tau2-bench: the simulated user's own tool, not the agent's (tau2.go)
		}
		c, err := d.call(&calls[j], i, j)
		if err != nil {
			return err
		}
		b.calls = append(b.calls, c)
	}
	rare := d.rare(m)
	if f := &rare.FunctionCall; rare.HasFunctionCall { // legacy OpenAI: no id
		name, ok := d.scratch.str(d.raw(f.Name))
		if !ok || name == "" {
			return d.errAt(jsonscan.PathOf(d.key, i, "function_call"), `has no tool name: expected "name" to be a non-empty string`)
		}
		args, valid := d.arguments(d.raw(f.Arguments))
		b.calls = append(b.calls, Call{Tool: name, Args: args, ArgsValid: valid})
	}

	// results
	switch d.shape {
	case ShapeRS1:
		results := d.msgResults(m)
		for j := range results {
			r, err := d.rs1Result(&results[j], i, j)
			if err != nil {
				return err
			}
			b.results = append(b.results, r)
		}
	case ShapeOpenAI:
		if rare.ByUser {
			break // the result of a call of the simulated user's (tau2.go)
		}
		if role == "tool" || role == "function" || m.ToolCallID.end != 0 || rare.HasToolCallIDs {
			if err := d.openAIResults(b, m, i, out.Content); err != nil {
				return err
			}
		}
	}

	if len(b.calls) > nc {
		out.Calls = b.calls[nc:len(b.calls):len(b.calls)]
	}
	if len(b.results) > nr {
		out.Results = b.results[nr:len(b.results):len(b.results)]
	}
	d.textAction(i, b, out)
	return nil
}

// call normalises an RS-1 or OpenAI tool call.
func (d *decoder) call(c *jsonCall, i, j int) (Call, error) {
	var out Call
	var nameRef, idRef, argsRef ref
	var nameKey string
	switch {
	case c.ToolName.end != 0:
		nameRef, idRef, argsRef, nameKey = c.ToolName, c.CallID, c.Arguments, "tool_name"
	case c.HasFunction:
		nameRef, idRef, argsRef, nameKey = c.Function.Name, c.ID, c.Function.Arguments, "function.name"
	case c.Name.end != 0:
		nameRef, idRef, argsRef, nameKey = c.Name, c.ID, c.Arguments, "name"
	default:
		return out, d.errAt(jsonscan.PathOf(d.key, i, "tool_calls", j), `has no tool name: expected "tool_name" (RS-1), "function": {"name": ...} (OpenAI) or "name"`)
	}
	nameRaw, idRaw, argsRaw := d.raw(nameRef), d.raw(idRef), d.raw(argsRef)
	if !nameRaw.null() && jsonscan.KindOfValue(nameRaw) != jsonscan.KindString {
		p := jsonscan.PathOf(d.key, i, "tool_calls", j, "tool_name")
		switch {
		case c.ToolName.end != 0:
		case c.HasFunction:
			p = jsonscan.PathOf(d.key, i, "tool_calls", j, "function", "name")
		default:
			p = jsonscan.PathOf(d.key, i, "tool_calls", j, "name")
		}
		return out, d.kindErr(p, "a string", nameRaw)
	}
	name, _ := d.scratch.str(nameRaw)
	if name == "" {
		return out, d.errAt(jsonscan.PathOf(d.key, i, "tool_calls", j), "has no tool name: %q is missing or empty", nameKey)
	}
	id, has, problem := d.id(idRaw)
	if problem != "" {
		idKey := "id"
		if c.ToolName.end != 0 {
			idKey = "call_id"
		}
		return out, d.fieldErr(jsonscan.PathOf(d.key, i, "tool_calls", j, idKey), problem)
	}
	out.ID, out.HasID, out.Tool = id, has, name
	out.Args, out.ArgsValid = d.arguments(argsRaw)
	return out, nil
}

// arguments returns a call's arguments as bytes of its own. A JSON string holds the arguments
// as text (OpenAI) which may not parse: it is kept as written and reported as not valid.
// Any other value is the arguments' JSON. Absent or null arguments are nil.
func (d *decoder) arguments(raw rawRef) ([]byte, bool) {
	if raw.null() {
		return nil, true
	}
	if b, ok := d.scratch.strBytes(raw); ok {
		return b, validJSON(b)
	}
	return d.scratch.bytes(raw), true
}

// rs1Result normalises an RS-1 tool result.
func (d *decoder) rs1Result(r *jsonResult, i, j int) (Result, error) {
	var out Result
	id, has, problem := d.id(d.raw(r.CallID))
	if problem != "" {
		return out, d.fieldErr(jsonscan.PathOf(d.key, i, "tool_results", j, "call_id"), problem)
	}
	out.CallID, out.HasID, out.Success = id, has, r.Success
	if result := d.raw(r.Result); !result.null() {
		if s, ok := d.scratch.str(result); ok {
			out.Content = s
		} else {
			out.Content = d.scratch.text(result)
		}
	}
	if e := d.raw(r.Error); !e.null() {
		s, ok := d.scratch.str(e)
		if !ok {
			return out, d.kindErr(jsonscan.PathOf(d.key, i, "tool_results", j, "error"), "a string or null", e)
		}
		out.Error = s
	}
	return out, nil
}

// openAIResults adds the results of an OpenAI tool message: one per id it answers.
func (d *decoder) openAIResults(b *builder, m *jsonMessage, i int, content string) error {
	r := Result{Content: content, Success: true}
	flagged, failed, err := d.errorFlag(m, i, content)
	switch {
	case err != nil:
		return err
	case flagged:
		if failed {
			r.Success, r.Error = false, content
		}
	default:
		if e, failed := openAIFailure(content); failed {
			r.Success, r.Error = false, e
		}
	}
	rare := d.rare(m)
	if rare.ToolCallIDs.len() > 0 {
		for j, raw := range d.ids(rare) {
			id, has, problem := d.id(d.raw(raw))
			if problem != "" {
				return d.fieldErr(jsonscan.PathOf(d.key, i, "tool_call_ids", j), problem)
			}
			r.CallID, r.HasID = id, has
			b.results = append(b.results, r)
		}
		return nil
	}
	idRef, idKey := m.ToolCallID, "tool_call_id"
	if idRef.end == 0 && m.role == roleTool {
		idRef, idKey = rare.ID, "id" // tau2-bench names the call a tool message answers "id"
	}
	id, has, problem := d.id(d.raw(idRef))
	if problem != "" {
		return d.fieldErr(jsonscan.PathOf(d.key, i, idKey), problem)
	}
	r.CallID, r.HasID = id, has
	b.results = append(b.results, r)
	return nil
}

// openAIFailure reports whether an OpenAI tool message's content says the call failed: it
// begins with "Error" in any case (after white space), or it is a JSON object whose
// top-level "error" is not empty (null, false, 0, "", [] and {} are empty). It returns the
// error text.
func openAIFailure(content string) (string, bool) {
	s := strings.TrimLeft(content, " \t\r\n\f\v")
	if len(s) >= 5 && strings.EqualFold(s[:5], "error") {
		return strings.TrimSpace(s), true
	}
	if len(s) == 0 || s[0] != '{' {
		return "", false
	}
	e, ok := topLevelError([]byte(s))
	if !ok {
		return "", false
	}
	switch string(e) {
	case "null", "false", "0", `""`, "[]", "{}":
		return "", false
	}
	if k := jsonscan.KindOfValue(e); (k == jsonscan.KindArray || k == jsonscan.KindObject) && isEmptyContainer(e) {
		return "", false
	}
	if text, ok := stringValue(e); ok {
		return text, true
	}
	return string(e), true
}

func isEmptyContainer(raw []byte) bool {
	n := 0
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\r', '\n':
		default:
			n++
		}
	}
	return n == 2
}

// blocks reads a list of content blocks: text blocks make the returned text (joined with
// "\n"), Anthropic tool_use and tool_result blocks become calls and results, other blocks
// (images, thinking) are skipped.
func (d *decoder) blocks(b *builder, blocks []jsonBlock, i int) (string, error) {
	var text strings.Builder
	n := 0
	for k := range blocks {
		bl := &blocks[k]
		p := func(elems ...any) jsonscan.Path {
			return append(jsonscan.PathOf(d.key, i, "content", k), jsonscan.PathOf(elems...)...)
		}
		switch bl.Type {
		case noType:
			return "", d.errAt(p(), `has no "type" (expected "text", "tool_use", "tool_result", ...)`)
		case typeText, typeInputText, typeOutputText:
			if n > 0 {
				text.WriteByte('\n')
			}
			text.WriteString(d.blockText(bl))
			n++
		case typeToolUse:
			nameRaw := d.raw(bl.Name)
			name, ok := d.scratch.str(nameRaw)
			if !nameRaw.null() && !ok {
				return "", d.kindErr(p("name"), "a string", nameRaw)
			}
			if name == "" {
				return "", d.errAt(p(), `has no tool name: "name" is missing or empty`)
			}
			id, has, problem := d.id(d.raw(bl.ID))
			if problem != "" {
				return "", d.fieldErr(p("id"), problem)
			}
			var args []byte
			if input := d.raw(bl.Input); !input.null() {
				args = d.scratch.bytes(input)
			}
			b.calls = append(b.calls, Call{ID: id, HasID: has, Tool: name, Args: args, ArgsValid: true})
		case typeToolResult:
			id, has, problem := d.id(d.raw(bl.ToolUseID))
			if problem != "" {
				return "", d.fieldErr(p("tool_use_id"), problem)
			}
			r := Result{CallID: id, HasID: has, Success: !bl.IsError}
			switch {
			case bl.hasInner:
				inner := d.innerBlocks(bl)
				// Nested tool blocks would be results inside a result: keep only text.
				var c strings.Builder
				m := 0
				for q := range inner {
					switch inner[q].Type {
					case noType:
						return "", d.errAt(p("content", q), `has no "type" (expected "text", "image", ...)`)
					case typeText:
						if m > 0 {
							c.WriteByte('\n')
						}
						c.WriteString(d.blockText(&inner[q]))
						m++
					}
				}
				r.Content = c.String()
			case d.raw(bl.Content).null():
			default:
				s, ok := d.scratch.str(d.raw(bl.Content))
				if !ok {
					return "", d.kindErr(p("content"), "a string, an array of content blocks or null", d.raw(bl.Content))
				}
				r.Content = s
			}
			if bl.IsError {
				r.Error = r.Content
			}
			b.results = append(b.results, r)
		}
	}
	return text.String(), nil
}

// blockText is the text of a text block: its "text", else its "content" where that is a string
// (AgentDojo's text blocks, {"type": "text", "content"}).
func (d *decoder) blockText(bl *jsonBlock) string {
	if bl.Text.end == 0 {
		s, _ := d.scratch.str(d.raw(bl.Content))
		return s
	}
	s, _ := d.scratch.str(d.raw(bl.Text))
	return s
}

// usage is the record-level usage when there is one (token_usage, else usage), else the sum
// of the messages' usage (and what the messages' calls were). Every usage object is checked,
// used or not.
func (d *decoder) usage(jr *jsonRecord) (Usage, CallUsage, error) {
	var total Usage
	var calls CallUsage
	var fromRecord bool
	for _, f := range [...]struct {
		key string
		u   *jsonUsage
	}{{"token_usage", jr.TokenUsage}, {"usage", jr.Usage}} {
		u, err := d.readUsage(f.u, jsonscan.PathOf(f.key))
		if err != nil {
			return total, calls, err
		}
		if u.Recorded && !fromRecord {
			total, fromRecord = u, true
		}
	}
	if !fromRecord && jr.HasModelStats {
		// SWE-agent's own counters of the run (sweagent/agent/models.py, InstanceStats)
		var v [2]int64
		for k, f := range [...]struct {
			key string
			raw rawRef
		}{{"tokens_sent", d.raw(jr.TokensSent)}, {"tokens_received", d.raw(jr.TokensReceived)}} {
			n, _, problem := tokenCount(f.raw)
			if problem != "" {
				return total, calls, d.errAt(jsonscan.PathOf("info", "model_stats", f.key), "must be a non-negative integer, got %s", problem)
			}
			v[k] = n
		}
		// counters at zero counted no model call (a replay, a demonstration): no usage
		if fromRecord = v[0] > 0 || v[1] > 0; fromRecord {
			total = Usage{Prompt: v[0], Completion: v[1], Total: satAdd(v[0], v[1]), Recorded: true}
		}
	}
	for i := range d.msgs {
		m := &d.msgs[i]
		r := d.rare(m)
		for _, f := range [...]struct {
			key []any // the path under the message
			u   *jsonUsage
		}{{[]any{"usage"}, d.usageAt(r.Usage)}, {[]any{"token_usage"}, d.usageAt(r.TokenUsage)}, {[]any{"extra", "response", "usage"}, d.usageAt(r.ExtraUsage)}} {
			if f.u == nil {
				continue
			}
			u, err := d.readUsage(f.u, append(jsonscan.PathOf(d.key, i), jsonscan.PathOf(f.key...)...))
			if err != nil {
				return total, calls, err
			}
			// A user message's usage is the simulated user's (tau2-bench), not the agent's.
			if !fromRecord && m.role != roleUser {
				total.Prompt = satAdd(total.Prompt, u.Prompt)
				total.Completion = satAdd(total.Completion, u.Completion)
				total.Total = satAdd(total.Total, u.Total)
				total.Recorded = true
				calls.Calls++
				calls.MaxPrompt = max(calls.MaxPrompt, u.Prompt)
			}
		}
	}
	return total, calls, nil
}

// readUsage reads one usage object in OpenAI/RS-1 terms (prompt_tokens, completion_tokens,
// total_tokens) or Anthropic terms (input_tokens, output_tokens).
func (d *decoder) readUsage(u *jsonUsage, at jsonscan.Path) (Usage, error) {
	var out Usage
	if u == nil {
		return out, nil
	}
	out.Recorded = true
	var v [5]int64
	var present [5]bool
	for k, f := range [...]struct {
		key string
		raw rawRef
	}{{"prompt_tokens", d.raw(u.PromptTokens)}, {"completion_tokens", d.raw(u.CompletionTokens)}, {"total_tokens", d.raw(u.TotalTokens)},
		{"input_tokens", d.raw(u.InputTokens)}, {"output_tokens", d.raw(u.OutputTokens)}} {
		n, ok, problem := tokenCount(f.raw)
		if problem != "" {
			p := append(append(jsonscan.Path(nil), at...), jsonscan.Step{Key: f.key})
			return out, d.errAt(p, "must be a non-negative integer, got %s", problem) // a value check, not a kind
		}
		v[k], present[k] = n, ok
	}
	out.Prompt, out.Completion = v[0], v[1]
	if !present[0] {
		out.Prompt = v[3]
	}
	if !present[1] {
		out.Completion = v[4]
	}
	out.Total = v[2]
	if !present[2] {
		out.Total = satAdd(out.Prompt, out.Completion)
	}
	return out, nil
}

// tokenCount reads a token count: a non-negative integer (12 or 12.0). ok is false for null or
// absent; problem describes anything else.
func tokenCount(raw rawRef) (n int64, ok bool, problem string) {
	if raw.null() {
		return 0, false, ""
	}
	if k := jsonscan.KindOfValue(raw); k != jsonscan.KindNumber {
		return 0, false, k.String()
	}
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		if n < 0 {
			return 0, false, string(raw)
		}
		return n, true, ""
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	switch {
	case err == nil && f == 0 && zeroMantissa(raw):
		return 0, true, "" // -0, 0.0, 0e5
	case err != nil && !errors.Is(err, strconv.ErrRange), f <= 0, f != math.Trunc(f):
		return 0, false, string(raw)
	case errors.Is(err, strconv.ErrRange) || f >= math.MaxInt64:
		return 0, false, string(raw) + " (too large)"
	}
	return int64(f), true, ""
}

func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// zeroMantissa reports whether the digits of a number before any exponent are all zero.
func zeroMantissa(raw []byte) bool {
	for _, c := range raw {
		switch c {
		case '-', '0', '.':
		case 'e', 'E':
			return true
		default:
			return false
		}
	}
	return true
}

// recordsHarness is the registry's fallback row: a file of trace records, one JSON object a
// line or a JSON array of them, of any dialect the decoder tells by shape (RS-1, OpenAI chat,
// Anthropic blocks, AgentDojo's FunctionCall, tau-bench and tau2 simulations, SWE-agent and
// mini-swe-agent trajectories). SWE-agent ends a run with its submit tool (SWE-agent
// tools/submit/config.yaml).
var recordsHarness = Harness{
	Format:        FormatRecords,
	Name:          "trace records",
	Recognised:    "what no other row recognises: JSON Lines, or an array, of objects holding a message list",
	Read:          readRecords,
	Side:          recordsSide,
	Turns:         `"messages", "trajectory", "traj", "history" or "conversations"`,
	Turnless:      true, // a record without a message list is an error already
	TerminalTools: []string{"submit"},
	Identity:      "suite: `suite`, else `suite_name`, else `metadata.suite` (agent: `pipeline_name`, mini-swe-agent's `info.config.model.model_name`, SWE-agent's `replay_config`, else the config beside its `.traj` (`<id>.config.yaml`, `config.yaml`), else its run folder; tau-bench's file name); task: `task_id`, `task`, else `metadata.task_id` (SWE-agent, mini-swe-agent: `instance_id`, else the file's stem); trial: `trial`, else `metadata.trial`; tau-bench: suite the domain its policy (the system message's title) names, a further file's runs further trials",
	Outcome:       "outcome-field, else `reward`, `score`, `success`, `passed`, `resolved` (top level, then under `metadata`); tau2: `reward_info.reward`",
	Usage:         "`usage` or `token_usage` of the record, else the sum of the messages' own (`usage`, mini-swe-agent's `extra.response.usage`); SWE-agent: `info.model_stats` (`tokens_sent`, `tokens_received`)",
}

// readRecords is the records row's reader: EachWith.
func readRecords(_ context.Context, f File, o Options, fn func(*Trace) error) error {
	return EachWith(f.Path, o, fn)
}
