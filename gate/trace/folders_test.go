package trace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/internal/jsonscan"
)

// TestSideRecord: the first record of a file under a folder tells a side file from traces by
// its content: a message list (or a member of a trace) means traces, whatever the rest.
func TestSideRecord(t *testing.T) {
	for _, c := range []struct{ rec, want string }{
		{`{"messages": []}`, ""},
		{`{"history": [], "model_patch": "x", "instance_id": "i"}`, ""},
		{`{"trace_id": "t"}`, ""},
		{`{"role": "user", "content": "a bare message: the reader says what is wrong"}`, ""},
		{`[1]`, ""},
		{`"text"`, ""},
		{`{}`, ""},
		{`{"a__b-1": {"model_name_or_path": "m", "instance_id": "a__b-1", "model_patch": "diff"}}`, "predictions: a map of instance ids to patches"},
		{`{"model_name_or_path": "m", "instance_id": "a__b-1", "model_patch": null}`, "predictions: an instance id and its patch a line"},
		{`{"total_instances": 3, "resolved_ids": []}`, "a SWE-bench run report: the runs' outcomes, give it with --outcomes"},
		{`{"resolved_instances": 1, "total_instances": 3}`, "a SWE-bench run report: the runs' outcomes, give it with --outcomes"},
		{`{"a__b-1": {"patch_is_None": false, "resolved": true}}`, "a SWE-bench report: the runs' outcomes, give it with --outcomes"},
		{`{"model": "gpt", "temperature": 0}`, "no message list: its first record has keys model, temperature"},
	} {
		if got := sideRecord([]byte(c.rec)); got != c.want {
			t.Errorf("sideRecord(%s) = %q, want %q", c.rec, got, c.want)
		}
	}
}

// TestTurnsFromEvents: a sample whose messages hold only the prompt gets the model's turns
// and the tool results from its events, in order, up to the scorers' span; a sample whose
// messages hold them keeps its messages, whatever its events.
func TestTurnsFromEvents(t *testing.T) {
	events := `[{"event": "sample_init", "sample": {}, "state": {}},
		{"event": "model", "error": "a retry", "output": {"choices": [{"message": {"role": "assistant", "content": [{"type": "text", "text": "look"}], "tool_calls": [{"id": "c1", "function": "bash", "arguments": {"cmd": "ls"}}]}}]}},
		{"event": "tool", "type": "function", "id": "c1", "function": "bash", "arguments": {"cmd": "ls"}, "result": [{"type": "text", "text": "a.py"}]},
		{"event": "model", "output": {"choices": []}},
		{"event": "subtask", "name": "x", "type": null, "output": [1, 2]},
		{"event": "model", "output": {"choices": [{"message": {"content": "", "tool_calls": [{"id": "c2", "function": "bash", "arguments": {}}]}}]}},
		{"event": "tool", "id": "c2", "function": "bash", "result": 7, "error": {"type": "timeout", "message": "took too long"}},
		{"event": "step", "action": "begin", "type": "scorer", "name": "match"},
		{"event": "model", "output": {"choices": [{"message": {"role": "assistant", "content": "GRADE: C"}}]}}]`
	log := func(messages string) []byte {
		return []byte(`{"version": 2, "eval": {}, "samples": [{"id": "s", "epoch": 1, "messages": ` + messages + `, "events": ` + events + `}]}`)
	}
	var got []*Trace
	read := func(data []byte) {
		got = nil
		if err := eachInspectJSON(context.Background(), "f.json", data, Options{}, func(tr *Trace) error { got = append(got, tr); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	read(log(`[{"role": "user", "content": "prompt"}]`))
	want := []string{
		`user "prompt"`,
		`assistant "look" call[c1 bash {"cmd":"ls"}]`,
		`tool "a.py" ok[c1]`,
		`assistant "" call[c2 bash {}]`,
		`tool "7" FAIL[c2 "timeout: took too long"]`,
	}
	if d := describe(got[0]); strings.Join(d, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(d, "\n"), strings.Join(want, "\n"))
	}
	read(log(`[{"role": "user", "content": "prompt"}, {"role": "assistant", "content": "done"}]`))
	if d := describe(got[0]); len(d) != 2 {
		t.Errorf("messages with the model's turns: %q", d)
	}
}

// FuzzSideRecord: telling a side file from its first record never panics, and a record with a
// message list is never one.
func FuzzSideRecord(f *testing.F) {
	f.Add([]byte(`{"a__b-1": {"model_patch": "x"}}`))
	f.Add([]byte(`{"model_name_or_path": "m", "instance_id": "i", "model_patch": ""}`))
	f.Add([]byte(`{"resolved_ids": [], "messages": []}`))
	f.Add([]byte(`{"x": {"resolved": true}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		side := sideRecord(data)
		if side == "" {
			return
		}
		_, _ = jsonscan.EachMember(data, jsonscan.SkipSpace(data, 0), func(key []byte, _, _ int) error {
			for _, k := range listKeys {
				if jsonscan.Unquote(key, jsonscan.Replace) == k {
					t.Fatalf("a record with %q is a side file: %q", k, side)
				}
			}
			return nil
		})
	})
}

// FuzzInspectEvents: the turns of samples read from their events never panic and every
// problem is an input error naming the file.
func FuzzInspectEvents(f *testing.F) {
	f.Add([]byte(`{"version":2,"eval":{},"samples":[{"id":1,"epoch":1,"messages":[{"role":"user","content":"p"}],"events":[{"event":"model","output":{"choices":[{"message":{"role":"assistant","content":"x","tool_calls":[{"id":"c","function":"f","arguments":{}}]}}]}},{"event":"tool","id":"c","function":"f","result":{"type":"text","text":"attachment://a"},"error":{"type":"t","message":"m"}},{"event":"span_begin","name":"scorers"}],"attachments":{"a":"r"},"scores":{"s":{"value":{"k":1}}}}]}`))
	f.Add([]byte(`{"version":2,"eval":{},"samples":[{"id":1,"messages":[],"events":[{"event":"model","output":[]},{"event":"tool","result":null,"error":"x"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, scorer := range []string{"", "s/k"} {
			err := eachInspectJSON(context.Background(), "f.json", data, Options{OutcomeScorer: scorer}, func(tr *Trace) error {
				if tr.ID == "" || (tr.Outcome.Known && tr.Outcome.Note != "") {
					t.Fatalf("trace %+v", tr)
				}
				return nil
			})
			checkFormatError(t, err, "f.json")
		}
	})
}

// FuzzOutcomeField: reading the member outcome-field names never panics; an outcome it gives
// is a finite number named by the field.
func FuzzOutcomeField(f *testing.F) {
	f.Add([]byte(`{"messages": [], "result": {"correct": true}}`), "result.correct")
	f.Add([]byte(`{"messages": [], "a": [0, {"b": 0.5}]}`), "a.1.b")
	f.Add([]byte(`{"messages": [], "a": "yes"}`), "a")
	f.Fuzz(func(t *testing.T, data []byte, field string) {
		if CheckOutcomeField(field) != "" {
			return
		}
		d := Decoder{OutcomeField: field}
		tr, err := d.Decode(input.Record{File: "f.jsonl", Line: 1, Col: 1, Data: data})
		checkFormatError(t, err, "f.jsonl")
		if err == nil && tr.Outcome.Known && tr.Outcome.Source == field && (tr.Outcome.Value != tr.Outcome.Value) {
			t.Fatalf("outcome %+v", tr.Outcome)
		}
	})
}

// TestOpenHandsSide: in a folder, OpenHands' output.swebench_eval.jsonl (the runs' test
// results, no run) is a side file; its output.jsonl is traces.
func TestOpenHandsSide(t *testing.T) {
	dir := filepath.Join("testdata", "formats", "openhands")
	for _, c := range []struct{ file, want string }{
		{"output.swebench_eval.jsonl", "OpenHands evaluation results: the runs' outcomes, not runs"},
		{"output.jsonl", ""},
	} {
		f, side, err := RecogniseFile(filepath.Join(dir, c.file), dir)
		if err != nil || f.Format != FormatOpenHands || side != c.want {
			t.Errorf("%s: format %v, side %q, err %v; want %q", c.file, f.Format, side, err, c.want)
		}
	}
}

// TestRecogniseReadsTheFirstRecord: telling a side file reads its first record only, so a
// folder costs one record a file beyond reading its traces: a predictions file whose later
// lines are broken is still told by its first.
func TestRecogniseReadsTheFirstRecord(t *testing.T) {
	f := filepath.Join(t.TempDir(), "all_preds.jsonl")
	data := `{"model_name_or_path": "m", "instance_id": "a", "model_patch": ""}` + "\n" + strings.Repeat("not json\n", 1000)
	if err := os.WriteFile(f, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, side, err := RecogniseFile(f, filepath.Dir(f)); err != nil || side != "predictions: an instance id and its patch a line" {
		t.Errorf("side %q, err %v", side, err)
	}
}
