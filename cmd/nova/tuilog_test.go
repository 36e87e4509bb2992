package main

import (
	"bytes"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
)

// While the TUI owns the terminal, slog lines are held (not written over the
// screen) and printed, in order, once it is given back.
func TestSlogIsHeldWhileTheTUIRuns(t *testing.T) {
	var out bytes.Buffer
	release := holdSlog(&out)
	slog.Warn("vault: rebuilding the full-text index", "reason", "stale")
	slog.With("op", "import").Info("rolled back")
	slog.Debug("not shown")
	assert.Empty(t, out.String(), "nothing reaches stderr while the TUI runs")
	release()
	assert.Equal(t, "warn: vault: rebuilding the full-text index reason=stale\ninfo: rolled back op=import\n", out.String())
}
