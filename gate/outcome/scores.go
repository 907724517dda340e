package outcome

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/gate/trace"
	"github.com/agentgate/agentgate/internal/jsonscan"
)

// The tracing platforms' verdicts given apart from the runs (docs/trace-formats.md,
// "Outcomes"): LangSmith feedback records (client.list_feedback, one model_dump_json() a
// line) and Langfuse scores (the blob export's scores/ files, the API's GET
// /api/public/scores list). Each is joined to the trace it names (trace.ParseScore: a
// LangSmith record's trace_id, else its run_id; a Langfuse score's traceId), and read by the
// rule the readers apply to the same records in the file of the runs: the key outcome-scorer
// names, the mean of its values where a trace has it more than once. Without outcome-scorer
// none is an outcome and one note names the keys seen. A trace's outcome is added once every
// file is read, so that repeats in other files count in its mean.

// scoreKeys are the members of a record that tell a feedback record or a score, one bit each.
type scoreKeys uint16

const (
	skKey scoreKeys = 1 << iota
	skRunID
	skRunType
	skTraceS
	skTraceC
	skName
	skDataType
	skType
	skValue
	skAnnotator // a Phoenix annotation's annotator_kind
	skResult
	skSpanID
	skList // "data": [...]
)

var scoreKeyBits = [...]struct {
	key string
	bit scoreKeys
}{{"key", skKey}, {"run_id", skRunID}, {"run_type", skRunType}, {"trace_id", skTraceS}, {"traceId", skTraceC},
	{"name", skName}, {"dataType", skDataType}, {"data_type", skDataType}, {"type", skType}, {"value", skValue},
	{"annotator_kind", skAnnotator}, {"result", skResult}, {"span_id", skSpanID}}

func (k *scoreKeys) see(key []byte, first byte) {
	for _, b := range scoreKeyBits {
		if jsonscan.KeyIs(key, b.key) {
			*k |= b.bit
		}
	}
	if first == '[' && jsonscan.KeyIs(key, "data") {
		*k |= skList
	}
}

func (k scoreKeys) has(bits scoreKeys) bool { return k&bits != 0 }

// score reports whether the record is a feedback record or a score, as trace.ParseScore tells
// them.
func (k scoreKeys) score() bool {
	return k.has(skKey) && !k.has(skRunType) && k.has(skRunID|skTraceS) ||
		k.has(skName) && !k.has(skType) && (k.has(skDataType) || k.has(skValue) && k.has(skTraceS|skTraceC)) ||
		k&(skAnnotator|skResult|skName) == skAnnotator|skResult|skName && k.has(skSpanID|skTraceS)
}

// scoreSet is the feedback and scores read, by the trace they join.
type scoreSet struct {
	order   []string // trace ids, as first met
	byTrace map[string]*scoreGroup
	seen    map[string]bool     // platform and record id: a record twice counts once
	keys    map[string][]string // the keys seen, by platform
	pairs   int                 // traces × keys held
	noTrace int                 // Langfuse scores of a session or a dataset run
}

// scoreGroup is one trace's records.
type scoreGroup struct {
	at       input.Place
	platform string
	keys     map[string]*keyTally
	names    []string
}

// keyTally is one trace's values of one key, and the first record of it whose value is not
// an outcome.
type keyTally struct {
	tally   trace.ScoreTally
	problem error
}

// scoreList reads the API's list of scores, {"data": [...], "meta"}: each element a score.
func (s *Set) scoreList(rec input.Record, start int) error {
	data := rec.Data
	at := jsonscan.Locate(data[start:], jsonscan.PathOf("data"))
	_, err := jsonscan.EachElement(data, start+at, func(es, ee int) error {
		if k := jsonscan.KindOfValue(data[es:]); k != jsonscan.KindObject {
			return rec.ErrorAt(es, "%s", jsonscan.Expected("a Langfuse score or LangSmith feedback record (an object)", k))
		}
		var sk scoreKeys
		_, _ = jsonscan.EachMember(data, es, func(key []byte, vs, _ int) error { sk.see(key, data[vs]); return nil })
		if !sk.score() {
			return rec.ErrorAt(es, `expected a Langfuse score {"traceId", "name", "value", "dataType"}, a LangSmith feedback record {"run_id", "key", "score"} or a Phoenix annotation {"span_id", "name", "annotator_kind", "result"}`)
		}
		return s.score(rec, es, ee)
	})
	return err
}

// score reads the feedback record or score at data[start:end].
func (s *Set) score(rec input.Record, start, end int) error {
	data := rec.Data
	r, _, problem, p := trace.ParseScore(data[start:end])
	if problem != "" {
		return rec.ErrorAt(start+max(0, jsonscan.Locate(data[start:end], p)), "%s", input.Field(p.String(), problem))
	}
	sc := s.scores
	if sc == nil {
		sc = &scoreSet{byTrace: map[string]*scoreGroup{}, seen: map[string]bool{}, keys: map[string][]string{}}
		s.scores = sc
	}
	if r.ID != "" {
		id := r.Platform + "\x00" + r.ID
		if sc.seen[id] {
			return nil // the same record twice: the blob export's windows share their bounds
		}
		sc.seen[id] = true
	}
	if r.Trace == "" {
		sc.noTrace++
		return nil
	}
	g := sc.byTrace[r.Trace]
	if g == nil {
		g = &scoreGroup{at: newPlacer(rec).at(start), platform: r.Platform, keys: map[string]*keyTally{}}
		sc.byTrace[r.Trace] = g
		sc.order = append(sc.order, r.Trace)
	}
	kt := g.keys[r.Key]
	if kt == nil {
		if sc.pairs++; sc.pairs > maxOutcomes {
			return rec.ErrorAt(start, "more than %d feedback keys of traces, the most the outcomes input may hold", maxOutcomes)
		}
		kt = &keyTally{}
		g.keys[r.Key] = kt
		g.names = append(g.names, r.Key)
		if len(sc.keys[r.Platform]) < 100 && !slices.Contains(sc.keys[r.Platform], r.Key) {
			sc.keys[r.Platform] = append(sc.keys[r.Platform], r.Key)
		}
	}
	switch {
	case r.Problem != "":
		if kt.problem == nil {
			at := start + max(0, jsonscan.Locate(data[start:end], r.At))
			kt.problem = rec.ErrorAt(at, "%s", input.Field(r.At.String(), r.Problem))
		}
	case r.Value.Known:
		kt.tally.Add(r.Value)
	}
	return nil
}

// phoenixScorer checks the Phoenix annotations against the name outcome-scorer gives: they are
// made on any span (an LLM span's hallucination, the root span's correctness), so a span
// without one of that name is no error, but an input none of whose annotations has it is one,
// listing their names.
func (sc *scoreSet) phoenixScorer(scorer string) error {
	var first *scoreGroup
	for _, id := range sc.order {
		g := sc.byTrace[id]
		if g.platform != "Phoenix annotation" {
			continue
		}
		if g.keys[scorer] != nil {
			return nil
		}
		if first == nil {
			first = g
		}
	}
	if first == nil {
		return nil
	}
	return &input.Error{File: first.at.File, Line: first.at.Line, Col: first.at.Col, Msg: fmt.Sprintf("no Phoenix annotation is named %s (outcome-scorer); the annotations are %s", input.Quote(scorer), trace.ScoreKeys(sc.keys["Phoenix annotation"]))}
}

// joinScores makes each trace's feedback or scores under the key outcome-scorer names its
// outcome; without outcome-scorer it notes the keys seen.
func (s *Set) joinScores() error {
	sc := s.scores
	if sc == nil {
		return nil
	}
	if sc.noTrace > 0 {
		what := "1 Langfuse score of a session or a dataset run names"
		if sc.noTrace > 1 {
			what = fmt.Sprintf("%d Langfuse scores of a session or a dataset run name", sc.noTrace)
		}
		s.notes = append(s.notes, "outcomes: "+what+" no trace: not read")
	}
	if s.scorer == "" {
		platforms := make([]string, 0, len(sc.keys))
		for p := range sc.keys {
			platforms = append(platforms, p)
		}
		sort.Strings(platforms)
		for _, p := range platforms {
			what, name := "LangSmith feedback", "key"
			switch {
			case strings.HasPrefix(p, "Langfuse"):
				what, name = "Langfuse scores", "score"
			case strings.HasPrefix(p, "Phoenix"):
				what, name = "Phoenix annotations", "annotation"
			}
			s.notes = append(s.notes, fmt.Sprintf("outcomes: %s %s not read as an outcome: name the %s with outcome-scorer", what, trace.ScoreKeys(sc.keys[p]), name))
		}
		return nil
	}
	if err := sc.phoenixScorer(s.scorer); err != nil {
		return err
	}
	for _, id := range sc.order {
		g := sc.byTrace[id]
		kt := g.keys[s.scorer]
		what, keys := "feedback", "feedback keys"
		switch {
		case strings.HasPrefix(g.platform, "Langfuse"):
			what, keys = "score", "scores"
		case strings.HasPrefix(g.platform, "Phoenix"):
			if kt == nil {
				continue // a span the evaluations of another name were made on (phoenixScorer)
			}
			what, keys = "annotation", "annotations"
		}
		if kt == nil {
			return &input.Error{File: g.at.File, Line: g.at.Line, Col: g.at.Col, Msg: fmt.Sprintf("trace %s has no %s %s (outcome-scorer); its %s are %s", input.Quote(id), what, input.Quote(s.scorer), keys, trace.ScoreKeys(g.names))}
		}
		if kt.problem != nil {
			return kt.problem
		}
		o := kt.tally.Outcome(Source)
		if !o.Known {
			return &input.Error{File: g.at.File, Line: g.at.Line, Col: g.at.Col, Msg: fmt.Sprintf("trace %s has no %s %s with a score (outcome-scorer): each is null", input.Quote(id), what, input.Quote(s.scorer))}
		}
		if err := s.add(id, o, g.at); err != nil {
			return err
		}
	}
	return nil
}
