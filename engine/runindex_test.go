package engine_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/goal"
	"github.com/nova-dev/nova/engine/library/workflow"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/run"
	"github.com/nova-dev/nova/storage"
)

// upgradeScript answers the lead (it completes at once), the knowledge
// layer, and the agents of build tasks, counting the turns of each task.
type upgradeScript struct {
	mu    sync.Mutex
	turns map[string]int
}

func (s *upgradeScript) handle(_ int, req api.ChatRequest) ollamatest.Reply {
	system, user := "", ""
	for _, m := range req.Messages {
		switch {
		case m.Role == "system":
			system = m.Content
		case m.Role == "user" && user == "":
			user = m.Content
		}
	}
	switch {
	case strings.Contains(system, "the lead of a team of coding agents"):
		return ollamatest.Text(`{"action":"complete","reasoning":"nothing left","summary":"done"}`)
	case strings.Contains(system, "results of a finished software build"):
		return ollamatest.Text(`{"facts":[]}`)
	}
	id := taskIDRE.FindStringSubmatch(user)
	if id == nil {
		return ollamatest.Text("ok")
	}
	s.mu.Lock()
	s.turns[id[1]]++
	s.mu.Unlock()
	if r, ok := stagesTestFile(req, id[1]); ok {
		return r
	}
	return ollamatest.Text("Done: " + id[1] + ".")
}

func (s *upgradeScript) count(task string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.turns[task]
}

// A database of today's format (schema 8: builds, goal runs and workflow
// runs, no index of runs), left by a nova killed while a build, a goal run
// and a workflow run ran, is migrated (9: the index), shows them
// interrupted on open, and resumes each of them in one loop over the index
// as a hand-over does, without redoing the build's done task.
func TestRunsOfAnOlderDatabaseResumeAfterTheUpgrade(t *testing.T) {
	t.Parallel()
	ws, srv, root := openWithFake(t, "")
	script := &upgradeScript{turns: map[string]int{}}
	srv.SetHandler(script.handle)
	writeFiles(t, root, map[string]string{"parse.go": "package main\n\nfunc parse(s string) int { return len(s) }\n"})
	ctx := t.Context()

	// The fixture, written by this code: a build run to its end, a goal
	// run and a workflow run created.
	path := filepath.Join(root, "facade.json")
	require.NoError(t, os.WriteFile(path, []byte(facadePRD), 0o644))
	b, err := ws.CreateBuild(ctx, path, engine.BuildOptions{})
	require.NoError(t, err)
	got, err := ws.RunBuild(ctx, b.ID, engine.RunBuildOptions{})
	require.NoError(t, err)
	require.Equal(t, build.StatusDone, got.Status, got.Reason)
	require.Equal(t, 1, script.count("f-1"))
	g, err := ws.CreateGoalRun(ctx, "add a health endpoint", engine.GoalRunOptions{})
	require.NoError(t, err)
	w, err := ws.CreateWorkflowRun(ctx, "add-test", engine.WorkflowOptions{Params: map[string]string{"target": "parse.go"}})
	require.NoError(t, err)
	dbPath := ws.Info().DBPath
	require.NoError(t, ws.Close())

	// What a kill -9 in the middle of f-2 leaves, in schema 8's layout:
	// everything stored as running, no index of runs.
	raw, err := bolt.Open(dbPath, 0o600, nil)
	require.NoError(t, err)
	require.NoError(t, raw.Update(func(tx *bolt.Tx) error {
		bc, tc := storage.Codec[build.Build]{Version: 1}, storage.Codec[build.Task]{Version: 1}
		bb, tb := tx.Bucket(storage.BucketBuilds), tx.Bucket(storage.BucketBuildTasks)
		stored, err := bc.Get(bb, storage.Key(b.ID))
		if err != nil {
			return err
		}
		stored.Status = build.StatusRunning
		if err := bc.Put(bb, storage.Key(b.ID), stored); err != nil {
			return err
		}
		tkey := append(storage.Key(b.ID), storage.Key(1)...)
		f2, err := tc.Get(tb, tkey)
		if err != nil {
			return err
		}
		require.Equal(t, "f-2", f2.ID)
		f2.Status = build.TaskRunning
		if err := tc.Put(tb, tkey, f2); err != nil {
			return err
		}
		gc := storage.Codec[goal.Run]{Version: 1}
		gr, err := gc.Get(tx.Bucket(storage.BucketGoalRuns), storage.Key(g.ID))
		if err != nil {
			return err
		}
		gr.Status = goal.StatusRunning
		if err := gc.Put(tx.Bucket(storage.BucketGoalRuns), storage.Key(g.ID), gr); err != nil {
			return err
		}
		wc := storage.Codec[workflow.Run]{Version: 1}
		wr, err := wc.Get(tx.Bucket(storage.BucketWorkflowRuns), storage.Key(w.ID))
		if err != nil {
			return err
		}
		wr.Status = workflow.RunRunning
		if err := wc.Put(tx.Bucket(storage.BucketWorkflowRuns), storage.Key(w.ID), wr); err != nil {
			return err
		}
		if err := tx.DeleteBucket(storage.BucketRunIndex); err != nil {
			return err
		}
		return tx.Bucket(storage.BucketMeta).Put([]byte("schema"), []byte("8"))
	}))
	require.NoError(t, raw.Close())

	ws, err = engine.Open(ctx, engine.Options{Root: root, Getenv: envOf(map[string]string{"OLLAMA_HOST": srv.URL()}), NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = ws.Close() })
	v, err := ws.DB().SchemaVersion()
	require.NoError(t, err)
	assert.Equal(t, storage.SchemaVersion, v)

	recs, err := ws.RunIndex().List(ctx)
	require.NoError(t, err)
	byKey := map[run.Key]run.Record{}
	for _, r := range recs {
		byKey[r.Key()] = r
	}
	bk, gk, wk := run.Key{Kind: run.KindBuild, ID: b.ID}, run.Key{Kind: run.KindGoal, ID: g.ID}, run.Key{Kind: run.KindWorkflow, ID: w.ID}
	for _, k := range []run.Key{bk, gk, wk} {
		assert.Equal(t, run.Interrupted, byKey[k].Status, "%s was running when nova died", k)
	}
	assert.Equal(t, "facade", byKey[bk].Title)
	assert.Equal(t, "add a health endpoint", byKey[gk].Title)
	led := run.Key{Kind: run.KindBuild, ID: g.BuildID}
	assert.Equal(t, gk, byKey[led].Parent, "the goal run's build works for it")

	// The hand-over's loop: every resumable run of every kind, runs
	// first; the goal run's own build is its run's to resume.
	todo, err := ws.RunIndex().Resumable(ctx, ws.RunRegistry())
	require.NoError(t, err)
	var keys []run.Key
	for _, r := range todo {
		keys = append(keys, r.Key())
	}
	assert.Equal(t, []run.Key{gk, wk, bk}, keys)
	for _, k := range keys {
		switch k.Kind {
		case run.KindGoal:
			r, err := ws.RunGoal(ctx, k.ID, engine.RunGoalOptions{})
			require.NoError(t, err)
			assert.Equal(t, goal.StatusCompleted, r.Status, r.Reason)
		case run.KindWorkflow:
			r, err := ws.RunWorkflow(ctx, k.ID, engine.RunWorkflowOptions{})
			require.NoError(t, err)
			assert.Equal(t, workflow.RunDone, r.Status, r.Reason)
		case run.KindBuild:
			r, err := ws.RunBuild(ctx, k.ID, engine.RunBuildOptions{})
			require.NoError(t, err)
			assert.Equal(t, build.StatusDone, r.Status, r.Reason)
			assert.Equal(t, 1, r.Resumes)
		}
	}
	assert.Equal(t, 1, script.count("f-1"), "the done task was not run again")
	assert.Equal(t, 2, script.count("f-2"), "the task killed mid-run ran again")
	for _, k := range []run.Key{bk, gk, wk} {
		r, err := ws.RunIndex().Get(ctx, k)
		require.NoError(t, err)
		assert.Equal(t, run.Done, r.Status, "%s: the index follows the run (a goal run's completed is done)", k)
	}
	todo, err = ws.RunIndex().Resumable(ctx, ws.RunRegistry())
	require.NoError(t, err)
	assert.Empty(t, todo)
}
