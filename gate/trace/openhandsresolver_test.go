package trace

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/input"
)

// testdata/formats/openhands/resolver/output.jsonl was generated after OpenHands' resolver
// (All-Hands-AI/OpenHands at 156d0686, openhands/resolver/issue_resolver.py: ResolverOutput's
// model_dump_json() a line, history the dataclasses.asdict of each event; see
// testdata/formats/openhands/README.md). Its three runs, counted from the file: issue 12
// resolved (13 events: system prompt, task, recall and its observation, then 4 actions that
// are calls, each answered by the observation after it, the second exiting 1, and finish);
// pull request 15 not resolved (10 events: 3 calls, the last two answered by error
// observations, no finish, error "AgentStuckInLoopError: …"); issue 18 crashed before its
// first turn (history [], error "Agent failed to run or crashed", metrics null).

var resolverPrelude = []string{
	`system "You are OpenHands agent, a helpful AI as"`,
	`user "Please fix the following issue for the r"`,
	`system ""`, // the recall the task asks, not a call of the agent's
	`system "Added workspace context"`,
}

const resolverRunArgs = `,"is_input":false,"blocking":false,"is_static":false,"cwd":null,"hidden":false,"confirmation_state":"confirmed","security_risk":-1}`

var resolverResolved = harnessRun{"acme/widgets/issue/12", "acme/widgets/issue/12", 0, false, 1,
	// metrics.accumulated_token_usage: the sum of the 4 token_usages (cache tokens not added)
	Usage{Prompt: 9000 + 9800 + 10600 + 11300, Completion: 120 + 140 + 210 + 90, Total: 41260, Recorded: true},
	Outcome{Known: true, Value: 1, IsBool: true, Source: "success"},
	append(append([]string{}, resolverPrelude...),
		`assistant "Let me find parse_date." call[event-4 run {"command":"grep -rn parse_date src/"`+resolverRunArgs+`]`,
		`tool "src/widgets/dates.py:2:def parse_date(s)" ok[event-4]`,
		`assistant "Run its tests first." call[event-6 run {"command":"python -m pytest tests/test_dates.py -q"`+resolverRunArgs+`]`,
		`tool "F." FAIL[event-6 "exit code 1"]`, // metadata.exit_code 1
		`assistant "Accept the Z suffix." call[event-8 edit {"path":"/workspace/src/widgets/dates.py","command":"str_replace","file_text":null,"old_str":"    return datetime.fromisoformat(s)","new_str":"    return datetime.fromisoformat(s.replace('Z', '+00:00'))","insert_line":null,"content":"","start":1,"end":-1,"security_risk":-1,"impl_source":"oh_aci"}]`,
		`tool "The file /workspace/src/widgets/dates.py" ok[event-8]`,
		`assistant "" call[event-10 run {"command":"python -m pytest tests/test_dates.py -q"`+resolverRunArgs+`]`,
		`tool ".." ok[event-10]`,
		`assistant "parse_date now accepts the Z suffix; the"`, // finish: the agent's last word
	)}

var resolverStuck = harnessRun{"acme/widgets/pr/15", "acme/widgets/pr/15", 0, false, 2,
	Usage{Prompt: 8700 + 9400 + 9900, Completion: 95 + 60 + 55, Total: 28210, Recorded: true},
	Outcome{Known: true, Value: 0, IsBool: true, Source: "success"},
	[]string{
		resolverPrelude[0],
		`user "Please address the review comments on th"`,
		resolverPrelude[2], resolverPrelude[3],
		`assistant "Look at the tests." call[event-4 read {"path":"/workspace/tests/test_dates.py","start":0,"end":-1,"security_risk":-1,"impl_source":"oh_aci","view_range":null}]`,
		"tool \"Here's the result of running `cat -n` on\" ok[event-4]",
		`assistant "Run the test suite." call[event-6 run {"command":"npm test"` + resolverRunArgs + `]`,
		`tool "The command npm test timed out after 120" FAIL[event-6 "The command npm test timed out after 120"]`, // an error observation
		`assistant "Run it again." call[event-8 run {"command":"npm test"` + resolverRunArgs + `]`,
		`tool "The command npm test timed out after 120" FAIL[event-8 "The command npm test timed out after 120"]`,
	}}

var resolverCrashed = harnessRun{"acme/widgets/issue/18", "acme/widgets/issue/18", 0, false, 3,
	Usage{}, Outcome{Known: true, Value: 0, IsBool: true, Source: "success"}, nil}

func TestOpenHandsResolver(t *testing.T) {
	path := filepath.Join("testdata", "formats", "openhands", "resolver", "output.jsonl")
	if f, err := Sniff(path); err != nil || f != FormatOpenHandsResolver {
		t.Fatalf("Sniff = %v, %v; want %v", f, err, FormatOpenHandsResolver)
	}
	got := readWith(t, path, Options{})
	checkRuns(t, got, []harnessRun{resolverResolved, resolverStuck, resolverCrashed})
	for i, w := range []struct {
		calls, failed int
		perCall       CallUsage
		agent, crash  string
	}{
		{4, 1, CallUsage{Calls: 4, MaxPrompt: 11300}, "anthropic/claude-sonnet-4-20250514", ""},
		// no finish: the error the controller recorded ended the run
		{3, 2, CallUsage{Calls: 3, MaxPrompt: 9900}, "anthropic/claude-sonnet-4-20250514", "AgentStuckInLoopError: Agent got stuck in a loop"},
		{0, 0, CallUsage{}, "", "Agent failed to run or crashed"},
	} {
		tr := got[i]
		failed := failedResults(tr)
		if tr.NumCalls() != w.calls || failed != w.failed || tr.PerCall != w.perCall || tr.Agent != w.agent || tr.Crash != w.crash || tr.Shape != ShapeOpenHandsResolver {
			t.Errorf("run %d: %d calls, %d failed, per call %+v, agent %q, crash %q, shape %q; want %d, %d, %+v, %q, %q",
				i, tr.NumCalls(), failed, tr.PerCall, tr.Agent, tr.Crash, tr.Shape, w.calls, w.failed, w.perCall, w.agent, w.crash)
		}
		if got, want := tr.TerminalTools, []string{"finish"}; len(got) != 1 || got[0] != want[0] {
			t.Errorf("run %d: terminal tools %v, want %v", i, got, want)
		}
	}
}

// resolverRecord is a resolver output of one issue with the given history and members after it.
func resolverRecord(history, rest string) string {
	return `{"issue":{"owner":"o","repo":"r","number":7,"title":"t","body":"b"},"issue_type":"issue","instruction":"i","base_commit":"c","git_patch":"",` +
		`"history":` + history + rest + `}`
}

// resolverRead reads text as a file output.jsonl; an error's text names the file as
// "output.jsonl", without its folder.
func resolverRead(t *testing.T, text string) ([]*Trace, string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "output.jsonl"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var out []*Trace
	err := EachFile(context.Background(), filepath.Join(dir, "output.jsonl"), func(tr *Trace) error { out = append(out, tr); return nil })
	if err == nil {
		return out, ""
	}
	if !input.IsInputError(err) {
		t.Errorf("%T is not an input error (exit code 3)", err)
	}
	return out, strings.TrimPrefix(err.Error(), dir+string(filepath.Separator))
}

// TestOpenHandsResolverError: state.last_error is never cleared, so a run that met an error
// and then finished keeps it; only a run the error stopped (no finish after it) is a crash.
func TestOpenHandsResolverError(t *testing.T) {
	const run = `{"command":"ls","thought":"","action":"run"},{"content":"a","command":"ls","observation":"run","metadata":{"exit_code":0}}`
	for _, c := range []struct {
		name, history, crash string
	}{
		{"finished after the error", `[` + run + `,{"final_thought":"done","outputs":{},"thought":"","action":"finish"}]`, ""},
		{"stopped by the error", `[` + run + `]`, "RateLimitError: litellm.RateLimitError: too many requests"},
		// the agent's message after finish is another turn: the run did not end on finish
		{"a turn after finish", `[` + run + `,{"final_thought":"done","outputs":{},"thought":"","action":"finish"},{"command":"ls","thought":"","action":"run"}]`, "RateLimitError: litellm.RateLimitError: too many requests"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := resolverRead(t, resolverRecord(c.history, `,"metrics":null,"success":true,"comment_success":null,"result_explanation":"","error":"RateLimitError: litellm.RateLimitError: too many requests"`))
			if err != "" {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0].Crash != c.crash || !got[0].HasAgentTurn() {
				t.Fatalf("got %d runs, crash %q; want 1 run with turns, crash %q", len(got), got[0].Crash, c.crash)
			}
		})
	}
}

// TestOpenHandsResolverEventToDict: a resolver output whose history a fork wrote as
// event_to_dict does (ids, causes, args and extras) is read as OpenHands' evaluation output
// reads the same events.
func TestOpenHandsResolverEventToDict(t *testing.T) {
	history := `[{"id":1,"source":"user","action":"message","args":{"content":"fix it","wait_for_response":false}},` +
		`{"id":2,"source":"agent","action":"run","args":{"command":"make","thought":"build"},"tool_call_metadata":{"function_name":"execute_bash","tool_call_id":"t1"}},` +
		`{"id":3,"source":"agent","cause":2,"observation":"run","content":"fail","extras":{"metadata":{"exit_code":2}},"success":false,"tool_call_metadata":{"function_name":"execute_bash","tool_call_id":"t1"}}]`
	got, err := resolverRead(t, resolverRecord(history, `,"metrics":null,"success":false,"comment_success":null,"result_explanation":"","error":null`))
	if err != "" {
		t.Fatal(err)
	}
	want := []string{
		`user "fix it"`,
		`assistant "build" call[t1 execute_bash {"command":"make"}]`,
		`tool "fail" FAIL[t1 "fail"]`,
	}
	if d := describe(got[0]); strings.Join(d, "\n") != strings.Join(want, "\n") {
		t.Errorf("messages:\n%s\nwant\n%s", strings.Join(d, "\n"), strings.Join(want, "\n"))
	}
}

// TestOpenHandsResolverRefused: a resolver output that cannot be read as the resolver writes
// it is an error naming the format, the key looked for and where (exit code 3), never a run
// read blind.
func TestOpenHandsResolverRefused(t *testing.T) {
	// resolverRecord's history starts at column 151 (the length of what precedes it, plus 1)
	const tail = `,"metrics":null,"success":false,"comment_success":null,"result_explanation":"","error":null`
	for _, c := range []struct{ name, text, want string }{
		{"no history", `{"issue":{"owner":"o","repo":"r","number":7},"issue_type":"issue","success":true}`,
			`output.jsonl:1:1: an OpenHands resolver output (o/r/issue/7) without "history": the agent's turns are looked for there, and there is nothing to read`},
		{"history not a list", resolverRecord(`{"a":1}`, tail),
			`output.jsonl:1:151: field "history": expected a list of events, found an object`},
		{"an event without a kind", resolverRecord(`[{"content":"x"}]`, tail),
			`output.jsonl:1:152: history[0]: an event with neither "action" nor "observation"`},
		{"no issue number", `{"issue":{"owner":"o","repo":"r"},"issue_type":"issue","history":[]}`,
			`output.jsonl:1:10: field "issue.number": missing: an OpenHands resolver output's run is known by its issue's owner, repo, type and number`},
		{"success not a boolean", resolverRecord(`[]`, `,"success":1`),
			`output.jsonl:1:164: field "success": expected true or false, found a number`},
		{"a negative token count", resolverRecord(`[]`, `,"metrics":{"accumulated_token_usage":{"prompt_tokens":-3}}`),
			`output.jsonl:1:208: field "metrics.accumulated_token_usage.prompt_tokens": must be a non-negative integer, got -3`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := resolverRead(t, c.text)
			if err != c.want {
				t.Errorf("err = %v\nwant %s", err, c.want)
			}
		})
	}
}

// FuzzOpenHandsResolver feeds arbitrary bytes to the resolver output reader: it returns runs
// with ids, or an *input.Error naming the file, and never panics.
func FuzzOpenHandsResolver(f *testing.F) {
	seedFile(f, filepath.Join("openhands", "resolver", "output.jsonl"))
	f.Add([]byte(resolverRecord(`[[{"id":1,"action":"run","args":{"command":"ls"}},{"observation":"run","cause":1,"content":"x"}]]`, `,"metrics":{"accumulated_token_usage":{"prompt_tokens":5},"token_usages":[{"prompt_tokens":5}]},"success":true,"error":"e"`)))
	f.Fuzz(func(t *testing.T, data []byte) {
		err := input.EachReader("f.jsonl", bytes.NewReader(data), func(rec input.Record) error {
			tr, err := decodeResolverOutput(rec)
			if err != nil {
				return err
			}
			if tr.ID == "" || tr.Shape != ShapeOpenHandsResolver {
				t.Fatalf("trace %+v", tr)
			}
			return nil
		})
		checkFormatError(t, err, "f.jsonl")
	})
}
