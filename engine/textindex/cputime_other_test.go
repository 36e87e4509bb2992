//go:build !unix

package textindex

import "time"

// processCPU is not available on this platform.
func processCPU() time.Duration { return 0 }
