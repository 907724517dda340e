package coherence

import (
	"bytes"
	"math"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/internal/refdata"
)

// needEcho returns the path of the RCS harness's published echo run in the reference data
// (docs/design.md#tests), or skips the test.
func needEcho(t testing.TB) string {
	t.Helper()
	return refdata.Path(t, "rcs/rcs_echo_20251109-230939.json")
}

func ptr(x float64) *float64 { return &x }

const ln2 = 0.6931471805599453 // math.Ln2, written out: ln 2 to double precision

// TestScoreHandChecked holds cases small enough to work out on paper.
//
// "x" / "x" / "y": V = {x, y}. I and U each hold one x, so p_I = p_U = (2/3, 1/3); A holds one
// y, so p_A = (1/3, 2/3). KL(I‖U) = 0, KL(U‖A) = KL(A‖I) = 2/3·ln 2 + 1/3·ln ½ = ln 2 / 3.
// With α, β, γ = 1, ½, ½: E = ln 2 / 3 ≈ 0.231049; with 0, 3, 0: E = ln 2; with 0, 3, 3:
// E = 2 ln 2 > 1, so RCS = 0.
//
// "a a a a a a a a" / "b b b b b b b b": V = {a, b}, p_I = (9/10, 1/10), p_U = (1/10, 9/10),
// KL(I‖U) = 0.9 ln 9 − 0.1 ln 9 = 0.8 ln 9 ≈ 1.7578, so α = 1.7e308 overflows to +Inf.
func TestScoreHandChecked(t *testing.T) {
	cases := []struct {
		name                  string
		intent, under, action string
		alpha, beta, gamma    *float64
		wantEnergy, wantRCS   float64
		wantNote              string
	}{
		{name: "identical texts", intent: "Sort the numbers ascending", under: "Sort the numbers ascending",
			action: "Sort the numbers ascending", wantEnergy: 0, wantRCS: 1},
		{name: "identical up to case and punctuation", intent: "Sort the numbers, ascending!",
			under: "sort THE numbers ascending", action: "SORT the numbers... ascending", wantEnergy: 0, wantRCS: 1},
		{name: "x x y, default weights", intent: "x", under: "x", action: "y",
			wantEnergy: ln2 / 3, wantRCS: 1 - ln2/3},
		{name: "x x y, per-task beta only", intent: "x", under: "x", action: "y",
			alpha: ptr(0), beta: ptr(3), gamma: ptr(0), wantEnergy: ln2, wantRCS: 1 - ln2},
		{name: "x x y, energy above 1 clips to RCS 0", intent: "x", under: "x", action: "y",
			alpha: ptr(0), beta: ptr(3), gamma: ptr(3), wantEnergy: 2 * ln2, wantRCS: 0},
		{name: "x x y, all weights zero", intent: "x", under: "x", action: "y",
			alpha: ptr(0), beta: ptr(0), gamma: ptr(0), wantEnergy: 0, wantRCS: 1},
		{name: "x x y, override of alpha alone keeps the other defaults", intent: "x", under: "x", action: "y",
			alpha: ptr(5), wantEnergy: ln2 / 3, wantRCS: 1 - ln2/3},
		{name: "energy overflow", intent: "a a a a a a a a", under: "b b b b b b b b", action: "a",
			alpha: ptr(1.7e308), wantEnergy: math.MaxFloat64, wantRCS: 0},
		{name: "negative weight", intent: "x", under: "x", action: "y", gamma: ptr(-1),
			wantEnergy: math.MaxFloat64, wantRCS: 0, wantNote: "weight gamma = -1 is not a finite number >= 0: scored as incoherent"},
		{name: "NaN weight", intent: "x", under: "x", action: "y", beta: ptr(math.NaN()),
			wantEnergy: math.MaxFloat64, wantRCS: 0, wantNote: "weight beta = NaN is not a finite number >= 0: scored as incoherent"},
		{name: "infinite weight", intent: "x", under: "x", action: "y", alpha: ptr(math.Inf(1)),
			wantEnergy: math.MaxFloat64, wantRCS: 0, wantNote: "weight alpha = +Inf is not a finite number >= 0: scored as incoherent"},
	}
	for _, c := range cases {
		for _, p := range []profile.Profile{profile.Reference, profile.Default} {
			t.Run(c.name+"/"+string(p), func(t *testing.T) {
				task := Task{ID: "t", File: "f.jsonl", Line: 7, Intent: c.intent, Understanding: c.under,
					Action: c.action, Alpha: c.alpha, Beta: c.beta, Gamma: c.gamma}
				got := Score(task, p)
				if got.ID != "t" || got.File != "f.jsonl" || got.Line != 7 {
					t.Errorf("position = %q %q %d", got.ID, got.File, got.Line)
				}
				if math.Abs(got.Energy-c.wantEnergy) > 1e-12 || math.Abs(got.RCS-c.wantRCS) > 1e-12 {
					t.Errorf("energy, rcs = %v, %v; want %v, %v", got.Energy, got.RCS, c.wantEnergy, c.wantRCS)
				}
				if got.Note != c.wantNote {
					t.Errorf("note = %q, want %q", got.Note, c.wantNote)
				}
			})
		}
	}
}

// TestReferenceEchoGolden reproduces the harness's published echo run. The unrounded figures
// come from an independent Python re-implementation of cr_loss.py run on the same file; the
// rounded ones are the file's own.
func TestReferenceEchoGolden(t *testing.T) {
	echoPath := needEcho(t)
	want := []struct {
		id        string
		rcs       float64 // unrounded (Python)
		published float64 // "rcs" in the file
	}{
		{"calc-01", 0.7799532760127158, 0.78},
		{"policy-guard-01", 0.7847595597208592, 0.7848},
		{"tool-use-01", 0.7519193820757004, 0.7519},
		{"reasoning-01", 0.7745773967822426, 0.7746},
	}
	const wantMean, wantAverage = 0.7728024036478794, 0.7728

	var tasks []Task
	var results []TaskResult
	var s Scorer
	if err := Each(echoPath, func(task Task) error {
		tasks = append(tasks, task)
		results = append(results, s.Score(task, profile.Reference))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(results) != len(want) {
		t.Fatalf("got %d tasks, want %d", len(results), len(want))
	}
	for i, w := range want {
		r := results[i]
		if r.ID != w.id || math.Abs(r.RCS-w.rcs) > 1e-9 || Round4(r.RCS) != w.published || r.Note != "" {
			t.Errorf("task %d = %+v, want %s rcs %.16g (published %v)", i, r, w.id, w.rcs, w.published)
		}
		if math.Abs(r.RCS-(1-r.Energy)) > 1e-15 {
			t.Errorf("%s: rcs %v is not 1 - energy %v", r.ID, r.RCS, r.Energy)
		}
	}
	sum := Summarize(results)
	if sum.Total != 4 || math.Abs(sum.Mean-wantMean) > 1e-9 || Round4(sum.Mean) != wantAverage {
		t.Errorf("summary total %d mean %.16g, want 4, %.16g", sum.Total, sum.Mean, wantMean)
	}

	// The harness report written from them is the published file, byte for byte.
	published, err := os.ReadFile(echoPath)
	if err != nil {
		t.Fatal(err)
	}
	rep := NewHarnessReport(tasks, results)
	if rep.Model != "echo" || rep.AverageRCS != wantAverage {
		t.Errorf("report model %q average %v", rep.Model, rep.AverageRCS)
	}
	// The harness ran on Windows: Python's text mode wrote its "\n" as CRLF.
	published = bytes.ReplaceAll(published, []byte("\r\n"), []byte("\n"))
	if got := rep.AppendJSON(nil); string(got) != string(published) {
		t.Errorf("harness JSON differs from the published file:\n%s\n--- want ---\n%s", got, published)
	}
	// So is the report written as the tasks are scored (agentgate rcs).
	var body, out bytes.Buffer
	hw := NewHarnessWriter(&body)
	for i, task := range tasks {
		if err := hw.Add(task, results[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := hw.Finish(&out, &body); err != nil {
		t.Fatal(err)
	}
	if out.String() != string(published) {
		t.Errorf("streamed harness JSON differs from the published file:\n%s\n--- want ---\n%s", out.String(), published)
	}

	// The default profile agrees on this file: all four texts are English and none is empty.
	for i, task := range tasks {
		if d := Score(task, profile.Default); d != results[i] {
			t.Errorf("default %+v differs from reference %+v", d, results[i])
		}
	}
}

// TestReferenceScoresForeignTextAsCoherent shows the reference's first false positive: it only
// sees a–z and 0–9, so an answer in Chinese or Russian that does something else entirely has no
// tokens at all and scores a perfect 1.0. The default profile tokenizes Unicode letters (each
// Han character on its own) and scores them. Expected default figures: an independent Python
// implementation of the default tokenizer (unicodedata categories) with the harness's math.
func TestReferenceScoresForeignTextAsCoherent(t *testing.T) {
	cases := []struct {
		name                  string
		intent, under, action string
		wantEnergy, wantRCS   float64 // default profile
	}{
		// Intent "add these numbers up", understanding "add the numbers up", action "write a poem
		// about autumn".
		{"chinese", "把这些数字加起来", "把数字加起来", "写一首关于秋天的诗", 0.24771553004921554, 0.7522844699507845},
		{"russian", "Сложи эти числа", "Сложить числа", "Вот стихотворение про осень", 0.28579071286720525, 0.7142092871327947},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			task := Task{ID: c.name, Intent: c.intent, Understanding: c.under, Action: c.action}
			if ref := Score(task, profile.Reference); ref.RCS != 1 || ref.Energy != 0 {
				t.Errorf("reference = %+v, want the harness's RCS 1, energy 0", ref)
			}
			def := Score(task, profile.Default)
			if math.Abs(def.Energy-c.wantEnergy) > 1e-12 || math.Abs(def.RCS-c.wantRCS) > 1e-12 || def.Note != "" {
				t.Errorf("default = %+v, want energy %v rcs %v", def, c.wantEnergy, c.wantRCS)
			}
		})
	}
}

// TestReferenceScoresSilentAgentAsCoherent shows the reference's second false positive: an agent
// whose understanding and action are empty gets a perfect 1.0 (every distribution is uniform
// when the intent repeats no word). The default profile scores an empty understanding or action
// 0 and says why; its energy is still the harness's. Energies: the Python re-implementation.
func TestReferenceScoresSilentAgentAsCoherent(t *testing.T) {
	const intent = "Sum the numbers 14, 7, 9 and 10"
	cases := []struct {
		name          string
		under, action string
		refEnergy     float64
		note          string
	}{
		{"both empty", "", "", 0, "the understanding and the action are empty: scored as incoherent"},
		{"understanding only white space", " \t\n\u3000", "40", 0.0879271027718389, "the understanding is empty: scored as incoherent"},
		{"action empty", "Add up the numbers", "", 0.18020773220187206, "the action is empty: scored as incoherent"},
		// No words is as silent as empty. With no U or A tokens the distributions are those of
		// the white-space case above (same energy); with neither, every distribution is the
		// uniform 1/8 over the intent's 8 words, so every KL is 0.
		{"understanding only punctuation", "!!", "40", 0.0879271027718389, "the understanding has no words: scored as incoherent"},
		{"only punctuation and emoji", "...", "👍", 0, "the understanding and the action have no words: scored as incoherent"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			task := Task{ID: "silent", Intent: intent, Understanding: c.under, Action: c.action}
			ref := Score(task, profile.Reference)
			if math.Abs(ref.Energy-c.refEnergy) > 1e-12 || math.Abs(ref.RCS-(1-c.refEnergy)) > 1e-12 || ref.Note != "" {
				t.Errorf("reference = %+v, want energy %v", ref, c.refEnergy)
			}
			def := Score(task, profile.Default)
			if def.RCS != 0 || math.Abs(def.Energy-c.refEnergy) > 1e-12 || def.Note != c.note {
				t.Errorf("default = %+v, want RCS 0, energy %v, note %q", def, c.refEnergy, c.note)
			}
		})
	}
	if ref := Score(Task{Intent: intent}, profile.Reference); ref.RCS != 1 {
		t.Errorf("reference on a silent agent = %v, want the harness's 1.0", ref.RCS)
	}
}

// TestTokens pins both tokenizers. Expected lists: Python 3.11, re.findall(r"[a-z0-9]+",
// text.lower(), re.IGNORECASE) for the reference, and an independent Python implementation over
// unicodedata categories for the default.
func TestTokens(t *testing.T) {
	cases := []struct {
		text     string
		ref, def []string
	}{
		// İ lower-cases to i + U+0307 (combining dot): the reference splits there; the default
		// keeps the mark with its letter.
		{"İstanbul", []string{"i", "stanbul"}, []string{"i\u0307stanbul"}},
		// ı and ſ match [a-z] under Python's IGNORECASE (their upper case is I and S) but stay
		// themselves in the token.
		{"ıstanbul", []string{"ıstanbul"}, []string{"ıstanbul"}},
		{"ſun ſhine", []string{"ſun", "ſhine"}, []string{"ſun", "ſhine"}},
		// The Kelvin sign lower-cases to ASCII k.
		{"KELVIN \u212a", []string{"kelvin", "k"}, []string{"kelvin", "k"}},
		{"Straße", []string{"stra", "e"}, []string{"straße"}},
		// Final sigma: Python lower-cases the last Σ of a word to ς.
		{"ΣΑΣ ΟΔΟΣ", nil, []string{"σας", "οδος"}},
		{"Сложи числа", nil, []string{"сложи", "числа"}},
		{"cafe\u0301 au lait", []string{"cafe", "au", "lait"}, []string{"cafe\u0301", "au", "lait"}},
		{"把数字加起来", nil, []string{"把", "数", "字", "加", "起", "来"}},
		{"abc中def", []string{"abc", "def"}, []string{"abc", "中", "def"}},
		{"don't stop-now 3.14", []string{"don", "t", "stop", "now", "3", "14"}, []string{"don", "t", "stop", "now", "3", "14"}},
		{"ﬁne ＡＢＣ", []string{"ne"}, []string{"ﬁne", "ａｂｃ"}},
		// Not reachable from the readers (they reject invalid UTF-8): a bad byte separates.
		{"ab\xffcd", []string{"ab", "cd"}, []string{"ab", "cd"}},
		{"", nil, nil},
	}
	for _, c := range cases {
		if got := Tokens(c.text, profile.Reference); !slices.Equal(got, c.ref) {
			t.Errorf("reference Tokens(%q) = %q, want %q", c.text, got, c.ref)
		}
		if got := Tokens(c.text, profile.Default); !slices.Equal(got, c.def) {
			t.Errorf("default Tokens(%q) = %q, want %q", c.text, got, c.def)
		}
	}
}

// TestScorerReuse checks that a Scorer's results do not depend on what it scored before, across
// the reset of its generation counter and of its token dictionary.
func TestScorerReuse(t *testing.T) {
	tasks := []Task{
		{ID: "a", Intent: "x", Understanding: "x", Action: "y"},
		{ID: "b", Intent: "Sum the numbers", Understanding: "Add the numbers", Action: "40"},
		{ID: "c", Intent: "y x", Understanding: "y", Action: "x x"},
	}
	var fresh []TaskResult
	for _, task := range tasks {
		fresh = append(fresh, (&Scorer{}).Score(task, profile.Reference))
	}
	defer func(n int) { maxInterned = n }(maxInterned)
	maxInterned = 100
	var s Scorer
	for round := 0; round < 3; round++ {
		switch round {
		case 1:
			s.gen = math.MaxUint32 // the next task wraps the generation counter
		case 2:
			for i := 0; len(s.ids) <= maxInterned; i++ { // overfill the dictionary
				s.ids["filler"+strconv.Itoa(i)] = int32(len(s.ids))
			}
		}
		for i := len(tasks) - 1; i >= 0; i-- {
			if got := s.Score(tasks[i], profile.Reference); got != fresh[i] {
				t.Errorf("round %d: %+v, want %+v", round, got, fresh[i])
			}
		}
	}
	if len(s.ids) > maxInterned {
		t.Errorf("dictionary not reset: %d entries", len(s.ids))
	}
}

// TestScoreDoesNotAllocate checks the claim of Scorer: once a suite's words are known, scoring
// allocates nothing.
func TestScoreDoesNotAllocate(t *testing.T) {
	task := Task{Intent: benchIntent, Understanding: benchUnderstanding, Action: benchAction}
	var s Scorer
	for _, p := range []profile.Profile{profile.Reference, profile.Default} {
		s.Score(task, p)
		if n := testing.AllocsPerRun(20, func() { s.Score(task, p) }); n != 0 {
			t.Errorf("%s: %v allocations per task", p, n)
		}
	}
}

func TestSummarize(t *testing.T) {
	// Python: sum([0.1, 0.2, 0.3]) / 3 == 0.20000000000000004 (left-to-right sum, then divide).
	s := Summarize([]TaskResult{{ID: "a", RCS: 0.1}, {ID: "b", RCS: 0.2}, {ID: "c", RCS: 0.3}})
	if s.Total != 3 || s.Mean != 0.20000000000000004 || len(s.Tasks) != 3 || s.Tasks[2].ID != "c" {
		t.Errorf("Summarize = %+v", s)
	}
	var inc Summary
	for _, r := range s.Tasks {
		inc.Add(r)
	}
	if inc.Mean != s.Mean || inc.Total != s.Total {
		t.Errorf("incremental %+v != %+v", inc, s)
	}
	empty := Summarize(nil)
	if empty.Total != 0 || empty.Mean != 0 || empty.Tasks == nil {
		t.Errorf("Summarize(nil) = %+v, want zero total and mean and non-nil tasks", empty)
	}
}
