package jsonreport

import (
	"bytes"
	"testing"
)

// A run's signals that are not an object of numbers are refused at the value at fault, in a
// baseline and in a shard alike, and a shard's member that names no signal is refused: the
// messages and places agentgate gave when Signals was a struct encoding/json read itself
// (reliability.Signals now reads its own members, and encoding/json places the errors of its
// UnmarshalJSON from where the signals start, not the file's; checkSignals).
func TestSignalsErrorsPlaced(t *testing.T) {
	const head = `{"schema":3,"profile":"default","source":{},"reliability":{"traces":[{"id":"a","verdict":"PASS","score":1,`
	for _, c := range []struct{ data, baseline, shard string }{
		{head + `"signals":{"loop":"x"}}]}}`,
			`b.json:1:125: not an agentgate JSON report: field "reliability.traces[0].signals.loop": expected a number, found a string`,
			`s.json:1:125: field "reliability.traces[0].signals.loop": expected a number, found a string`},
		{head + "\n" + `  "signals": {"cost":0.5, "LOOP": [1]}}]}}`,
			`b.json:2:35: not an agentgate JSON report: field "reliability.traces[0].signals.LOOP": expected a number, found an array`,
			`s.json:2:35: field "reliability.traces[0].signals.LOOP": expected a number, found an array`},
		{head + `"signals":5}]}}`,
			`b.json:1:117: not an agentgate JSON report: field "reliability.traces[0].signals": expected an object, found a number`,
			`s.json:1:117: field "reliability.traces[0].signals": expected an object, found a number`},
		{head + `"signals":{"loop":1e999}}]}}`,
			`b.json:1:125: not an agentgate JSON report: field "reliability.traces[0].signals.loop": expected a number, found a number`,
			`s.json:1:125: field "reliability.traces[0].signals.loop": expected a number, found a number`},
		{head + `"signals":{"other":1,"loop":null}}]}}`, "",
			`s.json: a member "other" that no report of schema 3 has: not written by this agentgate`},
	} {
		_, err := ReadBaseline(bytes.NewReader([]byte(c.data)), "b.json")
		if got := errText(err); got != c.baseline {
			t.Errorf("%s\nas a baseline: %s\nwant %s", c.data, got, c.baseline)
		}
		_, err = decodeShard("s.json", []byte(c.data))
		if got := errText(err); got != c.shard {
			t.Errorf("%s\nas a shard: %s\nwant %s", c.data, got, c.shard)
		}
	}
}

// errText is err's message, or "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
