//go:build darwin || freebsd

package storage

import (
	"os"
	"syscall"
)

// statIdentity returns the device, inode and change time of a stat result.
func statIdentity(st os.FileInfo) (dev, ino uint64, ctimeNs int64, ok bool) {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 0, false
	}
	return uint64(s.Dev), uint64(s.Ino), s.Ctimespec.Nano(), true //nolint:unconvert // widths differ between systems
}
