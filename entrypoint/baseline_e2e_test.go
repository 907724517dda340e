package entrypoint

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentgate/agentgate/internal/testfiles"
	"github.com/agentgate/agentgate/test/ghemu"
)

// fileOutput is GITHUB_OUTPUT's content for the outputs kv, in order, as the runner's
// file-command format writes them.
func fileOutput(kv ...string) string {
	const d = "_GitHubActionsFileCommandDelimeter_"
	var b strings.Builder
	for i := 0; i+1 < len(kv); i += 2 {
		b.WriteString(kv[i] + "<<" + d + "\n" + kv[i+1] + "\n" + d + "\n")
	}
	return b.String()
}

// copyTestdata copies files of testdata/baseline into the workspace ws.
func copyTestdata(t *testing.T, ws string, names ...string) {
	t.Helper()
	for _, n := range names {
		testfiles.Copy(t, filepath.Join("testdata", "baseline", n), filepath.Join(ws, n))
	}
}

// A baseline whose source.sha holds the runner's file-command delimiter (and a mention, HTML
// and a workflow command) is compared as a baseline of unknown commit: the sha is dropped when
// it is read, so every output is written, baseline-sha empty, and the report names "the
// baseline report" rather than a piece of the text.
func TestBaselineSHANotACommit(t *testing.T) {
	_, api := emulator(t)
	ws := workspace(t)
	copyTestdata(t, ws, "evilbase.json", "head.jsonl")
	event := ghemu.WebhookExample(t, "pull_request", "opened", nil)
	r := step(t, ws, api, "pull_request", event, map[string]string{"traces": "head.jsonl", "baseline": "evilbase.json", "comment": "false"})
	want := fileOutput("verdict", "FAIL", "traces-total", "20", "traces-failed", "1", "traces-warned", "0",
		"rcs", "", "percent-agreement", "", "kappa", "", "abstain-rate", "",
		"new-failures", "1", "runs-newly-failed", "1", "regressions", "", "baseline-sha", "",
		"success-rate", "0.95", "successes", "19", "report-json", ".agentgate/report.json", "comment-url", "")
	if r.exit != 2 || r.output != want {
		t.Errorf("exit %d, GITHUB_OUTPUT\n%s\nwant exit 2 and\n%s\nstderr %s", r.exit, r.output, want, r.stderr)
	}
	if !strings.Contains(r.summary, "Compared with the baseline report") || strings.Contains(r.summary, "abc") || strings.Contains(r.stdout, "::warning") {
		t.Errorf("summary or warnings name the sha:\n%s\n%s", r.summary, r.stdout)
	}
}

// One output whose value holds the runner's file-command delimiter (here report-json, from a
// json path with line breaks) is refused with a warning naming it; every other output is
// written, the verdict first.
func TestOneRefusedOutputKeepsTheOthers(t *testing.T) {
	_, api := emulator(t)
	ws := workspace(t)
	evil := "r\n_GitHubActionsFileCommandDelimeter_\nverdict=PASS.json"
	event := ghemu.WebhookExample(t, "pull_request", "opened", nil)
	r := step(t, ws, api, "pull_request", event, map[string]string{"traces": "fixtures/fail/traces.jsonl", "comment": "false", "json": evil})
	want := fileOutput("verdict", "FAIL", "traces-total", "3", "traces-failed", "2", "traces-warned", "1",
		"rcs", "", "percent-agreement", "", "kappa", "", "abstain-rate", "",
		"new-failures", "", "runs-newly-failed", "", "regressions", "", "baseline-sha", "",
		"success-rate", "", "successes", "", "comment-url", "")
	if r.exit != 2 || r.output != want {
		t.Errorf("exit %d, GITHUB_OUTPUT\n%s\nwant exit 2 and\n%s\nstderr %s", r.exit, r.output, want, r.stderr)
	}
	warn := "::warning::step output refused (the others are set): output report-json: value contains the runner's file-command delimiter; not written\n"
	if !strings.Contains(r.stdout, warn) {
		t.Errorf("no warning %q in\n%s", warn, r.stdout)
	}
}

// An explicit baseline that holds no agentgate report (a traces file, an empty, truncated or
// malformed file), or that is no regular file (a FIFO with no writer, a device), is an error:
// exit 3 at once, with the file's place. A report of another schema version stays a note.
func TestCLIBaselineNotAReport(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fifo := filepath.Join(dir, "ff.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	traces := "../fixtures/pass/traces.jsonl"
	empty := write("empty.json", "")
	trunc := filepath.Join("testdata", "baseline", "trunc.json")
	garbage := write("garbage.json", "{\"schema\": 2, \"verdict\": [}")
	const tail = "; a baseline given by path must be an agentgate JSON report (the base branch's, written with --json), or `auto` to look for its artifact\n"
	for _, c := range []struct{ baseline, want string }{
		{traces, traces + `:1:1: not an agentgate JSON report: expected an object with "schema"; this looks like a traces file: pass it with --traces` + "\n"},
		{empty, empty + `:1:1: not an agentgate JSON report: the file holds no JSON value (expected an object with "schema")` + tail},
		{trunc, trunc + ":1:18: not an agentgate JSON report: not valid JSON: unexpected end of input in an object" + tail},
		{garbage, garbage + ":1:27: not an agentgate JSON report: not valid JSON: expected a value, found '}'" + tail},
		{fifo, fifo + ": not a regular file (a FIFO): inputs must be regular files" + tail},
		{"/dev/zero", "/dev/zero: not a regular file (a character device): inputs must be regular files" + tail},
	} {
		// A FIFO, /dev/zero and a directory are refused by their kind, before a byte is read
		// (the error names the kind); a read would block or run on, and go test's timeout
		// would end it. No clock is needed to tell.
		code, stdout, stderr := cli(t, "", "gate", "--traces", traces, "--baseline", c.baseline)
		if want := "agentgate: --baseline: " + c.want; code != 3 || stdout != "" || stderr != want {
			t.Errorf("%s: exit %d, stderr\n%q\nwant exit 3 and\n%q", c.baseline, code, stderr, want)
		}
	}

	// In a config file the error names the line that gave the path.
	cfg := write("agentgate.yml", "traces: "+traces+"\nbaseline: "+empty+"\n")
	code, _, stderr := cli(t, "", "gate", "--config", cfg)
	if want := "agentgate: " + cfg + ":2:11: " + empty + `:1:1: not an agentgate JSON report: the file holds no JSON value (expected an object with "schema")` + tail; code != 3 || stderr != want {
		t.Errorf("config: exit %d, stderr\n%q\nwant\n%q", code, stderr, want)
	}
}

// A config file that is no regular file is refused at once, as an input is; one over 1 MiB
// by its size.
func TestConfigNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "ff.yml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	big := filepath.Join(dir, "big.yml")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 1<<30); err != nil { // sparse: reading it would take a GiB
		t.Fatal(err)
	}
	for _, c := range []struct{ config, want string }{
		{fifo, fifo + ": not a regular file (a FIFO): inputs must be regular files"},
		{"/dev/zero", "/dev/zero: not a regular file (a character device): inputs must be regular files"},
		{dir, dir + ": not a regular file (a directory): inputs must be regular files"},
		{big, big + ": not read: a config file holds at most 1048576 bytes (1 MiB) of settings"},
	} {
		// refused by kind or size before a byte is read: the error says which
		code, stdout, stderr := cli(t, "", "gate", "--traces", "../fixtures/pass/traces.jsonl", "--config", c.config)
		if want := "agentgate: " + c.want + "\n"; code != 3 || stdout != "" || stderr != want {
			t.Errorf("%s: exit %d, stderr\n%q\nwant exit 3 and\n%q", c.config, code, stderr, want)
		}
	}
}

// `auto` finding an artifact that holds no agentgate report is a note, as finding none is
// (docs/design.md#comparison): the artifact is not the user's typo, and the run goes on without a comparison.
func TestAutoArtifactNotAReportIsANote(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{`{}`, `baseline artifact agentgate-report (run 7) report.json:1:1: not an agentgate JSON report: expected an object with "schema": not compared`},
		{``, `baseline artifact agentgate-report (run 7) report.json:1:1: not an agentgate JSON report: the file holds no JSON value (expected an object with "schema"): not compared`},
		{`{"schema": 4}`, `baseline artifact agentgate-report (run 7) report.json has schema 4, this agentgate reads schema 2 and 3: not compared`},
	} {
		b := readBaseline([]byte(c.doc), "artifact agentgate-report (run 7) report.json")
		if b.Report != nil || b.Note != c.want {
			t.Errorf("%q: note\n%q\nwant\n%q", c.doc, b.Note, c.want)
		}
	}
}
