package reliability

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/pystr"
	"github.com/agentgate/agentgate/gate/trace"
	"github.com/agentgate/agentgate/test/gensuite"
)

// The evaluator takes shortcuts for the common case (see args.go, texts.go, loop.go): each is
// checked here against the plain way it stands for.

var argSeeds = []string{
	`{}`, `{"q": "x"}`, `{"q":"x"}`, ` { "q" : "X" , "n" : 1 } `, `{"n": 1, "q": "X"}`, `{"n": 1.0, "q": "X"}`, `{"n": 1e0}`,
	`{"q": null}`, `{"q": ""}`, `{"q": "None"}`, `{"q": "Error: boom"}`, `{"a": {"b": [1, 2, {"c": "error"}]}}`, `{"a": [1, 2]}`,
	`{"a": -0}`, `{"a": [1.5, -0, -0.0]}`, `{"a": "\u00e9"}`, `{"a": "é"}`, `{"a": "\ud800"}`, `{"a": "\ud83d\ude00\ud800x"}`,
	`{"a": "\"quoted\"\n\t\\/"}`, `{"q": "x", "q": "y"}`, `{"b": 2, "a": 1}`, `[1, 2]`, `"text"`, `42`, `true`, `null`,
	`{"x": 100000000000000000000}`, `{"x": 1e20}`, `{"a\u0000b": "\u0001"}`, "{\"a\": \"\xff\"}",
	`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17}`,
}

// FuzzArgs checks the decoding of arguments against pystr.Parse.
func FuzzArgs(f *testing.F) {
	for _, s := range argSeeds {
		f.Add([]byte(s))
	}
	var e eval
	f.Fuzz(func(t *testing.T, args []byte) {
		if !json.Valid(args) {
			return // the reader hands over valid arguments only
		}
		want, wantErr := pystr.Parse(args)
		e.members, e.argText = e.members[:0], e.argText[:0]
		got, err := e.parseArgs(args)
		if (err == nil) != (wantErr == nil) || !reflect.DeepEqual(got, want) {
			t.Fatalf("parseArgs(%q) = %#v, %v; pystr.Parse gives %#v, %v", args, got, err, want, wantErr)
		}
	})
}

// FuzzCallKey checks that two calls with plain arguments get the same key exactly when they
// get the same canonical JSON text.
func FuzzCallKey(f *testing.F) {
	for i, a := range argSeeds {
		f.Add([]byte(a), []byte(argSeeds[(i*7+3)%len(argSeeds)]), true, false)
		f.Add([]byte(a), []byte(a), false, true)
	}
	f.Add([]byte(`{"n": 1}`), []byte(`{"n": 1.0}`), true, true)
	f.Add([]byte(`{"a": 1, "b": 2}`), []byte(`{"b": 2, "a": 1}`), true, true)
	// strings past minLong, which keys hold by number: equal, one byte apart, of other lengths
	long := strings.Repeat("x", 70)
	f.Add([]byte(`{"a": "`+long+`", "b": ["`+long+`"]}`), []byte(`{"b": ["`+long+`"], "a": "`+long+`"}`), true, true)
	f.Add([]byte(`{"a": "`+long+`", "b": "`+long+`y"}`), []byte(`{"a": "`+long+`y", "b": "`+long+`"}`), true, true)
	f.Add([]byte(`{"a": "`+long+`"}`), []byte(`{"a": "`+long[1:]+`z"}`), true, true)
	f.Fuzz(func(t *testing.T, a, b []byte, validA, validB bool) {
		var e eval
		ca := e.decodeCall(0, &trace.Call{Tool: "t", Args: a, ArgsValid: validA && json.Valid(a)})
		cb := e.decodeCall(0, &trace.Call{Tool: "t", Args: b, ArgsValid: validB && json.Valid(b)})
		if !plainArgs(&ca) || !plainArgs(&cb) {
			return
		}
		long := longStrings{} // one trace's: numbers shared by both keys
		ka, kb := appendKey(nil, &ca, long), appendKey(nil, &cb, long)
		same := bytes.Equal(appendCanonical(nil, &ca), appendCanonical(nil, &cb))
		if bytes.Equal(ka, kb) != same {
			t.Fatalf("%q and %q: keys equal %v, canonical texts equal %v", a, b, !same, same)
		}
	})
}

// FuzzWords checks the one-pass word reader against lower-casing the whole text first.
func FuzzWords(f *testing.F) {
	for _, s := range []string{"Hello, World 42!", "ΟΔΟΣ Σ σ", "İstanbul", "naïve CAFÉ", "x\xffy", "Kelvin \u212a", "a\u0301b", "",
		"Let me search the flights for you, now: 42 options.", "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz x", "a b c d e f g h i j k l m n o p"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		// the plain way: Python's lower-casing of the whole text, then words of it
		want := appendWordsLower(nil, pystr.AppendLower(nil, text))
		if got := appendWords(nil, text); !slices.Equal(got, want) {
			t.Fatalf("words of %q: %v, want %v", text, got, want)
		}
		if got, _, ok := appendWordsRunes([]uint64{7}, nil, text); ok && !slices.Equal(got, append([]uint64{7}, want...)) {
			t.Fatalf("appendWordsRunes of %q: %v, want %v", text, got, want)
		}
		// falseSuccess finds a claim by the hashes and quotes it from textWords: the same
		// words in the same places
		var hashed []uint64
		for _, w := range textWords(text) {
			h := uint64(fnvOffset)
			for _, c := range []byte(w) {
				h = (h ^ uint64(c)) * fnvPrime
			}
			hashed = append(hashed, h)
		}
		if !slices.Equal(hashed, want) {
			t.Fatalf("textWords of %q: %q, hashed %v, want %v", text, textWords(text), hashed, want)
		}

	})
}

// FuzzErrorLike checks errorLikeText against lower-casing and comparing.
func FuzzErrorLike(f *testing.F) {
	for _, s := range []string{"ERROR", " none ", "Error: x", "errorx", "nan", "NaN", "\u212aey", "ſ", "İ", "undefined\u00a0", "ERROR:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s := pystr.Lower(pystr.Strip(text))
		want := slices.Contains(errorLike, s) || strings.HasPrefix(s, "error:")
		if got := errorLikeText(text); got != want {
			t.Fatalf("errorLikeText(%q) = %v, want %v", text, got, want)
		}
	})
}

// FuzzStrip checks strip against pystr.Strip.
func FuzzStrip(f *testing.F) {
	for _, s := range []string{"", " ", "a", " a ", "\u00a0a", "a\u2003", "\x1c", "x\x1f", "\xff", "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := strip(s), pystr.Strip(s); got != want {
			t.Fatalf("strip(%q) = %q, want %q", s, got, want)
		}
	})
}

// TestByTool checks the evidence lists of short lists against those of the map.
func TestByTool(t *testing.T) {
	r := gensuite.NewRand(3)
	for range 2000 {
		items := make([]toolItem, r.Intn(64))
		for i := range items {
			items[i] = toolItem{tool: []string{"a", "b", "", "search", "c"}[r.Intn(5)], msg: r.Intn(30)}
		}
		got, gotAll := byTool(items)
		want, wantAll := byToolMap(items)
		if got != want || !slices.Equal(gotAll, wantAll) {
			t.Fatalf("byTool(%v) = %q %v, want %q %v", items, got, gotAll, want, wantAll)
		}
	}
}

// FuzzSimilarity checks the comparison of assistant messages against the plain way: sorted
// sets of shingles or of code points, compared whole.
func FuzzSimilarity(f *testing.F) {
	f.Add("Let me search the flights for you now", "Let me search the flights for you now please")
	f.Add("ΟΔΟΣ abc", "abc ΟΔΟΣ")
	f.Add("  Same  ", "same")
	f.Add("", "x")
	f.Fuzz(func(t *testing.T, a, b string) {
		tr := &trace.Trace{Messages: []trace.Message{{Role: "assistant", Content: a}, {Role: "assistant", Content: b}}}
		e := newEval(tr, false)
		got := e.wordSimilarity(0, 1)
		// the plain way
		wa, wb := appendWords(nil, a), appendWords(nil, b)
		want := 0.0
		switch {
		case len(wa) == 0 || len(wb) == 0:
		case slices.Equal(wa, wb):
			want = 1
		case len(wa) >= 3 && len(wb) >= 3:
			want = jaccard(sortedSet(appendShingles(nil, wa)), sortedSet(appendShingles(nil, wb)))
		default:
			want = jaccard(sortedSet(slices.Clone(wa)), sortedSet(slices.Clone(wb)))
		}
		if (got > 0.7) != (want > 0.7) || got > 0.7 && got != want {
			t.Fatalf("wordSimilarity(%q, %q) = %v, want %v", a, b, got, want)
		}
		e = newEval(tr, true)
		got = e.refSimilarity(0, 1)
		la, lb := stripBytes(pystr.AppendLower(nil, a)), stripBytes(pystr.AppendLower(nil, b))
		want = 0
		switch {
		case a == "" || b == "":
		case bytes.Equal(la, lb):
			want = 1
		case len(la) == 0 || len(lb) == 0:
		default:
			want = jaccard(sortedSet([]rune(string(la))), sortedSet([]rune(string(lb))))
		}
		if got != want {
			t.Fatalf("refSimilarity(%q, %q) = %v, want %v", a, b, got, want)
		}
	})
}

// TestEvaluatorReuse checks that an Evaluator used for trace after trace gives what a fresh
// one gives, and that Brief only leaves out the RS-1 texts: on generated traces of every kind,
// the golden traces and random traces with many tools, repeated ids and odd arguments.
func TestEvaluatorReuse(t *testing.T) {
	var traces []*trace.Trace
	gen, _ := suiteTraces(t, 400)
	traces = append(traces, gen...)
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, f := range files {
		traces = append(traces, readRS1(t, f))
	}
	r := gensuite.NewRand(9)
	texts := []string{"", "I called the tool", "I recalled it", "Let me search the flights for you now please", "ΟΔΟΣ Σ",
		"the quick brown fox jumps over the lazy dog", "the quick brown fox jumps over the lazy cat", "ok", "executed"}
	roles := []string{"user", "assistant", "assistant", "tool"}
	for range 400 {
		tr := &trace.Trace{ID: "r", Usage: trace.Usage{Prompt: int64(r.Intn(30000)), Completion: int64(r.Intn(30000)), Recorded: true}}
		tr.Usage.Total = tr.Usage.Prompt + tr.Usage.Completion
		tools := 1 + r.Intn(40)
		for range r.Intn(80) {
			m := trace.Message{Role: roles[r.Intn(len(roles))], Content: texts[r.Intn(len(texts))]}
			for range r.Intn(3) {
				a := argSeeds[r.Intn(len(argSeeds))]
				m.Calls = append(m.Calls, trace.Call{Tool: fmt.Sprintf("tool%d", r.Intn(tools)), ID: fmt.Sprintf("c%d", r.Intn(6)),
					HasID: r.Chance(90), Args: []byte(a), ArgsValid: json.Valid([]byte(a)) && r.Chance(95)})
			}
			for range r.Intn(3) {
				m.Results = append(m.Results, trace.Result{CallID: fmt.Sprintf("c%d", r.Intn(6)), HasID: r.Chance(90), Success: r.Chance(50)})
			}
			tr.Messages = append(tr.Messages, m)
		}
		traces = append(traces, tr)
	}
	for _, p := range []profile.Profile{profile.Default, profile.Reference} {
		reused, brief := Evaluator{Profile: p}, Evaluator{Profile: p, Brief: true}
		for i, tr := range traces {
			want := Evaluate(tr, p)
			if got := reused.Evaluate(tr); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s, trace %d: a reused Evaluator gives\n%+v\nwant\n%+v", p, i, got, want)
			}
			want.Detail = nil
			if got := brief.Evaluate(tr); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s, trace %d: a brief Evaluator gives\n%+v\nwant\n%+v", p, i, got, want)
			}
		}
	}
}

// TestSketchBound checks that mayBeAlike never rules out a pair of texts more than 70% alike.
func TestSketchBound(t *testing.T) {
	r := gensuite.NewRand(5)
	for range 20000 {
		n := 3 + r.Intn(40)
		a := make([]uint64, n)
		for i := range a {
			a[i] = r.Uint64() % 64 // few distinct values: sets that overlap a lot
		}
		b := slices.Clone(a)
		for range r.Intn(n) {
			b[r.Intn(n)] = r.Uint64() % 64
		}
		if r.Chance(30) {
			b = b[:3+r.Intn(n-2)]
		}
		ta, tb := &msgText{words: a}, &msgText{words: b}
		for _, x := range []*msgText{ta, tb} {
			x.shingles = appendShingles(nil, x.words)
			x.nShingles = len(x.shingles)
			for _, h := range x.shingles {
				x.sketch[h>>6&1] |= 1 << (h & 63)
			}
		}
		if j := jaccard(sortedSet(slices.Clone(ta.shingles)), sortedSet(slices.Clone(tb.shingles))); j > 0.7 && !mayBeAlike(ta, tb) {
			t.Fatalf("index %v, but the sketches rule it out", j)
		}
	}
}

// FuzzSuspicious checks suspiciousTokens against RS-1's way: str(arguments).lower() searched
// for each of suspiciousWords.
func FuzzSuspicious(f *testing.F) {
	for _, s := range argSeeds {
		f.Add(s)
	}
	for _, s := range []string{`{"a": "\u000eRROR"}`, `{"a": "\none"}`, `{"\u212aey": "NULL"}`, `["Nul", "l"]`, `{"x": 1e400}`,
		`{"q": "FAILED"}`, `{"q": "unDefined\u0000"}`, `[true, false, "\u00e9rror"]`, `"plain error text"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		// the arguments as a string (not JSON) and, when they are JSON, as decoded
		values := []pystr.Value{{Kind: pystr.KindStr, Text: data}}
		if v, err := pystr.Parse([]byte(data)); err == nil {
			values = append(values, v)
		}
		for _, v := range values {
			low := pystr.Lower(string(v.AppendStr(nil)))
			want := false
			for _, w := range suspiciousWords {
				want = want || strings.Contains(low, w)
			}
			if found, ok := suspiciousTokens(v); (found || ok) && found != want {
				t.Fatalf("suspiciousTokens of str %q: %v, want %v", v.AppendStr(nil), found, want)
			}
		}
	})
}
