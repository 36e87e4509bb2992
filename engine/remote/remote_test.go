package remote_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	nova "github.com/nova-dev/nova"
	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/internal/rpcdemo"
	"github.com/nova-dev/nova/engine/remote"
	"github.com/nova-dev/nova/engine/rpc"
	"github.com/nova-dev/nova/engine/rpc/gen"
	"github.com/nova-dev/nova/engine/workspace"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// openLocal opens a fresh workspace in this process.
func openLocal(t testing.TB) *engine.Local {
	t.Helper()
	root := t.TempDir()
	_, err := workspace.Init(root, nova.Defaults)
	require.NoError(t, err)
	ws, err := engine.Open(context.Background(), engine.Options{Root: root, Getenv: envOf(map[string]string{"OLLAMA_HOST": "http://127.0.0.1:9"}), NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = ws.Close() })
	return ws
}

// serveLocal serves ws on a Unix socket and returns a remote workspace.
func serveLocal(t testing.TB, ws engine.Workspace) *remote.Workspace {
	t.Helper()
	srv, err := rpc.NewServer[engine.Workspace](ws, rpc.ServerOptions{Version: "test"})
	require.NoError(t, err)
	dir, err := os.MkdirTemp("", "remote")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	sock := filepath.Join(dir, "s.sock")
	ln, err := net.Listen("unix", sock)
	require.NoError(t, err)
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	c := rpc.NewClient(func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	}, rpc.ClientOptions{Version: "test"})
	t.Cleanup(func() { _ = c.Close() })
	return remote.NewWorkspace(c)
}

// TestRemoteWorkspaceMatchesLocal: every servable method of today's
// engine.Workspace gives the same answer through the socket.
func TestRemoteWorkspaceMatchesLocal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	local := openLocal(t)
	r := serveLocal(t, local)

	assert.Equal(t, local.Info(), r.Info())
	assert.Equal(t, local.Config(), r.Config())
	assert.Equal(t, local.StarterPatternsDir(), r.StarterPatternsDir())

	wantSum, err := local.Summary(ctx)
	require.NoError(t, err)
	gotSum, err := r.Summary(ctx)
	require.NoError(t, err)
	assert.Equal(t, wantSum, gotSum)

	wantPlans, err := local.Plans(ctx)
	require.NoError(t, err)
	gotPlans, err := r.Plans(ctx)
	require.NoError(t, err)
	assert.Equal(t, wantPlans, gotPlans)

	assert.Equal(t, local.RunEvents(1), r.RunEvents(1))

	// A write through the socket, seen by a subscriber through the socket.
	sub, cancel := context.WithCancel(ctx)
	defer cancel()
	events := r.Subscribe(sub)
	require.NoError(t, r.SetTheme(ctx, "dracula"))
	assert.Equal(t, "dracula", local.Config().Theme)
	select {
	case ev := <-events:
		assert.Equal(t, engine.EventThemeChanged, ev.Type)
		assert.Equal(t, "dracula", ev.Text)
	case <-time.After(20 * time.Second):
		t.Fatal("no event through the socket")
	}
}

func TestRemoteWorkspaceErrorsKeepSentinels(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	local := openLocal(t)
	r := serveLocal(t, local)

	_, wantErr := local.DiscardChange(ctx, 999, "")
	require.Error(t, wantErr)
	_, err := r.DiscardChange(ctx, 999, "")
	require.Error(t, err)
	assert.Equal(t, wantErr.Error(), err.Error())
	assert.Equal(t, errors.Is(wantErr, changes.ErrNotFound), errors.Is(err, changes.ErrNotFound))
	assert.ErrorIs(t, err, changes.ErrNotFound)

	err = r.AnswerApproval("nobody-waits", true)
	assert.ErrorIs(t, err, engine.ErrNoSuchApproval)
}

// TestGeneratorAgreesWithServer: rpcgen (go/types) and the server
// (reflection) apply the same servability rules to the same interfaces.
func TestGeneratorAgreesWithServer(t *testing.T) {
	t.Parallel()
	check := func(t *testing.T, goFile string, served []string) {
		t.Helper()
		cfg, err := gen.ConfigFromFile(goFile)
		require.NoError(t, err)
		res, err := gen.Generate(cfg)
		require.NoError(t, err)
		var generated []string
		for _, m := range res.Methods {
			if !contains(cfg.Local, m) {
				generated = append(generated, m)
			}
		}
		sort.Strings(generated)
		assert.Equal(t, served, generated)
	}
	t.Run("engine.Workspace", func(t *testing.T) {
		srv, err := rpc.NewServer[engine.Workspace](openLocal(t), rpc.ServerOptions{})
		require.NoError(t, err)
		check(t, "remote.go", srv.Methods())
	})
	t.Run("rpcdemo.Demo", func(t *testing.T) {
		st, err := rpcdemo.Open(filepath.Join(t.TempDir(), "nova.db"), time.Second)
		require.NoError(t, err)
		defer st.Close()
		srv, err := rpc.NewServer[rpcdemo.Demo](st, rpc.ServerOptions{})
		require.NoError(t, err)
		check(t, "../internal/rpcdemo/demo.go", srv.Methods())
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
