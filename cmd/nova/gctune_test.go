package main

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestBulkGC: the tuning applies to inputs up to bulkGCMaxFile, is undone by its restore
// function, and leaves the settings alone for larger inputs or when GOGC is set. (Not
// parallel: it changes process-wide settings and the environment.)
func TestBulkGC(t *testing.T) {
	pct, limit := gcPercent(), debug.SetMemoryLimit(-1)
	restore := bulkGC(53 << 20)
	assert.Equal(t, bulkGCPercent, gcPercent())
	assert.Equal(t, int64(bulkGCLimit), debug.SetMemoryLimit(-1))
	restore()
	assert.Equal(t, pct, gcPercent())
	assert.Equal(t, limit, debug.SetMemoryLimit(-1))

	restore = bulkGC(bulkGCMaxFile + 1)
	assert.Equal(t, pct, gcPercent(), "a large input keeps the defaults")
	restore()
	t.Setenv("GOGC", "100")
	restore = bulkGC(1)
	assert.Equal(t, pct, gcPercent(), "GOGC in the environment wins")
	restore()
}
