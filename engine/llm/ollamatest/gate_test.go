package ollamatest_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
)

// A gate makes the server's address refuse connections and come back on
// the same address, as a model server that dies and restarts.
func TestGateGoesDownAndComesBack(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t)
	gate := ollamatest.NewGate(t, srv)
	c, err := llm.New(llm.Config{Host: gate.URL(), Retries: -1})
	require.NoError(t, err)
	ctx := context.Background()
	_, err = c.Version(ctx)
	require.NoError(t, err)
	gate.Down()
	assert.False(t, gate.IsUp())
	_, err = c.Version(ctx)
	require.ErrorIs(t, err, llm.ErrUnreachable, "refused like a dead server")
	require.NoError(t, gate.Up())
	v, err := c.Version(ctx)
	require.NoError(t, err)
	assert.Equal(t, ollamatest.DefaultVersion, v)
	assert.Equal(t, "http://"+gate.Host(), gate.URL())
}
