package owner_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/internal/rpcdemo"
	"github.com/nova-dev/nova/engine/owner"
	"github.com/nova-dev/nova/engine/rpc"
)

// The test binary doubles as the nova processes of these tests: run with
// OWNER_TEST_CHILD set, it plays that role instead of running tests, so
// that races, kills and hand-overs happen between real processes.
func TestMain(m *testing.M) {
	if role := os.Getenv("OWNER_TEST_CHILD"); role != "" {
		os.Exit(child(role, os.Getenv("OWNER_TEST_ROOT")))
	}
	os.Exit(m.Run())
}

// demoOptions joins the demo service of the workspace at root.
func demoOptions(root string) owner.Options[*rpcdemo.Store] {
	return owner.Options[*rpcdemo.Store]{
		Root:    root,
		Version: "test",
		Open: func(_ context.Context, lockTimeout time.Duration) (*rpcdemo.Store, error) {
			return rpcdemo.Open(filepath.Join(root, ".nova", "nova.db"), lockTimeout)
		},
		Handler: func(st *rpcdemo.Store) (http.Handler, error) {
			return rpc.NewServer[rpcdemo.Demo](st, rpc.ServerOptions{Version: "test"})
		},
	}
}

// demoCalls are the calls the children make, on the store or the remote.
type demoCalls interface {
	Put(ctx context.Context, it rpcdemo.Item) (rpcdemo.Item, error)
	Count(ctx context.Context) (int, error)
	Fill(ctx context.Context, n int, pause time.Duration) (int, error)
	Steps(ctx context.Context, total int, pause time.Duration) (int, error)
	Subscribe(ctx context.Context) <-chan rpcdemo.Event
}

func callsOf(s *owner.Session[*rpcdemo.Store]) demoCalls {
	if s.Owner != nil {
		return s.Owner.Value()
	}
	return rpcdemo.NewRemote(s.Client)
}

func waitStdin() {
	_, _ = io.Copy(io.Discard, os.Stdin)
}

// child plays one role; its protocol with the test is one line per fact
// on stdout.
func child(role, root string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	say := func(format string, args ...any) { fmt.Printf(format+"\n", args...) }
	fail := func(err error) int {
		say("error %v", err)
		return 1
	}
	opts := demoOptions(root)
	switch role {
	case "join":
		// Join, report the role, write one item, stay until stdin closes.
		s, err := owner.Join(ctx, opts)
		if err != nil {
			return fail(err)
		}
		defer s.Close()
		if s.Owner != nil {
			say("owner %d", os.Getpid())
		} else {
			say("client %d", s.Info.PID)
		}
		it, err := callsOf(s).Put(ctx, rpcdemo.Item{Name: fmt.Sprintf("from %d", os.Getpid())})
		if err != nil {
			return fail(err)
		}
		say("put %d", it.ID)
		waitStdin()
		return 0
	case "fill":
		// A client that starts a long write (the test kills it midway).
		s, err := owner.Join(ctx, opts)
		if err != nil {
			return fail(err)
		}
		d := callsOf(s)
		if _, err := d.Put(ctx, rpcdemo.Item{Name: "committed"}); err != nil {
			return fail(err)
		}
		say("put")
		_, err = d.Fill(ctx, 100000, 20*time.Millisecond)
		return fail(err)
	case "steps":
		// A resumable job of 40 steps (the test kills the owner midway).
		s, err := owner.Join(ctx, opts)
		if err != nil {
			return fail(err)
		}
		defer s.Close()
		if s.Owner != nil {
			s.Owner.Value().OnStep = func(i int) { say("step %d", i) }
			say("owner %d", os.Getpid())
		}
		n, err := callsOf(s).Steps(ctx, 40, 25*time.Millisecond)
		if err != nil {
			return fail(err)
		}
		say("done %d", n)
		waitStdin()
		return 0
	case "watch":
		// A client that watches events and reads in a loop, reporting
		// every failure: it must see none across a hand-over.
		opts.Client.OnError = func(method string, err error) { say("report %s %v", method, err) }
		opts.Client.OnReconnect = func(method string) { say("reconnected %s", method) }
		s, err := owner.Join(ctx, opts)
		if err != nil {
			return fail(err)
		}
		defer s.Close()
		if s.Owner != nil {
			return fail(fmt.Errorf("expected to be a client"))
		}
		d := rpcdemo.NewRemote(s.Client)
		events := d.Subscribe(ctx)
		say("watching %d", s.Info.PID)
		go func() {
			for ev := range events {
				say("event %s %d", ev.Type, ev.ID)
			}
			say("events closed")
		}()
		go func() {
			for ctx.Err() == nil {
				if _, err := d.Count(ctx); err != nil && ctx.Err() == nil {
					say("count-error %v", err)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}()
		waitStdin()
		say("bye")
		return 0
	case "serve":
		// `nova serve`: own (or take over), report, run until signalled.
		o, err := owner.Serve(ctx, opts)
		if err != nil {
			return fail(err)
		}
		say("serving %d %s", os.Getpid(), o.Socket())
		if err := o.Wait(ctx); err != nil {
			return fail(err)
		}
		say("stopped")
		return 0
	case "dial":
		// A process of another user trying the socket: nova refuses the
		// socket (another user's), and the socket's mode refuses a raw
		// connection.
		dial, err := owner.Dialer(root)
		if err != nil {
			return fail(err)
		}
		c := rpc.NewClient(dial, rpc.ClientOptions{ReconnectWait: 200 * time.Millisecond})
		_, err = rpcdemo.NewRemote(c).Count(ctx)
		say("nova %v", err)
		conn, err := net.Dial("unix", filepath.Join(root, ".nova", "nova.sock"))
		if err == nil {
			_ = conn.Close()
		}
		say("raw %v", err)
		return 0
	}
	return fail(fmt.Errorf("unknown role %q", role))
}

// proc is a child process of the test.
type proc struct {
	t     testing.TB
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string
	done  chan struct{} // closed when the process has exited
	err   error         // its exit status, once done is closed
}

func startChild(t testing.TB, role, root string, env ...string) *proc {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "OWNER_TEST_CHILD="+role, "OWNER_TEST_ROOT="+root)
	cmd.Env = append(cmd.Env, env...)
	cmd.Stderr = os.Stderr
	return start(t, cmd)
}

func start(t testing.TB, cmd *exec.Cmd) *proc {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	p := &proc{t: t, cmd: cmd, stdin: stdin, lines: make(chan string, 1000), done: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		select {
		case <-p.done:
		case <-time.After(20 * time.Second):
		}
	})
	return p
}

// hangBound is the generous bound that only catches hangs.
const hangBound = 30 * time.Second

// expect waits for a line starting with prefix and returns its fields
// after the prefix; other lines are skipped (and returned by the failure).
func (p *proc) expect(prefix string) []string {
	p.t.Helper()
	var seen []string
	timeout := time.After(hangBound)
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("child exited before %q; it said %q", prefix, seen)
			}
			if strings.HasPrefix(line, prefix) {
				return strings.Fields(strings.TrimPrefix(line, prefix))
			}
			seen = append(seen, line)
		case <-timeout:
			p.t.Fatalf("child did not say %q in %s; it said %q", prefix, hangBound, seen)
		}
	}
}

// kill sends SIGKILL and waits for the process to be gone.
func (p *proc) kill() {
	p.t.Helper()
	require.NoError(p.t, p.cmd.Process.Signal(syscall.SIGKILL))
	select {
	case <-p.done:
	case <-time.After(hangBound):
		p.t.Fatal("killed child did not exit")
	}
}

// finish closes stdin and waits for a clean exit.
func (p *proc) finish() {
	p.t.Helper()
	_ = p.stdin.Close()
	for range p.lines {
	}
	select {
	case <-p.done:
		require.NoError(p.t, p.err)
	case <-time.After(hangBound):
		p.t.Fatal("child did not exit after stdin closed")
	}
}

func atoi(t testing.TB, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	require.NoError(t, err)
	return n
}
