package agreement

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/internal/cputime"
)

// TestMakeKey: a number's identity is its exact value, written canonically.
func TestMakeKey(t *testing.T) {
	big20 := "123456789012345678901"
	cases := []struct {
		text string
		num  bool
		want string
	}{
		{"7", false, "7"},
		{"7", true, "7"},
		{"-0", true, "0"},
		{"0", true, "0"},
		{"-0.0", true, "0"},
		{"1.0", true, "1"},
		{"1e2", true, "100"},
		{"0.5", true, "1/2"},
		{"1e400", true, "inf"},
		{"-1e400", true, "-inf"},
		{big20, true, big20},
		{"-" + big20, true, "-" + big20},
		{"9007199254740993", true, "9007199254740993"},
		{"9007199254740993.0", true, "9007199254740992"},
	}
	for _, c := range cases {
		if got := makeKey(c.text, c.num); got.s != c.want || got.num != c.num {
			t.Errorf("makeKey(%q, %v) = %+v, want s %q", c.text, c.num, got, c.want)
		}
	}
}

// TestCompareKeysOracle: numbers compare by exact value, as big.Rat compares them, however
// many digits they have and however close they are.
func TestCompareKeysOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var texts []string
	for _, base := range []string{"9007199254740993", "123456789012345678901234567890", strings.Repeat("9", 400)} {
		for _, sign := range []string{"", "-"} {
			for d := -2; d <= 2; d++ {
				n, _ := new(big.Int).SetString(sign+base, 10)
				texts = append(texts, n.Add(n, big.NewInt(int64(d))).String())
			}
			texts = append(texts, sign+base+".0", sign+base+"e0", sign+"1"+strings.Repeat("0", len(base)-1))
		}
	}
	for range 200 {
		texts = append(texts, fmt.Sprint(r.Int64N(1<<62)-1<<61), fmt.Sprintf("%g", r.NormFloat64()*1e20))
	}
	texts = append(texts, "0", "-0", "0.0", "1e400", "-1e400", "0.5", "-0.5")
	value := func(s string) *big.Rat {
		k := makeKey(s, true)
		switch k.s {
		case "inf":
			return new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), 2000))
		case "-inf":
			return new(big.Rat).SetInt(new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 2000)))
		}
		if !strings.ContainsAny(s, ".eE") {
			v, _ := new(big.Rat).SetString(s)
			return v
		}
		v, _ := new(big.Rat).SetString(k.s)
		return v
	}
	for _, a := range texts {
		for _, b := range texts {
			want := value(a).Cmp(value(b))
			if got := compareKeys(makeKey(a, true), makeKey(b, true)); got != want {
				t.Fatalf("compareKeys(%s, %s) = %d, want %d", a, b, got, want)
			}
			if eq := makeKey(a, true).qidKey == makeKey(b, true).qidKey; eq != (want == 0) {
				t.Fatalf("%s and %s: same key %v, want %v", a, b, eq, want == 0)
			}
		}
	}
}

// TestLongNumericQIDTime: two 2,000,000-digit qids that binary64 cannot tell apart are joined
// and sorted in linear time (issue 12 item 5: 26 s of CPU through big.Int; now about 0.1 s).
func TestLongNumericQIDTime(t *testing.T) {
	if testing.Short() {
		t.Skip("a 2 MB input")
	}
	body := "9" + strings.Repeat("1", 2_000_000-2)
	dir := t.TempDir()
	s, a := filepath.Join(dir, "s.jsonl"), filepath.Join(dir, "a.jsonl")
	for i, p := range []string{s, a} {
		// The sides list the qids in opposite orders; the join sorts them by value.
		first, second := "2", "1"
		if i == 1 {
			first, second = second, first
		}
		text := fmt.Sprintf(`{"qid": %s%s, "label": "VALID"}`+"\n"+`{"qid": %s%s, "label": "VALID"}`+"\n", body, first, body, second)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var pairs []Pair
	var unmatched []Unmatched
	var err error
	used, measured := time.Duration(1<<62), false // the least CPU time of three joins
	for range 3 {
		start, ok := cputime.Process()
		pairs, unmatched, err = LoadJoined([]string{s}, []string{a}, profile.Default)
		end, _ := cputime.Process()
		used, measured = min(used, end-start), ok
	}
	if err != nil || len(unmatched) != 0 || len(pairs) != 2 || pairs[0].QID != body+"1" || pairs[1].QID != body+"2" {
		t.Fatalf("LoadJoined: %d pairs, %d unmatched, %v", len(pairs), len(unmatched), err)
	}
	if measured && used > 2*time.Second {
		t.Errorf("LoadJoined took %.1f s of CPU, want under 2 s", used.Seconds())
	}
}
