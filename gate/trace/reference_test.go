package trace

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/internal/refdata"
)

// referenceData returns the shared reference data directory, or skips the test where it is
// absent (a fresh clone without the shared checkout beside it); under CI=true, where it is
// always beside the clone, its absence fails the test.
func referenceData(t *testing.T) string {
	t.Helper()
	return filepath.Dir(refdata.Path(t, "README.md"))
}

type counts struct {
	id                              string
	messages, calls, results, fails int
}

func countTrace(tr *Trace) counts {
	c := counts{id: tr.ID, messages: len(tr.Messages)}
	for _, m := range tr.Messages {
		c.calls += len(m.Calls)
		c.results += len(m.Results)
		for _, r := range m.Results {
			if !r.Success {
				c.fails++
			}
		}
	}
	return c
}

func readAll(t *testing.T, path string) []*Trace {
	t.Helper()
	var out []*Trace
	if err := Each(path, func(tr *Trace) error { out = append(out, tr); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTauBench reads the ten real tau-bench airline trajectories. The expected figures were
// counted from the file with python3 (json.load): len(traj); tool_calls over all messages;
// role "tool" messages; tool messages whose content, left-stripped, starts with "error" in
// any case (none is a JSON object with an "error" key).
func TestTauBench(t *testing.T) {
	p := filepath.Join(referenceData(t), "transcripts", "tau-bench-airline-sample.json")
	want := []counts{
		{"0#0", 32, 8, 8, 1},
		{"0#2", 24, 6, 6, 1},
		{"0#3", 46, 13, 13, 4},
		{"3#0", 62, 20, 20, 5},
		{"3#1", 48, 14, 14, 1},
		{"3#2", 36, 11, 11, 1},
		{"3#3", 40, 13, 13, 1},
		{"4#2", 42, 10, 10, 1},
		{"8#1", 44, 16, 16, 3},
		{"9#2", 62, 23, 23, 5},
	}
	got := readAll(t, p)
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i, tr := range got {
		if c := countTrace(tr); c != want[i] {
			t.Errorf("record %d: %+v, want %+v", i, c, want[i])
		}
		if tr.Shape != ShapeOpenAI || tr.Usage.Recorded {
			t.Errorf("record %d: shape %q usage %+v, want openai with no usage", i, tr.Shape, tr.Usage)
		}
		for _, m := range tr.Messages {
			for _, c := range m.Calls {
				if !c.ArgsValid || !c.HasID {
					t.Errorf("record %d: call %+v: every call in the file has an id and valid arguments", i, c)
				}
			}
		}
	}

	// Facts of record 0#0 read off the file: call ids repeat (messages 8 and 12 both use
	// call_HGn16KZh9oNCruxsMJ4gYXan, messages 6 and 16 call_oIHazX6yQrB8hUwl4cRilFKj), the
	// assistant messages that call tools have null content, and the failure is message 21.
	tr := got[0]
	m := tr.Messages
	if m[8].Calls[0].ID != "call_HGn16KZh9oNCruxsMJ4gYXan" || m[12].Calls[0].ID != m[8].Calls[0].ID ||
		m[8].Calls[0].Tool != "search_direct_flight" || m[12].Calls[0].Tool != "search_onestop_flight" {
		t.Errorf("repeated ids not kept: %s / %s", dumpMsg(m[8]), dumpMsg(m[12]))
	}
	if m[6].Calls[0].ID != "call_oIHazX6yQrB8hUwl4cRilFKj" || m[16].Calls[0].ID != m[6].Calls[0].ID {
		t.Errorf("repeated ids not kept: %s / %s", dumpMsg(m[6]), dumpMsg(m[16]))
	}
	if m[6].Role != "assistant" || m[6].Content != "" {
		t.Errorf("null content: %s", dumpMsg(m[6]))
	}
	r := m[21].Results
	if len(r) != 1 || r[0].Success || r[0].CallID != "call_To6jjkKrBKVnDV0OhCSBvoMz" || !strings.HasPrefix(r[0].Content, "Error: payment amount does not add up") {
		t.Errorf("message 21: %s", dumpMsg(m[21]))
	}
	if r := m[23].Results; len(r) != 1 || !r[0].Success || r[0].Content != "" { // the think tool answers ""
		t.Errorf("message 23: %s", dumpMsg(m[23]))
	}
}

// TestSWEAgent reads the real SWE-agent trajectory: 12 history messages, 5 function calls
// (find_file, open, edit, bash, submit), each answered by one tool message listing its id in
// tool_call_ids, none of them an error (counted with python3).
func TestSWEAgent(t *testing.T) {
	p := filepath.Join(referenceData(t), "transcripts", "swe-agent-function_calling_simple.traj")
	got := readAll(t, p)
	if len(got) != 1 {
		t.Fatalf("%d records, want 1", len(got))
	}
	tr := got[0]
	if c := countTrace(tr); c != (counts{p + ":1", 12, 5, 5, 0}) {
		t.Errorf("counts %+v", c)
	}
	if tr.Shape != ShapeOpenAI {
		t.Errorf("shape %q", tr.Shape)
	}
	var tools, callIDs, resultIDs []string
	for _, m := range tr.Messages {
		for _, c := range m.Calls {
			tools = append(tools, c.Tool)
			callIDs = append(callIDs, c.ID)
		}
		for _, r := range m.Results {
			resultIDs = append(resultIDs, r.CallID)
		}
	}
	if strings.Join(tools, ",") != "find_file,open,edit,bash,submit" {
		t.Errorf("tools %v", tools)
	}
	if strings.Join(callIDs, ",") != strings.Join(resultIDs, ",") {
		t.Errorf("call ids %v, result ids %v", callIDs, resultIDs)
	}
	if a := tr.Messages[2].Calls[0]; a.ID != "call_PbWErNIge3YTrli3fiVvmIid" || string(a.Args) != `{"file_name":"missing_colon.py"}` || !a.ArgsValid {
		t.Errorf("first call %+v", a)
	}
}

// TestRS1Samples reads the two sample traces shipped with RS-1 (figures counted with python3).
func TestRS1Samples(t *testing.T) {
	dir := filepath.Join(referenceData(t), "rs1")
	cases := []struct {
		file  string
		want  counts
		usage Usage
	}{
		{"sample_trace.json", counts{"sample-execution-001", 6, 2, 2, 0}, Usage{450, 280, 730, true}},
		{"sample_trace_problematic.json", counts{"problematic-execution-002", 5, 5, 3, 2}, Usage{5000, 3000, 8000, true}},
	}
	for _, c := range cases {
		got := readAll(t, filepath.Join(dir, c.file))
		if len(got) != 1 {
			t.Fatalf("%s: %d records", c.file, len(got))
		}
		if n := countTrace(got[0]); n != c.want || got[0].Usage != c.usage || got[0].Shape != ShapeRS1 {
			t.Errorf("%s: %+v %+v %q, want %+v %+v rs1", c.file, n, got[0].Usage, got[0].Shape, c.want, c.usage)
		}
	}
}

// TestDocExamples decodes the example records of docs/trace-formats.md, three records and then
// an OTLP export, an Inspect log, a tau2-bench file, a mini-swe-agent trajectory, an OpenHands
// output line, an AgentDojo result, LangSmith and Langfuse exports, an OpenAI Agents SDK export
// and an OpenHands resolver output line: the calls, failures and usage written in each.
func TestDocExamples(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "..", "docs", "trace-formats.md"))
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	for _, part := range strings.Split(string(text), "```json\n")[1:] {
		blocks = append(blocks, part[:strings.Index(part, "\n```")+1]) // a fence closes at a line's start
	}
	want := []struct {
		id    string
		shape Shape
		usage Usage
	}{
		{"checkout-17", ShapeRS1, Usage{450, 280, 730, true}},
		{"refund-3", ShapeOpenAI, Usage{812, 19, 831, true}},
		{"weather-1", ShapeAnthropic, Usage{1520, 64, 1584, true}},
	}
	if len(blocks) != len(want)+10 {
		t.Fatalf("%d json examples, want %d", len(blocks), len(want)+10)
	}
	// the last two: an OTLP export and an Inspect log, each with one failed tool call
	otlp, err := ReadOTLP("trace-formats.md", []byte(blocks[3]))
	if err != nil || len(otlp) != 1 {
		t.Fatalf("OTLP example: %d traces, %v", len(otlp), err)
	}
	var inspect []*Trace
	if err := eachInspectJSON(context.Background(), "trace-formats.md", []byte(blocks[4]), Options{}, func(tr *Trace) error {
		inspect = append(inspect, tr)
		return nil
	}); err != nil || len(inspect) != 1 {
		t.Fatalf("Inspect example: %d traces, %v", len(inspect), err)
	}
	// then a tau2-bench results file and a mini-swe-agent trajectory
	var tau2 []*Trace
	if err := eachTau2(context.Background(), "trace-formats.md", []byte(blocks[5]), func(tr *Trace) error {
		tau2 = append(tau2, tr)
		return nil
	}); err != nil || len(tau2) != 1 {
		t.Fatalf("tau2 example: %d traces, %v", len(tau2), err)
	}
	if o := tau2[0].Outcome; o != (Outcome{Known: true, Value: 0, Source: "reward_info.reward"}) {
		t.Errorf("tau2 example: outcome %+v", o)
	}
	mini, err := Decode(input.Record{File: "trace-formats.md", Line: 1, Col: 1, Data: []byte(blocks[6])})
	if err != nil {
		t.Fatalf("mini-swe-agent example: %v", err)
	}
	// then an OpenHands output.jsonl line (written on several lines in the docs) and an
	// AgentDojo result
	oh, err := decodeOpenHands(input.Record{File: "trace-formats.md", Line: 1, Col: 1, Data: []byte(blocks[7])})
	if err != nil {
		t.Fatalf("OpenHands example: %v", err)
	}
	if o := oh.Outcome; o != (Outcome{Known: true, Value: 0, IsBool: true, Source: "report.resolved"}) {
		t.Errorf("OpenHands example: outcome %+v", o)
	}
	dojo, err := decodeAgentDojo(input.Record{File: "trace-formats.md", Line: 1, Col: 1, Data: []byte(blocks[8])})
	if err != nil {
		t.Fatalf("AgentDojo example: %v", err)
	}
	if o := dojo.Outcome; o != (Outcome{Known: true, Value: 0, IsBool: true, Source: "utility"}) {
		t.Errorf("AgentDojo example: outcome %+v", o)
	}
	// then a LangSmith run tree, its correctness feedback the outcome
	var smith []*Trace
	records := func(each func(input.Record) error) error {
		return input.EachReader("trace-formats.md", strings.NewReader(blocks[9]), each)
	}
	if err := eachLangSmith(context.Background(), records, Options{OutcomeScorer: "correctness"}, func(tr *Trace) error {
		smith = append(smith, tr)
		return nil
	}); err != nil || len(smith) != 1 {
		t.Fatalf("LangSmith example: %d traces, %v", len(smith), err)
	}
	if o := smith[0].Outcome; o != (Outcome{Known: true, Value: 0, Source: "feedback.correctness"}) || smith[0].Task != "ex-12" {
		t.Errorf("LangSmith example: task %q outcome %+v", smith[0].Task, o)
	}
	// and a Langfuse trace, its correctness score the outcome
	var fuse []*Trace
	records = func(each func(input.Record) error) error {
		return input.EachReader("trace-formats.md", strings.NewReader(blocks[10]), each)
	}
	if err := eachLangfuse(context.Background(), records, Options{OutcomeScorer: "correctness"}, func(tr *Trace) error {
		fuse = append(fuse, tr)
		return nil
	}); err != nil || len(fuse) != 1 {
		t.Fatalf("Langfuse example: %d traces, %v", len(fuse), err)
	}
	if o := fuse[0].Outcome; o != (Outcome{Known: true, Value: 0, Source: "scores.correctness"}) || fuse[0].Task != "item-12" {
		t.Errorf("Langfuse example: task %q outcome %+v", fuse[0].Task, o)
	}
	// then an OpenAI Agents SDK export, a processor's lines
	var agents []*Trace
	if err := eachOpenAIAgents(context.Background(), "trace-formats.md", []byte(blocks[11]), func(tr *Trace) error {
		agents = append(agents, tr)
		return nil
	}); err != nil || len(agents) != 1 || agents[0].Task != "paris" {
		t.Fatalf("OpenAI Agents SDK example: %d traces, %v", len(agents), err)
	}
	// and an OpenHands resolver output line
	resolver, err := decodeResolverOutput(input.Record{File: "trace-formats.md", Line: 1, Col: 1, Data: []byte(blocks[12])})
	if err != nil {
		t.Fatalf("OpenHands resolver example: %v", err)
	}
	if o := resolver.Outcome; o != (Outcome{Known: true, Value: 1, IsBool: true, Source: "success"}) || resolver.Task != "acme/widgets/issue/12" {
		t.Errorf("OpenHands resolver example: task %q outcome %+v", resolver.Task, o)
	}
	for i, c := range []struct {
		tr    *Trace
		want  counts
		usage Usage
	}{
		{otlp[0], counts{"5b8efff798038103d269b633813fc60c", 3, 1, 1, 1}, Usage{100, 20, 120, true}},
		{inspect[0], counts{"s1#1", 4, 1, 1, 1}, Usage{120, 30, 150, true}},
		// the user's usage is the simulator's: only the assistant's counts
		{tau2[0], counts{"4f0c2a52", 4, 1, 1, 1}, Usage{1650, 30, 1680, true}},
		// the test command failed; the submission answered the second
		{mini, counts{"django__django-11133", 6, 2, 2, 1}, Usage{3100, 70, 3170, true}},
		// a command that succeeded; the usage summed over the run's calls
		{oh, counts{"django__django-11099", 2, 1, 1, 0}, Usage{17000, 300, 17300, true}},
		// a read that failed; AgentDojo records no usage
		{dojo, counts{"gpt-4o-2024-05-13/banking/user_task_0", 3, 1, 1, 1}, Usage{}},
		// the tool run that raised is the failed result of the model's call
		{smith[0], counts{"7f1c", 3, 1, 1, 1}, Usage{100, 20, 120, true}},
		// the ERROR tool observation fails the generation's call
		{fuse[0], counts{"t-17", 3, 1, 1, 1}, Usage{100, 20, 120, true}},
		// the function span's error is the failed result of the model's call
		{agents[0], counts{"trace_1", 3, 1, 1, 1}, Usage{50, 10, 60, true}},
		// the test run exited 1; finish is no call; cache tokens are not added
		{resolver, counts{"acme/widgets/issue/12", 4, 1, 1, 1}, Usage{9000, 120, 9120, true}},
	} {
		if got := countTrace(c.tr); got != c.want || c.tr.Usage != c.usage {
			t.Errorf("example %d: %+v %+v, want %+v %+v", i+3, got, c.tr.Usage, c.want, c.usage)
		}
	}
	for i, b := range blocks[:len(want)] {
		tr, err := Decode(input.Record{File: "trace-formats.md", Line: 1, Col: 1, Data: []byte(b)})
		if err != nil {
			t.Fatalf("example %d: %v", i, err)
		}
		c := countTrace(tr)
		if tr.ID != want[i].id || tr.Shape != want[i].shape || tr.Usage != want[i].usage || c.calls != 1 || c.results != 1 || c.fails != 1 {
			t.Errorf("example %d: %q %q %+v %+v", i, tr.ID, tr.Shape, tr.Usage, c)
		}
	}
}

// TestTauBenchTrials checks the task and trial of the ten real tau-bench records, as
// python3 listed them from the file: (task_id, trial) per record.
func TestTauBenchTrials(t *testing.T) {
	p := filepath.Join(referenceData(t), "transcripts", "tau-bench-airline-sample.json")
	want := [][2]int{{0, 0}, {0, 2}, {0, 3}, {3, 0}, {3, 1}, {3, 2}, {3, 3}, {4, 2}, {8, 1}, {9, 2}}
	got := readAll(t, p)
	if len(got) != len(want) {
		t.Fatalf("%d traces, want %d", len(got), len(want))
	}
	for i, tr := range got {
		if tr.Task != strconv.Itoa(want[i][0]) || tr.Trial != want[i][1] || !tr.HasTrial {
			t.Errorf("trace %d: task %q trial %d (%v), want %d %d", i, tr.Task, tr.Trial, tr.HasTrial, want[i][0], want[i][1])
		}
	}
}
