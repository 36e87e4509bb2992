//go:build unix

package storage

import (
	"os"
	"syscall"
)

// mapFile maps size bytes of f read-only; nil when it cannot (the reader
// then falls back to plain reads).
func mapFile(f *os.File, size int64) []byte {
	if size <= 0 || int64(int(size)) != size {
		return nil
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil
	}
	return data
}

func unmapFile(data []byte) {
	if data != nil {
		_ = syscall.Munmap(data)
	}
}
