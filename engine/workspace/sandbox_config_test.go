package workspace_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/workspace"
)

func TestCommandsSandboxConfig(t *testing.T) {
	t.Parallel()
	c, err := workspace.ParseConfig("config.yaml", []byte("version: 1\n"))
	require.NoError(t, err)
	assert.Equal(t, "on", c.Commands.Sandbox, "on by default")
	assert.False(t, c.Commands.Network)
	for in, want := range map[string]string{"on": "on", "off": "off", `"off"`: "off"} {
		c, err = workspace.ParseConfig("config.yaml", []byte("version: 1\ncommands:\n  sandbox: "+in+"\n  network: true\n"))
		require.NoError(t, err, in)
		assert.Equal(t, want, c.Commands.Sandbox, in)
		assert.True(t, c.Commands.Network)
	}
	_, err = workspace.ParseConfig("config.yaml", []byte("version: 1\ncommands:\n  sandbox: maybe\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "commands.sandbox")
}
