//go:build !unix

package diffview

import "time"

func processCPU() time.Duration { return 0 }
