package pystr

import (
	"encoding/json"
	"math"
	"testing"
)

// The expectations below are CPython 3.11's own output, pasted as it printed it:
// json.dumps of each float, json.dumps of each string with and without ensure_ascii, and
// round(x, 4).
const (
	pyFloats  = `["0.0", "1.0", "0.5619166666666666", "1e-05", "1e+16", "123456789012345.6", "-0.0001", "2.5e-300", "NaN", "Infinity", "-Infinity"]`
	pyStrings = `[["plain", "\"plain\"", "\"plain\""], ["quote\" back\\", "\"quote\\\" back\\\\\"", "\"quote\\\" back\\\\\""], ["ctl\u0001\u001f\u007f", "\"ctl\\u0001\\u001f\\u007f\"", "\"ctl\\u0001\\u001f\u007f\""], ["tab\tnl\n", "\"tab\\tnl\\n\"", "\"tab\\tnl\\n\""], ["\u00e9\u4e2d\ud83d\ude00", "\"\\u00e9\\u4e2d\\ud83d\\ude00\"", "\"\u00e9\u4e2d\ud83d\ude00\""], ["\u2028", "\"\\u2028\"", "\"\u2028\""]]`
	pyRounds  = `[[0.77285, 0.7729], [0.12345, 0.1235], [0.7728024036478794, 0.7728], [2.00005, 2.0], [-1.23455, -1.2346]]`
)

func TestJSONMatchesPython(t *testing.T) {
	inputs := []float64{0.0, 1.0, 0.5619166666666666, 1e-05, 1e16, 123456789012345.6, -0.0001, 2.5e-300, math.NaN(), math.Inf(1), math.Inf(-1)}
	var floats []string
	if err := json.Unmarshal([]byte(pyFloats), &floats); err != nil {
		t.Fatal(err)
	}
	for i, f := range inputs {
		if got := string(AppendJSONFloat(nil, f)); got != floats[i] {
			t.Errorf("AppendJSONFloat(%v) = %s, Python says %s", f, got, floats[i])
		}
	}
	var strs [][3]string
	if err := json.Unmarshal([]byte(pyStrings), &strs); err != nil {
		t.Fatal(err)
	}
	for _, c := range strs {
		if got := string(AppendJSONString(nil, c[0], true)); got != c[1] {
			t.Errorf("AppendJSONString(%q, ascii) = %s, Python says %s", c[0], got, c[1])
		}
		if got := string(AppendJSONString(nil, c[0], false)); got != c[2] {
			t.Errorf("AppendJSONString(%q) = %s, Python says %s", c[0], got, c[2])
		}
	}
	var rounds [][2]float64
	if err := json.Unmarshal([]byte(pyRounds), &rounds); err != nil {
		t.Fatal(err)
	}
	for _, c := range rounds {
		if got := Round4(c[0]); got != c[1] {
			t.Errorf("Round4(%v) = %v, Python says %v", c[0], got, c[1])
		}
	}
}
