package entrypoint

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var updateRender = flag.Bool("update-render", false, "rewrite the golden reports of testdata/render (the reports `make render` shows as GitHub does)")

// The golden reports `make render` renders as GitHub shows a comment (docs/development.md,
// "The PR comment as GitHub shows it"): what the gate writes, word for word, for a chain of
// five tau-bench runs ending in a fall from 70% to 35% (generated), the real tau2-bench
// results file of gpt-4.1 on ten airline tasks alone, and the real fine-tuned model against
// it. Each is run as the action runs it (a commit and run id per report, so the trend is
// labelled with short commits), each report the next one's baseline.
func TestRenderGolden(t *testing.T) {
	dir := t.TempDir()
	tauChain(t, dir)
	for _, src := range []string{"gpt-4.1_airline.json", "ft-gpt-4.1_airline.json"} {
		data, err := os.ReadFile(filepath.Join("testdata/tau2pair", src))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, src), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		golden string
		runs   []string // traces of each run in turn, each against the report of the one before
		exit   int
	}{
		{"tau-bench-chain.md", []string{"run1.json", "run2.json", "run3.json", "run4.json", "run5.json"}, 2},
		{"tau2-gpt-4.1.md", []string{"gpt-4.1_airline.json"}, 0},
		{"tau2-pair.md", []string{"gpt-4.1_airline.json", "ft-gpt-4.1_airline.json"}, 0},
	} {
		t.Run(c.golden, func(t *testing.T) {
			prev := ""
			var md string
			for i, traces := range c.runs {
				md = gateAsAction(t, dir, i+1, traces, prev, i == len(c.runs)-1, c.exit)
				prev = fmt.Sprintf("report-%d.json", i+1)
			}
			path := filepath.Join("testdata/render", c.golden)
			if *updateRender {
				if err := os.WriteFile(path, []byte(md), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if md != string(want) {
				t.Errorf("%s differs from what the gate writes (go test ./entrypoint -run TestRenderGolden -update-render rewrites it); the report:\n%s", path, md)
			}
		})
	}
}

// The chain's last report, read as the reviewer of the pull request reads its first screen:
// the verdict with the check's state, the figure that moved with its size and significance,
// the trend against the previous run, and the runs that changed, named apart from new FAIL
// verdicts.
func TestRenderChainFirstScreen(t *testing.T) {
	md, err := os.ReadFile("testdata/render/tau-bench-chain.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(md), "\n", 3)
	if lines[0] != "## ❌ agentgate: FAIL, check failing · 35 of 100 runs succeeded" ||
		lines[1] != "Success fell from 70% to 35% on 100 matched runs (40 newly failed, 5 fixed), significant (McNemar p < 0.0001): fail-on-regression breached." {
		t.Errorf("first two lines:\n%s\n%s", lines[0], lines[1])
	}
	for _, want := range []string{
		"**Trend**: Success rate 35% in this change: previous run (4feedba) 70%, median of the 4 runs before 72.5%.\n",
		`    x-axis ["1c0ffee", "2badd00", "3deface", "4feedba", "this change"]` + "\n    y-axis \"success rate (%)\" 0 --> 100\n    line [72, 75, 73, 70, 35]\n",
		"\n**40 runs newly failed by outcome** (succeeded in the baseline, failed now): `airline/0#0`, ",
		"\n**5 runs fixed by outcome** (failed in the baseline, succeeded now): ",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	for _, bad := range []string{"No new failures", "no success gate set", "unknown", "\\`", "over the last 5 runs", "100%)"} {
		if strings.Contains(string(md), bad) {
			t.Errorf("the report says %q", bad)
		}
	}
	// The figures before the first fold: the title, the sentence, the comparison's table and
	// the trend, in that order.
	i, j, k := strings.Index(string(md), "| success: runs that succeeded"), strings.Index(string(md), "**Trend**"), strings.Index(string(md), "<details>")
	if i < 0 || j < i || k < j {
		t.Errorf("the table (%d), trend (%d) and first fold (%d) are out of order", i, j, k)
	}
}

// chainSHAs are the made-up commits of the chain's five runs.
var chainSHAs = []string{
	"1c0ffee1a2b3c4d5e6f708192a3b4c5d6e7f8091", "2badd00d5e6f708192a3b4c5d6e7f80912a3b4c5",
	"3defaced8192a3b4c5d6e7f8091a2b3c4d5e6f70", "4feedbac92a3b4c5d6e7f8091a2b3c4d5e6f7081",
	"5eedf00d2a3b4c5d6e7f8091a2b3c4d5e6f70819",
}

// gateAsAction runs the gate on traces in dir as the action runs it on a push of commit n
// (1-based) of main, against the report baseline when given, writing report-n.json; it
// returns the markdown report of the last run and checks its exit code.
func gateAsAction(t *testing.T, dir string, n int, traces, baseline string, last bool, exit int) string {
	t.Helper()
	md := fmt.Sprintf("report-%d.md", n)
	args := []string{"gate", "--comment=false", "--traces", traces, "--json", fmt.Sprintf("report-%d.json", n), "--markdown", md}
	if baseline != "" {
		args = append(args, "--baseline", baseline)
	}
	env := []string{"GITHUB_ACTIONS=true", "GITHUB_WORKSPACE=" + dir, "GITHUB_SHA=" + chainSHAs[n-1], "GITHUB_REF=refs/heads/main",
		"GITHUB_RUN_ID=" + strconv.Itoa(9000+n), "GITHUB_RUN_ATTEMPT=1",
		"GITHUB_OUTPUT=" + filepath.Join(dir, "output"), "GITHUB_STEP_SUMMARY=" + filepath.Join(dir, "summary.md")}
	code, stdout, stderr := runEnv(t, dir, env, args...)
	if last && code != exit || !last && code != 0 && code != 2 {
		t.Fatalf("run %d on %s: exit %d\n%s%s", n, traces, code, stdout, stderr)
	}
	out, err := os.ReadFile(filepath.Join(dir, md))
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// runEnv runs the built binary in dir with env besides PATH and HOME.
func runEnv(t *testing.T, dir string, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// tauChain writes run1.json … run5.json into dir: five tau-bench results files as tau-bench's
// run.py writes them (`json.dump([result.model_dump() …], f, indent=2)`: records {task_id,
// reward, info, traj, trial}, OpenAI chat messages in traj), of the same 100 runs (25 tasks,
// 4 trials each), whose successes are 72, 75, 73, 70 and 35; the last two differ in 40 runs
// that newly failed and 5 that were fixed. The content is made up (testdata/render/README.md):
// a successful run books its change; a failed one mostly gives up quietly, as most real
// failures do, some repeat a failing call once, and a few crashed before their first message.
func tauChain(t *testing.T, dir string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(47, 2026))
	pick := func(k int) map[int]bool {
		set := map[int]bool{}
		for _, i := range rng.Perm(100)[:k] {
			set[i] = true
		}
		return set
	}
	r1, r2, r3 := pick(72), pick(75), pick(73)
	perm := rng.Perm(100)
	base, head := map[int]bool{}, map[int]bool{}
	for i, s := range perm {
		switch {
		case i < 30:
			base[s], head[s] = true, true // succeeded in both
		case i < 70:
			base[s] = true // newly failed
		case i < 75:
			head[s] = true // fixed
		}
	}
	for n, succ := range []map[int]bool{r1, r2, r3, base, head} {
		records := make([]tauRecord, 0, 100)
		crashes := 0
		for slot := range 100 {
			task, trial := 2*(slot/4), slot%4
			kind := "quiet"
			switch {
			case succ[slot]:
				kind = "success"
			case n == 4 && task%6 == 0:
				kind = "repeat"
			case n == 4 && crashes < 0: // crashes now count as missing runs (issue 44): none here
				kind, crashes = "crash", crashes+1
			}
			records = append(records, tauRun(task, trial, kind))
		}
		data, err := json.MarshalIndent(records, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("run%d.json", n+1)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// tauRecord is tau-bench's EnvRunResult as run.py dumps it, in its field order.
type tauRecord struct {
	TaskID int            `json:"task_id"`
	Reward float64        `json:"reward"`
	Info   map[string]any `json:"info"`
	Traj   []any          `json:"traj"`
	Trial  int            `json:"trial"`
}

// tauRun is one made-up airline run of task on trial, of a kind: "success", a "quiet" failure
// (the agent gives up), a failure that sends a failing change twice ("repeat"), or a "crash"
// with nothing recorded. Only the chain's last run has the last two: a failure of a task
// divisible by 6 repeats, and its first three other failures crashed.
func tauRun(task, trial int, kind string) tauRecord {
	success := kind == "success"
	user := fmt.Sprintf("user_%02d", task)
	res := fmt.Sprintf("R%04d", 1000+task)
	call := func(id, name, args string) map[string]any {
		return map[string]any{"content": nil, "role": "assistant", "tool_calls": []any{map[string]any{
			"function": map[string]any{"arguments": args, "name": name}, "id": id, "type": "function"}}}
	}
	result := func(id, name, content string) map[string]any {
		return map[string]any{"role": "tool", "tool_call_id": id, "name": name, "content": content}
	}
	say := func(role, text string) map[string]any { return map[string]any{"role": role, "content": text} }
	id := func(k int) string { return fmt.Sprintf("call_%d_%d_%d", task, trial, k) }
	traj := []any{
		say("system", "# Airline Agent Policy\n\nThe current time is 2024-05-15 15:00:00 EST."),
		say("user", "Hi, I'd like to move my reservation "+res+" to a later flight."),
		call(id(1), "get_user_details", `{"user_id":"`+user+`"}`),
		result(id(1), "get_user_details", `{"user_id": "`+user+`", "reservations": ["`+res+`"]}`),
		call(id(2), "get_reservation_details", `{"reservation_id":"`+res+`"}`),
		result(id(2), "get_reservation_details", `{"reservation_id": "`+res+`", "cabin": "economy", "flights": [{"flight_number": "HAT0`+strconv.Itoa(10+task)+`", "date": "2024-05-20"}]}`),
		map[string]any{"content": "I can move " + res + " to HAT1" + strconv.Itoa(10+task) + " on 2024-05-21. Shall I go ahead?", "role": "assistant"},
		say("user", "Yes, please."),
	}
	args := `{"reservation_id":"` + res + `","cabin":"economy","flights":[{"flight_number":"HAT1` + strconv.Itoa(10+task) + `","date":"2024-05-21"}],"payment_id":"credit_card_` + strconv.Itoa(4000+task) + `"}`
	switch {
	case success:
		traj = append(traj,
			call(id(3), "update_reservation_flights", args),
			result(id(3), "update_reservation_flights", `{"reservation_id": "`+res+`", "status": "updated"}`),
			map[string]any{"content": "Done: " + res + " is now on HAT1" + strconv.Itoa(10+task) + " on 2024-05-21.", "role": "assistant"})
	case kind == "crash":
		traj = []any{}
	case kind == "repeat":
		for k := 3; k <= 4; k++ {
			traj = append(traj, call(id(k), "update_reservation_flights", args),
				result(id(k), "update_reservation_flights", "Error: not enough seats on flight HAT1"+strconv.Itoa(10+task)))
		}
		traj = append(traj, map[string]any{"content": "I'm sorry, the flight has no seats left.", "role": "assistant"})
	default:
		traj = append(traj, map[string]any{"content": "I'm sorry, I can't change this reservation.", "role": "assistant"})
	}
	reward := 0.0
	if success {
		reward = 1
	}
	action := map[string]any{"name": "update_reservation_flights", "kwargs": map[string]any{"reservation_id": res}}
	return tauRecord{TaskID: task, Reward: reward, Trial: trial, Traj: traj, Info: map[string]any{
		"task":   map[string]any{"user_id": user, "actions": []any{action}, "instruction": "You want to move " + res + " one day later.", "outputs": []any{}},
		"source": "user", "user_cost": 0.0031,
		"reward_info": map[string]any{"reward": reward, "info": map[string]any{"r_actions": reward, "gt_data_hash": fmt.Sprintf("%064x", task)}, "actions": []any{action}},
	}}
}
