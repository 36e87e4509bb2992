//go:build unix

package storage

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// flockShared takes a shared flock on f (the lock bbolt's readers take),
// waiting up to timeout for a writer to let go.
func flockShared(f *os.File, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
		if err == nil || !errors.Is(err, syscall.EWOULDBLOCK) {
			return err
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// flockExclusiveNow tries an exclusive flock on f without waiting (released
// when f is closed): an error means another process holds a lock on it.
func flockExclusiveNow(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}
