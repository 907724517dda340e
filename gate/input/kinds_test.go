package input

import (
	"encoding/json"
	"testing"
)

// TestLooksLike: records of each kind, as the fixtures and the formats write them, are named
// for their kind; anything else is not named.
func TestLooksLike(t *testing.T) {
	for text, want := range map[string]string{
		`{"qid": "a", "scholar": {"label": "VALID"}, "auditor": {"label": "VALID"}}`: KindPairs,
		`{"qid": 1, "auditor": {}}`:                                       KindPairs,
		`{"qid": "a", "label": "VALID", "reason": "x"}`:                   KindLabels,
		`{"id": "t", "intent": "a", "understanding": "b", "action": "c"}`: KindTasks,
		`{"model": "m", "average_rcs": 0.5, "results": []}`:               KindTasks,
		`{"trace_id": "x", "messages": []}`:                               KindTraces,
		`{"resourceSpans": []}`:                                           KindTraces,
		`{"info": {}, "tasks": [], "simulations": []}`:                    KindTraces,
		`{"id": "x", "trajectory": []}`:                                   KindTraces,
		`{"id": "x"}`:                                                     "",
		`{"intent": "only"}`:                                              "",
		`[{"qid": "a", "label": "VALID"}]`:                                "",
		`{"qid": "a", "label": `:                                          "",
		``:                                                                "",
		` "text"`:                                                         "",
	} {
		if got := LooksLike([]byte(text)); got != want {
			t.Errorf("LooksLike(%s) = %q, want %q", text, got, want)
		}
	}
}

// FuzzLooksLike: any bytes give a kind or "", never a panic, and a kind only for a JSON object.
func FuzzLooksLike(f *testing.F) {
	for _, s := range []string{`{"qid": "a", "scholar": {}}`, `{"trace_id": 1}`, `{"intent": "a", "action": 1}`, `{`, `{"qid": "\ud800", "label": 1}`, "{\"a\":\"\xff\"}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		switch k := LooksLike(data); k {
		case "":
		case KindPairs, KindLabels, KindTasks, KindTraces:
			var m map[string]any
			if json.Unmarshal(data, &m) != nil && json.Valid(data) {
				t.Errorf("%q named %s but is valid JSON that is not an object", data, k)
			}
		default:
			t.Errorf("%q named %q", data, k)
		}
	})
}
