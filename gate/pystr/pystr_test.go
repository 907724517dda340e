package pystr

import "testing"

// The expected strings were produced by CPython 3.11's str.lower() and str.strip() on the
// same inputs.
func TestLowerAndStripMatchPython(t *testing.T) {
	cases := []struct{ in, lower, strip string }{
		{"Hello WORLD", "hello world", "Hello WORLD"},
		{"\u0130stanbul", "i\u0307stanbul", "\u0130stanbul"},
		{"\u039f\u0394\u039f\u03a3", "\u03bf\u03b4\u03bf\u03c2", "\u039f\u0394\u039f\u03a3"},
		{"\u039f\u0394\u039f\u03a3.", "\u03bf\u03b4\u03bf\u03c2.", "\u039f\u0394\u039f\u03a3."},
		{"\u03a3", "\u03c3", "\u03a3"},
		{"A\u03a3B", "a\u03c3b", "A\u03a3B"},
		{"A\u03a3'", "a\u03c2'", "A\u03a3'"},
		{"\u03a3\u0391\u03a3 \u03a3\u0391\u03a3", "\u03c3\u03b1\u03c2 \u03c3\u03b1\u03c2", "\u03a3\u0391\u03a3 \u03a3\u0391\u03a3"},
		{"\u01c5emal", "\u01c6emal", "\u01c5emal"},
		{"\u1e9e", "\u00df", "\u1e9e"},
		{"\u03a9 K \u00c5", "\u03c9 k \u00e5", "\u03a9 K \u00c5"},
		{"\ufb03", "\ufb03", "\ufb03"},
		{"\u00c0\u00c9\u00ce", "\u00e0\u00e9\u00ee", "\u00c0\u00c9\u00ce"},
		{"\u0131 \u017f", "\u0131 \u017f", "\u0131 \u017f"},
		{"\u13a0", "\uab70", "\u13a0"},
		{"\u1e9e", "\u00df", "\u1e9e"},
		{"A\u0301\u03a3", "a\u0301\u03c2", "A\u0301\u03a3"},
		{"x\u001c y", "x\u001c y", "x\u001c y"},
		{" \t\u001f\u00a0 a b\u2028 ", " \t\u001f\u00a0 a b\u2028 ", "a b"},
	}
	for _, c := range cases {
		if got := Lower(c.in); got != c.lower {
			t.Errorf("Lower(%+q) = %+q, Python says %+q", c.in, got, c.lower)
		}
		if got := Strip(c.in); got != c.strip {
			t.Errorf("Strip(%+q) = %+q, Python says %+q", c.in, got, c.strip)
		}
	}
}

func TestLowerDoesNotAllocateOnLowerASCII(t *testing.T) {
	s := "already lower case text 123"
	if n := testing.AllocsPerRun(100, func() { _ = Lower(s) }); n != 0 {
		t.Fatalf("Lower allocated %v times on lower-case ASCII", n)
	}
}
