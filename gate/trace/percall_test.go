package trace

import (
	"path/filepath"
	"testing"
)

// Usage given per message (tau2, a Chat Completions loop that keeps each response's usage)
// or per span says how many model calls it sums and their largest prompt, so that the
// evaluator can count the re-sent context once (issue 23); a record-level usage does not.
func TestPerCallUsage(t *testing.T) {
	cases := []struct {
		name, rec string
		want      CallUsage
	}{
		{"record level", `{"messages": [], "usage": {"prompt_tokens": 3, "completion_tokens": 4}}`, CallUsage{}},
		{"record wins over messages", `{"messages": [{"role": "assistant", "content": "x", "usage": {"prompt_tokens": 1000, "completion_tokens": 1000}}], "usage": {"prompt_tokens": 3, "completion_tokens": 4}}`, CallUsage{}},
		{"messages", `{"messages": [{"role": "assistant", "content": "x", "usage": {"prompt_tokens": 1200, "completion_tokens": 20}}, {"role": "user", "content": "y"}, {"role": "assistant", "content": "z", "usage": {"prompt_tokens": 1500, "completion_tokens": 30}}, {"role": "user", "content": "w"}, {"role": "assistant", "content": "v", "usage": {"prompt_tokens": 1400, "completion_tokens": 10}}]}`, CallUsage{Calls: 3, MaxPrompt: 1500}},
		{"anthropic messages", `{"messages": [{"role": "assistant", "content": [{"type": "text", "text": "x"}], "usage": {"input_tokens": 900, "output_tokens": 20}}]}`, CallUsage{Calls: 1, MaxPrompt: 900}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := mustDecode(t, c.rec).PerCall; got != c.want {
				t.Errorf("PerCall = %+v, want %+v", got, c.want)
			}
		})
	}
	// OTLP: the two chat spans of the first trace (prompts 200 and 100; their parent's 999 is
	// their total and left out), the one chat span of the second.
	got := readFile(t, filepath.Join("testdata", "formats", "otlp-genai.json"))
	if len(got) != 2 || got[0].PerCall != (CallUsage{Calls: 2, MaxPrompt: 200}) || got[1].PerCall != (CallUsage{Calls: 1, MaxPrompt: 7}) {
		for _, tr := range got {
			t.Logf("%s: %+v", tr.ID, tr.PerCall)
		}
		t.Errorf("OTLP per-call usage wrong")
	}
}
