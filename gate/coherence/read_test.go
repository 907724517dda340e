package coherence

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/input"
)

func readAll(name, text string) ([]Task, error) {
	var out []Task
	err := EachReader(name, strings.NewReader(text), func(t Task) error {
		out = append(out, t)
		return nil
	})
	return out, err
}

func TestEachShapes(t *testing.T) {
	cases := []struct {
		name, file, text string
		want             []Task
	}{
		{"jsonl task records", "t.jsonl",
			`{"id":"a","intent":"I","understanding":"U","action":"A"}` + "\n\n" +
				`{"task_id":"b","intent":"","understanding":"","action":"","alpha":0,"beta":2.5,"gamma":-0,"reference_action":"40","prompt":"ignored"}` + "\n" +
				`{"id":7,"intent":"x","understanding":"y","action":"z","reference_action":null}` + "\n",
			[]Task{
				{ID: "a", File: "t.jsonl", Line: 1, Intent: "I", Understanding: "U", Action: "A"},
				{ID: "b", File: "t.jsonl", Line: 3, Alpha: ptr(0), Beta: ptr(2.5), Gamma: ptr(0), ReferenceAction: "40"},
				{ID: "7", File: "t.jsonl", Line: 4, Intent: "x", Understanding: "y", Action: "z"},
			}},
		{"json array, id and task_id agreeing, repeated key keeps the last", "t.json",
			"[\n  {\"id\": \"a\", \"task_id\": \"a\", \"intent\": 1, \"intent\": \"I\\u00e9\", \"understanding\": \"U\", \"action\": \"A\"},\n" +
				"  {\"id\": \"b\", \"intent\": \"I\", \"understanding\": \"U\", \"action\": \"A\"}\n]\n",
			[]Task{
				{ID: "a", File: "t.json", Line: 2, Intent: "Ié", Understanding: "U", Action: "A"},
				{ID: "b", File: "t.json", Line: 3, Intent: "I", Understanding: "U", Action: "A"},
			}},
		{"json single record", "t.json", "\n{\"id\": \"a\",\n \"intent\": \"I\", \"understanding\": \"U\", \"action\": \"A\"}",
			[]Task{{ID: "a", File: "t.json", Line: 2, Intent: "I", Understanding: "U", Action: "A"}}},
		{"harness results file, each task on its own line", "h.json",
			"{\n  \"model\": \"gpt\",\n  \"average_rcs\": 0.5,\n  \"results\": [\n    {\n      \"task_id\": \"a\",\n" +
				"      \"rcs\": 0.5, \"intent\": \"I\", \"understanding\": \"U\", \"action\": \"A\", \"reference_action\": \"R\"\n    },\n" +
				"    {\"task_id\": \"b\", \"intent\": \"I2\", \"understanding\": \"U2\", \"action\": \"A2\", \"beta\": 1}\n  ]\n}\n",
			[]Task{
				{ID: "a", File: "h.json", Line: 5, Intent: "I", Understanding: "U", Action: "A", ReferenceAction: "R", Model: "gpt"},
				{ID: "b", File: "h.json", Line: 9, Intent: "I2", Understanding: "U2", Action: "A2", Beta: ptr(1), Model: "gpt"},
			}},
		{"harness results on one JSONL line, without a model", "h.jsonl",
			`{"results":[{"task_id":"a","intent":"I","understanding":"U","action":"A"}]}` + "\n" +
				`{"id":"b","intent":"I","understanding":"U","action":"A"}`,
			[]Task{
				{ID: "a", File: "h.jsonl", Line: 1, Intent: "I", Understanding: "U", Action: "A"},
				{ID: "b", File: "h.jsonl", Line: 2, Intent: "I", Understanding: "U", Action: "A"},
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := readAll(c.file, c.text)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got\n%+v\nwant\n%+v", got, c.want)
			}
		})
	}
}

func TestEachEcho(t *testing.T) {
	echoPath := needEcho(t)
	var lines []int
	err := Each(echoPath, func(task Task) error {
		if task.Model != "echo" || task.File != echoPath || task.ReferenceAction == "" {
			t.Errorf("task %+v", task)
		}
		lines = append(lines, task.Line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The four results open on lines 5, 13, 21 and 29 of the file.
	if !reflect.DeepEqual(lines, []int{5, 13, 21, 29}) {
		t.Errorf("lines %v", lines)
	}
}

func TestEachErrors(t *testing.T) {
	const uaa = `"intent":"x","understanding":"y","action":"z"`
	cases := []struct{ name, file, text, want string }{
		{"missing action", "t.jsonl", `{"id":"a","intent":"x","understanding":"y"}`,
			`t.jsonl:1:1: task "a": missing field "action": expected a string`},
		{"a task of the harness's tasks file", "t.json", `[{"id":"calc-01","intent":"Sum","prompt":"Add these: 14, 7","reference_action":"21"}]`,
			`t.json:1:2: task "calc-01": missing field "understanding": expected a string (this looks like a task of the RCS harness's own tasks file, before a model answered it: give agentgate the harness's results file, or records with the answers)`},
		{"number for a text", "t.jsonl", `{"id":"a","intent":"x","understanding":5,"action":"z"}`,
			`t.jsonl:1:40: task "a": field "understanding": expected a string, found a number`},
		{"null for a text", "t.jsonl", "\n" + `{"id":"a","intent":null,"understanding":"y","action":"z"}`,
			`t.jsonl:2:20: task "a": field "intent": expected a string, found null`},
		{"missing id", "t.jsonl", `{` + uaa + `}`,
			`t.jsonl:1:1: missing field "id" (or "task_id"): expected a string naming the task`},
		{"empty id", "t.jsonl", `{"id":"",` + uaa + `}`,
			`t.jsonl:1:7: field "id": expected a non-empty string, found ""`},
		{"bool id", "t.jsonl", `{"task_id":true,` + uaa + `}`,
			`t.jsonl:1:12: field "task_id": expected a string, found true`},
		{"ids disagree", "t.jsonl", `{"id":"a","task_id":"b",` + uaa + `}`,
			`t.jsonl:1:21: fields "id" ("a") and "task_id" ("b") disagree: give one id`},
		{"negative weight", "t.jsonl", `{"id":"a",` + uaa + `,"alpha":-1}`,
			`t.jsonl:1:65: task "a": field "alpha": expected a finite number >= 0, found -1`},
		{"infinite weight", "t.jsonl", `{"id":"a",` + uaa + `,"gamma":1e999}`,
			`t.jsonl:1:65: task "a": field "gamma": expected a finite number >= 0, found 1e999`},
		{"string weight", "t.jsonl", `{"id":"a",` + uaa + `,"beta":"0.5"}`,
			`t.jsonl:1:64: task "a": field "beta": expected a finite number >= 0, found a string`},
		{"null weight", "t.jsonl", `{"id":"a",` + uaa + `,"beta":null}`,
			`t.jsonl:1:64: task "a": field "beta": expected a finite number >= 0, found null`},
		{"unknown shape lists sorted keys", "t.jsonl", `{"zeta":1,"prompt":"p","alpha":1,"prompt":"q"}`,
			`t.jsonl:1:1: expected a task ("id" or "task_id", "intent", "understanding", "action") or an RCS harness results file ("model", "average_rcs", "results"), found keys "alpha", "prompt", "zeta"`},
		{"empty object", "t.json", ` {} `,
			`t.json:1:2: expected a task ("id" or "task_id", "intent", "understanding", "action") or an RCS harness results file ("model", "average_rcs", "results"), found an empty object`},
		{"array of numbers (layout by content: '[' starts an array, docs/design.md#file-layouts-and-formats)", "t.jsonl", `  [1, 2]`,
			`t.jsonl:1:4: expected a task object or an RCS harness results file, found a number`},
		{"string in an array", "t.json", "[\n\"task\"\n]",
			`t.json:2:1: expected a task object or an RCS harness results file, found a string`},
		{"invalid JSON line", "t.jsonl", `{"id":"a",}`,
			`t.jsonl:1:11: invalid JSON: expected a string key, found '}'`},
		{"results not an array", "h.jsonl", `{"model":"m","results":{}}`,
			`h.jsonl:1:24: field "results": expected an array of results, found an object`},
		{"results empty", "h.jsonl", `{"model":"m","results":[]}`,
			`h.jsonl:1:24: field "results": expected at least one result, found an empty array`},
		{"model not a string", "h.jsonl", `{"model":3,"results":[{"task_id":"a",` + uaa + `}]}`,
			`h.jsonl:1:10: field "model": expected a string, found a number`},
		{"result not an object", "h.json", "{\"model\": \"m\", \"results\": [\n  {\"task_id\": \"a\", " + uaa + "},\n  7\n]}",
			`h.json:3:3: results[1]: expected a result object, found a number`},
		{"result without an id", "h.json", "{\"model\": \"m\", \"results\": [\n  {\"task_id\": \"a\", " + uaa + "},\n  {" + uaa + "}\n]}",
			`h.json:3:3: results[1]: missing field "task_id" (or "id"): expected a string naming the task`},
		{"result with a bad text", "h.json", "{\"model\": \"m\", \"results\": [\n  {\"task_id\": \"a\",\n   \"intent\": [], \"understanding\": \"\", \"action\": \"\"}\n]}",
			`h.json:3:14: task "a": field "intent": expected a string, found an array`},
		{"empty file", "t.jsonl", "\n\n", `t.jsonl: no records: the file is empty`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := readAll(c.file, c.text)
			if err == nil {
				t.Fatalf("no error, want %s", c.want)
			}
			var ie *input.Error
			if !errors.As(err, &ie) {
				t.Errorf("error %T is not an *input.Error", err)
			}
			if err.Error() != c.want {
				t.Errorf("error\n%s\nwant\n%s", err, c.want)
			}
		})
	}
}

func TestEachCallbackErrorStops(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	err := EachReader("h.json", strings.NewReader(`{"results":[{"task_id":"a","intent":"","understanding":"","action":""},{"task_id":"b","intent":"","understanding":"","action":""}]}`),
		func(Task) error { n++; return stop })
	if err != stop || n != 1 {
		t.Errorf("err %v after %d tasks, want stop after 1", err, n)
	}
}

func TestEachUnknownShapeWithManyKeys(t *testing.T) {
	var keys, quoted []string
	for i := 21; i >= 0; i-- { // written in reverse: the message sorts them
		keys = append(keys, fmt.Sprintf(`"k%02d":0`, i))
	}
	for i := 0; i < 20; i++ {
		quoted = append(quoted, fmt.Sprintf(`"k%02d"`, i))
	}
	_, err := readAll("t.jsonl", "{"+strings.Join(keys, ",")+"}")
	want := `t.jsonl:1:1: expected a task ("id" or "task_id", "intent", "understanding", "action") or an RCS harness results file ("model", "average_rcs", "results"), found keys ` +
		strings.Join(quoted, ", ") + ", and 2 more"
	if err == nil || err.Error() != want {
		t.Errorf("error\n%v\nwant\n%s", err, want)
	}
}
