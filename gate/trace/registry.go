package trace

import (
	"context"
	"fmt"
	"strings"
)

// The registry of trace formats (docs/trace-formats.md, "The registry of formats"): each
// format a harness writes is one Harness row, declared in the harness's own file (tau2.go,
// inspect.go, openhands.go, …) and listed once in formats below. A row holds everything
// agentgate knows of the format: how a file of it is recognised, its reader, the side files
// the harness writes beside it, the rules its identity, outcome and usage follow, its
// terminal tools. A file is recognised once, when the input is planned (Recognise); the plan
// carries its Format to Read, which hands it to the row's reader without looking again.
// Adding a harness is one file with its row, and the row's line in formats
// (docs/development.md, "Adding a harness").

// Harness is one row of the registry: one file format of one harness.
type Harness struct {
	// Format is the row's value in a plan; Name is how notes and the docs name it.
	Format Format
	Name   string
	// Recognise reports whether the head of a file (its first bytes and the top-level keys
	// they show) is of this format. Rows are asked in the order of formats after each key,
	// so the first row whose keys have all been seen wins; nil for the fallback row.
	Recognise func(h *head) bool
	// Recognised says in words what Recognise looks for, as the docs' table shows it.
	Recognised string
	// Read streams the traces of a file of this format to fn, in file order.
	Read Reader
	// Side says why a file of this format found under a folder is a side file the harness
	// writes beside its traces (a report, run metadata, a log with no samples), "" when it
	// holds traces. Nil: every file of the format holds traces.
	Side func(path string) string
	// Folder skips, among the files planned under folders, those that repeat runs another
	// file of the plan holds (an Inspect log written twice, OpenHands' completion logs beside
	// its output). Nil: none do.
	Folder func(files []File) (keep []File, skipped []Skipped)
	// Turns names the key the agent's turns are looked for under, as the error of a blind
	// read says it (docs/trace-formats.md, "Blind reads and crashes").
	Turns string
	// Turnless is set for a format whose runs may hold no agent turn at all (OTLP spans
	// recorded without content; trace records, which a team writes from its own loop and
	// which may hold a prompt alone): the gate does not refuse its files as read blind when
	// most of their traces hold none, it notes them. A harness's own format is not turnless.
	Turnless bool
	// TerminalTools are the tools with which the harness's agent ends its run (OpenHands'
	// finish, Inspect's submit): a call of one gets no result, by design. A reader may set
	// a trace's own list where the record tells the harness (a SWE-agent trajectory).
	TerminalTools []string
	// Identity, Outcome and Usage are the rules the reader follows, as docs/trace-formats.md
	// states them in its table (TestRegistryTable holds the two together).
	Identity, Outcome, Usage string
}

// Reader is the one signature of every format's reader: it streams the traces of the planned
// file f to fn, in file order. Problems with the input are *input.Error values naming file,
// line and column.
type Reader func(ctx context.Context, f File, o Options, fn func(*Trace) error) error

// File is one trace file of a plan: its path, the folder given as input it was found under
// ("" when named itself) and its format, told once when planned. With are the files of the
// folder read with it as one input, which a row's Folder rule joined to it (LangSmith
// feedback beside its runs, a Langfuse blob export's other windows and tables).
type File struct {
	Path, Folder string
	Format       Format
	With         []string
}

// Skipped is a side file the plan skips: where it is, and why when its content says so ("" for
// a file of a type no harness writes traces in: a config, a log, a patch).
type Skipped struct {
	Path, Folder, Why string
}

// formats is the registry, in the order rows are asked to recognise a file. Records is last:
// it is what a file no other row recognises is read as.
var formats = [...]*Harness{
	&inspectEvalHarness,
	&messageListHarness,
	&otlpHarness,
	&tau2Harness,
	&openHandsHarness,
	&openHandsResolverHarness,
	&agentDojoHarness,
	&langSmithHarness,
	&langSmithFeedbackHarness,
	&langfuseHarness,
	&openAIAgentsHarness,
	&phoenixHarness,
	&inspectJSONHarness,
	&recordsHarness,
}

// Harnesses returns the registry's rows, in the order they recognise a file.
func Harnesses() []*Harness { return formats[:] }

// Of returns the row of format f.
func Of(f Format) *Harness {
	for _, h := range formats {
		if h.Format == f {
			return h
		}
	}
	return &recordsHarness
}

// String is the name of the format's row.
func (f Format) String() string { return Of(f).Name }

// Read streams the traces of the planned file f to fn with the reader of its format, and
// gives each trace its format's terminal tools where the reader did not set them.
func Read(ctx context.Context, f File, o Options, fn func(*Trace) error) error {
	h := Of(f.Format)
	return h.Read(ctx, f, o, func(t *Trace) error {
		if t.TerminalTools == nil {
			t.TerminalTools = h.TerminalTools
		}
		return fn(t)
	})
}

// RecogniseFile tells the format of the file at path and, when it was found under a folder,
// whether it is a side file (why is then not empty): the one look at a file before it is read.
func RecogniseFile(path, folder string) (f File, why string, err error) {
	format, err := Sniff(path)
	if err != nil {
		return File{}, "", err
	}
	f = File{Path: path, Folder: folder, Format: format}
	if folder != "" {
		if side := Of(format).Side; side != nil {
			why = side(path)
		}
	}
	return f, why, nil
}

// PlanFolders applies the folder rules of every row to the planned files, in registry order:
// the files that repeat the runs of another are skipped.
func PlanFolders(files []File) (keep []File, skipped []Skipped) {
	keep = files
	for _, h := range formats {
		if h.Folder == nil {
			continue
		}
		var s []Skipped
		keep, s = h.Folder(keep)
		skipped = append(skipped, s...)
	}
	return keep, skipped
}

// SideFileError is what a reader returns for a file that turns out, once read, to hold no run
// (an Inspect log with no samples): under a folder the plan lists it as a side file with Why;
// named itself it is the error it unwraps to.
type SideFileError struct {
	Why string
	Err error
}

func (e *SideFileError) Error() string { return e.Err.Error() }

// Unwrap returns the error a file named itself gives.
func (e *SideFileError) Unwrap() error { return e.Err }

// checkRegistry reports what is wrong with the registry: a row without a reader, two rows of one
// format, a fallback row that is not last. The tests call it.
func checkRegistry() error {
	var problems []string
	seen := map[Format]bool{}
	for i, h := range formats {
		switch {
		case h.Read == nil:
			problems = append(problems, h.Name+" has no reader")
		case seen[h.Format]:
			problems = append(problems, fmt.Sprintf("format %d twice", h.Format))
		case h.Recognise == nil && i != len(formats)-1:
			problems = append(problems, h.Name+" recognises nothing but is not the last row")
		}
		seen[h.Format] = true
	}
	if len(problems) > 0 {
		return fmt.Errorf("registry: %s", strings.Join(problems, "; "))
	}
	return nil
}
