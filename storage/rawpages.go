package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"time"
)

// This file reads bbolt's on-disk format directly, with plain reads and a
// bounds check on every offset, never through bbolt's memory map. bbolt
// trusts its pages: a damaged element offset faults, a damaged page type
// panics, and a branch page pointing back to an ancestor makes its cursor
// loop forever while its stack grows (a flipped byte did that: the process
// grew until the kernel killed it). Nothing here can fault or loop: every
// page is visited at most once and every offset is checked.
//
// Hand-written because bbolt exposes no bounds-checked reader. The format
// (bbolt v1.x, little-endian): a page is a 16-byte header (id u64, flags
// u16, count u16, overflow u32) followed by count elements of 16 bytes;
// branch elements are (pos u32, ksize u32, pgid u64), leaf elements are
// (flags u32, pos u32, ksize u32, vsize u32); pos counts from the element
// itself. A leaf element with flag 1 is a bucket: its value starts with
// (root u64, sequence u64) and, when root is 0, holds an inline page.

const (
	pageHeaderSize  = 16
	elementSize     = 16
	branchPageFlag  = 0x01
	leafPageFlag    = 0x02
	freelistFlag    = 0x10
	bucketLeafFlag  = 0x01
	bucketHeaderLen = 16
	maxTreeDepth    = 64
	noFreelist      = ^uint64(0)
)

// rawFile is a bbolt file read with bounds checks: through a read-only
// map of exactly the file's length when the system has one (no system call
// per page; every offset is checked against the length, and callers run
// under guarded in case the file is cut while mapped), else plain reads.
type rawFile struct {
	f        *os.File
	data     []byte
	size     int64
	pageSize int
	high     uint64 // pages in use (meta pgid)
	root     uint64 // root bucket's page
	freelist uint64
	txid     uint64 // the newest meta page's transaction id
	metaSum  uint64 // and its checksum
}

// openRaw reads the newest valid meta page of path and maps the file.
func openRaw(path string) (*rawFile, error) {
	r, err := openRawMeta(path)
	if err != nil {
		return nil, err
	}
	r.data = mapFile(r.f, r.size)
	return r, nil
}

// openRawMeta reads the newest valid meta page of path (no map).
func openRawMeta(path string) (*rawFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	r := &rawFile{f: f, size: st.Size()}
	var bestTx uint64
	found := false
	head := make([]byte, pageHeaderSize+64)
	for _, off := range []int64{0, -1} {
		if off < 0 {
			off = int64(os.Getpagesize())
			if found {
				off = int64(r.pageSize)
			}
		}
		if _, err := f.ReadAt(head, off); err != nil && !errors.Is(err, io.EOF) {
			continue
		}
		m := head[pageHeaderSize:]
		if binary.LittleEndian.Uint32(m[0:]) != 0xED0CDAED {
			continue
		}
		h := fnv.New64a()
		_, _ = h.Write(m[:56])
		if h.Sum64() != binary.LittleEndian.Uint64(m[56:]) {
			continue
		}
		txid := binary.LittleEndian.Uint64(m[48:])
		if found && txid <= bestTx {
			continue
		}
		found, bestTx = true, txid
		r.txid, r.metaSum = txid, h.Sum64()
		r.pageSize = int(binary.LittleEndian.Uint32(m[8:]))
		r.root = binary.LittleEndian.Uint64(m[16:])
		r.freelist = binary.LittleEndian.Uint64(m[32:])
		r.high = binary.LittleEndian.Uint64(m[40:])
	}
	if !found || r.pageSize < 512 || r.pageSize > 1<<20 {
		_ = f.Close()
		return nil, fmt.Errorf("%w: no valid meta page", ErrCorrupt)
	}
	return r, nil
}

func (r *rawFile) Close() error {
	unmapFile(r.data)
	r.data = nil
	return r.f.Close()
}

// page reads page id with its overflow pages into buf (grown as needed)
// and checks its header. One read for a page without overflow.
func (r *rawFile) page(id uint64, wantFlags uint16, buf []byte) ([]byte, error) {
	if id < 2 || id >= r.high {
		return nil, fmt.Errorf("page %d is outside the %d pages in use", id, r.high)
	}
	off := int64(id) * int64(r.pageSize)
	if off+int64(r.pageSize) > r.size {
		return nil, fmt.Errorf("page %d: runs past the end of the file", id)
	}
	if r.data != nil {
		return r.mapped(id, off, wantFlags)
	}
	if cap(buf) < r.pageSize {
		buf = make([]byte, r.pageSize)
	}
	buf = buf[:r.pageSize]
	if _, err := r.f.ReadAt(buf, off); err != nil {
		return nil, fmt.Errorf("page %d: %w", id, err)
	}
	if got := binary.LittleEndian.Uint64(buf); got != id {
		return nil, fmt.Errorf("page %d: header says page %d", id, got)
	}
	flags := binary.LittleEndian.Uint16(buf[8:])
	if flags&wantFlags == 0 {
		return nil, fmt.Errorf("page %d: unexpected page type %#x", id, flags)
	}
	overflow := uint64(binary.LittleEndian.Uint32(buf[12:]))
	if overflow == 0 {
		return buf, nil
	}
	if id+overflow >= r.high {
		return nil, fmt.Errorf("page %d: %d overflow pages run past the %d pages in use", id, overflow, r.high)
	}
	n := int64(overflow+1) * int64(r.pageSize)
	if off+n > r.size {
		return nil, fmt.Errorf("page %d: runs past the end of the file", id)
	}
	if int64(cap(buf)) < n {
		nb := make([]byte, n)
		copy(nb, buf)
		buf = nb
	}
	buf = buf[:n]
	if _, err := r.f.ReadAt(buf[r.pageSize:], off+int64(r.pageSize)); err != nil {
		return nil, fmt.Errorf("page %d: %w", id, err)
	}
	return buf, nil
}

func (r *rawFile) mapped(id uint64, off int64, wantFlags uint16) ([]byte, error) {
	head := r.data[off : off+pageHeaderSize]
	if got := binary.LittleEndian.Uint64(head); got != id {
		return nil, fmt.Errorf("page %d: header says page %d", id, got)
	}
	if flags := binary.LittleEndian.Uint16(head[8:]); flags&wantFlags == 0 {
		return nil, fmt.Errorf("page %d: unexpected page type %#x", id, flags)
	}
	overflow := uint64(binary.LittleEndian.Uint32(head[12:]))
	if overflow > 0 && id+overflow >= r.high {
		return nil, fmt.Errorf("page %d: %d overflow pages run past the %d pages in use", id, overflow, r.high)
	}
	n := int64(overflow+1) * int64(r.pageSize)
	if off+n > r.size {
		return nil, fmt.Errorf("page %d: runs past the end of the file", id)
	}
	return r.data[off : off+n : off+n], nil
}

// rawEntry is one leaf element: a key and a value, or a nested bucket.
type rawEntry struct {
	key, value []byte
	bucket     bool
}

// treeWalker visits bucket trees, each page at most once. The entries it
// hands to a callback alias a page buffer that is reused once the
// callback returns: callers copy what they keep.
type treeWalker struct {
	r    *rawFile
	seen pageSet
	bufs [][]byte // one page buffer per tree depth
	// keepGoing: record problems and go on with the next page (recovery);
	// otherwise stop at the first one (verification).
	keepGoing bool
	problems  []string
}

func (w *treeWalker) fail(format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	w.problems = append(w.problems, msg)
	if w.keepGoing {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrCorrupt, msg)
}

// bucket visits the entries of a bucket whose header is value (root page
// and sequence, or an inline page), in key order.
func (w *treeWalker) bucket(value []byte, depth int, fn func(rawEntry) error) error {
	if len(value) < bucketHeaderLen {
		return w.fail("bucket header of %d bytes", len(value))
	}
	root := binary.LittleEndian.Uint64(value)
	if root == 0 {
		return w.leaf(value[bucketHeaderLen:], 0, depth, fn)
	}
	return w.tree(root, depth, fn)
}

func (w *treeWalker) tree(id uint64, depth int, fn func(rawEntry) error) error {
	if depth > maxTreeDepth {
		return w.fail("page %d: the tree is deeper than %d levels", id, maxTreeDepth)
	}
	if w.seen.has(id) {
		return w.fail("page %d is referenced twice (a loop in the tree)", id)
	}
	w.seen.add(id)
	for len(w.bufs) <= depth {
		w.bufs = append(w.bufs, nil)
	}
	buf, err := w.r.page(id, branchPageFlag|leafPageFlag, w.bufs[depth])
	if err != nil {
		return w.fail("%v", err)
	}
	w.bufs[depth] = buf
	if binary.LittleEndian.Uint16(buf[8:])&leafPageFlag != 0 {
		return w.leaf(buf, id, depth, fn)
	}
	count := int(binary.LittleEndian.Uint16(buf[10:]))
	if pageHeaderSize+count*elementSize > len(buf) {
		return w.fail("page %d: %d elements do not fit", id, count)
	}
	var prev []byte
	for i := range count {
		el := pageHeaderSize + i*elementSize
		pos := int(binary.LittleEndian.Uint32(buf[el:]))
		ksize := int(binary.LittleEndian.Uint32(buf[el+4:]))
		child := binary.LittleEndian.Uint64(buf[el+8:])
		if k0, k1 := el+pos, el+pos+ksize; pos < 0 || ksize < 0 || k1 > len(buf) || k0 < el {
			if err := w.fail("page %d: branch element %d points outside the page", id, i); err != nil {
				return err
			}
			continue
		} else {
			key := buf[k0:k1]
			if prev != nil && bytes.Compare(prev, key) >= 0 {
				if err := w.fail("page %d: keys out of order", id); err != nil {
					return err
				}
			}
			prev = key
		}
		if err := w.tree(child, depth+1, fn); err != nil {
			return err
		}
	}
	return nil
}

// leaf visits a leaf page's entries; id 0 is an inline page.
func (w *treeWalker) leaf(buf []byte, id uint64, depth int, fn func(rawEntry) error) error {
	where := pageName(id)
	if len(buf) < pageHeaderSize {
		return w.fail("%s: too short", where)
	}
	if binary.LittleEndian.Uint16(buf[8:])&leafPageFlag == 0 {
		return w.fail("%s: not a leaf page", where)
	}
	count := int(binary.LittleEndian.Uint16(buf[10:]))
	if pageHeaderSize+count*elementSize > len(buf) {
		return w.fail("%s: %d elements do not fit", where, count)
	}
	var prev []byte
	for i := range count {
		el := pageHeaderSize + i*elementSize
		flags := binary.LittleEndian.Uint32(buf[el:])
		pos := int(binary.LittleEndian.Uint32(buf[el+4:]))
		ksize := int(binary.LittleEndian.Uint32(buf[el+8:]))
		vsize := int(binary.LittleEndian.Uint32(buf[el+12:]))
		k0 := el + pos
		k1 := k0 + ksize
		v1 := k1 + vsize
		if pos < 0 || ksize < 0 || vsize < 0 || k0 < el || k1 < k0 || v1 < k1 || v1 > len(buf) {
			if err := w.fail("%s: element %d points outside the page", where, i); err != nil {
				return err
			}
			continue
		}
		key, val := buf[k0:k1], buf[k1:v1]
		if prev != nil && bytes.Compare(prev, key) >= 0 {
			if err := w.fail("%s: keys out of order", where); err != nil {
				return err
			}
			continue
		}
		prev = key
		e := rawEntry{key: key, value: val, bucket: flags&bucketLeafFlag != 0}
		if e.bucket && depth+1 > maxTreeDepth {
			return w.fail("%s: buckets nest deeper than %d levels", where, maxTreeDepth)
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}

// pageName formats lazily: only a failure prints it.
type pageName uint64

func (p pageName) String() string {
	if p == 0 {
		return "inline page"
	}
	return fmt.Sprintf("page %d", uint64(p))
}

// checkFreelist bounds-checks the freelist page bbolt reads at open.
func (r *rawFile) checkFreelist() error {
	if r.freelist == noFreelist {
		return nil
	}
	buf, err := r.page(r.freelist, freelistFlag, nil)
	if err != nil {
		return fmt.Errorf("freelist: %w", err)
	}
	count := uint64(binary.LittleEndian.Uint16(buf[10:]))
	idx := uint64(0)
	if count == 0xFFFF {
		if len(buf) < pageHeaderSize+8 {
			return errors.New("freelist: too short")
		}
		count, idx = binary.LittleEndian.Uint64(buf[pageHeaderSize:]), 1
	}
	if count > uint64(len(buf)) || pageHeaderSize+(idx+count)*8 > uint64(len(buf)) {
		return fmt.Errorf("freelist: %d ids do not fit", count)
	}
	for i := range count {
		id := binary.LittleEndian.Uint64(buf[pageHeaderSize+(idx+i)*8:])
		if id < 2 || id >= r.high {
			return fmt.Errorf("freelist: page %d is outside the %d pages in use", id, r.high)
		}
	}
	return nil
}

// verifyMode says how much of the file an open verified.
type verifyMode int

const (
	verifiedNothing     verifyMode = iota // no file yet, or one bbolt reports on itself
	verifiedFingerprint                   // the cheap checks: the file is the one a nova left (fingerprint.go)
	verifiedFull                          // every page
)

// rawVerify checks the whole file's structure without bbolt: meta, the
// length, the freelist, and every page of every bucket (bounds, types,
// key order, no page reached twice). It reads every page once.
func rawVerify(path string) error {
	_, err := rawVerifyTrusting(path, nil)
	return err
}

// rawVerifyTrusting is rawVerify that stops after the cheap checks (meta,
// length, freelist) when the file matches trusted, the fingerprint a nova
// left beside it.
func rawVerifyTrusting(path string, trusted *fingerprint) (mode verifyMode, err error) {
	err = guarded(func() error {
		var verr error
		mode, verr = rawVerifyUnguarded(path, trusted)
		return verr
	})
	return mode, err
}

func rawVerifyUnguarded(path string, trusted *fingerprint) (verifyMode, error) {
	r, err := openRaw(path)
	if err != nil {
		// ErrCorrupt (no valid meta page): bbolt's own meta checks report
		// it, with its words. I/O errors: Open reports them itself.
		return verifiedNothing, nil
	}
	defer func() { _ = r.Close() }()
	if want := int64(r.high) * int64(r.pageSize); r.size < want {
		return verifiedFull, fmt.Errorf("%w: the file is %d bytes but its pages need %d (it was cut short)", ErrCorrupt, r.size, want)
	}
	if err := r.checkFreelist(); err != nil {
		return verifiedFull, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if trusted != nil {
		if fp, ok := fingerprintOf(r.f, r.txid, r.metaSum, r.pageSize); ok && fp == *trusted {
			return verifiedFingerprint, nil
		}
	}
	w := &treeWalker{r: r}
	var visit func(depth int) func(rawEntry) error
	visit = func(depth int) func(rawEntry) error {
		return func(e rawEntry) error {
			if !e.bucket {
				return nil
			}
			return w.bucket(e.value, depth+1, visit(depth+1))
		}
	}
	return verifiedFull, w.tree(r.root, 0, visit(0))
}

// verifyLocked verifies path before bbolt opens it (in full, or only the
// cheap checks when it matches the fingerprint in its sidecar, which it
// returns), while holding the shared lock bbolt's readers take, so that no
// nova process writes the file meanwhile; the lock is released before
// bbolt opens the file (and takes its own).
func verifyLocked(path string, timeout time.Duration) (verifyMode, *fingerprint, error) {
	f, err := os.Open(path)
	if err != nil {
		return verifiedNothing, nil, nil // a missing or unreadable file is Open's to report
	}
	defer func() { _ = f.Close() }()
	if err := flockShared(f, timeout); err != nil {
		return verifiedNothing, nil, fmt.Errorf("%w: %s is locked by another nova process (close it, or retry in a moment)", ErrInUse, path)
	}
	var trusted *fingerprint
	if fp, ok := readSidecar(path); ok {
		trusted = &fp
	}
	mode, err := rawVerifyTrusting(path, trusted)
	if err != nil {
		return mode, nil, fmt.Errorf("open %s: %w; %s", path, err, whatToDo)
	}
	return mode, trusted, nil
}

// pageSet is a set of page ids (a map: ids come from damaged pages too, so
// a dense bitmap sized by them could be huge).
type pageSet map[uint64]struct{}

func (s *pageSet) has(id uint64) bool {
	_, ok := (*s)[id]
	return ok
}

func (s *pageSet) add(id uint64) {
	if *s == nil {
		*s = pageSet{}
	}
	(*s)[id] = struct{}{}
}
