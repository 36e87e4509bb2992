package remote_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	nova "github.com/nova-dev/nova"
	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/owner"
	"github.com/nova-dev/nova/engine/remote"
	"github.com/nova-dev/nova/engine/rpc"
	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/engine/vault/vaulttest"
	"github.com/nova-dev/nova/engine/workspace"
)

// The benchmarks of issue 12:
//
//   - BenchmarkCallOverhead: one facade call through the socket against the
//     same call in process, on an empty workspace (target: ≤ 5 ms more).
//   - BenchmarkVaultRead100k: `vault search` and `vault stats` at 100k nodes
//     through a warm owner (targets: ≤ 30 ms and ≤ 20 ms wall) against
//     opening the database. Today's engine.Workspace hands out *vault.Vault,
//     which cannot cross the wire, so the reads are served here as the
//     reshaped facade will serve them: verbs over plain values (vaultReads).
//     The "process" cases start a real client process per read (this test
//     binary: Join, one call, exit), which is what a CLI command costs
//     without cobra and fang.

// vaultReads are the verbs `nova vault search` and `nova vault stats` use.
type vaultReads interface {
	VaultSearch(ctx context.Context, query string, limit int) ([]vault.Scored, error)
	VaultStats(ctx context.Context) (vault.Stats, error)
	Close() error
}

type localReads struct{ l *engine.Local }

func (r localReads) VaultSearch(ctx context.Context, q string, limit int) ([]vault.Scored, error) {
	return r.l.Vault().Search(ctx, q, vault.SearchOptions{Limit: limit, NoEmbeddings: true})
}
func (r localReads) VaultStats(ctx context.Context) (vault.Stats, error) {
	return r.l.Vault().Stats(ctx)
}
func (r localReads) Close() error { return r.l.Close() }

type remoteReads struct{ c *rpc.Client }

func (r remoteReads) VaultSearch(ctx context.Context, q string, limit int) ([]vault.Scored, error) {
	var res []vault.Scored
	err := r.c.Call(ctx, "VaultSearch", []any{q, limit}, []any{&res}, rpc.CallOptions{Idempotent: true})
	return res, err
}
func (r remoteReads) VaultStats(ctx context.Context) (vault.Stats, error) {
	var res vault.Stats
	err := r.c.Call(ctx, "VaultStats", nil, []any{&res}, rpc.CallOptions{Idempotent: true})
	return res, err
}
func (r remoteReads) Close() error { return r.c.Close() }

var benchEnv = envOf(map[string]string{"OLLAMA_HOST": "http://127.0.0.1:9"})

func readsOptions(root string) owner.Options[localReads] {
	return owner.Options[localReads]{
		Root:    root,
		Version: "bench",
		Open: func(ctx context.Context, lockTimeout time.Duration) (localReads, error) {
			l, err := engine.Open(ctx, engine.Options{Root: root, Getenv: benchEnv, LockTimeout: lockTimeout})
			return localReads{l}, err
		},
		Handler: func(r localReads) (http.Handler, error) {
			return rpc.NewServer[vaultReads](r, rpc.ServerOptions{Version: "bench"})
		},
	}
}

func TestMain(m *testing.M) {
	if role := os.Getenv("REMOTE_BENCH_CHILD"); role != "" {
		os.Exit(benchChild(role, os.Getenv("REMOTE_BENCH_ROOT")))
	}
	code := m.Run()
	benchMu.Lock()
	for _, dir := range benchDirs {
		_ = os.RemoveAll(dir)
	}
	benchMu.Unlock()
	os.Exit(code)
}

// benchChild is one CLI-like read: join the owner, read once, exit.
func benchChild(role, root string) int {
	ctx := context.Background()
	s, err := owner.Join(ctx, readsOptions(root))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer s.Close()
	var r vaultReads = remoteReads{s.Client}
	if s.Owner != nil {
		r = s.Owner.Value()
	}
	switch role {
	case "search":
		hits, err := r.VaultSearch(ctx, "error handling", 10)
		if err != nil || len(hits) == 0 {
			fmt.Fprintln(os.Stderr, "search:", err, len(hits))
			return 1
		}
	case "stats":
		if _, err := r.VaultStats(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "stats:", err)
			return 1
		}
	}
	return 0
}

var (
	benchMu   sync.Mutex
	benchDirs = map[int]string{}
)

// benchWorkspace is a workspace holding n generated vault nodes, made once
// per test process (vaulttest: realistic lengths, 20 tags, 5 types).
func benchWorkspace(b *testing.B, n int) string {
	b.Helper()
	benchMu.Lock()
	defer benchMu.Unlock()
	if dir, ok := benchDirs[n]; ok {
		return dir
	}
	dir, err := os.MkdirTemp("", "bench")
	require.NoError(b, err)
	_, err = workspace.Init(dir, nova.Defaults)
	require.NoError(b, err)
	ctx := context.Background()
	l, err := engine.Open(ctx, engine.Options{Root: dir, Getenv: benchEnv, NoSync: true})
	require.NoError(b, err)
	v := l.Vault()
	if n > 0 {
		require.NoError(b, vaulttest.Fill(ctx, v, n, 7, vaulttest.Options{}))
		// Build the index so Close saves its snapshot, as a real session does.
		require.NoError(b, v.WaitIndex(ctx))
	}
	require.NoError(b, l.Close())
	benchDirs[n] = dir
	return dir
}

func BenchmarkCallOverhead(b *testing.B) {
	ctx := context.Background()
	root := benchWorkspace(b, 0)
	s, err := owner.Join(ctx, owner.Options[*engine.Local]{
		Root: root,
		Open: func(ctx context.Context, lockTimeout time.Duration) (*engine.Local, error) {
			return engine.Open(ctx, engine.Options{Root: root, Getenv: benchEnv, LockTimeout: lockTimeout})
		},
		Handler: func(l *engine.Local) (http.Handler, error) {
			return rpc.NewServer[engine.Workspace](l, rpc.ServerOptions{})
		},
	})
	require.NoError(b, err)
	defer s.Close()
	require.NotNil(b, s.Owner)
	local := s.Owner.Value()
	dial, err := owner.Dialer(root)
	require.NoError(b, err)
	c := rpc.NewClient(dial, rpc.ClientOptions{})
	defer c.Close()
	r := remote.NewWorkspace(c)

	b.Run("Summary/direct", func(b *testing.B) {
		for b.Loop() {
			if _, err := local.Summary(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Summary/socket", func(b *testing.B) {
		for b.Loop() {
			if _, err := r.Summary(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	// A CLI command's calls: one connection each (rpc NoKeepAlive).
	cli := rpc.NewClient(dial, rpc.ClientOptions{NoKeepAlive: true})
	defer cli.Close()
	rc := remote.NewWorkspace(cli)
	b.Run("Summary/socket-cli", func(b *testing.B) {
		for b.Loop() {
			if _, err := rc.Summary(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Info/direct", func(b *testing.B) {
		for b.Loop() {
			_ = local.Info()
		}
	})
	b.Run("Info/socket", func(b *testing.B) {
		for b.Loop() {
			_ = r.Info()
		}
		if err := c.LastError(); err != nil {
			b.Fatal(err)
		}
	})
	// A new client per call: what a CLI command pays (dial, handshake,
	// call), without the process start.
	b.Run("Summary/join-and-call", func(b *testing.B) {
		for b.Loop() {
			js, err := owner.Join(ctx, owner.Options[*engine.Local]{Root: root, Open: func(context.Context, time.Duration) (*engine.Local, error) {
				return nil, fmt.Errorf("unexpected open")
			}, Handler: func(*engine.Local) (http.Handler, error) { return nil, fmt.Errorf("unexpected") }})
			if err != nil || js.Client == nil {
				b.Fatal(err)
			}
			if _, err := remote.NewWorkspace(js.Client).Summary(ctx); err != nil {
				b.Fatal(err)
			}
			_ = js.Close()
		}
	})
}

func BenchmarkVaultRead100k(b *testing.B) {
	const n = 100_000
	ctx := context.Background()
	root := benchWorkspace(b, n)

	// Opening the database for every read, as a process without an owner
	// does (in process: the process start is not counted).
	b.Run("search/open-db", func(b *testing.B) {
		for b.Loop() {
			l, err := engine.Open(ctx, engine.Options{Root: root, Getenv: benchEnv})
			require.NoError(b, err)
			hits, err := localReads{l}.VaultSearch(ctx, "error handling", 10)
			require.NoError(b, err)
			require.NotEmpty(b, hits)
			require.NoError(b, l.Close())
		}
	})
	b.Run("stats/open-db", func(b *testing.B) {
		for b.Loop() {
			l, err := engine.Open(ctx, engine.Options{Root: root, Getenv: benchEnv})
			require.NoError(b, err)
			_, err = localReads{l}.VaultStats(ctx)
			require.NoError(b, err)
			require.NoError(b, l.Close())
		}
	})

	s, err := owner.Join(ctx, readsOptions(root))
	require.NoError(b, err)
	defer s.Close()
	require.NotNil(b, s.Owner)
	// Warm: the first search builds (or loads) the index.
	_, err = s.Owner.Value().VaultSearch(ctx, "warm up", 1)
	require.NoError(b, err)
	dial, err := owner.Dialer(root)
	require.NoError(b, err)
	c := rpc.NewClient(dial, rpc.ClientOptions{})
	defer c.Close()
	rr := remoteReads{c}

	b.Run("search/warm-owner-call", func(b *testing.B) {
		for b.Loop() {
			hits, err := rr.VaultSearch(ctx, "error handling", 10)
			if err != nil || len(hits) == 0 {
				b.Fatal(err)
			}
		}
	})
	b.Run("stats/warm-owner-call", func(b *testing.B) {
		for b.Loop() {
			if _, err := rr.VaultStats(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, role := range []string{"search", "stats"} {
		b.Run(role+"/warm-owner-process", func(b *testing.B) {
			var walls []time.Duration
			for b.Loop() {
				cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.bench=^$")
				cmd.Env = append(os.Environ(), "REMOTE_BENCH_CHILD="+role, "REMOTE_BENCH_ROOT="+root)
				began := time.Now()
				out, err := cmd.CombinedOutput()
				walls = append(walls, time.Since(began))
				if err != nil {
					b.Fatalf("%v: %s", err, out)
				}
			}
			reportPercentiles(b, walls)
		})
	}
}

func reportPercentiles(b *testing.B, walls []time.Duration) {
	if len(walls) == 0 {
		return
	}
	sort.Slice(walls, func(i, j int) bool { return walls[i] < walls[j] })
	p := func(q float64) float64 {
		return float64(walls[int(q*float64(len(walls)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(p(0.5), "p50-ms")
	b.ReportMetric(p(0.9), "p90-ms")
}
