package entrypoint

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentgate/agentgate/test/ghemu"
)

// junitCounts reads a JUnit file back: the root's counts and each suite's "name tests/failures".
func junitCounts(t *testing.T, path string) (root string, suites []string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests    string `xml:"tests,attr"`
		Failures string `xml:"failures,attr"`
		Suites   []struct {
			Name     string `xml:"name,attr"`
			Tests    string `xml:"tests,attr"`
			Failures string `xml:"failures,attr"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for _, s := range doc.Suites {
		suites = append(suites, s.Name+" "+s.Tests+"/"+s.Failures)
	}
	return doc.Tests + "/" + doc.Failures, suites
}

// --junit, the config key junit and the action input junit all write the JUnit XML of the
// run: on fixtures/fail, 2 FAIL traces and 5 breached gates are the 7 failures.
func TestJUnitFlagConfigAndInput(t *testing.T) {
	wantSuites := "[reliability 4/3 coherence 4/1 agreement 3/3]"
	dir := t.TempDir()
	out := filepath.Join(dir, "reports", "junit.xml")
	code, _, stderr := cli(t, "", "gate", "--traces", "../fixtures/fail/traces.jsonl", "--tasks", "../fixtures/fail/tasks.json",
		"--pairs", "../fixtures/fail/pairs.jsonl", "--junit", out)
	if code != 2 {
		t.Fatalf("exit %d, want 2; stderr %s", code, stderr)
	}
	if root, suites := junitCounts(t, out); root != "11/7" || fmtList(suites) != wantSuites {
		t.Errorf("--junit: tests/failures %s, suites %s; want 11/7, %s", root, fmtList(suites), wantSuites)
	}

	cfg := filepath.Join(dir, "agentgate.yml")
	out2 := filepath.Join(dir, "from-config.xml")
	os.WriteFile(cfg, []byte("traces: ../fixtures/pass/traces.jsonl\njunit: "+out2+"\n"), 0o644)
	if code, _, stderr := cli(t, "", "gate", "--config", cfg); code != 0 {
		t.Fatalf("config: exit %d; stderr %s", code, stderr)
	}
	if root, suites := junitCounts(t, out2); root != "6/0" || fmtList(suites) != "[reliability 6/0]" {
		t.Errorf("config junit: %s %v, want 6/0 [reliability 6/0]", root, suites)
	}

	_, api := emulator(t)
	ws := workspace(t)
	in := suite("fail")
	in["junit"] = "test-results/agentgate.xml"
	in["comment"] = "false"
	r := step(t, ws, api, "push", ghemu.WebhookExample(t, "push", "", nil), in)
	if r.exit != 2 {
		t.Fatalf("action: exit %d, want 2\n%s", r.exit, r.stderr)
	}
	if root, suites := junitCounts(t, filepath.Join(ws, "test-results", "agentgate.xml")); root != "11/7" || fmtList(suites) != wantSuites {
		t.Errorf("input junit: %s %v", root, suites)
	}
}

func fmtList(s []string) string { return fmt.Sprint(s) }
