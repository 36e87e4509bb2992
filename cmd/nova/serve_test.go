package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
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

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr lockedBuffer
	env := newEnv(&IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}, testGetenv(root, nil), root)
	env.Version = "test"
	ready := make(chan serveReport, 1)
	done := make(chan error, 1)
	go func() {
		done <- runServe(ctx, &serveOptions{Env: env, JSON: true, ready: func(r serveReport) { ready <- r }})
	}()
	var rep serveReport
	select {
	case rep = <-ready:
	case err := <-done:
		t.Fatalf("serve ended: %v; stderr: %s", err, stderr.Bytes())
	case <-time.After(30 * time.Second):
		t.Fatalf("serve did not start; stderr: %s", stderr.Bytes())
	}
	var printed serveReport
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &printed), "one JSON document")
	assert.Equal(t, rep.Socket, printed.Socket)
	assert.Equal(t, filepath.Join(root, ".nova", "nova.sock"), rep.Socket)
	assert.Equal(t, os.Getpid(), rep.PID)
	assert.Empty(t, rep.Resumed)

	// Another nova works through it.
	s, err := owner.Join(ctx, remote.OwnerOptions(engine.Options{Root: root, Getenv: testGetenv(root, nil)}, "test", nil))
	require.NoError(t, err)
	require.NotNil(t, s.Client)
	sum, err := remote.NewWorkspace(s.Client).Summary(ctx)
	require.NoError(t, err)
	assert.Equal(t, root, sum.Root)
	require.NoError(t, s.Close())

	// A second serve refuses, naming the first (exit 1).
	e2, so, se := newTestEnv(t, root, nil, "")
	code := run(ctx, e2, []string{"serve"})
	assert.Equal(t, 1, code)
	assert.Empty(t, so.String())
	assert.Contains(t, se.String(), "already served by nova pid")

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
	dir := t.TempDir() // no .nova there
	r := runNova(t, dir, nil, "serve")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "nova init")
	assert.Empty(t, r.stdout)
	r = runNova(t, dir, nil, "serve", "extra")
	assert.Equal(t, 2, r.code)
}
