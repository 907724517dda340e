// Package actions is the thin layer between agentgate's entry point and the
// GitHub Actions runner, over github.com/sethvargo/go-githubactions: ordered
// step outputs, a job summary kept under the runner's size limit,
// at most ten error annotations, and masking of the token.
//
// go-githubactions panics when an environment file it writes to is not set
// (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY outside Actions) or cannot be written;
// these wrappers check first and turn failures into errors, so that a
// reporting problem can never crash the step or change the verdict.
package actions

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/sethvargo/go-githubactions"
)

// MaxAnnotations is how many annotations Annotate emits at most (docs/design.md#the-action);
// the runner itself shows only 10 error annotations per step.
const MaxAnnotations = 10

// MaxSummaryBytes is the runner's limit on one step's job summary: it
// drops a summary of 1 MiB or more, so WriteSummary stays below it.
const MaxSummaryBytes = 1 << 20

// fileCommandDelimiter is the fixed heredoc delimiter go-githubactions
// writes multi-line values with; a value containing it on a line of its own
// would end the value early and could define other outputs.
const fileCommandDelimiter = "_GitHubActionsFileCommandDelimeter_"

// summaryNote ends a job summary that was cut to fit MaxSummaryBytes.
const summaryNote = "\n\n> [!NOTE]\n> This summary was cut to stay under the 1 MiB limit of a job summary. " +
	"The JSON report (`report-json` output) has everything.\n"

// Annotation is one error annotation. It has the same fields as
// report.Annotation, so the caller converts with actions.Annotation(a).
type Annotation struct {
	File    string
	Line    int
	Col     int // 0 when unknown
	Title   string
	Message string
}

// SetOutputs writes step outputs in the given order. It returns false, and
// writes nothing, when GITHUB_OUTPUT is unset (not running under Actions).
// An output name must be non-empty and one line; a value must not contain
// the file-command delimiter. A pair that breaks these rules is refused
// and the others are written all the same: one untrusted value (a
// baseline's commit) must not take the verdict's output with it. The
// error then names each refused output.
func SetOutputs(a *githubactions.Action, kv [][2]string) (bool, error) {
	path := a.Getenv("GITHUB_OUTPUT")
	if path == "" {
		return false, nil
	}
	if err := checkWritable(path); err != nil {
		return false, fmt.Errorf("GITHUB_OUTPUT: %w", err)
	}
	var refused []error
	for _, p := range kv {
		switch {
		case p[0] == "" || strings.ContainsAny(p[0], "\r\n=<"):
			refused = append(refused, fmt.Errorf("output name %q: want a single word such as verdict; not written", p[0]))
			continue
		case strings.Contains(p[1], fileCommandDelimiter):
			refused = append(refused, fmt.Errorf("output %s: value contains the runner's file-command delimiter; not written", p[0]))
			continue
		}
		if err := guard(func() { a.SetOutput(p[0], p[1]) }); err != nil {
			return false, fmt.Errorf("set output %s: %w", p[0], err)
		}
	}
	return true, errors.Join(refused...)
}

// WriteSummary appends markdown to the job summary. It returns false, and
// writes nothing, when GITHUB_STEP_SUMMARY is unset. The runner drops a
// step's summary of 1 MiB or more, counting what the step already wrote, so
// markdown is cut at the last line boundary that fits, with a note saying
// so.
func WriteSummary(a *githubactions.Action, markdown string) (bool, error) {
	path := a.Getenv("GITHUB_STEP_SUMMARY")
	if path == "" {
		return false, nil
	}
	if err := checkWritable(path); err != nil {
		return false, fmt.Errorf("GITHUB_STEP_SUMMARY: %w", err)
	}
	var already int64
	if st, err := os.Stat(path); err == nil {
		already = st.Size()
	}
	// The library appends one line break after the markdown; keep one
	// byte of margin below the limit.
	budget := MaxSummaryBytes - 1 - len(githubactions.EOF) - int(already)
	if budget <= len(summaryNote) {
		return false, fmt.Errorf("job summary: %d bytes already written, no room left under the 1 MiB limit", already)
	}
	if err := guard(func() { a.AddStepSummary(CutLines(markdown, budget, summaryNote)) }); err != nil {
		return false, fmt.Errorf("write job summary: %w", err)
	}
	return true, nil
}

// CutLines returns s when it has at most limit bytes; otherwise the longest
// run of whole lines from the start that leaves room for note, followed by
// note. A first line longer than that is cut at a UTF-8 boundary.
func CutLines(s string, limit int, note string) string {
	if len(s) <= limit {
		return s
	}
	budget := max(limit-len(note), 0)
	cut := strings.LastIndexByte(s[:budget], '\n') + 1
	if cut == 0 {
		cut = budget
		for cut > 0 && cut < len(s) && !isRuneStart(s[cut]) {
			cut--
		}
	}
	return s[:cut] + note
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// Annotate emits up to MaxAnnotations error annotations as
// `::error col=…,file=…,line=…,title=…::message` workflow commands (the
// library sorts the fields; each is left out when empty or zero, line when
// there is no file, col when there is no line) and returns how many it
// emitted. Messages go
// through a format verb, so a % in untrusted text is printed as is; the
// library escapes line breaks, and commas and colons in fields.
func Annotate(a *githubactions.Action, anns []Annotation) int {
	n := 0
	for _, an := range anns {
		if n == MaxAnnotations {
			break
		}
		fields := map[string]string{}
		if an.File != "" {
			fields["file"] = an.File
			if an.Line > 0 {
				fields["line"] = strconv.Itoa(an.Line)
				if an.Col > 0 {
					fields["col"] = strconv.Itoa(an.Col)
				}
			}
		}
		if an.Title != "" {
			fields["title"] = an.Title
		}
		msg := an.Message
		if msg == "" {
			msg = an.Title
		}
		if err := guard(func() { a.WithFieldsMap(fields).Errorf("%s", msg) }); err != nil {
			return n
		}
		n++
	}
	return n
}

// Mask tells the runner to replace token with *** in the log from now on.
// Each line of a multi-line secret is masked on its own, because the runner
// masks line by line. An empty token is not masked (it would mask nothing
// useful and the runner rejects it).
func Mask(a *githubactions.Action, token string) {
	for line := range strings.SplitSeq(token, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			_ = guard(func() { a.AddMask(line) })
		}
	}
}

// checkWritable opens an environment file for appending, as the library
// will, so that a failure is an error here rather than a panic there.
func checkWritable(path string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	return f.Close()
}

// guard runs f and turns a panic of the library (it panics when it cannot
// write) into an error.
func guard(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok {
				err = e
				return
			}
			err = errors.New(fmt.Sprint(r))
		}
	}()
	f()
	return nil
}
