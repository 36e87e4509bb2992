//go:build linux || darwin

package patterns

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// readFast reads the regular file name of a library opened as a Root (Scan) with the fewest
// system calls: the file's folder is opened once per run of files (through the Root, so it
// is inside the library) and kept open; the file is opened by its base name in it with
// openat(O_NOFOLLOW|O_NONBLOCK), stat'ed, read and closed on the descriptor. os.Root.Open
// would walk the path one openat per folder and then set the descriptor up for the poller
// (fcntl, epoll_ctl), which a regular file does not use: together more than half of reading
// a 2 KB file.
//
// ok is false when readFast cannot tell (not a Root, a file in the library's own folder, an
// error opening the folder or the file, a symlink swapped in): the caller then reads the file
// the general way, which gives the error it always gave.
func (o *opener) readFast(name string, maxSize int64) (data []byte, ok bool, err error) {
	rf, isRoot := o.fsys.(rootFS)
	dir, base := path.Split(name)
	if !isRoot || dir == "" || base == "" {
		return nil, false, nil
	}
	dir = dir[:len(dir)-1]
	if o.dirF == nil || o.dir != dir {
		o.close()
		f, err := rf.root.Open(dir)
		if err != nil {
			return nil, false, nil
		}
		o.dir, o.dirF, o.dirFd = dir, f, int(f.Fd())
	}
	var fd int
	for {
		fd, err = unix.Openat(o.dirFd, base, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		return nil, false, nil
	}
	// Only read from; a failed close loses nothing.
	defer func() { _ = unix.Close(fd) }()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, false, nil
	}
	if mode := fileMode(uint32(st.Mode)); !mode.IsRegular() { //nolint:unconvert // uint16 on macOS
		return nil, true, &ParseError{Err: ErrNotRegular, Detail: modeName(mode)}
	}
	if st.Size > maxSize {
		return nil, true, &ParseError{Err: ErrTooLarge, Detail: fmt.Sprintf("%d bytes, limit %d", st.Size, maxSize)}
	}
	if data, ok := readWhole(fd, st.Size); ok {
		return data, true, nil
	}
	if data, err = readFile(fdReader(fd), st.Size, maxSize); err != nil {
		return nil, true, fmt.Errorf("read: %w", &fs.PathError{Op: "read", Path: name, Err: err})
	}
	return data, true, nil
}

// readWhole reads the regular file fd, of size bytes by fstat, in one pread from its start
// into a buffer a byte larger: a regular file is read short only at its end, so a read that
// stops at that size has the whole file, and the read that would only find the end (half
// of an import's reads) is saved. ok is false when the read gives anything else (an error,
// a file that shrank, or grew and filled the buffer): the file offset has not moved, and
// readFile reads it the general way.
func readWhole(fd int, size int64) (data []byte, ok bool) {
	buf := make([]byte, size+1)
	for {
		n, err := unix.Pread(fd, buf, 0)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil || int64(n) != size:
			return nil, false
		}
		return buf[:n], true
	}
}

// fileMode is the fs.FileMode type bits of a stat mode.
func fileMode(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFREG:
		return 0
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		return fs.ModeDevice
	}
	return fs.ModeIrregular
}

// fdReader reads a descriptor, retrying interrupted reads; 0 bytes is the end of the file.
type fdReader int

func (r fdReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, err := unix.Read(int(r), p)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return 0, err
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// dirFile is the folder readFast keeps open.
type dirFile = *os.File

// ReadDir lists a folder of the library as the Root's own FS does (opened through the Root,
// entries sorted by name) but takes the entries' types from the directory itself: a File
// opened in a Root stats every entry (one lstatat per file of the library), which a walk
// that only needs names and types does not use. The descriptor is a duplicate of the one the
// Root opened, so the folder read is the one inside the library; an entry's Info goes
// through the Root too.
func (f rootFS) ReadDir(name string) ([]fs.DirEntry, error) {
	dir, err := f.root.Open(name)
	if err != nil {
		return nil, err
	}
	fd, err := unix.FcntlInt(dir.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	_ = dir.Close() // only read from; a failed Close loses nothing
	if err != nil {
		return f.rootFSys.ReadDir(name)
	}
	plain := os.NewFile(uintptr(fd), name)
	defer func() { _ = plain.Close() }()
	entries, err := plain.ReadDir(-1)
	for i, e := range entries {
		entries[i] = rootDirent{DirEntry: e, root: f.root, path: path.Join(name, e.Name())}
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
}

// rootDirent is a directory entry whose Info is read through the library's Root.
type rootDirent struct {
	fs.DirEntry
	root *os.Root
	path string
}

func (d rootDirent) Info() (fs.FileInfo, error) { return d.root.Lstat(d.path) }
