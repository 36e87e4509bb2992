package main

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"

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

// TestFollowGC: the import's memory limit starts at the floor, follows a live heap larger
// than the floor allows after a collection, and is undone by the restore function; GOGC in
// the environment leaves the settings alone. (Not parallel: process-wide settings.)
func TestFollowGC(t *testing.T) {
	pct, limit := gcPercent(), debug.SetMemoryLimit(-1)
	restore := followGC()
	assert.Equal(t, importGCPercent, gcPercent())
	assert.Equal(t, int64(importGCFloor), debug.SetMemoryLimit(-1), "a small heap gets the floor")

	// Keep more live data than the floor allows for: the limit must grow with it.
	live := make([][]byte, 0, 96)
	for range 96 {
		live = append(live, make([]byte, 1<<20))
	}
	assert.Eventually(t, func() bool {
		runtime.GC()
		return debug.SetMemoryLimit(-1) > importGCFloor
	}, 10*time.Second, 10*time.Millisecond, "the limit follows the live heap")
	runtime.KeepAlive(live)
	restore()
	assert.Equal(t, pct, gcPercent())
	assert.Equal(t, limit, debug.SetMemoryLimit(-1))
	runtime.GC() // a cleanup still pending after restore changes nothing
	runtime.GC()
	assert.Equal(t, limit, debug.SetMemoryLimit(-1))

	t.Setenv("GOMEMLIMIT", "1GiB")
	restore = followGC()
	assert.Equal(t, limit, debug.SetMemoryLimit(-1), "GOMEMLIMIT in the environment wins")
	restore()
}

func TestFollowLimit(t *testing.T) {
	t.Parallel()
	assert.Equal(t, int64(importGCFloor), followLimit(0))
	assert.Equal(t, int64(importGCFloor), followLimit(50<<20), "55 MB live stays under the floor")
	assert.Equal(t, int64(180<<20), followLimit(100<<20))
}
