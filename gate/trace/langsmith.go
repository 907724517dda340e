package trace

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/internal/jsonscan"
)

// LangSmith run exports (docs/trace-formats.md, "LangSmith run exports"), read as the
// langsmith SDK's Run schema writes a run (langchain-ai/langsmith-sdk,
// python/langsmith/schemas.py, Run and RunBase; client.list_runs, and read_run with
// load_child_runs, which nests a run's descendants under child_runs): a JSON array or JSON
// Lines of runs,
//
//	{"id", "name", "run_type": "llm" | "chain" | "tool" | "retriever" | "prompt" | …,
//	 "trace_id", "parent_run_id", "dotted_order", "start_time", "inputs", "outputs",
//	 "error", "reference_example_id", "session_id", "feedback_stats", "prompt_tokens",
//	 "completion_tokens", "total_tokens", "child_runs": [...]}
//
// flat (every run of a trace a record, linked by parent_run_id and trace_id) or nested
// (child_runs), or both at once. One agent run is one trace: the runs sharing a trace_id (else
// the root their parent links lead to, else the first uuid of their dotted_order), in
// dotted_order, which is the order they ran in. Its llm runs are the model calls (their
// inputs.messages and outputs.generations, chatmessage.go), its tool runs the tool calls
// (inputs, outputs.output, error); a run of another type adds nothing. Feedback records
// (client.list_feedback: {"run_id", "key", "score", …}) in the same file are the feedback of
// the run they name.
//
// Identity: the trace id is the root run's; the task is the root's reference_example_id, the
// dataset example an evaluation ran (langsmith's evaluate sets it), so two experiments on one
// dataset compare run by run; the agent is the experiment (session_name, else session_id),
// so two experiments in one input are two suites, never trials of one example. Outcome: the
// root run's feedback (feedback_stats' avg, or the feedback records' scores) under the key
// outcome-scorer names; without it, no outcome, and the report names the keys seen. Usage:
// the llm runs' prompt_tokens and completion_tokens (else their outputs' llm_output.token_usage,
// usage_metadata or usage); where no llm run records any, the root's totals.

// ShapeLangSmith is a run tree of a LangSmith export.
const ShapeLangSmith Shape = "langsmith"

// lsRun is one run as the Run schema writes it (a feedback record is read by ParseScore).
type lsRun struct {
	ID                 json.RawMessage `json:"id"`
	Name               json.RawMessage `json:"name"`
	RunType            json.RawMessage `json:"run_type"`
	TraceID            json.RawMessage `json:"trace_id"`
	ParentRunID        json.RawMessage `json:"parent_run_id"`
	DottedOrder        json.RawMessage `json:"dotted_order"`
	StartTime          json.RawMessage `json:"start_time"`
	Inputs             json.RawMessage `json:"inputs"`
	Outputs            json.RawMessage `json:"outputs"`
	Error              json.RawMessage `json:"error"`
	ReferenceExampleID json.RawMessage `json:"reference_example_id"`
	SessionID          json.RawMessage `json:"session_id"`
	SessionName        json.RawMessage `json:"session_name"`
	FeedbackStats      json.RawMessage `json:"feedback_stats"`
	PromptTokens       json.RawMessage `json:"prompt_tokens"`
	CompletionTokens   json.RawMessage `json:"completion_tokens"`
	TotalTokens        json.RawMessage `json:"total_tokens"`
	ChildRuns          json.RawMessage `json:"child_runs"`
}

// lsNode is a run read from the file, with where it is.
type lsNode struct {
	src                           *lsSource
	at                            int // where the run's object starts in src.rec.Data
	run                           lsRun
	id, traceID, parentID, dotted string
	start, runType, name          string
	parent                        *lsNode // the run it is nested under, if any
	order, depth                  int
	feedback                      bool // a feedback record, not a run
}

// lsSource is a record of the file, kept (copied) until the file is read.
type lsSource struct{ rec input.Record }

// lsFeedback is one feedback record.
type lsFeedback struct {
	node *lsNode
	rec  ScoreRecord
}

// errAt is an error at path p under the run.
func (n *lsNode) errAt(p jsonscan.Path, format string, args ...any) error {
	data := n.src.rec.Data
	off := n.at
	if len(p) > 0 {
		if end, err := jsonscan.Skip(data, n.at); err == nil {
			if o := jsonscan.Locate(data[n.at:end], p); o >= 0 {
				off = n.at + o
			}
		}
	}
	msg := fmt.Sprintf(format, args...)
	if name := pathString(p); name != "" {
		msg = input.Field(name, msg)
	}
	return n.src.rec.ErrorAt(off, "%s", n.what()+msg)
}

// what names the run in an error: "run 3f2a… (llm "ChatOpenAI"): ".
func (n *lsNode) what() string {
	if n.id == "" {
		return ""
	}
	if n.feedback {
		return fmt.Sprintf("feedback %s: ", input.Quote(n.id))
	}
	kind := n.runType
	if n.name != "" {
		kind += " " + input.Quote(n.name)
	}
	return fmt.Sprintf("run %s (%s): ", input.Quote(n.id), strings.TrimSpace(kind))
}

// readLangSmith is the LangSmith rows' reader: the runs of f, with the feedback files the
// folder rule joined to it.
func readLangSmith(ctx context.Context, f File, o Options, fn func(*Trace) error) error {
	return eachLangSmith(ctx, func(each func(input.Record) error) error {
		for _, p := range append([]string{f.Path}, f.With...) {
			if err := input.Each(p, each); err != nil {
				return err
			}
		}
		return nil
	}, o, fn)
}

// eachLangSmith reads the runs of the records records streams, then hands each trace to fn.
func eachLangSmith(ctx context.Context, records func(func(input.Record) error) error, o Options, fn func(*Trace) error) error {
	var nodes []*lsNode
	var feedback []lsFeedback
	var size int64
	err := records(func(rec input.Record) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if size += int64(len(rec.Data)); size > maxDocument {
			return rec.ErrorAt(0, "%v", errTooLarge())
		}
		if err := jsonscan.Validate(rec.Data); err != nil {
			return rec.Decode(new(any)) // the syntax error, placed
		}
		src := &lsSource{rec: rec}
		src.rec.Data = bytes.Clone(rec.Data)
		return lsCollect(src, jsonscan.SkipSpace(src.rec.Data, 0), nil, &nodes, &feedback)
	})
	if err != nil {
		return err
	}
	if len(nodes) == 0 && len(feedback) > 0 {
		f := feedback[0].node
		return f.src.rec.ErrorAt(f.at, "a file of LangSmith feedback records and no run: give it as outcomes (with outcome-scorer naming the key), or beside the runs' file in the folder given as traces")
	}
	return lsTraces(ctx, nodes, feedback, o, fn)
}

// lsCollect reads the run (or feedback record) at src's offset at, and the runs nested under
// it, in order.
func lsCollect(src *lsSource, at int, parent *lsNode, nodes *[]*lsNode, feedback *[]lsFeedback) error {
	data := src.rec.Data
	n := &lsNode{src: src, at: at, parent: parent, order: len(*nodes)}
	if k := jsonscan.KindOfValue(data[at:]); k != jsonscan.KindObject {
		return src.rec.ErrorAt(at, "%s", jsonscan.Expected("a LangSmith run (a JSON object)", k))
	}
	end, _ := jsonscan.Skip(data, at)
	if err := rawFields(data, at, &n.run); err != nil {
		return src.rec.ErrorAt(at, "%v", err)
	}
	r := &n.run
	strs := [...]struct {
		key string
		raw json.RawMessage
		to  *string
	}{{"id", r.ID, &n.id}, {"run_type", r.RunType, &n.runType}, {"name", r.Name, &n.name}, {"trace_id", r.TraceID, &n.traceID},
		{"parent_run_id", r.ParentRunID, &n.parentID}, {"dotted_order", r.DottedOrder, &n.dotted}, {"start_time", r.StartTime, &n.start}}
	for _, s := range strs {
		v, _, problem := idValue(rawRef(s.raw))
		if problem != "" {
			return n.errAt(jsonscan.PathOf(s.key), "%s", problem)
		}
		*s.to = v
	}
	if n.runType == "" {
		if f, ok, problem, p := ParseScore(data[at:end]); ok && f.Platform == "LangSmith feedback" {
			n.feedback = true
			if problem != "" {
				return n.errAt(p, "%s", problem)
			}
			*feedback = append(*feedback, lsFeedback{node: n, rec: f})
			return nil
		}
		return n.errAt(nil, `a LangSmith run without a "run_type" (and not a feedback record {"run_id", "key", "score"})`)
	}
	if n.id == "" {
		return n.errAt(nil, `a LangSmith run without an "id"`)
	}
	n.runType = strings.ToLower(n.runType)
	if parent != nil {
		n.depth = parent.depth + 1
		if n.parentID == "" {
			n.parentID = parent.id
		}
		if n.traceID == "" {
			n.traceID = parent.traceID
		}
	}
	*nodes = append(*nodes, n)
	switch k := jsonscan.KindOfValue(r.ChildRuns); k {
	case jsonscan.KindInvalid, jsonscan.KindNull:
		return nil
	case jsonscan.KindArray:
	default:
		return n.errAt(jsonscan.PathOf("child_runs"), "%s", jsonscan.Expected("a list of runs", k))
	}
	children := jsonscan.Locate(data[at:end], jsonscan.PathOf("child_runs"))
	var errChild error
	_, _ = jsonscan.EachElement(data, at+children, func(start, _ int) error {
		errChild = lsCollect(src, start, n, nodes, feedback)
		return errChild
	})
	return errChild
}

// lsTraces groups the runs into traces, in the order of each trace's first run in the file,
// and hands each to fn.
func lsTraces(ctx context.Context, nodes []*lsNode, feedback []lsFeedback, o Options, fn func(*Trace) error) error {
	byID := make(map[string]*lsNode, len(nodes))
	kept := nodes[:0:0]
	for _, n := range nodes {
		if _, dup := byID[n.id]; dup {
			continue // the same run twice: flat and nested under its parent
		}
		byID[n.id] = n
		kept = append(kept, n)
	}
	key := func(n *lsNode) string {
		if n.traceID != "" {
			return n.traceID
		}
		// up the parent links, bounded by the number of runs (a loop of links ends there)
		r := n
		for i := 0; i < len(kept) && r.parentID != ""; i++ {
			p, ok := byID[r.parentID]
			if !ok {
				break
			}
			if p.traceID != "" {
				return p.traceID
			}
			r = p
		}
		if first, _, _ := strings.Cut(r.dotted, "."); first != "" {
			if i := strings.IndexByte(first, 'Z'); i >= 0 && i+1 < len(first) {
				return first[i+1:]
			}
		}
		return r.id
	}
	var order []string
	groups := map[string][]*lsNode{}
	for _, n := range kept {
		k := key(n)
		if _, seen := groups[k]; !seen {
			order = append(order, k)
		}
		groups[k] = append(groups[k], n)
	}
	// feedback joins the trace of the run it names (a child run's counts for its trace), else
	// the trace its trace_id names; each record once
	fbByTrace := map[string][]lsFeedback{}
	seenFb := map[string]bool{}
	for _, f := range feedback {
		if f.rec.ID != "" {
			if seenFb[f.rec.ID] {
				continue
			}
			seenFb[f.rec.ID] = true
		}
		k := f.rec.Trace
		if n, ok := byID[f.rec.Run]; ok {
			k = key(n)
		}
		fbByTrace[k] = append(fbByTrace[k], f)
	}
	for _, k := range order {
		if err := ctx.Err(); err != nil {
			return err
		}
		t, err := lsTrace(k, groups[k], fbByTrace[k], o)
		if err != nil {
			return err
		}
		if err := fn(t); err != nil {
			return err
		}
	}
	return nil
}

// lsTrace puts one trace's runs together.
func lsTrace(id string, runs []*lsNode, feedback []lsFeedback, o Options) (*Trace, error) {
	sorted, root := lsOrder(runs)
	first := runs[0]
	t := &Trace{ID: id, File: first.src.rec.File, Line: first.src.rec.ErrorAt(first.at, "").Line, Shape: ShapeLangSmith}
	if err := lsIdentify(t, root); err != nil {
		return nil, err
	}
	b := NewConversations()
	var spent spending
	for _, n := range sorted {
		switch n.runType {
		case "llm", "chat_model":
			in, out, err := lsModelCall(n)
			if err != nil {
				return nil, err
			}
			u, err := lsUsage(n)
			if err != nil {
				return nil, err
			}
			b.Model(in, out)
			spent.add(u)
		case "tool":
			tc, err := lsToolRun(n)
			if err != nil {
				return nil, err
			}
			b.Tool(tc.event())
		}
	}
	t.Messages = b.Messages()
	usage, calls := spent.total, spent.calls
	if !usage.Recorded {
		u, _, err := lsCounters(root)
		if err != nil {
			return nil, err
		}
		usage = u
	} else {
		t.PerCall = calls
	}
	t.Usage = usage
	if !t.HasAgentTurn() {
		t.Crash = lsErrorText(root.run.Error)
	}
	out, err := lsOutcome(root, feedback, o.OutcomeScorer)
	if err != nil {
		return nil, err
	}
	t.Outcome = out
	return t, nil
}

// lsOrder puts a trace's runs in the order they ran: by their dotted order where every run has
// one, else by start time, depth and the order they were read. root is the first run whose
// parent is not among them.
func lsOrder(runs []*lsNode) (sorted []*lsNode, root *lsNode) {
	dotted := true
	for _, n := range runs {
		dotted = dotted && n.dotted != ""
	}
	sorted = append([]*lsNode(nil), runs...)
	sort.SliceStable(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		if dotted {
			return a.dotted < b.dotted
		}
		if a.start != b.start && a.start != "" && b.start != "" {
			return a.start < b.start
		}
		if a.depth != b.depth {
			return a.depth < b.depth
		}
		return a.order < b.order
	})
	in := make(map[string]bool, len(runs))
	for _, n := range runs {
		in[n.id] = true
	}
	root = sorted[0]
	for _, n := range sorted {
		if n.parentID == "" || !in[n.parentID] {
			root = n
			break
		}
	}
	return sorted, root
}

// lsIdentify gives t, the trace whose root run is root, its id (the root's, when it is the
// trace's or has no parent), its task (the dataset example) and its agent (the project).
func lsIdentify(t *Trace, root *lsNode) error {
	if root.id == t.ID || root.parentID == "" {
		t.ID = root.id
	}
	task, _, problem := idValue(rawRef(root.run.ReferenceExampleID))
	if problem != "" {
		return root.errAt(jsonscan.PathOf("reference_example_id"), "%s", problem)
	}
	t.Task = task
	for _, raw := range []json.RawMessage{root.run.SessionName, root.run.SessionID} {
		if s, _, _ := idValue(rawRef(raw)); s != "" {
			t.Agent = s
			break
		}
	}
	return nil
}

// lsModelCall reads an llm run's input messages (inputs.messages, a list or LangChain's list
// of one list per prompt; inputs.prompts, strings) and its output (outputs.generations,
// LangChain's LLMResult; outputs.choices, OpenAI's completion; outputs itself, a message).
func lsModelCall(n *lsNode) (in, out []Message, err error) {
	if in, err = lsModelInput(n); err != nil {
		return nil, nil, err
	}
	if out, err = lsModelOutput(n); err != nil {
		return nil, nil, err
	}
	return in, out, nil
}

// lsModelInput reads an llm run's input messages: inputs.messages, a list or LangChain's list
// of one list per prompt, or inputs.prompts, strings.
func lsModelInput(n *lsNode) (in []Message, err error) {
	var inputs struct {
		Messages json.RawMessage `json:"messages"`
		Prompts  json.RawMessage `json:"prompts"`
	}
	if k := jsonscan.KindOfValue(n.run.Inputs); k == jsonscan.KindObject {
		_ = json.Unmarshal(n.run.Inputs, &inputs)
	}
	list, key := inputs.Messages, "messages"
	if len(list) == 0 {
		list, key = inputs.Prompts, "prompts"
	}
	switch k := jsonscan.KindOfValue(list); k {
	case jsonscan.KindInvalid, jsonscan.KindNull:
	case jsonscan.KindArray:
		p := jsonscan.PathOf("inputs", key)
		if first := jsonscan.SkipSpace(list, 1); first < len(list) && list[first] == '[' {
			// a list per prompt (BaseChatModel's batch): the run's one prompt is the first
			end, _ := jsonscan.Skip(list, first)
			list, p = list[first:end], append(p, jsonscan.Step{IsIndex: true})
		}
		msgs, prob := chatMessages(list)
		if prob != nil {
			return nil, n.errAt(append(p, prob.at...), "%s", prob.msg)
		}
		in = msgs
	default:
		return nil, n.errAt(jsonscan.PathOf("inputs", key), "%s", jsonscan.Expected("a list of messages", k))
	}
	return in, nil
}

// lsModelOutput reads an llm run's output messages: outputs.generations (LangChain's
// LLMResult), outputs.choices (OpenAI's completion) or outputs itself (a message).
func lsModelOutput(n *lsNode) (out []Message, err error) {
	if jsonscan.KindOfValue(n.run.Outputs) != jsonscan.KindObject {
		return nil, nil
	}
	var outputs struct {
		Generations json.RawMessage `json:"generations"`
		Choices     json.RawMessage `json:"choices"`
		Role        json.RawMessage `json:"role"`
		Type        json.RawMessage `json:"type"`
		Content     json.RawMessage `json:"content"`
	}
	_ = json.Unmarshal(n.run.Outputs, &outputs)
	var gens []json.RawMessage
	var p jsonscan.Path
	switch {
	case len(outputs.Generations) > 0:
		p = jsonscan.PathOf("outputs", "generations")
		raw := outputs.Generations
		if first := jsonscan.SkipSpace(raw, 1); first < len(raw) && raw[first] == '[' {
			end, _ := jsonscan.Skip(raw, first)
			raw, p = raw[first:end], append(p, jsonscan.Step{IsIndex: true})
		}
		if k := jsonscan.KindOfValue(raw); k != jsonscan.KindArray {
			return nil, n.errAt(p, "%s", jsonscan.Expected("a list of generations", k))
		}
		_ = json.Unmarshal(raw, &gens)
		for i, g := range gens {
			var gen struct {
				Message json.RawMessage `json:"message"`
				Text    json.RawMessage `json:"text"`
			}
			if jsonscan.KindOfValue(g) != jsonscan.KindObject {
				return nil, n.errAt(append(p, jsonscan.Step{Index: i, IsIndex: true}), "%s", jsonscan.Expected("a generation (an object)", jsonscan.KindOfValue(g)))
			}
			_ = json.Unmarshal(g, &gen)
			if len(gen.Message) > 0 && jsonscan.KindOfValue(gen.Message) != jsonscan.KindNull {
				m, prob := chatMessageOf(gen.Message)
				if prob != nil {
					return nil, n.errAt(append(append(p, jsonscan.Step{Index: i, IsIndex: true}, jsonscan.Step{Key: "message"}), prob.at...), "%s", prob.msg)
				}
				out = append(out, m)
				continue
			}
			text, _ := stringValue(gen.Text)
			out = append(out, Message{Role: "assistant", Content: text})
		}
	case len(outputs.Choices) > 0:
		p = jsonscan.PathOf("outputs", "choices")
		if k := jsonscan.KindOfValue(outputs.Choices); k != jsonscan.KindArray {
			return nil, n.errAt(p, "%s", jsonscan.Expected("a list of choices", k))
		}
		_ = json.Unmarshal(outputs.Choices, &gens)
		for i, c := range gens {
			var choice struct {
				Message json.RawMessage `json:"message"`
			}
			_ = json.Unmarshal(c, &choice)
			if len(choice.Message) == 0 {
				continue
			}
			m, prob := chatMessageOf(choice.Message)
			if prob != nil {
				return nil, n.errAt(append(append(p, jsonscan.Step{Index: i, IsIndex: true}, jsonscan.Step{Key: "message"}), prob.at...), "%s", prob.msg)
			}
			out = append(out, m)
		}
	case len(outputs.Role) > 0 || (len(outputs.Type) > 0 && len(outputs.Content) > 0):
		m, prob := chatMessageOf(n.run.Outputs)
		if prob != nil {
			return nil, n.errAt(append(jsonscan.PathOf("outputs"), prob.at...), "%s", prob.msg)
		}
		out = append(out, m)
	}
	return out, nil
}

// lsToolInputs reads a tool run's inputs, an object, as LangSmith records them: the
// arguments are its "input" (LangChain's {"input": "…"} text, the Claude Agent SDK
// integration's {"input": <the call's arguments>}), else the inputs themselves; id is its
// tool_call_id where recorded.
func lsToolInputs(inputs json.RawMessage) (args []byte, valid bool, id string) {
	var in struct {
		Input      json.RawMessage `json:"input"`
		ToolCallID json.RawMessage `json:"tool_call_id"`
	}
	_ = json.Unmarshal(inputs, &in)
	if len(in.Input) > 0 {
		args, valid = rawArgs(in.Input)
	} else {
		args, valid = rawArgs(inputs)
	}
	id, _, _ = idValue(rawRef(in.ToolCallID))
	return args, valid, id
}

// lsToolRun reads a tool run as the call it answered: the tool is the run's name, the
// arguments its inputs (LangChain's {"input": "…"} text, else the inputs themselves), the
// result outputs.output (a ToolMessage's content and tool_call_id, or any value), failed when
// the run recorded an error or its ToolMessage says status "error".
func lsToolRun(n *lsNode) (toolRun, error) {
	tc := toolRun{Call: Call{Tool: n.name}}
	if tc.Tool == "" {
		return tc, n.errAt(jsonscan.PathOf("name"), "a tool run without a name")
	}
	if jsonscan.KindOfValue(n.run.Inputs) == jsonscan.KindObject {
		var id string
		tc.Args, tc.ArgsValid, id = lsToolInputs(n.run.Inputs)
		if id != "" {
			tc.ID, tc.HasID = id, true
		}
	}
	if tc.Args == nil {
		tc.Args, tc.ArgsValid = []byte("{}"), true
	}
	tc.Success = true
	if jsonscan.KindOfValue(n.run.Outputs) == jsonscan.KindObject {
		var outputs struct {
			Output json.RawMessage `json:"output"`
		}
		_ = json.Unmarshal(n.run.Outputs, &outputs)
		out := outputs.Output
		if len(out) == 0 {
			out = n.run.Outputs
		}
		tc.Result = rawText(out)
		if k := jsonscan.KindOfValue(out); k == jsonscan.KindObject {
			if m, prob := chatMessageOf(out); prob == nil && m.Role == "tool" && len(m.Results) > 0 {
				r := m.Results[0]
				tc.Result = m.Content
				if r.HasID && !tc.HasID {
					tc.ID, tc.HasID = r.CallID, true
				}
				if !r.Success {
					tc.Success, tc.Error = false, r.Error
				}
			}
		}
	}
	if e := lsErrorText(n.run.Error); e != "" {
		tc.Success, tc.Error = false, e
	}
	return tc, nil
}

// lsErrorText is a run's error as LangChain's tracer writes it (repr(error) followed by the
// traceback, langchain_core.tracers.base): the exception the traceback ends with.
func lsErrorText(raw []byte) string {
	s := crashString(raw)
	if i := strings.Index(s, "Traceback (most recent call last):"); i > 0 {
		q, _ := json.Marshal(s[i:])
		s = crashString(q)
	}
	return s
}

// lsUsage is an llm run's usage: the run's own counters, else those its outputs record.
func lsUsage(n *lsNode) (Usage, error) {
	u, any, err := lsCounters(n)
	if err != nil || any {
		return u, err
	}
	if jsonscan.KindOfValue(n.run.Outputs) != jsonscan.KindObject {
		return Usage{}, nil
	}
	var outputs struct {
		LLMOutput struct {
			TokenUsage json.RawMessage `json:"token_usage"`
			Usage      json.RawMessage `json:"usage"`
		} `json:"llm_output"`
		UsageMetadata json.RawMessage `json:"usage_metadata"`
		Usage         json.RawMessage `json:"usage"`
	}
	_ = json.Unmarshal(n.run.Outputs, &outputs)
	for _, c := range [...]struct {
		path jsonscan.Path
		raw  json.RawMessage
	}{
		{jsonscan.PathOf("outputs", "llm_output", "token_usage"), outputs.LLMOutput.TokenUsage},
		{jsonscan.PathOf("outputs", "llm_output", "usage"), outputs.LLMOutput.Usage},
		{jsonscan.PathOf("outputs", "usage_metadata"), outputs.UsageMetadata},
		{jsonscan.PathOf("outputs", "usage"), outputs.Usage},
	} {
		if jsonscan.KindOfValue(c.raw) != jsonscan.KindObject {
			continue
		}
		return usageObject(c.raw, func(key, problem string) error {
			return n.errAt(append(c.path, jsonscan.Step{Key: key}), "must be a non-negative integer, got %s", problem)
		})
	}
	return Usage{}, nil
}

// lsCounters reads a run's prompt_tokens, completion_tokens and total_tokens; recorded says
// whether any is a count above zero (the server writes zeros on runs that made no call).
func lsCounters(n *lsNode) (u Usage, recorded bool, err error) {
	var v [3]int64
	var present [3]bool
	for i, f := range [...]struct {
		key string
		raw json.RawMessage
	}{{"prompt_tokens", n.run.PromptTokens}, {"completion_tokens", n.run.CompletionTokens}, {"total_tokens", n.run.TotalTokens}} {
		c, ok, problem := tokenCount(rawRef(f.raw))
		if problem != "" {
			return u, false, n.errAt(jsonscan.PathOf(f.key), "must be a non-negative integer, got %s", problem)
		}
		v[i], present[i] = c, ok
	}
	if v[0] == 0 && v[1] == 0 && v[2] == 0 {
		return Usage{}, false, nil
	}
	u = Usage{Prompt: v[0], Completion: v[1], Total: v[2], Recorded: true}
	if !present[2] {
		u.Total = satAdd(u.Prompt, u.Completion)
	}
	return u, true, nil
}

// usageObject reads a usage object in OpenAI's terms (prompt_tokens, completion_tokens,
// total_tokens) or LangChain's and Anthropic's (input_tokens, output_tokens); bad says where a
// count is not one.
func usageObject(raw []byte, bad func(key, problem string) error) (Usage, error) {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(raw, &m)
	var v [5]int64
	var present [5]bool
	for i, key := range [...]string{"prompt_tokens", "completion_tokens", "total_tokens", "input_tokens", "output_tokens"} {
		c, ok, problem := tokenCount(rawRef(m[key]))
		if problem != "" {
			return Usage{}, bad(key, problem)
		}
		v[i], present[i] = c, ok
	}
	u := Usage{Prompt: v[0], Completion: v[1], Total: v[2], Recorded: true}
	if !present[0] {
		u.Prompt = v[3]
	}
	if !present[1] {
		u.Completion = v[4]
	}
	if !present[2] {
		u.Total = satAdd(u.Prompt, u.Completion)
	}
	return u, nil
}

// lsOutcome is the root run's outcome: its feedback under the key scorer names, from
// feedback_stats (the mean score, avg) or the feedback records naming it (their mean score).
// Without a scorer there is none, and Note names the keys the run has.
func lsOutcome(root *lsNode, records []lsFeedback, scorer string) (Outcome, error) {
	var stats map[string]json.RawMessage
	if k := jsonscan.KindOfValue(root.run.FeedbackStats); k == jsonscan.KindObject {
		_ = json.Unmarshal(root.run.FeedbackStats, &stats)
	} else if k != jsonscan.KindNull && k != jsonscan.KindInvalid {
		return Outcome{}, root.errAt(jsonscan.PathOf("feedback_stats"), "%s", jsonscan.Expected("an object of feedback keys", k))
	}
	keys := make([]string, 0, len(stats)+len(records))
	for k := range stats {
		keys = append(keys, k)
	}
	for _, f := range records {
		if _, ok := stats[f.rec.Key]; !ok {
			keys = append(keys, f.rec.Key)
		}
	}
	if len(keys) == 0 {
		return Outcome{}, nil
	}
	list := quotedList(keys)
	if scorer == "" {
		return Outcome{Note: "LangSmith feedback " + list + " not read as an outcome: name the key with outcome-scorer"}, nil
	}
	source := "feedback." + input.Cut(scorer)
	if raw, ok := stats[scorer]; ok {
		var st struct {
			Avg    json.RawMessage `json:"avg"`
			Values json.RawMessage `json:"values"`
		}
		p := jsonscan.PathOf("feedback_stats", scorer)
		if k := jsonscan.KindOfValue(raw); k != jsonscan.KindObject {
			return Outcome{}, root.errAt(p, "%s", jsonscan.Expected(`feedback stats {"n", "avg", …}`, k))
		}
		_ = json.Unmarshal(raw, &st)
		if jsonscan.KindOfValue(st.Avg) == jsonscan.KindNull || len(st.Avg) == 0 {
			return Outcome{}, root.errAt(p, "feedback %s has no numeric score (avg is null; its values are %s): not an outcome agentgate can read", input.Quote(scorer), input.Cut(rawText(st.Values)))
		}
		v, problem := outcomeNumber(st.Avg)
		if problem != "" {
			return Outcome{}, root.errAt(append(p, jsonscan.Step{Key: "avg"}), "%s", problem)
		}
		return Outcome{Known: true, Value: v, Source: source}, nil
	}
	var tally ScoreTally
	for _, f := range records {
		if f.rec.Key != scorer {
			continue
		}
		if f.rec.Problem != "" {
			return Outcome{}, f.node.errAt(f.rec.At, "%s", f.rec.Problem)
		}
		if f.rec.Value.Known {
			tally.Add(f.rec.Value)
		}
	}
	out := tally.Outcome(source)
	if !out.Known {
		return Outcome{}, root.errAt(nil, "has no feedback %s with a score (outcome-scorer); its feedback keys are %s", input.Quote(scorer), list)
	}
	return out, nil
}

// langSmithHarness is the registry's row of a LangSmith run export, recognised by a run's
// "run_type" beside "start_time", "trace_id" or "dotted_order" (the Run schema writes id,
// name, start_time, run_type first), in an object or the first element of an array.
var langSmithHarness = Harness{
	Format:     FormatLangSmith,
	Name:       "LangSmith runs",
	Recognised: "`run_type` beside `start_time`, `trace_id`, `dotted_order` or `parent_run_id` (an object, or an array's first)",
	Recognise: func(h *head) bool {
		has := recordKeys(h)
		return has("run_type") && (has("start_time") || has("trace_id") || has("dotted_order") || has("parent_run_id"))
	},
	Read:     readLangSmith,
	Turns:    "llm runs' inputs.messages and outputs.generations",
	Identity: "task: the root run's `reference_example_id` (the dataset example); agent: the experiment (`session_name`, else `session_id`); trace id: the root run's `id`",
	Outcome:  "the trace's feedback named by outcome-scorer (the root's `feedback_stats.<key>.avg`, or the mean of feedback records `{run_id, trace_id, key, score}` in the file, beside it or in `outcomes`); without it none, the keys listed",
	Usage:    "the llm runs' `prompt_tokens`, `completion_tokens` (else `outputs.llm_output.token_usage`, `usage_metadata`, `usage`); else the root's",
}

// langSmithFeedbackHarness is the registry's row of a file that starts with LangSmith feedback
// records (client.list_feedback: {"id", "created_at", "modified_at", "run_id", "trace_id",
// "key", "score", …}, one model_dump_json() a line). Under a folder, such a file is read with
// every LangSmith runs file of its directory (lsFeedbackFolder) and listed as a side file;
// named itself, or with no runs beside it, it is refused with the way to give it (as outcomes).
// A file of feedback followed by runs is read as runs.
var langSmithFeedbackHarness = Harness{
	Format:     FormatLangSmithFeedback,
	Name:       "LangSmith feedback",
	Recognised: "a feedback record's `run_id`, `key` and `score` or `feedback_source`, without `run_type` (an object, or an array's first)",
	Recognise: func(h *head) bool {
		has := recordKeys(h)
		return has("run_id") && has("key") && (has("score") || has("feedback_source")) && !has("run_type")
	},
	Read:     readLangSmith,
	Folder:   lsFeedbackFolder,
	Turns:    "the runs beside it (a file of feedback alone holds none)",
	Identity: "the trace each record joins: `trace_id`, else the trace of the run `run_id` names",
	Outcome:  "the key outcome-scorer names, the mean of a trace's records (`score`, else a boolean or numeric `value`); without it none, the keys listed",
	Usage:    "–",
}

// lsFeedbackFolder joins each file of LangSmith feedback found under a folder to the LangSmith
// runs files of its directory, which read it with their runs (docs/trace-formats.md,
// "LangSmith feedback kept apart"), and lists it as a side file; a feedback file with no runs
// file beside it is a side file that says to give it as outcomes.
func lsFeedbackFolder(files []File) (keep []File, skipped []Skipped) {
	runs := map[string]bool{}
	for _, f := range files {
		if f.Format == FormatLangSmith && f.Folder != "" {
			runs[filepath.Dir(f.Path)] = true
		}
	}
	with := map[string][]string{}
	for _, f := range files {
		if f.Format != FormatLangSmithFeedback || f.Folder == "" {
			continue
		}
		dir := filepath.Dir(f.Path)
		if !runs[dir] {
			skipped = append(skipped, Skipped{Path: f.Path, Folder: f.Folder, Why: "LangSmith feedback with no runs file beside it: give it as outcomes"})
			continue
		}
		with[dir] = append(with[dir], f.Path)
		skipped = append(skipped, Skipped{Path: f.Path, Folder: f.Folder, Why: "LangSmith feedback, read with the runs beside it"})
	}
	for _, f := range files {
		switch {
		case f.Format == FormatLangSmithFeedback && f.Folder != "":
			continue
		case f.Format == FormatLangSmith && f.Folder != "":
			f.With = append(append([]string(nil), f.With...), with[filepath.Dir(f.Path)]...)
		}
		keep = append(keep, f)
	}
	return keep, skipped
}
