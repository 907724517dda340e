package entrypoint

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/internal/refdata"
)

// cli runs the agentgate command in-process, as main does, outside GitHub Actions.
func cli(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(context.Background(), args, strings.NewReader(stdin), &out, &errb, func(string) string { return "" })
	return code, out.String(), errb.String()
}

// refData locates ../shared/reference-data, or skips.
func refData(t *testing.T, rel string) string {
	t.Helper()
	return refdata.Path(t, rel)
}

// The RS-1 samples give RS-1 1.0.0's recorded verdicts, scores and exit codes (the
// *.expected.json files were produced by running RS-1 1.0.0).
func TestRS1DropIn(t *testing.T) {
	for _, name := range []string{"sample_trace", "sample_trace_problematic"} {
		t.Run(name, func(t *testing.T) {
			in := refData(t, "rs1/"+name+".json")
			raw, err := os.ReadFile(refData(t, "rs1/"+name+".expected.json"))
			if err != nil {
				t.Fatal(err)
			}
			var want struct {
				TraceID      string             `json:"trace_id"`
				Verdict      string             `json:"verdict"`
				OverallScore float64            `json:"overall_score"`
				SignalScores map[string]float64 `json:"signal_scores"`
				Metadata     map[string]int     `json:"metadata"`
				ExitCode     int                `json:"exit_code"`
			}
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := cli(t, "", "rs1", in, "--profile", "reference")
			if code != want.ExitCode {
				t.Fatalf("exit %d, want %d; stderr %s", code, want.ExitCode, stderr)
			}
			var got struct {
				TraceID      string  `json:"trace_id"`
				Verdict      string  `json:"verdict"`
				OverallScore float64 `json:"overall_score"`
				SignalScores []struct {
					Name  string  `json:"signal_name"`
					Score float64 `json:"score"`
				} `json:"signal_scores"`
				Metadata map[string]int `json:"metadata"`
			}
			if err := json.Unmarshal([]byte(stdout), &got); err != nil {
				t.Fatalf("output is not one JSON document: %v\n%s", err, stdout)
			}
			if got.TraceID != want.TraceID || got.Verdict != want.Verdict || got.OverallScore != want.OverallScore {
				t.Errorf("got %s %s %v, want %s %s %v", got.TraceID, got.Verdict, got.OverallScore, want.TraceID, want.Verdict, want.OverallScore)
			}
			for _, s := range got.SignalScores {
				if s.Score != want.SignalScores[s.Name] {
					t.Errorf("%s = %v, want %v", s.Name, s.Score, want.SignalScores[s.Name])
				}
			}
			for k, v := range want.Metadata {
				if got.Metadata[k] != v {
					t.Errorf("metadata %s = %d, want %d", k, got.Metadata[k], v)
				}
			}
			// The same trace through --stdin gives the same bytes.
			text, _ := os.ReadFile(in)
			code2, stdout2, _ := cli(t, string(text), "rs1", "--stdin", "--profile", "reference")
			if code2 != code || stdout2 != stdout {
				t.Errorf("--stdin gave exit %d and different output", code2)
			}
		})
	}
}

func TestRS1Errors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"rs1"}, "agentgate: rs1: give exactly one trace FILE, or --stdin\n"},
		{[]string{"rs1", "no-such.json"}, "agentgate: no-such.json: cannot open: no such file or directory\n"},
		{[]string{"rs1", "a.json", "--stdin"}, "agentgate: rs1: give a FILE or --stdin, not both\n"},
		{[]string{"rs1", "--profile", "strict", "a.json"}, "agentgate: unknown profile \"strict\": want \"default\" or \"reference\"\n"},
	}
	for _, c := range cases {
		code, _, stderr := cli(t, "", c.args...)
		if code != 3 || stderr != c.want {
			t.Errorf("%v: exit %d stderr %q, want 3 %q", c.args, code, stderr, c.want)
		}
	}
	code, _, stderr := cli(t, `{"trace_id": "x", "messages": [`, "rs1", "--stdin")
	if code != 3 || !strings.HasPrefix(stderr, "agentgate: <stdin>:1:") {
		t.Errorf("truncated stdin: exit %d stderr %q", code, stderr)
	}
}

// agentgate rcs --profile reference writes the RCS harness's published echo results file byte
// for byte (the published file has Windows line endings).
func TestRCSDropInReproducesPublishedRun(t *testing.T) {
	in := refData(t, "rcs/rcs_echo_20251109-230939.json")
	want, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := cli(t, "", "rcs", "--tasks", in, "--profile", "reference")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	norm := strings.ReplaceAll(string(want), "\r\n", "\n")
	if strings.TrimRight(stdout, "\n") != strings.TrimRight(norm, "\n") {
		t.Fatalf("output differs from the published run:\n%s", stdout)
	}
}

// agentgate rcs writes each result to a temporary file as it scores it: the published run is
// reproduced through it, a bad task after good ones prints nothing on stdout and exits 3, and
// neither run leaves the file behind. Without a temporary directory (the container image has
// no /tmp) the results wait in memory, with the same output.
func TestRCSSpool(t *testing.T) {
	for _, missing := range []bool{false, true} {
		tmp := t.TempDir()
		if missing {
			tmp = filepath.Join(tmp, "missing")
		}
		t.Setenv("TMPDIR", tmp)
		testRCSSpool(t, tmp)
	}
}

func testRCSSpool(t *testing.T, tmp string) {
	published := refData(t, "rcs/rcs_echo_20251109-230939.json")
	want, err := os.ReadFile(published)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	data := `{"id": "a", "intent": "book a flight", "understanding": "book a flight", "action": "booked it"}` + "\n" +
		`{"id": "b", "intent": "book a flight", "understanding": 3, "action": "booked it"}` + "\n"
	if err := os.WriteFile(bad, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path   string
		code   int
		stdout string
		stderr string
	}{
		{published, 0, strings.ReplaceAll(string(want), "\r\n", "\n") + "\n", ""},
		{bad, 3, "", "agentgate: " + bad + ":2:57: task \"b\": field \"understanding\": expected a string, found a number\n"},
	}
	for _, c := range cases {
		code, stdout, stderr := cli(t, "", "rcs", "--tasks", c.path, "--profile", "reference")
		if code != c.code || stdout != c.stdout || stderr != c.stderr {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", c.path, code, stdout, stderr)
		}
		if left, _ := os.ReadDir(tmp); len(left) != 0 {
			t.Errorf("%s: left %s in the temporary directory", c.path, left[0].Name())
		}
	}
}

// agentgate consistency --profile reference prints what the seed's own scorer printed for the
// failing fixture (run with python3 on fixtures/fail/pairs.jsonl), and writes its TSV.
func TestConsistencyDropInMatchesSeed(t *testing.T) {
	tsv := filepath.Join(t.TempDir(), "dis.tsv")
	code, stdout, stderr := cli(t, "", "consistency", "--pairs", "../fixtures/fail/pairs.jsonl", "--profile", "reference", "--tsv", tsv)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	const seedJSON = `{
  "n": 50,
  "percent_agreement": 0.82,
  "kappa": 0.7208,
  "abstain_rate": 0.0,
  "disagreements": 9,
  "gates": {
    "pa": 0.9,
    "kappa": 0.75,
    "abstain": 0.02
  },
  "pass": false
}
`
	if stdout != seedJSON {
		t.Errorf("stdout:\n%s\nwant the seed's:\n%s", stdout, seedJSON)
	}
	const seedTSV = "qid\tscholar\tauditor\tfinal\twhy\n" +
		"Q0003\tVALID\tREJECT\tREJECT\tauditor_veto\n" +
		"Q0006\tVALID\tNOT_IN_CONTEXT\tREJECT\tauditor_veto\n" +
		"Q0010\tVALID\tREJECT\tREJECT\tauditor_veto\n" +
		"Q0015\tNOT_IN_CONTEXT\tVALID\tVALID\tauditor_ok\n" +
		"Q0018\tVALID\tABSTAIN\tREJECT\tauditor_veto\n" +
		"Q0029\tNOT_IN_CONTEXT\tREJECT\tREJECT\tauditor_veto\n" +
		"Q0034\tREJECT\tVALID\tREJECT\tincoherent_pair\n" +
		"Q0041\tREJECT\tABSTAIN\tREJECT\tauditor_veto\n" +
		"Q0048\tREJECT\tNOT_IN_CONTEXT\tREJECT\tauditor_veto\n"
	got, err := os.ReadFile(tsv)
	if err != nil || string(got) != seedTSV {
		t.Errorf("TSV (%v):\n%s\nwant:\n%s", err, got, seedTSV)
	}
	// The default profile counts the Auditor's two abstains too: 2/50.
	_, stdout, _ = cli(t, "", "consistency", "--pairs", "../fixtures/fail/pairs.jsonl", "--tsv", "")
	if !strings.Contains(stdout, `"abstain_rate": 0.04,`) {
		t.Errorf("default abstain rate not 0.04:\n%s", stdout)
	}
}

func TestGateUsage(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"gate"}, 3, "agentgate: nothing to evaluate: give at least one of traces, tasks, pairs, or scholar and auditor\n"},
		{[]string{"gate", "traces.jsonl"}, 3, "agentgate: gate takes no arguments, got \"traces.jsonl\": name input files with --traces, --tasks, --pairs or --scholar/--auditor\n"},
		{[]string{"gate", "--scholar", "s.jsonl"}, 3, "agentgate: scholar was given without auditor: the two label files are joined by qid, give both\n"},
		{[]string{"frobnicate"}, 3, ""},
		{[]string{"gate", "--traces", "../fixtures/pass/traces.jsonl", "--pa-min", "2"}, 3, "agentgate: --pa-min must be between 0 and 1, got 2\n"},
	}
	for _, c := range cases {
		code, _, stderr := cli(t, "", c.args...)
		if code != c.code || (c.want != "" && stderr != c.want) {
			t.Errorf("%v: exit %d stderr %q, want %d %q", c.args, code, stderr, c.code, c.want)
		}
	}
}

// The CLI outside Actions: exit codes of docs/design.md#gates-and-exit-codes on the fixtures, and --json/--markdown files.
func TestGateCLI(t *testing.T) {
	dir := t.TempDir()
	jsonPath, mdPath := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.md")
	code, stdout, stderr := cli(t, "", "gate", "--traces", "../fixtures/fail/traces.jsonl", "--tasks", "../fixtures/fail/tasks.json",
		"--pairs", "../fixtures/fail/pairs.jsonl", "--json", jsonPath, "--markdown", mdPath)
	if code != 2 {
		t.Fatalf("exit %d, want 2\n%s%s", code, stdout, stderr)
	}
	if !strings.HasPrefix(stdout, "agentgate: FAIL, check failing\n") {
		t.Errorf("stdout does not lead with the verdict:\n%s", stdout)
	}
	var rep struct {
		Verdict  string `json:"verdict"`
		ExitCode int    `json:"exit_code"`
		Gates    []struct {
			Name   string `json:"name"`
			Passed bool   `json:"passed"`
		} `json:"gates"`
	}
	raw, err := os.ReadFile(jsonPath)
	if err != nil || json.Unmarshal(raw, &rep) != nil || rep.Verdict != "FAIL" || rep.ExitCode != 2 || len(rep.Gates) != 5 {
		t.Fatalf("JSON report (%v): %+v", err, rep)
	}
	md, err := os.ReadFile(mdPath)
	if err != nil || !strings.HasPrefix(string(md), "## ❌ agentgate: FAIL") {
		t.Fatalf("markdown report (%v):\n%.200s", err, md)
	}
	// Same inputs, same bytes.
	jsonPath2 := filepath.Join(dir, "r2.json")
	cli(t, "", "gate", "--traces", "../fixtures/fail/traces.jsonl", "--tasks", "../fixtures/fail/tasks.json",
		"--pairs", "../fixtures/fail/pairs.jsonl", "--json", jsonPath2)
	raw2, _ := os.ReadFile(jsonPath2)
	if !bytes.Equal(raw, raw2) {
		t.Errorf("two runs on the same inputs wrote different JSON reports")
	}

	code, _, _ = cli(t, "", "gate", "--traces", "../fixtures/pass/traces.jsonl", "--tasks", "../fixtures/pass/tasks.json", "--pairs", "../fixtures/pass/pairs.jsonl")
	if code != 0 {
		t.Errorf("pass suite: exit %d, want 0", code)
	}
	// The failing traces with max-failed-traces 2: WARN; exit 0, or 1 with --fail-on warn.
	if code, _, _ = cli(t, "", "gate", "--traces", "../fixtures/fail/traces.jsonl", "--max-failed-traces", "2"); code != 0 {
		t.Errorf("WARN with fail-on fail: exit %d, want 0", code)
	}
	if code, _, _ = cli(t, "", "gate", "--traces", "../fixtures/fail/traces.jsonl", "--max-failed-traces", "2", "--fail-on", "warn"); code != 1 {
		t.Errorf("WARN with fail-on warn: exit %d, want 1", code)
	}
}
