package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
)

const facadePRD = `{"meta":{"name":"facade"},"tasks":[
 {"id":"f-1","title":"one","description":"first","agent":"MARS","status":"pending","dependencies":[],"phase":0,"attempts":0},
 {"id":"f-2","title":"two","description":"second","agent":"VENUS","status":"pending","dependencies":["f-1"],"phase":1,"attempts":0}]}`

func TestStartBuildPublishesCommittedTransitions(t *testing.T) {
	t.Parallel()
	// The check executes f-1's change (through the agent run, wired from
	// the config): verified work is what autonomy 3 applies.
	ws, srv, root := openWithFake(t, "autonomy: 3\nchecks:\n  - test -f f1.txt\n")
	re := regexp.MustCompile(`PRD task (\S+?): `)
	srv.SetHandler(func(_ int, req api.ChatRequest) ollamatest.Reply {
		for _, m := range req.Messages {
			if m.Role == "user" {
				if id := re.FindStringSubmatch(m.Content); id != nil {
					if id[1] == "f-1" {
						hasTool := false
						for _, mm := range req.Messages {
							hasTool = hasTool || mm.Role == "tool"
						}
						if !hasTool {
							return ollamatest.ToolCalls(ollamatest.Call("writeFile", map[string]any{"path": "f1.txt", "content": "one\n"}))
						}
					}
					return ollamatest.Text("Done: " + id[1] + ".")
				}
				break
			}
		}
		return ollamatest.Text("ok")
	})
	path := filepath.Join(root, "facade.json")
	require.NoError(t, os.WriteFile(path, []byte(facadePRD), 0o644))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := ws.Subscribe(ctx)
	b, err := ws.CreateBuild(ctx, path, engine.BuildOptions{})
	require.NoError(t, err)
	ran := make(chan error, 1)
	go func() {
		_, err := ws.RunBuild(ctx, b.ID, engine.RunBuildOptions{})
		ran <- err
	}()
	evs := collect(t, ch, func(ev engine.Event) bool {
		return ev.Topic == engine.TopicBuild && (ev.Type == engine.EventDone || ev.Type == engine.EventFailed)
	})
	var seq []string
	for _, ev := range evs {
		if ev.Topic != engine.TopicBuild || ev.Type != engine.EventTask {
			continue
		}
		assert.Equal(t, "1", ev.BuildID)
		seq = append(seq, ev.TaskID+":"+ev.Status)
		// Committed before published.
		stored, err := ws.BuildTasks(ctx, b.ID)
		require.NoError(t, err)
		if ev.Status == "done" {
			for _, task := range stored {
				if task.ID == ev.TaskID {
					assert.Equal(t, build.TaskDone, task.Status)
				}
			}
		}
	}
	assert.Equal(t, []string{"f-1:running", "f-1:done", "f-2:running", "f-2:done"}, seq)
	last := evs[len(evs)-1]
	assert.Equal(t, engine.EventDone, last.Type)

	got, err := ws.Builds().Get(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, build.StatusDone, got.Status)
	assert.Equal(t, 3, got.Autonomy, "autonomy from the config")
	data, err := os.ReadFile(filepath.Join(root, "f1.txt"))
	require.NoError(t, err, "autonomy 3 applies the changeset")
	assert.Equal(t, "one\n", string(data))
	tasks, err := ws.BuildTasks(ctx, b.ID)
	require.NoError(t, err)
	f1 := tasks[0]
	require.Equal(t, "f-1", f1.ID)
	assert.True(t, f1.Verified)
	require.NotNil(t, f1.Verdict)
	assert.Equal(t, agents.VerdictPassed, f1.Verdict.Status, "the run ran the configured check itself (Runner.Checks from the config)")
	for _, g := range f1.Gates {
		if strings.HasPrefix(g.Name, build.GateCheck) {
			assert.Contains(t, g.Detail, "run by the agent", "the gate reused the run's result")
		}
	}
	_, err = os.Stat(filepath.Join(root, ".nova", "output", "1", "f-2.md"))
	assert.NoError(t, err)

	// The run has ended once RunBuild returns (its done event is published
	// just before the run lets go of the build).
	require.NoError(t, <-ran)
	sum, err := ws.Summary(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, sum.Builds)
	assert.Zero(t, sum.RunningBuilds)

	_, err = ws.RunBuild(ctx, 42, engine.RunBuildOptions{})
	assert.ErrorIs(t, err, build.ErrNotFound)
}

func TestPlansListsShippedPRDsValidatedAgainstTheRoster(t *testing.T) {
	t.Parallel()
	root := newWorkspace(t)
	bad := `{"meta":{"name":"Bad"},"tasks":[{"id":"a","title":"A","description":"x","agent":"NOBODY","status":"pending","dependencies":[],"phase":0,"attempts":0}]}`
	require.NoError(t, os.WriteFile(filepath.Join(root, ".nova", "prds", "bad.json"), []byte(bad), 0o644))
	ws, err := engine.Open(context.Background(), engine.Options{Root: root, Getenv: envOf(nil)})
	require.NoError(t, err)
	defer func() { _ = ws.Close() }()
	plans, err := ws.ListPlans(context.Background())
	require.NoError(t, err)
	got := map[string]string{}
	for _, p := range plans {
		got[p.Name] = p.Problem
	}
	require.Contains(t, got, "prd-health-endpoint.json")
	assert.Empty(t, got["prd-health-endpoint.json"], "the shipped plan uses real agents")
	assert.Contains(t, got["bad.json"], "NOBODY", "unknown agents are caught with the roster")
}
