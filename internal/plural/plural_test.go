package plural

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCount(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "1 task", Count(1, "task", "tasks"))
	assert.Equal(t, "0 tasks", Count(0, "task", "tasks"))
	assert.Equal(t, "2 branches", Count(2, "branch", "branches"))
	assert.Equal(t, "-1 files", Count(-1, "file", "files"))
}
