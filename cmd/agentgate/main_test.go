package main

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// TestVersionFlag builds the binary with -ldflags as the Dockerfile does and checks that the version given
// with -ldflags reaches `agentgate version`, and that the process exits with Main's code.
func TestVersionFlag(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "agentgate")
	build := exec.Command("go", "build", "-ldflags=-X main.version=v9.8.7", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil || string(out) != "agentgate v9.8.7\n" {
		t.Fatalf("agentgate version = %q, %v; want %q", out, err, "agentgate v9.8.7\n")
	}
	err = exec.Command(bin, "no-such-command").Run()
	if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 3 {
		t.Fatalf("agentgate no-such-command: %v; want exit status 3", err)
	}
}
