package workflow

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const checksWorkflow = `schema: nova.workflow/1
id: checked
name: Checked steps
steps:
  - id: own
    agent: MARS
    task: Add the handler.
    checks: ["go test ./internal/...", "go vet ./..."]
  - id: nochecks
    agent: MARS
    task: Sketch it.
    checks: []
  - id: off
    agent: MARS
    task: Read it.
    checks: false
  - id: plain
    agent: MARS
    task: Do it.
`

func TestStepChecksParseBothSpellings(t *testing.T) {
	t.Parallel()
	w, errs := Parse("checked.yaml", []byte(checksWorkflow), Env{})
	require.Empty(t, errs)
	require.Len(t, w.Steps, 4)
	assert.Equal(t, []string{"go test ./internal/...", "go vet ./..."}, w.Steps[0].Checks.Commands())
	assert.Nil(t, w.Steps[0].Checks.Switch())
	assert.NotNil(t, w.Steps[1].Checks.Commands(), "an empty list runs none")
	assert.Empty(t, w.Steps[1].Checks.Commands())
	require.NotNil(t, w.Steps[2].Checks.Switch())
	assert.False(t, *w.Steps[2].Checks.Switch())
	assert.Nil(t, w.Steps[2].Checks.Commands())
	assert.Nil(t, w.Steps[3].Checks)
	assert.Nil(t, w.Steps[3].Checks.Commands(), "nil-safe")

	raw, err := json.Marshal(w.Steps)
	require.NoError(t, err)
	assert.Contains(t, string(raw), `"checks":["go test ./internal/...","go vet ./..."]`)
	assert.Contains(t, string(raw), `"checks":[]`)
	assert.Contains(t, string(raw), `"checks":false`)
	var back []Step
	require.NoError(t, json.Unmarshal(raw, &back))
	assert.Equal(t, w.Steps[0].Checks.Commands(), back[0].Checks.Commands())
	assert.Equal(t, w.Steps[2].Checks.Switch(), back[2].Checks.Switch())
}

func TestStepChecksMalformed(t *testing.T) {
	t.Parallel()
	bad := strings.Replace(checksWorkflow, `checks: []`, `checks: {run: "go test"}`, 1)
	_, errs := Parse("checked.yaml", []byte(bad), Env{})
	require.NotEmpty(t, errs)
	assert.Contains(t, errs[0].Error(), "checks")

	blank := strings.Replace(checksWorkflow, `checks: []`, `checks: ["  "]`, 1)
	_, errs = Parse("checked.yaml", []byte(blank), Env{})
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0].Error(), "steps[1].checks[0]")
	assert.Contains(t, errs[0].Error(), "must not be empty")

	var c StepChecks
	assert.Error(t, json.Unmarshal([]byte(`{"x":1}`), &c))
}

func TestStepChecksReachTheExecutor(t *testing.T) {
	t.Parallel()
	w, errs := Parse("checked.yaml", []byte(checksWorkflow), Env{})
	require.Empty(t, errs)
	h := newHarness(t)
	ctx := context.Background()
	r, err := h.eng.Create(ctx, w, nil, CreateOptions{})
	require.NoError(t, err)
	r, err = h.eng.Run(ctx, r.ID, RunOptions{})
	require.NoError(t, err)
	require.Equal(t, RunDone, r.Status, r.Reason)
	require.Len(t, h.exec.calls, 4)
	assert.Equal(t, []string{"go test ./internal/...", "go vet ./..."}, h.exec.calls[0].CheckList)
	assert.NotNil(t, h.exec.calls[1].CheckList)
	assert.Empty(t, h.exec.calls[1].CheckList)
	require.NotNil(t, h.exec.calls[2].Checks)
	assert.False(t, *h.exec.calls[2].Checks)
	assert.Nil(t, h.exec.calls[3].CheckList)
	assert.Nil(t, h.exec.calls[3].Checks)
}

func FuzzStepChecksJSON(f *testing.F) {
	for _, s := range []string{`["go test ./..."]`, `[]`, `true`, `false`, `null`, `{"x":1}`, `[1,2]`, `"go test"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var c StepChecks
		if err := json.Unmarshal(data, &c); err != nil {
			return
		}
		raw, err := json.Marshal(c)
		if err != nil {
			t.Fatalf("marshal %q: %v", data, err)
		}
		var back StepChecks
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Fatalf("read back %s: %v", raw, err)
		}
		if !slices.Equal(c.Commands(), back.Commands()) || (c.Commands() == nil) != (back.Commands() == nil) ||
			(c.Switch() == nil) != (back.Switch() == nil) {
			t.Fatalf("%s: commands %q became %q", data, c.Commands(), back.Commands())
		}
	})
}
