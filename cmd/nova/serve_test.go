package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	nova "github.com/nova-dev/nova"
	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/owner"
	"github.com/nova-dev/nova/engine/remote"
	"github.com/nova-dev/nova/engine/workspace"
)

// lockedBuffer is written by the server goroutine and read by the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *lockedBuffer) Bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return bytes.Clone(l.b.Bytes())
}

func TestServeOwnsUntilCancelled(t *testing.T) {
	t.Parallel()
	root, err := os.MkdirTemp("", "serve")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	_, err = workspace.Init(root, nova.Defaults)
	require.NoError(t, err)
	getenv := func(k string) string {
		if k == "OLLAMA_HOST" {
			return "http://127.0.0.1:9"
		}
		return ""
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr lockedBuffer
	done := make(chan error, 1)
	go func() {
		done <- runServe(ctx, serveOptions{Root: root, Getenv: getenv, Version: "test", JSON: true, Stdout: &stdout, Stderr: &stderr})
	}()
	var rep serveReport
	deadline := time.Now().Add(30 * time.Second)
	for json.Unmarshal(stdout.Bytes(), &rep) != nil {
		require.True(t, time.Now().Before(deadline), "serve printed nothing; stderr: %s", stderr.Bytes())
		time.Sleep(10 * time.Millisecond)
	}
	assert.Equal(t, filepath.Join(root, ".nova", "nova.sock"), rep.Socket)
	assert.Equal(t, os.Getpid(), rep.PID)

	// Another nova works through it.
	s, err := owner.Join(ctx, remote.OwnerOptions(engine.Options{Root: root, Getenv: getenv}, "test", nil))
	require.NoError(t, err)
	require.NotNil(t, s.Client)
	sum, err := remote.NewWorkspace(s.Client).Summary(ctx)
	require.NoError(t, err)
	assert.Equal(t, root, sum.Root)
	require.NoError(t, s.Close())

	// A second serve refuses.
	err = runServe(ctx, serveOptions{Root: root, Getenv: getenv, Version: "test", Stdout: &stdout, Stderr: &stderr})
	require.ErrorIs(t, err, owner.ErrAlreadyServed)

	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
	_, err = os.Lstat(rep.Socket)
	assert.True(t, os.IsNotExist(err), "the socket is gone")
}

func TestServeCommandNeedsAWorkspace(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	a := newApp(&out, &errOut, func(string) string { return "" })
	a.workspaceFlag = t.TempDir() // no .nova there
	cmd := a.serveCmd()
	assert.Equal(t, "serve", cmd.Name())
	require.NotNil(t, cmd.Flags().Lookup("json"))
	cmd.SetArgs(nil)
	err := cmd.RunE(cmd, nil)
	require.ErrorIs(t, err, workspace.ErrNotFound)
	assert.Empty(t, out.String())
}
