//go:build !unix

package storage

import (
	"os"
	"time"
)

// flockShared is a no-op where flock does not exist; bbolt uses other
// locks there.
func flockShared(*os.File, time.Duration) error { return nil }

// flockExclusiveNow is a no-op where flock does not exist.
func flockExclusiveNow(*os.File) error { return nil }
