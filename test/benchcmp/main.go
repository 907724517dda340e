//go:build unix

// Command benchcmp measures agentgate against references, side by side in one run, on a
// generated suite (test/gensuite): a floor program that only reads the traces file line by line
// and checks each line with encoding/json.Valid (the least any gate must do: read and validate
// every byte), agentgate from the working tree on every core and on one (GOMAXPROCS=1, as the
// floor runs), agentgate built at an earlier commit (the newest release tag, else 4902d2b), and,
// given a checkout of RS-1 (-rs1), RS-1's own Python evaluator over the same traces.
//
//	go run ./test/benchcmp [-base REV] [-rounds 5] [-traces-mb 93] [-messages 12] [-content 130] [-pin CPU] [-rs1 DIR]
//
// RS-1's own ExecutionTrace shape (tool_calls and tool_results arrays with object arguments,
// about 17 short messages a trace) is -messages 17 -content 40.
//
// It is run from the repository's root (make bench). The programs run in turn, round after
// round, so that the load of a shared machine falls on all of them alike; each figure is the
// median over the rounds of a process's CPU time (user + system, all cores), its wall time and
// its peak RSS, the first and last from the kernel's accounting of the child (getrusage), so no
// /usr/bin/time is needed. The ratios are the result; absolute times depend on the machine.
//
// With -rs1, RS-1's reports are also checked against agentgate's reference profile, trace by
// trace: the same verdict and an overall score within 1e-9, as the parity tests demand of RS-1's
// two sample traces, here over the whole suite.
package main

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/agentgate/agentgate/test/gensuite"
)

// rs1eval is the Python program that runs RS-1's evaluator over a JSON Lines file.
//
//go:embed rs1eval.py
var rs1eval []byte

// defaultBase is the commit compared against while the repository has no release tag.
const defaultBase = "4902d2b"

func main() {
	if len(os.Args) == 3 && os.Args[1] == "floor" {
		if err := floor(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, "benchcmp floor:", err)
			os.Exit(1)
		}
		return
	}
	var c config
	flag.StringVar(&c.base, "base", "", "the commit or tag to compare with (default: the newest tag, else "+defaultBase+")")
	flag.IntVar(&c.rounds, "rounds", 5, "runs of each program")
	flag.Float64Var(&c.mb, "traces-mb", 93, "megabytes of generated traces")
	flag.IntVar(&c.messages, "messages", 12, "messages a trace (12: about 20,000 traces in 93 MB)")
	flag.IntVar(&c.content, "content", 0, "about how many bytes of text a message holds (0: gensuite's 130); -messages 17 -content 40 is the shape of RS-1's own sample traces")
	flag.StringVar(&c.rs1, "rs1", "", "a checkout of RS-1 (github.com/anand008186/RS-1) whose evaluator to run too")
	flag.StringVar(&c.python, "python", "python3", "the Python that runs RS-1")
	flag.StringVar(&c.pin, "pin", "", "run the floor and the gate on one core on this CPU (with taskset), so that their ratio compares the work on the same core: the CPUs of a shared VM may run at different speeds")
	flag.Parse()
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "benchcmp:", err)
		os.Exit(1)
	}
}

// config is what the flags ask for.
type config struct {
	base        string
	rounds      int
	mb          float64
	messages    int
	content     int
	rs1, python string
	pin         string // the CPU the one-core programs run on, "" for any
}

// floor reads the file at path line by line and checks each line with json.Valid.
func floor(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	for n := 1; ; n++ {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// a line longer than the buffer: read the rest of it
			long := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = r.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if len(line) > 0 && !json.Valid(line) {
			return fmt.Errorf("%s:%d: invalid JSON", path, n)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// program is one command measured.
type program struct {
	name   string
	argv   []string
	env    []string // its environment; nil: this process's
	stdout string   // the file its standard output goes to; "" discards it
	cpu    []time.Duration
	wall   []time.Duration
	rss    []int64 // bytes
	code   int     // exit code of the first run; every run must give the same
}

func run(c config) error {
	if _, err := os.Stat("go.mod"); err != nil {
		return errors.New("run me from the repository's root (make bench)")
	}
	if c.rs1 != "" {
		if _, err := os.Stat(filepath.Join(c.rs1, "rs1", "core", "evaluator.py")); err != nil {
			return fmt.Errorf("-rs1 %s: not a checkout of RS-1 (no rs1/core/evaluator.py)", c.rs1)
		}
	}
	tmp, err := os.MkdirTemp("", "agentgate-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	base := c.base
	if base == "" {
		base = defaultBase
		if tag, err := output("git", "describe", "--tags", "--abbrev=0"); err == nil && tag != "" {
			base = tag
		}
	}
	fmt.Printf("building agentgate from this tree and at %s\n", base)
	head := filepath.Join(tmp, "agentgate-head")
	if err := command("", "go", "build", "-o", head, "./cmd/agentgate"); err != nil {
		return err
	}
	old, err := buildAt(base, tmp)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}

	suite, err := gensuite.Write(filepath.Join(tmp, "suite"), gensuite.Config{Seed: 1, TraceBytes: int64(c.mb * 1e6), Messages: c.messages, ContentBytes: c.content})
	if err != nil {
		return err
	}
	traces := suite.Traces[0]
	fmt.Printf("suite: %d traces of %d messages, %.0f MB (test/gensuite, seed 1); %d rounds\n\n",
		suite.TraceRecords, c.messages, float64(suite.TraceBytes)/1e6, c.rounds)

	floorP := &program{name: "floor: encoding/json.Valid per line", argv: []string{self, "floor", traces}}
	headP := &program{name: "agentgate gate (this tree)", argv: []string{head, "gate", "--traces", traces}}
	// the floor runs on one core: this is the gate doing the same on one, so that the ratio
	// compares the work per byte and not also what running on every core costs
	oneP := &program{name: "agentgate gate (this tree, one core)", argv: headP.argv,
		env: append(environWithout("GOMAXPROCS"), "GOMAXPROCS=1")}
	baseP := &program{name: "agentgate gate (" + base + ")", argv: []string{old, "gate", "--traces", traces}}
	if c.pin != "" {
		for _, p := range []*program{floorP, oneP} {
			p.argv = append([]string{"taskset", "-c", c.pin}, p.argv...)
			p.name += ", CPU " + c.pin
		}
	}
	progs := []*program{floorP, headP, oneP, baseP}
	var rs1Eval, rs1CLI, jsonP *program
	if c.rs1 != "" {
		python, env, err := pythonFor(c.python)
		if err != nil {
			return err
		}
		driver := filepath.Join(tmp, "rs1eval.py")
		if err := os.WriteFile(driver, rs1eval, 0o644); err != nil {
			return err
		}
		jsonP = &program{name: "agentgate gate --json (this tree)", argv: []string{head, "gate", "--traces", traces, "--json", filepath.Join(tmp, "report.json")}}
		rs1Eval = &program{name: "RS-1 1.0.0: read and evaluate", argv: []string{python, "-B", driver, c.rs1, traces}, env: env}
		rs1CLI = &program{name: "RS-1 1.0.0: + json.dump reports (CLI)", argv: []string{python, "-B", driver, c.rs1, traces, "--reports"},
			env: env, stdout: filepath.Join(tmp, "rs1.jsonl")}
		progs = append(progs, jsonP, rs1Eval, rs1CLI)
	}
	for r := range c.rounds {
		for _, p := range progs {
			if err := p.measure(r == 0); err != nil {
				return err
			}
		}
	}

	fmt.Printf("%-50s %8s %8s %8s %10s\n", "program", "CPU s", "÷ floor", "wall s", "peak RSS")
	for _, p := range progs {
		fmt.Printf("%-50s %8.3f %8.2f %8.3f %7.0f MB\n", p.name, median(p.cpu).Seconds(),
			ratio(median(p.cpu), median(floorP.cpu)), median(p.wall).Seconds(), float64(median(p.rss))/1e6)
	}
	fmt.Printf("\ngate CPU: %.2fx the floor, %.2fx on one core, %.2fx %s (medians of %d alternating runs)\n",
		ratio(median(headP.cpu), median(floorP.cpu)), ratio(median(oneP.cpu), median(floorP.cpu)), ratio(median(headP.cpu), median(baseP.cpu)), base, c.rounds)
	fmt.Printf("round by round (each run against the floor's run just before it, whose load it shares): median %.2fx, %.2fx on one core\n",
		pairedRatio(headP, floorP), pairedRatio(oneP, floorP))
	if c.rs1 == "" {
		fmt.Println("RS-1's evaluator: not run (make bench RS1=<a checkout of github.com/anand008186/RS-1>)")
		return nil
	}
	fmt.Printf("RS-1 evaluating takes %.1fx the gate's CPU time and %.1fx its wall time\n",
		ratio(median(rs1Eval.cpu), median(headP.cpu)), ratio(median(rs1Eval.wall), median(headP.wall)))
	fmt.Printf("RS-1 writing its reports takes %.1fx the CPU time of the gate writing its JSON report, %.1fx its wall time\n",
		ratio(median(rs1CLI.cpu), median(jsonP.cpu)), ratio(median(rs1CLI.wall), median(jsonP.wall)))
	n, err := parity(head, traces, rs1CLI.stdout, filepath.Join(tmp, "reference.json"))
	if err != nil {
		return err
	}
	fmt.Printf("parity: RS-1 and agentgate --profile reference give every one of the %d traces the same verdict and score (within 1e-9)\n", n)
	return nil
}

// pythonFor returns the interpreter that name runs (not a launcher such as pyenv's shim, whose
// start would be measured), and an environment without PYTHONUNBUFFERED, under which RS-1's
// json.dump makes a write system call for every piece of every report and takes twice as long.
func pythonFor(name string) (string, []string, error) {
	exe, err := output(name, "-c", "import sys; print(sys.executable)")
	if err != nil || exe == "" {
		return "", nil, fmt.Errorf("%s: cannot run it to find its interpreter: %v", name, err)
	}
	return exe, environWithout("PYTHONUNBUFFERED"), nil
}

// environWithout is this process's environment without the variable name.
func environWithout(name string) []string {
	return slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, name+"=") })
}

// parity runs agentgate's reference profile over traces and checks its verdict and score of
// every trace against RS-1's reports (one JSON object a line, in the traces' order). It
// returns the number of traces compared.
func parity(agentgate, traces, rs1Reports, reportPath string) (int, error) {
	cmd := exec.Command(agentgate, "gate", "--traces", traces, "--profile", "reference", "--json", reportPath)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil && cmd.ProcessState.ExitCode() >= 3 {
		return 0, fmt.Errorf("agentgate --profile reference: %w", err)
	}
	var ours struct {
		Reliability struct {
			Traces []struct {
				ID      string  `json:"id"`
				Verdict string  `json:"verdict"`
				Score   float64 `json:"score"`
			} `json:"traces"`
		} `json:"reliability"`
	}
	data, err := os.ReadFile(reportPath)
	if err != nil {
		return 0, err
	}
	if err := json.Unmarshal(data, &ours); err != nil {
		return 0, fmt.Errorf("%s: %w", reportPath, err)
	}
	f, err := os.Open(rs1Reports)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReader(f))
	n := 0
	for ; ; n++ {
		var theirs struct {
			TraceID string  `json:"trace_id"`
			Verdict string  `json:"verdict"`
			Score   float64 `json:"overall_score"`
		}
		if err := dec.Decode(&theirs); err == io.EOF {
			break
		} else if err != nil {
			return 0, fmt.Errorf("RS-1's report %d: %w", n+1, err)
		}
		if n >= len(ours.Reliability.Traces) {
			return 0, fmt.Errorf("RS-1 reported %d traces or more, agentgate %d", n+1, len(ours.Reliability.Traces))
		}
		t := ours.Reliability.Traces[n]
		if t.ID != theirs.TraceID || t.Verdict != theirs.Verdict || math.Abs(t.Score-theirs.Score) > 1e-9 {
			return 0, fmt.Errorf("trace %d: RS-1 says %s %s %v, agentgate --profile reference %s %s %v",
				n+1, theirs.TraceID, theirs.Verdict, theirs.Score, t.ID, t.Verdict, t.Score)
		}
	}
	if n != len(ours.Reliability.Traces) {
		return 0, fmt.Errorf("RS-1 reported %d traces, agentgate %d", n, len(ours.Reliability.Traces))
	}
	return n, nil
}

// buildAt builds agentgate at rev from a temporary git worktree, and returns the binary.
func buildAt(rev, tmp string) (string, error) {
	dir := filepath.Join(tmp, "base")
	if err := command("", "git", "worktree", "add", "--detach", "--quiet", dir, rev); err != nil {
		return "", err
	}
	defer command("", "git", "worktree", "remove", "--force", dir)
	bin := filepath.Join(tmp, "agentgate-base")
	return bin, command(dir, "go", "build", "-o", bin, mainPackage(dir))
}

// mainPackage is the agentgate main package of the tree at dir: ./cmd/agentgate, or
// ./entrypoint in trees from before the binary moved there.
func mainPackage(dir string) string {
	if _, err := os.Stat(filepath.Join(dir, "cmd", "agentgate", "main.go")); err == nil {
		return "./cmd/agentgate"
	}
	return "./entrypoint"
}

// measure runs the program once and notes its CPU time and peak RSS.
func (p *program) measure(first bool) error {
	cmd := exec.Command(p.argv[0], p.argv[1:]...)
	cmd.Stderr, cmd.Env = os.Stderr, p.env
	if p.stdout != "" {
		out, err := os.Create(p.stdout)
		if err != nil {
			return err
		}
		defer out.Close()
		cmd.Stdout = out
	}
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return fmt.Errorf("%s: %w", p.name, err)
	}
	code := cmd.ProcessState.ExitCode()
	switch {
	case code >= 3 || code < 0: // an error, for agentgate and RS-1 alike; verdicts are 0-2
		return fmt.Errorf("%s: exit code %d", p.name, code)
	case first:
		p.code = code
	case code != p.code:
		return fmt.Errorf("%s: exit code %d, then %d", p.name, p.code, code)
	}
	st := cmd.ProcessState
	p.cpu = append(p.cpu, st.UserTime()+st.SystemTime())
	p.wall = append(p.wall, wall)
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		p.rss = append(p.rss, int64(ru.Maxrss)*1024) // kilobytes on Linux
	}
	return nil
}

func median[T time.Duration | int64](xs []T) T {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// pairedRatio is the median over the rounds of p's CPU time over base's in the same round: on a
// machine whose load drifts, steadier than the ratio of the medians.
func pairedRatio(p, base *program) float64 {
	rs := make([]float64, 0, len(p.cpu))
	for i := range min(len(p.cpu), len(base.cpu)) {
		rs = append(rs, ratio(p.cpu[i], base.cpu[i]))
	}
	if len(rs) == 0 {
		return 0
	}
	slices.Sort(rs)
	return rs[len(rs)/2]
}

func ratio(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// command runs name with args in dir (the current directory when empty), its output on
// stderr.
func command(dir, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return nil
}

// output runs name with args and returns its standard output, trimmed.
func output(name string, args ...string) (string, error) {
	out, err := exec.Command(name, args...).Output()
	return strings.TrimSpace(string(out)), err
}
