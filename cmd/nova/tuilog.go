package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
)

// heldLogs keeps what the engine logs with log/slog while the TUI owns the
// terminal: a line written to stderr then would land in the middle of the
// screen. The lines are printed to stderr when the TUI has closed, so
// nothing is lost (the engine's own diagnostics reach the TUI as events).
type heldLogs struct {
	mu    sync.Mutex
	lines []string
	attrs []slog.Attr
}

// holdSlog routes slog's default logger to a heldLogs until the returned
// function is called, which restores the previous logger and writes what
// was held to w.
func holdSlog(w io.Writer) (release func()) {
	prev := slog.Default()
	h := &heldLogs{}
	slog.SetDefault(slog.New(h))
	return func() {
		slog.SetDefault(prev)
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, l := range h.lines {
			_, _ = fmt.Fprintln(w, l)
		}
	}
}

const maxHeldLogs = 200

func (h *heldLogs) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelInfo }

func (h *heldLogs) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(strings.ToLower(r.Level.String()) + ": " + r.Message)
	add := func(a slog.Attr) bool {
		b.WriteString(" " + a.Key + "=" + a.Value.String())
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.lines) < maxHeldLogs {
		h.lines = append(h.lines, b.String())
	}
	return nil
}

func (h *heldLogs) WithAttrs(attrs []slog.Attr) slog.Handler {
	// The held lines are shared: a derived logger appends to the same list.
	return &derivedHeld{root: h, attrs: append(append([]slog.Attr(nil), h.attrs...), attrs...)}
}

func (h *heldLogs) WithGroup(string) slog.Handler { return h }

// derivedHeld is a heldLogs with attributes of its own.
type derivedHeld struct {
	root  *heldLogs
	attrs []slog.Attr
}

func (d *derivedHeld) Enabled(ctx context.Context, l slog.Level) bool { return d.root.Enabled(ctx, l) }

func (d *derivedHeld) Handle(ctx context.Context, r slog.Record) error {
	r = r.Clone()
	r.AddAttrs(d.attrs...)
	return d.root.Handle(ctx, r)
}

func (d *derivedHeld) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &derivedHeld{root: d.root, attrs: append(append([]slog.Attr(nil), d.attrs...), attrs...)}
}

func (d *derivedHeld) WithGroup(string) slog.Handler { return d }
