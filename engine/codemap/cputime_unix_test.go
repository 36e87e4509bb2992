//go:build unix

package codemap

import (
	"syscall"
	"time"
)

// processCPU returns the user+system CPU time of the process so far.
// Benchmarks report it next to wall time because on a shared machine wall
// time mostly measures the neighbours.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
