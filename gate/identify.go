package gate

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/agentgate/agentgate/gate/compare"
	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/gate/reliability"
)

// identify gives the runs of r their own identities and ids (identify, below), before
// anything pairs them with outcomes or a baseline, and says what it changed in r's one
// identity note.
func (r *Result) identify() {
	if r.Reliability == nil {
		return
	}
	renumbered, notes := identify(r.Reliability.Traces)
	if renumbered {
		notes = append([]string{compare.RenumberNote}, notes...)
	}
	r.IdentityNote = strings.Join(notes, "; ")
}

// identify gives every run of traces an identity and an id no other run has
// (docs/comparison-and-statistics.md, "Which run is which: identity"), from the runs
// themselves: neither the order of traces nor the files' paths decide which run is which.
//   - the runs of a suite made by two or more agents become a suite per agent
//     ("airline@grok-3-mini"), never trials of one task;
//   - of the runs that share a suite, task and trial, all but the one whose content sorts
//     first get the next free trial numbers of their task (compare.Renumber);
//   - of the runs that share an id (two Inspect logs of one task, or of two tasks whose
//     samples share an id and epoch; two tau-bench files), all but the one whose identity
//     sorts first get one made from their identity (uniqueIDs).
//
// It works from what the harnesses recorded: a run that an earlier identify changed (a shard's
// report) is first given back its read_as, so that merging shards gives what one run over
// their files gives. renumbered says whether trials changed, for the report's one note.
func identify(traces []reliability.Result) (renumbered bool, notes []string) {
	type read struct {
		id, suite string
		trial     *int
	}
	// orig[i] is run i's identity as read, for the runs with one (nil when none has one: a
	// run without is renamed only by uniqueIDs, which reads its id before it renames it, and
	// a million runs of ids alone then cost no copy; docs/performance.md, "A million runs").
	var orig []read
	for i := range traces {
		t := &traces[i]
		a := t.Attempt
		if a == nil {
			continue
		}
		if r := a.ReadAs; r != nil {
			t.ID, a.Suite, a.Trial, a.ReadAs = r.ID, r.Suite, r.Trial, nil
		}
		if orig == nil {
			orig = make([]read, len(traces))
		}
		orig[i] = read{t.ID, a.Suite, a.Trial}
	}
	fileDomains(traces, func(i int, suite string) { orig[i].suite = suite })
	notes = agentSuites(traces)
	renumbered = compare.Renumber(traces)
	renamed := uniqueIDs(traces, func(i int) (string, *int) {
		if traces[i].Attempt == nil {
			return traces[i].ID, nil
		}
		return orig[i].id, orig[i].trial
	})
	if renamed != "" {
		notes = append(notes, renamed)
	}
	for i := range traces {
		t := &traces[i]
		a := t.Attempt
		if a == nil {
			continue
		}
		o := orig[i]
		if t.ID != o.id || a.Suite != o.suite || !sameTrial(a.Trial, o.trial) {
			a.ReadAs = &reliability.ReadAs{ID: o.id, Suite: o.suite, Trial: o.trial}
		}
	}
	return renumbered, notes
}

// fileDomains gives a run that crashed before the agent's first turn and names no suite the
// one suite the other runs of its file name (docs/comparison-and-statistics.md, "Which run is
// which: identity"): a tau-bench run names its domain in its policy, which a run that crashed
// (traj: [] and info.error) never got, and tau-bench runs one domain a file. Without it the
// crash is a run of no suite, which the baseline's run of its task matches not. A file whose
// runs name two suites gives its crashes none. The suite counts as read (named is told it for
// the read_as kept): merging shards, which are whole files, reads it back the same.
func fileDomains(traces []reliability.Result, named func(i int, suite string)) {
	suites := map[string]string{} // a file's one suite; "\x00" when it has two
	crashed := false
	for i := range traces {
		a := traces[i].Attempt
		switch {
		case a == nil || a.Task == "":
		case a.Crashed && a.Suite == "":
			crashed = true
		case a.Suite != "":
			f := traces[i].File
			if s, ok := suites[f]; !ok {
				suites[f] = a.Suite
			} else if s != a.Suite {
				suites[f] = "\x00"
			}
		}
	}
	if !crashed {
		return
	}
	for i := range traces {
		a := traces[i].Attempt
		if a == nil || a.Task == "" || !a.Crashed || a.Suite != "" {
			continue
		}
		if s := suites[traces[i].File]; s != "" && s != "\x00" {
			a.Suite = s
			named(i, s)
		}
	}
}

func sameTrial(a, b *int) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

// agentSuites makes a suite per agent of the suites whose runs two or more agents made, and
// says so in one note a suite.
func agentSuites(traces []reliability.Result) []string {
	agents := map[string][]string{} // the agents of each suite, in order of their first run
	for i := range traces {
		if a := traces[i].Attempt; a != nil && a.Task != "" && a.Agent != "" && !slices.Contains(agents[a.Suite], a.Agent) {
			agents[a.Suite] = append(agents[a.Suite], a.Agent)
		}
	}
	var notes []string
	var suites []string
	for s, as := range agents {
		if len(as) > 1 {
			suites = append(suites, s)
		}
	}
	slices.Sort(suites)
	for _, s := range suites {
		as := slices.Clone(agents[s])
		slices.Sort(as)
		named := make([]string, len(as))
		for i, a := range as {
			named[i] = input.Quote(agentSuite(s, a))
		}
		what := "suite " + input.Quote(s)
		if s == "" {
			what = "the runs without a suite"
		}
		notes = append(notes, fmt.Sprintf("%s holds runs of %d agents (%s): each agent's runs are a suite of their own (%s), never trials of one task",
			what, len(as), quoteAll(as), strings.Join(named, ", ")))
	}
	if len(suites) == 0 {
		return nil
	}
	for i := range traces {
		if a := traces[i].Attempt; a != nil && a.Task != "" && a.Agent != "" && slices.Contains(suites, a.Suite) {
			a.Suite = agentSuite(a.Suite, a.Agent)
		}
	}
	return notes
}

// agentSuite is the suite of agent's runs of suite.
func agentSuite(suite, agent string) string {
	if suite == "" {
		return agent
	}
	return suite + "@" + agent
}

func quoteAll(s []string) string {
	q := make([]string, len(s))
	for i, x := range s {
		q[i] = input.Quote(x)
	}
	return strings.Join(q, ", ")
}

// uniqueIDs gives a run whose id an earlier run has an id made from its identity, no run's
// id: its trial in place of the one it was read with ("76105#1" given trial 3 is "76105#3"),
// else its suite before it ("other_task/76105#1"), else a number after it. The earlier run is
// the one whose identity sorts first (suite, task, trial, each as written), never the one
// whose file does: only runs with tasks share ids, and no two of them share an identity
// once Renumber has run, so that renaming or moving the files renames no run
// (docs/comparison-and-statistics.md, "Which run is which: identity"). read is the id and
// trial a run was read with. It returns the note to make, "" when no id changed.
func uniqueIDs(traces []reliability.Result, read func(int) (string, *int)) string {
	if !sharedID(traces) {
		return ""
	}
	taken := make(map[string]bool, len(traces))
	order := make([]int32, len(traces))
	for i := range traces {
		taken[traces[i].ID] = true
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(i, j int32) int { return byIdentity(&traces[i], &traces[j]) })
	seen := make(map[string]bool, len(traces))
	n, fromID, toID := 0, "", ""
	for _, k := range order {
		i := int(k)
		t := &traces[i]
		if !seen[t.ID] {
			seen[t.ID] = true
			continue
		}
		id, trial := read(i)
		a := t.Attempt
		var cands []string
		if a != nil && a.Trial != nil && trial != nil && *a.Trial != *trial {
			if base, ok := strings.CutSuffix(id, "#"+strconv.Itoa(*trial)); ok {
				cands = append(cands, base+"#"+strconv.Itoa(*a.Trial))
			}
		}
		if a != nil && a.Suite != "" {
			for _, c := range append(slices.Clone(cands), id) {
				cands = append(cands, a.Suite+"/"+c)
			}
		}
		next := ""
		for _, c := range cands {
			if !taken[c] {
				next = c
				break
			}
		}
		for k := 2; next == ""; k++ {
			if c := id + "~" + strconv.Itoa(k); !taken[c] {
				next = c
			}
		}
		taken[next], seen[next] = true, true
		t.ID = next
		n++
		if fromID == "" || id < fromID || id == fromID && next < toID { // the least, whatever the order of the records
			fromID, toID = id, next
		}
	}
	if n == 0 {
		return ""
	}
	runs := fmt.Sprintf("%d runs have", n)
	if n == 1 {
		runs = "1 run has"
	}
	return fmt.Sprintf("%s an id another run has (two files of the same tasks, or one task id in two suites): each is named from its own suite and trial (the first by id: %s is %s), and its id as read is kept as read_as", runs, input.Quote(fromID), input.Quote(toID))
}

// byIdentity orders runs by their identity: the runs without a task first (in order), then by
// suite, task and trial (a run without a trial first).
func byIdentity(x, y *reliability.Result) int {
	a, b := x.Attempt, y.Attempt
	ta, tb := a != nil && a.Task != "", b != nil && b.Task != ""
	switch {
	case !ta || !tb:
		return cmp.Compare(boolInt(ta), boolInt(tb))
	case a.Suite != b.Suite:
		return strings.Compare(a.Suite, b.Suite)
	case a.Task != b.Task:
		return strings.Compare(a.Task, b.Task)
	case a.Trial == nil || b.Trial == nil:
		return cmp.Compare(boolInt(a.Trial != nil), boolInt(b.Trial != nil))
	}
	return cmp.Compare(*a.Trial, *b.Trial)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// sharedID reports whether two of traces have one id. It sorts their indexes, four bytes a
// run, where the two maps of uniqueIDs take about sixty: a million runs with ids of their own,
// the common case, cost uniqueIDs no map (docs/performance.md, "A million runs").
func sharedID(traces []reliability.Result) bool {
	order := make([]int32, len(traces))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(traces[a].ID, traces[b].ID) })
	for i := 1; i < len(order); i++ {
		if traces[order[i]].ID == traces[order[i-1]].ID {
			return true
		}
	}
	return false
}

// bothTasks reports whether a run of task (its own id taken by prev) and prev both have a
// task: runs known by their identity may share an id, and identify gives each its own; runs
// known by their id alone may not.
func bothTasks(task string, prev *reliability.Result) bool {
	return task != "" && prev.Attempt != nil && prev.Attempt.Task != ""
}
