package entrypoint

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/agentgate/agentgate/report"
	"github.com/agentgate/agentgate/test/ghemu"
)

// sarifResults validates a SARIF file against the SARIF 2.1.0 schema kept in report/testdata
// and returns each result as "ruleId level[ baselineState]".
func sarifResults(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open("../report/testdata/sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	schemaDoc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(report.SARIFSchema, schemaDoc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(report.SARIFSchema)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("%s is not valid SARIF 2.1.0: %v", path, err)
	}
	var doc struct {
		Runs []struct {
			Results []struct {
				RuleID, Level, BaselineState string
			}
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range doc.Runs[0].Results {
		out = append(out, strings.TrimSpace(r.RuleID+" "+r.Level+" "+r.BaselineState))
	}
	return out
}

// otelLabels decodes an OTLP/JSON logs file with the collector's unmarshaler, line by line,
// and returns each event's evaluation name and label.
func otelLabels(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var u plog.JSONUnmarshaler
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		logs, err := u.UnmarshalLogs(sc.Bytes())
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		recs := logs.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords()
		for i := 0; i < recs.Len(); i++ {
			a := recs.At(i).Attributes()
			name, _ := a.Get("gen_ai.evaluation.name")
			label, ok := a.Get("gen_ai.evaluation.score.label")
			s := name.Str()
			if ok {
				s += " " + label.Str()
			}
			out = append(out, s)
		}
	}
	return out
}

// fixtures/fail: 5 breached gates, then the findings of its 2 FAIL traces (a loop with tool
// misuse, and a hallucination) and of its WARN trace (cost).
var failSARIF = []string{
	"agentgate/gate/coherence-min error", "agentgate/gate/pa-min error", "agentgate/gate/kappa-min error",
	"agentgate/gate/abstain-max error", "agentgate/gate/max-failed-traces error",
	"agentgate/loop error", "agentgate/tool_misuse error", "agentgate/hallucination error", "agentgate/cost warning",
}

// fixtures/fail's 3 traces and 3 tasks as events.
var failOTel = []string{
	"agentgate.reliability fail", "agentgate.reliability fail", "agentgate.reliability warn",
	"agentgate.coherence", "agentgate.coherence", "agentgate.coherence",
}

// --sarif and --otel, the config keys and the action inputs of the same names all write their
// files, beside the JSON report, in one run.
func TestSARIFAndOTelFlagConfigAndInput(t *testing.T) {
	dir := t.TempDir()
	sarif, otel := filepath.Join(dir, "out", "agentgate.sarif"), filepath.Join(dir, "out", "otel.jsonl")
	code, _, stderr := cli(t, "", "gate", "--traces", "../fixtures/fail/traces.jsonl", "--tasks", "../fixtures/fail/tasks.json",
		"--pairs", "../fixtures/fail/pairs.jsonl", "--sarif", sarif, "--otel", otel, "--json", filepath.Join(dir, "base.json"))
	if code != 2 {
		t.Fatalf("exit %d, want 2; stderr %s", code, stderr)
	}
	if got := sarifResults(t, sarif); !slices.Equal(got, failSARIF) {
		t.Errorf("--sarif results %q\nwant %q", got, failSARIF)
	}
	if got := otelLabels(t, otel); !slices.Equal(got, failOTel) {
		t.Errorf("--otel events %q\nwant %q", got, failOTel)
	}

	// Compared with a report of the same run, every finding is unchanged.
	code, _, stderr = cli(t, "", "gate", "--traces", "../fixtures/fail/traces.jsonl", "--baseline", filepath.Join(dir, "base.json"), "--sarif", sarif)
	if code != 2 {
		t.Fatalf("with a baseline: exit %d, want 2; stderr %s", code, stderr)
	}
	want := []string{"agentgate/gate/max-failed-traces error", "agentgate/loop error unchanged", "agentgate/tool_misuse error unchanged",
		"agentgate/hallucination error unchanged", "agentgate/cost warning unchanged"}
	if got := sarifResults(t, sarif); !slices.Equal(got, want) {
		t.Errorf("with a baseline: %q\nwant %q", got, want)
	}

	cfg := filepath.Join(dir, "agentgate.yml")
	os.WriteFile(cfg, []byte("traces: ../fixtures/pass/traces.jsonl\nsarif: "+filepath.Join(dir, "c.sarif")+"\notel: "+filepath.Join(dir, "c.jsonl")+"\n"), 0o644)
	if code, _, stderr := cli(t, "", "gate", "--config", cfg); code != 0 {
		t.Fatalf("config: exit %d; stderr %s", code, stderr)
	}
	if got := sarifResults(t, filepath.Join(dir, "c.sarif")); len(got) != 0 {
		t.Errorf("config sarif of a passing suite: %q", got)
	}
	if got := otelLabels(t, filepath.Join(dir, "c.jsonl")); len(got) != 5 || got[0] != "agentgate.reliability pass" {
		t.Errorf("config otel: %q, want 5 passing traces", got)
	}

	_, api := emulator(t)
	ws := workspace(t)
	in := suite("fail")
	in["sarif"] = "results/agentgate.sarif"
	in["otel"] = "results/otel.jsonl"
	in["comment"] = "false"
	r := step(t, ws, api, "push", ghemu.WebhookExample(t, "push", "", nil), in)
	if r.exit != 2 {
		t.Fatalf("action: exit %d, want 2\n%s", r.exit, r.stderr)
	}
	if got := sarifResults(t, filepath.Join(ws, "results", "agentgate.sarif")); !slices.Equal(got, failSARIF) {
		t.Errorf("input sarif: %q", got)
	}
	if got := otelLabels(t, filepath.Join(ws, "results", "otel.jsonl")); !slices.Equal(got, failOTel) {
		t.Errorf("input otel: %q", got)
	}
	entries, _ := os.ReadDir(filepath.Join(ws, "results"))
	if len(entries) != 2 {
		t.Errorf("results/ holds %d files, want the 2 reports and no temporary file", len(entries))
	}
}

// A report path that cannot be written is an error (exit 3) naming it, found before any input
// is read (issue 25's output check, which the sarif output joins), and leaves no temporary
// file behind.
func TestSARIFUnwritable(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "a.sarif")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := cli(t, "", "gate", "--traces", "../fixtures/fail/traces.jsonl", "--sarif", target)
	want := "agentgate: --sarif: " + target + " is a directory: name the file to write, as in " + filepath.Join(target, "report.sarif") + "\n"
	if code != 3 || stderr != want {
		t.Errorf("exit %d, stderr %q; want 3, %q", code, stderr, want)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d entries left in the folder, want only the directory", len(entries))
	}
}

// OTLP spans in, evaluation events out: each run's event carries its traceId and its root span
// (the first span, in start order, without a parent in the run; the second run has two), also
// after a merge, which reads them back from the JSON report.
func TestOTelCarriesTheRunsTraceContext(t *testing.T) {
	dir := t.TempDir()
	direct, merged, report := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "m.jsonl"), filepath.Join(dir, "r.json")
	if code, _, stderr := cli(t, "", "gate", "--traces", "../gate/trace/testdata/formats/otlp-genai.json", "--otel", direct, "--json", report); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(direct)
	if err != nil {
		t.Fatal(err)
	}
	logs, err := (&plog.JSONUnmarshaler{}).UnmarshalLogs(bytes.TrimSuffix(b, []byte("\n")))
	if err != nil {
		t.Fatal(err)
	}
	recs := logs.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords()
	var got []string
	for i := 0; i < recs.Len(); i++ {
		got = append(got, recs.At(i).TraceID().String()+"/"+recs.At(i).SpanID().String())
	}
	want := []string{"5b8efff798038103d269b633813fc60c/a000000000000001", "6c0000000000000000000000000000aa/b000000000000002"}
	if !slices.Equal(got, want) {
		t.Errorf("trace contexts %q\nwant %q", got, want)
	}
	if code, _, stderr := cli(t, "", "merge", "--otel", merged, report); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	if m, _ := os.ReadFile(merged); !bytes.Equal(m, b) {
		t.Errorf("the merged OTLP/JSON differs from one run's:\n%s\nwant\n%s", m, b)
	}
}
