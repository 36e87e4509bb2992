package main

import (
	"os"
	"runtime/debug"
)

// Bulk-write tuning of the garbage collector (see bulkGC).
const (
	bulkGCPercent = 200
	bulkGCLimit   = 180 << 20 // soft limit of the Go heap and runtime, bytes
	bulkGCMaxFile = 64 << 20  // largest input the tuning is for, bytes
)

// bulkGC tunes the garbage collector of this process for a bulk write of an input of size
// bytes, and returns what restores the settings. It collects at three times the live heap
// instead of twice, under a soft memory limit that keeps the peak where it was: a 100k-node
// `nova vault import` (a 53 MB dump, at most ~90 MB live) ran about 40 collections,
// a quarter of its CPU, and runs about 20. A larger input holds more live data and would
// meet the limit, collecting more often than by default, so it is left to the defaults; so
// is a process started with GOGC or GOMEMLIMIT set.
func bulkGC(size int64) (restore func()) {
	if size > bulkGCMaxFile || os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	pct := debug.SetGCPercent(bulkGCPercent)
	limit := debug.SetMemoryLimit(bulkGCLimit)
	return func() {
		debug.SetGCPercent(pct)
		debug.SetMemoryLimit(limit)
	}
}
