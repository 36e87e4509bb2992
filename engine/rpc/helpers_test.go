package rpc_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/internal/rpcdemo"
	"github.com/nova-dev/nova/engine/rpc"
)

// shortDir is a temporary directory with a path short enough for a Unix
// socket (t.TempDir's can exceed 108 bytes with long test names).
func shortDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "rpc")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// served is a Demo store served on a Unix socket.
type served struct {
	store  *rpcdemo.Store
	server *rpc.Server
	http   *http.Server
	sock   string
	done   chan struct{}
}

func openStore(t testing.TB) *rpcdemo.Store {
	t.Helper()
	st, err := rpcdemo.Open(filepath.Join(t.TempDir(), "nova.db"), time.Second)
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// serve serves impl on sock (created in a fresh dir when empty).
func serve(t testing.TB, impl rpcdemo.Demo, sock string, opts rpc.ServerOptions) *served {
	t.Helper()
	if sock == "" {
		sock = filepath.Join(shortDir(t), "s.sock")
	}
	srv, err := rpc.NewServer[rpcdemo.Demo](impl, opts)
	require.NoError(t, err)
	ln, err := net.Listen("unix", sock)
	require.NoError(t, err)
	s := &served{server: srv, sock: sock, done: make(chan struct{})}
	if st, ok := impl.(*rpcdemo.Store); ok {
		s.store = st
	}
	s.http = &http.Server{Handler: srv, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		defer close(s.done)
		_ = s.http.Serve(ln)
	}()
	t.Cleanup(s.stop)
	return s
}

var stopMu sync.Mutex

// stop closes the listener (removing the socket) and every connection.
func (s *served) stop() {
	stopMu.Lock()
	defer stopMu.Unlock()
	_ = s.http.Close()
	<-s.done
}

func dialer(sock string) rpc.DialFunc {
	return func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		ctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		return d.DialContext(ctx, "unix", sock)
	}
}

func newClient(t testing.TB, sock string, opts rpc.ClientOptions) (*rpc.Client, *rpcdemo.Remote) {
	t.Helper()
	c := rpc.NewClient(dialer(sock), opts)
	t.Cleanup(func() { _ = c.Close() })
	return c, rpcdemo.NewRemote(c)
}

// eventually polls cond until it holds or a generous bound (which only
// catches hangs) passes.
func eventually(t testing.TB, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// recv reads one value or fails after a generous bound.
func recv[T any](t testing.TB, ch <-chan T) (T, bool) {
	t.Helper()
	select {
	case v, ok := <-ch:
		return v, ok
	case <-time.After(20 * time.Second):
		t.Fatal("timed out waiting on a channel")
	}
	var zero T
	return zero, false
}

var errTest = errors.New("test")

type runtimeMem struct{ total uint64 }

func (m *runtimeMem) read() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m.total = ms.TotalAlloc
}

type lastErr struct {
	mu  sync.Mutex
	err error
}

func (l *lastErr) set(err error) { l.mu.Lock(); l.err = err; l.mu.Unlock() }
func (l *lastErr) get() error    { l.mu.Lock(); defer l.mu.Unlock(); return l.err }
