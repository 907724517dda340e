package reliability

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/pystr"
)

// reprSignature is RS-1's call signature written out whole, long strings and all, as
// appendRefSignature wrote it before long strings were numbered: the oracle of
// TestRefSignatureExact.
func reprSignature(v pystr.Value) []byte {
	if !v.Truthy() {
		return nil
	}
	if v.Kind != pystr.KindDict {
		return v.AppendRepr(nil)
	}
	dst := []byte{'['}
	for n, i := range sortedKeys(v.Dict, nil) {
		if n > 0 {
			dst = append(dst, ", "...)
		}
		dst = append(dst, '(')
		dst = pystr.AppendQuote(dst, v.Dict[i].Key)
		dst = append(dst, ", "...)
		dst = v.Dict[i].Value.AppendRepr(dst)
		dst = append(dst, ')')
	}
	return append(dst, ']')
}

// TestRefSignatureExact: two calls get the same reference-profile signature exactly when RS-1's
// signatures, written out whole, are the same text, over 400 random argument values (every
// pair compared) of strings short and long (equal, nearly equal, holding a zero byte), numbers,
// booleans, None, lists and dicts, nested; and a long string is written as its number, not its
// bytes.
func TestRefSignatureExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 4))
	long := strings.Repeat("a", 100)
	texts := []string{"", "x", "'", "\x00", "\x00\x01", long, long[1:] + "b", long + "\x00", strings.Repeat("é", 70)}
	var value func(depth int) pystr.Value
	value = func(depth int) pystr.Value {
		switch k := rng.IntN(8); {
		case k == 0:
			return pystr.Value{Kind: pystr.KindNone}
		case k == 1:
			return pystr.Value{Kind: pystr.KindBool, Bool: rng.IntN(2) == 1}
		case k == 2:
			return pystr.Value{Kind: pystr.KindInt, Text: fmt.Sprint(rng.IntN(2))}
		case k == 3:
			return pystr.Value{Kind: pystr.KindFloat, Float: float64(rng.IntN(2))}
		case k == 4 && depth < 2:
			v := pystr.Value{Kind: pystr.KindList}
			for range rng.IntN(3) {
				v.List = append(v.List, value(depth+1))
			}
			return v
		case k == 5 && depth < 2:
			v := pystr.Value{Kind: pystr.KindDict}
			for range rng.IntN(3) {
				v.Dict = append(v.Dict, pystr.Member{Key: texts[rng.IntN(len(texts))], Value: value(depth + 1)})
			}
			return v
		}
		return pystr.Value{Kind: pystr.KindStr, Text: texts[rng.IntN(len(texts))]}
	}
	values := make([]pystr.Value, 400)
	for i := range values {
		values[i] = value(0)
	}
	keys := longStrings{}
	sigs := make([][]byte, len(values))
	for i, v := range values {
		sigs[i] = appendRefSignature(nil, v, keys)
	}
	same := 0
	for i := range values {
		for j := range values {
			want := bytes.Equal(reprSignature(values[i]), reprSignature(values[j]))
			if got := bytes.Equal(sigs[i], sigs[j]); got != want {
				t.Fatalf("signatures of %s and %s equal %v, want %v", reprSignature(values[i]), reprSignature(values[j]), got, want)
			}
			if want && i != j {
				same++
			}
		}
	}
	if same == 0 {
		t.Error("no two values alike: the test compares nothing")
	}
	if sig := appendRefSignature(nil, pystr.Value{Kind: pystr.KindStr, Text: long}, keys); len(sig) > 8 {
		t.Errorf("a 100-byte string is signed by %d bytes, want its number", len(sig))
	}
}

// Under the reference profile too, 240 calls whose arguments each hold one 1 MiB string (as an
// Inspect log's calls naming one attachment read) key it by its number: evaluating allocates a
// few MiB (before: 1.5 GB, the signatures holding the string once a call, as they grew by
// doubling; the gate peaked at 1.07 GB on such a log), and scores as the same calls with a
// one-byte string do.
func TestLongArgumentsKeyedOnceReference(t *testing.T) {
	r, allocated := evaluateAllocated(&Evaluator{Brief: true, Profile: profile.Reference}, longArgumentsTrace(strings.Repeat("A", 1<<20)))
	t.Logf("evaluating allocated %d bytes", allocated)
	if allocated > 16<<20 {
		t.Errorf("evaluating allocated %d bytes, want at most 16 MiB", allocated)
	}
	want := (&Evaluator{Brief: true, Profile: profile.Reference}).Evaluate(longArgumentsTrace("A"))
	if r.Score != want.Score || r.Signals != want.Signals || r.Verdict != want.Verdict || want.Signals[Loop] == 0 {
		t.Errorf("scored %v %+v %s, want %v %+v %s (loop not 0)", r.Score, r.Signals, r.Verdict, want.Score, want.Signals, want.Verdict)
	}
}
