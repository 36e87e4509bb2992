package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/nova-dev/nova/internal/lazyre"
)

// Bad usage that guides: a mistyped command gets suggestions, a bad flag
// value names the flag and the valid values, and the error points to the
// help of the command that was run.

// guideUsage wires the guidance into the command tree under root: every
// command group (a command with subcommands and nothing to run itself)
// refuses an unknown subcommand with suggestions instead of printing its
// help, and flag errors (every command inherits root's) read as sentences.
func guideUsage(root *cobra.Command) {
	root.SetFlagErrorFunc(flagError)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		c.SuggestionsMinimumDistance = 2
		if c == root || !c.HasSubCommands() || c.Run != nil || c.RunE != nil {
			return
		}
		c.Args = unknownSubcommand
		c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	}
	walk(root)
}

// unknownSubcommand is the Args of a command group: any argument is a
// subcommand that does not exist.
func unknownSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	return unknownCommand(cmd, args[0])
}

// unknownCommand is bad usage naming the closest commands of parent.
func unknownCommand(parent *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q for %q", name, parent.CommandPath())
	if s := parent.SuggestionsFor(name); len(s) > 0 {
		q := make([]string, len(s))
		for i, x := range s {
			q[i] = fmt.Sprintf("%q", parent.CommandPath()+" "+x)
		}
		msg += " (did you mean " + orList(q) + "?)"
	}
	return usagef("%s", msg)
}

// flagError turns pflag's errors into sentences (exit 2).
func flagError(_ *cobra.Command, err error) error {
	var ive *pflag.InvalidValueError
	if errors.As(err, &ive) {
		f := ive.GetFlag()
		switch t := f.Value.Type(); {
		case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"):
			return usagef("--%s must be a number (a whole number), got %q", f.Name, ive.GetValue())
		case strings.HasPrefix(t, "float"):
			return usagef("--%s must be a number, got %q", f.Name, ive.GetValue())
		case t == "bool":
			return usagef("--%s takes true or false, got %q", f.Name, ive.GetValue())
		case t == "duration":
			return usagef("--%s must be a duration such as 30s or 5m, got %q", f.Name, ive.GetValue())
		}
		return usagef("--%s: %q is not a valid value", f.Name, ive.GetValue())
	}
	return &usageError{err}
}

// badValue is bad usage for a flag whose value is not one of valid.
func badValue(flag, value string, valid []string) error {
	return usagef("--%s %q is not valid: use %s", flag, value, orList(valid))
}

// enumValue parses a flag's value with parse; a value parse refuses is bad
// usage listing the valid values.
func enumValue[T any](flag, value string, parse func(string) (T, error), valid []string) (T, error) {
	v, err := parse(value)
	if err != nil {
		return v, badValue(flag, value, valid)
	}
	return v, nil
}

// names turns typed values into strings.
func names[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// orList is "a", "a or b", "a, b or c".
func orList(xs []string) string {
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " or " + xs[len(xs)-1]
}

// helpPath is the command a command line runs, for "Try `... --help`": the
// deepest command its words name (flags skipped), or nova.
func helpPath(root *cobra.Command, args []string) string {
	c, _, err := root.Find(args)
	if err != nil || c == nil {
		return root.CommandPath()
	}
	return c.CommandPath()
}

// trailingBlank is the blank at the end of a line, before any closing
// colour sequences: fang pads help lines to a block's width.
var trailingBlank = lazyre.New(`[ \t]+((?:\x1b\[[0-9;]*m)*)$`)

// trimWriter strips the blanks at the end of each line written to w (the
// help and usage text cobra and fang write): a help is copied and diffed,
// and trailing spaces are noise there. The last, unterminated line is
// written by Flush.
type trimWriter struct {
	w   io.Writer
	buf []byte
}

func (t *trimWriter) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	for {
		i := bytes.IndexByte(t.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := trimLine(t.buf[:i])
		t.buf = t.buf[i+1:]
		if _, err := t.w.Write(append(line, '\n')); err != nil {
			return len(p), err
		}
	}
}

// Flush writes what is left of an unterminated line.
func (t *trimWriter) Flush() error {
	if len(t.buf) == 0 {
		return nil
	}
	line := trimLine(t.buf)
	t.buf = nil
	_, err := t.w.Write(line)
	return err
}

func trimLine(line []byte) []byte {
	for {
		next := trailingBlank.ReplaceAll(line, []byte("$1"))
		if bytes.Equal(next, line) {
			return append([]byte{}, line...)
		}
		line = next
	}
}
