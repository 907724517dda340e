package pystr

import "testing"

func TestLoneSurrogates(t *testing.T) {
	cases := []struct {
		raw  string
		want string
		ok   bool
	}{
		{`"run-1"`, "", false},
		{`"run-\u00e9"`, "", false},
		{`"run-\\ud800"`, "", false},  // an escaped backslash, not an escape
		{`"\ud83d\ude00"`, "", false}, // a pair: U+1F600
		{`"run-\ud800"`, "run-\xed\xa0\x80", true},
		{`"run-\uDC01x"`, "run-\xed\xb0\x81x", true},
		{`"\ud800\ud800"`, "\xed\xa0\x80\xed\xa0\x80", true},
		{`"a\ude00\ud83d\ude00"`, "a\xed\xb8\x80\U0001F600", true},
		{`"\ud800`, "", false}, // not a JSON string
	}
	for _, c := range cases {
		got, ok := LoneSurrogates([]byte(c.raw))
		if got != c.want || ok != c.ok {
			t.Errorf("LoneSurrogates(%s) = %q, %v; want %q, %v", c.raw, got, ok, c.want, c.ok)
		}
	}
}
