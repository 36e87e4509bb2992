package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"charm.land/fang/v2"
	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/workspace"
	pl "github.com/nova-dev/nova/internal/plural"
)

// The CLI pattern (cli/cli's pkg/cmd): every command has an Options struct
// and a runX(ctx, opts) function; newXCmd(env, runF) parses flags and
// arguments into the options and calls runF (tests) or runX. Options embed
// *Env, which carries everything a command may touch: the streams, the
// environment, the confirm/prompt function and the workspace factory. A
// runX test builds an Env around buffers and a test workspace; nothing needs
// the binary. See the package doc, "Commands".

// Env is what every command gets.
type Env struct {
	IO *IOStreams
	// Getenv reads the environment (NOVA_WORKSPACE, OLLAMA_HOST, ...).
	Getenv func(string) string
	// Cwd is the directory relative paths and the workspace search start from.
	Cwd string
	// WorkspaceDir is --workspace.
	WorkspaceDir string
	// Workspace opens the workspace the command works on: the client of
	// the nova that owns it, or this process as its owner. The caller
	// closes it. The default is openWorkspace.
	Workspace func(ctx context.Context) (engine.Workspace, error)
	// Prompt asks a yes/no question (the caller adds nothing: it writes
	// question, then reads the answer). The default reads a line from IO.In;
	// anything but y/yes (including end of input) is no.
	Prompt func(ctx context.Context, question string) (bool, error)
	// Ask asks for a line of text (a missing parameter): it writes question,
	// then reads a line; io.EOF when the input ended. The default reads
	// from IO.In.
	Ask func(ctx context.Context, question string) (string, error)
	// Terminal reports why the TUI cannot have a terminal (nil: it can).
	// The default accepts a terminal on stdin, or a /dev/tty to open.
	Terminal func() error
	// Version and Commit are the build's (`nova version`).
	Version, Commit string
	// fullScreen: the TUI owns the terminal, so engine diagnostics must not
	// be written to stderr (they arrive as EventLog events instead).
	fullScreen bool
	// helpPath is the command being run ("nova vault search"): usage errors
	// point to its help.
	helpPath string
	// tuiRunning mirrors fullScreen for the signal watcher's goroutine.
	tuiRunning atomic.Bool

	mu    sync.Mutex
	stdin *bufio.Reader
}

// newEnv wires the defaults around io.
func newEnv(io *IOStreams, getenv func(string) string, cwd string) *Env {
	e := &Env{IO: io, Getenv: getenv, Cwd: cwd, Version: version, Commit: commit}
	e.Workspace = func(ctx context.Context) (engine.Workspace, error) {
		return openWorkspace(ctx, e)
	}
	e.Prompt = e.readAnswer
	e.Ask = e.readLine
	e.Terminal = func() error {
		if io.InTTY {
			return nil
		}
		f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
		if err != nil {
			return err
		}
		return f.Close()
	}
	return e
}

// isFullScreen reports whether the TUI owns the terminal (safe from any
// goroutine).
func (e *Env) isFullScreen() bool { return e.tuiRunning.Load() }

// root locates the workspace root from --workspace, NOVA_WORKSPACE or the
// current directory.
func (e *Env) root() (string, error) {
	return workspace.Locate(e.WorkspaceDir, e.Cwd, e.Getenv)
}

// abs resolves a path argument against the command's directory: the engine
// takes absolute paths only (a remote owner does not share our directory).
func (e *Env) abs(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(e.Cwd, p)
}

// withWorkspace opens the workspace, runs fn and closes it.
func (e *Env) withWorkspace(ctx context.Context, fn func(ws engine.Workspace) error) error {
	ws, err := e.Workspace(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = ws.Close() }()
	e.reportRecovered(ctx, ws)
	return fn(ws)
}

// reportRecovered tells the user, on stderr, about changeset applies that
// a crash interrupted and that opening the workspace completed (each is
// reported once, by the first command that asks).
func (e *Env) reportRecovered(ctx context.Context, ws engine.Workspace) {
	rec, err := ws.TakeRecoveredApplies(ctx)
	if err != nil {
		return
	}
	for _, line := range engine.RecoveryLines(rec) {
		e.IO.Logf("nova: %s\n", line)
	}
}

// readAnswer is the default Prompt: the question on stderr, a line from
// stdin; ctx ends the wait.
func (e *Env) readAnswer(ctx context.Context, question string) (bool, error) {
	line, err := e.readLine(ctx, question+" [y/N] ")
	if errors.Is(err, io.EOF) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, nil
	}
	return false, nil
}

// readLine is the default Ask: the question on stderr, a line from stdin
// (without its newline); io.EOF when stdin ended first; ctx ends the wait.
func (e *Env) readLine(ctx context.Context, question string) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stdin == nil {
		e.stdin = bufio.NewReader(e.IO.In)
	}
	e.IO.Logf("%s", question)
	type answer struct {
		line string
		err  error
	}
	ch := make(chan answer, 1)
	in := e.stdin
	go func() {
		line, err := in.ReadString('\n')
		ch <- answer{line, err}
	}()
	select {
	case <-ctx.Done():
		e.IO.Logf("\n")
		return "", ctx.Err()
	case ans := <-ch:
		if ans.err != nil && ans.line == "" {
			e.IO.Logf("\n")
			return "", io.EOF
		}
		return strings.TrimRight(ans.line, "\r\n"), nil
	}
}

// confirm is the one confirmation of every destructive command: with --yes
// it goes ahead; on a terminal it asks [y/N] (default no); off a terminal
// it refuses as bad usage (exit 2) with a message saying to pass --yes. A
// "no" is reported on stderr and ends the command with exit 1, nothing
// changed. done names the action in the past tense ("forgotten").
func (e *Env) confirm(ctx context.Context, yes bool, question, verb, done string) error {
	if yes {
		return nil
	}
	if !e.IO.InTTY {
		return usagef("refusing to %s without confirmation: stdin is not a terminal, pass --yes", verb)
	}
	ok, err := e.Prompt(ctx, question)
	if err != nil {
		return err
	}
	if !ok {
		e.IO.Logf("not %s: nothing changed\n", done)
		return &reportedError{msg: "declined"}
	}
	return nil
}

// usageError marks bad usage (exit code 2).
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return &usageError{fmt.Errorf(format, a...)} }

// reportedError is a failure whose details are already on stdout (JSON
// documents) or stderr: exit 1 without printing more.
type reportedError struct{ msg string }

func (e *reportedError) Error() string { return e.msg }

// exitCode maps errors to the CLI contract: 0 ok, 1 failure, 2 bad usage
// (the CLI's own usage errors, and the engine's engine.ErrUsage, which
// crosses the owner's socket as a registered sentinel).
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ue *usageError
	if errors.As(err, &ue) || errors.Is(err, engine.ErrUsage) || isCobraUsage(err) {
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

// errorHandler prints errors verbatim (fang's default re-cases the text,
// which mangles paths and field names) and sanitised (an error can quote a
// file name, a PRD field or model output).
func (e *Env) errorHandler(w io.Writer, styles fang.Styles, err error) {
	var re *reportedError
	if errors.As(err, &re) {
		return
	}
	if e.IO.ErrTTY {
		_, _ = fmt.Fprintln(w, styles.ErrorHeader.String())
	}
	_, _ = fmt.Fprintln(w, Sanitize("nova: "+err.Error()))
	if exitCode(err) == 2 {
		path := e.helpPath
		if path == "" {
			path = "nova"
		}
		_, _ = fmt.Fprintf(w, "Try `%s --help` for usage.\n", path)
	}
}

// pick returns runF when a test set it, else the command's own run.
func pick[O any](runF, run func(context.Context, *O) error) func(context.Context, *O) error {
	if runF != nil {
		return runF
	}
	return run
}

// Argument validators that mark usage errors.

func exactArgs(n int, names string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("expected %s, got %s", names, plural(len(args), "argument", "arguments"))
		}
		return nil
	}
}

func maxArgs(n int, names string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) > n {
			return usagef("expected at most %s, got %d arguments", names, len(args))
		}
		return nil
	}
}

func minArgs(n int, names string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) < n {
			return usagef("expected %s", names)
		}
		return nil
	}
}

// positiveID reads a record id ("12" or "#12"); ok is false unless it is a
// positive number.
func positiveID(s string) (uint64, bool) {
	id, err := strconv.ParseUint(strings.TrimPrefix(strings.TrimSpace(s), "#"), 10, 64)
	return id, err == nil && id > 0
}

// parseID parses a record id argument; what names the record and where to
// find ids ("changeset", "nova changes list").
func parseID(s, what, list string) (uint64, error) {
	id, ok := positiveID(s)
	if !ok {
		if list != "" {
			return 0, usagef("%q is not a %s id (a positive number, see `%s`)", s, what, list)
		}
		return 0, usagef("%q is not a %s id (a positive number)", s, what)
	}
	return id, nil
}

func splitTags(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// plural is "1 file", "3 files".
func plural(n int, one, many string) string { return pl.Count(n, one, many) }

func clipLine(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", "⏎")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}
