package coherence

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/gate/profile"
)

// FuzzEach checks that no input makes the reader or the scorer panic, that every task it
// yields has a position and scores within [0, 1] with a finite energy, and that every error is
// an *input.Error naming the file and a line (the one exception being input's own "the file is
// empty", which concerns the whole file).
func FuzzEach(f *testing.F) {
	seeds := []string{
		`{"id":"a","intent":"I","understanding":"U","action":"A"}`,
		`{"task_id":"a","intent":"Σ İ ı ſ 中文","understanding":"","action":" ","alpha":0,"beta":1e308,"gamma":1e-400}`,
		`[{"id":1,"intent":"x","understanding":"x","action":"y"},{"id":"b"}]`,
		`{"model":"m","results":[{"task_id":"a","intent":"I","understanding":"U","action":"A"},3]}`,
		`{"results":{}}`, `{"a":1}`, `[]`, `{}`, `"x"`, `{"id":"a",}`, "{\"id\":\"\xff\"}", "",
	}
	for _, s := range seeds {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, text string, lines bool) {
		name := "f.json"
		if lines {
			name = "f.jsonl"
		}
		var s Scorer
		err := EachReader(name, strings.NewReader(text), func(task Task) error {
			if task.ID == "" || task.File != name || task.Line < 1 {
				t.Fatalf("task %+v", task)
			}
			for _, p := range []profile.Profile{profile.Reference, profile.Default} {
				r := s.Score(task, p)
				if !(r.RCS >= 0 && r.RCS <= 1) || math.IsNaN(r.Energy) || math.IsInf(r.Energy, 0) || r.Energy < 0 {
					t.Fatalf("%s score %+v of %+v", p, r, task)
				}
			}
			return nil
		})
		if err == nil {
			return
		}
		var ie *input.Error
		if !errors.As(err, &ie) {
			t.Fatalf("error %T %v is not an *input.Error", err, err)
		}
		if ie.File != name || (ie.Line < 1 && ie.Msg != "no records: the file is empty") {
			t.Fatalf("error without file and line: %v", err)
		}
	})
}

// FuzzTokens checks that the scorer's fast path for ASCII text counts exactly the tokens that
// Tokens finds on the general path, and that neither panics on any text.
func FuzzTokens(f *testing.F) {
	for _, s := range []string{"Hello, World 42", "İstanbul ſun ı", "ΣΑΣ a.Σ", "中文abc", "a\xffb", "MiXeD-case_words 3.14",
		"The customer’s order — CAFÉ é İİ x́", "́abc ́ á́b", "Ⅻ ½ ٣ 𝐀𝐁"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, p := range []profile.Profile{profile.Reference, profile.Default} {
			want := map[string]int32{}
			for _, tok := range Tokens(text, p) {
				if tok == "" {
					t.Fatalf("empty token in %q", text)
				}
				want[tok]++
			}
			var s Scorer
			s.begin()
			s.addText(text, p == profile.Reference, 1)
			got := map[string]int32{}
			for tok, id := range s.ids {
				if v := s.slots[id]; v.gen == s.gen {
					got[tok] = s.counts[v.index][1]
				}
			}
			if len(got) != len(want) || s.n[1] != len(Tokens(text, p)) {
				t.Fatalf("%s %q: scorer counted %v (%d tokens), Tokens %v", p, text, got, s.n[1], want)
			}
			for tok, n := range want {
				if got[tok] != n {
					t.Fatalf("%s %q: scorer counted %v, Tokens %v", p, text, got, want)
				}
			}
		}
	})
}
