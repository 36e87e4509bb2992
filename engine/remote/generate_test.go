package remote_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/rpc/gen"
)

// TestGeneratedFilesAreFresh fails when engine.Workspace, or the sentinel
// errors and error types of the engine, changed without
// `go generate ./engine/remote`.
func TestGeneratedFilesAreFresh(t *testing.T) {
	t.Parallel()
	stale, err := gen.Stale("remote.go")
	require.NoError(t, err)
	assert.Empty(t, stale, "stale generated files: run `go generate ./engine/remote`")
}
