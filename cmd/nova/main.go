// Command nova is a terminal workbench for local-LLM coding agents.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"charm.land/fang/v2"
	"golang.org/x/term"
)

// Set by the linker (-X main.version=...).
var (
	version = "dev"
	commit  = ""
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	cwd, _ := os.Getwd()
	io := &IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		InTTY: term.IsTerminal(int(os.Stdin.Fd())), ErrTTY: term.IsTerminal(int(os.Stderr.Fd()))}
	code := run(ctx, newEnv(io, os.Getenv, cwd), os.Args[1:])
	stop()
	os.Exit(code)
}

// run executes one command line in env and returns its exit code.
func run(ctx context.Context, env *Env, args []string) int {
	root := rootCmd(env)
	root.SetArgs(args)
	root.SetIn(env.IO.In)
	root.SetOut(env.IO.Out)
	root.SetErr(env.IO.ErrOut)
	opts := []fang.Option{fang.WithVersion(env.Version), fang.WithErrorHandler(env.errorHandler)}
	if env.Commit != "" {
		opts = append(opts, fang.WithCommit(env.Commit))
	}
	return exitCode(fang.Execute(ctx, root, opts...))
}
