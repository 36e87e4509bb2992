package engine_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/board"
	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
)

const boardPRD = `{"meta":{"name":"health"},"tasks":[
 {"id":"h-1","title":"Health spec","description":"Write the spec of GET /healthz as text.","agent":"EARTH","status":"pending","dependencies":[],"phase":0,"attempts":0},
 {"id":"h-2","title":"Health handler","description":"Write health.txt from the spec.","agent":"MARS","status":"pending","dependencies":["h-1"],"phase":1,"attempts":0}]}`

var taskRe = regexp.MustCompile(`PRD task (\S+?): `)

// taskOf finds the build task a chat request is about and whether the run
// already called a tool.
func taskOf(req api.ChatRequest) (id string, system string, tooled bool) {
	for _, m := range req.Messages {
		switch m.Role {
		case "system":
			system = m.Content
		case "tool":
			tooled = true
		case "user":
			if id == "" {
				if s := taskRe.FindStringSubmatch(m.Content); s != nil {
					id = s[1]
				}
			}
		}
	}
	return id, system, tooled
}

// A build's tasks share a board: what a task produced is registered on it,
// it ends with a handoff, and a constraint of the handoff reaches the prompt
// of the task that depends on it.
func TestBuildTasksShareABoardAndHandOff(t *testing.T) {
	t.Parallel()
	ws, srv, root := openWithFake(t, "autonomy: 2\n")
	var mu sync.Mutex
	prompts := map[string]string{}
	srv.SetHandler(func(_ int, req api.ChatRequest) ollamatest.Reply {
		id, system, tooled := taskOf(req)
		mu.Lock()
		prompts[id] = system
		mu.Unlock()
		switch {
		case id == "h-1" && !tooled:
			return ollamatest.ToolCalls(ollamatest.Call("addDecision", map[string]any{"decision": "the endpoint answers JSON {\"status\":\"ok\"}"}))
		case id == "h-1":
			return ollamatest.Text("The spec: GET /healthz answers 200 with {\"status\":\"ok\"}.\n\nHandoff:\nsummary: specified GET /healthz\n" +
				"constraints: answer within 50 ms; do not change main.go\nnext: MARS\nquestions: none")
		case id == "h-2" && !tooled:
			return ollamatest.ToolCalls(ollamatest.Call("writeFile", map[string]any{"path": "health.txt", "content": "GET /healthz -> 200\n"}))
		case id == "h-2":
			return ollamatest.Text("Wrote health.txt with the route.")
		}
		return ollamatest.Text("ok")
	})
	path := filepath.Join(root, "health.json")
	require.NoError(t, os.WriteFile(path, []byte(boardPRD), 0o644))
	ctx := t.Context()
	b, err := ws.CreateBuild(ctx, path, engine.BuildOptions{})
	require.NoError(t, err)
	got, err := ws.RunBuild(ctx, b.ID, engine.RunBuildOptions{})
	require.NoError(t, err)
	require.Equal(t, build.StatusDone, got.Status, got.Reason)

	mu.Lock()
	h2 := prompts["h-2"]
	h1 := prompts["h-1"]
	mu.Unlock()
	assert.Contains(t, h1, "<session_board>", "every task sees the board")
	assert.Contains(t, h1, "Handoff:", "and how to end with a handoff")
	assert.Contains(t, h2, "answer within 50 ms (from h-1, EARTH)", "a constraint reaches the dependant's prompt")
	assert.Contains(t, h2, "the endpoint answers JSON", "the key decision is on the board")

	view, err := ws.GetBoard(ctx, "build:1")
	require.NoError(t, err)
	require.Len(t, view.Handoffs, 2, "every task ends with a handoff")
	assert.Equal(t, "h-1", view.Handoffs[0].Task)
	assert.True(t, view.Handoffs[0].Written)
	assert.Equal(t, "MARS", view.Handoffs[0].Next)
	assert.Equal(t, []string{"answer within 50 ms", "do not change main.go"}, view.Handoffs[0].Constraints)
	assert.False(t, view.Handoffs[1].Written, "MARS wrote none: it is derived from the answer")
	assert.Equal(t, "done", view.Handoffs[0].Status, "a spec changed no file")
	assert.Equal(t, "done (unverified)", view.Handoffs[1].Status, "health.txt was staged and nothing executed it")
	var types []string
	for _, a := range view.Board.Artifacts {
		types = append(types, string(a.Type)+" "+a.Name)
	}
	assert.Contains(t, types, "file health.txt", "the staged file is an artifact")
	assert.Contains(t, types, "output Health spec")
	assert.Contains(t, view.Board.Summary, "h-1 EARTH done: specified GET /healthz")

	tasks, err := ws.BuildTasks(ctx, b.ID)
	require.NoError(t, err)
	require.NotNil(t, tasks[1].Handoff)
	file := view.Board.Artifacts[len(view.Board.Artifacts)-1]
	a, err := ws.ReadArtifact(ctx, file.ID)
	require.NoError(t, err)
	assert.Equal(t, "GET /healthz -> 200\n", a.Content, "the full content is stored")
	assert.Equal(t, tasks[1].ChangesetID, a.ChangesetID)
}

// An open blocker makes the tasks that depend on its task wait; resolving it
// lets them run.
func TestOpenBlockerMakesDependantsWait(t *testing.T) {
	t.Parallel()
	ws, srv, root := openWithFake(t, "")
	srv.SetHandler(func(_ int, req api.ChatRequest) ollamatest.Reply {
		id, _, tooled := taskOf(req)
		switch {
		case id == "h-1" && !tooled:
			return ollamatest.ToolCalls(ollamatest.Call("addBlocker", map[string]any{"blocker": "which port does the service use?"}))
		case id == "h-1":
			return ollamatest.Text("The spec is written; the port is open.")
		case id == "h-2":
			return ollamatest.Text("Planned the handler; nothing to write yet.")
		}
		return ollamatest.Text("ok")
	})
	path := filepath.Join(root, "health.json")
	prd := strings.Replace(boardPRD, "Write health.txt from the spec.", "Plan the handler from the spec.", 1)
	require.NoError(t, os.WriteFile(path, []byte(prd), 0o644))
	ctx := t.Context()
	b, err := ws.CreateBuild(ctx, path, engine.BuildOptions{})
	require.NoError(t, err)
	got, err := ws.RunBuild(ctx, b.ID, engine.RunBuildOptions{})
	require.NoError(t, err)
	assert.Equal(t, build.StatusPaused, got.Status, "headless: the build stops, resumable")
	assert.Contains(t, got.Reason, "h-2 wait for blockers on the board")
	assert.Contains(t, got.Reason, "nova build resolve")
	tasks, err := ws.BuildTasks(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, build.TaskDone, tasks[0].Status)
	assert.Equal(t, build.TaskWaiting, tasks[1].Status)
	assert.Equal(t, build.WaitBlocker, tasks[1].WaitFor)
	assert.Contains(t, tasks[1].Reason, "b1: which port does the service use? (raised in h-1)")

	// Attended: the build waits; resolving the blocker lets h-2 go.
	done := make(chan build.Build, 1)
	go func() {
		b, _ := ws.RunBuild(ctx, b.ID, engine.RunBuildOptions{Attended: true})
		done <- b
	}()
	require.Eventually(t, func() bool {
		bb, err := ws.GetBuild(ctx, b.ID)
		return err == nil && bb.Status == build.StatusWaiting
	}, 10*time.Second, 20*time.Millisecond)
	_, err = ws.ResolveBlocker(ctx, "build:1", "b1", "port 8080")
	require.NoError(t, err)
	select {
	case fb := <-done:
		assert.Equal(t, build.StatusDone, fb.Status, fb.Reason)
	case <-time.After(20 * time.Second):
		t.Fatal("the build did not continue after the blocker was resolved")
	}
	view, err := ws.GetBoard(ctx, "build:1")
	require.NoError(t, err)
	assert.Empty(t, view.Board.Blockers)
	require.Len(t, view.Board.Resolved, 1)
	assert.Equal(t, "user", view.Board.Resolved[0].ResolvedBy)
	_, err = ws.ResolveBlocker(ctx, "build:1", "b1", "")
	require.ErrorIs(t, err, board.ErrNotFound)
	_, err = ws.GetBoard(ctx, "nope")
	require.ErrorIs(t, err, board.ErrInvalid)
}
