package patterns

import (
	"errors"
	"fmt"
)

// Sentinel errors. Per-file problems are reported as *ParseError (or FileError in a scan) that
// wrap one of these, so callers branch with errors.Is.
var (
	// ErrEmpty: the file has no bytes or only whitespace.
	ErrEmpty = errors.New("empty file")
	// ErrBinary: the file contains NUL bytes or is mostly control characters.
	ErrBinary = errors.New("binary content")
	// ErrTooLarge: the file is larger than the size limit (1 MiB by default).
	ErrTooLarge = errors.New("file too large")
	// ErrNotUTF8: the file is not valid UTF-8 (UTF-16 files included).
	ErrNotUTF8 = errors.New("not valid UTF-8")
	// ErrHeadless: no heading and no prose paragraph at all (and no front matter title or
	// description): lists, tables or code alone are not a pattern.
	ErrHeadless = errors.New("no heading and no prose")
	// ErrFrontMatter: the leading YAML front matter is malformed or has a bad value.
	ErrFrontMatter = errors.New("malformed front matter")
	// ErrUnsafePath: a path is absolute or climbs out of the import root.
	ErrUnsafePath = errors.New("path escapes the import root")
	// ErrSymlinkEscape: a symlink in the scanned tree points outside the import root.
	ErrSymlinkEscape = errors.New("symlink escapes the import root")
	// ErrSymlinkLoop: a symlink chain is longer than 40 links (usually a loop).
	ErrSymlinkLoop = errors.New("too many levels of symbolic links")
	// ErrNotRegular: a *.md entry is not a regular file (device, pipe, directory behind a link).
	ErrNotRegular = errors.New("not a regular file")
	// ErrBadName: the file name is not valid UTF-8, so it cannot be opened by name through
	// io/fs (which answered "open: invalid argument") nor stored as a source.
	ErrBadName = errors.New("file name is not valid UTF-8")
)

// ParseError is a per-file failure. Err is one of the sentinel errors above (or an I/O error),
// Line is the 1-based file line when known (0 otherwise).
type ParseError struct {
	Path   string
	Line   int
	Err    error
	Detail string
}

func (e *ParseError) Error() string {
	return e.Path + ": " + e.Reason()
}

// Reason is the error text without the path: "line 3: malformed front matter: ...".
func (e *ParseError) Reason() string {
	s := ""
	if e.Line > 0 {
		s = fmt.Sprintf("line %d: ", e.Line)
	}
	if e.Err != nil {
		s += e.Err.Error()
	}
	if e.Detail != "" {
		if e.Err != nil {
			s += ": "
		}
		s += e.Detail
	}
	return s
}

func (e *ParseError) Unwrap() error { return e.Err }
