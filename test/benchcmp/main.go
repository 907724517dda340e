//go:build unix

// Command benchcmp measures agentgate against two references, side by side in one run, on a
// generated suite (test/gensuite): a floor program that only reads the traces file line by line
// and checks each line with encoding/json.Valid (the least any gate must do: read and validate
// every byte), and agentgate built at an earlier commit (the newest release tag, else 4902d2b).
//
//	go run ./test/benchcmp [-base REV] [-rounds 5] [-traces-mb 93]
//
// It is run from the repository's root (make bench). The three programs run in turn, round
// after round, so that the load of a shared machine falls on all of them alike; each figure
// is the median over the rounds of a process's CPU time (user + system, all cores) and peak
// RSS, both from the kernel's accounting of the child (getrusage), so no /usr/bin/time is
// needed. The ratios are the result; absolute times depend on the machine.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/agentgate/agentgate/test/gensuite"
)

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
	base := flag.String("base", "", "the commit or tag to compare with (default: the newest tag, else "+defaultBase+")")
	rounds := flag.Int("rounds", 5, "runs of each program")
	mb := flag.Float64("traces-mb", 93, "megabytes of generated traces")
	flag.Parse()
	if err := run(*base, *rounds, *mb); err != nil {
		fmt.Fprintln(os.Stderr, "benchcmp:", err)
		os.Exit(1)
	}
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
	name string
	argv []string
	cpu  []time.Duration
	rss  []int64 // bytes
	code int     // exit code of the first run; every run must give the same
}

func run(base string, rounds int, mb float64) error {
	if _, err := os.Stat("go.mod"); err != nil {
		return errors.New("run me from the repository's root (make bench)")
	}
	tmp, err := os.MkdirTemp("", "agentgate-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

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

	suite, err := gensuite.Write(filepath.Join(tmp, "suite"), gensuite.Config{Seed: 1, TraceBytes: int64(mb * 1e6)})
	if err != nil {
		return err
	}
	traces := suite.Traces[0]
	fmt.Printf("suite: %d traces, %.0f MB (test/gensuite, seed 1); %d rounds\n\n", suite.TraceRecords, float64(suite.TraceBytes)/1e6, rounds)

	floorP := &program{name: "floor: encoding/json.Valid per line", argv: []string{self, "floor", traces}}
	headP := &program{name: "agentgate gate (this tree)", argv: []string{head, "gate", "--traces", traces}}
	baseP := &program{name: "agentgate gate (" + base + ")", argv: []string{old, "gate", "--traces", traces}}
	progs := []*program{floorP, headP, baseP}
	for r := range rounds {
		for _, p := range progs {
			if err := p.measure(r == 0); err != nil {
				return err
			}
		}
	}

	fmt.Printf("%-40s %10s %10s %10s\n", "program", "CPU s", "÷ floor", "peak RSS")
	for _, p := range progs {
		fmt.Printf("%-40s %10.3f %10.2f %7.0f MB\n", p.name, median(p.cpu).Seconds(), ratio(median(p.cpu), median(floorP.cpu)), float64(median(p.rss))/1e6)
	}
	fmt.Printf("\ngate CPU: %.2fx the floor, %.2fx %s (medians of %d alternating runs)\n",
		ratio(median(headP.cpu), median(floorP.cpu)), ratio(median(headP.cpu), median(baseP.cpu)), base, rounds)
	return nil
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
	cmd.Stderr = os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return fmt.Errorf("%s: %w", p.name, err)
	}
	code := cmd.ProcessState.ExitCode()
	switch {
	case code >= 3 || code < 0: // agentgate's exit code for an error; the gate's verdicts are 0-2
		return fmt.Errorf("%s: exit code %d", p.name, code)
	case first:
		p.code = code
	case code != p.code:
		return fmt.Errorf("%s: exit code %d, then %d", p.name, p.code, code)
	}
	st := cmd.ProcessState
	p.cpu = append(p.cpu, st.UserTime()+st.SystemTime())
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
