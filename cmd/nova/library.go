package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/library/params"
	"github.com/nova-dev/nova/engine/tools"
)

// What the skills, workflow and blueprint commands share (issue 14):
// k=v flags, asking for missing parameters, the library's exit codes.

// libraryErr maps the library's bad-usage errors to exit 2: a bad, unknown
// or missing parameter (params.ErrUsage, whose message names it) and an
// unknown agent. Everything else stays a failure (exit 1).
func libraryErr(err error) error {
	if err == nil {
		return nil
	}
	var ue *usageError
	if errors.As(err, &ue) {
		return err
	}
	if errors.Is(err, params.ErrUsage) || errors.Is(err, agents.ErrUnknownAgent) {
		return &usageError{err}
	}
	return err
}

// parseSets reads repeated k=v flags (--set, --input); a malformed pair or
// a key given twice is bad usage naming the flag.
func parseSets(pairs []string, flag string) (map[string]string, error) {
	m, err := params.ParseAssignments(pairs)
	if err != nil {
		return nil, usagef("%s: %v", flag, err)
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = fmt.Sprint(v)
	}
	return out, nil
}

// fillParams completes given with the required parameters it lacks. On a
// terminal (and when ask is true) it asks for each in turn, with the
// parameter's question, until the answer fits its type; otherwise the
// first missing one is bad usage (exit 2) naming it and the flag to pass.
// what names a parameter in messages ("parameter", "input").
func (e *Env) fillParams(ctx context.Context, ps []params.Param, given map[string]string, flag, what string, ask bool) error {
	have := make(map[string]any, len(given))
	for k, v := range given {
		have[k] = v
	}
	missing := params.Missing(ps, have)
	if len(missing) == 0 {
		return nil
	}
	if !ask || !e.IO.InTTY {
		p := missing[0]
		return usagef("missing required %s %s: %s — pass %s %s=…", what, p.Name, p.Question(), flag, p.Name)
	}
	for _, p := range missing {
		for {
			line, err := e.Ask(ctx, fmt.Sprintf("%s (%s): ", p.Question(), p.Name))
			if errors.Is(err, io.EOF) {
				return usagef("missing required %s %s: no answer — pass %s %s=…", what, p.Name, flag, p.Name)
			}
			if err != nil {
				return err
			}
			v := strings.TrimSpace(line)
			if v == "" {
				e.IO.Logf("  %s is required\n", p.Name)
				continue
			}
			if _, err := p.Convert(v); err != nil {
				e.IO.Logf("  %v\n", err)
				continue
			}
			given[p.Name] = v
			break
		}
	}
	return nil
}

// printProblems reports files that did not load as warnings on stderr;
// they never change a listing's exit code.
func printProblems(io *IOStreams, what string, problems []string) {
	for _, p := range problems {
		io.Logf("warning: %s file: %s\n", what, p)
	}
}

// paramLine describes one declared parameter for people.
func paramLine(p params.Param) string {
	var b strings.Builder
	b.WriteString(p.Name)
	if p.IsRequired() {
		b.WriteString(" *")
	}
	fmt.Fprintf(&b, "  (%s", p.Kind())
	if p.Default != nil {
		fmt.Fprintf(&b, ", default %v", p.Default)
	}
	if vs := p.ValueStrings(); len(vs) > 0 {
		fmt.Fprintf(&b, ", one of %s", strings.Join(vs, "|"))
	}
	if p.Min != nil {
		fmt.Fprintf(&b, ", min %v", *p.Min)
	}
	if p.Max != nil {
		fmt.Fprintf(&b, ", max %v", *p.Max)
	}
	b.WriteString(")")
	if q := strings.TrimSpace(p.Prompt); q != "" {
		b.WriteString("  " + q)
	} else if d := strings.TrimSpace(p.Description); d != "" {
		b.WriteString("  " + d)
	}
	return b.String()
}

// sortedKeys returns a map's keys in order (stable output).
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// firstLines returns the first n lines of s, and whether some were cut.
func firstLines(s string, n int) (string, bool) {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if n <= 0 || len(lines) <= n {
		return strings.Join(lines, "\n"), false
	}
	return strings.Join(lines[:n], "\n"), true
}

// approvalFollower puts the commands a run's tools want to run to the user
// ([y/N] on a terminal) and answers them; it is what `agent run` does for
// its agent, for the events of one Op.
type approvalFollower struct {
	env *Env
	ws  engine.Workspace
}

func (a approvalFollower) answer(ctx context.Context, req tools.ApprovalRequest) {
	go func() {
		ok, err := a.env.Prompt(ctx, approvalQuestion(req))
		if err == nil {
			err = a.ws.AnswerApproval(ctx, req.ID, ok)
		}
		if err != nil && !engine.IsCanceled(err) {
			a.env.IO.Logf("approval %s: %v\n", req.ID, err)
		}
	}()
}

// roundDuration keeps a duration readable: milliseconds below a second,
// tenths of a second below a minute, seconds above.
func roundDuration(d time.Duration) time.Duration {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond)
	case d < time.Minute:
		return d.Round(100 * time.Millisecond)
	default:
		return d.Round(time.Second)
	}
}

// durationText is roundDuration for people ("<1ms" for instant steps).
func durationText(d time.Duration) string {
	if d < time.Millisecond {
		return "<1ms"
	}
	return roundDuration(d).String()
}
