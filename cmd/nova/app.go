package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"charm.land/fang/v2"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/workspace"
)

// app carries what every command shares.
type app struct {
	stdout, stderr io.Writer
	getenv         func(string) string
	workspaceFlag  string
}

func newApp(stdout, stderr io.Writer, getenv func(string) string) *app {
	return &app{stdout: stdout, stderr: stderr, getenv: getenv}
}

// usageError marks bad usage (exit code 2).
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return &usageError{fmt.Errorf(format, a...)} }

// reportedError is a failure whose details are already on stdout (JSON
// documents): exit 1 without printing more.
type reportedError struct{ msg string }

func (e *reportedError) Error() string { return e.msg }

// errorHandler prints errors verbatim: fang's default handler re-cases the
// text, which mangles paths and field names.
func errorHandler(w io.Writer, styles fang.Styles, err error) {
	var re *reportedError
	if errors.As(err, &re) {
		return
	}
	// fang hands us a colour-profile writer over stderr.
	if term.IsTerminal(int(os.Stderr.Fd())) {
		_, _ = fmt.Fprintln(w, styles.ErrorHeader.String())
	}
	_, _ = fmt.Fprintln(w, "nova: "+err.Error())
	if exitCode(err) == 2 {
		_, _ = fmt.Fprintln(w, "Try `nova --help` for usage.")
	}
}

// args validators that mark usage errors.
func exactArgs(n int, names string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("expected %s, got %d argument(s)", names, len(args))
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

// positiveID reads a record id ("12" or "#12"); ok is false unless it is a
// positive number. Callers turn a false into their own usage error.
func positiveID(s string) (uint64, bool) {
	id, err := strconv.ParseUint(strings.TrimPrefix(strings.TrimSpace(s), "#"), 10, 64)
	return id, err == nil && id > 0
}

// root locates the workspace root from --workspace, NOVA_WORKSPACE or the
// current directory.
func (a *app) root() (string, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	return workspace.Locate(a.workspaceFlag, cwd, a.getenv)
}

// open opens the workspace; readOnly commands share the database.
func (a *app) open(ctx context.Context, readOnly bool) (*engine.Local, error) {
	root, err := a.root()
	if err != nil {
		return nil, err
	}
	return engine.Open(ctx, engine.Options{Root: root, ReadOnly: readOnly, Getenv: a.getenv})
}

// printJSON writes one JSON document to stdout.
func (a *app) printJSON(v any) error {
	enc := json.NewEncoder(a.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func (a *app) printf(format string, args ...any) {
	_, _ = fmt.Fprintf(a.stdout, format, args...)
}

func (a *app) logf(format string, args ...any) {
	_, _ = fmt.Fprintf(a.stderr, format, args...)
}
