package entrypoint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Input-kind mistakes are named (issue 25 item 5): a file whose records are clearly another
// kind of input (pairs, labels, tasks, traces) than the setting it was given to gets a hint
// naming the right setting, as a flag on the command line and as an input under Actions.
func TestInputKindMistakesNamed(t *testing.T) {
	dir := t.TempDir()
	fixture := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "fixtures", "pass", name))
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(b), "\n")
		return first + "\n"
	}
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		write(t, p, text)
		return p
	}
	trace := file("trace.jsonl", fixture("traces.jsonl"))
	pairs := file("pairs.jsonl", fixture("pairs.jsonl"))
	label := file("label.jsonl", `{"qid": "a", "label": "VALID", "reason": "cited"}`+"\n")
	task := file("task.jsonl", `{"id": "t", "intent": "a", "understanding": "b", "action": "c"}`+"\n")
	idTrace := file("idtrace.jsonl", `{"id": "x", "messages": [{"role": "user", "content": "hi"}]}`+"\n")
	const msgList = `expected a message list under "messages", "trajectory", "traj", "history" or "conversations"; found keys: `
	const notTask = `expected a task ("id" or "task_id", "intent", "understanding", "action") or an RCS harness results file ("model", "average_rcs", "results"), found keys `
	cases := []struct {
		name string
		args []string
		want string // stderr, FILE the file named
		file string
	}{
		{"pairs as traces", []string{"--traces", pairs}, msgList + "answer_json, auditor, flags, qid, retrieved_ids, scholar; this looks like a pairs file: pass it with --pairs", pairs},
		{"label as traces", []string{"--traces", label}, msgList + "label, qid, reason; this looks like a label file: pass it with --scholar or --auditor", label},
		{"task as traces", []string{"--traces", task}, msgList + "action, id, intent, understanding; this looks like a tasks file: pass it with --tasks", task},
		{"trace as pairs", []string{"--pairs", trace}, `missing field "qid"; this looks like a traces file: pass it with --traces`, trace},
		{"label as pairs", []string{"--pairs", label}, `missing field "scholar"; this looks like a label file: pass it with --scholar or --auditor`, label},
		{"pairs as labels", []string{"--scholar", pairs, "--auditor", pairs}, `missing field "label"; this looks like a pairs file: pass it with --pairs`, pairs},
		{"task as labels", []string{"--scholar", task, "--auditor", task}, `missing field "qid"; this looks like a tasks file: pass it with --tasks`, task},
		{"trace as tasks", []string{"--tasks", trace}, notTask + `"messages", "metadata", "token_usage", "trace_id"; this looks like a traces file: pass it with --traces`, trace},
		{"trace with an id as tasks", []string{"--tasks", idTrace}, `task "x": missing field "intent": expected a string; this looks like a traces file: pass it with --traces`, idTrace},
		{"pairs as tasks", []string{"--tasks", pairs}, notTask + `"answer_json", "auditor", "flags", "qid", "retrieved_ids", "scholar"; this looks like a pairs file: pass it with --pairs`, pairs},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := cli(t, "", append([]string{"gate"}, c.args...)...)
			want := "agentgate: " + c.file + ":1:1: " + c.want + "\n"
			if code != 3 || stderr != want {
				t.Errorf("exit %d\nstderr %q\n  want %q", code, stderr, want)
			}
		})
	}
	// a record of the right kind with a mistake in it gets no such hint
	bad := file("badpairs.jsonl", `{"qid": "a", "scholar": {"label": "VALID"}, "auditor": {}}`+"\n")
	if _, _, stderr := cli(t, "", "gate", "--pairs", bad); strings.Contains(stderr, "looks like") {
		t.Errorf("a pairs file given as pairs: %q", stderr)
	}
	// under Actions the hint names the input
	code, _, stderr, _ := actionRun(t, dir, map[string]string{"traces": "pairs.jsonl"})
	want := "agentgate: pairs.jsonl:1:1: " + msgList + "answer_json, auditor, flags, qid, retrieved_ids, scholar; this looks like a pairs file: give it as the pairs input\n"
	if code != 3 || stderr != want {
		t.Errorf("Actions: exit %d\nstderr %q\n  want %q", code, stderr, want)
	}
}

// A folder given as --traces that holds the suite's pairs file beside the traces reads the
// traces and says it skipped the pairs file (docs/design.md#harness-folders: a side file is never an error for the
// whole run); named itself, the pairs file is refused with the hint.
func TestTracesFolderHoldingPairs(t *testing.T) {
	dir := t.TempDir()
	suite := filepath.Join(dir, "suite")
	if err := os.Mkdir(suite, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"traces.jsonl", "pairs.jsonl"} {
		b, err := os.ReadFile(filepath.Join("..", "fixtures", "pass", name))
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(suite, name), string(b))
	}
	code, stdout, stderr := cli(t, "", "gate", "--traces", suite)
	if want := "  note: skipped 1 side file: pairs.jsonl (a pairs file, not traces)\n"; code != 0 || !strings.Contains(stdout, want) {
		t.Errorf("exit %d, want %q in\n%s%s", code, want, stdout, stderr)
	}
	p := filepath.Join(suite, "pairs.jsonl")
	code, _, stderr = cli(t, "", "gate", "--traces", p)
	want := "agentgate: " + p + `:1:1: expected a message list under "messages", "trajectory", "traj", "history" or "conversations"; found keys: answer_json, auditor, flags, qid, retrieved_ids, scholar; ` +
		"this looks like a pairs file: pass it with --pairs\n"
	if code != 3 || stderr != want {
		t.Errorf("exit %d\nstderr %q\n  want %q", code, stderr, want)
	}
}

// Files after a flag's value are what a shell leaves of an unquoted pattern: say to quote it.
func TestShellExpandedGlobHint(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	write(t, a, "{}\n")
	write(t, b, "{}\n")
	code, _, stderr := cli(t, "", "gate", "--traces", a, b)
	want := "agentgate: gate takes no arguments, got \"" + b + "\": it looks like a file your shell expanded from an unquoted pattern; quote the pattern so that agentgate expands it, as in --traces 'runs/**/*.jsonl'\n"
	if code != 3 || stderr != want {
		t.Errorf("exit %d\nstderr %q\n  want %q", code, stderr, want)
	}
	// the flag whose pattern was expanded is the one named
	code, _, stderr = cli(t, "", "gate", "--traces", a, "--pairs="+a, b)
	want = "agentgate: gate takes no arguments, got \"" + b + "\": it looks like a file your shell expanded from an unquoted pattern; quote the pattern so that agentgate expands it, as in --pairs 'runs/**/*.jsonl'\n"
	if code != 3 || stderr != want {
		t.Errorf("exit %d\nstderr %q\n  want %q", code, stderr, want)
	}
	// an argument that is no file keeps the plain message
	code, _, stderr = cli(t, "", "gate", "--traces", a, "verbose")
	want = "agentgate: gate takes no arguments, got \"verbose\": name input files with --traces, --tasks, --pairs or --scholar/--auditor\n"
	if code != 3 || stderr != want {
		t.Errorf("exit %d\nstderr %q\n  want %q", code, stderr, want)
	}
}

// The hint is a field of the error, not a phrase found in its text: a record whose own keys
// spell the command line's hint keeps them as they are, and under Actions the hint at the
// end names the input (rewriting the first occurrence of the hint's words rewrote the key).
func TestKindHintNotFoundInText(t *testing.T) {
	dir := t.TempDir()
	const key = "this looks like a pairs file: pass it with --pairs"
	write(t, filepath.Join(dir, "pairs.jsonl"), `{"qid": "a", "scholar": {"label": "VALID"}, "auditor": {"label": "VALID"}, "`+key+`": 1}`+"\n")
	code, _, stderr, _ := actionRun(t, dir, map[string]string{"traces": "pairs.jsonl"})
	want := "agentgate: pairs.jsonl:1:1: " + `expected a message list under "messages", "trajectory", "traj", "history" or "conversations"; found keys: auditor, qid, scholar, ` +
		key + "; this looks like a pairs file: give it as the pairs input\n"
	if code != 3 || stderr != want {
		t.Errorf("exit %d\nstderr %q\n  want %q", code, stderr, want)
	}
}

// Every error is printed after "agentgate: ", also one whose text starts with those words
// (a file named so): the prefix is not decided by reading the message.
func TestFailPrefixesEveryError(t *testing.T) {
	t.Chdir(t.TempDir())
	write(t, "agentgate: t.jsonl", "{}\n")
	code, _, stderr := cli(t, "", "gate", "--traces", "agentgate: t.jsonl")
	if want := "agentgate: agentgate: t.jsonl:1:1: "; code != 3 || !strings.HasPrefix(stderr, want) {
		t.Errorf("exit %d\nstderr %q\n  want it to start %q", code, stderr, want)
	}
}
