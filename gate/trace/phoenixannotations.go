package trace

import (
	"strconv"

	"github.com/agentgate/agentgate/gate/input"
)

// Phoenix's annotations carried on spans (docs/trace-formats.md, "Phoenix spans"): the UI's
// downloads (Arize-ai/phoenix, js/app/src/components/trace/spanDownloadAnnotations.ts) add a
// span's annotations to its attributes as annotations.<i>.annotation.{name, annotator_kind,
// score, label, explanation, identifier, metadata}, and its trace's, once, to the trace's root
// span as trace.annotations.<i>.annotation.*. A run's outcome is the annotation outcome-scorer
// names among its trace annotations and its root span's: the mean of their values, each a
// score or else a label read as a verdict, as Phoenix's annotations given as the outcomes input
// are (ParseScore). Without outcome-scorer none is read and the names are noted.

// spanAnnotation is one annotation a span carries: its name, its value, and the attribute it
// is under, for errors.
type spanAnnotation struct {
	name string
	s    *span
	key  string
	v    Outcome
	// problem says why its value is not an outcome, at attribute key+problemAt
	problem, problemAt string
}

// spanAnnotations are the annotations span s carries under prefix ("trace.annotations." or
// "annotations."), in index order.
func spanAnnotations(s *span, prefix string) []spanAnnotation {
	var out []spanAnnotation
	for _, f := range flatMessages(s.attrs, prefix, "annotation.") {
		a := spanAnnotation{name: textOf(f.fields["name"]), s: s, key: prefix + strconv.Itoa(f.index) + ".annotation."}
		if a.name == "" {
			continue
		}
		switch v := f.fields["score"].(type) {
		case int64:
			a.v = Outcome{Known: true, Value: float64(v)}
		case float64:
			if v != v || v-v != 0 { // NaN, ±Inf
				a.problem, a.problemAt = "must be a finite number, got "+strconv.FormatFloat(v, 'g', -1, 64), "score"
			} else {
				a.v = Outcome{Known: true, Value: v}
			}
		case nil:
			if label, ok := f.fields["label"].(string); ok {
				if x, ok := LabelVerdict(label); ok {
					a.v = Outcome{Known: true, Value: x, IsBool: true}
				} else {
					a.problem, a.problemAt = "annotation "+input.Quote(a.name)+" has no score, and its label "+input.Quote(label)+
						" is not a verdict agentgate can read (pass or fail, correct or incorrect, true or false, yes or no)", "label"
				}
			}
		default:
			a.problem, a.problemAt = "must be a number, got "+quoteAttr(v), "score"
		}
		out = append(out, a)
	}
	return out
}

// annotationOutcome is the outcome the annotations on a run's spans give it (sorted: its spans
// in start order); Known false, with a note naming them where outcome-scorer names none, when
// it gives none.
func annotationOutcome(file string, sorted []*span, scorer string) (Outcome, error) {
	rootID := rootSpan(sorted)
	var all []spanAnnotation
	for _, s := range sorted {
		all = append(all, spanAnnotations(s, "trace.annotations.")...)
		if s.spanID == rootID && rootID != "" {
			all = append(all, spanAnnotations(s, "annotations.")...)
		}
	}
	if len(all) == 0 {
		return Outcome{}, nil
	}
	names := make([]string, len(all))
	for i, a := range all {
		names[i] = a.name
	}
	if scorer == "" {
		return Outcome{Note: "Phoenix annotations " + quotedList(names) + " not read as an outcome: name one with outcome-scorer"}, nil
	}
	var tally ScoreTally
	named := false
	for _, a := range all {
		if a.name != scorer {
			continue
		}
		named = true
		if a.problem != "" {
			return Outcome{}, a.s.attrErr(file, a.key+a.problemAt, "%s", a.problem)
		}
		if a.v.Known {
			tally.Add(a.v)
		}
	}
	if !named {
		return Outcome{}, sorted[0].errf(file, "trace %s has no Phoenix annotation %s (outcome-scorer); its annotations are %s",
			input.Quote(sorted[0].traceID), input.Quote(scorer), quotedList(names))
	}
	return tally.Outcome("annotations." + input.Cut(scorer)), nil
}
