//go:build !unix

package codemap

import "time"

// processCPU is not available on this platform.
func processCPU() time.Duration { return 0 }
