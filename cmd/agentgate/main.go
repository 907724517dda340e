// Command agentgate is the pre-merge gate for AI agents: the GitHub Action's entrypoint and a
// CLI that gives the same answer anywhere. Package entrypoint holds the wiring; this is the
// process around it (arguments, standard streams, environment, interrupt, exit code).
package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/agentgate/agentgate/entrypoint"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	entrypoint.Version = version
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := entrypoint.Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}
