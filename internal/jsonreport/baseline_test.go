package jsonreport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/agentgate/agentgate/gate/compare"
	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/gate/outcome"
	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/verdict"
)

// onMain fills the source of a report written outside Actions, whose source is empty, as a
// report written on main by a workflow run would have it.
func onMain(t *testing.T, doc []byte) []byte {
	t.Helper()
	empty := []byte("  \"source\": {\n    \"sha\": \"\",\n    \"ref\": \"\",\n    \"run_id\": \"\",\n    \"run_attempt\": \"\",\n    \"version\": \"\"\n  },\n")
	if !bytes.Contains(doc, empty) {
		t.Fatal("the report's source is not empty")
	}
	src := "  \"source\": {\"sha\": \"1a2b3c4d5e6f\", \"ref\": \"refs/heads/main\", \"run_id\": \"42\", \"run_attempt\": \"1\", \"version\": \"v0.3.0\"},\n"
	return bytes.Replace(doc, empty, []byte(src), 1)
}

// TestReadBaselineFailJSON reads report/testdata/fail.json, the golden report (schema 3), as
// a baseline; and testdata/fail-schema2.json, the same report as agentgate wrote it in schema
// 2 (indented run records holding their zeros, the golden file before schema 3), to the same
// baseline: a report of the previous version is still compared with.
func TestReadBaselineFailJSON(t *testing.T) {
	doc, err := os.ReadFile("../../report/testdata/fail.json")
	if err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile("testdata/fail-schema2.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(doc, []byte("{\n  \"schema\": 3,\n")) || !bytes.HasPrefix(old, []byte("{\n  \"schema\": 2,\n")) || bytes.Contains(doc, []byte(`"hallucination":0,`)) || !bytes.Contains(old, []byte(`"hallucination": 0,`)) {
		t.Fatal("fail.json is not of schema 3 or fail-schema2.json not of schema 2")
	}
	b, err := ReadBaseline(bytes.NewReader(onMain(t, doc)), "fail.json")
	if err != nil {
		t.Fatal(err)
	}
	b2, err := ReadBaseline(bytes.NewReader(onMain(t, old)), "fail.json")
	if err != nil {
		t.Fatal(err)
	}
	// Only the lists the schema 2 report wrote empty, and schema 3 leaves out, differ.
	for _, tr := range [][]reliability.Result{b.Reliability.Traces, b2.Reliability.Traces} {
		for i := range tr {
			if len(tr[i].Evidence) == 0 {
				tr[i].Evidence = nil
			}
			for j := range tr[i].Evidence {
				if len(tr[i].Evidence[j].Messages) == 0 {
					tr[i].Evidence[j].Messages = nil
				}
			}
		}
	}
	if !reflect.DeepEqual(b, b2) {
		t.Errorf("schema 3 and schema 2 read differently:\n%+v\n%+v", b, b2)
	}
	if b.Name != "fail.json" || b.Profile != profile.Default {
		t.Errorf("name %q profile %q", b.Name, b.Profile)
	}
	if want := (compare.Source{SHA: "1a2b3c4d5e6f", Ref: "refs/heads/main", RunID: "42", RunAttempt: "1", Version: "v0.3.0"}); b.Source != want {
		t.Errorf("source %+v, want %+v", b.Source, want)
	}
	// Traces sorted by id; counts as in the file (7 PASS, 2 WARN, 3 FAIL).
	rel := b.Reliability
	if rel.Total != 12 || rel.Pass != 7 || rel.Warn != 2 || rel.Fail != 3 {
		t.Errorf("reliability counts %d/%d/%d/%d", rel.Total, rel.Pass, rel.Warn, rel.Fail)
	}
	var ids []string
	for _, tr := range rel.Traces {
		ids = append(ids, tr.ID)
	}
	wantIDs := "a|b`<img src=x>@octocat\nnext checkout-000 checkout-001 checkout-002 checkout-003 checkout-004 checkout-005 checkout-006 refund-003 refund-017 search-012 search-044"
	if got := strings.Join(ids, " "); got != wantIDs {
		t.Errorf("trace ids %q\nwant %q", got, wantIDs)
	}
	r017 := rel.Traces[9]
	want := reliability.Result{ID: "refund-017", File: "evals/refund.jsonl", Line: 17, Verdict: verdict.Fail, Score: 0.6925,
		Signals: reliability.Signals{reliability.Hallucination: 0.25, reliability.Loop: 1, reliability.ToolMisuse: 0.5, reliability.Cost: 0.7}, Run: outcome.Run{Tokens: -1}}
	ev := r017.Evidence
	r017.Evidence = nil
	if !reflect.DeepEqual(r017, want) {
		t.Errorf("refund-017 = %+v\nwant %+v", r017, want)
	}
	if len(ev) != 3 || ev[1].Signal != "tool_misuse" || ev[1].Text != "6 of 12 results of `search_orders` failed (50%)" ||
		len(ev[1].Messages) != 3 || ev[1].Messages[2] != 9 || len(ev[2].Messages) != 0 {
		t.Errorf("refund-017 evidence %+v", ev)
	}
	if len(b.Trials) != 0 {
		t.Errorf("trials %v, want none (no trace has a trial)", b.Trials)
	}
	coh := b.Coherence
	if coh.Total != 12 || len(coh.Tasks) != 12 || coh.Tasks[0].ID != "task-01" || coh.Tasks[3].RCS != 0 || coh.Tasks[5].RCS != 0.871 {
		t.Errorf("coherence %+v", coh)
	}
	a := b.Agreement
	if a.N != 100 || a.PercentAgreement != 0.92 || a.Kappa != 0.45652173913043476 || !a.KappaDefined || a.KappaSE != 0.16 {
		t.Errorf("agreement %+v", a)
	}
	if n := a.Finals.Len(); n != 13 {
		t.Fatalf("%d finals, want 13", n)
	}
	if q, f := a.Finals.At(1); q != "q-007" || f != "REJECT" {
		t.Errorf("finals[1] = %s %s, want q-007 REJECT", q, f)
	}
}

// TestReadBaselineTrials reads the task and trial of traces: a task as written (a number or a
// string), a trial as a whole number (2.0 and "1" too), null or absent as no trial; a trace
// without a task is not a trial of one. A trial that is not a whole number is an error.
func TestReadBaselineTrials(t *testing.T) {
	doc := `{"schema": 2, "profile": "default", "reliability": {"traces": [
 {"id": "a#0", "verdict": "PASS", "score": 0.1, "task": "a", "trial": 0},
 {"id": "a#1", "verdict": "FAIL", "score": 0.9, "task": "a", "trial": "1"},
 {"id": "b", "verdict": "WARN", "score": 0.5, "task": 7, "trial": 2.0},
 {"id": "c", "verdict": "PASS", "score": 0.1, "task": "c", "trial": null},
 {"id": "d", "verdict": "PASS", "score": 0.1, "trial": 3}
]}}`
	b, err := ReadBaseline(strings.NewReader(doc), "b.json")
	if err != nil {
		t.Fatal(err)
	}
	want := []compare.Trial{{Task: "a", Trial: "0", Verdict: verdict.Pass}, {Task: "a", Trial: "1", Verdict: verdict.Fail}, {Task: "7", Trial: "2", Verdict: verdict.Warn}}
	if len(b.Trials) != len(want) {
		t.Fatalf("trials %v, want %v", b.Trials, want)
	}
	for i := range want {
		if b.Trials[i] != want[i] {
			t.Errorf("trial %d = %v, want %v", i, b.Trials[i], want[i])
		}
	}
	if b.Coherence != nil || b.Agreement != nil {
		t.Error("sections that are absent must stay nil")
	}
}

// TestReadBaselineOutcomes reads each trace's outcome (docs/design.md#outcomes): the runs line up with the
// traces, a trace without one has none, and a trial with one carries it for pass^k.
func TestReadBaselineOutcomes(t *testing.T) {
	doc := `{"schema": 2, "profile": "default", "reliability": {"traces": [
 {"id": "a#0", "verdict": "PASS", "score": 0.1, "task": "a", "trial": 0},
 {"id": "a#1", "verdict": "FAIL", "score": 0.9, "task": "a", "trial": 1, "outcome": {"value": 1, "success": true, "tokens": 120}},
 {"id": "b", "verdict": "WARN", "score": 0.5, "outcome": {"value": 0.25, "success": false}}
]}, "outcomes": {"runs": 3, "known": 2, "successes": 1}}`
	b, err := ReadBaseline(strings.NewReader(doc), "b.json")
	if err != nil {
		t.Fatal(err)
	}
	want := []outcome.Run{{Tokens: -1}, {Known: true, Value: 1, Success: true, Decided: true, Tokens: 120}, {Known: true, Value: 0.25, Decided: true, Tokens: -1}}
	var got []outcome.Run
	for _, tr := range b.Reliability.Traces {
		got = append(got, tr.Run)
	}
	if !slices.Equal(got, want) {
		t.Errorf("runs %+v, want %+v", got, want)
	}
	wantTrials := []compare.Trial{{Task: "a", Trial: "0", Verdict: verdict.Pass}, {Task: "a", Trial: "1", Verdict: verdict.Fail, HasOutcome: true, Succeeded: true}}
	if !slices.Equal(b.Trials, wantTrials) {
		t.Errorf("trials %+v, want %+v", b.Trials, wantTrials)
	}
}

// noSeek hides bytes.Reader's Seek, as an artifact's zip entry has none.
type noSeek struct{ r io.Reader }

func (n noSeek) Read(p []byte) (int, error) { return n.r.Read(p) }

// TestReadBaselineUnusable: a well-formed report of another version is nothing to compare
// with, a note (docs/design.md#comparison), not an error.
func TestReadBaselineUnusable(t *testing.T) {
	for _, c := range []struct{ name, doc, want string }{
		{"older, no schema", `{"verdict": "PASS", "profile": "default", "exit_code": 0, "gates": []}`, `baseline b.json has no "schema": it was written by an agentgate older than schema 2`},
		{"schema 1", `{"schema": 1, "profile": "default"}`, `baseline b.json has schema 1, this agentgate reads schema 2 and 3`},
		{"schema 4", `{"schema": 4, "profile": "default"}`, `baseline b.json has schema 4, this agentgate reads schema 2 and 3`},
		{"schema 99, other layout", `{"schema": 99, "reliability": [1, 2]}`, `baseline b.json has schema 99, this agentgate reads schema 2 and 3`},
		{"schema 1e3", `{"schema": 1e3}`, `baseline b.json has schema 1000, this agentgate reads schema 2 and 3`},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := ReadBaseline(strings.NewReader(c.doc), "b.json")
			var u *compare.Unusable
			if !errors.As(err, &u) {
				t.Fatalf("got %v, %v; want an *compare.Unusable", b, err)
			}
			if u.Reason != c.want {
				t.Errorf("reason\n%s\nwant\n%s", u.Reason, c.want)
			}
		})
	}
}

// TestReadBaselineNotAReport: content that is no agentgate report of schema 2 is an
// *input.Error placed at the value at fault (docs/design.md#honest-words: an explicit path must not switch the
// regression gates off by holding something else).
func TestReadBaselineNotAReport(t *testing.T) {
	traces, err := os.ReadFile("../../fixtures/pass/traces.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, doc, want string
		seek            bool
	}{
		{"traces file", string(traces), `b.json:1:1: not an agentgate JSON report: expected an object with "schema"; this looks like a traces file: pass it with --traces`, true},
		{"empty object", `{}`, `b.json:1:1: not an agentgate JSON report: expected an object with "schema"`, true},
		{"verdict only", `{"verdict": "PASS"}`, `b.json:1:1: not an agentgate JSON report: expected an object with "schema"`, true},
		{"schema string", `{"schema": "2"}`, `b.json:1:12: not an agentgate JSON report: field "schema": expected a number, found a string`, true},
		{"schema 2.5", `{"schema": 2.5, "profile": "default"}`, `b.json:1:12: not an agentgate JSON report: "schema" must be a whole number, got "2.5"`, true},
		{"schema -1", `{"schema": -1}`, `b.json:1:12: not an agentgate JSON report: "schema" must be a whole number, got "-1"`, true},
		{"schema 1e999", `{"schema": 1e999}`, `b.json:1:12: not an agentgate JSON report: "schema" must be a whole number, got "1e999"`, true},
		{"no profile", "\n {\"schema\": 2}", `b.json:2:2: not an agentgate JSON report: it has no "profile"`, true},
		{"empty", ``, `b.json:1:1: not an agentgate JSON report: the file holds no JSON value (expected an object with "schema")`, true},
		{"blank", "\n\n  ", `b.json:3:3: not an agentgate JSON report: the file holds no JSON value (expected an object with "schema")`, true},
		{"not an object", `[1]`, `b.json:1:1: not an agentgate JSON report: expected an object with "schema", found an array`, true},
		{"a word", `hello`, `b.json:1:1: not an agentgate JSON report: not valid JSON: expected a value, found 'h'`, true},
		{"not JSON", "{\"schema\": 2,\n  \"profile\": x}", `b.json:2:14: not an agentgate JSON report: not valid JSON: expected a value, found 'x'`, true},
		{"not JSON, no seek", "{\"schema\": 2,\n  \"profile\": x}", `b.json:2:14: not an agentgate JSON report: not valid JSON: expected a value, found 'x'`, false},
		{"cut short", `{"schema": 2, "profile": "default", "reliability": {"traces": [`, `b.json:1:64: not an agentgate JSON report: not valid JSON: unexpected end of input, expected a value`, true},
		{"two reports", `{"schema": 2, "profile": "default"} {}`, `b.json:1:37: not an agentgate JSON report: not valid JSON: unexpected '{' after the value`, true},
		{"traces not a list", `{"schema": 2, "profile": "default", "reliability": {"traces": {}}}`, `b.json:1:63: not an agentgate JSON report: reliability.traces must be an array`, true},
		{"bad verdict", "{\"schema\": 2, \"profile\": \"default\", \"reliability\": {\"traces\": [\n {\"id\": \"x\", \"verdict\": \"OK\", \"score\": 1}]}}",
			`b.json:2:2: not an agentgate JSON report: reliability.traces[0]: verdict must be PASS, WARN or FAIL, got "OK"`, true},
		{"no score", `{"schema": 2, "profile": "default", "reliability": {"traces": [{"id": "x", "verdict": "PASS"}]}}`,
			`b.json:1:64: not an agentgate JSON report: reliability.traces[0]: no "score"`, true},
		{"score a string", `{"schema": 2, "profile": "default", "reliability": {"traces": [{"id": "x", "verdict": "PASS", "score": "1"}]}}`,
			`b.json:1:104: not an agentgate JSON report: field "reliability.traces[0].score": expected a number, found a string`, true},
		{"trial an object", `{"schema": 2, "profile": "default", "reliability": {"traces": [{"id": "x", "verdict": "PASS", "score": 1, "task": "t", "trial": {}}]}}`,
			`b.json:1:64: not an agentgate JSON report: reliability.traces[0]: trial must be a string or a number`, true},
		{"trial not whole", `{"schema": 2, "profile": "default", "reliability": {"traces": [{"id": "x", "verdict": "PASS", "score": 1, "task": "t", "trial": 1.5}]}}`,
			`b.json:1:64: not an agentgate JSON report: reliability.traces[0]: trial must be a whole number, got 1.5`, true},
		{"suite_cost tokens 0", `{"schema": 2, "profile": "default", "reliability": {"traces": [{"id": "x", "verdict": "PASS", "score": 1, "suite_cost": {"tokens": 0}}]}}`,
			`b.json:1:64: not an agentgate JSON report: reliability.traces[0]: suite_cost.tokens must be 1 or more, got 0`, true},
		{"suite_cost relative 2", `{"schema": 2, "profile": "default", "reliability": {"traces": [{"id": "x", "verdict": "PASS", "score": 1, "suite_cost": {"tokens": 5, "relative": 2}}]}}`,
			`b.json:1:64: not an agentgate JSON report: reliability.traces[0]: suite_cost.relative and suite_cost.alone must be between 0 and 1`, true},
		{"suite_cost alone verdict", `{"schema": 2, "profile": "default", "reliability": {"traces": [{"id": "x", "verdict": "PASS", "score": 1, "suite_cost": {"tokens": 5, "relative": 0.5}}]}}`,
			`b.json:1:64: not an agentgate JSON report: reliability.traces[0]: suite_cost.alone_verdict must be PASS, WARN or FAIL, got ""`, true},
		{"duplicate trace", "{\"schema\": 2, \"profile\": \"default\", \"reliability\": {\"traces\": [\n{\"id\": \"y\", \"verdict\": \"PASS\", \"score\": 1},\n{\"id\": \"x\", \"verdict\": \"PASS\", \"score\": 1},\n {\"id\": \"x\", \"verdict\": \"FAIL\", \"score\": 1}]}}",
			`b.json:4:2: not an agentgate JSON report: reliability.traces[2]: id "x" occurs twice (first in reliability.traces[1])`, true},
		{"duplicate task", `{"schema": 2, "profile": "default", "coherence": {"tasks": [{"id": "t", "rcs": 1}, {"id": "t", "rcs": 0}]}}`,
			`b.json:1:84: not an agentgate JSON report: coherence.tasks[1]: id "t" occurs twice (first in coherence.tasks[0])`, true},
		{"no rcs", `{"schema": 2, "profile": "default", "coherence": {"tasks": [{"id": "t"}]}}`,
			`b.json:1:61: not an agentgate JSON report: coherence.tasks[0]: no "rcs"`, true},
		{"duplicate qid", `{"schema": 2, "profile": "default", "agreement": {"n": 2, "percent_agreement": 1, "kappa": 0, "kappa_defined": false, "kappa_se": 0, "items": [{"qid": "q", "final": "VALID"}, {"qid": "q", "final": "REJECT"}]}}`,
			`b.json:1:176: not an agentgate JSON report: agreement.items[1]: qid "q" occurs twice (first in agreement.items[0])`, true},
		{"n a string", `{"schema": 2, "profile": "default", "agreement": {"n": "2"}}`,
			`b.json:1:56: not an agentgate JSON report: field "agreement.n": expected an integer, found a string`, true},
		{"signals a list", "{\"schema\": 2, \"profile\": \"default\", \"reliability\": {\"traces\": [\n  {\"id\": \"é\", \"verdict\": \"PASS\", \"score\": 1, \"signals\": []}]}}",
			`b.json:2:57: not an agentgate JSON report: field "reliability.traces[0].signals": expected an object, found an array`, true},
		{"no kappa_se", `{"schema": 2, "profile": "default", "agreement": {"n": 2, "percent_agreement": 1, "kappa": 0, "kappa_defined": false, "items": []}}`,
			`b.json:1:50: not an agentgate JSON report: agreement has no "kappa_se"`, true},
		{"too deep", `{"schema": 2, "profile": "default", "x": ` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`,
			`b.json:1:10041: not an agentgate JSON report: not valid JSON: nesting deeper than 10000 levels`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var r io.Reader = strings.NewReader(c.doc)
			if !c.seek {
				r = noSeek{r}
			}
			b, err := ReadBaseline(r, "b.json")
			var ie *input.Error
			if !errors.As(err, &ie) {
				t.Fatalf("got %v, %T %v; want an *input.Error", b, err, err)
			}
			if err.Error() != c.want {
				t.Errorf("error\n%s\nwant\n%s", err, c.want)
			}
		})
	}
}

// TestReadBaselineSHA: a source.sha that is not a commit (7 to 64 hex digits) is dropped, as
// if unknown: it reaches the baseline-sha output and the report's header, and a value holding
// the runner's file-command delimiter would take every other output with it.
func TestReadBaselineSHA(t *testing.T) {
	for _, c := range []struct{ sha, want string }{
		{"1a2b3c4", "1a2b3c4"},
		{"1A2B3C4D5E6F", "1A2B3C4D5E6F"},
		{strings.Repeat("ab", 32), strings.Repeat("ab", 32)},
		{strings.Repeat("a", 65), ""},
		{"1a2b3c", ""},
		{"", ""},
		{"main", ""},
		{"abc\n_GitHubActionsFileCommandDelimeter_\nverdict<<X\nPASS\nX", ""},
		{"1a2b3c4 ", ""},
	} {
		doc, _ := json.Marshal(map[string]any{"schema": 2, "profile": "default", "source": map[string]string{"sha": c.sha, "ref": "refs/heads/main"}})
		b, err := ReadBaseline(bytes.NewReader(doc), "b.json")
		if err != nil {
			t.Fatalf("%q: %v", c.sha, err)
		}
		if b.Source.SHA != c.want || b.Source.Ref != "refs/heads/main" {
			t.Errorf("sha %q: read %+v, want sha %q", c.sha, b.Source, c.want)
		}
	}
}

func TestReadBaselineTooLarge(t *testing.T) {
	defer func(n int64) { maxBaselineSize = n }(maxBaselineSize)
	maxBaselineSize = 40
	doc := `{"schema": 2, "profile": "default", "x": 1}` // 43 bytes
	_, err := ReadBaseline(strings.NewReader(doc), "b.json")
	var ie *input.Error
	if !errors.As(err, &ie) || err.Error() != "b.json: not read: a baseline report holds at most 40 bytes" {
		t.Errorf("got %v", err)
	}
	maxBaselineSize = 43
	if _, err := ReadBaseline(strings.NewReader(doc), "b.json"); err != nil {
		t.Errorf("exactly at the limit: %v", err)
	}
}

// TestReadBaselineFile: a file is opened as every input is: a FIFO with no writer, a device
// and a directory are refused at once, and a file over the limit by its size, before any of
// it is read (a sparse file of 1 GiB and one byte: reading it would take seconds and a GiB).
func TestReadBaselineFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "ff.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	huge := filepath.Join(dir, "huge.json")
	if err := os.WriteFile(huge, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, MaxBaselineSize+1); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{fifo, fifo + ": not a regular file (a FIFO): inputs must be regular files"},
		{"/dev/zero", "/dev/zero: not a regular file (a character device): inputs must be regular files"},
		{dir, dir + ": not a regular file (a directory): inputs must be regular files"},
		{filepath.Join(dir, "missing.json"), filepath.Join(dir, "missing.json") + ": cannot open: no such file or directory"},
		{huge, huge + ": not read: a baseline report holds at most 1073741824 bytes"},
	} {
		// refused by kind or size before a byte is read (the error says which): a read of the
		// FIFO would block and one of /dev/zero run on, until go test's timeout
		_, err := ReadBaselineFile(c.path)
		var ie *input.Error
		if !errors.As(err, &ie) || err.Error() != c.want {
			t.Errorf("%s: got %T %v\nwant %s", c.path, err, err, c.want)
		}
	}
	doc, err := os.ReadFile("../../report/testdata/fail.json")
	if err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "fail.json")
	if err := os.WriteFile(good, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := ReadBaselineFile(good)
	if err != nil || b.Name != good || b.Reliability.Total != 12 {
		t.Errorf("a report: %v, %v", b, err)
	}
}

// errReader fails after its text.
type errReader struct{ r io.Reader }

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.EOF {
		return n, errors.New("disk on fire")
	}
	return n, err
}

// TestReadBaselineIOError: an I/O error is an error of the run, not an unusable baseline.
func TestReadBaselineIOError(t *testing.T) {
	_, err := ReadBaseline(&errReader{strings.NewReader(`{"schema": 2,`)}, "b.json")
	var u *compare.Unusable
	if err == nil || errors.As(err, &u) || err.Error() != "reading baseline b.json: disk on fire" {
		t.Errorf("got %v", err)
	}
}

// TestReadBaselineOutcomeTravelsWithTrace: the traces are sorted by id ("10#10" before
// "2#2"), and each keeps its own outcome, task and trial: they are one record (docs/design.md#run-identity), not
// lists paired by position, which once left every outcome of such a suite on another trace.
func TestReadBaselineOutcomeTravelsWithTrace(t *testing.T) {
	doc := `{"schema": 2, "profile": "default", "reliability": {"traces": [
 {"id": "2#2", "verdict": "PASS", "score": 0.1, "suite": "airline", "task": "2", "trial": 2, "outcome": {"value": 0, "success": false}},
 {"id": "10#10", "verdict": "PASS", "score": 0.1, "task": "10", "trial": 10, "outcome": {"value": 1, "success": true}},
 {"id": "1#0", "verdict": "PASS", "score": 0.1}
]}}`
	b, err := ReadBaseline(strings.NewReader(doc), "b.json")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tr := range b.Reliability.Traces {
		s := fmt.Sprintf("%s known=%v success=%v", tr.ID, tr.Run.Known, tr.Run.Success)
		if a := tr.Attempt; a != nil {
			s += fmt.Sprintf(" %s/%s/%d", a.Suite, a.Task, *a.Trial)
		}
		got = append(got, s)
	}
	want := []string{"1#0 known=false success=false", "10#10 known=true success=true /10/10", "2#2 known=true success=false airline/2/2"}
	if !slices.Equal(got, want) {
		t.Errorf("traces\n%q\nwant\n%q", got, want)
	}
}
