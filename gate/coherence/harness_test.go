package coherence

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/pystr"
)

// TestRound4 compares with Python 3.11's round(x, 4), including exact binary ties (0.03125 is
// 1/32), which go to even.
func TestRound4(t *testing.T) {
	cases := []struct{ x, want float64 }{
		{0.03125, 0.0312}, {0.09375, 0.0938}, {0.15625, 0.1562}, {0.28125, 0.2812}, {0.71875, 0.7188},
		{0.99995, 1.0}, {0.00005, 0.0001}, {0.12345, 0.1235}, {0.00015, 0.0001},
		{0.5000499999999999, 0.5}, {0.99996, 1.0}, {0.7799532760127158, 0.78},
		{0.7728024036478794, 0.7728}, {1, 1}, {0, 0},
	}
	for _, c := range cases {
		if got := Round4(c.x); got != c.want {
			t.Errorf("Round4(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	if !math.IsNaN(Round4(math.NaN())) || !math.IsInf(Round4(math.Inf(1)), 1) {
		t.Error("Round4 of NaN or +Inf is not itself")
	}
}

// TestAppendPyFloat compares with Python 3.11's json.dumps(x).
func TestAppendPyFloat(t *testing.T) {
	cases := []struct {
		x    float64
		want string
	}{
		{0.78, "0.78"}, {1, "1.0"}, {0, "0.0"}, {0.0001, "0.0001"}, {1e-05, "1e-05"}, {1e16, "1e+16"},
		{1e15, "1000000000000000.0"}, {123.456, "123.456"}, {math.Copysign(0, -1), "-0.0"},
		{1.5e300, "1.5e+300"}, {0.30000000000000004, "0.30000000000000004"},
		{math.NaN(), "NaN"}, {math.Inf(1), "Infinity"}, {math.Inf(-1), "-Infinity"},
	}
	for _, c := range cases {
		if got := string(pystr.AppendJSONFloat(nil, c.x)); got != c.want {
			t.Errorf("AppendJSONFloat(%v) = %s, want %s", c.x, got, c.want)
		}
	}
}

// TestAppendPyString compares with Python 3.11's json.dumps(s, ensure_ascii=False).
func TestAppendPyString(t *testing.T) {
	in := "a\"b\\c\n\r\t\b\f\x01\x1f\x7f\u2028é<>&/"
	want := `"a\"b\\c\n\r\t\b\f\u0001\u001f` + "\x7f\u2028é<>&/" + `"`
	if got := string(pystr.AppendJSONString(nil, in, false)); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	// A Python str cannot hold invalid UTF-8; Go's encoder writes U+FFFD for it, and so do we.
	if got := string(pystr.AppendJSONString(nil, "a\xffb", false)); got != "\"a\uFFFDb\"" {
		t.Errorf("invalid UTF-8: got %q", got)
	}
}

// TestHarnessReport checks the report against Python's json.dump(..., indent=2,
// ensure_ascii=False) of the same values, and that it is valid JSON.
func TestHarnessReport(t *testing.T) {
	empty := NewHarnessReport(nil, nil)
	if got, want := string(empty.AppendJSON(nil)), "{\n  \"model\": \"agentgate\",\n  \"average_rcs\": 0.0,\n  \"results\": []\n}"; got != want {
		t.Errorf("empty report:\n%s\nwant\n%s", got, want)
	}

	tasks := []Task{{ID: "a", Intent: "<b>", Action: "x\ny", Model: "mé"}}
	rep := NewHarnessReport(tasks, []TaskResult{{ID: "a", RCS: 0.99996}})
	want := "{\n  \"model\": \"mé\",\n  \"average_rcs\": 1.0,\n  \"results\": [\n    {\n      \"task_id\": \"a\",\n      \"rcs\": 1.0,\n" +
		"      \"intent\": \"<b>\",\n      \"understanding\": \"\",\n      \"action\": \"x\\ny\",\n      \"reference_action\": \"\"\n    }\n  ]\n}"
	got := rep.AppendJSON(nil)
	if string(got) != want {
		t.Errorf("report:\n%s\nwant\n%s", got, want)
	}
	var back HarnessReport
	if err := json.Unmarshal(got, &back); err != nil || back.Results[0].Action != "x\ny" || back.AverageRCS != 1 {
		t.Errorf("does not read back: %v %+v", err, back)
	}

	// Average of the unrounded scores, then rounded, as Python's round((a + b) / 2, 4) gives:
	// 0.3333, 0.0, 0.5, 0.75, 0.15. The model is kept only when every task names the same one.
	cases := []struct {
		models []string
		rcs    []float64
		model  string
		avg    float64
	}{
		{[]string{"", ""}, []float64{0.33334, 0.33334}, "agentgate", 0.3333},
		{[]string{"gpt", "gpt"}, []float64{0.00004, 0.00004}, "gpt", 0},
		{[]string{"gpt", ""}, []float64{1, 0}, "agentgate", 0.5},
		{[]string{"gpt", "claude"}, []float64{1, 0.5}, "agentgate", 0.75},
		{[]string{"", "gpt"}, []float64{0.1, 0.2}, "agentgate", 0.15},
	}
	for _, c := range cases {
		var ts []Task
		var rs []TaskResult
		for i, m := range c.models {
			ts = append(ts, Task{ID: "t", Model: m})
			rs = append(rs, TaskResult{RCS: c.rcs[i]})
		}
		rep := NewHarnessReport(ts, rs)
		if rep.Model != c.model || rep.AverageRCS != c.avg || len(rep.Results) != len(ts) {
			t.Errorf("%v %v: model %q average %v, want %q %v", c.models, c.rcs, rep.Model, rep.AverageRCS, c.model, c.avg)
		}
	}
	if rep := NewHarnessReport([]Task{{ID: "a"}, {ID: "b"}}, []TaskResult{{RCS: 0.5}}); len(rep.Results) != 1 || rep.AverageRCS != 0.5 {
		t.Errorf("mismatched lengths: %+v", rep)
	}
}

// TestHarnessWriter: the report written as tasks are scored is NewHarnessReport's, byte for
// byte, for no task, tasks of one harness file's model, of plain records, and of two models.
func TestHarnessWriter(t *testing.T) {
	task := func(id, model string) Task {
		return Task{ID: id, Intent: "book a flight", Understanding: "book a flight", Action: "booked a flight to Zürich <ok>", Model: model}
	}
	cases := []struct {
		name  string
		tasks []Task
		model string
	}{
		{"none", nil, DefaultHarnessModel},
		{"one model", []Task{task("a", "echo"), task("b", "echo")}, "echo"},
		{"records", []Task{task("a", ""), task("b", "")}, DefaultHarnessModel},
		{"two models", []Task{task("a", "echo"), task("b", "gpt"), task("c", "echo")}, DefaultHarnessModel},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var results []TaskResult
			var body, out bytes.Buffer
			hw := NewHarnessWriter(&body)
			for _, task := range c.tasks {
				r := Score(task, profile.Default)
				results = append(results, r)
				if err := hw.Add(task, r); err != nil {
					t.Fatal(err)
				}
			}
			if err := hw.Finish(&out, &body); err != nil {
				t.Fatal(err)
			}
			rep := NewHarnessReport(c.tasks, results)
			if rep.Model != c.model {
				t.Errorf("model %q, want %q", rep.Model, c.model)
			}
			if want := string(rep.AppendJSON(nil)); out.String() != want {
				t.Errorf("streamed:\n%s\n--- want ---\n%s", out.String(), want)
			}
		})
	}
}
