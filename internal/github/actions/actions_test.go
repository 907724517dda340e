package actions_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/internal/github/actions"
	"github.com/sethvargo/go-githubactions"
)

// newAction returns an Action whose commands go to out and whose
// environment is env only.
func newAction(out *bytes.Buffer, env map[string]string) *githubactions.Action {
	return githubactions.New(
		githubactions.WithWriter(out),
		githubactions.WithGetenv(func(k string) string { return env[k] }),
	)
}

func TestSetOutputsInOrder(t *testing.T) {
	dir := t.TempDir()
	outFile := filepath.Join(dir, "output")
	var stdout bytes.Buffer
	a := newAction(&stdout, map[string]string{"GITHUB_OUTPUT": outFile})
	ok, err := actions.SetOutputs(a, [][2]string{{"verdict", "FAIL"}, {"traces-failed", "3"}, {"comment-url", ""}, {"note", "two\nlines"}})
	if !ok || err != nil {
		t.Fatalf("SetOutputs: %v %v", ok, err)
	}
	raw, _ := os.ReadFile(outFile)
	const d = "_GitHubActionsFileCommandDelimeter_"
	want := "verdict<<" + d + "\nFAIL\n" + d + "\n" +
		"traces-failed<<" + d + "\n3\n" + d + "\n" +
		"comment-url<<" + d + "\n\n" + d + "\n" +
		"note<<" + d + "\ntwo\nlines\n" + d + "\n"
	if string(raw) != want {
		t.Errorf("GITHUB_OUTPUT:\n%s\nwant:\n%s", raw, want)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout: %q", stdout.String())
	}
}

func TestSetOutputsGuards(t *testing.T) {
	var stdout bytes.Buffer
	// Outside Actions: no-op, no panic.
	ok, err := actions.SetOutputs(newAction(&stdout, nil), [][2]string{{"verdict", "PASS"}})
	if ok || err != nil {
		t.Errorf("unset GITHUB_OUTPUT: %v %v", ok, err)
	}
	// A refused pair is left out and named; the others are written, in order.
	outFile := filepath.Join(t.TempDir(), "output")
	a := newAction(&stdout, map[string]string{"GITHUB_OUTPUT": outFile})
	injection := "x\n_GitHubActionsFileCommandDelimeter_\nverdict=PASS"
	ok, err = actions.SetOutputs(a, [][2]string{{"verdict", "FAIL"}, {"baseline-sha", injection}, {"a=b", "v"}, {"", "v"}, {"a\nb", "v"}, {"comment-url", "u"}})
	const d = "_GitHubActionsFileCommandDelimeter_"
	wantErr := "output baseline-sha: value contains the runner's file-command delimiter; not written\n" +
		"output name \"a=b\": want a single word such as verdict; not written\n" +
		"output name \"\": want a single word such as verdict; not written\n" +
		"output name \"a\\nb\": want a single word such as verdict; not written"
	if !ok || err == nil || err.Error() != wantErr {
		t.Errorf("refused pairs: %v, %v\nwant true and\n%s", ok, err, wantErr)
	}
	raw, _ := os.ReadFile(outFile)
	if want := "verdict<<" + d + "\nFAIL\n" + d + "\n" + "comment-url<<" + d + "\nu\n" + d + "\n"; string(raw) != want {
		t.Errorf("GITHUB_OUTPUT:\n%s\nwant:\n%s", raw, want)
	}
	// Unwritable file: an error, not a panic.
	bad := newAction(&stdout, map[string]string{"GITHUB_OUTPUT": filepath.Join(t.TempDir(), "missing-dir", "out")})
	if ok, err := actions.SetOutputs(bad, [][2]string{{"verdict", "PASS"}}); ok || err == nil {
		t.Errorf("unwritable GITHUB_OUTPUT: %v %v", ok, err)
	}
}

func TestWriteSummary(t *testing.T) {
	var stdout bytes.Buffer
	if ok, err := actions.WriteSummary(newAction(&stdout, nil), "# hi"); ok || err != nil {
		t.Errorf("unset GITHUB_STEP_SUMMARY: %v %v", ok, err)
	}
	sum := filepath.Join(t.TempDir(), "summary.md")
	a := newAction(&stdout, map[string]string{"GITHUB_STEP_SUMMARY": sum})
	if ok, err := actions.WriteSummary(a, "# agentgate\n"); !ok || err != nil {
		t.Fatalf("WriteSummary: %v %v", ok, err)
	}
	raw, _ := os.ReadFile(sum)
	if string(raw) != "# agentgate\n\n" {
		t.Errorf("summary %q", raw)
	}
}

func TestWriteSummaryStaysUnderOneMiB(t *testing.T) {
	sum := filepath.Join(t.TempDir(), "summary.md")
	// Something earlier in the step already wrote 100 KiB.
	if err := os.WriteFile(sum, bytes.Repeat([]byte("x"), 100<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := 0; b.Len() < 2<<20; i++ {
		fmt.Fprintf(&b, "| row %07d | ✅ | some text |\n", i)
	}
	var stdout bytes.Buffer
	a := newAction(&stdout, map[string]string{"GITHUB_STEP_SUMMARY": sum})
	if ok, err := actions.WriteSummary(a, b.String()); !ok || err != nil {
		t.Fatalf("WriteSummary: %v %v", ok, err)
	}
	raw, _ := os.ReadFile(sum)
	if len(raw) >= actions.MaxSummaryBytes {
		t.Fatalf("summary is %d bytes, limit %d", len(raw), actions.MaxSummaryBytes)
	}
	if len(raw) < actions.MaxSummaryBytes-200 {
		t.Errorf("summary cut far too early: %d bytes", len(raw))
	}
	body := string(raw[100<<10:])
	kept, note, ok := strings.Cut(body, "\n\n> [!NOTE]")
	if !ok || !strings.Contains(note, "1 MiB") {
		t.Fatalf("no note at the end: %q", body[len(body)-200:])
	}
	for _, line := range strings.Split(strings.TrimSuffix(kept, "\n"), "\n") {
		if !strings.HasPrefix(line, "| row ") || !strings.HasSuffix(line, " |") {
			t.Fatalf("row cut mid-line: %q", line)
		}
	}
	// Full already: an error, nothing appended.
	if ok, err := actions.WriteSummary(a, "more"); ok || err == nil {
		t.Errorf("full summary: %v %v", ok, err)
	}
}

func TestCutLines(t *testing.T) {
	if got := actions.CutLines("ab\ncd\n", 6, "!"); got != "ab\ncd\n" {
		t.Errorf("fits: %q", got)
	}
	if got := actions.CutLines("ab\ncd\nef\n", 7, "!"); got != "ab\ncd\n!" {
		t.Errorf("cut: %q", got)
	}
	if got := actions.CutLines("éééééé", 6, "!"); got != "éé!" {
		t.Errorf("one long line cut at a rune boundary: %q", got)
	}
}

func TestAnnotate(t *testing.T) {
	var stdout bytes.Buffer
	a := newAction(&stdout, nil)
	anns := []actions.Annotation{
		{File: "traces/run.jsonl", Line: 12, Title: "agentgate: trace t-1 FAIL", Message: "hallucination 0.90: `search` called, 100% sure"},
		{Title: "agentgate: gate kappa-min breached", Message: "kappa 0.41 < 0.75\nsecond line"},
		{File: "tasks.jsonl", Title: "t, with: comma", Message: "m"},
		{File: "a,b:c%d\ne.json", Line: 3, Col: 14, Title: "bad input", Message: "a,b:c%d\ne.json:3:14: invalid JSON"},
		{File: "f.json", Col: 5, Message: "no line, so no col"},
		{Line: 2, Col: 5, Message: "no file, so neither line nor col"},
	}
	if n := actions.Annotate(a, anns); n != 6 {
		t.Errorf("emitted %d", n)
	}
	want := "::error file=traces/run.jsonl,line=12,title=agentgate%3A trace t-1 FAIL::hallucination 0.90: `search` called, 100%25 sure\n" +
		"::error title=agentgate%3A gate kappa-min breached::kappa 0.41 < 0.75%0Asecond line\n" +
		"::error file=tasks.jsonl,title=t%2C with%3A comma::m\n" +
		"::error col=14,file=a%2Cb%3Ac%25d%0Ae.json,line=3,title=bad input::a,b:c%25d%0Ae.json:3:14: invalid JSON\n" +
		"::error file=f.json::no line, so no col\n" +
		"::error::no file, so neither line nor col\n"
	if stdout.String() != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout.String(), want)
	}

	stdout.Reset()
	many := make([]actions.Annotation, 25)
	for i := range many {
		many[i] = actions.Annotation{File: "f", Line: i + 1, Message: "m"}
	}
	if n := actions.Annotate(a, many); n != actions.MaxAnnotations {
		t.Errorf("emitted %d of 25, want %d", n, actions.MaxAnnotations)
	}
	if got := strings.Count(stdout.String(), "::error "); got != 10 {
		t.Errorf("%d annotations printed", got)
	}
}

func TestMask(t *testing.T) {
	var stdout bytes.Buffer
	a := newAction(&stdout, nil)
	actions.Mask(a, "")
	actions.Mask(a, "ghs_secret")
	actions.Mask(a, "line1\nline2\n")
	if got, want := stdout.String(), "::add-mask::ghs_secret\n::add-mask::line1\n::add-mask::line2\n"; got != want {
		t.Errorf("stdout %q, want %q", got, want)
	}
}
