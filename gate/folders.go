package gate

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/trace"
)

// Reading what harnesses leave behind (docs/trace-formats.md, "The folder a harness writes"):
// a folder given as traces stands for every trace file under it; the side files the harness
// writes beside them are skipped and listed in one note. A file named itself is read strictly,
// as before. What a file is, and which files repeat another's runs, is the knowledge of the
// formats' rows in gate/trace's registry: the plan asks it, once a file.

// tracePlan is the trace files to read, in order, each with its format, and the side files
// skipped.
type tracePlan struct {
	files   []trace.File
	skipped []trace.Skipped
	// outcomeNotes are the distinct reasons a recorded score was not read as an outcome
	// (trace.Outcome.Note), and what else a reader could not read of a run (trace.Note), in
	// the order first met, with how many traces gave each.
	outcomeNotes []string
	outcomeCount map[string]int
	stats        readStats
}

// maxOutcomeNotes is how many distinct outcome notes the report keeps.
const maxOutcomeNotes = 3

// noteOutcome counts a trace whose recorded score was not read as its outcome.
func (p *tracePlan) noteOutcome(note string) {
	if p.outcomeCount == nil {
		p.outcomeCount = map[string]int{}
	}
	if _, ok := p.outcomeCount[note]; !ok {
		if len(p.outcomeNotes) == maxOutcomeNotes {
			return
		}
		p.outcomeNotes = append(p.outcomeNotes, note)
	}
	p.outcomeCount[note]++
}

// planTraces expands the traces input and recognises every file's format; a file under a
// folder that its content says is a side file is skipped, and so are the files that repeat
// the runs of another (the registry's folder rules).
func planTraces(patterns []string) (*tracePlan, error) {
	l, err := input.ExpandListing(patterns)
	if err != nil {
		return nil, fmt.Errorf("traces: %w", err)
	}
	p := &tracePlan{}
	for _, e := range l.Files {
		f, side, err := trace.RecogniseFile(e.Path, e.Folder)
		if err != nil {
			return nil, err
		}
		if side != "" {
			p.skipped = append(p.skipped, trace.Skipped{Path: e.Path, Folder: e.Folder, Why: side})
			continue
		}
		p.files = append(p.files, f)
	}
	var repeated []trace.Skipped
	p.files, repeated = trace.PlanFolders(p.files)
	p.skipped = append(p.skipped, repeated...)
	for _, o := range l.Other {
		p.skipped = append(p.skipped, trace.Skipped{Path: o.Path, Folder: o.Folder})
	}
	for _, link := range l.Links {
		p.skipped = append(p.skipped, trace.Skipped{Path: link, Why: "a link to a folder outside the folder given, not followed"})
	}
	for _, link := range l.FileLinks {
		p.skipped = append(p.skipped, trace.Skipped{Path: link.Path, Folder: link.Folder, Why: "a link to a file outside the folder given, not followed"})
	}
	if len(p.files) == 0 && len(p.skipped) > 0 {
		return nil, &input.Error{File: strings.Join(patterns, ", "), Msg: "no trace file: " + skippedNote(p.skipped)}
	}
	return p, nil
}

// maxListed is how many side files the note names.
const maxListed = 10

// skippedNote is the one line that lists the side files skipped: those told by their
// content first, with why, then the others, each by its path under its folder.
func skippedNote(files []trace.Skipped) string {
	s := append([]trace.Skipped(nil), files...)
	sort.SliceStable(s, func(i, j int) bool {
		if (s[i].Why == "") != (s[j].Why == "") {
			return s[i].Why != ""
		}
		return s[i].Path < s[j].Path
	})
	var b strings.Builder
	fmt.Fprintf(&b, "skipped %d side file%s: ", len(s), plural(len(s)))
	listFiles(&b, s)
	return b.String()
}

// listFiles writes the first maxListed of files to b, each by its path under its folder and
// why, then how many more there are.
func listFiles(b *strings.Builder, files []trace.Skipped) {
	for i, f := range files {
		if i == maxListed {
			fmt.Fprintf(b, ", and %d more", len(files)-maxListed)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		name := filepath.ToSlash(f.Path)
		if f.Folder != "" {
			if rel, err := filepath.Rel(f.Folder, f.Path); err == nil {
				name = filepath.ToSlash(rel)
			}
		}
		b.WriteString(input.Cut(name))
		if f.Why != "" {
			b.WriteString(" (" + f.Why + ")")
		}
	}
}

// sidesRead are the side files the readers read, each with the folder given that holds the
// trace it was read for, so that the notes name it as they name a skipped file; sorted, each
// once.
func (p *tracePlan) sidesRead() []trace.Skipped {
	folders := map[string]string{} // a trace file's folder: the folder given it was found under
	for _, f := range p.files {
		folders[filepath.Dir(f.Path)] = f.Folder
	}
	paths := slices.Clone(p.stats.sides)
	slices.Sort(paths)
	paths = slices.Compact(paths)
	out := make([]trace.Skipped, len(paths))
	for i, s := range paths {
		out[i] = trace.Skipped{Path: s, Folder: folders[filepath.Dir(s)]}
	}
	return out
}

// sidesNote is the one line that lists the side files the readers read beside the traces, for
// what the traces lack (docs/trace-formats.md, "Agents": a SWE-agent run's config), the first
// maxListed named. They are not listed as skipped.
func sidesNote(files []trace.Skipped) string {
	var b strings.Builder
	fmt.Fprintf(&b, "read %d side file%s beside the traces, for what the traces do not record (a run's config): ", len(files), plural(len(files)))
	listFiles(&b, files)
	return b.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// readNotes are the notes on what was read (docs/design.md#harness-folders): the side files skipped, the traces
// with no assistant message, a suite with no tool call at all.
func readNotes(p *tracePlan, sum *reliability.Summary) []string {
	var notes []string
	skipped := p.skipped
	if len(p.stats.sides) > 0 {
		read := make(map[string]bool, len(p.stats.sides))
		for _, s := range p.stats.sides {
			read[filepath.Clean(s)] = true
		}
		skipped = slices.DeleteFunc(slices.Clone(skipped), func(s trace.Skipped) bool { return read[filepath.Clean(s.Path)] })
		notes = append(notes, sidesNote(p.sidesRead()))
	}
	if len(skipped) > 0 {
		notes = append(notes, skippedNote(skipped))
	}
	for _, n := range p.outcomeNotes {
		c := p.outcomeCount[n]
		notes = append(notes, fmt.Sprintf("%d trace%s: %s", c, plural(c), n))
	}
	if sum == nil || len(sum.Traces) == 0 {
		return notes
	}
	noAgent, calls := p.stats.noAgent, 0
	for i := range sum.Traces {
		calls += int(sum.Traces[i].ToolCalls)
	}
	if noAgent > 0 {
		verb := "have"
		if noAgent == 1 {
			verb = "has"
		}
		notes = append(notes, fmt.Sprintf("%d trace%s %s no assistant message: the agent's turns were not found in this format", noAgent, plural(noAgent), verb))
	}
	if calls == 0 {
		n := len(sum.Traces)
		notes = append(notes, fmt.Sprintf("no tool call in %s: the tool signals had nothing to judge", countTraces(n)))
	}
	return notes
}

func countTraces(n int) string {
	if n == 1 {
		return "the one trace"
	}
	return fmt.Sprintf("any of the %d traces", n)
}
