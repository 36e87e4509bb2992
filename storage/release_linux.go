package storage

import (
	"os"

	bolt "go.etcd.io/bbolt"
	"golang.org/x/sys/unix"
)

// releaseMapped advises the kernel that the mapped pages of the file are not needed:
// bbolt maps the file shared and read-only, so they are dropped from this process only,
// and read again from the page cache (or the file) on the next access. An error only
// means the pages stay; it is ignored.
func releaseMapped(b *bolt.DB, path string) {
	data := b.Info().Data
	fi, err := os.Stat(path)
	if data == 0 || err != nil || fi.Size() <= 0 {
		return
	}
	_, _, _ = unix.Syscall(unix.SYS_MADVISE, data, uintptr(fi.Size()), unix.MADV_DONTNEED)
}
