// Package outcome reads the outcomes of runs kept apart from their traces (the `outcomes`
// input of docs/design.md#outcomes: JSONL of {"id", "reward" | "success"}, SWE-bench harness reports) and
// summarises a suite's outcomes for the report: success rate with its Wilson interval, tokens
// per success, and how well each reliability signal tracks failure.
package outcome

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/gate/trace"
	"github.com/agentgate/agentgate/internal/jsonscan"
)

// Source is the trace.Outcome.Source of an outcome read from the outcomes input.
const Source = "outcomes file"

// Set is the outcomes read from the outcomes input, by trace id, and which of them a trace
// has taken.
type Set struct {
	ids     *input.IDs // for its words only: byID finds the duplicates
	byID    map[string]int32
	entries []entry
	notes   []string
	// scorer is outcome-scorer, the key of the platforms' feedback and scores that is an
	// outcome; scores are those read, joined to their traces once every file is read
	scorer string
	scores *scoreSet
}

type entry struct {
	id    string
	o     trace.Outcome
	at    input.Place
	taken bool
	// listed is whether a SWE-bench report of id lists named it: an instance of the run the
	// report counts, whether or not it left a trace (Untraced).
	listed bool
}

// Read reads the outcome files (already expanded) in order. Every record is one of: a JSONL
// record {"id", "reward" | "success" | "score" | "passed" | "resolved"}; a LangSmith feedback
// record or a Langfuse score (or the API's list of them, {"data": [...], "meta"}), whose key
// scorer (outcome-scorer) names (scores.go); a SWE-bench report of
// id lists (make_run_report's run report, sb-cli's, SWE-bench experiments' and
// Multi-SWE-bench's results.json, OpenHands' submissions: reportLists); a SWE-bench
// per-instance report.json ({"<instance_id>": {"resolved": bool, ...}, ...}); a record of
// OpenHands' evaluation output ({"instance_id", "report": {"resolved"}} or its
// test_result.report.resolved). An id given twice, in one file or two, a value that is not a
// boolean or a finite number, and a report that lists only its resolved instances are
// *input.Error values naming file:line:col.
func Read(ctx context.Context, files []string, scorer string) (*Set, error) {
	s := &Set{ids: input.NewIDs("outcome"), byID: map[string]int32{}, scorer: scorer}
	for _, f := range files {
		err := input.Each(f, func(rec input.Record) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			return s.record(rec)
		})
		if err != nil && !(input.IsEmptyFile(err) && filepath.Base(filepath.Dir(f)) == "scores") {
			return nil, err // an empty file of the Langfuse blob export's scores/ is a window without scores
		}
	}
	if err := s.joinScores(); err != nil {
		return nil, err
	}
	return s, nil
}

// Len is how many outcomes were read.
func (s *Set) Len() int { return len(s.entries) }

// Take returns the outcome for trace id, if the input has one, and marks it as used.
func (s *Set) Take(id string) (trace.Outcome, bool) {
	i, ok := s.byID[id]
	if !ok {
		return trace.Outcome{}, false
	}
	s.entries[i].taken = true
	return s.entries[i].o, true
}

// Unmatched returns the ids of the outcomes that no trace took, sorted.
func (s *Set) Unmatched() []string {
	var out []string
	for i := range s.entries {
		if !s.entries[i].taken {
			out = append(out, s.entries[i].id)
		}
	}
	slices.Sort(out)
	return out
}

// Untraced returns the instances a SWE-bench report of id lists names that no trace took,
// sorted, and those of them it says resolved: runs that left no trace, which the harness
// counts in its success rate (docs/input-formats.md, "SWE-bench reports").
func (s *Set) Untraced() (ids, resolved []string) {
	for i := range s.entries {
		if e := &s.entries[i]; e.listed && !e.taken {
			ids = append(ids, e.id)
			if e.o.Value == 1 {
				resolved = append(resolved, e.id)
			}
		}
	}
	slices.Sort(ids)
	slices.Sort(resolved)
	return ids, resolved
}

// maxOutcomes is the most outcomes the outcomes input may hold, its files together. Each costs
// a few hundred bytes however few it takes in the file (`"a1",` in a run summary's list is five),
// so without a count a 32 MB summary of short ids took 1.6 GB (issue 34, finding 3); a real
// suite has thousands. A variable so that tests can lower it.
var maxOutcomes = 1 << 20

// grow makes room for n more outcomes (at most as many as maxOutcomes leaves), so that a record
// of many, whose count is known before they are read, fills its lists without growing them a
// quarter at a time, which allocates five times their size.
func (s *Set) grow(n int) {
	n = min(n, maxOutcomes-len(s.entries)+1)
	if n <= 0 {
		return
	}
	s.entries = slices.Grow(s.entries, n)
	if len(s.byID) == 0 {
		s.byID = make(map[string]int32, n)
	}
}

// add keeps outcome o for id, read at place at.
func (s *Set) add(id string, o trace.Outcome, at input.Place) error {
	if first, dup := s.byID[id]; dup {
		return s.ids.Duplicate(id, at, s.entries[first].at)
	}
	if len(s.entries) >= maxOutcomes {
		return &input.Error{File: at.File, Line: at.Line, Col: at.Col,
			Msg: fmt.Sprintf("more than %d outcomes, the most the outcomes input may hold", maxOutcomes)}
	}
	s.byID[id] = int32(len(s.entries))
	s.entries = append(s.entries, entry{id: id, o: o, at: at})
	return nil
}

// placer turns offsets into a record, visited in increasing order, into places, counting
// every byte once.
type placer struct {
	rec input.Record
	off int
	pos jsonscan.Pos
}

func newPlacer(rec input.Record) *placer { return &placer{rec: rec, pos: jsonscan.Start} }

func (p *placer) at(off int) input.Place {
	if off > p.off {
		p.pos.Advance(p.rec.Data[p.off:off])
		p.off = off
	}
	line, col := p.rec.Line+p.pos.Line-1, p.pos.Col
	if p.pos.Line == 1 && p.rec.Col > 1 {
		col += p.rec.Col - 1 // the record starts inside its first line
	}
	return input.Place{File: p.rec.File, Line: line, Col: col}
}

// record reads one record of an outcomes file. The members of a JSONL outcome are gathered in
// the one pass that also tells the record's kind.
func (s *Set) record(rec input.Record) error {
	data := rec.Data
	start := jsonscan.SkipSpace(data, 0)
	invalid := func(err error) error {
		if e, ok := err.(*jsonscan.Error); ok {
			return rec.ErrorAt(e.Off, "invalid JSON: %s", e.Msg)
		}
		return rec.ErrorAt(0, "%v", err)
	}
	if k := jsonscan.KindOfValue(data); k != jsonscan.KindObject {
		if err := jsonscan.Validate(data); err != nil {
			return invalid(err)
		}
		return rec.ErrorAt(start, "%s", jsonscan.Expected(`an outcome: {"id", "reward" | "success"}, a SWE-bench report.json or a SWE-bench run summary`, k))
	}
	var l outcomeLine
	l.idAt = -1
	var report, openHands bool
	var sk scoreKeys
	members := 0
	end, err := jsonscan.EachMember(data, start, func(key []byte, vs, ve int) error {
		members++
		sk.see(key, data[vs])
		switch {
		case jsonscan.KeyIs(key, "id"):
			l.id, l.idAt = data[vs:ve], vs
		case jsonscan.KeyIs(key, "instance_id"):
			openHands = true
		default:
			if l, ok := reportList(key); ok && (data[vs] == '[' || l.kind != listWeak && !jsonscan.KeyIs(key, "resolved")) {
				report = true // a SWE-bench report's id list: {"resolved_ids": [ids], …}
				return nil
			}
			for i, k := range trace.OutcomeKeys {
				if jsonscan.KeyIs(key, k) {
					l.vals[i], l.valAt[i] = data[vs:ve], vs
				}
			}
		}
		return nil
	})
	if err == nil && jsonscan.SkipSpace(data, end) < len(data) {
		err = jsonscan.Validate(data) // says what follows the object
	}
	if err != nil {
		return invalid(err)
	}
	switch {
	case sk.score():
		return s.score(rec, start, end)
	case sk.has(skList) && l.idAt < 0 && members <= 3:
		return s.scoreList(rec, start)
	case report && l.idAt < 0:
		return s.summary(rec, start)
	case openHands && l.idAt < 0:
		return s.openHands(rec, start)
	case l.idAt >= 0:
		return s.line(rec, start, &l)
	case members == 0:
		return rec.ErrorAt(start, `an empty object: expected an outcome {"id", "reward" | "success"} or a SWE-bench report`)
	}
	return s.instances(rec, start)
}

// outcomeLine is the members of {"id", "reward" | "success" | …} and where their values start.
type outcomeLine struct {
	id    []byte
	idAt  int
	vals  [len(trace.OutcomeKeys)][]byte
	valAt [len(trace.OutcomeKeys)]int
}

// line reads {"id", "reward" | "success" | …}.
func (s *Set) line(rec input.Record, start int, l *outcomeLine) error {
	id, problem := idOf(l.id)
	if problem != "" {
		return rec.ErrorAt(l.idAt, "%s", input.Field("id", problem))
	}
	for i, raw := range l.vals {
		if raw == nil {
			continue
		}
		o, ok, problem := trace.ParseOutcome(raw, Source)
		if problem != "" {
			return rec.ErrorAt(l.valAt[i], "%s", input.Field(trace.OutcomeKeys[i], problem))
		}
		if ok {
			return s.add(id, o, newPlacer(rec).at(start))
		}
	}
	return rec.ErrorAt(start, `outcome of id %s has no "reward" or "success" (true, false or a number)`, input.Quote(id))
}

// idOf reads an outcome's id: a non-empty string, or a number kept as written.
func idOf(raw []byte) (string, string) {
	switch k := jsonscan.KindOfValue(raw); k {
	case jsonscan.KindString:
		if id := jsonscan.Unquote(raw, jsonscan.Replace); id != "" {
			return id, ""
		}
		return "", "expected a trace id, found an empty string"
	case jsonscan.KindNumber:
		return string(raw), ""
	default:
		return "", jsonscan.Expected("a trace id (a string or a number)", k)
	}
}

// instances reads a SWE-bench per-instance report: {"<instance_id>": {"resolved": bool, …}}.
func (s *Set) instances(rec input.Record, start int) error {
	n := 0
	_, _ = jsonscan.EachMember(rec.Data, start, func([]byte, int, int) error { n++; return nil })
	s.grow(n)
	pl := newPlacer(rec)
	_, err := jsonscan.ReadMembers(rec.Data, start, func(key []byte, vs int) (int, error) {
		id := jsonscan.Unquote(key, jsonscan.Replace)
		ve, _ := jsonscan.Skip(rec.Data, vs)
		if k := jsonscan.KindOfValue(rec.Data[vs:]); k != jsonscan.KindObject {
			return ve, rec.ErrorAt(vs, "%s", input.Field(id, jsonscan.Expected(`a SWE-bench instance report {"resolved": true | false, …} (an outcome record needs "id")`, k)))
		}
		var resolved []byte
		resAt := vs
		jsonscan.EachMember(rec.Data, vs, func(k []byte, rs, re int) error {
			if jsonscan.KeyIs(k, "resolved") {
				resolved, resAt = rec.Data[rs:re], rs
			}
			return nil
		})
		if resolved == nil {
			return ve, rec.ErrorAt(vs, "%s", input.Field(id, `has no "resolved": not a SWE-bench report.json`))
		}
		o, ok, problem := trace.ParseOutcome(resolved, Source)
		if problem == "" && (!ok || !o.IsBool) {
			problem = jsonscan.Expected("true or false", jsonscan.KindOfValue(resolved))
		}
		if problem != "" {
			return ve, rec.ErrorAt(resAt, "%s", input.Field(id+".resolved", problem))
		}
		if id == "" {
			return ve, rec.ErrorAt(vs, "an instance report under an empty instance id")
		}
		return ve, s.add(id, o, pl.at(vs))
	})
	return err
}

// summary reads a SWE-bench report of id lists (reportLists): the run report of
// make_run_report or sb-cli, SWE-bench experiments' results.json, OpenHands' and
// Multi-SWE-bench's submissions. Every instance a list names is known: resolved when a
// resolved list names it, else not (docs/input-formats.md, "SWE-bench reports"). The lists
// are the truth: a counter (resolved_instances, …) that disagrees with its list is a note.
func (s *Set) summary(rec input.Record, start int) error {
	c, err := countReportLists(rec, start)
	if err != nil {
		return err
	}
	if c.resolvedAt < 0 {
		return rec.ErrorAt(start, `a SWE-bench report whose id lists name no resolved instances: it has no "resolved_ids" or "resolved" list, so which runs succeeded is not said`)
	}
	if !c.others {
		return rec.ErrorAt(c.resolvedAt, `a SWE-bench report that lists only the resolved instances: the runs that did not resolve are named nowhere, and a success rate over the resolved alone would be 1; give the report with its other lists (unresolved_ids, completed_ids, …)`)
	}
	s.grow(c.n)
	base := len(s.entries)
	if err := s.addReportLists(rec, start, c.n); err != nil {
		return err
	}
	s.countersNote(rec.File, c.counts, c.counters, len(s.entries)-base)
	return nil
}

// reportCount is what the first pass over a report of id lists finds: how many ids the lists
// name (n; counts, by list), where the first resolved list is (-1 for none), whether another
// list is there, and the report's *_instances counters.
type reportCount struct {
	n, resolvedAt    int
	others           bool
	counts, counters map[string]int
}

// countReportLists checks that each list of a report of id lists holds instance ids and
// counts them, before any is read.
func countReportLists(rec input.Record, start int) (reportCount, error) {
	data := rec.Data
	c := reportCount{resolvedAt: -1, counts: map[string]int{}, counters: map[string]int{}}
	_, err := jsonscan.EachMember(data, start, func(key []byte, vs, ve int) error {
		l, ok := reportList(key)
		if ok && l.kind != listIgnored && data[vs] != '[' && data[vs] != 'n' {
			return rec.ErrorAt(vs, "%s", input.Field(l.key, jsonscan.Expected("a list of instance ids", jsonscan.KindOfValue(data[vs:]))))
		}
		if !ok || data[vs] != '[' {
			name := jsonscan.Unquote(key, jsonscan.Replace)
			if what, ok := strings.CutSuffix(name, "_instances"); ok && what != "" {
				if v, err := strconv.Atoi(string(data[vs:ve])); err == nil {
					c.counters[name] = v
				}
			}
			return nil
		}
		if l.kind == listIgnored {
			return nil
		}
		ids := 0
		_, err := jsonscan.EachElement(data, vs, func(es, _ int) error {
			if k := jsonscan.KindOfValue(data[es:]); k != jsonscan.KindString {
				return rec.ErrorAt(es, "%s", input.Field(l.key, jsonscan.Expected("an instance id (a string)", k)))
			}
			ids++
			return nil
		})
		if err != nil {
			return err
		}
		c.counts[l.key] += ids
		c.n += ids
		if l.kind == listResolved {
			if c.resolvedAt < 0 {
				c.resolvedAt = vs
			}
		} else {
			c.others = true
		}
		return nil
	})
	return c, err
}

// addReportLists adds the n instances the lists of a report of id lists name, which
// countReportLists has checked: resolved when a resolved list names them, else not.
func (s *Set) addReportLists(rec input.Record, start, n int) error {
	data := rec.Data
	base := len(s.entries)
	// the list each entry of this record came from, by index − base
	lists := make([]idList, 0, min(n, maxOutcomes+1))
	pl := newPlacer(rec)
	_, err := jsonscan.EachMember(data, start, func(key []byte, vs, _ int) error {
		l, ok := reportList(key)
		if !ok || l.kind == listIgnored {
			return nil
		}
		if data[vs] != '[' {
			return nil // null: the first pass refused anything else
		}
		_, err := jsonscan.EachElement(data, vs, func(es, ee int) error {
			id := jsonscan.Unquote(data[es:ee], jsonscan.Replace) // a string: the first pass checked
			o := trace.Outcome{Known: true, IsBool: true, Source: Source}
			if l.kind == listResolved {
				o.Value = 1
			}
			j, seen := s.byID[id]
			if !seen || int(j) < base {
				lists = append(lists, l)
				if err := s.add(id, o, pl.at(es)); err != nil {
					return err
				}
				s.entries[len(s.entries)-1].listed = true
				return nil
			}
			// Listed twice in this report: the same list twice is a duplicate; a resolved
			// list and a list of failures (unresolved_ids, error_ids, …) contradict each
			// other; a weak list (completed_ids, …) holds resolved runs too, so resolved decides;
			// two lists of failures agree.
			e, prev := &s.entries[j], lists[int(j)-base]
			switch {
			case prev.key == l.key:
				return s.ids.Duplicate(id, pl.at(es), e.at)
			case (prev.kind == listResolved) == (l.kind == listResolved):
				return nil
			case prev.kind == listFailed || l.kind == listFailed:
				return rec.ErrorAt(es, "%s", input.Field(l.key, fmt.Sprintf("instance %s is in %s too: a run is either resolved or not", input.Quote(id), prev.key)))
			case l.kind == listResolved:
				e.o, e.at, lists[int(j)-base] = o, pl.at(es), l
			}
			return nil
		})
		return err
	})
	return err
}

// countersNote notes each counter of a report (file) that disagrees with the list it counts,
// and total_instances when it is not the number of instances the lists name (listed).
func (s *Set) countersNote(file string, counts, counters map[string]int, listed int) {
	var diff []string
	for _, l := range reportLists {
		v, ok := counters[l.counter]
		if l.counter == "" || !ok {
			continue
		}
		c, has := counts[l.key]
		if !has || c == v {
			continue
		}
		if l.key == "empty_error_patch_ids" {
			if _, both := counts["empty_patch_ids"]; both {
				continue // empty_patch_instances counts empty_patch_ids
			}
		}
		diff = append(diff, fmt.Sprintf("%s counts %d, %s lists %d", l.counter, v, l.key, c))
	}
	if v, ok := counters["total_instances"]; ok && v != listed {
		diff = append(diff, fmt.Sprintf("total_instances counts %d, the lists name %d", v, listed))
	}
	if len(diff) > 0 {
		s.notes = append(s.notes, fmt.Sprintf("outcomes %s: %s; the lists were read, not the counters", input.Quote(file), strings.Join(diff, "; ")))
	}
}

// Notes are what reading the outcomes found worth saying: the counters of a SWE-bench report
// that disagree with its lists, in the order the files were read.
func (s *Set) Notes() []string { return s.notes }

// listKind is what an id list of a SWE-bench report says of the instances it names.
type listKind uint8

const (
	listResolved listKind = iota + 1 // they resolved
	listFailed                       // they did not resolve: a resolved list naming one too is a contradiction
	listWeak                         // they did not resolve, unless a resolved list names them (completed_ids holds the resolved runs too)
	listIgnored                      // containers or images, not instances
)

// idList is an id list of a SWE-bench report: its key, what it says of the instances, and the
// counter that counts them ("" for none).
type idList struct {
	key     string
	kind    listKind
	counter string
}

// reportLists are the id lists of the SWE-bench reports (docs/input-formats.md, "SWE-bench
// reports"): make_run_report's run report (resolved_ids, unresolved_ids, error_ids,
// empty_patch_ids, incomplete_ids, completed_ids, submitted_ids), as SWE-bench experiments
// and Multi-SWE-bench publish it (resolved for resolved_ids; OpenHands' empty_error_patch_ids),
// and the lists of experiments' older get_model_report results.json, which overlap. Any
// other list whose key ends in _ids is weak: its instances did not resolve unless a resolved
// list names them.
var reportLists = [...]idList{
	{"resolved_ids", listResolved, "resolved_instances"},
	{"resolved", listResolved, "resolved_instances"},
	{"unresolved_ids", listFailed, "unresolved_instances"},
	{"error_ids", listFailed, "error_instances"},
	{"empty_patch_ids", listFailed, "empty_patch_instances"},
	{"empty_error_patch_ids", listFailed, "empty_patch_instances"},
	{"incomplete_ids", listFailed, ""},
	{"completed_ids", listWeak, "completed_instances"},
	{"submitted_ids", listWeak, "submitted_instances"},
	{"no_generation", listWeak, ""}, {"no_logs", listWeak, ""}, {"generated", listWeak, ""},
	{"with_logs", listWeak, ""}, {"install_fail", listWeak, ""}, {"reset_failed", listWeak, ""},
	{"no_apply", listWeak, ""}, {"applied", listWeak, ""}, {"test_errored", listWeak, ""},
	{"test_timeout", listWeak, ""},
	{"unstopped_containers", listIgnored, ""}, {"unremoved_images", listIgnored, ""},
}

// reportList is the list of a SWE-bench report that key (a JSON string) names: one of
// reportLists, or a weak list for another key ending in _ids.
func reportList(key []byte) (idList, bool) {
	for _, l := range reportLists {
		if jsonscan.KeyIs(key, l.key) {
			return l, true
		}
	}
	if name := jsonscan.Unquote(key, jsonscan.Replace); strings.HasSuffix(name, "_ids") {
		return idList{key: name, kind: listWeak}, true
	}
	return idList{}, false
}

// openHands reads a record of OpenHands' evaluation output: {"instance_id", …} with the
// outcome at report.resolved (update_output_with_eval.py rewrites output.jsonl so) or
// test_result.report.resolved (eval_infer.py's output.swebench_eval.jsonl).
func (s *Set) openHands(rec input.Record, start int) error {
	var r struct {
		ID json.RawMessage `json:"instance_id"`
		trace.OpenHandsEval
	}
	if err := rec.Decode(&r); err != nil {
		return err
	}
	id, problem := idOf(r.ID)
	if problem != "" {
		return rec.ErrorAt(jsonscan.Locate(rec.Data, jsonscan.PathOf("instance_id")), "%s", input.Field("instance_id", problem))
	}
	raw, p := r.Resolved()
	if raw == nil {
		return rec.ErrorAt(start, `OpenHands output of instance %s has no "report.resolved" or "test_result.report.resolved": evaluate it first (eval_infer.sh)`, input.Quote(id))
	}
	o, ok, problem := trace.ParseOutcome(raw, Source)
	if problem == "" && (!ok || !o.IsBool) {
		problem = jsonscan.Expected("true or false", jsonscan.KindOfValue(raw))
	}
	if problem != "" {
		return rec.ErrorAt(jsonscan.Locate(rec.Data, p), "%s", input.Field(p.String(), problem))
	}
	return s.add(id, o, newPlacer(rec).at(start))
}
