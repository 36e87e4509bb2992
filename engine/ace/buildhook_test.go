package ace_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/ace"
	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/prd"
)

func TestBuildHookIntegration(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t)
	e := newEnv(t, withOllama(srv), withVault())
	hook := ace.NewBuildHook(e.sys)
	seed := addRule(t, e.m, "MARS", "Wrap schema migrations in a transaction", 0.9, "database")

	task := prd.Task{ID: "T1", Title: "Create the orders database migration", Description: "orders table", Agent: "MARS"}

	// Autonomy 2: no reflection.
	block, ids, err := hook.Context(ctx(), "MARS", task.Title+"\n"+task.Description, 200)
	require.NoError(t, err)
	assert.Equal(t, []string{seed.ID}, ids)
	assert.True(t, strings.HasPrefix(block, "<playbook_context agent=\"MARS\""))
	require.NoError(t, hook.AfterTask(ctx(), build.TaskResult{Task: task, Agent: "MARS", Success: true, GateScore: 0.9, RuleIDs: ids, Autonomy: 2}))
	assert.Zero(t, srv.Count("/api/chat"))

	p, err := e.m.GetPlaybook(ctx(), "MARS")
	require.NoError(t, err)
	r, _ := p.Rule(seed.ID)
	assert.Equal(t, 1, r.AppliedCount)
	assert.Equal(t, 1, r.SuccessCount)
	assert.Equal(t, 1, p.Tasks)

	// Autonomy 3: the reflector and curator run.
	srv.Enqueue(ollamatest.Text(`{"deltas":[
		{"op":"add","content":"Add an index for every foreign key column","kind":"strategy","confidence":0.85,"helpful":0.8,"tags":["database"]},
		{"op":"add","content":"Too unsure to keep","confidence":0.3,"helpful":1}]}`))
	_, ids, err = hook.Context(ctx(), "MARS", task.Title, 200)
	require.NoError(t, err)
	require.NoError(t, hook.AfterTask(ctx(), build.TaskResult{Task: task, Agent: "MARS", Output: "created 0007_orders.sql",
		Success: false, Reason: "go build failed", GateScore: 0.2, RuleIDs: ids, Autonomy: 3}))
	assert.Equal(t, 1, srv.Count("/api/chat"))
	p, err = e.m.GetPlaybook(ctx(), "MARS")
	require.NoError(t, err)
	require.Len(t, p.Rules, 2)
	assert.Equal(t, "Add an index for every foreign key column", p.Rules[1].Content)
	assert.Equal(t, ace.SourceLearned, p.Rules[1].Source)
	assert.Equal(t, 2, p.Tasks)
	assert.Equal(t, 1, p.Successes)
	hist, err := e.m.History(ctx(), "MARS")
	require.NoError(t, err)
	assert.Equal(t, "curator", hist[0].Origin)

	prof, err := e.sys.Profile(ctx(), "MARS")
	require.NoError(t, err)
	assert.Len(t, prof.Window, 2)
	assert.Equal(t, "data", prof.Window[0].TaskType)

	// A broken reflector never fails the task's bookkeeping.
	srv.Enqueue(ollamatest.ServerError("boom"))
	require.NoError(t, hook.AfterTask(ctx(), build.TaskResult{Task: task, Agent: "MARS", Success: true, Autonomy: 3}))
	p, _ = e.m.GetPlaybook(ctx(), "MARS")
	assert.Equal(t, 3, p.Tasks)
}

// Regression (issue 10): `build run --autonomy 0` still ran the reflector
// when the config said 3. The build's level governs, 0 included.
func TestBuildAutonomyZeroOverridesConfiguredReflection(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t)
	e := newEnv(t, withOllama(srv), withVault())
	e.auto = 3 // the configured level
	hook := ace.NewBuildHook(e.sys)
	task := prd.Task{ID: "T1", Title: "Create the orders database migration", Agent: "MARS"}
	require.NoError(t, hook.AfterTask(ctx(), build.TaskResult{Task: task, Agent: "MARS", Success: false, Reason: "gate failed", Autonomy: 0}))
	assert.Zero(t, srv.Count("/api/chat"), "no reflector call at the build's autonomy 0")
	rep, err := e.sys.AfterTask(ctx(), ace.Outcome{Agent: "MARS", Title: task.Title, Success: true}, false)
	require.NoError(t, err)
	assert.True(t, rep.Reflected, "outside a build, 0 still means the configured level")
}
