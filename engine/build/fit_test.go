package build_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/llm"
)

// Issue 11: a 10 MB task description went out whole (5,002,195 tokens
// against an 8,192-token budget). It is cut to the budget with a marker, and
// the final prompt fits the model's context.
func TestHugeDescriptionIsCutWithAMarker(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{cfg: build.Config{PromptTokens: 7168}})
	p := plan("big:MARS:0")
	p.Tasks[0].Description = "Implement the health endpoint.\n" + strings.Repeat("Background detail that goes on and on. ", 250_000) // ~10 MB
	ctx := context.Background()
	b, err := h.Eng.Create(ctx, p, "p.json", build.Options{})
	require.NoError(t, err)
	_, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	prompts := h.Script.Prompts["big"]
	require.NotEmpty(t, prompts)
	first := prompts[0]
	assert.Less(t, llm.EstimateTokens(first), 7168, "the task message fits the budget")
	assert.Contains(t, first, "Implement the health endpoint.", "the start survives")
	assert.Contains(t, first, "cut to fit the model's context")
	assert.Zero(t, h.Srv.Truncations(), "nothing reached the server too long")
}
