package owner_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/internal/rpcdemo"
	"github.com/nova-dev/nova/engine/owner"
	"github.com/nova-dev/nova/engine/rpc"
	"github.com/nova-dev/nova/storage"
)

// newRoot is a workspace root short enough for .nova/nova.sock.
func newRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "own")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	require.NoError(t, os.Mkdir(filepath.Join(dir, ".nova"), 0o755))
	return dir
}

func join(t testing.TB, opts owner.Options[*rpcdemo.Store]) *owner.Session[*rpcdemo.Store] {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangBound)
	defer cancel()
	s, err := owner.Join(ctx, opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func eventually(t testing.TB, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(hangBound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestFirstOwnsTheRestAreClients(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := newRoot(t)
	first := join(t, demoOptions(root))
	require.NotNil(t, first.Owner)
	assert.Nil(t, first.Client)

	sock := filepath.Join(root, ".nova", "nova.sock")
	assert.Equal(t, sock, first.Owner.Socket())
	fi, err := os.Lstat(sock)
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&fs.ModeSocket)
	assert.Equal(t, fs.FileMode(0o600), fi.Mode().Perm())

	second := join(t, demoOptions(root))
	require.NotNil(t, second.Client, "the lock is taken: the second is a client")
	assert.Equal(t, os.Getpid(), second.Info.PID)
	assert.Equal(t, "test", second.Info.Version)
	assert.Equal(t, rpc.ProtocolVersion, second.Info.Protocol)

	// Writes through the client land in the owner's database.
	put, err := rpcdemo.NewRemote(second.Client).Put(ctx, rpcdemo.Item{Name: "through the owner"})
	require.NoError(t, err)
	got, err := first.Owner.Value().Get(ctx, put.ID)
	require.NoError(t, err)
	assert.Equal(t, "through the owner", got.Name)

	clients := first.Owner.Clients()
	require.Len(t, clients, 1)
	assert.Equal(t, os.Getpid(), clients[0].PID)

	info, err := owner.Probe(ctx, root, "test")
	require.NoError(t, err)
	assert.Equal(t, os.Getpid(), info.PID)
	assert.Len(t, info.Clients, 1, "the probe does not count itself")

	require.NoError(t, second.Close())
	eventually(t, func() bool { return len(first.Owner.Clients()) == 0 }, "the client to detach")

	require.NoError(t, first.Close())
	_, err = os.Lstat(sock)
	assert.ErrorIs(t, err, fs.ErrNotExist, "the owner removes its socket")
	_, err = owner.Probe(ctx, root, "test")
	assert.ErrorIs(t, err, owner.ErrNoOwner)

	third := join(t, demoOptions(root))
	assert.NotNil(t, third.Owner, "the next one owns")
}

// TestRaceToOwn: processes started together; exactly one owns, every
// other one works through it, and nothing is lost.
func TestRaceToOwn(t *testing.T) {
	t.Parallel()
	for round := range 2 {
		root := newRoot(t)
		const n = 4
		procs := make([]*proc, n)
		for i := range procs {
			procs[i] = startChild(t, "join", root)
		}
		owners, ids := map[int]bool{}, map[int]bool{}
		for _, p := range procs {
			select {
			case line, ok := <-p.lines:
				require.True(t, ok, "round %d: a child exited early", round)
				f := strings.Fields(line)
				require.Len(t, f, 2, "round %d: %q", round, line)
				switch f[0] {
				case "owner":
					owners[atoi(t, f[1])] = true
				case "client":
					owners[atoi(t, f[1])] = true // the pid it works through
				default:
					t.Fatalf("round %d: %q", round, line)
				}
			case <-time.After(hangBound):
				t.Fatalf("round %d: a child hung", round)
			}
			ids[atoi(t, p.expect("put ")[0])] = true
		}
		assert.Len(t, owners, 1, "round %d: one owner, everyone agrees on it", round)
		assert.Len(t, ids, n, "round %d: every write landed once", round)
		for _, p := range procs {
			p.finish()
		}
		st, err := rpcdemo.Open(filepath.Join(root, ".nova", "nova.db"), time.Second)
		require.NoError(t, err)
		count, err := st.Count(context.Background())
		require.NoError(t, err)
		assert.Equal(t, n, count)
		require.NoError(t, st.Close())
	}
}

// TestKilledOwnerIsReplaced: kill -9 leaves the socket file behind; the
// next process finds its lock free and takes over.
func TestKilledOwnerIsReplaced(t *testing.T) {
	t.Parallel()
	root := newRoot(t)
	p := startChild(t, "join", root)
	p.expect("owner ")
	p.expect("put ")
	p.kill()
	sock := filepath.Join(root, ".nova", "nova.sock")
	_, err := os.Lstat(sock)
	require.NoError(t, err, "a killed owner leaves its socket")

	began := time.Now()
	s := join(t, demoOptions(root))
	took := time.Since(began)
	require.NotNil(t, s.Owner, "the stale socket is taken over")
	t.Logf("took over a killed owner's workspace in %s", took)
	n, err := s.Owner.Value().Count(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 1, n, "the killed owner's committed write is there")

	// And a client of the new owner works.
	c := join(t, demoOptions(root))
	require.NotNil(t, c.Client)
	_, err = rpcdemo.NewRemote(c.Client).Count(context.Background())
	require.NoError(t, err)
}

func TestUnsafeSocketsAreRefusedAndKept(t *testing.T) {
	t.Parallel()
	t.Run("symlink", func(t *testing.T) {
		t.Parallel()
		root := newRoot(t)
		// A real socket elsewhere, reached through a symlink.
		elsewhere := newRoot(t)
		ln, err := net.Listen("unix", filepath.Join(elsewhere, "x.sock"))
		require.NoError(t, err)
		defer ln.Close()
		link := filepath.Join(root, ".nova", "nova.sock")
		require.NoError(t, os.Symlink(filepath.Join(elsewhere, "x.sock"), link))
		_, err = owner.Join(context.Background(), demoOptions(root))
		require.ErrorIs(t, err, owner.ErrUnsafeSocket)
		assert.Contains(t, err.Error(), "symlink")
		_, err = os.Lstat(link)
		assert.NoError(t, err, "never removed")
	})
	t.Run("not a socket", func(t *testing.T) {
		t.Parallel()
		root := newRoot(t)
		path := filepath.Join(root, ".nova", "nova.sock")
		require.NoError(t, os.WriteFile(path, []byte("user data"), 0o600))
		_, err := owner.Join(context.Background(), demoOptions(root))
		require.ErrorIs(t, err, owner.ErrUnsafeSocket)
		assert.Contains(t, err.Error(), "not a socket")
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, "user data", string(data), "never removed")
	})
	t.Run("another user's socket", func(t *testing.T) {
		t.Parallel()
		if os.Getuid() != 0 {
			t.Skip("needs root to give a socket to another user")
		}
		root := newRoot(t)
		s := join(t, demoOptions(root))
		require.NotNil(t, s.Owner)
		require.NoError(t, os.Lchown(s.Owner.Socket(), 65534, 65534))
		_, err := owner.Join(context.Background(), demoOptions(root))
		require.ErrorIs(t, err, owner.ErrUnsafeSocket)
		assert.Contains(t, err.Error(), "belongs to uid 65534")
		// Even with the lock free (owner gone), the socket is not removed.
		require.NoError(t, os.Rename(s.Owner.Socket(), s.Owner.Socket()+".kept"))
		require.NoError(t, s.Close())
		require.NoError(t, os.Rename(s.Owner.Socket()+".kept", s.Owner.Socket()))
		_, err = owner.Join(context.Background(), demoOptions(root))
		require.ErrorIs(t, err, owner.ErrUnsafeSocket)
		_, err = os.Lstat(s.Owner.Socket())
		assert.NoError(t, err)
	})
}

// TestOtherUsersAreRefused: the owner checks its peer's uid.
func TestOtherUsersAreRefused(t *testing.T) {
	t.Parallel()
	root := newRoot(t)
	var mu sync.Mutex
	var logged []string
	opts := demoOptions(root)
	opts.Logf = func(format string, args ...any) {
		mu.Lock()
		logged = append(logged, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	owner.AllowUID(&opts, os.Getuid()+1) // as if we were another user
	s := join(t, opts)
	require.NotNil(t, s.Owner)

	other := demoOptions(root)
	other.WaitOwner = 300 * time.Millisecond
	_, err := owner.Join(context.Background(), other)
	require.ErrorIs(t, err, storage.ErrInUse, "refused, and the lock is not free")
	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, logged)
	assert.Contains(t, logged[0], fmt.Sprintf("refused a connection from uid %d", os.Getuid()))
}

// TestOtherUserProcessCannotConnect runs a real process as another user.
func TestOtherUserProcessCannotConnect(t *testing.T) {
	t.Parallel()
	if os.Getuid() != 0 {
		t.Skip("needs root to run a process as another user")
	}
	root := newRoot(t)
	require.NoError(t, os.Chmod(root, 0o755))
	s := join(t, demoOptions(root))
	require.NotNil(t, s.Owner)
	// The test binary, where the other user can run it.
	binDir := newRoot(t)
	require.NoError(t, os.Chmod(binDir, 0o755))
	bin := filepath.Join(binDir, "owner.test")
	data, err := os.ReadFile(os.Args[0])
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(bin, data, 0o755))

	cmd := exec.Command(bin, "-test.run=^$")
	cmd.Env = append(os.Environ(), "OWNER_TEST_CHILD=dial", "OWNER_TEST_ROOT="+root, "HOME=/")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	p := start(t, cmd)
	viaNova := strings.Join(p.expect("nova "), " ")
	assert.Contains(t, viaNova, "belongs to uid 0, not to you (uid 65534)", "nova refuses another user's socket")
	assert.NotContains(t, viaNova, "gone", "refused at once, not waited for")
	raw := strings.Join(p.expect("raw "), " ")
	assert.Contains(t, raw, "permission denied", "the socket's mode keeps other users out")
	assert.Empty(t, s.Owner.Clients())
}

// TestClientKilledMidWrite: the owner notices, cancels the work, and the
// write it had not committed leaves nothing; the committed one stays.
func TestClientKilledMidWrite(t *testing.T) {
	t.Parallel()
	root := newRoot(t)
	filling := make(chan struct{}, 1)
	returned := make(chan error, 1)
	opts := demoOptions(root)
	open := opts.Open
	opts.Open = func(ctx context.Context, d time.Duration) (*rpcdemo.Store, error) {
		st, err := open(ctx, d)
		if err == nil {
			st.OnFill = func(int) {
				select {
				case filling <- struct{}{}:
				default:
				}
			}
		}
		return st, err
	}
	opts.Handler = func(st *rpcdemo.Store) (http.Handler, error) {
		return rpc.NewServer[rpcdemo.Demo](&fillSpy{Store: st, returned: returned}, rpc.ServerOptions{})
	}
	s := join(t, opts)
	require.NotNil(t, s.Owner)

	p := startChild(t, "fill", root)
	p.expect("put")
	select {
	case <-filling:
	case <-time.After(hangBound):
		t.Fatal("the child's write never started")
	}
	p.kill()
	select {
	case err := <-returned:
		require.ErrorIs(t, err, context.Canceled, "the owner cancelled the dead client's work")
	case <-time.After(hangBound):
		t.Fatal("the owner kept working for a dead client")
	}
	n, err := s.Owner.Value().Count(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 1, n, "committed stays, the cut write left nothing")
	eventually(t, func() bool { return len(s.Owner.Clients()) == 0 }, "the dead client to be forgotten")
}

type fillSpy struct {
	*rpcdemo.Store
	returned chan error
}

func (f *fillSpy) Fill(ctx context.Context, n int, pause time.Duration) (int, error) {
	got, err := f.Store.Fill(ctx, n, pause)
	f.returned <- err
	return got, err
}

// TestOwnerKilledMidJobResumes: the owner dies midway through a
// resumable job; the next owner finishes it without redoing a step.
func TestOwnerKilledMidJobResumes(t *testing.T) {
	t.Parallel()
	root := newRoot(t)
	p := startChild(t, "steps", root)
	p.expect("owner ")
	p.expect("step 5")
	p.kill()

	s := join(t, demoOptions(root))
	require.NotNil(t, s.Owner)
	ctx := context.Background()
	done, err := s.Owner.Value().StepLog(ctx)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(done), 5)
	require.Less(t, len(done), 40, "killed midway")

	n, err := s.Owner.Value().Steps(ctx, 40, 0)
	require.NoError(t, err)
	assert.Equal(t, 40, n)
	log, err := s.Owner.Value().StepLog(ctx)
	require.NoError(t, err)
	want := make([]int, 40)
	for i := range want {
		want[i] = i + 1
	}
	assert.Equal(t, want, log, "every step once")
}

func TestServeRefusesASecondOwner(t *testing.T) {
	t.Parallel()
	root := newRoot(t)
	s := join(t, demoOptions(root))
	require.NotNil(t, s.Owner)
	_, err := owner.Serve(context.Background(), demoOptions(root))
	require.ErrorIs(t, err, owner.ErrAlreadyServed)
	assert.Contains(t, err.Error(), fmt.Sprintf("pid %d", os.Getpid()))
}

func TestServeRunsUntilSignalled(t *testing.T) {
	t.Parallel()
	root := newRoot(t)
	p := startChild(t, "serve", root)
	f := p.expect("serving ")
	require.Len(t, f, 2)
	assert.Equal(t, filepath.Join(root, ".nova", "nova.sock"), f[1])

	c := join(t, demoOptions(root))
	require.NotNil(t, c.Client)
	assert.Equal(t, atoi(t, f[0]), c.Info.PID)

	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	p.expect("stopped")
	select {
	case <-p.done:
		require.NoError(t, p.err)
	case <-time.After(hangBound):
		t.Fatal("serve did not stop on SIGTERM")
	}
	_, err := os.Lstat(f[1])
	assert.ErrorIs(t, err, fs.ErrNotExist, "the socket is gone")
}

// TestLongPathSocketLivesInTheRuntimeDir: a workspace whose
// .nova/nova.sock would be too long for a Unix socket.
func TestLongPathSocketLivesInTheRuntimeDir(t *testing.T) {
	runtimeDir := newRoot(t)
	require.NoError(t, os.Chmod(runtimeDir, 0o700))
	t.Setenv("XDG_RUNTIME_DIR", runtimeDir)
	root := newRoot(t)
	for len(root) < 120 {
		root = filepath.Join(root, "a-rather-long-directory-name")
	}
	require.NoError(t, os.MkdirAll(filepath.Join(root, ".nova"), 0o755))

	s := join(t, demoOptions(root))
	require.NotNil(t, s.Owner)
	sock := s.Owner.Socket()
	assert.Equal(t, filepath.Join(runtimeDir, "nova"), filepath.Dir(sock))
	pointer, err := os.ReadFile(filepath.Join(root, ".nova", owner.PointerName))
	require.NoError(t, err)
	assert.Equal(t, sock, strings.TrimSpace(string(pointer)))
	fi, err := os.Stat(filepath.Dir(sock))
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o700), fi.Mode().Perm())

	c := join(t, demoOptions(root))
	require.NotNil(t, c.Client, "the client follows the pointer")
	_, err = rpcdemo.NewRemote(c.Client).Count(context.Background())
	require.NoError(t, err)

	// A pointer elsewhere is refused.
	require.NoError(t, os.WriteFile(filepath.Join(root, ".nova", owner.PointerName), []byte("/tmp/elsewhere.sock\n"), 0o600))
	_, err = owner.Join(context.Background(), demoOptions(root))
	require.ErrorIs(t, err, owner.ErrUnsafeSocket)
	require.NoError(t, os.WriteFile(filepath.Join(root, ".nova", owner.PointerName), pointer, 0o600))

	require.NoError(t, c.Close())
	require.NoError(t, s.Close())
	_, err = os.Stat(filepath.Join(root, ".nova", owner.PointerName))
	assert.ErrorIs(t, err, fs.ErrNotExist, "the pointer goes with the owner")
	_, err = os.Lstat(sock)
	assert.ErrorIs(t, err, fs.ErrNotExist)
}

func TestExclusiveOperations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := newRoot(t)
	s := join(t, demoOptions(root))
	require.NotNil(t, s.Owner)
	c := join(t, demoOptions(root))
	require.NotNil(t, c.Client)
	_, err := rpcdemo.NewRemote(c.Client).Count(ctx)
	require.NoError(t, err)

	// A client is attached: refused, naming it.
	err = s.Owner.Exclusive(ctx, "db recover", func(context.Context, *rpcdemo.Store) error { return nil })
	require.ErrorIs(t, err, owner.ErrNotExclusive)
	assert.Contains(t, err.Error(), fmt.Sprintf("pid %d", os.Getpid()))
	// From another process's point of view: the owner is someone else.
	err = owner.RunExclusive(ctx, demoOptions(root), "db compact", func(context.Context) error { return nil })
	var ne *owner.NotExclusiveError
	require.ErrorAs(t, err, &ne)
	assert.Equal(t, os.Getpid(), ne.Owner.PID)

	require.NoError(t, c.Close())
	eventually(t, func() bool { return len(s.Owner.Clients()) == 0 }, "the client to detach")

	// Alone: the operation runs with the database closed; a client that
	// arrives meanwhile waits and then sees the result.
	started := make(chan struct{})
	var late error
	var lateCount int
	var wg sync.WaitGroup
	err = s.Owner.ExclusiveClosed(ctx, "db compact", func(context.Context) error {
		// The lock is free: prove it by opening the file ourselves.
		st, err := rpcdemo.Open(filepath.Join(root, ".nova", "nova.db"), time.Second)
		if err != nil {
			return err
		}
		if _, err := st.Put(ctx, rpcdemo.Item{Name: "written while exclusive"}); err != nil {
			return err
		}
		if err := st.Close(); err != nil {
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			close(started)
			cs, err := owner.Join(ctx, demoOptions(root))
			if err != nil {
				late = err
				return
			}
			defer cs.Close()
			lateCount, late = rpcdemo.NewRemote(cs.Client).Count(ctx)
		}()
		<-started
		time.Sleep(200 * time.Millisecond)
		return nil
	})
	require.NoError(t, err)
	wg.Wait()
	require.NoError(t, late)
	assert.Equal(t, 1, lateCount, "the late client waited for the operation and sees its result")
	n, err := s.Owner.Value().Count(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, n, "the owner serves the database opened again")
}

func TestRunExclusiveWithoutOwner(t *testing.T) {
	t.Parallel()
	root := newRoot(t)
	ran := false
	err := owner.RunExclusive(context.Background(), demoOptions(root), "db compact", func(context.Context) error {
		ran = true
		return nil
	})
	require.NoError(t, err)
	assert.True(t, ran)
	_, err = owner.Probe(context.Background(), root, "test")
	assert.ErrorIs(t, err, owner.ErrNoOwner, "nothing keeps serving after the operation")
}

func TestJoinFailsClearlyWhenTheLockIsHeldWithoutServing(t *testing.T) {
	t.Parallel()
	root := newRoot(t)
	// An older nova (or `nova db compact`): holds the lock, serves nothing.
	st, err := rpcdemo.Open(filepath.Join(root, ".nova", "nova.db"), time.Second)
	require.NoError(t, err)
	defer st.Close()
	opts := demoOptions(root)
	opts.WaitOwner = 200 * time.Millisecond
	_, err = owner.Join(context.Background(), opts)
	require.ErrorIs(t, err, storage.ErrInUse)
	assert.Contains(t, err.Error(), "does not serve it")
}

func TestJoinHonoursCancellation(t *testing.T) {
	t.Parallel()
	root := newRoot(t)
	st, err := rpcdemo.Open(filepath.Join(root, ".nova", "nova.db"), time.Second)
	require.NoError(t, err)
	defer st.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	opts := demoOptions(root)
	opts.WaitOwner = hangBound
	_, err = owner.Join(ctx, opts)
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.DeadlineExceeded) || errors.Is(err, storage.ErrInUse), "%v", err)
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	since := time.Date(2026, 11, 24, 10, 2, 11, 0, time.Local)
	got := owner.Describe(owner.Info{PID: 42, Since: since, Version: "v0.4.0", Socket: "/w/.nova/nova.sock",
		Clients: []owner.ClientInfo{{PID: 7}, {PID: 9}}, Exclusive: "db compact"})
	assert.Equal(t, "pid 42 (nova v0.4.0) since 2026-11-24 10:02:11 on /w/.nova/nova.sock, 2 clients: pid 7, pid 9, running db compact", got)
	assert.Contains(t, owner.Describe(owner.Info{PID: 1, Since: since}), "(nova dev)")
	assert.Contains(t, owner.Describe(owner.Info{PID: 1, Since: since}), "no clients")
}

func TestServeCommand(t *testing.T) {
	t.Parallel()
	cmd, err := owner.ServeCommand("/w")
	require.NoError(t, err)
	assert.Equal(t, []string{"serve", "--workspace", "/w"}, cmd.Args[1:])
}

// TestRejoinAfterTheOwnerLeft: a client whose owner exits becomes the
// owner by joining again.
func TestRejoinAfterTheOwnerLeft(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := newRoot(t)
	first := join(t, demoOptions(root))
	require.NotNil(t, first.Owner)
	opts := demoOptions(root)
	opts.Client.ReconnectWait = 100 * time.Millisecond
	c := join(t, opts)
	require.NotNil(t, c.Client)
	require.NoError(t, first.Close())

	_, err := rpcdemo.NewRemote(c.Client).Count(ctx)
	require.ErrorIs(t, err, rpc.ErrOwnerGone)
	again, err := c.Rejoin(ctx)
	require.NoError(t, err)
	defer again.Close()
	require.NotNil(t, again.Owner, "nobody else took over: the client owns it now")
	n, err := again.Owner.Value().Count(ctx)
	require.NoError(t, err)
	assert.Equal(t, 0, n)
}

// An owner's own connections (a TUI that took over works through its own
// socket) are not other novas: doctor and the exclusive refusal leave them
// out.
func TestOthersLeaveTheOwnerOut(t *testing.T) {
	t.Parallel()
	info := owner.Info{PID: 10, Clients: []owner.ClientInfo{{PID: 10, Conns: 2}, {PID: 11, Conns: 1}}}
	assert.Equal(t, []owner.ClientInfo{{PID: 11, Conns: 1}}, info.Others())
	assert.Contains(t, owner.Describe(info), "1 client: pid 11")
	alone := owner.Info{PID: 10, Clients: []owner.ClientInfo{{PID: 10, Conns: 2}}}
	assert.Contains(t, owner.Describe(alone), "no clients")
	err := &owner.NotExclusiveError{Op: "db compact", Owner: alone}
	assert.NotContains(t, err.Error(), "attached")
}

// Two commands started together: the one that owns ends first. The other
// (Options.Adopt) owns the workspace itself and its calls go on, through
// its own socket; nothing written is lost; its Close releases the lock.
func TestAClientAdoptsAWorkspaceItsOwnerLeft(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := newRoot(t)
	first := join(t, demoOptions(root))
	require.NotNil(t, first.Owner)
	opts := demoOptions(root)
	opts.Adopt = true
	opts.Client.NoKeepAlive = true
	c := join(t, opts)
	require.NotNil(t, c.Client)
	remote := rpcdemo.NewRemote(c.Client)
	_, err := remote.Put(ctx, rpcdemo.Item{Name: "before"})
	require.NoError(t, err)
	assert.Nil(t, c.Adopted())

	require.NoError(t, first.Close()) // the owning command ended
	_, err = remote.Put(ctx, rpcdemo.Item{Name: "after"})
	require.NoError(t, err, "the client owns the workspace now")
	require.NotNil(t, c.Adopted())
	n, err := remote.Count(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, n, "both writes are in the database")

	// Others find the new owner; its Close stops serving and releases.
	other := join(t, demoOptions(root))
	require.NotNil(t, other.Client, "the adopted owner serves")
	require.NoError(t, other.Close())
	require.NoError(t, c.Close())
	next := join(t, demoOptions(root))
	assert.NotNil(t, next.Owner, "the lock was released")
}

// A client without Options.Adopt (the TUI, which rejoins itself to say so)
// never takes a gone owner's place by itself.
func TestAClientWithoutAdoptWaitsForAnOwner(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := newRoot(t)
	first := join(t, demoOptions(root))
	opts := demoOptions(root)
	opts.Client.ReconnectWait = 1500 * time.Millisecond // longer than the adoption delay
	c := join(t, opts)
	require.NoError(t, first.Close())
	_, err := rpcdemo.NewRemote(c.Client).Count(ctx)
	require.ErrorIs(t, err, rpc.ErrOwnerGone)
	assert.Nil(t, c.Adopted())
}

// While a hand-over is under way (its marker names the new owner, alive),
// a client waits for that owner instead of adopting the workspace: the new
// owner is the one that resumes the builds.
func TestAClientDoesNotAdoptDuringAHandover(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := newRoot(t)
	first := join(t, demoOptions(root))
	opts := demoOptions(root)
	opts.Adopt = true
	opts.Client.ReconnectWait = 1500 * time.Millisecond // longer than the adoption delay
	c := join(t, opts)
	marker := filepath.Join(root, ".nova", "nova.handover")
	require.NoError(t, os.WriteFile(marker, []byte(strconv.Itoa(os.Getppid())+"\n"), 0o600))
	require.NoError(t, first.Close())
	_, err := rpcdemo.NewRemote(c.Client).Count(ctx)
	require.ErrorIs(t, err, rpc.ErrOwnerGone)
	assert.Nil(t, c.Adopted(), "it left the workspace to the hand-over's new owner")

	require.NoError(t, os.Remove(marker)) // the new owner never came
	_, err = rpcdemo.NewRemote(c.Client).Count(ctx)
	require.NoError(t, err)
	assert.NotNil(t, c.Adopted())
}
