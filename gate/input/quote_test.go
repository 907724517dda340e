package input

import (
	"strings"
	"testing"
)

func TestQuote(t *testing.T) {
	a200 := strings.Repeat("a", 200)
	e200 := strings.Repeat("é", 200)
	cases := []struct{ in, quote, cut string }{
		{"", `""`, ""},
		{"run-1", `"run-1"`, "run-1"},
		{"a\nb\"", `"a\nb\""`, "a\nb\""},
		{a200, `"` + a200 + `"`, a200},
		{a200 + "b", `"` + a200 + `"… (1 more character)`, a200 + "… (1 more character)"},
		{a200 + strings.Repeat("x", 10<<20), `"` + a200 + `"… (10485760 more characters)`, a200 + "… (10485760 more characters)"},
		// characters, not bytes: 200 two-byte ones are kept whole
		{e200 + "éé", `"` + e200 + `"… (2 more characters)`, e200 + "… (2 more characters)"},
		{strings.Repeat("\xff", 201), `"` + strings.Repeat(`\xff`, 200) + `"… (1 more character)`, strings.Repeat("\xff", 200) + "… (1 more character)"},
	}
	for _, c := range cases {
		if got := Quote(c.in); got != c.quote {
			t.Errorf("Quote(%.20q…) = %.300s\nwant %.300s", c.in, got, c.quote)
		}
		if got := Cut(c.in); got != c.cut {
			t.Errorf("Cut(%.20q…) = %.300s\nwant %.300s", c.in, got, c.cut)
		}
	}
}
