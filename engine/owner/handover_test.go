package owner_test

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

	"github.com/nova-dev/nova/engine/internal/rpcdemo"
	"github.com/nova-dev/nova/engine/owner"
)

func serveCommand(root string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "OWNER_TEST_CHILD=serve", "OWNER_TEST_ROOT="+root)
	return cmd
}

// TestHandoverToAHeadlessOwner: the owner hands the workspace to a new
// `nova serve` and exits; a client that was reading and watching events
// all along sees no error, and keeps receiving events from the new owner.
func TestHandoverToAHeadlessOwner(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := newRoot(t)
	s := join(t, demoOptions(root))
	require.NotNil(t, s.Owner)
	_, err := s.Owner.Value().Put(ctx, rpcdemo.Item{Name: "before"})
	require.NoError(t, err)

	w := startChild(t, "watch", root)
	w.expect("watching ")
	eventually(t, func() bool { return s.Owner.Value().Subscribers() == 1 }, "the watcher to subscribe")

	stopped := false
	info, err := s.Owner.Handover(ctx, owner.HandoverOptions{
		Command: serveCommand(root),
		Stop: func(context.Context) error {
			// Called after the socket closed, before the lock is released.
			_, err := os.Lstat(filepath.Join(root, ".nova", "nova.sock"))
			assert.True(t, os.IsNotExist(err), "the old owner stopped serving first")
			n, err := s.Owner.Value().Count(ctx)
			assert.NoError(t, err, "the database is still ours")
			assert.Equal(t, 1, n)
			stopped = true
			return nil
		},
	})
	require.NoError(t, err)
	assert.True(t, stopped)
	assert.NotEqual(t, os.Getpid(), info.PID)
	t.Cleanup(func() { _ = syscall.Kill(info.PID, syscall.SIGKILL) })

	// The new owner serves the same data; the watcher follows it.
	c := join(t, demoOptions(root))
	require.NotNil(t, c.Client)
	assert.Equal(t, info.PID, c.Info.PID)
	r := rpcdemo.NewRemote(c.Client)
	w.expect("reconnected Subscribe") // re-subscribed with the new owner
	put, err := r.Put(ctx, rpcdemo.Item{Name: "after"})
	require.NoError(t, err)
	got := w.expect("event changed ")
	assert.Equal(t, strconv.FormatUint(put.ID, 10), got[0])
	n, err := r.Count(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, n)

	require.NoError(t, c.Close())
	_ = w.stdin.Close()
	var lines []string
	for line := range w.lines {
		if line == "bye" {
			break // what follows is the watcher closing
		}
		lines = append(lines, line)
	}
	for _, line := range lines {
		assert.False(t, strings.HasPrefix(line, "count-error"), "the watcher saw %q", line)
		assert.NotEqual(t, "events closed", line, "the watcher's events stopped: %q", lines)
	}

	// The headless owner stops on SIGTERM and leaves no socket.
	require.NoError(t, syscall.Kill(info.PID, syscall.SIGTERM))
	eventually(t, func() bool {
		_, err := owner.Probe(ctx, root, "test")
		return err != nil
	}, "the headless owner to stop")
	eventually(t, func() bool {
		_, err := os.Lstat(filepath.Join(root, ".nova", "nova.sock"))
		return os.IsNotExist(err)
	}, "the socket to go")
}

// TestHandoverThatCannotStartKeepsTheOwner: a new owner that fails to
// start leaves this process the owner, serving as before.
func TestHandoverThatCannotStartKeepsTheOwner(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := newRoot(t)
	s := join(t, demoOptions(root))
	require.NotNil(t, s.Owner)
	cmd := exec.Command("/bin/false")
	_, err := s.Owner.Handover(ctx, owner.HandoverOptions{Command: cmd, Timeout: 5 * time.Second})
	var he *owner.HandoverError
	require.ErrorAs(t, err, &he)
	assert.False(t, he.Released)
	assert.Contains(t, err.Error(), "still owns the workspace")

	c := join(t, demoOptions(root))
	require.NotNil(t, c.Client, "still serving")
	_, err = rpcdemo.NewRemote(c.Client).Count(ctx)
	require.NoError(t, err)
}
