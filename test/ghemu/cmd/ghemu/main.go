// Command ghemu serves the GitHub REST emulator of package ghemu on a fixed
// address, for tests that run agentgate as a separate process or container:
//
//	ghemu -listen 127.0.0.1:8787 -repo owner/name -token TOKEN [-installation] [-state FILE]
//
// It prints its base URL (the value to give as GITHUB_API_URL) as the first
// line of standard output, then serves until killed. Besides the API it
// answers:
//
//	GET  /_emulator/requests    the recorded API requests, as JSON
//	GET  /_emulator/comments    the current comments, as JSON
//	GET  /_emulator/violations  departures from GitHub's OpenAPI description (with -spec)
//	POST /_emulator/faults      install faults (a JSON ghemu.Fault or an array of them)
//
// Flags:
//
//	-token TOKEN     the one accepted token (required)
//	-installation    the token is an installation token like GITHUB_TOKEN:
//	                 GET /user answers 403 and comments are by github-actions[bot]
//	-read-only       the token cannot write (as for a fork's pull request)
//	-login NAME      the user of a non-installation token (default agentgate-user)
//	-prefix /api/v3  serve under a GHES-style prefix
//	-state FILE      load comments from FILE at start (if it exists) and save
//	                 them there after every change
//	-spec FILE       validate against this OpenAPI description
//	                 (test/github/node_modules/@octokit/openapi/generated/api.github.com.json)
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/agentgate/agentgate/test/ghemu"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "ghemu:", err)
		os.Exit(2)
	}
}

// run parses flags, starts the server and blocks until ctx ends or a signal
// arrives. The first line written to stdout is the base URL.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("ghemu", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:8787", "address to listen on (host:port; port 0 picks a free one)")
	repo := fs.String("repo", "", "the repository that exists, owner/name (required)")
	token := fs.String("token", "", "the accepted token (required)")
	installation := fs.Bool("installation", false, "the token is an Actions installation token (github-actions[bot], /user refused)")
	readOnly := fs.Bool("read-only", false, "the token may read but not write")
	noChecks := fs.Bool("no-checks", false, "the token lacks checks: write (creating a check run answers 403)")
	login := fs.String("login", "agentgate-user", "login of a non-installation token")
	prefix := fs.String("prefix", "", `path prefix of the API, "/api/v3" for GitHub Enterprise Server`)
	statePath := fs.String("state", "", "file to load comments from and save them to")
	specPath := fs.String("spec", "", "OpenAPI description to validate against")
	if err := fs.Parse(args); err != nil {
		return err
	}
	owner, name, ok := strings.Cut(*repo, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return fmt.Errorf("-repo %q: want owner/name", *repo)
	}
	if *token == "" {
		return errors.New("-token is required")
	}
	id := ghemu.User(*login, 1001)
	if *installation {
		id = ghemu.ActionsBot()
	}
	id.ReadOnly, id.NoChecks = *readOnly, *noChecks

	cfg := ghemu.Config{
		Owner: owner, Repo: name, PathPrefix: *prefix,
		Tokens: map[string]ghemu.Identity{*token: id},
	}
	if *specPath != "" {
		spec, err := ghemu.LoadSpec(*specPath)
		if err != nil {
			return err
		}
		cfg.Spec = spec
	}
	var emu *ghemu.Emulator
	if *statePath != "" {
		cfg.OnChange = func() {
			if err := saveState(*statePath, emu.Snapshot()); err != nil {
				fmt.Fprintln(stderr, "ghemu: save state:", err)
			}
		}
	}
	emu = ghemu.New(cfg)
	if *statePath != "" {
		st, err := loadState(*statePath)
		if err != nil {
			return err
		}
		emu.Restore(st)
	}

	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	srv := &http.Server{Handler: emu, ReadHeaderTimeout: 10 * time.Second, ErrorLog: log.New(stderr, "ghemu: ", 0)}
	fmt.Fprintf(stdout, "http://%s%s\n", ln.Addr(), strings.TrimSuffix(*prefix, "/"))
	if f, ok := stdout.(*os.File); ok {
		_ = f.Sync()
	}

	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(shut)
	}
}

// loadState reads a state file; a missing file is an empty state.
func loadState(path string) (ghemu.State, error) {
	var st ghemu.State
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("read state: %w", err)
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		return st, fmt.Errorf("decode state %s: %w", path, err)
	}
	return st, nil
}

// saveState writes the state atomically (temporary file, then rename).
func saveState(path string, st ghemu.State) error {
	raw, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".ghemu-state-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(append(raw, '\n')); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}
