//go:build !unix

package build_test

import "time"

// processCPU is not available on this platform.
func processCPU() time.Duration { return 0 }
