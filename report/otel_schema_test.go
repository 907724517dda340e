package report

import (
	"sort"
	"strings"
	"testing"
)

// evaluationAttributes are the attributes of the gen_ai.evaluation.result event in the
// semantic conventions, as model/gen-ai/events.yaml defines them in every release from 1.38.0
// (where the event was introduced) to 1.41.0 (the last before the GenAI conventions moved to
// open-telemetry/semantic-conventions-genai): the same six, unchanged.
var evaluationAttributes = map[string]bool{
	"gen_ai.evaluation.name": true, "gen_ai.evaluation.score.value": true, "gen_ai.evaluation.score.label": true,
	"gen_ai.evaluation.explanation": true, "gen_ai.response.id": true, "error.type": true,
}

// TestOTelSchemaNames: the schema the export states is the release whose names it writes.
// Every record is a gen_ai.evaluation.result event whose attributes outside agentgate's own
// namespace are the event's attributes of 1.38.0, so the schema URL says 1.38.0.
func TestOTelSchemaNames(t *testing.T) {
	if OTelSchemaURL != "https://opentelemetry.io/schemas/1.38.0" {
		t.Errorf("schema %s: the names written are those of 1.38.0", OTelSchemaURL)
	}
	r := failingResult()
	events, _ := readOTel(t, otelOf(t, r), "")
	seen := map[string]bool{}
	for _, e := range events {
		if e.event != "gen_ai.evaluation.result" {
			t.Errorf("event %q", e.event)
		}
		for k := range e.attrs {
			if strings.HasPrefix(k, "agentgate.") {
				continue
			}
			seen[k] = true
			if !evaluationAttributes[k] {
				t.Errorf("attribute %s is not one of the evaluation event's in 1.38.0", k)
			}
		}
	}
	var keys []string
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if got := strings.Join(keys, " "); got != "gen_ai.evaluation.explanation gen_ai.evaluation.name gen_ai.evaluation.score.label gen_ai.evaluation.score.value" {
		t.Errorf("attributes written: %s", got)
	}
}
