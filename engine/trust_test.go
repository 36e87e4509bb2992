package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/vault"
)

// Regression (issue 10): evictions were reported one line per node. The
// tier cap's archive moves are reported once per write, as a count.
func TestArchivedNodesAreReportedOnceAsACount(t *testing.T) {
	t.Parallel()
	root := newWorkspace(t)
	ctx := t.Context()
	ws, err := engine.Open(ctx, engine.Options{Root: root, NoSync: true, Getenv: envOf(nil)})
	require.NoError(t, err)
	defer func() { _ = ws.Close() }()
	v := ws.Vault()
	nodes := make([]vault.Node, 498)
	for i := range nodes {
		nodes[i] = vault.Node{Type: vault.Pattern, Content: fmt.Sprintf("sturdy rule %d", i), Confidence: 0.95}
	}
	_, err = v.AddBatch(ctx, nodes)
	require.NoError(t, err)
	for i := range 2 {
		_, err := v.Add(ctx, vault.Node{Type: vault.Pattern, Content: fmt.Sprintf("weak rule %d", i), Confidence: 0.1})
		require.NoError(t, err)
	}

	sub, cancel := context.WithCancel(ctx)
	defer cancel()
	events := ws.Subscribe(sub)
	_, err = v.LearnAs(ctx, vault.ByLearning,
		vault.Node{Type: vault.Mistake, Content: "lesson one", Confidence: 0.9},
		vault.Node{Type: vault.Mistake, Content: "lesson two", Confidence: 0.9},
		vault.Node{Type: vault.Mistake, Content: "lesson three", Confidence: 0.9})
	require.NoError(t, err)

	var archived, notStored []engine.Event
	deadline := time.After(5 * time.Second)
	for len(archived) == 0 || len(notStored) == 0 {
		select {
		case ev := <-events:
			switch ev.Type {
			case engine.EventNodesArchived:
				archived = append(archived, ev)
			case engine.EventNodesNotStored:
				notStored = append(notStored, ev)
			}
		case <-deadline:
			t.Fatalf("missing events: archived %d, not stored %d", len(archived), len(notStored))
		}
	}
	require.Len(t, archived, 1, "one event for the write")
	assert.Equal(t, 2, archived[0].Done, "two nodes were less confident")
	assert.Len(t, archived[0].Nodes, 2, "the event names the archived nodes")
	assert.Contains(t, archived[0].Text, "vault archive list")
	assert.Equal(t, 1, notStored[0].Done, "the third lesson found no room")
	assert.Equal(t, "nodesArchived", string(engine.EventNodesArchived), "lowerCamelCase noun")
}

// Quitting mid-build (closing the workspace) interrupts the build: it is
// recorded as interrupted and resumable, never left "running".
func TestCloseMidBuildLeavesItInterrupted(t *testing.T) {
	t.Parallel()
	root := newWorkspace(t)
	require.NoError(t, os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n"), 0o644))
	srv := ollamatest.New(t, ollamatest.WithModels("qwen2.5-coder:1.5b", "qwen2.5-coder:7b", "qwen2.5-coder:14b"),
		ollamatest.WithDefaultReply(ollamatest.Text("Done.").WithLatency(300*time.Millisecond)))
	open := func() *engine.Local {
		ws, err := engine.Open(context.Background(), engine.Options{Root: root, NoSync: true, Getenv: envOf(map[string]string{"OLLAMA_HOST": srv.URL()})})
		require.NoError(t, err)
		return ws
	}
	ws := open()
	path := filepath.Join(root, "facade.json")
	require.NoError(t, os.WriteFile(path, []byte(facadePRD), 0o644))
	b, err := ws.CreateBuild(t.Context(), path, engine.BuildOptions{})
	require.NoError(t, err)
	ran := make(chan error, 1)
	go func() { // the TUI runs it in a tea.Cmd, attended
		_, err := ws.RunBuild(context.Background(), b.ID, engine.RunBuildOptions{Attended: true})
		ran <- err
	}()
	require.Eventually(t, func() bool {
		ids, err := ws.RunningBuilds(t.Context())
		return err == nil && len(ids) == 1 && ids[0] == b.ID
	}, 5*time.Second, 5*time.Millisecond, "the TUI asks before quitting while a build runs here")
	require.Eventually(t, func() bool {
		ts, _ := ws.Builds().Tasks(t.Context(), b.ID)
		return len(ts) > 0 && ts[0].Status == build.TaskRunning
	}, 5*time.Second, 5*time.Millisecond)
	require.NoError(t, ws.Close())
	select {
	case <-ran: // RunBuild returned: the build stopped with the workspace
	case <-time.After(10 * time.Second):
		t.Fatal("RunBuild did not return after Close")
	}

	ws = open()
	defer func() { _ = ws.Close() }()
	got, err := ws.Builds().Get(t.Context(), b.ID)
	require.NoError(t, err)
	assert.Equal(t, build.StatusInterrupted, got.Status)
	assert.Contains(t, got.Reason, "nova build resume")
	stored, err := ws.Builds().Store().Get(t.Context(), b.ID)
	require.NoError(t, err)
	assert.Equal(t, build.StatusInterrupted, stored.Status, "Close committed the interruption")
	ts, err := ws.Builds().Tasks(t.Context(), b.ID)
	require.NoError(t, err)
	assert.NotEqual(t, build.TaskRunning, ts[0].Status)
	ids, err := ws.RunningBuilds(t.Context())
	require.NoError(t, err)
	assert.Empty(t, ids)
}

// The workspace identity comes from config userId (or git), never a flag;
// wisdom records it as a pseudonymous author id.
func TestWorkspaceIdentityBacksWisdom(t *testing.T) {
	t.Parallel()
	root := newWorkspace(t)
	cfg := filepath.Join(root, ".nova", "config.yaml")
	data, err := os.ReadFile(cfg)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(cfg, []byte(strings.Replace(string(data), "userId: local", "userId: dev@example.org", 1)), 0o644))
	ws, err := engine.Open(t.Context(), engine.Options{Root: root, NoSync: true, Getenv: envOf(nil)})
	require.NoError(t, err)
	defer func() { _ = ws.Close() }()
	assert.Equal(t, "dev@example.org", ws.Identity())
	assert.Equal(t, vault.AuthorID("dev@example.org"), ws.Wisdom().Me())
}

// RunBuild attended (the TUI) waits for the answer of a task that asks the
// user and continues by itself; unattended (the CLI) it ends paused.
func TestAttendedRunBuildWaitsForTheAnswer(t *testing.T) {
	t.Parallel()
	answeredRE := "use the Makefile target"
	handler := func(_ int, req api.ChatRequest) ollamatest.Reply {
		for _, m := range req.Messages {
			if m.Role == "user" && strings.Contains(m.Content, answeredRE) {
				return ollamatest.Text("Done, as you said.")
			}
		}
		n := 0
		for _, m := range req.Messages {
			if m.Role == "tool" {
				n++
			}
		}
		return ollamatest.ToolCalls(ollamatest.Call("runCommand", map[string]any{"command": fmt.Sprintf("rm -rf build%d", n)}))
	}
	const askPRD = `{"meta":{"name":"ask"},"tasks":[
 {"id":"ask","title":"clean the build output","description":"remove old build output","agent":"MARS","status":"pending","dependencies":[],"phase":0,"attempts":0}]}`
	for _, attended := range []bool{true, false} {
		t.Run(fmt.Sprint("attended=", attended), func(t *testing.T) {
			t.Parallel()
			root := newWorkspace(t)
			srv := ollamatest.New(t, ollamatest.WithModels("qwen2.5-coder:1.5b", "qwen2.5-coder:7b", "qwen2.5-coder:14b"), ollamatest.WithHandler(handler))
			ctx := context.Background()
			ws, err := engine.Open(ctx, engine.Options{Root: root, NoSync: true, Getenv: envOf(map[string]string{"OLLAMA_HOST": srv.URL()})})
			require.NoError(t, err)
			defer func() { _ = ws.Close() }()
			path := filepath.Join(root, "ask.json")
			require.NoError(t, os.WriteFile(path, []byte(askPRD), 0o644))
			b, err := ws.CreateBuild(ctx, path, engine.BuildOptions{})
			require.NoError(t, err)
			events := ws.Subscribe(t.Context())
			type result struct {
				b   build.Build
				err error
			}
			ran := make(chan result, 1)
			go func() {
				got, err := ws.RunBuild(ctx, b.ID, engine.RunBuildOptions{Attended: attended})
				ran <- result{got, err}
			}()
			var asking engine.Event
			for asking.Type != engine.EventTaskAsking {
				select {
				case asking = <-events:
				case <-time.After(10 * time.Second):
					t.Fatal("no taskAsking event")
				}
			}
			assert.NotEmpty(t, asking.Text, "the event carries the question")
			if !attended {
				r := <-ran
				require.NoError(t, r.err)
				assert.Equal(t, build.StatusPaused, r.b.Status, "nobody can answer: the run ends paused")
				resumed, err := ws.AnswerTask(ctx, b.ID, "ask", "Do not delete anything; use the Makefile target.")
				require.NoError(t, err)
				assert.False(t, resumed)
				got, err := ws.RunBuild(ctx, b.ID, engine.RunBuildOptions{})
				require.NoError(t, err)
				assert.Equal(t, build.StatusDone, got.Status, got.Reason)
				return
			}
			require.Eventually(t, func() bool {
				got, err := ws.GetBuild(ctx, b.ID)
				return err == nil && got.Status == build.StatusWaiting
			}, 10*time.Second, 10*time.Millisecond, "the build waits for the answer")
			resumed, err := ws.AnswerTask(ctx, b.ID, "ask", "Do not delete anything; use the Makefile target.")
			require.NoError(t, err)
			assert.True(t, resumed, "the attended run takes the answer at once")
			select {
			case r := <-ran:
				require.NoError(t, r.err)
				assert.Equal(t, build.StatusDone, r.b.Status, r.b.Reason)
			case <-time.After(20 * time.Second):
				t.Fatal("the attended run did not finish after the answer")
			}
		})
	}
}
