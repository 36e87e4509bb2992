package agents

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDisplayStatus(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "done (unverified)", DisplayStatus("done", 1, false))
	assert.Equal(t, "done", DisplayStatus("done", 2, true))
	assert.Equal(t, "done", DisplayStatus("done", 0, false), "a run that changed nothing has nothing to verify")
	assert.Equal(t, "failed", DisplayStatus("failed", 3, false))
	assert.Equal(t, "running", DisplayStatus("running", 1, false))
}
