package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/owner"
	"github.com/nova-dev/nova/engine/vault"
)

// fourTasks is a plan of four tasks in a row (each waits for the one
// before), long enough to hand over in the middle.
const fourTasks = `{"meta":{"name":"four"},"tasks":[
 {"id":"f-1","title":"one","description":"first","agent":"MARS","status":"pending","dependencies":[],"phase":0,"attempts":0},
 {"id":"f-2","title":"two","description":"second","agent":"MARS","status":"pending","dependencies":["f-1"],"phase":1,"attempts":0},
 {"id":"f-3","title":"three","description":"third","agent":"MARS","status":"pending","dependencies":["f-2"],"phase":2,"attempts":0},
 {"id":"f-4","title":"four","description":"fourth","agent":"MARS","status":"pending","dependencies":["f-3"],"phase":3,"attempts":0}]}`

// TestQuitHandsTheBuildOverToAHeadlessOwner: the owning nova (the TUI's
// link) hands the workspace over in the middle of a build: a real `nova
// serve` process takes it, resumes the build (done tasks are not redone)
// and stops by itself once the build ended and nobody is attached. Every
// command works throughout; the database checks clean. The bounds only
// catch hangs.
func TestQuitHandsTheBuildOverToAHeadlessOwner(t *testing.T) {
	t.Parallel()
	dir, s, env := buildWorkspace(t, 150*time.Millisecond)
	writeFile(t, dir, "four.json", fourTasks)
	stopTestOwner(t, dir) // this test's owners are the TUI's session and the real serve
	e, _, _ := newTestEnv(t, dir, env, "")
	e.fullScreen = true
	ctx := t.Context()
	sess, l, err := joinForTUI(ctx, e)
	require.NoError(t, err)
	require.NotNil(t, sess.owner(), "the first nova owns the workspace")
	defer func() { _ = sess.ws.Close() }()
	var served *exec.Cmd
	l.serveCmd = func(root string, args ...string) (*exec.Cmd, error) {
		served = binaryCmd(t, dir, env, append([]string{"serve", "--workspace", root}, args...)...)
		return served, nil
	}

	ws := sess.ws
	b, err := ws.CreateBuild(ctx, dir+"/four.json", engine.BuildOptions{})
	require.NoError(t, err)
	events := ws.Subscribe(ctx)
	ran := make(chan error, 1)
	go func() {
		_, err := ws.RunBuild(ctx, b.ID, engine.RunBuildOptions{Approvals: engine.ApproveNone})
		ran <- err
	}()
	for deadline := time.After(30 * time.Second); ; {
		select {
		case ev := <-events:
			if ev.Type != engine.EventTask || ev.TaskID != "f-1" || ev.Status != string(build.TaskDone) {
				continue
			}
		case <-deadline:
			t.Fatal("the build did not start")
		}
		break
	}
	st := l.Status(ctx)
	assert.True(t, st.Owner)

	work, err := ws.RunningWork(ctx)
	require.NoError(t, err)
	assert.Equal(t, engine.RunningWork{Builds: []uint64{b.ID}, GoalRuns: []uint64{}, WorkflowRuns: []uint64{}}, work)
	note, err := l.Handover(ctx, work)
	require.NoError(t, err)
	assert.Contains(t, note, "handed the workspace over to nova serve (pid ")
	assert.Contains(t, note, fmt.Sprintf("build %d goes on there", b.ID))
	require.NotNil(t, served)
	t.Cleanup(func() { _ = served.Process.Kill() }) // Handover reaps it
	select {
	case <-ran: // our run stopped with our engine
	case <-time.After(30 * time.Second):
		t.Fatal("the build did not stop here")
	}

	// The build goes on in the headless owner; commands work through it.
	var show struct {
		Status string `json:"status"`
	}
	for deadline := time.Now().Add(60 * time.Second); show.Status != string(build.StatusDone); {
		require.True(t, time.Now().Before(deadline), "the build did not finish in the new owner: %s", show.Status)
		time.Sleep(100 * time.Millisecond)
		r := runNova(t, dir, env, "build", "show", fmt.Sprint(b.ID), "--json")
		require.Equal(t, 0, r.code, r.stderr)
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &show))
	}
	assert.Equal(t, 1, s.count("f-1"), "done before the hand-over: not redone")
	for _, id := range []string{"f-2", "f-3", "f-4"} {
		assert.GreaterOrEqual(t, s.count(id), 1, id)
	}

	// Idle: the headless owner stops by itself (Handover waits for the
	// process; its log says why it stopped).
	for deadline := time.Now().Add(30 * time.Second); !errors.Is(served.Process.Signal(syscall.Signal(0)), os.ErrProcessDone); {
		require.True(t, time.Now().Before(deadline), "the headless owner did not stop once idle")
		time.Sleep(50 * time.Millisecond)
	}
	_, err = owner.Probe(ctx, dir, "")
	assert.ErrorIs(t, err, owner.ErrNoOwner)
	log := readFile(t, dir, ".nova/"+owner.LogName)
	assert.Contains(t, log, fmt.Sprintf("build %d done", b.ID))
	assert.Contains(t, log, "idle (nothing runs, no nova attached): stopping")
	r := runNova(t, dir, env, "db", "check")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.True(t, strings.HasSuffix(strings.TrimSpace(r.stdout), "is consistent"), r.stdout)
}

// TestClientTUITakesOverFromAKilledOwner: a TUI working through a real
// `nova serve` sees its event stream end when that owner is killed (-9),
// rejoins and becomes the owner; the Workspace it holds keeps working (now
// through its own socket) and other commands work through it.
func TestClientTUITakesOverFromAKilledOwner(t *testing.T) {
	t.Parallel()
	dir := initDir(t)
	srv := binaryCmd(t, dir, nil, "serve", "--json")
	stopTestOwner(t, dir)
	out, err := srv.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	t.Cleanup(func() { _ = srv.Process.Kill(); _ = srv.Wait() })
	var rep serveReport
	require.NoError(t, json.NewDecoder(out).Decode(&rep))

	e, _, _ := newTestEnv(t, dir, nil, "")
	e.fullScreen = true
	ctx := t.Context()
	sess, l, err := joinForTUI(ctx, e)
	require.NoError(t, err)
	defer func() { _ = sess.ws.Close() }()
	require.Nil(t, sess.owner(), "a client of nova serve")
	assert.Equal(t, rep.PID, l.Status(ctx).OwnerPID)
	events := sess.ws.Subscribe(ctx)

	require.NoError(t, srv.Process.Kill())
	_ = srv.Wait()
	start := time.Now()
	select {
	case _, ok := <-events:
		assert.False(t, ok, "no event, the stream ends")
	case <-time.After(30 * time.Second):
		t.Fatal("the event stream of a killed owner did not end")
	}
	st, err := l.Rejoin(ctx)
	require.NoError(t, err)
	took := time.Since(start)
	assert.True(t, st.Owner, "this TUI owns the workspace now")
	t.Logf("kill -9 to owning again: %v", took) // the 2 s target is a benchmark's, not a test's

	res, err := sess.ws.LearnNode(ctx, vaultNode("Owners come back after a kill"))
	require.NoError(t, err)
	var hits []struct {
		ID uint64 `json:"id"`
	}
	novaJSON(t, dir, &hits, "vault", "search", "owners come back")
	require.NotEmpty(t, hits)
	assert.Equal(t, res.Node.ID, hits[0].ID)
	assert.Equal(t, []int(nil), l.Status(ctx).Clients, "its own client is not counted")
	require.NoError(t, sess.ws.Close())
	novaOK(t, dir, "db", "check")
}

func vaultNode(content string) vault.Node { return vault.Node{Type: vault.Pattern, Content: content} }

// TestUnsafeSocketIsRefusedClearly: a .nova/nova.sock that is not a socket
// (or a symlink) is never removed or followed: every command fails (exit
// 1) saying which file and what to do.
func TestUnsafeSocketIsRefusedClearly(t *testing.T) {
	t.Parallel()
	dir := initDir(t)
	stopTestOwner(t, dir)
	writeFile(t, dir, ".nova/nova.sock", "not a socket")
	r := runNova(t, dir, nil, "vault", "stats")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "nova.sock is not a socket; move it away")
	assert.Equal(t, "not a socket", readFile(t, dir, ".nova/nova.sock"), "left as it was")

	require.NoError(t, os.Remove(filepath.Join(dir, ".nova", "nova.sock")))
	require.NoError(t, os.Symlink("/tmp/elsewhere.sock", filepath.Join(dir, ".nova", "nova.sock")))
	r = runNova(t, dir, nil, "vault", "stats")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "is a symlink; nova refuses to follow it")
}
