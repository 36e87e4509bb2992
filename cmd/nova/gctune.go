package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
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

// Tuning of the garbage collector for `nova import` of a markdown library (see followGC).
const (
	importGCPercent = -1        // no proportional trigger: the collector runs at the memory limit
	importGCFloor   = 110 << 20 // memory limit while the live heap is small, bytes
	importGCRatio   = 1.8       // memory limit over the live heap once it is larger
)

// followGC tunes the garbage collector of this process for a markdown import, whose size is
// not known before its scan, and returns what restores the settings. The collector runs
// when the process's memory reaches a limit that follows the live heap: after every
// collection the limit is set to importGCRatio times the heap that survived it, never below
// importGCFloor. Under the default tuning a 10,000-file import (≈ 55 MB live at its
// largest) kept up to 25 MB of freed pages beside its heap and collected often while its
// heap was small; with the limit it returns freed pages as it goes (peak RSS ≈ 163 → ≈ 137
// MiB) and collects less early on (≈ 3 % less CPU). A larger library, with more live data,
// gets a proportionally larger limit (a collection every 0.8 × live bytes allocated, as
// GOGC=80 would), never a collection loop. A process started with GOGC or GOMEMLIMIT set is
// left to them.
func followGC() (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	pct := debug.SetGCPercent(importGCPercent)
	limit := debug.SetMemoryLimit(importGCFloor)
	w := &gcFollower{}
	w.arm()
	return func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.stopped = true
		debug.SetGCPercent(pct)
		debug.SetMemoryLimit(limit)
	}
}

// gcFollower re-sets the memory limit after every collection: a cleanup attached to an
// unreachable sentinel runs once the collector has found it, and attaches the next one.
type gcFollower struct {
	mu      sync.Mutex // a cleanup running as the import ends must not set the limit after restore
	stopped bool
	sample  [1]metrics.Sample
}

// gcSentinel is large enough not to share a tiny-allocator block, so that the collector
// frees it in the first cycle after it is made.
type gcSentinel [32]byte

func (w *gcFollower) arm() {
	runtime.AddCleanup(new(gcSentinel), func(w *gcFollower) { w.collected() }, w)
}

func (w *gcFollower) collected() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	w.sample[0].Name = "/gc/heap/live:bytes"
	metrics.Read(w.sample[:])
	if w.sample[0].Value.Kind() == metrics.KindUint64 {
		debug.SetMemoryLimit(followLimit(w.sample[0].Value.Uint64()))
	}
	w.arm()
}

// followLimit is the memory limit for a live heap of live bytes.
func followLimit(live uint64) int64 {
	return max(importGCFloor, int64(float64(live)*importGCRatio))
}
