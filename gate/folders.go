package gate

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/trace"
)

// Reading what harnesses leave behind (SPEC §19): a folder given as traces stands for every
// trace file under it; the side files the harness writes beside them are skipped and listed
// in one note. A file named itself is read strictly, as before.

// tracePlan is the trace files to read, in order, with their formats, and the side files
// skipped.
type tracePlan struct {
	files   []string
	formats []trace.Format
	folder  []string // the folder files[i] was found under; "" when named itself
	skipped []skippedFile
	// outcomeNotes are the distinct reasons a recorded score was not read as an outcome
	// (trace.Outcome.Note), in the order first met, with how many traces gave each.
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

// skippedFile is a side file, and why it is one when its content says so ("" for a file of
// a type no harness writes traces in: a config, a log, a patch).
type skippedFile struct {
	path, folder, why string
}

// planTraces expands the traces input and tells every file's format; a file under a folder
// that its content says is a side file is skipped.
func planTraces(patterns []string) (*tracePlan, error) {
	l, err := input.ExpandListing(patterns)
	if err != nil {
		return nil, fmt.Errorf("traces: %w", err)
	}
	p := &tracePlan{}
	for _, e := range l.Files {
		var f trace.Format
		var side string
		if e.Folder == "" {
			f, err = trace.Sniff(e.Path)
		} else {
			f, side, err = trace.Classify(e.Path)
		}
		if err != nil {
			return nil, err
		}
		if side != "" {
			p.skipped = append(p.skipped, skippedFile{e.Path, e.Folder, side})
			continue
		}
		p.files = append(p.files, e.Path)
		p.formats = append(p.formats, f)
		p.folder = append(p.folder, e.Folder)
	}
	p.dropDuplicateLogs()
	p.dropCompletionLogs()
	for _, o := range l.Other {
		p.skipped = append(p.skipped, skippedFile{path: o.Path, folder: o.Folder})
	}
	for _, link := range l.Links {
		p.skipped = append(p.skipped, skippedFile{path: link, why: "a link to a folder outside the folder given, not followed"})
	}
	for _, link := range l.FileLinks {
		p.skipped = append(p.skipped, skippedFile{link.Path, link.Folder, "a link to a file outside the folder given, not followed"})
	}
	if len(p.files) == 0 && len(p.skipped) > 0 {
		return nil, &input.Error{File: strings.Join(patterns, ", "), Msg: "no trace file: " + skippedNote(p.skipped)}
	}
	return p, nil
}

// dropDuplicateLogs skips an Inspect log that a folder holds twice, as name.eval and
// name.json (inspect log convert writes one from the other): the .eval is read, the .json
// listed. Two logs of one name whose eval ids differ are two logs, both read.
func (p *tracePlan) dropDuplicateLogs() {
	evals := map[string]int{} // folder-held .eval logs by path without extension
	for i, f := range p.files {
		if p.folder[i] != "" && p.formats[i] == trace.FormatInspectEval {
			evals[stem(f)] = i
		}
	}
	if len(evals) == 0 {
		return
	}
	keep := 0
	for i, f := range p.files {
		if j, ok := evals[stem(f)]; ok && p.folder[i] != "" && p.formats[i] == trace.FormatInspectJSON {
			a, b := trace.InspectLogID(p.files[j], trace.FormatInspectEval), trace.InspectLogID(f, trace.FormatInspectJSON)
			if a == b || a == "" || b == "" {
				p.skipped = append(p.skipped, skippedFile{f, p.folder[i], "the same Inspect log as " + filepath.Base(p.files[j]) + ", read once"})
				continue
			}
		}
		p.files[keep], p.formats[keep], p.folder[keep] = p.files[i], p.formats[i], p.folder[i]
		keep++
	}
	p.files, p.formats, p.folder = p.files[:keep], p.formats[:keep], p.folder[:keep]
}

// dropCompletionLogs skips the LLM completion logs OpenHands writes beside its output
// (llm_completions/<instance_id>/*.json, one a model call) under a folder that holds that
// output too: each is a call of a run the output already holds, and read as runs of their own
// they would count every run again, once a call. Without the output they are the runs.
func (p *tracePlan) dropCompletionLogs() {
	outputs := map[string]string{} // folder → the OpenHands output in it
	for i, f := range p.files {
		if p.folder[i] != "" && p.formats[i] == trace.FormatOpenHands && !isCompletionLog(f) {
			if _, ok := outputs[p.folder[i]]; !ok {
				outputs[p.folder[i]] = f
			}
		}
	}
	if len(outputs) == 0 {
		return
	}
	keep := 0
	for i, f := range p.files {
		if out, ok := outputs[p.folder[i]]; ok && p.formats[i] == trace.FormatOpenHands && isCompletionLog(f) {
			rel, err := filepath.Rel(p.folder[i], out)
			if err != nil {
				rel = out
			}
			p.skipped = append(p.skipped, skippedFile{f, p.folder[i], "an LLM call of a run " + filepath.ToSlash(rel) + " holds"})
			continue
		}
		p.files[keep], p.formats[keep], p.folder[keep] = p.files[i], p.formats[i], p.folder[i]
		keep++
	}
	p.files, p.formats, p.folder = p.files[:keep], p.formats[:keep], p.folder[:keep]
}

// isCompletionLog reports whether path lies in an llm_completions directory, where OpenHands
// writes its completion logs (openhands/llm/llm.py with log_completions).
func isCompletionLog(path string) bool {
	for _, seg := range strings.Split(filepath.ToSlash(filepath.Dir(path)), "/") {
		if seg == "llm_completions" {
			return true
		}
	}
	return false
}

// stem is path without its extension (.eval, .json, and a .gz after them).
func stem(path string) string {
	s := strings.TrimSuffix(path, filepath.Ext(path))
	if strings.EqualFold(filepath.Ext(path), ".gz") {
		s = strings.TrimSuffix(s, filepath.Ext(s))
	}
	return s
}

// maxListed is how many side files the note names.
const maxListed = 10

// skippedNote is the one line that lists the side files skipped: those told by their
// content first, with why, then the others, each by its path under its folder.
func skippedNote(files []skippedFile) string {
	s := append([]skippedFile(nil), files...)
	sort.SliceStable(s, func(i, j int) bool {
		if (s[i].why == "") != (s[j].why == "") {
			return s[i].why != ""
		}
		return s[i].path < s[j].path
	})
	var b strings.Builder
	fmt.Fprintf(&b, "skipped %d side file%s: ", len(s), plural(len(s)))
	for i, f := range s {
		if i == maxListed {
			fmt.Fprintf(&b, ", and %d more", len(s)-maxListed)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		name := f.path
		if f.folder != "" {
			if rel, err := filepath.Rel(f.folder, f.path); err == nil {
				name = filepath.ToSlash(rel)
			}
		}
		b.WriteString(input.Cut(name))
		if f.why != "" {
			b.WriteString(" (" + f.why + ")")
		}
	}
	return b.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// readNotes are the notes on what was read (SPEC §19): the side files skipped, the traces
// with no assistant message, a suite with no tool call at all.
func readNotes(p *tracePlan, sum *reliability.Summary) []string {
	var notes []string
	if len(p.skipped) > 0 {
		notes = append(notes, skippedNote(p.skipped))
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
