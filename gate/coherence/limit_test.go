package coherence

import (
	"fmt"
	"strings"
	"testing"
)

// TestTooManyMembers (issue 34, finding 3): an object of a task file holds at most maxMembers
// members, counted before any is kept; the one past it is an error at its value. On main a
// 32 MB task of "x":0 members took 1.2 GB, and an RCS harness file of {} results 2.2 GB
// before its first result was read.
func TestTooManyMembers(t *testing.T) {
	old := maxMembers
	maxMembers = 10
	t.Cleanup(func() { maxMembers = old })
	const task = `{"id":"a","intent":"x","understanding":"y","action":"z"` // four members
	extra := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, `,"m%d":0`, i)
		}
		return b.String()
	}
	harness := `{"model":"m","results":[{"task_id":"t1","intent":"x","understanding":"y","action":"z"},`
	for _, c := range []struct{ name, file, text, want string }{
		{"10 members", "t.jsonl", task + extra(6) + "}", ""},
		// the value of "m6" follows the task's four members and six of seven bytes
		{"11 members", "t.jsonl", task + extra(7) + "}",
			fmt.Sprintf("t.jsonl:1:%d: more than 10 members in one object, the most a task file's object may hold", len(task)+6*7+6+1)},
		{"a result of 11 members", "r.json", harness + `{"task_id":"t2","intent":"x","understanding":"y","action":"z"` + extra(7) + "}]}",
			fmt.Sprintf("r.json:1:%d: results[1]: more than 10 members in one object, the most a task file's object may hold",
				len(harness)+len(`{"task_id":"t2","intent":"x","understanding":"y","action":"z"`)+6*7+6+1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := readAll(c.file, c.text)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

// TestHarnessResultsStream: an RCS harness file's results are handed on one at a time, as they
// are read: a result at fault stops the read there, after the results before it were passed.
func TestHarnessResultsStream(t *testing.T) {
	text := `{"model":"m","results":[{"task_id":"t1","intent":"x","understanding":"y","action":"z"},{"task_id":"t2","intent":"x","understanding":"y","action":"z"},{}` +
		strings.Repeat(",{}", 1000) + "]}"
	tasks, err := readAll("r.json", text)
	if len(tasks) != 2 || tasks[1].ID != "t2" || err == nil || !strings.Contains(err.Error(), `results[2]: missing field "task_id"`) {
		t.Errorf("%d tasks, %v", len(tasks), err)
	}
}
