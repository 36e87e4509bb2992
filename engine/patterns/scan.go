package patterns

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// maxLinkHops bounds symlink chains (Linux uses 40 too).
const maxLinkHops = 40

// ScanOptions tunes Scan and ScanFS.
type ScanOptions struct {
	// Parse is passed to Parse for every file (Split, MaxSize).
	Parse ParseOptions
	// Workers is the number of files parsed in parallel; 0 means GOMAXPROCS.
	Workers int
	// Progress, when set, is called with (0, total) once the tree is listed and then after
	// every file with the number of files finished. It is called from the goroutine that called
	// Scan, never concurrently, with done increasing by one each time.
	Progress func(done, total int)
}

// SkippedFile is a *.md file that was deliberately not parsed (a meta file).
type SkippedFile struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// FileError is a *.md file (or an unreadable directory) that could not be turned into a Doc.
type FileError struct {
	Path string `json:"path"`
	// Line is the 1-based line the problem is on, 0 when not tied to a line.
	Line   int    `json:"line,omitempty"`
	Reason string `json:"reason"`
	// Err wraps a sentinel (ErrEmpty, ErrBinary, ErrSymlinkEscape, …) for errors.Is.
	Err error `json:"-"`
}

// Counts summarises a scan. When the scan finished, Parsed+Skipped+Errors == Total.
type Counts struct {
	Total   int `json:"total"`
	Parsed  int `json:"parsed"`
	Skipped int `json:"skipped"`
	Errors  int `json:"errors"`
}

// ScanResult holds every file's outcome, each list sorted by path.
type ScanResult struct {
	Docs    []Doc         `json:"docs"`
	Skipped []SkippedFile `json:"skipped"`
	Errors  []FileError   `json:"errors"`
	Counts  Counts        `json:"counts"`
}

// IsMetaFile reports library bookkeeping files that are not patterns: README.md, INDEX.md,
// KIRO-*.md and EXTRACTION-*.md, case-insensitively, in any folder.
func IsMetaFile(name string) bool {
	base := strings.ToUpper(path.Base(strings.ReplaceAll(name, "\\", "/")))
	if !strings.HasSuffix(base, ".MD") {
		return false
	}
	return base == "README.MD" || base == "INDEX.MD" ||
		strings.HasPrefix(base, "KIRO-") || strings.HasPrefix(base, "EXTRACTION-")
}

func isMarkdown(name string) bool { return strings.EqualFold(path.Ext(name), ".md") }

// Scan parses every *.md file under the directory root (see ScanFS). The tree is opened with
// os.OpenRoot, so no path or symlink can reach outside root even if the tree changes during
// the scan. A missing or unreadable root is the returned error; problems with single files
// are in the result.
func Scan(ctx context.Context, root string, opts ScanOptions) (ScanResult, error) {
	st, err := os.Stat(root)
	if err != nil {
		return ScanResult{}, fmt.Errorf("scan patterns: %w", err)
	}
	if !st.IsDir() {
		return ScanResult{}, fmt.Errorf("scan patterns: %s: not a directory", root)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return ScanResult{}, fmt.Errorf("scan patterns: %w", err)
	}
	// The root is only read; a failed Close loses nothing.
	defer func() { _ = r.Close() }()
	fsys := r.FS()
	if rf, ok := fsys.(rootFSys); ok {
		fsys = rootFS{rootFSys: rf, root: r}
	}
	return ScanFS(ctx, fsys, opts)
}

// rootFSys is what an os.Root's FS implements.
type rootFSys interface {
	fs.ReadDirFS
	fs.ReadFileFS
	fs.StatFS
	fs.ReadLinkFS
}

// rootFS is the file system of an os.Root, with the Root at hand: a scan worker opens each
// folder once as a Root of its own and its files by name in it (opening "a/b/c.md" in the
// library's Root walks "a" and "b" with one openat each, for every file).
type rootFS struct {
	rootFSys // r.FS()
	root     *os.Root
}

// opener opens the files of one scan worker. With a rootFS it keeps the folder of the last
// file open as an os.Root: files come in path order, so a worker opens each folder about
// once. Opening in a folder's Root keeps the guarantee of the library's Root (nothing outside
// it is reached: the folder is itself opened through the library's Root, and a Root never
// leaves itself), and is stricter (a file swapped for a symlink leading out of its folder is
// refused too).
type opener struct {
	fsys fs.FS
	dirR *os.Root // nil: no folder open as a Root
	rdir string   // the folder dirR is
	// The folder readFast keeps open (Linux and macOS), its descriptor and name.
	dirF  dirFile
	dirFd int
	dir   string
}

func (o *opener) open(name string) (fs.File, error) {
	rf, ok := o.fsys.(rootFS)
	if !ok {
		return o.fsys.Open(name)
	}
	dir, base := path.Split(name)
	dir = strings.TrimSuffix(dir, "/")
	if dir == "" {
		return o.fsys.Open(name)
	}
	if o.dirR == nil || o.rdir != dir {
		o.closeRoot()
		r, err := rf.root.OpenRoot(dir)
		if err != nil {
			return o.fsys.Open(name) // the same error as before, with the whole path
		}
		o.rdir, o.dirR = dir, r
	}
	f, err := o.dirR.Open(base)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			pe.Path = name
		}
		return nil, err
	}
	return f, nil
}

// close closes the folders the opener keeps open.
func (o *opener) close() {
	o.closeRoot()
	if o.dirF != nil {
		_ = o.dirF.Close() // only read from; a failed Close loses nothing
		o.dirF = nil
	}
}

func (o *opener) closeRoot() {
	if o.dirR != nil {
		_ = o.dirR.Close() // only read from; a failed Close loses nothing
		o.dirR = nil
	}
}

type candidate struct {
	path string
	mode fs.FileMode
}

type outcome struct {
	done    bool
	doc     Doc
	skipped string
	err     *FileError
}

// ScanFS parses every *.md file (case-insensitive extension) in fsys, e.g. an embed.FS.
//
//   - Directories whose name starts with "." are not entered; symlinked directories are not
//     followed.
//   - Meta files (IsMetaFile) are reported in Skipped.
//   - A symlinked *.md file is followed only when its target stays inside fsys; this needs fsys
//     to implement fs.ReadLinkFS (os.DirFS and os.Root.FS do), otherwise it is refused too.
//   - Every other problem (empty, binary, too large, bad front matter, …) is a FileError and
//     the scan goes on.
//
// On cancellation ScanFS returns what it finished together with ctx.Err().
func ScanFS(ctx context.Context, fsys fs.FS, opts ScanOptions) (ScanResult, error) {
	var (
		cands   []candidate
		walkErr []FileError
	)
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			if p == "." {
				return err
			}
			walkErr = append(walkErr, FileError{Path: p, Reason: "cannot read: " + errText(err), Err: err})
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if p != "." && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		if isMarkdown(d.Name()) {
			cands = append(cands, candidate{path: p, mode: d.Type()})
		}
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return ScanResult{}, ctx.Err()
		}
		return ScanResult{}, fmt.Errorf("scan patterns: %w", err)
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].path < cands[j].path })

	total := len(cands) + len(walkErr)
	if opts.Progress != nil {
		opts.Progress(0, total)
	}
	results := make([]outcome, len(cands))
	done := 0
	for range walkErr {
		done++
		if opts.Progress != nil {
			opts.Progress(done, total)
		}
	}

	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, len(cands)))
	// Workers take the next file from a counter (a feeder goroutine handing out indices
	// over a channel cost two goroutine switches per file).
	var next atomic.Int64
	finished := make(chan int, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			o := opener{fsys: fsys}
			defer o.close()
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= len(cands) {
					return
				}
				results[i] = scanOne(&o, cands[i], opts.Parse)
				finished <- i
			}
		})
	}
	go func() {
		wg.Wait()
		close(finished)
	}()
	for range finished {
		done++
		if opts.Progress != nil {
			opts.Progress(done, total)
		}
	}

	parsed := 0
	for _, o := range results {
		if o.done && o.err == nil && o.skipped == "" {
			parsed++
		}
	}
	res := ScanResult{Errors: walkErr, Docs: make([]Doc, 0, parsed)}
	for _, o := range results {
		switch {
		case !o.done:
		case o.err != nil:
			res.Errors = append(res.Errors, *o.err)
		case o.skipped != "":
			res.Skipped = append(res.Skipped, SkippedFile{Path: o.doc.SourceFile, Reason: o.skipped})
		default:
			res.Docs = append(res.Docs, o.doc)
		}
	}
	sort.SliceStable(res.Errors, func(i, j int) bool { return res.Errors[i].Path < res.Errors[j].Path })
	res.Counts = Counts{Total: total, Parsed: len(res.Docs), Skipped: len(res.Skipped), Errors: len(res.Errors)}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	return res, nil
}

func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}

// scanOne classifies, reads and parses one candidate.
func scanOne(o *opener, c candidate, popts ParseOptions) outcome {
	if IsMetaFile(c.path) {
		return outcome{done: true, doc: Doc{SourceFile: c.path}, skipped: "meta file (README/INDEX/KIRO-*/EXTRACTION-*), not a pattern"}
	}
	fail := func(line int, err error) outcome {
		fe := &FileError{Path: c.path, Line: line, Err: err, Reason: errText(err)}
		var pe *ParseError
		if errors.As(err, &pe) {
			if pe.Path == "" {
				pe.Path = c.path
			}
			fe.Line, fe.Reason = pe.Line, pe.Reason()
		}
		return outcome{done: true, err: fe}
	}
	data, err := readCandidate(o, c, popts.maxSize())
	if err != nil {
		return fail(0, err)
	}
	doc, err := parseFile(c.path, data, popts, true) // data is this call's own buffer
	if err != nil {
		return fail(0, err)
	}
	return outcome{done: true, doc: doc}
}

// readCandidate reads a regular file (or a symlink to one inside fsys) of at most maxSize bytes.
func readCandidate(o *opener, c candidate, maxSize int64) ([]byte, error) {
	fsys := o.fsys
	name := c.path
	if !utf8.ValidString(name) {
		return nil, &ParseError{Err: ErrBadName, Detail: fmt.Sprintf("%q; rename the file to import it", name)}
	}
	switch {
	case c.mode&fs.ModeSymlink != 0:
		target, info, err := resolveLink(fsys, name)
		if err != nil {
			return nil, err
		}
		if !info.Mode().IsRegular() {
			return nil, &ParseError{Err: ErrNotRegular, Detail: "symlink target " + target + " is " + modeName(info.Mode())}
		}
		name = target
	case c.mode&fs.ModeType != 0:
		return nil, &ParseError{Err: ErrNotRegular, Detail: modeName(c.mode)}
	default:
		if data, ok, err := o.readFast(name, maxSize); ok {
			return data, err
		}
	}
	f, err := o.open(name)
	if err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	// The file is only read; a failed Close loses nothing.
	defer func() { _ = f.Close() }()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, &ParseError{Err: ErrNotRegular, Detail: modeName(st.Mode())}
	}
	if st.Size() > maxSize {
		return nil, &ParseError{Err: ErrTooLarge, Detail: fmt.Sprintf("%d bytes, limit %d", st.Size(), maxSize)}
	}
	data, err := readFile(f, st.Size(), maxSize)
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	return data, nil
}

// readFile reads f to its end but at most maxSize+1 bytes (so that Parse sees a file that
// grew past the limit after Stat as too large). size is f's size from Stat: the buffer is
// that size exactly, the Doc keeps pointing into it (io.ReadAll starts at 512 bytes and reads
// a 2 KB file in five calls, and a buffer with slack would keep its slack alive).
func readFile(f io.Reader, size, maxSize int64) ([]byte, error) {
	buf := make([]byte, min(size, maxSize+1))
	n, err := io.ReadFull(f, buf)
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF: // the file shrank
		return buf[:n], nil
	case err != nil:
		return nil, err
	case int64(n) > maxSize:
		return buf, nil
	}
	// The end of the file: one more read finds it, unless the file grew after Stat.
	var one [1]byte
	m, err := io.ReadFull(f, one[:])
	switch {
	case m == 0 && (err == io.EOF || err == io.ErrUnexpectedEOF):
		return buf, nil
	case err != nil:
		return nil, err
	}
	var more bytes.Buffer
	more.Write(buf)
	more.WriteByte(one[0])
	if _, err := more.ReadFrom(io.LimitReader(f, maxSize+1-int64(more.Len()))); err != nil {
		return nil, err
	}
	return more.Bytes(), nil
}

func modeName(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	}
	return "not a regular file"
}

// resolveLink resolves name, a symlink inside fsys, component by component (like realpath),
// refusing absolute targets and any ".." that climbs above the root. It returns the resolved
// path and its Lstat info.
func resolveLink(fsys fs.FS, name string) (string, fs.FileInfo, error) {
	if _, ok := fsys.(fs.ReadLinkFS); !ok {
		return "", nil, &ParseError{Err: ErrSymlinkEscape, Detail: "cannot verify the symlink target on this file system"}
	}
	pending := strings.Split(name, "/")
	var (
		done []string
		info fs.FileInfo
		hops int
	)
	for len(pending) > 0 {
		c := pending[0]
		pending = pending[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(done) == 0 {
				return "", nil, &ParseError{Err: ErrSymlinkEscape, Detail: "target climbs above the root"}
			}
			done = done[:len(done)-1]
			continue
		}
		cur := path.Join(path.Join(done...), c)
		fi, err := fs.Lstat(fsys, cur)
		if err != nil {
			return "", nil, fmt.Errorf("resolve symlink: %w", err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			done = append(done, c)
			info = fi
			continue
		}
		hops++
		if hops > maxLinkHops {
			return "", nil, &ParseError{Err: ErrSymlinkLoop}
		}
		target, err := fs.ReadLink(fsys, cur)
		if err != nil {
			return "", nil, fmt.Errorf("resolve symlink: %w", err)
		}
		if target == "" || strings.HasPrefix(target, "/") || strings.HasPrefix(target, "\\") || len(target) >= 2 && target[1] == ':' {
			return "", nil, &ParseError{Err: ErrSymlinkEscape, Detail: fmt.Sprintf("absolute target %q", target)}
		}
		pending = append(strings.Split(target, "/"), pending...)
	}
	if len(done) == 0 || info == nil {
		return "", nil, &ParseError{Err: ErrNotRegular, Detail: "symlink resolves to the root directory"}
	}
	return path.Join(done...), info, nil
}
