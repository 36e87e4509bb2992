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
	cwd, _ := os.Getwd()
	io := &IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		InTTY: term.IsTerminal(int(os.Stdin.Fd())), ErrTTY: term.IsTerminal(int(os.Stderr.Fd()))}
	env := newEnv(io, os.Getenv, cwd)
	ctx, stop := signalContext(func() {
		if !env.isFullScreen() {
			io.Logf("nova: stopping (press ctrl+c again to quit at once)\n")
		}
	})
	code := run(ctx, env, os.Args[1:])
	stop()
	os.Exit(code)
}

// signalContext returns a context that the first SIGINT or SIGTERM cancels
// (stopping is called then); a second one exits the process at once (see
// watchSignals). stop releases the signals.
func signalContext(stopping func()) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go watchSignals(sigs, cancel, stopping, os.Exit)
	return ctx, func() {
		signal.Stop(sigs)
		cancel()
	}
}

// watchSignals is the CLI's answer to ctrl+c and SIGTERM: the first signal
// cancels the command's context (a build or run stops and stays resumable,
// nothing is left half-written) and says so; a second one exits at once
// with 128+signal, whatever the command is still doing.
func watchSignals(sigs <-chan os.Signal, cancel func(), stopping func(), exit func(int)) {
	<-sigs
	cancel()
	stopping()
	s := <-sigs
	code := 130 // SIGINT
	if sn, ok := s.(syscall.Signal); ok {
		code = 128 + int(sn)
	}
	exit(code)
}

// run executes one command line in env and returns its exit code.
func run(ctx context.Context, env *Env, args []string) int {
	root := rootCmd(env)
	env.helpPath = helpPath(root, args)
	root.SetArgs(args)
	root.SetIn(env.IO.In)
	// Help and usage (what cobra and fang write) lose fang's padding at
	// line ends; commands print through env.IO, untouched.
	out := &trimWriter{w: env.IO.Out}
	defer func() { _ = out.Flush() }()
	root.SetOut(out)
	root.SetErr(env.IO.ErrOut)
	opts := []fang.Option{fang.WithVersion(env.Version), fang.WithErrorHandler(env.errorHandler)}
	if env.Commit != "" {
		opts = append(opts, fang.WithCommit(env.Commit))
	}
	return exitCode(fang.Execute(ctx, root, opts...))
}
