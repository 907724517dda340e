package trace

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/internal/jsonscan"
)

// Langfuse exports (docs/trace-formats.md, "Langfuse exports"), read as Langfuse writes them
// (langfuse/langfuse: web/src/features/traces/server/buildTraceExport.ts, the UI's trace
// download; worker/src/features/blobstorage/handleBlobStorageIntegrationProjectJob.ts and
// packages/shared/src/server/repositories/{traces,observations,scores}.ts, the blob-storage
// export; langfuse-python's api models, langfuse.api.trace.get):
//
//   - a trace as the API gives it: {"id", "timestamp", "name", "input", "output", "metadata",
//     "sessionId", "observations": [...], "scores": [...]};
//   - the UI's download: {"observations": [...], "scores": [...]} (the legacy one also
//     "trace");
//   - the blob-storage export's rows, JSON Lines with snake_case columns: traces
//     ({"id", "timestamp", "name", "metadata", "input", "output", …}), observations ({"id",
//     "trace_id", "type", "parent_observation_id", "start_time", "level", "status_message",
//     "input", "output", "usage_details", …}) and scores ({"trace_id", "observation_id",
//     "name", "value", "data_type", "string_value", …}), written to
//     <project>/traces/, <project>/observations/ and <project>/scores/, a file per time
//     window: under a folder, all the files of a project are read as one (lfFolder), since one
//     trace's rows may sit in several windows; every row is held until the last file is read
//     (at most maxDocument bytes together);
//   - dataset run items ({"datasetItemId", "traceId", "datasetRunName"}, or the API's list
//     {"data": [...]}) in the same file.
//
// Observations are camelCase in the API and the download, snake_case in the blob export; an
// input or output may be a JSON value or, as ClickHouse stores it, a string holding one.
// One trace is one agent run: its observations in start order. GENERATION observations are
// the model calls (input: a list of messages, or {"messages": [...]}; output: a message, a
// list of them, or text), TOOL observations the tool calls (name, input, output; level ERROR
// a failure with statusMessage); the other types (SPAN, EVENT, AGENT, CHAIN, RETRIEVER,
// EMBEDDING, EVALUATOR, GUARDRAIL) add no turn.
//
// Identity: the trace id is Langfuse's; the task is the dataset item the run belongs to
// (metadata.dataset_item_id, which run_experiment writes on its task observation, or a
// dataset run item's datasetItemId), so two experiments on one dataset compare run by run;
// the agent is the experiment run (metadata.experiment_run_name, or datasetRunName). Outcome:
// the trace's score outcome-scorer names (NUMERIC and BOOLEAN values; the mean where it is
// given more than once); without it none, and the report names the score names seen. Usage:
// the generations' usageDetails (input, output, total), else usage.

// ShapeLangfuse is a trace of a Langfuse export.
const ShapeLangfuse Shape = "langfuse"

// lfRecord is a top-level record of a Langfuse export file, in any of its forms (camelCase
// and snake_case members both).
type lfRecord struct {
	lfObservation
	Observations json.RawMessage `json:"observations"`
	Scores       json.RawMessage `json:"scores"`
	Trace        json.RawMessage `json:"trace"`
	Data         json.RawMessage `json:"data"`
	// a score's
	DataType    json.RawMessage `json:"dataType"`
	DataTypeS   json.RawMessage `json:"data_type"`
	Value       json.RawMessage `json:"value"`
	StringValue json.RawMessage `json:"stringValue"`
	StringValS  json.RawMessage `json:"string_value"`
	// a dataset run item's
	DatasetItemID  json.RawMessage `json:"datasetItemId"`
	DatasetRunName json.RawMessage `json:"datasetRunName"`
	// a trace's
	Timestamp json.RawMessage `json:"timestamp"`
}

// lfObservation is an observation, in either spelling.
type lfObservation struct {
	ID            json.RawMessage `json:"id"`
	TraceID       json.RawMessage `json:"traceId"`
	TraceIDS      json.RawMessage `json:"trace_id"`
	Type          json.RawMessage `json:"type"`
	Name          json.RawMessage `json:"name"`
	ParentID      json.RawMessage `json:"parentObservationId"`
	ParentIDS     json.RawMessage `json:"parent_observation_id"`
	StartTime     json.RawMessage `json:"startTime"`
	StartTimeS    json.RawMessage `json:"start_time"`
	Level         json.RawMessage `json:"level"`
	StatusMessage json.RawMessage `json:"statusMessage"`
	StatusMsgS    json.RawMessage `json:"status_message"`
	Input         json.RawMessage `json:"input"`
	Output        json.RawMessage `json:"output"`
	Metadata      json.RawMessage `json:"metadata"`
	UsageDetails  json.RawMessage `json:"usageDetails"`
	UsageDetailsS json.RawMessage `json:"usage_details"`
	Usage         json.RawMessage `json:"usage"`
	ObservationID json.RawMessage `json:"observationId"`
	ObservationS  json.RawMessage `json:"observation_id"`
}

// lfNode is an observation, a score, a trace row or a dataset run item read from a file.
type lfNode struct {
	src       *lsSource
	at        int
	path      jsonscan.Path // where the value is under the record
	kind      byte          // 'o' observation, 's' score, 't' trace, 'd' dataset run item
	obs       lfObservation
	rec       *lfRecord
	id, trace string
	typ, name string
	parent    string
	start     string
	order     int
	depth     int
	score     ScoreRecord // a score's
}

func (n *lfNode) errAt(p jsonscan.Path, format string, args ...any) error {
	data := n.src.rec.Data
	full := append(append(jsonscan.Path(nil), n.path...), p...)
	off := jsonscan.Locate(data, full)
	if off < 0 {
		off = n.at
	}
	msg := fmt.Sprintf(format, args...)
	if name := pathString(full); name != "" {
		msg = input.Field(name, msg)
	}
	what := ""
	if n.kind == 'o' && n.id != "" {
		what = fmt.Sprintf("observation %s (%s", input.Quote(n.id), n.typ)
		if n.name != "" {
			what += " " + input.Quote(n.name)
		}
		what += "): "
	}
	return n.src.rec.ErrorAt(off, "%s", what+msg)
}

// lfFile is what a Langfuse export file (and the blob export's files beside it) holds.
type lfFile struct {
	nodes []*lfNode
	size  int64
}

// readLangfuse is the Langfuse row's reader: the file, with the files of the blob export read
// with it as one (the folder rule's, lfFolder; else the scores and traces beside an observations
// file named itself). A file of those that is empty (a window without rows of its table) adds
// nothing.
func readLangfuse(ctx context.Context, f File, o Options, fn func(*Trace) error) error {
	with := f.With
	if with == nil {
		with = lfBeside(f.Path)
	}
	lf := &lfFile{}
	for i, p := range append([]string{f.Path}, with...) {
		err := input.Each(p, func(rec input.Record) error { return lf.record(ctx, rec) })
		if err != nil && !(i > 0 && input.IsEmptyFile(err)) {
			return err
		}
	}
	return lf.traces(ctx, o, fn)
}

// lfFolder reads each Langfuse blob-storage export as one input (docs/trace-formats.md,
// "Langfuse exports"): the export writes one file per table and time window
// (<project>/observations/<window end>.jsonl), and one trace's observations, scores and traces
// row may sit in several windows, so the first observations file of a project is read with every
// other file of its observations/, scores/ and traces/ folders, and the others are not read on
// their own. That holds for its observations files named themselves too (a glob of the
// windows). A file the plan did not tell as Langfuse's (an empty window) goes with them.
func lfFolder(files []File) (keep []File, skipped []Skipped) {
	anchor := map[string]int{} // a project's folder: the index of its first observations file
	project := func(f File) (string, string) {
		dir := filepath.Dir(f.Path)
		return filepath.Dir(dir), filepath.Base(dir)
	}
	for i, f := range files {
		if p, table := project(f); f.Format == FormatLangfuse && table == "observations" {
			if _, ok := anchor[p]; !ok {
				anchor[p] = i
			}
		}
	}
	with := map[string][]string{}
	drop := make([]bool, len(files))
	for i, f := range files {
		p, table := project(f)
		a, ok := anchor[p]
		if !ok || a == i {
			continue
		}
		switch {
		case table == "observations":
			with[p] = append(with[p], f.Path)
			drop[i] = true
		case f.Folder == "":
		case table == "scores", table == "traces":
			drop[i] = true
			skipped = append(skipped, Skipped{Path: f.Path, Folder: f.Folder, Why: "Langfuse " + table + ", read with the observations beside them"})
		}
	}
	for i, f := range files {
		if drop[i] {
			continue
		}
		if p, _ := project(f); anchor[p] == i {
			if _, ok := anchor[p]; ok {
				f.With = append(append([]string(nil), with[p]...), lfBeside(f.Path)...)
			}
		}
		keep = append(keep, f)
	}
	return keep, skipped
}

// eachLangfuse reads the records records streams (the fuzz target's way in).
func eachLangfuse(ctx context.Context, records func(func(input.Record) error) error, o Options, fn func(*Trace) error) error {
	lf := &lfFile{}
	if err := records(func(rec input.Record) error { return lf.record(ctx, rec) }); err != nil {
		return err
	}
	return lf.traces(ctx, o, fn)
}

// lfBeside are the blob export's scores and traces files of the project an observations file
// at path belongs to (<project>/observations/<time>.jsonl: <project>/scores/*, <project>/traces/*),
// in name order; none for a file elsewhere.
func lfBeside(path string) []string {
	dir := filepath.Dir(path)
	if filepath.Base(dir) != "observations" {
		return nil
	}
	var out []string
	for _, table := range []string{"scores", "traces"} {
		entries, err := os.ReadDir(filepath.Join(filepath.Dir(dir), table))
		if err != nil {
			continue
		}
		for _, e := range entries {
			if !e.IsDir() && input.Supported(e.Name()) {
				out = append(out, filepath.Join(filepath.Dir(dir), table, e.Name()))
			}
		}
	}
	return out
}

// lfSide says why a file of the blob export's scores or traces is not read on its own: the
// observations file beside it reads it.
func lfSide(path string) string {
	dir := filepath.Dir(path)
	table := filepath.Base(dir)
	if table != "scores" && table != "traces" && table != "manifests" {
		return ""
	}
	if fi, err := os.Stat(filepath.Join(filepath.Dir(dir), "observations")); err == nil && fi.IsDir() {
		if table == "manifests" {
			return "Langfuse export manifest, the files of one export run"
		}
		return "Langfuse " + table + ", read with the observations beside them"
	}
	return ""
}

// record reads one top-level record.
func (lf *lfFile) record(ctx context.Context, rec input.Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if lf.size += int64(len(rec.Data)); lf.size > maxDocument {
		return rec.ErrorAt(0, "%v", errTooLarge())
	}
	if err := jsonscan.Validate(rec.Data); err != nil {
		return rec.Decode(new(any)) // the syntax error, placed
	}
	src := &lsSource{rec: rec}
	src.rec.Data = bytes.Clone(rec.Data)
	return lf.value(src, jsonscan.SkipSpace(src.rec.Data, 0), nil, "")
}

// value reads the record or list element at offset at (path p under the record); trace is
// the id of the trace holding it, "" at the top.
func (lf *lfFile) value(src *lsSource, at int, p jsonscan.Path, trace string) error {
	data := src.rec.Data
	n := &lfNode{src: src, at: at, path: p, order: len(lf.nodes)}
	if k := jsonscan.KindOfValue(data[at:]); k != jsonscan.KindObject {
		return n.errAt(nil, "%s", jsonscan.Expected("a Langfuse trace, observation or score (a JSON object)", k))
	}
	end, _ := jsonscan.Skip(data, at)
	var r lfRecord
	if err := rawFields(data, at, &r); err != nil {
		return n.errAt(nil, "%v", err)
	}
	n.rec, n.obs = &r, r.lfObservation
	if err := n.readNames(trace); err != nil {
		return err
	}
	// list reads the list raw, at keys under the record
	list := func(raw json.RawMessage, trace string, keys ...any) error {
		switch k := jsonscan.KindOfValue(raw); k {
		case jsonscan.KindInvalid, jsonscan.KindNull:
			return nil
		case jsonscan.KindArray:
		default:
			return n.errAt(jsonscan.PathOf(keys...), "%s", jsonscan.Expected("a list", k))
		}
		lp := append(append(jsonscan.Path(nil), p...), jsonscan.PathOf(keys...)...)
		start := jsonscan.Locate(data[at:end], jsonscan.PathOf(keys...))
		i := 0
		_, err := jsonscan.EachElement(data, at+start, func(s, _ int) error {
			err := lf.value(src, s, append(append(jsonscan.Path(nil), lp...), jsonscan.Step{Index: i, IsIndex: true}), trace)
			i++
			return err
		})
		return err
	}
	switch {
	case len(r.Observations) > 0 && string(r.Observations) != "null" || (len(r.Scores) > 0 && string(r.Scores) != "null" && p == nil):
		// a trace with its observations and scores: the API's, or the UI's download
		id := n.id
		if jsonscan.KindOfValue(r.Trace) == jsonscan.KindObject {
			var t lfRecord
			_ = rawFields(r.Trace, 0, &t)
			id, _, _ = idValue(rawRef(t.ID))
			tn := &lfNode{src: src, at: at + jsonscan.Locate(data[at:end], jsonscan.PathOf("trace")), path: append(append(jsonscan.Path(nil), p...), jsonscan.Step{Key: "trace"}),
				kind: 't', id: id, trace: id, rec: &t, obs: t.lfObservation, order: len(lf.nodes)}
			lf.nodes = append(lf.nodes, tn)
		} else if id != "" {
			n.kind, n.trace = 't', id
			lf.nodes = append(lf.nodes, n)
		}
		if err := list(r.Observations, id, "observations"); err != nil {
			return err
		}
		if scores := jsonscan.KindOfValue(r.Scores); (scores == jsonscan.KindInvalid || scores == jsonscan.KindNull) && jsonscan.KindOfValue(r.Trace) == jsonscan.KindObject {
			// the legacy download and the tRPC trace (traces.byIdWithObservationsAndScores)
			// keep the scores inside "trace"
			var t lfRecord
			_ = rawFields(r.Trace, 0, &t)
			return list(t.Scores, id, "trace", "scores")
		}
		return list(r.Scores, id, "scores")
	case jsonscan.KindOfValue(r.Data) == jsonscan.KindArray && p == nil: // an API list: {"data": [...], "meta"}
		return list(r.Data, "", "data")
	case len(r.DatasetItemID) > 0:
		n.kind = 'd'
	case len(either(r.DataType, r.DataTypeS)) > 0 || (len(r.Value) > 0 && n.typ == ""):
		n.kind = 's'
		n.score = ScoreRecord{Platform: "Langfuse score", ID: n.id, Trace: n.trace, Key: n.name}
		n.score.Value, n.score.Problem, n.score.At = lfScoreValue(n.name, either(r.DataType, r.DataTypeS), r.Value, either(r.StringValue, r.StringValS))
	case n.typ != "":
		n.kind = 'o'
		if n.id == "" {
			return n.errAt(nil, `a Langfuse observation without an "id"`)
		}
	case n.id != "" && len(r.Timestamp) > 0:
		n.kind, n.trace = 't', n.id
	default:
		return n.errAt(nil, `expected a Langfuse trace, observation ("type"), score ("dataType") or dataset run item ("datasetItemId")`)
	}
	if n.trace == "" {
		return n.errAt(nil, "a Langfuse %s without a trace id (traceId or trace_id)", map[byte]string{'d': "dataset run item", 's': "score", 'o': "observation"}[n.kind])
	}
	lf.nodes = append(lf.nodes, n)
	return nil
}

// readNames reads the ids and names of n's record: its id, its trace's (trace, the id of the
// trace holding it, where the record names none), its type, name, parent observation and start
// time, each a string or a number.
func (n *lfNode) readNames(trace string) error {
	r := n.rec
	str := func(key string, raw json.RawMessage) (string, error) {
		v, _, problem := idValue(rawRef(raw))
		if problem != "" {
			return "", n.errAt(jsonscan.PathOf(key), "%s", problem)
		}
		return v, nil
	}
	var err error
	if n.id, err = str("id", r.ID); err != nil {
		return err
	}
	if n.trace, err = str("traceId", either(r.TraceID, r.TraceIDS)); err != nil {
		return err
	}
	if n.trace == "" {
		n.trace = trace
	}
	if n.typ, err = str("type", r.Type); err != nil {
		return err
	}
	n.typ = strings.ToUpper(n.typ)
	if n.name, err = str("name", r.Name); err != nil {
		return err
	}
	if n.parent, err = str("parentObservationId", either(r.ParentID, r.ParentIDS)); err != nil {
		return err
	}
	n.start, err = str("startTime", either(r.StartTime, r.StartTimeS))
	return err
}

// traces puts the observations of each trace together and hands the traces to fn in the
// order they started (the earliest of the trace's timestamp and its observations' start
// times; then by id), which no split of the rows into files or windows changes.
func (lf *lfFile) traces(ctx context.Context, o Options, fn func(*Trace) error) error {
	var order []string
	groups := map[string][]*lfNode{}
	seen := map[string]bool{}
	began := map[string]string{}
	for _, n := range lf.nodes {
		if n.kind == 'o' || n.kind == 's' && n.id != "" {
			key := string(n.kind) + n.trace + "\x00" + n.id
			if seen[key] {
				continue // the same observation or score twice (the blob export's windows share their bounds)
			}
			seen[key] = true
		}
		if _, ok := groups[n.trace]; !ok {
			order = append(order, n.trace)
		}
		groups[n.trace] = append(groups[n.trace], n)
		at := n.start
		if n.kind == 't' {
			at, _ = stringValue(n.rec.Timestamp)
		}
		if b, ok := began[n.trace]; at != "" && (!ok || b == "" || at < b) {
			began[n.trace] = at
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := began[order[i]], began[order[j]]
		if a != b {
			return a < b
		}
		return order[i] < order[j]
	})
	read := 0
	for _, id := range order {
		if err := ctx.Err(); err != nil {
			return err
		}
		nodes := groups[id]
		has := false
		for _, n := range nodes {
			has = has || n.kind == 'o' || n.kind == 't'
		}
		if !has {
			continue // scores or run items of a trace this input does not hold
		}
		t, err := lfTrace(id, nodes, o)
		if err != nil {
			return err
		}
		if err := fn(t); err != nil {
			return err
		}
		read++
	}
	if read == 0 && len(lf.nodes) > 0 {
		n := lf.nodes[0]
		return n.src.rec.ErrorAt(n.at, "a file of Langfuse scores or dataset run items and no trace: they are read with the traces they name (the observations in the same file, or the blob export's observations/ beside scores/)")
	}
	return nil
}

// lfTrace puts one trace together.
func lfTrace(id string, nodes []*lfNode, o Options) (*Trace, error) {
	p := lfPartsOf(nodes)
	wrapper := p.orderObservations()
	first := nodes[0]
	t := &Trace{ID: id, File: first.src.rec.File, Line: first.src.rec.ErrorAt(first.at, "").Line, Shape: ShapeLangfuse}
	p.identify(t)
	b := NewConversations()
	var spent spending
	crash := ""
	for _, n := range p.obs {
		failed := strings.EqualFold(strings.Trim(string(n.obs.Level), `"`), "ERROR")
		status, _ := stringValue(either(n.obs.StatusMessage, n.obs.StatusMsgS))
		switch n.typ {
		case "GENERATION":
			if wrapper[n] {
				continue
			}
			in, out, err := lfModelCall(n)
			if err != nil {
				return nil, err
			}
			u, err := lfUsage(n)
			if err != nil {
				return nil, err
			}
			b.Model(in, out)
			spent.add(u)
		case "TOOL":
			tc, err := lfToolRun(n, failed, status)
			if err != nil {
				return nil, err
			}
			b.Tool(tc.event())
		}
		if failed && crash == "" {
			crash = status
		}
	}
	t.Messages = b.Messages()
	if usage, calls := spent.total, spent.calls; usage.Recorded {
		t.Usage, t.PerCall = usage, calls
	}
	if !t.HasAgentTurn() && crash != "" {
		q, _ := json.Marshal(crash)
		t.Crash = crashString(q)
	}
	out, err := lfOutcome(t, p.scores, o.OutcomeScorer)
	if err != nil {
		return nil, err
	}
	t.Outcome = out
	return t, nil
}

// lfParts are the rows of one trace by kind: its observations (by id in byID), its scores,
// its trace row and its dataset run item (the first of each).
type lfParts struct {
	obs, scores    []*lfNode
	traceRow, item *lfNode
	byID           map[string]*lfNode
}

// lfPartsOf sorts the rows of one trace by kind.
func lfPartsOf(nodes []*lfNode) lfParts {
	p := lfParts{byID: map[string]*lfNode{}}
	for _, n := range nodes {
		switch n.kind {
		case 'o':
			p.obs = append(p.obs, n)
			p.byID[n.id] = n
		case 's':
			p.scores = append(p.scores, n)
		case 't':
			if p.traceRow == nil {
				p.traceRow = n
			}
		case 'd':
			if p.item == nil {
				p.item = n
			}
		}
	}
	return p
}

// orderObservations puts the observations in the order they ran: by start time, then depth
// (a parent before its children that start with it), then the order they were read. It
// returns the generations that wrap another model call: a GENERATION that holds a generation
// with its own output (the Vercel AI SDK's ai.generateText around ai.generateText.doGenerate),
// whose call is its descendant.
func (p *lfParts) orderObservations() map[*lfNode]bool {
	obs := p.obs
	// ancestors calls fn with each ancestor of n found among the observations, nearest first
	ancestors := func(n *lfNode, fn func(q *lfNode)) {
		a := n
		for i := 0; i < len(obs) && a.parent != ""; i++ {
			q, ok := p.byID[a.parent]
			if !ok {
				break
			}
			fn(q)
			a = q
		}
	}
	for _, n := range obs {
		ancestors(n, func(*lfNode) { n.depth++ })
	}
	wrapper := map[*lfNode]bool{}
	for _, n := range obs {
		if n.typ != "GENERATION" {
			continue
		}
		ancestors(n, func(q *lfNode) {
			if q.typ == "GENERATION" && bytes.Equal(bytes.TrimSpace(lfValue(q.obs.Output)), bytes.TrimSpace(lfValue(n.obs.Output))) {
				wrapper[q] = true
			}
		})
	}
	sort.SliceStable(obs, func(i, j int) bool {
		a, b := obs[i], obs[j]
		if a.start != b.start {
			return a.start < b.start
		}
		if a.depth != b.depth {
			return a.depth < b.depth
		}
		return a.order < b.order
	})
	return wrapper
}

// identify gives t its task and agent: the dataset item and experiment run named in the
// metadata of the trace row or of an observation, else the dataset run item's.
func (p *lfParts) identify(t *Trace) {
	metas := []*lfNode{}
	if p.traceRow != nil {
		metas = append(metas, p.traceRow)
	}
	metas = append(metas, p.obs...)
	for _, n := range metas {
		var m struct {
			Item json.RawMessage `json:"dataset_item_id"`
			Run  json.RawMessage `json:"experiment_run_name"`
		}
		if lfObject(n.obs.Metadata, &m) {
			if s, _, _ := idValue(rawRef(m.Item)); s != "" && t.Task == "" {
				t.Task = s
				t.Agent, _, _ = idValue(rawRef(m.Run))
			}
		}
	}
	if t.Task == "" && p.item != nil {
		t.Task, _, _ = idValue(rawRef(p.item.rec.DatasetItemID))
		t.Agent, _, _ = idValue(rawRef(p.item.rec.DatasetRunName))
	}
}

// lfToolRun is a TOOL observation's call and result; failed and status are its level's ERROR
// and its status message.
func lfToolRun(n *lfNode, failed bool, status string) (toolRun, error) {
	if n.name == "" {
		return toolRun{}, n.errAt(jsonscan.PathOf("name"), "a TOOL observation without a name")
	}
	// a span of the OTel GenAI conventions keeps its name, "execute_tool <tool>", and its
	// attributes under metadata.attributes, gen_ai.tool.name among them. Its
	// gen_ai.tool.call.id is not read: the calls the generations record may have none
	// (Gemini's), and the tool answers the open call of its name.
	tool := strings.TrimSpace(strings.TrimPrefix(n.name, "execute_tool "))
	var md struct {
		Attributes struct {
			Name json.RawMessage `json:"gen_ai.tool.name"`
			Kind json.RawMessage `json:"langsmith.span.kind"`
		} `json:"attributes"`
	}
	lfObject(n.obs.Metadata, &md)
	if s, ok := stringValue(md.Attributes.Name); ok && s != "" {
		tool = s
	}
	tc := toolRun{Call: Call{Tool: tool}, Success: !failed}
	if in := lfValue(n.obs.Input); len(md.Attributes.Kind) > 0 && jsonscan.KindOfValue(in) == jsonscan.KindObject {
		// a LangSmith tool run sent on over OpenTelemetry: its inputs as LangSmith keeps them
		// (the Claude Agent SDK integration's {"input": <the call's arguments>})
		var id string
		if tc.Args, tc.ArgsValid, id = lsToolInputs(in); id != "" {
			tc.ID, tc.HasID = id, true
		}
	} else {
		tc.Args, tc.ArgsValid = lfJSON(n.obs.Input)
	}
	if tc.Args == nil {
		tc.Args, tc.ArgsValid = []byte("{}"), true
	}
	tc.Result = lfText(n.obs.Output)
	if failed {
		tc.Error = status
		if tc.Error == "" {
			tc.Error = "the observation's level is ERROR"
		}
	}
	return tc, nil
}

// lfObject decodes raw, an object or a string holding one, into v.
func lfObject(raw json.RawMessage, v any) bool {
	raw = lfValue(raw)
	return jsonscan.KindOfValue(raw) == jsonscan.KindObject && json.Unmarshal(raw, v) == nil
}

// lfValue is an input, output or metadata value: a string that holds a JSON object, array or
// string (as ClickHouse keeps them, JSON text) is that JSON.
func lfValue(raw json.RawMessage) json.RawMessage {
	if s, ok := stringValue(raw); ok {
		t := strings.TrimSpace(s)
		if len(t) > 0 && (t[0] == '{' || t[0] == '[' || t[0] == '"') && jsonscan.Validate([]byte(t)) == nil {
			return json.RawMessage(t)
		}
	}
	return raw
}

// lfJSON is a tool's input as arguments.
func lfJSON(raw json.RawMessage) ([]byte, bool) { return rawArgs(lfValue(raw)) }

// lfText is a tool's output as its result's text.
func lfText(raw json.RawMessage) string { return rawText(lfValue(raw)) }

// lfModelCall reads a generation's input and output as the tracers of many frameworks record
// them: a list of messages (OpenAI's, LangChain's, Anthropic's, Gemini's contents), an object
// holding one ({"messages"}, {"contents"}, {"choices"}, {"candidates"}, {"content"}), a
// prompt ({"prompt"}, {"args": [...]}, a string), the Vercel AI SDK's list of tool calls. An
// input of another shape is the run's user turn as its text, an output of another shape the
// model's answer as its text: what a framework records there is its own, not a malformed export.
func lfModelCall(n *lfNode) (in, out []Message, err error) {
	if in, err = lfMessages(n, "input", n.obs.Input, "user"); err != nil {
		return nil, nil, err
	}
	out, err = lfMessages(n, "output", n.obs.Output, "assistant")
	return in, out, err
}

// lfMessages reads an input or output (key) as messages; role is the role of text.
func lfMessages(n *lfNode, key string, raw json.RawMessage, role string) ([]Message, error) {
	v := lfValue(raw)
	text := func() []Message { return []Message{{Role: role, Content: rawText(v)}} }
	switch k := jsonscan.KindOfValue(v); k {
	case jsonscan.KindInvalid, jsonscan.KindNull:
		return nil, nil
	case jsonscan.KindArray:
		var first struct {
			ToolName json.RawMessage `json:"toolName"`
		}
		var elems []json.RawMessage
		_ = json.Unmarshal(v, &elems)
		if key == "input" {
			v, elems = lfWithoutToolDefinitions(v, elems)
		}
		if slices.ContainsFunc(elems, lfResponsesItem) { // the Responses API's items (OpenInference's openai_agents)
			if ms, prob := responseItems(v); prob == nil {
				return ms, nil
			}
		}
		if len(elems) > 0 && json.Unmarshal(elems[0], &first) == nil && len(first.ToolName) > 0 {
			calls, prob := chatCalls(v) // the Vercel AI SDK's tool calls
			if prob == nil {
				return []Message{{Role: "assistant", Calls: calls}}, nil
			}
		}
		if ms, prob := chatMessages(v); prob == nil {
			return lfToolNameRoles(ms), nil
		}
		return text(), nil
	case jsonscan.KindObject:
	default:
		return text(), nil
	}
	var w struct {
		Object     string          `json:"object"`
		Output     json.RawMessage `json:"output"`
		Message    json.RawMessage `json:"message"`
		Messages   json.RawMessage `json:"messages"`
		Contents   json.RawMessage `json:"contents"`
		Choices    json.RawMessage `json:"choices"`
		Candidates json.RawMessage `json:"candidates"`
		Content    json.RawMessage `json:"content"`
		Prompt     json.RawMessage `json:"prompt"`
		Args       json.RawMessage `json:"args"`
	}
	_ = json.Unmarshal(v, &w)
	if w.Object == "response" && jsonscan.KindOfValue(w.Output) == jsonscan.KindArray { // a Responses API Response: its output items
		if ms, prob := responseItems(w.Output); prob == nil {
			return ms, nil
		}
	}
	for _, list := range []json.RawMessage{w.Messages, w.Contents, w.Args} {
		switch jsonscan.KindOfValue(list) {
		case jsonscan.KindArray:
			if ms, prob := chatMessages(list); prob == nil {
				for i := range ms {
					if ms[i].Role == "" {
						ms[i].Role = role
					}
				}
				return ms, nil
			}
			return text(), nil
		case jsonscan.KindString:
			s, _ := stringValue(list)
			return []Message{{Role: role, Content: s}}, nil
		}
	}
	if s, ok := stringValue(w.Prompt); ok {
		return []Message{{Role: role, Content: s}}, nil
	}
	for _, list := range []json.RawMessage{w.Choices, w.Candidates} {
		if jsonscan.KindOfValue(list) != jsonscan.KindArray {
			continue
		}
		var items []struct {
			Message json.RawMessage `json:"message"`
			Content json.RawMessage `json:"content"`
		}
		_ = json.Unmarshal(list, &items)
		var ms []Message
		for _, it := range items {
			m, prob := chatMessageAs(either(it.Message, it.Content), role)
			if prob != nil {
				return text(), nil
			}
			ms = append(ms, m)
		}
		return ms, nil
	}
	if jsonscan.KindOfValue(w.Message) == jsonscan.KindObject { // one choice, as the gen_ai.choice event's body: {"index", "finish_reason", "message"}
		if m, prob := chatMessageAs(w.Message, role); prob == nil {
			return []Message{m}, nil
		}
	}
	if jsonscan.KindOfValue(w.Content) == jsonscan.KindObject { // Gemini's {"content": {"parts", "role"}}
		if m, prob := chatMessageAs(w.Content, role); prob == nil {
			return []Message{m}, nil
		}
	}
	if m, prob := chatMessageAs(v, role); prob == nil {
		return []Message{m}, nil
	}
	return text(), nil
}

// lfResponsesItem reports whether e is a Responses API item no chat message list holds: a
// function_call, function_call_output or mcp_call (responsesapi.go), as OpenInference's
// openai_agents instrumentation records a response span's input.
func lfResponsesItem(e json.RawMessage) bool {
	var it struct {
		Type string `json:"type"`
	}
	if jsonscan.KindOfValue(e) != jsonscan.KindObject || json.Unmarshal(e, &it) != nil {
		return false
	}
	return it.Type == "function_call" || it.Type == "function_call_output" || it.Type == "mcp_call"
}

// lfToolNameRoles makes each message of ms whose role is the name of a tool an earlier message
// called, and not yet answered, the result of that call: langfuse-js's LangChain
// CallbackHandler writes a ToolMessage as {"content", "additional_kwargs", "role": <the tool's
// name>}, without its tool_call_id (docs/trace-formats.md, "Langfuse exports"). The first open
// call of the tool is answered, as the tools ran in the order they were called.
func lfToolNameRoles(ms []Message) []Message {
	answered := map[string]bool{}
	for i := range ms {
		m := &ms[i]
		for _, r := range m.Results {
			answered[r.CallID] = true
		}
		if _, known := chatRoles[strings.ToLower(m.Role)]; known || m.Role == "" || len(m.Calls) > 0 || len(m.Results) > 0 {
			continue
		}
	calls:
		for _, prev := range ms[:i] {
			for _, c := range prev.Calls {
				if c.Tool == m.Role && c.HasID && !answered[c.ID] {
					answered[c.ID] = true
					m.Role, m.Results = "tool", []Result{messageResult(c.ID, m.Content)}
					break calls
				}
			}
		}
	}
	return ms
}

// lfWithoutToolDefinitions is the input list v (its elements elems) without the tool
// definitions langfuse-python's LangChain CallbackHandler appends to a generation's input, each
// as {"role": "tool", "content": {"type": "function", "function": {…}}} with no tool_call_id
// (langfuse/langchain/CallbackHandler.py, __on_llm_action): the tools the model was offered,
// not messages, and no results (docs/trace-formats.md, "Langfuse exports").
func lfWithoutToolDefinitions(v json.RawMessage, elems []json.RawMessage) (json.RawMessage, []json.RawMessage) {
	isDefinition := func(e json.RawMessage) bool {
		var m struct {
			Role       string          `json:"role"`
			ToolCallID json.RawMessage `json:"tool_call_id"`
			Content    struct {
				Type     string          `json:"type"`
				Function json.RawMessage `json:"function"`
			} `json:"content"`
		}
		return jsonscan.KindOfValue(e) == jsonscan.KindObject && json.Unmarshal(e, &m) == nil && m.Role == "tool" &&
			len(m.ToolCallID) == 0 && m.Content.Type == "function" && jsonscan.KindOfValue(m.Content.Function) == jsonscan.KindObject
	}
	if !slices.ContainsFunc(elems, isDefinition) {
		return v, elems
	}
	elems = slices.DeleteFunc(slices.Clone(elems), isDefinition)
	out := []byte{'['}
	for i, e := range elems {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, e...)
	}
	return append(out, ']'), elems
}

// lfUsage is a generation's usage: usageDetails (input, output, total; Langfuse's names), else
// usage. Counts may be numbers or, as ClickHouse writes 64-bit integers, strings of one.
func lfUsage(n *lfNode) (Usage, error) {
	for _, c := range [...]struct {
		key string
		raw json.RawMessage
	}{{"usageDetails", either(n.obs.UsageDetails, n.obs.UsageDetailsS)}, {"usage", n.obs.Usage}} {
		if jsonscan.KindOfValue(c.raw) != jsonscan.KindObject {
			continue
		}
		var m map[string]json.RawMessage
		_ = json.Unmarshal(c.raw, &m)
		var v [3]int64
		var present [3]bool
		for i, key := range [...]string{"input", "output", "total"} {
			raw := m[key]
			if s, ok := stringValue(raw); ok {
				raw = json.RawMessage(s)
			}
			cnt, ok, problem := tokenCount(rawRef(raw))
			if problem != "" {
				return Usage{}, n.errAt(jsonscan.PathOf(c.key, key), "must be a non-negative integer, got %s", problem)
			}
			v[i], present[i] = cnt, ok
		}
		if !present[0] && !present[1] && !present[2] {
			continue
		}
		u := Usage{Prompt: v[0], Completion: v[1], Total: v[2], Recorded: true}
		if !present[2] {
			u.Total = satAdd(u.Prompt, u.Completion)
		}
		return u, nil
	}
	return Usage{}, nil
}

// lfOutcome is the trace's score named scorer (ParseScore's rule: NUMERIC a number, BOOLEAN
// 1 or 0), the mean of them where the trace has it more than once. Without a scorer none, and
// Note names the scores the trace has.
func lfOutcome(t *Trace, scores []*lfNode, scorer string) (Outcome, error) {
	if len(scores) == 0 {
		return Outcome{}, nil
	}
	var names []string
	for _, s := range scores {
		names = append(names, s.score.Key)
	}
	list := quotedList(names)
	if scorer == "" {
		return Outcome{Note: "Langfuse scores " + list + " not read as an outcome: name the score with outcome-scorer"}, nil
	}
	var tally ScoreTally
	named := false
	for _, s := range scores {
		if s.score.Key != scorer {
			continue
		}
		named = true
		if s.score.Problem != "" {
			return Outcome{}, s.errAt(s.score.At, "%s", s.score.Problem)
		}
		tally.Add(s.score.Value)
	}
	if !named {
		return Outcome{}, &input.Error{File: t.File, Line: t.Line, Msg: fmt.Sprintf("trace %s has no score %s (outcome-scorer); its scores are %s", input.Quote(t.ID), input.Quote(scorer), list)}
	}
	return tally.Outcome("scores." + input.Cut(scorer)), nil
}

// langfuseHarness is the registry's row of a Langfuse export.
var langfuseHarness = Harness{
	Format: FormatLangfuse,
	Name:   "Langfuse export",
	Recognised: "`observations` (a trace, or the UI's download), camelCase trace members (`sessionId`, `htmlPath`) beside `timestamp`, " +
		"or a blob-export row: `trace_id` with `type` and `parent_observation_id`, or with `data_type`; a trace's `timestamp`, `project_id` and `bookmarked`; the export's manifest (`projectId`, `exportSource`, `window`)",
	Recognise: func(h *head) bool {
		has := recordKeys(h)
		return has("observations") || has("trace") && h.firstMember("trace") == "id" ||
			has("timestamp") && has("project_id") && (has("bookmarked") || has("session_id")) ||
			has("projectId") && has("exportSource") && has("window") || // the blob export's manifest
			has("timestamp") && (has("sessionId") || has("htmlPath")) ||
			has("trace_id") && (has("type") && has("parent_observation_id") || has("data_type")) ||
			has("traceId") && (has("type") && has("parentObservationId") || has("dataType"))
	},
	Read:     readLangfuse,
	Side:     lfSide,
	Folder:   lfFolder,
	Turns:    "GENERATION observations' input and output",
	Identity: "task: the dataset item (`metadata.dataset_item_id` of the trace or its observations, or a dataset run item's `datasetItemId`); agent: the experiment run (`metadata.experiment_run_name`, `datasetRunName`); trace id: Langfuse's",
	Outcome:  "the trace's score named by outcome-scorer (NUMERIC, BOOLEAN); without it none, the names listed",
	Usage:    "the GENERATION observations' `usageDetails` (`input`, `output`, `total`), else `usage`",
}
