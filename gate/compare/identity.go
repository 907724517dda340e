package compare

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/agentgate/agentgate/gate/reliability"
)

// What a comparison matched runs on (Matching.On).
const (
	OnIdentity      = "task and trial"        // (task, trial) where a side names no suite, the trace id for a run with no task
	OnSuiteIdentity = "suite, task and trial" // (suite, task, trial): both sides name suites
	OnTraceID       = "trace id"
)

// Matching says what a comparison matched the runs on and how many of each side matched
// (docs/design.md#run-identity). Warning, when fewer than half of either side matched, says so with the likely
// cause, for the comparison's heading.
type Matching struct {
	On       string `json:"on"`
	BaseRuns int    `json:"base_runs"`
	HeadRuns int    `json:"head_runs"`
	Matched  int    `json:"matched"`
	Warning  string `json:"warning,omitempty"`
	// Missing counts the baseline's identities no run of head has, Added head's that no run
	// of the baseline has (their names are the reliability metric's Removed and Added).
	Missing int `json:"missing"`
	Added   int `json:"added"`
	// Normalised names the identities matched only once their parts were normalised (NFC,
	// surrounding space trimmed, zero-width and bidi controls removed; normPart).
	Normalised Units `json:"normalised"`
	// BaseDuplicates and HeadDuplicates name the identities more than one run of a side holds
	// whose verdicts or outcomes disagree: each is compared by its worse.
	BaseDuplicates Units `json:"base_duplicates"`
	HeadDuplicates Units `json:"head_duplicates"`
}

// account records in m what matching the runs found: the missing and added identities, those
// matched only once normalised, and those held by several runs of a side that disagree.
func (m *Matching) account(rm runMatch) {
	m.Normalised.First, m.BaseDuplicates.First, m.HeadDuplicates.First = []string{}, []string{}, []string{}
	for _, i := range rm.normalised {
		m.Normalised.add(rm.headName(rm.units[i].head))
	}
	for _, u := range rm.units {
		switch {
		case u.head.n == 0:
			m.Missing++
		case u.base.n == 0:
			m.Added++
		}
		if rm.base.disagree(u.base) {
			m.BaseDuplicates.add(rm.baseName(u.base))
		}
		if rm.head.disagree(u.head) {
			m.HeadDuplicates.add(rm.headName(u.head))
		}
	}
}

// matchKey is how a comparison keys the runs it matches: on their identity (docs/design.md#run-identity) when
// both sides name tasks, with the suite when both name suites; else on the trace id.
type matchKey struct{ identity, suite bool }

// of is run r's key, its identity parts normalised (normPart). Matched on identities, an
// identity key and a trace id never collide: they start with different control characters,
// which no key of the other kind starts with. Matched on trace ids, the key is the id itself,
// which a million runs then hold no copy of (docs/performance.md, "A million runs").
func (k matchKey) of(r *reliability.Result) string { return k.key(r, nil, normPart) }

// asWritten is run r's key with its parts as the input wrote them: a pair matched on of
// whose keys as written differ was matched only by the normalising.
func (k matchKey) asWritten(r *reliability.Result) string {
	return k.key(r, nil, func(s string) string { return s })
}

// key is run r's key with its parts passed through part, and its trial trial when that is
// not nil (a renumbered run's trial as written).
func (k matchKey) key(r *reliability.Result, trial *int, part func(string) string) string {
	a := r.Attempt
	if !k.identity {
		return part(r.ID)
	}
	if a == nil || a.Task == "" {
		return "\x02" + part(r.ID)
	}
	var b strings.Builder
	b.WriteByte('\x01')
	if k.suite {
		b.WriteString(strconv.Quote(part(a.Suite)))
	}
	b.WriteString(strconv.Quote(part(a.Task)))
	if trial == nil {
		trial = a.Trial
	}
	if trial != nil {
		b.WriteString(strconv.Itoa(*trial))
	}
	return b.String()
}

// normalises reports whether normalising changes a part of run r's key (normPart), so that
// its key as written differs from the one it is matched on.
func (k matchKey) normalises(r *reliability.Result) bool {
	a := r.Attempt
	if !k.identity || a == nil || a.Task == "" {
		return normPart(r.ID) != r.ID
	}
	return normPart(a.Task) != a.Task || k.suite && normPart(a.Suite) != a.Suite
}

// name is how the report names run r in the lists of a comparison: by what it was matched
// on, "airline/29#0" (suite/task#trial, tau-bench's own form) for an identity, else the
// trace id; as the input wrote it, with trial trial when that is not nil.
func (k matchKey) name(r *reliability.Result, trial *int) string {
	a := r.Attempt
	if !k.identity || a == nil || a.Task == "" {
		return r.ID
	}
	n := a.Task
	if k.suite && a.Suite != "" {
		n = a.Suite + "/" + n
	}
	if trial == nil {
		trial = a.Trial
	}
	if trial != nil {
		n += "#" + strconv.Itoa(*trial)
	}
	return n
}

// normPart is an identity part as runs are matched on it (docs/comparison-and-statistics.md,
// "Every baseline run accounted for"): zero-width and bidirectional controls removed, then
// Unicode NFC, then surrounding white space trimmed. A zero-width space or a leading space in
// a task id, or a decomposed "é", does not make a run another run.
func normPart(s string) string {
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || c <= ' ' && (i == 0 || i == len(s)-1) {
			plain = false
			break
		}
	}
	if plain {
		return s // printable ASCII without surrounding space: already as matched
	}
	s = strings.Map(func(r rune) rune {
		if invisible(r) {
			return -1
		}
		return r
	}, s)
	return strings.TrimSpace(norm.NFC.String(s))
}

// invisible reports whether r is a zero-width or bidirectional control character: the
// characters that change no glyph of an id a reviewer reads, and so must not change which run
// it names.
func invisible(r rune) bool {
	switch {
	case r == 0x00AD, r == 0x061C, r == 0x180E, r == 0xFEFF: // soft hyphen, Arabic letter mark, Mongolian vowel separator, BOM
		return true
	case r >= 0x200B && r <= 0x200F: // zero-width space, non-joiner, joiner; LRM, RLM
		return true
	case r >= 0x202A && r <= 0x202E: // bidi embeddings and overrides
		return true
	case r >= 0x2060 && r <= 0x2064: // word joiner, invisible operators
		return true
	case r >= 0x2066 && r <= 0x2069: // bidi isolates
		return true
	}
	return false
}

// has reports which of task and suite any of traces names.
func has(traces []reliability.Result) (task, suite bool) {
	for i := range traces {
		if a := traces[i].Attempt; a != nil {
			task = task || a.Task != ""
			suite = suite || a.Suite != ""
		}
	}
	return task, suite
}

// matchOn decides what base and head are matched on: their identities when both sides name
// tasks (the suite too when both name suites), else the trace ids, as a baseline written
// before agentgate read run identities is. The notes say when one side's identities went
// unused.
func matchOn(base, head []reliability.Result) (matchKey, []string) {
	bt, bs := has(base)
	ht, hs := has(head)
	var k matchKey
	var notes []string
	switch {
	case bt && ht:
		k.identity = true
	case bt != ht:
		side := "the baseline"
		if ht {
			side = "this run"
		}
		notes = append(notes, "runs matched by trace id: only "+side+" names the runs' tasks (a report written before agentgate read run identities names none)")
	}
	switch {
	case k.identity && bs && hs:
		k.suite = true
	case k.identity && bs != hs:
		side := "the baseline"
		if hs {
			side = "this run"
		}
		notes = append(notes, "runs matched on task and trial without the suite: only "+side+" names the runs' suites")
	case k.identity && !bs && !hs && numberedTasks(base) && numberedTasks(head):
		notes = append(notes, "runs matched on task and trial: "+domainsUnknown)
	}
	return k, notes
}

// domainsUnknown says why runs matched on numbered tasks without a suite may be of two domains.
const domainsUnknown = "neither report names the runs' domains (suites), and their task ids are numbers, which a harness's domains share (each numbers its tasks from 0): runs of two domains would be taken for one"

// numberedTasks reports whether every task traces name is a whole number, as tau-bench's and
// tau2's are in every domain.
func numberedTasks(traces []reliability.Result) bool {
	for i := range traces {
		if a := traces[i].Attempt; a != nil && a.Task != "" {
			if strings.Trim(a.Task, "0123456789") != "" {
				return false
			}
		}
	}
	return true
}

// matching counts the runs of each side and those matched (t's), and warns when fewer than
// half of either side matched, with the likely cause.
func matching(on matchKey, base, head []reliability.Result, t *Test) *Matching {
	m := &Matching{On: OnTraceID, BaseRuns: len(base), HeadRuns: len(head), Matched: t.Matched}
	if on.identity {
		m.On = OnIdentity
		if on.suite {
			// said in full: tau2's domains all number their tasks from "0", and a reader
			// must see that airline's task 3 was not matched with retail's
			m.On = OnSuiteIdentity
		}
	}
	if 2*m.Matched >= m.BaseRuns && 2*m.Matched >= m.HeadRuns {
		return m
	}
	count := fmt.Sprintf("%d of %d runs matched", m.Matched, m.BaseRuns)
	if m.BaseRuns != m.HeadRuns {
		count = fmt.Sprintf("%d of %d base runs and %d of %d head runs matched", m.Matched, m.BaseRuns, m.Matched, m.HeadRuns)
	}
	m.Warning = count + ": " + cause(on, base, head)
	return m
}

// cause is the likely reason few runs matched.
func cause(on matchKey, base, head []reliability.Result) string {
	if !on.identity {
		if bt, _ := has(base); bt {
			return "the two reports name different trace ids, and only the baseline names the runs' tasks"
		}
		if ht, _ := has(head); ht {
			return "the two reports name different trace ids, and the baseline names no task to match on (a report written before agentgate read run identities)"
		}
		return "the two reports name different trace ids"
	}
	tasks := func(rs []reliability.Result, suite bool) map[string]bool {
		out := map[string]bool{}
		for i := range rs {
			if a := rs[i].Attempt; a != nil && a.Task != "" {
				k := strconv.Quote(a.Task)
				if suite {
					k = strconv.Quote(a.Suite) + k
				}
				out[k] = true
			}
		}
		return out
	}
	shared := func(suite bool) int {
		b, h := tasks(base, suite), tasks(head, suite)
		n := 0
		for k := range h {
			if b[k] {
				n++
			}
		}
		return n
	}
	switch {
	case on.suite && shared(true) == 0 && shared(false) > 0:
		return "the two reports name the same task ids in different suites"
	case shared(on.suite) == 0:
		return "the two reports name different tasks"
	}
	if !on.suite && numberedTasks(base) && numberedTasks(head) {
		return "the two reports share tasks but not their trials; " + domainsUnknown
	}
	return "the two reports share tasks but not their trials"
}

// RenumberNote is the one note of a run in which some runs shared an identity (docs/design.md#run-identity).
const RenumberNote = "some runs share a suite, task and trial (the same task run twice, e.g. two results files of one domain): the later ones, in the order of a digest of what each recorded, were given the next free trial numbers, so that no two runs are taken for one"

// Renumber gives every run of traces whose identity (suite, task, trial) another run shares
// the next free trial number of its task (docs/design.md#run-identity): two results files of
// one domain that both hold trial 0 are two runs, not one. Which run keeps the identity and
// the order in which the others are numbered are decided by the runs themselves, never by
// where their files lie or how they are named (docs/comparison-and-statistics.md, "Which run
// is which: identity"): the run whose content sorts first (reliability.Result.ContentKey, a
// digest of what it recorded) keeps it; the others are numbered in the order of the trials
// they were read with (those read without one first), then of their content, then of their
// ids. Only runs alike in all of these keep the order of traces. A run with a task and no
// trial that shares its task with another is numbered too, the first from 0. It reports
// whether it changed any, for the report's one note.
func Renumber(traces []reliability.Result) bool {
	type task struct{ suite, task string }
	type run struct {
		task
		trial int
	}
	next := map[task]int{}  // one past the largest trial of the task
	count := map[task]int{} // runs of the task without a trial
	for i := range traces {
		if a := traces[i].Attempt; a != nil && a.Task != "" {
			k := task{a.Suite, a.Task}
			if a.Trial == nil {
				count[k]++
			} else if n := *a.Trial; n < math.MaxInt32 {
				next[k] = max(next[k], n+1)
			}
		}
	}
	// the content keys of the runs that share an identity, made only for them: a million
	// runs of identities of their own cost none
	keys := map[int]string{}
	byContent := func(i, j int) int {
		key := func(i int) string {
			k, ok := keys[i]
			if !ok {
				k = traces[i].ContentKey()
				keys[i] = k
			}
			return k
		}
		if c := strings.Compare(key(i), key(j)); c != 0 {
			return c
		}
		if c := strings.Compare(traces[i].ID, traces[j].ID); c != 0 {
			return c
		}
		return cmp.Compare(i, j)
	}
	holder := map[run]int{} // the run that keeps each identity
	var later []int         // the runs to number
	for i := range traces {
		a := traces[i].Attempt
		if a == nil || a.Task == "" {
			continue
		}
		k := task{a.Suite, a.Task}
		if a.Trial == nil {
			if count[k] >= 2 || next[k] > 0 { // not the task's one run
				later = append(later, i)
			}
			continue
		}
		r := run{k, *a.Trial}
		h, ok := holder[r]
		switch {
		case !ok:
			holder[r] = i
		case byContent(i, h) < 0:
			holder[r] = i
			later = append(later, h)
		default:
			later = append(later, i)
		}
	}
	// runs read without a trial first, then by the trial they were read with, then by content
	slices.SortFunc(later, func(i, j int) int {
		a, b := traces[i].Attempt.Trial, traces[j].Attempt.Trial
		switch {
		case a == nil && b == nil:
		case a == nil || b == nil:
			return cmp.Compare(boolInt(a != nil), boolInt(b != nil))
		case *a != *b:
			return cmp.Compare(*a, *b)
		}
		return byContent(i, j)
	})
	for _, i := range later {
		a := traces[i].Attempt
		k := task{a.Suite, a.Task}
		if a.Trial != nil {
			a.WrittenTrial = a.Trial
		}
		n := next[k]
		next[k]++
		a.Trial = &n
	}
	return len(later) > 0
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
