//go:build unix

package mcp

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSilentStdioServerIsStopped: a real process that never answers
// initialize fails the start within the timeout, and is not left running.
func TestSilentStdioServerIsStopped(t *testing.T) {
	t.Parallel()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	m := New([]ServerConfig{{Name: "mute", Command: sh, Args: []string{"-c", `echo $$ > "$PIDFILE"; exec sleep 30`},
		Env: map[string]string{"PIDFILE": pidFile}, Timeout: 500 * time.Millisecond}}, Options{Getenv: os.Getenv})
	t.Cleanup(func() { _ = m.Close() })
	start := time.Now()
	_, err = m.Start(context.Background(), "mute")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "mcp server mute: no answer to initialize within 500ms")
	assert.Less(t, time.Since(start), 5*time.Second)
	b, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	require.NoError(t, err)
	assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "the server process was stopped and reaped")
}

// TestMissingCommandIsNamed: a command that does not exist is an error
// naming the server.
func TestMissingCommandIsNamed(t *testing.T) {
	t.Parallel()
	m := New([]ServerConfig{{Name: "ghost", Command: "/nonexistent/server"}}, Options{})
	_, _, err := m.Tools(context.Background(), "ghost")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "mcp server ghost")
}
