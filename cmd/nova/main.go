// Command nova is a terminal workbench for local-LLM coding agents.
package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"charm.land/fang/v2"
)

// Set by the linker (-X main.version=...).
var (
	version = "dev"
	commit  = ""
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:]))
}

func run(ctx context.Context, args []string) int {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	a := newApp(os.Stdout, os.Stderr, os.Getenv)
	root := a.rootCmd()
	root.SetArgs(args)
	opts := []fang.Option{fang.WithVersion(version), fang.WithErrorHandler(errorHandler)}
	if commit != "" {
		opts = append(opts, fang.WithCommit(commit))
	}
	err := fang.Execute(ctx, root, opts...)
	return exitCode(err)
}

// exitCode maps errors to the CLI contract: 0 ok, 1 failure, 2 bad usage.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ue *usageError
	if errors.As(err, &ue) || isCobraUsage(err) {
		return 2
	}
	return 1
}

func isCobraUsage(err error) bool {
	s := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "flag needs an argument", "invalid argument", "accepts ", "requires at least", "requires at most", "requires exactly"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
