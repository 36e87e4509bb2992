// Package safefile reads workspace files that a user, a model or a shared
// repository put there, without trusting them: only regular files are read
// (a FIFO, a socket or a device such as a symlink to /dev/zero is refused
// before a single byte is read, so nothing blocks or fills memory), and the
// size limit holds on the bytes actually read, never on what stat reports.
//
// Every loader of workspace files (config, themes, agents, PRDs, plans,
// skills, workflows, blueprints) reads through [ReadFile] or [ReadFS].
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Sentinel errors callers branch on.
var (
	// ErrNotRegular: the path is a directory, FIFO, socket or device.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge: the file holds more bytes than the caller's limit.
	ErrTooLarge = errors.New("file is too large")
)

// Error says which file broke which rule.
type Error struct {
	Path   string
	Detail string // "a named pipe", "more than 262144 bytes"
	Err    error  // ErrNotRegular or ErrTooLarge
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %v (%s)", e.Path, e.Err, e.Detail) }

// Unwrap exposes the sentinel.
func (e *Error) Unwrap() error { return e.Err }

// ReadFile reads the regular file at path (symlinks followed), at most max
// bytes. The file is opened with O_NONBLOCK so that a FIFO cannot block the
// open; its type is then checked on the open descriptor (no race with a
// swapped path), and reading stops one byte past max.
func ReadFile(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, err
	}
	// The file is only read; a failed Close loses nothing.
	defer func() { _ = f.Close() }()
	return readOpen(path, f, max)
}

// Open opens the regular file at path for reading as a stream (an import
// of any size: the caller bounds what it reads), with ReadFile's checks: a
// FIFO does not block the open, and anything but a regular file (a named
// pipe, a device such as a link to /dev/zero, a directory) is refused with
// an *Error wrapping ErrNotRegular, checked on the open descriptor.
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		_ = f.Close()
		return nil, &Error{Path: path, Detail: ModeName(st.Mode()), Err: ErrNotRegular}
	}
	return f, nil
}

// ReadFS is ReadFile over an fs.FS. An fs.FS cannot open without blocking,
// so the type is checked with fs.Stat (which follows symlinks) before the
// open, and again on the open file.
func ReadFS(fsys fs.FS, name string, max int64) ([]byte, error) {
	st, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &Error{Path: name, Detail: ModeName(st.Mode()), Err: ErrNotRegular}
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	return readOpen(name, f, max)
}

func readOpen(name string, f fs.File, max int64) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &Error{Path: name, Detail: ModeName(st.Mode()), Err: ErrNotRegular}
	}
	if st.Size() > max {
		return nil, tooLarge(name, max)
	}
	// Stat sizes are a hint only (procfs files report 0, a file may grow):
	// the limit holds on what is read.
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, tooLarge(name, max)
	}
	return data, nil
}

func tooLarge(name string, max int64) error {
	return &Error{Path: name, Detail: fmt.Sprintf("more than %d bytes", max), Err: ErrTooLarge}
}

// ModeName describes a file mode for an error message.
func ModeName(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m.IsRegular():
		return "a regular file"
	}
	return "not a regular file"
}

// NonBlock is the open flag (O_NONBLOCK where it exists) that keeps an
// open of a FIFO from waiting for a writer; for callers that open files
// their own way (e.g. through an os.Root) and check the type themselves.
const NonBlock = oNonblock
