package rpcdemo_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/rpc/gen"
)

// TestGeneratedFilesAreFresh fails when the demo interface (or a sentinel)
// changed without `go generate ./engine/internal/rpcdemo`.
func TestGeneratedFilesAreFresh(t *testing.T) {
	t.Parallel()
	stale, err := gen.Stale("demo.go")
	require.NoError(t, err)
	assert.Empty(t, stale, "stale generated files: run `go generate ./engine/internal/rpcdemo`")
}
