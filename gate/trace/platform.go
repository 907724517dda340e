package trace

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/internal/jsonscan"
)

// What the tracing platforms' readers (langsmith.go, langfuse.go) share: a run's model calls
// and tool runs, in the order they ran, are put together by the conversation assembly
// (conversation.go; docs/trace-formats.md, "How model calls become one run").

// toolRun is a tool's own run (a LangSmith tool run, a Langfuse TOOL observation): the call
// it answered and its result.
type toolRun struct {
	Call
	Result  string
	Success bool
	Error   string
}

// spending sums the usage of a run's model calls, each recorded on its own (docs/trace-formats.md,
// "Token usage": the calls' prompts and the largest of them).
type spending struct {
	total Usage
	calls CallUsage
}

// add counts a call's usage, where it recorded one.
func (s *spending) add(u Usage) {
	if !u.Recorded {
		return
	}
	s.total.Prompt, s.total.Completion = satAdd(s.total.Prompt, u.Prompt), satAdd(s.total.Completion, u.Completion)
	s.total.Total, s.total.Recorded = satAdd(s.total.Total, u.Total), true
	s.calls.Calls++
	s.calls.MaxPrompt = max(s.calls.MaxPrompt, u.Prompt)
}

// event is the tool run as the conversation assembly takes it (conversation.go).
func (t toolRun) event() ToolEvent {
	return ToolEvent{Call: t.Call, Result: t.Result, Failed: !t.Success, Error: t.Error}
}

// headKeys are the top-level keys of an object in a file's head, as far as the head shows them.
type headKeys map[string]bool

func (k headKeys) has(key string) bool { return k[key] }

// firstElementKeys are the keys of the first element of the array a head starts.
func firstElementKeys(h *head) headKeys {
	keys := headKeys{}
	data := h.data
	i := jsonscan.SkipSpace(data, h.at+1)
	if i >= len(data) || data[i] != '{' {
		return keys
	}
	for i++; ; {
		key, v, err := jsonscan.Key(data, i)
		if err != nil {
			return keys
		}
		keys[jsonscan.Unquote(key, jsonscan.Replace)] = true
		end, err := jsonscan.Skip(data, v)
		if err != nil {
			return keys
		}
		var closed bool
		if i, closed, err = jsonscan.Next(data, end, '}'); err != nil || closed {
			return keys
		}
	}
}

// recordKeys says which keys the file's first record has: the object the head starts, or
// the first element of the array it starts.
func recordKeys(h *head) func(string) bool {
	if h.array {
		return firstElementKeys(h).has
	}
	return h.has
}

// quotedList is names, sorted, each once, quoted and joined for a note or an error (at most
// 200 characters of it, input.Cut).
func quotedList(names []string) string {
	names = append([]string(nil), names...)
	sort.Strings(names)
	var q []string
	for i, n := range names {
		if i == 0 || n != names[i-1] {
			q = append(q, input.Quote(n))
		}
	}
	return input.Cut(strings.Join(q, ", "))
}

// either is the first of two spellings of a member that is given (camelCase and snake_case,
// toolCallId and id).
func either(a, b json.RawMessage) json.RawMessage {
	if len(a) > 0 && string(a) != "null" {
		return a
	}
	return b
}

// The tracing platforms' verdicts on a run: LangSmith's feedback records and Langfuse's
// scores (docs/trace-formats.md, "Outcomes"). They are read by one rule wherever they are
// given, in the file of the runs (the readers) or apart from them (the outcomes input,
// gate/outcome): the key outcome-scorer names, the mean of its values where a run has it more
// than once, a categorical value refused by name.

// ScoreRecord is one LangSmith feedback record or Langfuse score.
type ScoreRecord struct {
	// Platform names the kind in notes and errors: "LangSmith feedback", "Langfuse score" or
	// "Phoenix annotation".
	Platform string
	// ID is the record's own id ("" when it has none): the same record twice (the blob
	// export's windows share their bounds) counts once.
	ID string
	// Trace is the id of the trace it joins: LangSmith's trace_id (a root run's id, so
	// feedback on a child run counts for its trace), else its run_id; Langfuse's traceId. ""
	// for a Langfuse score of a session or a dataset run, which names no trace.
	Trace, Run string
	// Key is the feedback key or the score's name.
	Key string
	// Value is the record's value as an outcome (Source not set); Known is false when it
	// holds none (a null score). Problem, when not empty, says why the value is not one
	// agentgate can read, and At where it is under the record: it is an error only when the
	// key is the one outcome-scorer names.
	Value   Outcome
	Problem string
	At      jsonscan.Path
}

// scoreMembers are the members of a feedback record or score, in either spelling.
type scoreMembers struct {
	ID          json.RawMessage `json:"id"`
	RunType     json.RawMessage `json:"run_type"`
	Type        json.RawMessage `json:"type"`
	RunID       json.RawMessage `json:"run_id"`
	TraceIDS    json.RawMessage `json:"trace_id"`
	TraceID     json.RawMessage `json:"traceId"`
	Key         json.RawMessage `json:"key"`
	Name        json.RawMessage `json:"name"`
	Score       json.RawMessage `json:"score"`
	Value       json.RawMessage `json:"value"`
	DataType    json.RawMessage `json:"dataType"`
	DataTypeS   json.RawMessage `json:"data_type"`
	StringValue json.RawMessage `json:"stringValue"`
	StringValS  json.RawMessage `json:"string_value"`
	// a Phoenix annotation's
	SpanID        json.RawMessage `json:"span_id"`
	AnnotatorKind json.RawMessage `json:"annotator_kind"`
	Result        json.RawMessage `json:"result"`
}

// ParseScore reads the JSON object data as a LangSmith feedback record ({"run_id" or
// "trace_id", "key", "score", "value", …}, as client.list_feedback gives them), a Langfuse
// score ({"traceId" or "trace_id", "name", "value", "dataType" or "data_type", …}: the API's
// and the blob export's) or a Phoenix annotation ({"span_id" or "trace_id", "name",
// "annotator_kind", "result": {"label", "score", "explanation"}, …}: the REST API's span and
// trace annotations, the phoenix-client's client.spans.get_span_annotations; its Trace the
// span it names, which the gate matches to the run whose root span it is, or the trace); ok
// is false when it is none of them. problem, when not empty, says what
// is wrong with an id or a key, at the member at.
func ParseScore(data []byte) (r ScoreRecord, ok bool, problem string, at jsonscan.Path) {
	var m scoreMembers
	if jsonscan.KindOfValue(data) != jsonscan.KindObject || json.Unmarshal(data, &m) != nil {
		return r, false, "", nil
	}
	str := func(key string, raw json.RawMessage, to *string) bool {
		v, _, p := idValue(rawRef(raw))
		if p != "" {
			problem, at = p, jsonscan.PathOf(key)
			return false
		}
		*to = v
		return true
	}
	switch {
	case len(m.Key) > 0 && len(m.RunType) == 0 && (len(m.RunID) > 0 || len(m.TraceIDS) > 0):
		r.Platform = "LangSmith feedback"
		if !str("id", m.ID, &r.ID) || !str("run_id", m.RunID, &r.Run) || !str("trace_id", m.TraceIDS, &r.Trace) || !str("key", m.Key, &r.Key) {
			return r, true, problem, at
		}
		if r.Trace == "" {
			r.Trace = r.Run
		}
		r.Value, r.Problem, r.At = lsFeedbackValue(r.Key, m.Score, m.Value)
	case len(m.Name) > 0 && len(m.Type) == 0 && (len(either(m.DataType, m.DataTypeS)) > 0 || len(m.Value) > 0 && len(either(m.TraceID, m.TraceIDS)) > 0):
		r.Platform = "Langfuse score"
		if !str("id", m.ID, &r.ID) || !str("traceId", either(m.TraceID, m.TraceIDS), &r.Trace) || !str("name", m.Name, &r.Key) {
			return r, true, problem, at
		}
		r.Value, r.Problem, r.At = lfScoreValue(r.Key, either(m.DataType, m.DataTypeS), m.Value, either(m.StringValue, m.StringValS))
	case len(m.AnnotatorKind) > 0 && len(m.Result) > 0 && len(m.Name) > 0 && (len(m.SpanID) > 0 || len(m.TraceIDS) > 0):
		r.Platform = "Phoenix annotation"
		if !str("id", m.ID, &r.ID) || !str("span_id", m.SpanID, &r.Trace) || !str("name", m.Name, &r.Key) {
			return r, true, problem, at
		}
		if r.Trace == "" && !str("trace_id", m.TraceIDS, &r.Trace) {
			return r, true, problem, at
		}
		r.Value, r.Problem, r.At = phoenixAnnotationValue(r.Key, m.Result)
	default:
		return r, false, "", nil
	}
	if r.Key == "" {
		key := "key"
		if r.Platform != "LangSmith feedback" {
			key = "name"
		}
		return r, true, "expected a " + key + ", found an empty string", jsonscan.PathOf(key)
	}
	return r, true, "", nil
}

// lsFeedbackValue is a feedback record's value: its score (true, false or a number; the
// SDK's SCORE_TYPE), else a value that is one (VALUE_TYPE allows it); a value that is text is
// categorical feedback, which is not an outcome.
func lsFeedbackValue(key string, score, value json.RawMessage) (Outcome, string, jsonscan.Path) {
	o, ok, problem := ParseOutcome(score, "")
	if problem != "" || ok {
		return o, problem, jsonscan.PathOf("score")
	}
	switch k := jsonscan.KindOfValue(value); k {
	case jsonscan.KindTrue, jsonscan.KindFalse, jsonscan.KindNumber:
		o, _, problem = ParseOutcome(value, "")
		return o, problem, jsonscan.PathOf("value")
	case jsonscan.KindString:
		label, _ := stringValue(value)
		return Outcome{}, "feedback " + input.Quote(key) + " is categorical (value " + input.Quote(label) + ", no score): not an outcome agentgate can read (a score is)", jsonscan.PathOf("value")
	}
	return Outcome{}, "", nil
}

// phoenixAnnotationValue is a Phoenix annotation's value: its result's score (a number), else
// its label read as a verdict (LabelVerdict); a label that is none is not an outcome.
func phoenixAnnotationValue(name string, result json.RawMessage) (Outcome, string, jsonscan.Path) {
	var r struct {
		Label json.RawMessage `json:"label"`
		Score json.RawMessage `json:"score"`
	}
	if jsonscan.KindOfValue(result) != jsonscan.KindObject || json.Unmarshal(result, &r) != nil {
		return Outcome{}, jsonscan.Expected(`a result {"label", "score", "explanation"}`, jsonscan.KindOfValue(result)), jsonscan.PathOf("result")
	}
	if !isNull(r.Score) {
		v, problem := outcomeNumber(r.Score)
		if problem != "" {
			return Outcome{}, problem, jsonscan.PathOf("result", "score")
		}
		return Outcome{Known: true, Value: v}, "", nil
	}
	label, ok := stringValue(r.Label)
	if !ok {
		return Outcome{}, "", nil // neither: no value, as a null score
	}
	if v, ok := LabelVerdict(label); ok {
		return Outcome{Known: true, Value: v, IsBool: true}, "", nil
	}
	return Outcome{}, "annotation " + input.Quote(name) + " has no score, and its label " + input.Quote(label) +
		" is not a verdict agentgate can read (pass or fail, correct or incorrect, true or false, yes or no)", jsonscan.PathOf("result", "label")
}

// LabelVerdict reads an evaluation's label as a verdict: pass, correct, true or yes succeeded;
// fail, incorrect, false or no did not (in any case, surrounding space left out).
func LabelVerdict(label string) (value float64, ok bool) {
	switch strings.ToLower(strings.TrimSpace(label)) {
	case "pass", "passed", "correct", "true", "yes":
		return 1, true
	case "fail", "failed", "incorrect", "false", "no":
		return 0, true
	}
	return 0, false
}

// lfScoreValue is a score's value: NUMERIC a number, BOOLEAN 1 or 0 (a number ClickHouse may
// write as a string of one); a CATEGORICAL or TEXT score is not an outcome.
func lfScoreValue(key string, dataTypeRaw, value, stringVal json.RawMessage) (Outcome, string, jsonscan.Path) {
	dataType, _ := stringValue(dataTypeRaw)
	dataType = strings.ToUpper(dataType)
	if dataType == "CATEGORICAL" || dataType == "TEXT" || dataType == "CORRECTION" {
		label, _ := stringValue(stringVal)
		return Outcome{}, "score " + input.Quote(key) + " is " + dataType + " (" + input.Quote(label) + "): not an outcome agentgate can read (a NUMERIC or BOOLEAN score is)", jsonscan.PathOf("dataType")
	}
	raw := value
	if v, ok := stringValue(raw); ok && jsonscan.KindOfValue([]byte(v)) == jsonscan.KindNumber && jsonscan.Validate([]byte(v)) == nil {
		raw = json.RawMessage(v) // a value ClickHouse wrote as a string
	}
	v, problem := outcomeNumber(raw)
	if problem != "" {
		return Outcome{}, problem, jsonscan.PathOf("value")
	}
	return Outcome{Known: true, Value: v, IsBool: dataType == "BOOLEAN"}, "", nil
}

// ScoreTally gathers the values of one key of one run.
type ScoreTally struct {
	sum   float64
	n     int
	bools bool
}

// Add counts a value (Known).
func (t *ScoreTally) Add(o Outcome) {
	if t.n == 0 {
		t.bools = true
	}
	t.sum += o.Value
	t.bools = t.bools && o.IsBool
	t.n++
}

// Outcome is the mean of the values counted, read at source: a boolean where it is one
// boolean; none (Known false) when nothing was counted.
func (t ScoreTally) Outcome(source string) Outcome {
	if t.n == 0 {
		return Outcome{}
	}
	return Outcome{Known: true, Value: t.sum / float64(t.n), IsBool: t.bools && t.n == 1, Source: source}
}

// ScoreKeys is the quoted, sorted list of keys a note or an error names.
func ScoreKeys(keys []string) string { return quotedList(keys) }

// rawFields decodes the JSON object at data[at:] (valid JSON: the caller validated it) into v,
// a pointer to a struct of json.RawMessage fields (and embedded structs of them), as
// json.Unmarshal would but without copying: each field is a slice of data (its capacity cut at
// its end). The platforms' readers hold every record of an export until the last is read, and a
// copy of each member beside the record's own bytes doubled what they held (a 62 MB Langfuse blob
// export took 460 MB). Keys match exactly; of a key given twice the last wins.
func rawFields(data []byte, at int, v any) error {
	rv := reflect.ValueOf(v).Elem()
	idx := rawFieldIndex(rv.Type())
	_, err := jsonscan.EachMember(data, at, func(key []byte, vs, ve int) error {
		name := key[1 : len(key)-1]
		if bytes.IndexByte(name, '\\') >= 0 {
			name = []byte(jsonscan.Unquote(key, jsonscan.Replace))
		}
		if ix, ok := idx[string(name)]; ok {
			rv.FieldByIndex(ix).SetBytes(data[vs:ve:ve])
		}
		return nil
	})
	return err
}

var rawFieldIndexes sync.Map // reflect.Type → map[string][]int

// rawFieldIndex maps the json names of t's json.RawMessage fields, its embedded structs' too, to
// their indexes.
func rawFieldIndex(t reflect.Type) map[string][]int {
	if m, ok := rawFieldIndexes.Load(t); ok {
		return m.(map[string][]int)
	}
	m := map[string][]int{}
	var walk func(t reflect.Type, prefix []int)
	walk = func(t reflect.Type, prefix []int) {
		for i := range t.NumField() {
			f := t.Field(i)
			ix := append(append([]int(nil), prefix...), i)
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				walk(f.Type, ix)
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.Type == reflect.TypeOf(json.RawMessage(nil)) && name != "" && name != "-" {
				if _, taken := m[name]; !taken || len(ix) < len(m[name]) {
					m[name] = ix // the shallower field wins, as encoding/json's
				}
			}
		}
	}
	walk(t, nil)
	rawFieldIndexes.Store(t, m)
	return m
}
