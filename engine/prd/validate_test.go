package prd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// plan builds a PRD from "id:phase:dep,dep" specs; every task gets a title
// and the agent MARS.
func plan(specs ...string) *PRD {
	p := &PRD{Source: "plan.json"}
	for _, s := range specs {
		parts := strings.SplitN(s, ":", 3)
		t := Task{ID: parts[0], Title: "Task " + parts[0], Agent: "MARS", Status: StatusPending}
		if len(parts) > 1 && parts[1] != "" {
			_, _ = fmt.Sscan(parts[1], &t.Phase)
		}
		if len(parts) > 2 && parts[2] != "" {
			t.Dependencies = strings.Split(parts[2], ",")
		}
		p.Tasks = append(p.Tasks, t)
	}
	return p
}

func problems(t *testing.T, err error) []Problem {
	t.Helper()
	if err == nil {
		return nil
	}
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	require.ErrorIs(t, err, ErrInvalid)
	return ve.Problems
}

func messages(ps []Problem) []string {
	if len(ps) == 0 {
		return nil
	}
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return out
}

func TestCycleDetection(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		plan *PRD
		want []string
	}{
		"three-task cycle": {
			plan("a::b", "b::c", "c::a"),
			[]string{"task a: dependencies: cycle: a → b → c → a"},
		},
		"cycle printed from the task first in the file": {
			plan("x", "c::a", "b::c", "a::b"),
			[]string{"task c: dependencies: cycle: c → a → b → c"},
		},
		"self dependency": {
			plan("a", "b::b"),
			[]string{"task b: dependencies: cycle: b → b"},
		},
		"two separate cycles": {
			plan("a::b", "b::a", "c::d", "d::e", "e::c"),
			[]string{
				"task a: dependencies: cycle: a → b → a",
				"task c: dependencies: cycle: c → d → e → c",
			},
		},
		"cycle feeding another cycle": {
			// a↔b depends on x↔y; both groups are reported.
			plan("a::x,b", "b::a", "x::y", "y::x"),
			[]string{
				"task a: dependencies: cycle: a → b → a",
				"task x: dependencies: cycle: x → y → x",
			},
		},
		"shortest cycle through the first task": {
			plan("a::b", "b::c,a", "c::a"),
			[]string{"task a: dependencies: cycle: a → b → a"},
		},
		"diamond is not a cycle": {
			plan("a", "b::a", "c::a", "d::b,c"),
			nil,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, messages(problems(t, Validate(tc.plan, nil))))
		})
	}
}

func TestCycleDetectionOnLongChains(t *testing.T) {
	t.Parallel()
	const n = 30_000
	specs := make([]string, n)
	specs[0] = "t0"
	for i := 1; i < n; i++ {
		specs[i] = fmt.Sprintf("t%d::t%d", i, i-1)
	}
	require.NoError(t, Validate(plan(specs...), nil), "a long chain is fine and does not overflow the stack")

	specs[0] = fmt.Sprintf("t0::t%d", n-1) // close the loop
	ps := problems(t, Validate(plan(specs...), nil))
	require.Len(t, ps, 1)
	assert.True(t, strings.HasPrefix(ps[0].Message, fmt.Sprintf("cycle: t0 → t%d → t%d", n-1, n-2)))
	assert.True(t, strings.HasSuffix(ps[0].Message, "t1 → t0"))
}

func TestValidateNamesEachProblem(t *testing.T) {
	t.Parallel()
	p := &PRD{Source: "bad.json", Tasks: []Task{
		{ID: "a", Title: "A", Agent: "MARS"},
		{ID: "a", Title: "A again", Agent: "MARS"},
		{ID: "", Title: "no id", Agent: "MARS"},
		{ID: "b", Title: "  ", Agent: "MARS", Dependencies: []string{"a", "ghost", ""}},
		{ID: "c", Title: "C", Agent: "PHOBOS"},
		{ID: "d", Title: "D", Agent: ""},
		{ID: "e", Title: "E", Agent: "MARS", Phase: -1, Attempts: -2, Status: "weird"},
		{ID: "f", Title: "F", Agent: "MARS", Phase: 0, Dependencies: []string{"g"}},
		{ID: "g", Title: "G", Agent: "MARS", Phase: 2},
		{ID: "h i", Title: "H", Agent: "MARS"},
	}}
	ps := problems(t, Validate(p, func(a string) bool { return a == "MARS" }))
	want := []string{
		"task a: id: duplicate id: tasks[1] reuses the id of tasks[0]",
		"task tasks[2]: id: is required",
		"task b: title: is empty",
		`task b: dependencies: unknown task "ghost"`,
		"task b: dependencies: has an empty entry",
		`task c: agent: unknown agent "PHOBOS"`,
		"task d: agent: is required",
		`task e: status: unknown status "weird" (want pending, ready, running, done, failed or blocked)`,
		"task e: phase: must be 0 or more, got -1",
		"task e: attempts: must be 0 or more, got -2",
		`task f: phase: phase 0 comes before phase 2 of its dependency "g"`,
		`task h i: id: "h i" must not contain spaces or control characters`,
	}
	assert.Equal(t, want, messages(ps))

	err := Validate(p, nil)
	assert.NotContains(t, err.Error(), "PHOBOS", "nil knownAgents skips the roster check")
	assert.True(t, strings.HasPrefix(err.Error(), "bad.json: 11 problems:\n  - task a: id: duplicate id"))
}

func TestValidateEmptyAndNil(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []string{"tasks: the PRD has no tasks"}, messages(problems(t, Validate(&PRD{}, nil))))
	assert.Equal(t, []string{"no PRD"}, messages(problems(t, Validate(nil, nil))))
}

func TestReadyOrdersByPhaseThenFileOrder(t *testing.T) {
	t.Parallel()
	p := plan("late:2", "first:0", "mid:1", "second:0", "after:3:first")
	assert.Equal(t, []string{"first", "second", "mid", "late"}, taskIDs(Ready(p, nil)))

	status := map[string]Status{"first": "completed"} // Nova26-style alias counts as done
	got := Ready(p, func(id string) Status { return status[id] })
	assert.Equal(t, []string{"second", "mid", "late", "after"}, taskIDs(got))
}

func TestReadySkipsTasksThatAreNotWaiting(t *testing.T) {
	t.Parallel()
	p := plan("a", "b", "c", "d", "e", "f", "g")
	status := map[string]Status{
		"a": StatusPending, "b": StatusReady, "c": StatusRunning, "d": StatusDone,
		"e": StatusFailed, "f": StatusBlocked, "g": "",
	}
	assert.Equal(t, []string{"a", "b", "g"}, taskIDs(Ready(p, func(id string) Status { return status[id] })))
}

func TestReadyWaitsForEveryDependency(t *testing.T) {
	t.Parallel()
	p := plan("a", "b", "c::a,b")
	status := map[string]Status{"a": StatusDone}
	assert.Equal(t, []string{"b"}, taskIDs(Ready(p, func(id string) Status { return status[id] })), "c waits for b")
	status["b"] = StatusFailed
	assert.Empty(t, Ready(p, func(id string) Status { return status[id] }), "a failed dependency never unblocks")
	status["b"] = StatusDone
	assert.Equal(t, []string{"c"}, taskIDs(Ready(p, func(id string) Status { return status[id] })))
}

func TestReadyRefusesInvalidPlans(t *testing.T) {
	t.Parallel()
	for name, p := range map[string]*PRD{
		"cycle":      plan("free", "a::b", "b::a"),
		"dangling":   plan("free", "a::ghost"),
		"duplicate":  plan("free", "a", "a"),
		"no tasks":   {},
		"nil":        nil,
		"bad status": {Tasks: []Task{{ID: "a", Title: "A", Agent: "X", Status: "??"}}},
	} {
		assert.Nil(t, Ready(p, nil), name)
	}
}

func TestReadyReturnsCopies(t *testing.T) {
	t.Parallel()
	p := plan("a", "b::a")
	status := map[string]Status{"a": StatusDone}
	got := Ready(p, func(id string) Status { return status[id] })
	require.Len(t, got, 1)
	got[0].Dependencies[0] = "mutated"
	assert.Equal(t, []string{"a"}, p.Tasks[1].Dependencies)
}

func TestValidatePlansOnDisk(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "loop.yaml")
	require.NoError(t, os.WriteFile(path, []byte(
		"meta: {name: loop}\ntasks:\n  - {id: a, title: A, agent: MARS, dependencies: [b]}\n  - {id: b, title: B, agent: MARS, dependencies: [a]}\n",
	), 0o644))
	p, err := Load(path)
	require.NoError(t, err)
	err = Validate(p, nil)
	require.Error(t, err)
	assert.Equal(t, path+": task a: dependencies: cycle: a → b → a", err.Error())
}

func TestDropUnknownDependencies(t *testing.T) {
	t.Parallel()
	p := &PRD{Tasks: []Task{
		{ID: "a", Title: "A", Agent: "MARS", Status: StatusPending, Dependencies: []string{"zz", "", "zz"}},
		{ID: "b", Title: "B", Agent: "MARS", Status: StatusPending, Phase: 1, Dependencies: []string{"a", "zz", "a", "qq"}},
	}}
	warns := DropUnknownDependencies(p)
	assert.Equal(t, []string{
		`dropped dependency "zz": no task has that id (listed by a, b)`,
		`dropped dependency "qq": no task has that id (listed by b)`,
		"dropped 1 blank dependency entry",
	}, warns)
	assert.Empty(t, p.Tasks[0].Dependencies)
	assert.Equal(t, []string{"a"}, p.Tasks[1].Dependencies)
	require.NoError(t, Validate(p, nil))
	assert.Empty(t, DropUnknownDependencies(p), "nothing left to drop")
	assert.Nil(t, DropUnknownDependencies(nil))
}

// A task naming the same missing dependency twice has one problem, not two.
func TestValidate_EachProblemOnce(t *testing.T) {
	t.Parallel()
	p := &PRD{Tasks: []Task{
		{ID: "a", Title: "A", Agent: "MARS", Status: StatusPending, Dependencies: []string{"zz", "zz"}},
	}}
	var ve *ValidationError
	require.ErrorAs(t, Validate(p, nil), &ve)
	assert.Len(t, ve.Problems, 1)
	assert.Equal(t, 1, strings.Count(ve.Error(), `unknown task "zz"`))
}
