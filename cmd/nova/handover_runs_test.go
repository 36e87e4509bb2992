package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/llm/ollamatest/scenario"
	"github.com/nova-dev/nova/engine/owner"
)

// handoverOwner makes this test process the owner of dir's workspace as
// the TUI is (its session and link), with hand-overs starting the real
// binary's `nova serve`.
func handoverOwner(t *testing.T, dir string, env map[string]string) (*session, *link, func() *exec.Cmd) {
	t.Helper()
	stopTestOwner(t, dir) // this test's owners are the TUI's session and the real serve
	e, _, _ := newTestEnv(t, dir, env, "")
	e.fullScreen = true
	sess, l, err := joinForTUI(t.Context(), e)
	require.NoError(t, err)
	require.NotNil(t, sess.owner(), "the first nova owns the workspace")
	t.Cleanup(func() { _ = sess.ws.Close() })
	var mu sync.Mutex
	var served *exec.Cmd
	l.serveCmd = func(root string, args ...string) (*exec.Cmd, error) {
		mu.Lock()
		defer mu.Unlock()
		served = binaryCmd(t, dir, env, append([]string{"serve", "--workspace", root}, args...)...)
		t.Cleanup(func() {
			if served.Process != nil {
				_ = served.Process.Kill() // Handover reaps it
			}
		})
		return served, nil
	}
	return sess, l, func() *exec.Cmd { mu.Lock(); defer mu.Unlock(); return served }
}

// clientRun is a real nova CLI process working through the owner, its
// stdout read line by line.
type clientRun struct {
	cmd    *exec.Cmd
	lines  chan string
	stderr *lockedBuffer
	done   chan int
}

func startClient(t *testing.T, dir string, env map[string]string, args ...string) *clientRun {
	t.Helper()
	cmd := binaryCmd(t, dir, env, args...)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	c := &clientRun{cmd: cmd, lines: make(chan string, 1024), stderr: &lockedBuffer{}, done: make(chan int, 1)}
	cmd.Stderr = c.stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		_, _ = io.Copy(io.Discard, out)
		close(c.lines)
		err := cmd.Wait()
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			c.done <- ee.ExitCode()
		case err != nil:
			c.done <- -1
		default:
			c.done <- 0
		}
	}()
	return c
}

func (c *clientRun) errText() string { return string(c.stderr.Bytes()) }

// until reads the client's JSON events until match says so; it returns
// the lines read.
func (c *clientRun) until(t *testing.T, what string, match func(ev map[string]any) bool) []string {
	t.Helper()
	var seen []string
	deadline := time.After(60 * time.Second) // catches hangs only
	for {
		select {
		case line, ok := <-c.lines:
			require.True(t, ok, "the client ended before %s: %s\n%s", what, c.errText(), strings.Join(seen, "\n"))
			seen = append(seen, line)
			var ev map[string]any
			if json.Unmarshal([]byte(line), &ev) == nil && match(ev) {
				return seen
			}
		case <-deadline:
			t.Fatalf("no %s", what)
		}
	}
}

// exit waits for the client's exit code and its remaining lines.
func (c *clientRun) exit(t *testing.T) (int, []string) {
	t.Helper()
	var rest []string
	for line := range c.lines {
		rest = append(rest, line)
	}
	select {
	case code := <-c.done:
		return code, rest
	case <-time.After(90 * time.Second):
		t.Fatalf("the client did not end: %s", c.errText())
	}
	return 0, nil
}

// waitStopped waits for the hand-over's headless owner to stop by itself
// once idle, and checks that nobody owns the workspace then.
func waitStopped(t *testing.T, dir string, served *exec.Cmd) {
	t.Helper()
	require.NotNil(t, served)
	for deadline := time.Now().Add(60 * time.Second); !errors.Is(served.Process.Signal(syscall.Signal(0)), os.ErrProcessDone); {
		require.True(t, time.Now().Before(deadline), "the headless owner did not stop once idle")
		time.Sleep(50 * time.Millisecond)
	}
	_, err := owner.Probe(t.Context(), dir, "")
	assert.ErrorIs(t, err, owner.ErrNoOwner)
}

// TestQuitHandsAGoalRunOverAndItsClientFollows: a `nova run` client works
// through the owning nova (the TUI's session) while the owner hands the
// workspace over in the middle of a delegation. The client says so and
// follows the run to its end (exit 0); the headless owner resumes exactly
// that run (its build is the run's, not resumed on its own), does not ask
// the lead again for what was done, and stops once idle; the database
// checks clean. The bounds only catch hangs.
func TestQuitHandsAGoalRunOverAndItsClientFollows(t *testing.T) {
	t.Parallel()
	dir, env, release := heldGoalWorkspace(t)
	sess, l, served := handoverOwner(t, dir, env)

	c := startClient(t, dir, env, "run", "add a health check endpoint with tests", "--headless", "--json")
	c.until(t, "delegation of t2", func(ev map[string]any) bool { return ev["type"] == "delegation" && ev["taskId"] == "t2" })
	rest, log := handOverAndFollow(t, dir, c, sess, l, served, release, "goal run",
		engine.RunningWork{Builds: []uint64{}, GoalRuns: []uint64{1}, WorkflowRuns: []uint64{}})
	var last goalEvent
	require.NoError(t, json.Unmarshal([]byte(rest[len(rest)-1]), &last))
	assert.Equal(t, "done", last.Type, "the client printed the run's end from the new owner")
	assert.Equal(t, "completed", last.Status)
	assert.Contains(t, log, "nova: goal run 1 completed")
	assert.NotContains(t, log, "resuming build", "the run's build is resumed by its run")

	var d goalRunShow
	novaJSON(t, dir, &d, "run", "show", "1")
	assert.Equal(t, "completed", d.Run.Status)
	assert.Equal(t, 4, d.Run.Turns, "the lead was not asked again for t1 or t2")
	assert.Equal(t, 1, d.Run.Resumes)
	assert.True(t, strings.HasSuffix(strings.TrimSpace(novaOK(t, dir, "db", "check")), "is consistent"))
}

// heldGoalWorkspace is goalWorkspace with MARS's replies (the second
// delegation) held until release is closed.
func heldGoalWorkspace(t *testing.T) (string, map[string]string, *held) {
	t.Helper()
	dir := t.TempDir()
	require.Equal(t, 0, runNova(t, dir, nil, "init").code)
	writeFile(t, dir, "go.mod", "module example.com/app\n\ngo 1.22\n")
	h := &held{ch: make(chan struct{})}
	srv := ollamatest.New(t, ollamatest.WithModels(scenario.Models()...),
		ollamatest.WithHandler(holdUntil(scenario.HealthCheck(scenario.Options{ChunkDelay: 5 * time.Millisecond}), agentIs("MARS"), h)))
	t.Cleanup(h.release) // before the server closes
	return dir, map[string]string{"OLLAMA_HOST": srv.URL()}, h
}

// goalRunShow is what the tests read of `nova run show ID --json`.
type goalRunShow struct {
	Run struct {
		Status  string `json:"status"`
		Turns   int    `json:"turns"`
		Resumes int    `json:"resumes"`
	} `json:"run"`
}

// handOverAndFollow hands the workspace over while the client's run goes
// on in the owner (want is what runs there), and checks that the client
// followed its run (a noun) to its end (exit 0) and that the headless
// owner resumed it and stopped once idle. It returns the client's lines
// after the hand-over and the headless owner's log.
func handOverAndFollow(t *testing.T, dir string, c *clientRun, sess *session, l *link, served func() *exec.Cmd,
	release *held, noun string, want engine.RunningWork) ([]string, string) {
	t.Helper()
	ctx := t.Context()
	work, err := sess.ws.RunningWork(ctx)
	require.NoError(t, err)
	assert.Equal(t, want, work, "a run's builds go on with their run, not on their own")
	note, err := l.Handover(ctx, work)
	release.release() // the new owner's calls are answered
	require.NoError(t, err)
	assert.Contains(t, note, noun+" 1 goes on there")

	code, rest := c.exit(t)
	require.Equal(t, 0, code, "the %s ended well in the new owner: %s\n%s", noun, c.errText(), strings.Join(rest, "\n"))
	assert.Contains(t, c.errText(),
		"nova: the nova that ran "+noun+" 1 stopped serving; following the "+noun+" (ctrl+c stops following, not the "+noun+")")
	require.NotEmpty(t, rest, "the client printed the run's end from the new owner: %s", c.errText())

	waitStopped(t, dir, served())
	log := readFile(t, dir, ".nova/"+owner.LogName)
	assert.Contains(t, log, "nova: resuming "+noun+" 1")
	return rest, log
}

// holdUntil is inner, with the replies to the requests that match held
// until release is closed: a run's call stays in flight in the old owner
// past the grace a stopping owner gives calls (3 s), whatever the
// machine's speed, so that the hand-over cuts it in the middle.
func holdUntil(inner ollamatest.ChatFunc, match func(system, user string) bool, h *held) ollamatest.ChatFunc {
	return func(n int, req api.ChatRequest) ollamatest.Reply {
		system, user := "", ""
		for _, m := range req.Messages {
			switch {
			case m.Role == "system" && system == "":
				system = m.Content
			case m.Role == "user" && user == "":
				user = m.Content
			}
		}
		if match(system, user) {
			select {
			case <-h.ch:
			case <-time.After(60 * time.Second): // the test failed elsewhere
			}
		}
		return inner(n, req)
	}
}

// held holds replies (holdUntil) until released; a test's cleanup releases
// them before its fake server closes (which waits for its replies).
type held struct {
	ch   chan struct{}
	once sync.Once
}

func newHeld(t *testing.T) *held {
	h := &held{ch: make(chan struct{})}
	t.Cleanup(h.release)
	return h
}

func (h *held) release() { h.once.Do(func() { close(h.ch) }) }

// agentIs matches the requests of one agent (its role's first line).
func agentIs(name string) func(system, user string) bool {
	return func(system, _ string) bool { return strings.HasPrefix(system, "You are "+name) }
}

// TestQuitHandsAWorkflowRunOverAndItsClientFollows: the same for a
// `nova workflow run` client: handed over in the middle of its agent step,
// the run goes on in the headless owner from that step (the finished
// skill step is not run again), the client follows it to its end.
func TestQuitHandsAWorkflowRunOverAndItsClientFollows(t *testing.T) {
	t.Parallel()
	dir, srv, env := agentWorkspace(t)
	release := newHeld(t) // its cleanup runs before the server's
	srv.SetHandler(holdUntil(workingHandler, func(_, user string) bool { return strings.Contains(user, "PRD task test: ") }, release))
	writeFile(t, dir, "parse.go", "package main\n\nfunc parse(s string) int { return len(s) }\n")
	sess, l, served := handoverOwner(t, dir, env)

	c := startClient(t, dir, env, "workflow", "run", "add-test", "--set", "target=parse.go", "--json")
	c.until(t, "the test step's build at work", func(ev map[string]any) bool {
		return ev["topic"] == "build" && ev["type"] == "task" && ev["taskId"] == "test" && ev["status"] == "running"
	})
	rest, log := handOverAndFollow(t, dir, c, sess, l, served, release, "workflow run",
		engine.RunningWork{Builds: []uint64{}, GoalRuns: []uint64{}, WorkflowRuns: []uint64{1}})
	assert.Contains(t, rest[len(rest)-1], `"type":"done"`)
	assert.Contains(t, log, "nova: workflow run 1 done")

	var run struct {
		Status  string `json:"status"`
		Resumes int    `json:"resumes"`
		Steps   []struct {
			ID       string `json:"id"`
			Status   string `json:"status"`
			Attempts int    `json:"attempts"`
		} `json:"steps"`
	}
	novaJSON(t, dir, &run, "workflow", "status", "1")
	assert.Equal(t, "done", run.Status)
	assert.Equal(t, 1, run.Resumes)
	require.Len(t, run.Steps, 4)
	assert.Equal(t, "study", run.Steps[0].ID)
	assert.Equal(t, 1, run.Steps[0].Attempts, "the finished skill step is not run again")
	assert.Equal(t, "done", run.Steps[1].Status)
	assert.Equal(t, 2, run.Steps[1].Attempts, "the test step went on in the new owner")
	assert.True(t, strings.HasSuffix(strings.TrimSpace(novaOK(t, dir, "db", "check")), "is consistent"))
}

// TestAGoalRunNobodyResumesEndsTheFollow: the owner quits without handing
// the run over (Stop and quit): the `nova run` client follows it, and once
// nobody resumed it for a while it exits 1 with the resume command. A
// client following a run can stop following with ctrl+c (exit 1); the run
// is left as it is, resumable.
func TestAGoalRunNobodyResumesEndsTheFollow(t *testing.T) {
	t.Parallel()
	dir, env, _ := heldGoalWorkspace(t) // MARS is never released: the run stays interrupted
	sess, _, _ := handoverOwner(t, dir, env)

	c := startClient(t, dir, env, "run", "add a health check endpoint with tests", "--headless", "--json")
	c.until(t, "delegation of t2", func(ev map[string]any) bool { return ev["type"] == "delegation" && ev["taskId"] == "t2" })
	require.NoError(t, sess.ws.Close()) // the owner quits, interrupting the run
	code, _ := c.exit(t)
	assert.Equal(t, 1, code)
	assert.Contains(t, c.errText(), "following the goal run (ctrl+c stops following, not the goal run)")
	assert.Contains(t, c.errText(),
		"goal run 1: it stopped and no nova resumed it (interrupted); resume it with `nova run resume 1`")

	// Again, and ctrl+c while following.
	sess, _, _ = handoverOwner(t, dir, env)
	c = startClient(t, dir, env, "run", "resume", "1", "--json")
	c.until(t, "the run going on", func(ev map[string]any) bool { return ev["topic"] == "goal" && ev["text"] == "the run goes on" })
	require.NoError(t, sess.ws.Close())
	for deadline := time.Now().Add(60 * time.Second); !strings.Contains(c.errText(), "following the goal run"); {
		require.True(t, time.Now().Before(deadline), "the client does not follow: %s", c.errText())
		time.Sleep(50 * time.Millisecond)
	}
	require.NoError(t, c.cmd.Process.Signal(os.Interrupt))
	code, _ = c.exit(t)
	assert.Equal(t, 1, code)
	assert.Contains(t, c.errText(), "nova: stopped following goal run 1 (`nova run show 1` tells how it goes)")

	var d goalRunShow
	novaJSON(t, dir, &d, "run", "show", "1")
	assert.Equal(t, "interrupted", d.Run.Status, "resumable")
	novaOK(t, dir, "db", "check")
}
