package report

import (
	"fmt"
	"strings"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/verdict"
)

// maxAnnotationRunes bounds an annotation's message; titles are bounded by MaxCellRunes.
const maxAnnotationRunes = 1000

// Annotation is one GitHub error annotation: a breached gate or a FAIL trace. File and Line
// are empty and zero when there is no place to point at; Line is zero when only the file is
// known, Col when the column is not (a trace's result knows only its line). Title and Message
// are plain one-line text (no control characters); escaping them for a workflow command is the
// caller's job. It has the fields of the runner's annotation (internal/github/actions), so
// actions.Annotation(a) converts it.
type Annotation struct {
	File    string
	Line    int
	Col     int
	Title   string
	Message string
}

// Annotations returns at most max annotations (the caller's cap: the action passes
// actions.MaxAnnotations, docs/design.md#the-action; max ≤ 0 gives none): the breached gates first, in
// gate-table order, then the FAIL traces, highest score first. A breached gate points at the
// first offending input file when one is known: the worst FAIL trace's file for
// max-failed-traces, the lowest-coherence task's file for coherence-min.
func Annotations(r *gate.Result, max int) []Annotation {
	var out []Annotation
	for _, f := range findings(r, max, false) {
		out = append(out, f.Annotation)
	}
	return out
}

// Finding is one annotation of a check run (docs/design.md#defaults): an Annotation and whether it is a
// failure (a breached gate, a FAIL trace) or a warning (a WARN trace).
type Finding struct {
	Annotation
	Failure bool
}

// Findings returns every finding of r for a check run's annotations, at most max (max ≤ 0
// gives none): the breached gates, then the FAIL traces, then the WARN traces, each highest
// score first, as Annotations orders them.
func Findings(r *gate.Result, max int) []Finding {
	return findings(r, max, true)
}

// findings is Annotations, with the WARN traces after the FAIL ones when warn is set.
func findings(r *gate.Result, max int, warn bool) []Finding {
	if r == nil || max <= 0 {
		return nil
	}
	var out []Finding
	traces := flagged(r.Reliability)
	fails := traces
	for len(fails) > 0 && fails[len(fails)-1].Verdict != verdict.Fail {
		fails = fails[:len(fails)-1]
	}
	if !warn {
		traces = fails
	}
	one := func(s string) string { return plain(s, maxAnnotationRunes) }
	for _, g := range r.Breached() {
		if len(out) == max {
			return out
		}
		a := Annotation{
			Title:   plain("agentgate: gate "+g.Name+" breached", MaxCellRunes),
			Message: one(upperFirst(breachPhrase(r, g, one)) + "."),
		}
		switch g.Name {
		case gate.MaxFailedTraces:
			if len(fails) > 0 {
				a.File = fails[0].File
			}
		case gate.CoherenceMin:
			if low := lowest(r.Coherence, 1); len(low) > 0 {
				a.File = low[0].File
			}
		}
		out = append(out, Finding{Annotation: a, Failure: true})
	}
	for _, t := range traces {
		if len(out) == max {
			break
		}
		signal, evidence, _ := finding(t, func(s string) string { return s })
		msg := fmt.Sprintf("Score %s; strongest signal %s", num(t.Score), signal)
		if evidence != "" {
			msg += ": " + evidence
		}
		out = append(out, Finding{Annotation: Annotation{
			File:    t.File,
			Line:    t.Line,
			Title:   plain("agentgate: trace "+t.ID+" "+string(t.Verdict), MaxCellRunes),
			Message: one(msg),
		}, Failure: t.Verdict == verdict.Fail})
	}
	return out
}

// Headline is the verdict and why in one line of plain text, as the terminal's first two
// lines say them ("FAIL: 1 gate breached: …"), cut to MaxCellRunes: a check run's title.
func Headline(r *gate.Result) string {
	if r == nil {
		return "no result"
	}
	esc := func(s string) string { return plain(s, maxTextRunes) }
	_, word, _ := strings.Cut(verdictLabel(r.Verdict, esc), " ")
	return plain(word+", "+checkState(r)+": "+sentence(r, esc), MaxCellRunes)
}

// upperFirst capitalises an ASCII first letter.
func upperFirst(s string) string {
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}
