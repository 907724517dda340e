package trace

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/internal/jsonscan"
)

// OpenHands' issue resolver (docs/trace-formats.md, "OpenHands resolver output"), read as its
// writer writes it (All-Hands-AI/OpenHands, openhands/resolver/issue_resolver.py,
// process_issue and resolve_issue): output/output.jsonl holds one ResolverOutput a line,
// output.model_dump_json() (resolver_output.py):
//
//	{"issue": {"owner", "repo", "number", "title", "body", …}, "issue_type": "issue"|"pr",
//	 "instruction", "base_commit", "git_patch", "history", "metrics", "success",
//	 "comment_success", "result_explanation", "error"}
//
// history is [dataclasses.asdict(event) for event in state.history]: each event's dataclass
// fields written flat, {"command", "thought", …, "action": "run"} or {"content", "command",
// "metadata": {"exit_code", …}, "observation": "run"} (exit_code at the top before
// CmdOutputMetadata), with none of the id, source, cause or tool_call_metadata that
// event_to_dict adds. The runtime runs one action at a time, so an observation answers the
// action just before it; a MessageAction is the user's unless it waits for a response (the
// agent's words to the user: CodeActAgent writes wait_for_response=True). metrics is
// Metrics.get() (accumulated_token_usage since 2025; accumulated_cost and costs alone before),
// success the resolver's own verdict (guess_success), error state.last_error ("Agent failed to
// run or crashed" when the run never started, history then []).

// ShapeOpenHandsResolver is an OpenHands resolver output record.
const ShapeOpenHandsResolver Shape = "openhands-resolver"

type ohResolverOutput struct {
	Issue *struct {
		Owner  json.RawMessage `json:"owner"`
		Repo   json.RawMessage `json:"repo"`
		Number json.RawMessage `json:"number"`
	} `json:"issue"`
	IssueType json.RawMessage `json:"issue_type"`
	History   json.RawMessage `json:"history"`
	Metrics   *ohMetrics      `json:"metrics"`
	Success   json.RawMessage `json:"success"`
	Error     json.RawMessage `json:"error"`
}

// ohResolverItems are the lists of a resolver output that decoding turns into a value per
// element (see itemShape): the history's events (event_to_dict's args and model responses
// where a fork wrote them so) and the per-call token usages. The first member is the history,
// whose size history() makes its messages at.
var ohResolverItems = itemShape{
	{key: "history", list: true, pairs: true, shape: itemShape{
		{key: "args", dict: true},
		{key: "tool_call_metadata", shape: itemShape{{key: "model_response", shape: ohResponseItems}}},
	}},
	{key: "metrics", shape: itemShape{{key: "token_usages", list: true}}},
}

// readOpenHandsResolver streams the runs of a resolver output.jsonl, one a line.
func readOpenHandsResolver(ctx context.Context, f File, _ Options, fn func(*Trace) error) error {
	return eachRecord(ctx, f.Path, decodeResolverOutput, fn)
}

func decodeResolverOutput(rec input.Record) (*Trace, error) {
	sizes, err := objectItems(rec, "an OpenHands resolver output", ohResolverItems)
	if err != nil {
		return nil, err
	}
	var r ohResolverOutput
	if err := rec.Decode(&r); err != nil {
		return nil, err
	}
	d := &ohReader{rec: rec, pos: lineCounter{data: rec.Data, line: 1}, events: sizes[0]}
	t := &Trace{File: rec.File, Line: rec.Line, Shape: ShapeOpenHandsResolver}
	if err := d.resolverIdentity(t, &r); err != nil {
		return nil, err
	}
	if len(r.History) == 0 {
		return nil, rec.ErrorAt(0, `an OpenHands resolver output (%s) without "history": the agent's turns are looked for there, and there is nothing to read`, t.ID)
	}
	if string(r.History) != "null" {
		if ohFlatHistory(rec.Data, jsonscan.Locate(rec.Data, jsonscan.PathOf("history"))) {
			d.flat = &ohFlat{}
		}
		if t.Messages, err = d.history(); err != nil {
			return nil, err
		}
	}
	if crash := crashString(r.Error); crash != "" && (!t.HasAgentTurn() || !d.finished) {
		// the error stopped the run (state.last_error is never cleared: a run that met a
		// rate limit and then finished keeps it, and is no crash)
		t.Crash = crash
	}
	if r.Metrics != nil && r.Metrics.Accumulated != nil {
		t.Agent = docString(rec.Data, "metrics", "accumulated_token_usage", "model")
	}
	if err := d.usage(t, &ohRecord{Metrics: r.Metrics}); err != nil {
		return nil, err
	}
	if r.Success != nil {
		o, ok, problem := ParseOutcome(r.Success, "success")
		if problem == "" && ok && !o.IsBool {
			problem = jsonscan.Expected("true or false", jsonscan.KindOfValue(r.Success))
		}
		if problem != "" {
			return nil, d.at(jsonscan.PathOf("success"), "%s", input.Field("success", problem))
		}
		t.Outcome = o
	}
	return t, nil
}

// resolverIdentity gives a resolver run its id and task, <owner>/<repo>/<issue_type>/<number>
// (neubig/pr-viewer/issue/5): an issue and a pull request of one number are two tasks, as
// GitLab numbers them apart.
func (d *ohReader) resolverIdentity(t *Trace, r *ohResolverOutput) error {
	if r.Issue == nil {
		return d.at(jsonscan.PathOf("issue"), "%s", input.Field("issue", "an OpenHands resolver output names its issue (owner, repo, number) here"))
	}
	var parts [4]string
	for i, f := range [...]struct {
		raw  json.RawMessage
		path jsonscan.Path
	}{
		{r.Issue.Owner, jsonscan.PathOf("issue", "owner")},
		{r.Issue.Repo, jsonscan.PathOf("issue", "repo")},
		{r.IssueType, jsonscan.PathOf("issue_type")},
		{r.Issue.Number, jsonscan.PathOf("issue", "number")},
	} {
		s, ok, problem := idValue(rawRef(f.raw))
		if problem == "" && (!ok || s == "") {
			problem = "missing: an OpenHands resolver output's run is known by its issue's owner, repo, type and number"
		}
		if problem != "" {
			return d.at(f.path, "%s", input.Field(f.path.String(), problem))
		}
		parts[i] = s
	}
	t.ID = parts[0] + "/" + parts[1] + "/" + parts[2] + "/" + parts[3]
	t.Task = t.ID
	return nil
}

// ohFlatHistory reports whether the history at data[at] holds events written flat
// (dataclasses.asdict, as the resolver writes them) rather than as event_to_dict writes them
// (a fork's, or an evaluation's output): its first event has none of "id", "source", "args",
// "extras" and "tool_call_metadata".
func ohFlatHistory(data []byte, at int) bool {
	flat := true
	first := true
	_, _ = jsonscan.EachElement(data, at, func(start, _ int) error {
		if !first {
			return errFound
		}
		first = false
		if jsonscan.KindOfValue(data[start:]) == jsonscan.KindArray { // an [action, observation] pair: event_to_dict's
			flat = false
			return errFound
		}
		_, _ = jsonscan.EachMember(data, start, func(key []byte, _, _ int) error {
			for _, k := range [...]string{"id", "source", "args", "extras", "tool_call_metadata"} {
				if jsonscan.KeyIs(key, k) {
					flat = false
					return errFound
				}
			}
			return nil
		})
		return errFound
	})
	return flat
}

// ohFlat reads a history of events written flat: it numbers the events, which carry no id,
// and answers an action with the observation that comes right after it.
type ohFlat struct {
	n    int    // the events read so far
	open string // the number of the last event while it is an action whose call nothing answered
	ev   ohFlatEvent
}

// ohFlatEvent is what is read of an event written flat: its kind, its words and a command's
// exit code.
type ohFlatEvent struct {
	Action          *string         `json:"action"`
	Observation     *string         `json:"observation"`
	Content         json.RawMessage `json:"content"`
	Thought         json.RawMessage `json:"thought"`
	FinalThought    json.RawMessage `json:"final_thought"`
	WaitForResponse *bool           `json:"wait_for_response"`
	ohExtras
}

// ohNews are the observations that answer no action of the agent's: the runtime's own news.
var ohNews = map[string]bool{"agent_state_changed": true, "null": true, "recall": true}

// event reads the flat event at data[at:end] into e as event_to_dict would have written it:
// its number as id, the source its kind tells, its fields as args (or extras), and, for an
// observation right after an open call, that call as its cause.
func (f *ohFlat) event(d *ohReader, at, end int, e *ohEvent) error {
	f.ev = ohFlatEvent{}
	if err := d.sub(at, end).Decode(&f.ev); err != nil {
		return err
	}
	e.ID = json.RawMessage(strconv.Itoa(f.n))
	f.n++
	e.Action, e.Observation, e.Content = f.ev.Action, f.ev.Observation, f.ev.Content
	switch {
	case e.Action != nil:
		e.Source = "agent"
		if *e.Action == "message" && (f.ev.WaitForResponse == nil || !*f.ev.WaitForResponse) || *e.Action == "recall" {
			e.Source = "user" // the task, codeact_user_response's replies, the recall the user's message asks
		}
		e.Args = map[string]json.RawMessage{}
		for k, v := range map[string]json.RawMessage{"content": f.ev.Content, "thought": f.ev.Thought, "final_thought": f.ev.FinalThought} {
			if v != nil {
				e.Args[k] = v
			}
		}
		e.flatArgs = flatArgs(d.rec.Data[at:end])
	case e.Observation != nil:
		e.Extras = &f.ev.ohExtras
		if f.open != "" && !ohNews[*e.Observation] {
			e.Cause = json.RawMessage(f.open)
		}
		f.open = ""
	}
	return nil
}

// after notes the call of the action just read, which the next observation answers.
func (f *ohFlat) after(e *ohEvent, m *Message) {
	if e.Action == nil {
		return
	}
	f.open = ""
	if len(m.Calls) > 0 {
		f.open = string(e.ID)
	}
}

// flatArgs are the arguments of an action written flat: the event's members but "action" (its
// kind) and "thought" (the agent's words, not the call: repeats of a call differ in them), in
// the order written.
func flatArgs(obj []byte) []byte {
	out := make([]byte, 0, len(obj))
	out = append(out, '{')
	_, _ = jsonscan.EachMember(obj, 0, func(key []byte, start, end int) error {
		if jsonscan.KeyIs(key, "action") || jsonscan.KeyIs(key, "thought") {
			return nil
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, key...)
		out = append(out, ':')
		out = append(out, obj[start:end]...)
		return nil
	})
	return append(out, '}')
}

// openHandsResolverHarness is the registry's row of OpenHands' resolver output: "issue" and
// "issue_type", the first two members ResolverOutput writes. Its agent ends a run with the
// finish tool, as OpenHands' evaluation runs do.
var openHandsResolverHarness = Harness{
	Format:        FormatOpenHandsResolver,
	Name:          "OpenHands resolver output",
	Recognised:    "`issue` and `issue_type`",
	Recognise:     func(h *head) bool { return h.has("issue") && h.has("issue_type") },
	Read:          readOpenHandsResolver,
	Turns:         `"history" (its events written flat)`,
	TerminalTools: []string{"finish"},
	Identity:      "task: `issue.owner`/`issue.repo`/`issue_type`/`issue.number`; agent: the model of `metrics.accumulated_token_usage`",
	Outcome:       "`success` (the resolver's own verdict)",
	Usage:         "`metrics.accumulated_token_usage` (prompt and completion tokens; cache tokens not added), with `metrics.token_usages` per call; none in files written before 2025 (`accumulated_cost` alone)",
}
