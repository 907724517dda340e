package trace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testdata/formats/minisweagent-0.x/traj.json was generated as mini-swe-agent wrote runs before
// 1.0 (SWE-agent/mini-swe-agent at 3acba3d7, then microsweagent: run/local.py writes
// json.dumps(agent.messages, indent=2) to traj.json; agents/default.py's messages, rendered
// from config/local.yaml's templates with jinja2). Counted from the file with python3's
// re.findall(r"```[a-zA-Z]*\n(.*?)(?=\n```|```)", content, re.DOTALL) over the assistant
// turns, as that version's parse_action counts actions: 6 turns, of which 5 hold exactly one
// action (message 4 holds 3 matches and got the format error); each answered by the next user
// message, 2 of them failed (message 7: <returncode> 1; message 11: the timeout template).
func TestMiniSWEBareList(t *testing.T) {
	path := filepath.Join("testdata", "formats", "minisweagent-0.x", "traj.json")
	got := readWith(t, path, Options{})
	checkRuns(t, got, []harnessRun{{path, "", 0, false, 1, Usage{}, Outcome{}, []string{
		`system "You are a helpful assistant that can int"`,
		`user "Please solve this issue: greet() in app."`,
		`assistant "THOUGHT: Find greet()." call[action-2 bash {"command":"grep -n greet *.py"}]`,
		`user "<returncode>" ok[action-2]`,            // describe shows a content's first line
		`assistant "THOUGHT: Look at it and run it."`, // three matches: no action ran
		`user "Please always provide EXACTLY ONE action"`,
		`assistant "THOUGHT: Run the test first." call[action-6 bash {"command":"python test_app.py"}]`,
		`user "<returncode>" FAIL[action-6 "<returncode>"]`, // return code 1
		`assistant "THOUGHT: Line 5 prints it again; delete " call[action-8 bash {"command":"sed -i '5d' app.py \u0026\u0026 python test_app.py"}]`,
		`user "<returncode>" ok[action-8]`,
		`assistant "THOUGHT: Check the interactive mode too." call[action-10 bash {"command":"python app.py --interactive"}]`,
		`user "The command timed out. Please change you" FAIL[action-10 "The command timed out. Please change you"]`,
		`assistant "THOUGHT: Done." call[action-12 bash {"command":"echo MICRO_SWE_AGENT_FINAL_OUTPUT"}]`,
		`user "" ok[action-12]`, // the submission: what the command printed after the sentinel
	}}})
	if tr := got[0]; tr.NumCalls() != 5 || failedResults(tr) != 2 || tr.Shape != ShapeOpenAI {
		t.Errorf("%d calls, %d failed, shape %q; want 5, 2, openai", tr.NumCalls(), failedResults(tr), tr.Shape)
	}
}

// TestMiniSWEBareListMarks: a bare list is mini-swe-agent's only on a mark of it; without
// one, a list whose assistant turns hold fenced blocks is refused, never read as a run that
// took no action; OpenHands' trajs/<id>.json is read as before.
func TestMiniSWEBareListMarks(t *testing.T) {
	const turn = `{"role": "assistant", "content": "T\n\n` + "```bash\\nls\\n```" + `"}`
	for _, c := range []struct {
		name, file, doc string
		calls, failed   int
		id, task, err   string
	}{
		{"named for its instance", "a__b-1.traj.json", `[` + turn + `, {"role": "user", "content": "x"}]`, 1, 0, "a__b-1", "a__b-1", ""},
		{"named traj.json", "traj.json", `[` + turn + `, {"role": "user", "content": "<returncode>\n2\n</returncode>"}]`, 1, 1, "", "", ""},
		{"a <returncode> observation", "run.json", `[` + turn + `, {"role": "user", "content": "<returncode>\n0\n</returncode>"}]`, 1, 0, "", "", ""},
		{"the first versions' <args>", "run.json", `[` + turn + `, {"role": "user", "content": "<args>\n['bash', '-c', 'ls']\n</args>\n<returncode>\n2\n</returncode>"}]`, 1, 1, "", "", ""},
		{"a long output's head", "run.json", `[` + turn + `, {"role": "user", "content": "<warning>\ntoo long\n</warning><observation_head>\n<returncode>\n1\n</returncode>"}]`, 1, 1, "", "", ""},
		// a bare list kept by a later version (mini-swe-agent's own tests/test_data): its 2.x block
		{"a 2.x action block", "local.traj.json", `[{"role": "assistant", "content": "` + "```mswea_bash_command\\necho hi\\n```" + `"}, {"role": "user", "content": "<returncode>0</returncode>\n<output>\nhi\n</output>"}]`, 1, 0, "local", "local", ""},
		{"the submit command", "run.json", `[{"role": "assistant", "content": "` + "```bash\\necho MINI_SWE_AGENT_FINAL_OUTPUT\\n```" + `"}, {"role": "user", "content": ""}]`, 1, 0, "", "", ""},
		// the fenced block's content starts at column 69: 35 bytes of the first message and ", ", 33 of the second's start
		{"unmarked", "run.json", `[{"role": "user", "content": "q"}, ` + turn + `, {"role": "user", "content": "a.py"}]`, 0, 0, "", "",
			`run.json:1:69: message [1] holds a fenced block, as mini-swe-agent writes its actions, but nothing marks the list as mini-swe-agent's (a file named traj.json or <instance_id>.traj.json, a "<returncode>" observation, its submit command), and no turn holds a call: agentgate cannot tell whether the blocks ran (docs/trace-formats.md, "mini-swe-agent trajectories")`},
		{"no fenced block", "run.json", `[{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]`, 0, 0, "run", "run", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, c.file)
			if err := os.WriteFile(path, []byte(c.doc), 0o644); err != nil {
				t.Fatal(err)
			}
			if f, err := Sniff(path); err != nil || f != FormatMessageList {
				t.Fatalf("Sniff = %v, %v", f, err)
			}
			tr, err := decodeMessageList(path, []byte(c.doc))
			if c.err != "" {
				if err == nil || strings.TrimPrefix(err.Error(), dir+string(filepath.Separator)) != c.err {
					t.Fatalf("err = %v\nwant %s", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			id := c.id
			if id == "" {
				id = path
			}
			if tr.NumCalls() != c.calls || failedResults(tr) != c.failed || tr.ID != id || tr.Task != c.task {
				t.Errorf("%d calls, %d failed, id %q task %q; want %d, %d, %q, %q", tr.NumCalls(), failedResults(tr), tr.ID, tr.Task, c.calls, c.failed, id, c.task)
			}
		})
	}
}

// FuzzMiniSWEBareList feeds arbitrary message lists, marked as mini-swe-agent's by their
// name, to the message list reader: it returns a run, or an *input.Error naming the file.
func FuzzMiniSWEBareList(f *testing.F) {
	seedFile(f, filepath.Join("minisweagent-0.x", "traj.json"))
	f.Add([]byte("[{\"role\": \"assistant\", \"content\": \"```\\nls```\\n```bash\\nx\\n```\"}, {\"role\": \"user\", \"content\": \"<warning><observation_head><returncode>-1</returncode>\"}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := decodeMessageList("t.traj.json", data)
		checkFormatError(t, err, "t.traj.json")
		if err == nil && (tr.ID != "t" || tr.Shape != ShapeOpenAI) {
			t.Fatalf("trace %+v", tr)
		}
	})
}
